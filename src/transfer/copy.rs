//! Copies between device allocations: on the destination's copy engine over P2P when the pair's
//! link is sound and the policy allows the source to become resident there, else staged through
//! a pinned host bounce buffer. Safe code only: Level Zero is reached through the safe core.

#![deny(unsafe_code)]

use crate::error::{Error, Result};
use crate::residency::{
    AllocationState, LinkState, Request, ResidencyManager, Resident, SelfTest, Shared,
};
use crate::ze::command::{CommandList, staged_copy};
use crate::ze::memory::{HostBuffer, held_uses};
use std::sync::{Arc, Mutex, MutexGuard};

/// How a copy between device allocations travelled.
///
/// ```
/// use lazy_usm::{Context, CopyPath, Policy, ResidencyConfig, ResidencyManager, Runtime};
/// let devices = Runtime::simulated("b60x4-refused")?.devices()?;
/// let manager = ResidencyManager::new(Context::new(&devices)?, ResidencyConfig::new(Policy::Lazy))?;
/// let source = manager.allocate(&devices[0], 4096)?;
/// let mut target = manager.allocate(&devices[3], 4096)?;
/// // B60s on separate root ports have no P2P: the copy is staged, and costs no residency.
/// assert_eq!(manager.copy(&mut target, 0, &source, 0, 4096)?, CopyPath::Staged);
/// assert_eq!(manager.host_cost().current_bytes, 0);
/// # Ok::<(), lazy_usm::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CopyPath {
    /// Both allocations on one device.
    Local,
    /// Device to device over the pair's P2P link.
    PeerToPeer,
    /// Through pinned host memory, chunked, the two engines overlapping.
    Staged,
    /// Zero bytes: nothing ran and nothing became resident.
    Empty,
}

/// How a copy travelled and when it ran.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CopyReport {
    /// The path it took.
    pub path: CopyPath,
    /// When it ran on the device (for a staged copy: from the first chunk leaving the source to
    /// the last arriving), in device timestamp ticks.
    pub device_time: Option<crate::ze::event::KernelTimestamp>,
}

/// Size of the self-test's probe.
const PROBE_BYTES: usize = 4096;

/// A copy list of one device, lent to one copy and given back when dropped (a leaked lease
/// leaks only the list).
pub(crate) struct ListLease<'a> {
    idle: &'a Mutex<Vec<CommandList>>,
    list: Option<CommandList>,
}

impl std::ops::Deref for ListLease<'_> {
    type Target = CommandList;
    fn deref(&self) -> &CommandList {
        self.list
            .as_ref()
            .expect("a lease holds its list until dropped")
    }
}

impl Drop for ListLease<'_> {
    fn drop(&mut self) {
        // Synchronous copies have completed when the lease goes: the list is idle. A list
        // whose completion event could not be reset is dropped, not reused.
        if let Some(list) = self.list.take()
            && !list.is_broken()
        {
            lock(self.idle).push(list);
        }
    }
}

/// A pinned bounce buffer, lent to one staged copy.
struct StagingLease<'a> {
    shared: &'a Shared,
    buffer: Option<HostBuffer>,
}

