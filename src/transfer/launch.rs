//! Launches through the residency manager: a launch is a use. Memory arguments and declared
//! reach owned by other devices become resident on the executing device by policy, pinned until
//! the launch completes.

use crate::error::{Error, Result};
use crate::residency::{
    AllocationState, Policy, Request, ResidencyManager, Resident, residency_of,
};
use crate::ze::call::ze_name;
use crate::ze::event::KernelTimestamp;
use crate::ze::launch::{Arg, Dims};
use crate::ze::memory::{Memory, uses_for_call};
use crate::ze::module::Kernel;
use std::sync::Arc;

/// How a launch through the manager went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LaunchReport {
    /// Peer residencies the launch made (first uses on the executing device).
    pub made_resident: u32,
    /// When it ran on the device, in device timestamp ticks.
    pub device_time: Option<KernelTimestamp>,
}

impl ResidencyManager {
    /// Launches `kernel` on its device E over `dims` and waits. A launch is a use: each managed
    /// memory argument, and each allocation in `reaches` (memory the kernel reads through
    /// pointers stored in other buffers, which no argument shows), that another device owns
    /// becomes resident on E by its policy: `Lazy` at this first use (one residency per
    /// allocation and device, however many launches), `PeerEnabled` only for enabled pairs
    /// ([`Error::PeerAccessDisabled`] otherwise), `Manual` only if the program made it resident
    /// ([`Error::NotResident`] otherwise). A pair without a sound P2P link cannot serve a kernel
    /// ([`Error::NoPeerPath`]); a budget that cannot afford the residency refuses
    /// ([`Error::HostBudgetExceeded`]). Everything used is pinned until the kernel completes.
    ///
    /// # Safety
    /// As [`CommandList::launch`](crate::CommandList::launch); and the kernel reads through stored pointers only memory
    /// listed in `reaches`.
    ///
    /// ```
    /// use lazy_usm::{Arg, Context, Dims, Module, ResidencyConfig, ResidencyManager, Runtime};
    /// let runtime = Runtime::simulated("b70x2")?;
    /// let devices = runtime.devices()?;
    /// let manager = ResidencyManager::new(Context::new(&devices)?, ResidencyConfig::default())?;
    /// let spirv = lazy_usm::ze_sim::spirv::module_with_kernels(&[("lazy_usm_sim_copy_u32", 2)]);
    /// let copy = Module::from_spirv(manager.context(), &devices[1], &spirv, "")?.kernel("lazy_usm_sim_copy_u32")?;
    /// let activations = manager.allocate(&devices[0], 1024 * 4)?; // device 0's
    /// let mut local = manager.allocate(&devices[1], 1024 * 4)?;
    /// for _ in 0..3 {
    ///     // SAFETY: the built-in copy reads its second argument and writes its first.
    ///     unsafe {
    ///         manager.launch(&copy, Dims::linear(1024, 64)?, &mut [Arg::Write(&mut local), Arg::Read(&activations)], &[])?;
    ///     }
    /// }
    /// assert!(activations.resident().contains(1), "resident on device 1 at its first kernel use");
    /// assert_eq!(manager.host_cost().current_bytes, 1024 * 4);
    /// # Ok::<(), lazy_usm::Error>(())
    /// ```
    pub unsafe fn launch(
        &self,
        kernel: &Kernel,
        dims: Dims,
        args: &mut [Arg<'_>],
        reaches: &[&dyn Resident],
    ) -> Result<LaunchReport> {
        if kernel.context() != self.context() {
            return Err(Error::ForeignObject {
                what: "kernel",
                detail: "it was built in another context than the manager's".into(),
            });
        }
        let executing = self.index_of(kernel.device())?;
        let list = self.shared.compute_list(executing)?;
        // Everything that can be checked before any residency is paid for.
        crate::ze::launch::check_launch(self.context(), list.engine(), kernel, dims, args.len())?;
        for memory in args.iter().filter_map(Arg::memory) {
            self.context().check_memory(memory)?;
        }
        let mut used: Vec<&dyn Memory> = args.iter().filter_map(Arg::memory).collect();
        used.extend(reaches.iter().map(|resident| *resident as &dyn Memory));
        for memory in &used {
            if let Some(handle) = residency_of(*memory)
                && !Arc::ptr_eq(handle.manager, &self.shared)
            {
                return Err(Error::ForeignMemory {
                    address: memory.address(),
                    len: memory.len(),
                    owner: "another residency manager",
                });
            }
        }
        // Pinned before any residency is read (the `pin` protocol), until the kernel is done.
        let _pins = uses_for_call(&used);
        let mut made_resident = 0;
        for memory in &used {
            let Some(handle) = residency_of(*memory) else {
                continue;
            };
            if handle.state.owner == executing {
                continue;
            }
            if self.ensure_for_kernel(handle.state, executing)? {
                made_resident += 1;
            }
            // Counted once the use is allowed (a pool weighs it when trimming).
            if let Some(tracked) = memory.use_tracking() {
                let _ = tracked.tracker().note_use_on(executing);
            }
        }
        // SAFETY: the caller's promise; the memory is borrowed for this call, which waits.
        unsafe { list.launch_pinned(kernel, dims, args) }?;
        Ok(LaunchReport {
            made_resident,
            device_time: list.last_timestamp(),
        })
    }

    /// Makes `allocation` (pinned by the caller) resident on `executing` for a kernel, by its
    /// policy; whether it made a new residency.
    fn ensure_for_kernel(&self, allocation: &Arc<AllocationState>, executing: u32) -> Result<bool> {
        let shared = &*self.shared;
        let owner = allocation.owner;
        if allocation.resident.read_claimed().contains(executing) {
            shared.touch(allocation, executing);
            return Ok(false);
        }
        match allocation.policy {
            Policy::Manual => {
                return Err(Error::NotResident {
                    device: executing,
                    owner,
                });
            }
            Policy::PeerEnabled
                if !shared.may_auto_resident(allocation.policy, executing, owner) =>
            {
                return Err(Error::PeerAccessDisabled {
                    accessor: executing,
                    owner,
                });
            }
            _ => {}
        }
        // The same test copies make: the driver's word, and the self-test where configured (a
        // corrupting link serves no kernel either).
        if !shared.link_usable(executing, owner)? {
            return Err(Error::NoPeerPath {
                executing,
                owner,
                link: format!("{:?}", shared.link(executing, owner)).to_lowercase(),
            });
        }
        if shared.make_resident(allocation, executing, Request::Automatic, true)? {
            Ok(true)
        } else {
            Err(match shared.config.host_budget {
                Some(budget) => Error::HostBudgetExceeded {
                    needed: allocation.size as u64,
                    budget,
                    in_use: shared.accounting.current(),
                },
                None => Error::OutOfHostMemory {
                    call: ze_name!(context_make_memory_resident),
                },
            })
        }
    }
}
