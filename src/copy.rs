//! Copies between device allocations: on the destination's copy engine over P2P when the pair's
//! link is sound and the policy allows the source to become resident there, else staged through
//! a pinned host bounce buffer. Safe code only: Level Zero is reached through the safe core.

#![deny(unsafe_code)]

use crate::command::{CommandList, staged_copy};
use crate::error::{Error, Result};
use crate::residency::{
    AllocationState, LinkState, Request, ResidencyManager, Resident, SelfTest, Shared,
};
use std::sync::atomic::Ordering;
use std::sync::{Arc, MutexGuard};

/// How a copy between device allocations travelled.
///
/// ```
/// use lazy_usm::{Context, CopyPath, Policy, ResidencyConfig, ResidencyManager, Runtime};
/// let devices = Runtime::simulated("b60x4")?.devices()?;
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
}

/// How a copy travelled and when it ran.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CopyReport {
    /// The path it took.
    pub path: CopyPath,
    /// When it ran on the device (for a staged copy: from the first chunk leaving the source to
    /// the last arriving), in device timestamp ticks.
    pub device_time: Option<crate::KernelTimestamp>,
}

/// Marks allocations as used by a copy until dropped.
struct InUse<'a> {
    shared: &'a Shared,
    allocations: [Arc<AllocationState>; 2],
}

impl<'a> InUse<'a> {
    fn new(shared: &'a Shared, allocations: [Arc<AllocationState>; 2]) -> Self {
        for allocation in &allocations {
            allocation.pending.fetch_add(1, Ordering::AcqRel);
        }
        Self {
            shared,
            allocations,
        }
    }
}

impl Drop for InUse<'_> {
    fn drop(&mut self) {
        for allocation in &self.allocations {
            allocation.pending.fetch_sub(1, Ordering::AcqRel);
        }
        for allocation in &self.allocations {
            self.shared.settle(allocation);
        }
    }
}

/// Size of the self-test's probe.
const PROBE_BYTES: usize = 4096;

impl Shared {
    /// The copy list of device `index`, made on first use.
    fn list(&self, index: u32) -> Result<MutexGuard<'_, Option<CommandList>>> {
        let mut slot = self.lists[index as usize]
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if slot.is_none() {
            let device = self.device(index);
            let engine = match self.config.engine {
                crate::EngineChoice::Copy => device.preferred_copy_engine()?,
                crate::EngineChoice::Compute => device.compute_engine()?,
            };
            *slot = Some(self.context.immediate_list(&engine)?);
        }
        Ok(slot)
    }

    /// Whether device `executing` may read `owner`'s memory over P2P: the driver says so and, if
    /// configured, a self-test of the pair passed.
    fn link_usable(&self, executing: u32, owner: u32) -> Result<bool> {
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

    /// Copies a known pattern from `owner` to `executing` over P2P and checks it arrived.
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
        if let Some(list) = self.list(owner)?.as_ref() {
            list.write(&mut probe, 0, &pattern)?;
        }
        self.accounting.resident_call();
        self.context.make_resident(&probe, self.device(executing))?;
        self.accounting.peer_added(executing, PROBE_BYTES as u64);
        let mut arrived = vec![0u8; PROBE_BYTES];
        let outcome = match self.list(executing)?.as_ref() {
            Some(list) => list
                .copy(&mut landing, 0, &probe, 0, PROBE_BYTES)
                .and_then(|()| list.read(&landing, 0, &mut arrived)),
            None => Ok(()),
        };
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

    /// The pinned bounce buffer, made on first use.
    fn staging(&self) -> Result<MutexGuard<'_, Option<crate::HostBuffer>>> {
        let mut slot = self
            .staging
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if slot.is_none() {
            let bytes = 2 * self.config.staging_chunk;
            *slot = Some(self.context.alloc_host(bytes, 0)?);
            self.accounting.set_staging(bytes as u64);
        }
        Ok(slot)
    }
}

fn list_of(guard: &Option<CommandList>) -> Result<&CommandList> {
    guard
        .as_ref()
        .ok_or_else(|| Error::invalid("copy list missing"))
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
        let checks: [(&dyn Resident, usize, &str); 2] = [
            (&*dst, dst_offset, "destination"),
            (src, src_offset, "source"),
        ];
        for (allocation, offset, role) in checks {
            if offset
                .checked_add(len)
                .is_none_or(|end| end > allocation.len())
            {
                return Err(Error::invalid(format!(
                    "{role} range {offset}..{} is outside its {}-byte allocation",
                    offset as u128 + len as u128,
                    allocation.len()
                )));
            }
        }
        let shared = &*self.shared;
        let (dst_state, src_state) = (
            Arc::clone(dst.residency().state),
            Arc::clone(src.residency().state),
        );
        let (executing, owner) = (dst_state.owner, src_state.owner);
        let _in_use = InUse::new(shared, [Arc::clone(&dst_state), Arc::clone(&src_state)]);
        let direct = if executing == owner {
            Some(CopyPath::Local)
        } else if self.peer_path(&src_state, executing, owner)? {
            src.note_peer_use(executing);
            Some(CopyPath::PeerToPeer)
        } else {
            None
        };
        if let Some(path) = direct {
            let guard = shared.list(executing)?;
            let list = list_of(&guard)?;
            list.copy(dst, dst_offset, src, src_offset, len)?;
            return Ok(CopyReport {
                path,
                device_time: list.last_timestamp(),
            });
        }
        // Lock the two lists in index order, so concurrent copies cannot deadlock.
        let (first, second) = (owner.min(executing), owner.max(executing));
        let first_guard = shared.list(first)?;
        let second_guard = shared.list(second)?;
        let (source_list, target_list) = if owner == first {
            (list_of(&first_guard)?, list_of(&second_guard)?)
        } else {
            (list_of(&second_guard)?, list_of(&first_guard)?)
        };
        let mut staging = shared.staging()?;
        let bounce = staging
            .as_mut()
            .ok_or_else(|| Error::invalid("staging buffer missing"))?;
        let interval = staged_copy(
            source_list,
            target_list,
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
        Ok(if source.resident.load().contains(executing) {
            shared.link_usable(executing, owner)?
        } else if shared.may_auto_resident(source.policy, executing, owner)
            && shared.link_usable(executing, owner)?
        {
            shared.make_resident(source, executing, Request::Automatic)?
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
        let guard = self.shared.list(dst.residency().state.owner)?;
        list_of(&guard)?.write(dst, offset, data)
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
        let guard = self.shared.list(src.residency().state.owner)?;
        list_of(&guard)?.read(src, offset, out)
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
    pub fn self_test(&self, executing: &crate::Device, owner: &crate::Device) -> Result<bool> {
        let (executing, owner) = (self.index_of(executing)?, self.index_of(owner)?);
        match self.shared.driver_link(executing, owner)? {
            LinkState::Refused => Ok(false),
            _ => self.shared.self_test(executing, owner),
        }
    }
}