impl Drop for StagingLease<'_> {
    fn drop(&mut self) {
        if let Some(buffer) = self.buffer.take() {
            lock(&self.shared.staging).push(buffer);
        }
    }
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl Shared {
    /// An idle copy list of device `index` (made if none is idle).
    fn list(&self, index: u32) -> Result<ListLease<'_>> {
        let compute = self.config.engine == crate::residency::EngineChoice::Compute;
        self.lease(&self.lists[index as usize], index, compute)
    }

    /// An idle compute list of device `index`, for kernels (made if none is idle).
    pub(crate) fn compute_list(&self, index: u32) -> Result<ListLease<'_>> {
        self.lease(&self.compute_lists[index as usize], index, true)
    }

    fn lease<'a>(
        &'a self,
        idle: &'a Mutex<Vec<CommandList>>,
        index: u32,
        compute: bool,
    ) -> Result<ListLease<'a>> {
        let found = lock(idle).pop();
        let list = match found {
            Some(list) => list,
            None => {
                let device = self.device(index);
                let engine = if compute {
                    device.compute_engine()?
                } else {
                    device.preferred_copy_engine()?
                };
                self.context.immediate_list(&engine)?
            }
        };
        Ok(ListLease {
            idle,
            list: Some(list),
        })
    }

    /// An idle pinned bounce buffer (made if none is idle).
    fn staging(&self) -> Result<StagingLease<'_>> {
        let idle = lock(&self.staging).pop();
        let buffer = match idle {
            Some(buffer) => buffer,
            None => {
                // At most 2 * MAX_STAGING_CHUNK: the config was validated.
                let bytes = 2 * self.config.staging_chunk;
                let buffer = self.context.alloc_host(bytes, 0)?;
                self.accounting.add_staging(bytes as u64);
                buffer
            }
        };
        Ok(StagingLease {
            shared: self,
            buffer: Some(buffer),
        })
    }

    /// Whether device `executing` may read `owner`'s memory over P2P: the driver says so and, if
    /// configured, a self-test of the pair passed.
    pub(crate) fn link_usable(&self, executing: u32, owner: u32) -> Result<bool> {
        let state = match self.link(executing, owner) {
            LinkState::Unknown => match self.driver_link(executing, owner)? {
                LinkState::Untested if self.config.self_test == SelfTest::Off => {
                    self.set_link(executing, owner, LinkState::Trusted);
                    LinkState::Trusted
                }
                state => state,
            },
            known => known,
        };
        Ok(match state {
            LinkState::Trusted => true,
            LinkState::Refused | LinkState::Corrupt => false,
            LinkState::Untested | LinkState::Unknown => self.self_test(executing, owner)?,
        })
    }

    /// What the driver says of the pair (`Refused` or `Untested`), recorded.
    fn driver_link(&self, executing: u32, owner: u32) -> Result<LinkState> {
        let state = if self.device(executing).can_access_peer(self.device(owner))? {
            LinkState::Untested
        } else {
            LinkState::Refused
        };
        self.set_link(executing, owner, state);
        Ok(state)
    }

    /// Copies a known pattern from `owner` to `executing` over P2P and checks it arrived. The
    /// probe's peer residency counts against the host budget like any other; when the budget
    /// has no room for it, the pair stays untested and this copy is staged.
    pub(crate) fn self_test(&self, executing: u32, owner: u32) -> Result<bool> {
        let pattern: Vec<u8> = (0..PROBE_BYTES)
            .map(|index| (index * 31 + 7) as u8)
            .collect();
        let mut probe = self
            .context
            .alloc_device(self.device(owner), PROBE_BYTES, 0)?;
        let mut landing = self
            .context
            .alloc_device(self.device(executing), PROBE_BYTES, 0)?;
        self.list(owner)?.write(&mut probe, 0, &pattern)?;
        // Taken before the probe's residency is counted, so no early return leaves it counted.
        let list = self.list(executing)?;
        {
            let mut state = self.lock();
            if let Some(budget) = self.config.host_budget
                && self
                    .make_room(&mut state, PROBE_BYTES as u64, budget, 0)
                    .is_err()
            {
                log::info!(
                    "lazy-usm: no host budget left for the P2P self-test of devices {owner} -> \
                     {executing}; staging this copy"
                );
                return Ok(false);
            }
            self.accounting.resident_call();
            self.context.make_resident(&probe, self.device(executing))?;
            self.accounting.peer_added(executing, PROBE_BYTES as u64);
        }
        let mut arrived = vec![0u8; PROBE_BYTES];
        let outcome = list
            .copy(&mut landing, 0, &probe, 0, PROBE_BYTES)
            .and_then(|()| list.read(&landing, 0, &mut arrived));
        drop(list);
        drop(probe);
        self.accounting.peer_removed(executing, PROBE_BYTES as u64);
        let state = match outcome {
            Ok(()) if arrived == pattern => LinkState::Trusted,
            Ok(()) => {
                log::warn!(
                    "lazy-usm: P2P from device {owner} to device {executing} returned wrong bytes \
                     (as behind a switch with ACS redirect); copies between them are staged"
                );
                LinkState::Corrupt
            }
            Err(error) => {
                log::warn!(
                    "lazy-usm: P2P from device {owner} to device {executing} failed ({error}); \
                     copies between them are staged"
                );
                LinkState::Refused
            }
        };
        self.set_link(executing, owner, state);
        Ok(state == LinkState::Trusted)
    }
}

impl ResidencyManager {
    fn check_pair(&self, dst: &dyn Resident, src: &dyn Resident) -> Result<()> {
        for allocation in [dst, src] {
            self.check_owned(allocation)?;
        }
        Ok(())
    }

    /// Copies `len` bytes from `src[src_offset..]` to `dst[dst_offset..]` and waits.
    ///
    /// Runs on the destination device's copy engine. Across devices it reads the source over
    /// P2P when the pair's link is sound and the source's policy lets it become resident on the
    /// destination device (`Lazy` does, at this first use; `PeerEnabled` once
    /// `enable_peer_access` allowed it; `Manual` only if the program made it resident); otherwise
    /// it stages through pinned host memory and costs no residency.
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// let manager = ResidencyManager::new(Context::new(&devices)?, ResidencyConfig::default())?;
    /// let source = manager.allocate(&devices[0], 4096)?;
    /// let mut target = manager.allocate(&devices[1], 4096)?;
    /// assert_eq!(manager.copy(&mut target, 0, &source, 0, 4096)?, CopyPath::PeerToPeer);
    /// assert_eq!(manager.host_cost().current_bytes, 4096);
    /// # Ok::<(), Error>(())
    /// ```
    pub fn copy(
        &self,
        dst: &mut impl Resident,
        dst_offset: usize,
        src: &impl Resident,
        src_offset: usize,
        len: usize,
    ) -> Result<CopyPath> {
        self.copy_timed(dst, dst_offset, src, src_offset, len)
            .map(|report| report.path)
    }

    /// [`ResidencyManager::copy`], also returning when the copy ran on the device.
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// let manager = ResidencyManager::new(Context::new(&devices)?, ResidencyConfig::default())?;
    /// let source = manager.allocate(&devices[0], 1 << 20)?;
    /// let mut target = manager.allocate(&devices[1], 1 << 20)?;
    /// let report = manager.copy_timed(&mut target, 0, &source, 0, 1 << 20)?;
    /// assert!(report.device_time.is_some());
    /// # Ok::<(), Error>(())
    /// ```
    pub fn copy_timed(
        &self,
        dst: &mut impl Resident,
        dst_offset: usize,
        src: &impl Resident,
        src_offset: usize,
        len: usize,
    ) -> Result<CopyReport> {
        self.check_pair(dst, src)?;
        for (allocation, offset, role) in [
            (&*dst as &dyn Resident, dst_offset, "destination"),
            (src, src_offset, "source"),
        ] {
            crate::ze::command::locate(allocation, offset, len, role)?;
        }
        if len == 0 {
            // Nothing to move: no self-test, no residency.
            return Ok(CopyReport {
                path: CopyPath::Empty,
                device_time: None,
            });
        }
        let shared = &*self.shared;
        let (executing, owner) = (dst.residency().state.owner, src.residency().state.owner);
        // Pinned before any residency is read (the protocol of the `pin` module), held until
        // the copy has completed.
        let _pins = held_uses(&[&*dst, src]);
        let src_state = src.residency().state;
        let direct = if executing == owner {
            Some(CopyPath::Local)
        } else if self.peer_path(src_state, executing, owner)? {
            let _ = src.note_peer_use(executing);
            Some(CopyPath::PeerToPeer)
        } else {
            None
        };
        if let Some(path) = direct {
            let list = shared.list(executing)?;
            list.copy(dst, dst_offset, src, src_offset, len)?;
            return Ok(CopyReport {
                path,
                device_time: list.last_timestamp(),
            });
        }
        let source_list = shared.list(owner)?;
        let target_list = shared.list(executing)?;
        let mut staging = shared.staging()?;
        let bounce = staging
            .buffer
            .as_mut()
            .ok_or_else(|| Error::Internal("a staging lease without its buffer".into()))?;
        let interval = staged_copy(
            &source_list,
            &target_list,
            (dst, dst_offset),
            (src, src_offset),
            len,
            bounce,
        )?;
        Ok(CopyReport {
            path: CopyPath::Staged,
            device_time: interval,
        })
    }

    /// Whether `executing` reads the source (owned by `owner`) over P2P: it is resident there
    /// already, or its policy lets it become so now, and the pair's link is sound.
    fn peer_path(&self, source: &Arc<AllocationState>, executing: u32, owner: u32) -> Result<bool> {
        let shared = &*self.shared;
        // Pinned by the caller: read as the pin protocol requires.
        Ok(if source.resident.read_claimed().contains(executing) {
            shared.touch(source, executing);
            shared.link_usable(executing, owner)?
        } else if shared.may_auto_resident(source.policy, executing, owner)
            && shared.link_usable(executing, owner)?
        {
            shared.make_resident(source, executing, Request::Automatic, true)?
        } else {
            false
        })
    }

    /// Copies host bytes into `dst[offset..]` on its owner's copy engine, and waits.
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// let manager = ResidencyManager::new(Context::new(&devices)?, ResidencyConfig::default())?;
    /// let mut allocation = manager.allocate(&devices[1], 8)?;
    /// manager.write(&mut allocation, 0, &[1; 8])?;
    /// # Ok::<(), Error>(())
    /// ```
    pub fn write(&self, dst: &mut impl Resident, offset: usize, data: &[u8]) -> Result<()> {
        self.check_owned(dst)?;
        self.shared
            .list(dst.residency().state.owner)?
            .write(dst, offset, data)
    }

    /// Copies `src[offset..]` into host bytes on its owner's copy engine, and waits.
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// let manager = ResidencyManager::new(Context::new(&devices)?, ResidencyConfig::default())?;
    /// let mut allocation = manager.allocate(&devices[1], 8)?;
    /// manager.write(&mut allocation, 0, &[4; 8])?;
    /// let mut out = [0; 8];
    /// manager.read(&allocation, 0, &mut out)?;
    /// assert_eq!(out, [4; 8]);
    /// # Ok::<(), Error>(())
    /// ```
    pub fn read(&self, src: &impl Resident, offset: usize, out: &mut [u8]) -> Result<()> {
        self.check_owned(src)?;
        self.shared
            .list(src.residency().state.owner)?
            .read(src, offset, out)
    }

    /// Runs the P2P self-test of `executing` reading `owner`'s memory now; whether the link
    /// delivered the right bytes. The result decides later copies' path.
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// let acs = Runtime::simulated("b70x2-acs")?.devices()?;
    /// let manager = ResidencyManager::new(Context::new(&acs)?, ResidencyConfig::default())?;
    /// assert!(!manager.self_test(&acs[1], &acs[0])?, "the link corrupts data");
    /// # Ok::<(), Error>(())
    /// ```
    pub fn self_test(
        &self,
        executing: &crate::ze::device::Device,
        owner: &crate::ze::device::Device,
    ) -> Result<bool> {
        let (executing, owner) = (self.index_of(executing)?, self.index_of(owner)?);
        match self.shared.driver_link(executing, owner)? {
            LinkState::Refused => Ok(false),
            _ => self.shared.self_test(executing, owner),
        }
    }
}
