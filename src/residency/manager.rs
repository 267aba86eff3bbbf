//! The residency manager: device allocations that know where they are resident, policies,
//! peer-access switches, a host budget with least-recently-used eviction, and host-cost
//! accounting.

use super::accounting::{Accounting, HostCost};
use super::device_set::{AtomicDeviceSet, DeviceSet, MAX_DEVICES};
use super::policy::{Policy, ResidencyConfig};
use crate::error::{Error, Result};
use crate::ze::command::CommandList;
use crate::ze::context::Context;
use crate::ze::device::Device;
use crate::ze::memory::{AllocationView, DeviceBuffer, FreePolicy, HostBuffer, Memory, sealed};
use crate::ze::uses::Tracked;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU8, AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

/// What the manager knows of one allocation, shared with its peer-residency records.
pub(crate) struct AllocationState {
    pub(crate) id: u64,
    pub(crate) owner: u32,
    pub(crate) address: usize,
    pub(crate) size: usize,
    pub(crate) policy: Policy,
    pub(crate) resident: AtomicDeviceSet,
    /// The devices the program asked for (`ensure_resident_on`, `Eager`): never the budget's
    /// to evict. Changed under the state lock.
    pub(crate) explicit: AtomicDeviceSet,
    /// Uses in flight that keep its residency (see the `pin` module for the protocol).
    pub(crate) pins: AtomicU32,
    /// The manager's epoch when a peer last used it (kept only under a host budget, where it
    /// orders eviction).
    pub(crate) last_use: AtomicU64,
    /// Set (under the state lock) when its `DeviceAllocation` is dropped: a caller that found
    /// it by pointer must not make the freed range resident anywhere.
    pub(crate) freed: std::sync::atomic::AtomicBool,
    /// A pool's segment: its residency is shared by the segment's blocks, which the pool
    /// counts, so residency by pointer refuses it.
    pub(crate) pooled: std::sync::atomic::AtomicBool,
}

/// What a device pair's P2P link has shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub(crate) enum LinkState {
    /// Not looked at yet.
    Unknown,
    /// The driver says the pair has P2P; not tested yet.
    Untested,
    /// The self-test passed (or is switched off).
    Trusted,
    /// The driver says the pair has no P2P.
    Refused,
    /// The self-test read back wrong bytes: the link corrupts data.
    Corrupt,
}

impl LinkState {
    const ALL: [LinkState; 5] = [
        LinkState::Unknown,
        LinkState::Untested,
        LinkState::Trusted,
        LinkState::Refused,
        LinkState::Corrupt,
    ];
}

/// One byte per ordered device pair, read without a lock on the copy path.
struct PairTable {
    devices: u32,
    cells: Vec<AtomicU8>,
}

impl PairTable {
    fn new(devices: u32) -> Self {
        Self {
            devices,
            cells: (0..devices * devices).map(|_| AtomicU8::new(0)).collect(),
        }
    }

    fn get(&self, row: u32, column: u32) -> u8 {
        self.cells[(row * self.devices + column) as usize].load(Ordering::Acquire)
    }

    fn set(&self, row: u32, column: u32, value: u8) {
        self.cells[(row * self.devices + column) as usize].store(value, Ordering::Release);
    }
}

#[derive(Default)]
pub(crate) struct State {
    /// (allocation id, device) -> each peer residency lazy-usm made.
    peers: HashMap<(u64, u32), Arc<AllocationState>>,
}

pub(crate) struct Shared {
    pub(crate) context: Context,
    pub(crate) config: ResidencyConfig,
    pub(crate) accounting: Accounting,
    state: Mutex<State>,
    /// (accessor, owner) pairs allowed by `enable_peer_access`: 1 when allowed.
    enabled: PairTable,
    /// (executing device, owner) -> a `LinkState`.
    links: PairTable,
    /// Idle copy lists of each device: a copy takes one (or makes one) and gives it back, so
    /// copies from several threads do not serialise on one list.
    pub(crate) lists: Vec<Mutex<Vec<CommandList>>>,
    /// Idle compute-engine lists of each device, for kernel launches.
    pub(crate) compute_lists: Vec<Mutex<Vec<CommandList>>>,
    /// Idle pinned bounce buffers of staged copies, likewise.
    pub(crate) staging: Mutex<Vec<HostBuffer>>,
    clock: AtomicU64,
    next_id: AtomicU64,
    /// Every live allocation by address range, for callers that hold only a pointer.
    pub(crate) registry: lazy_usm_registry::PointerRegistry<Arc<AllocationState>>,
}

/// Makes device allocations resident where they are used, by policy, and accounts for what that
/// costs on the host.
///
/// ```
/// use lazy_usm::{Context, Policy, ResidencyConfig, ResidencyManager, Runtime};
/// let runtime = Runtime::simulated("b70x2")?;
/// let devices = runtime.devices()?;
/// let manager = ResidencyManager::new(Context::new(&devices)?, ResidencyConfig::new(Policy::Lazy))?;
/// let weights = manager.allocate(&devices[0], 256 << 20)?;
/// assert_eq!(manager.host_cost().current_bytes, 0, "resident on its owner only");
/// manager.ensure_resident_on(&weights, &devices[1])?;
/// assert_eq!(manager.host_cost().current_bytes, 256 << 20);
/// assert_eq!(runtime.simulator().unwrap().host_pinned_bytes(), 256 << 20);
/// # Ok::<(), lazy_usm::Error>(())
/// ```
#[derive(Clone)]
pub struct ResidencyManager {
    pub(crate) shared: Arc<Shared>,
}

impl std::fmt::Debug for ResidencyManager {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ResidencyManager")
            .field("config", &self.shared.config)
            .finish_non_exhaustive()
    }
}

/// A device allocation that tracks the devices it is resident on.
///
/// Made by [`ResidencyManager::allocate`]; freed (with its residencies) on drop.
pub struct DeviceAllocation {
    pub(crate) state: Arc<AllocationState>,
    buffer: DeviceBuffer,
    manager: Arc<Shared>,
}

impl std::fmt::Debug for DeviceAllocation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DeviceAllocation")
            .field("owner", &self.state.owner)
            .field("size", &self.state.size)
            .field("resident", &self.state.resident.load())
            .field("policy", &self.state.policy)
            .finish()
    }
}

/// Memory whose residency a [`ResidencyManager`] tracks: a [`DeviceAllocation`], or a pool
/// block (tracked through its segment). Copies and residency calls take either.
pub trait Resident: Memory {
    #[doc(hidden)]
    fn residency(&self) -> ResidencyHandle<'_>;

    /// Called when the memory is used on (or made resident on) peer `device`; pool blocks count
    /// it, to tell shared bytes from collateral residency. Whether something was counted that
    /// a pool's trim weighs (then the residency that follows is read as after a pin).
    #[doc(hidden)]
    fn note_peer_use(&self, device: u32) -> bool {
        let _ = device;
        false
    }
}

/// Opaque link from memory to its residency record.
#[doc(hidden)]
pub struct ResidencyHandle<'a> {
    pub(crate) state: &'a Arc<AllocationState>,
    pub(crate) manager: &'a Arc<Shared>,
}

impl Resident for DeviceAllocation {
    fn residency(&self) -> ResidencyHandle<'_> {
        ResidencyHandle {
            state: &self.state,
            manager: &self.manager,
        }
    }
}

impl sealed::Sealed for DeviceAllocation {}

impl Memory for DeviceAllocation {
    fn allocation(&self) -> &dyn AllocationView {
        self.buffer.allocation()
    }

    fn use_tracking(&self) -> Option<Tracked<'_>> {
        Some(Tracked::new(self))
    }
}

impl DeviceAllocation {
    /// The devices it is resident on now.
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// let manager = ResidencyManager::new(Context::new(&devices)?, ResidencyConfig::default())?;
    /// let allocation = manager.allocate(&devices[1], 64)?;
    /// assert_eq!(allocation.resident(), DeviceSet::single(1)?);
    /// # Ok::<(), Error>(())
    /// ```
    pub fn resident(&self) -> DeviceSet {
        self.state.resident.load()
    }

    /// Index of the owning device.
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// let manager = ResidencyManager::new(Context::new(&devices)?, ResidencyConfig::default())?;
    /// assert_eq!(manager.allocate(&devices[1], 64)?.owner(), 1);
    /// # Ok::<(), Error>(())
    /// ```
    pub fn owner(&self) -> u32 {
        self.state.owner
    }

    /// Its residency policy.
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// let manager = ResidencyManager::new(Context::new(&devices)?, ResidencyConfig::default())?;
    /// assert_eq!(manager.allocate_with(&devices[0], 64, Policy::Manual)?.policy(), Policy::Manual);
    /// # Ok::<(), Error>(())
    /// ```
    pub fn policy(&self) -> Policy {
        self.state.policy
    }

    /// How the memory is freed when the allocation is dropped.
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// let manager = ResidencyManager::new(Context::new(&devices)?, ResidencyConfig::default())?;
    /// let mut allocation = manager.allocate(&devices[0], 64)?;
    /// allocation.set_free_policy(FreePolicy::Blocking);
    /// # Ok::<(), Error>(())
    /// ```
    pub fn set_free_policy(&mut self, policy: FreePolicy) {
        self.buffer.set_free_policy(policy);
    }
}

impl Drop for DeviceAllocation {
    fn drop(&mut self) {
        // The buffer frees the memory (and the driver its residencies) after this; here the
        // manager forgets the residencies and their cost. The record then says "resident
        // nowhere", so a pin that outlives the memory (held by a completion) evicts nothing
        // when it ends: the range may belong to a new allocation by then.
        // Only its own record (registration fails, and the allocation is dropped, if the range
        // was somehow live already).
        let own = |entry: &lazy_usm_registry::Entry<Arc<AllocationState>>| {
            Arc::ptr_eq(&entry.value, &self.state)
        };
        if self.manager.registry.find_map(self.state.address, own) == Some(true) {
            self.manager.registry.remove(self.state.address);
        }
        let mut state = self.manager.lock();
        self.state.freed.store(true, Ordering::SeqCst);
        let resident = self.state.resident.load();
        self.state.resident.store(DeviceSet::EMPTY);
        self.state.explicit.store(DeviceSet::EMPTY);
        for device in resident.iter().filter(|&device| device != self.state.owner) {
            state.peers.remove(&(self.state.id, device));
            self.manager
                .accounting
                .peer_removed(device, self.state.size as u64);
        }
    }
}

/// Whether a residency was asked for by the program or decided by a copy.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Request {
    Explicit,
    Automatic,
}

impl Shared {
    pub(crate) fn lock(&self) -> MutexGuard<'_, State> {
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    pub(crate) fn device(&self, index: u32) -> &Device {
        &self.context.devices()[index as usize]
    }

    /// Starts a new epoch of the eviction clock (when residency changes) and returns it.
    pub(crate) fn tick(&self) -> u64 {
        self.clock.fetch_add(1, Ordering::Relaxed) + 1
    }

    /// Makes `allocation` resident on `device` (owner or peer). `Ok(false)`: an automatic
    /// request that the budget (or the host) could not afford; the caller stages instead.
    /// Residency the program asks for (`Explicit`) is never the budget's to evict; a peer
    /// residency first made automatically becomes explicit once the program asks for it.
    ///
    /// `claimed`: the caller pinned the allocation or noted a use before this call, so the
    /// resident bit is read with a read-modify-write, as the pin protocol requires.
    pub(crate) fn make_resident(
        &self,
        allocation: &Arc<AllocationState>,
        device: u32,
        request: Request,
        claimed: bool,
    ) -> Result<bool> {
        let peer = device != allocation.owner;
        // The hot path: one atomic operation, two for an explicit request (and, under a budget,
        // one store for eviction order).
        let resident = if claimed {
            allocation.resident.read_claimed()
        } else {
            allocation.resident.load()
        };
        if resident.contains(device)
            && (request == Request::Automatic
                || !peer
                || allocation.explicit.load().contains(device))
        {
            self.touch(allocation, device);
            return Ok(true);
        }
        let mut state = self.lock();
        if allocation.freed.load(Ordering::SeqCst) {
            return Err(Error::UnknownPointer {
                address: allocation.address,
            });
        }
        if allocation.resident.load().contains(device) {
            if request == Request::Explicit {
                allocation.explicit.insert(device);
            }
            return Ok(true);
        }
        let size = allocation.size as u64;
        if peer
            && let Some(budget) = self.config.host_budget
            && let Err(error) = self.make_room(&mut state, size, budget, allocation.id)
        {
            return match request {
                Request::Explicit => Err(error),
                Request::Automatic => Ok(false),
            };
        }
        self.accounting.resident_call();
        let result = self.context.residency_range(
            allocation.address,
            allocation.size,
            self.device(device),
            false,
        );
        match result {
            Ok(()) => {}
            Err(Error::OutOfHostMemory { .. }) if request == Request::Automatic => {
                log::warn!("lazy-usm: the host cannot afford a peer residency; staging instead");
                return Ok(false);
            }
            Err(error) => return Err(error),
        }
        if request == Request::Explicit {
            allocation.explicit.insert(device);
        }
        allocation.resident.insert(device);
        if peer {
            self.accounting.peer_added(device, size);
            allocation.last_use.store(self.tick(), Ordering::Relaxed);
            state
                .peers
                .insert((allocation.id, device), Arc::clone(allocation));
        }
        Ok(true)
    }

    /// Records a use of `allocation` on `device` for the budget's least-recently-used order
    /// (only kept under a budget, and only for peers).
    ///
    /// A use stores the current epoch, which advances only when residency is made: uses share
    /// no counter they all write (two threads would contend on it), and stores happen only
    /// once per allocation and epoch. Uses within one epoch are equally recent.
    pub(crate) fn touch(&self, allocation: &AllocationState, device: u32) {
        if self.config.host_budget.is_some() && device != allocation.owner {
            let now = self.clock.load(Ordering::Relaxed);
            if allocation.last_use.load(Ordering::Relaxed) != now {
                allocation.last_use.store(now, Ordering::Relaxed);
            }
        }
    }

    /// Evicts idle peer residencies lazy-usm made on its own (never what the program asked
    /// for, never `keep`, never one a use pins), least recently used first, until `needed`
    /// more bytes fit in `budget`.
    pub(crate) fn make_room(
        &self,
        state: &mut State,
        needed: u64,
        budget: u64,
        keep: u64,
    ) -> Result<()> {
        if self.accounting.current().saturating_add(needed) <= budget {
            return Ok(());
        }
        let mut candidates: Vec<(u64, Arc<AllocationState>, u32)> = state
            .peers
            .iter()
            .filter(|&(&(id, device), allocation)| {
                id != keep && !allocation.explicit.load().contains(device)
            })
            .map(|(&(_, device), allocation)| {
                (
                    allocation.last_use.load(Ordering::Relaxed),
                    Arc::clone(allocation),
                    device,
                )
            })
            .collect();
        candidates.sort_by_key(|(last_use, ..)| *last_use);
        for (_, allocation, device) in candidates {
            if self.accounting.current().saturating_add(needed) <= budget {
                break;
            }
            // A driver that refuses to evict a peer's import (releases up to 26.31) leaves it,
            // counted: the next candidate is tried.
            match self.try_evict_locked(state, &allocation, device, &|| false) {
                Err(error) if error.is_refused_eviction() => {}
                other => {
                    other?;
                }
            }
        }
        if self.accounting.current().saturating_add(needed) <= budget {
            Ok(())
        } else {
            Err(Error::HostBudgetExceeded {
                needed,
                budget,
                in_use: self.accounting.current(),
            })
        }
    }

    /// Evicts `allocation` from peer `device` unless a use pins it (the protocol of the `pin`
    /// module): clears the resident bit, then reads the pins and `needed` (a caller's own
    /// use count, read the same way), and restores the bit if either says in use.
    /// `Ok(false)`: in use, nothing changed. The caller holds the state lock.
    pub(crate) fn try_evict_locked(
        &self,
        state: &mut State,
        allocation: &AllocationState,
        device: u32,
        needed: &dyn Fn() -> bool,
    ) -> Result<bool> {
        if !allocation.resident.load().contains(device) {
            return Ok(true);
        }
        allocation.resident.remove(device);
        // A read-modify-write read: see the `pin` module.
        if allocation.pins.fetch_add(0, Ordering::SeqCst) > 0 || needed() {
            allocation.resident.insert(device);
            return Ok(false);
        }
        self.accounting.evict_call();
        if let Err(error) = self.context.residency_range(
            allocation.address,
            allocation.size,
            self.device(device),
            true,
        ) {
            allocation.resident.insert(device);
            return Err(error);
        }
        allocation.explicit.remove(device);
        if state.peers.remove(&(allocation.id, device)).is_some() {
            self.accounting.peer_removed(device, allocation.size as u64);
        }
        Ok(true)
    }

    /// Whether `accessor` may become a residency target of `owner`'s memory under `policy`.
    pub(crate) fn may_auto_resident(&self, policy: Policy, accessor: u32, owner: u32) -> bool {
        match policy {
            Policy::Eager | Policy::Lazy => true,
            Policy::PeerEnabled => self.enabled.get(accessor, owner) == 1,
            Policy::Manual => false,
        }
    }

    pub(crate) fn link(&self, executing: u32, owner: u32) -> LinkState {
        LinkState::ALL[self.links.get(executing, owner) as usize]
    }

    pub(crate) fn set_link(&self, executing: u32, owner: u32, link: LinkState) {
        self.links.set(executing, owner, link as u8);
    }

    /// After a use: automatic `PeerEnabled` residencies of a pair that was disabled meanwhile
    /// go now that no use pins the allocation.
    pub(crate) fn settle(&self, allocation: &AllocationState) {
        if allocation.policy != Policy::PeerEnabled || allocation.pins.load(Ordering::SeqCst) != 0 {
            return;
        }
        let disabled = |device: &u32| self.enabled.get(*device, allocation.owner) == 0;
        let resident = allocation.resident.load();
        let peers: Vec<u32> = resident
            .iter()
            .filter(|&device| device != allocation.owner)
            .filter(disabled)
            .collect();
        if peers.is_empty() {
            return;
        }
        let mut state = self.lock();
        for device in peers {
            if !allocation.explicit.load().contains(device)
                && let Err(error) = self.try_evict_locked(&mut state, allocation, device, &|| false)
            {
                // A driver that refuses peer evictions (releases up to 26.31) answers so at every
                // use: not a warning each time.
                if error.is_refused_eviction() {
                    log::debug!("lazy-usm: the driver keeps a disabled pair's residency: {error}");
                } else {
                    log::warn!("lazy-usm: evicting after disable_peer_access failed: {error}");
                }
            }
        }
    }
}

impl ResidencyManager {
    /// A manager for the devices of `context`.
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// let context = Context::new(&devices)?;
    /// let config = ResidencyConfig { staging_chunk: 0, ..ResidencyConfig::default() };
    /// assert!(matches!(ResidencyManager::new(context.clone(), config), Err(Error::BadConfig { field: "staging_chunk", .. })));
    /// let config = ResidencyConfig { staging_chunk: usize::MAX, ..ResidencyConfig::default() };
    /// assert!(matches!(ResidencyManager::new(context, config), Err(Error::BadConfig { field: "staging_chunk", .. })));
    /// # Ok::<(), Error>(())
    /// ```
    pub fn new(context: Context, config: ResidencyConfig) -> Result<Self> {
        let count = context.devices().len();
        if count > MAX_DEVICES as usize {
            return Err(Error::invalid(format!(
                "{count} devices in the context; residency tracking supports {MAX_DEVICES}"
            )));
        }
        config.validate()?;
        Ok(Self {
            shared: Arc::new(Shared {
                accounting: Accounting::new(count),
                lists: (0..count).map(|_| Mutex::new(Vec::new())).collect(),
                compute_lists: (0..count).map(|_| Mutex::new(Vec::new())).collect(),
                context,
                config,
                state: Mutex::new(State::default()),
                enabled: PairTable::new(count as u32),
                links: PairTable::new(count as u32),
                staging: Mutex::new(Vec::new()),
                clock: AtomicU64::new(1),
                next_id: AtomicU64::new(1),
                registry: lazy_usm_registry::PointerRegistry::new(),
            }),
        })
    }

    /// The context.
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// let manager = ResidencyManager::new(Context::new(&devices)?, ResidencyConfig::default())?;
    /// assert_eq!(manager.context().devices().len(), 2);
    /// # Ok::<(), Error>(())
    /// ```
    pub fn context(&self) -> &Context {
        &self.shared.context
    }

    /// The configuration.
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// let manager = ResidencyManager::new(Context::new(&devices)?, ResidencyConfig::default())?;
    /// assert_eq!(manager.config().policy, Policy::Lazy);
    /// # Ok::<(), Error>(())
    /// ```
    pub fn config(&self) -> &ResidencyConfig {
        &self.shared.config
    }

    pub(crate) fn index_of(&self, device: &Device) -> Result<u32> {
        self.shared
            .context
            .devices()
            .iter()
            .position(|candidate| candidate == device)
            .map(|index| index as u32)
            .ok_or_else(|| Error::DeviceNotInContext {
                device: device.index(),
                devices: self
                    .shared
                    .context
                    .devices()
                    .iter()
                    .map(Device::index)
                    .collect(),
            })
    }

    /// A device allocation on `device`, under the manager's policy.
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// let manager = ResidencyManager::new(Context::new(&devices)?, ResidencyConfig::default())?;
    /// let allocation = manager.allocate(&devices[0], 1 << 20)?;
    /// assert_eq!(allocation.resident(), DeviceSet::single(0)?);
    /// # Ok::<(), Error>(())
    /// ```
    pub fn allocate(&self, device: &Device, size: usize) -> Result<DeviceAllocation> {
        self.allocate_with(device, size, self.shared.config.policy)
    }

    /// A device allocation on `device` under `policy` (overriding the manager's).
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// let manager = ResidencyManager::new(Context::new(&devices)?, ResidencyConfig::default())?;
    /// let eager = manager.allocate_with(&devices[0], 1 << 20, Policy::Eager)?;
    /// assert_eq!(eager.resident(), DeviceSet::first(2));
    /// # Ok::<(), Error>(())
    /// ```
    pub fn allocate_with(
        &self,
        device: &Device,
        size: usize,
        policy: Policy,
    ) -> Result<DeviceAllocation> {
        self.allocate_aligned(device, size, policy, 0)
    }

    /// [`ResidencyManager::allocate_with`] with an alignment (a power of two; 0: the driver's).
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// let manager = ResidencyManager::new(Context::new(&devices)?, ResidencyConfig::default())?;
    /// let allocation = manager.allocate_aligned(&devices[0], 4096, Policy::Lazy, 1 << 16)?;
    /// assert_eq!(allocation.address() % (1 << 16), 0);
    /// # Ok::<(), Error>(())
    /// ```
    pub fn allocate_aligned(
        &self,
        device: &Device,
        size: usize,
        policy: Policy,
        alignment: usize,
    ) -> Result<DeviceAllocation> {
        let owner = self.index_of(device)?;
        let buffer = self.shared.context.alloc_device(device, size, alignment)?;
        let state = Arc::new(AllocationState {
            id: self.shared.next_id.fetch_add(1, Ordering::Relaxed),
            owner,
            address: buffer.address(),
            size,
            policy,
            resident: AtomicDeviceSet::new(DeviceSet::EMPTY),
            explicit: AtomicDeviceSet::new(DeviceSet::EMPTY),
            pins: AtomicU32::new(0),
            last_use: AtomicU64::new(0),
            freed: std::sync::atomic::AtomicBool::new(false),
            pooled: std::sync::atomic::AtomicBool::new(false),
        });
        let registered =
            self.shared
                .registry
                .insert(state.address, size.max(1), Arc::clone(&state));
        let allocation = DeviceAllocation {
            state,
            buffer,
            manager: Arc::clone(&self.shared),
        };
        // The driver never hands out one range twice while it is live.
        registered.map_err(|error| Error::Internal(format!("pointer registry: {error}")))?;
        // Every policy commits the owner at once; Eager adds every other device.
        self.shared
            .make_resident(&allocation.state, owner, Request::Explicit, false)?;
        if policy.resident_at_allocation() {
            let devices = self.shared.context.devices().len() as u32;
            for peer in (0..devices).filter(|&peer| peer != owner) {
                self.shared
                    .make_resident(&allocation.state, peer, Request::Explicit, false)?;
            }
        }
        Ok(allocation)
    }

    pub(crate) fn check_owned(&self, allocation: &dyn Resident) -> Result<()> {
        if Arc::ptr_eq(allocation.residency().manager, &self.shared) {
            Ok(())
        } else {
            Err(Error::ForeignMemory {
                address: allocation.address(),
                len: allocation.len(),
                owner: "another residency manager",
            })
        }
    }

    /// Makes `allocation` resident on `device` now, whatever the policy: before the program
    /// launches its own kernels that read it there. Counts against the host budget.
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// let manager = ResidencyManager::new(Context::new(&devices)?, ResidencyConfig::default())?;
    /// let allocation = manager.allocate(&devices[0], 4096)?;
    /// manager.ensure_resident_on(&allocation, &devices[1])?;
    /// assert!(allocation.resident().contains(1));
    /// # Ok::<(), Error>(())
    /// ```
    pub fn ensure_resident_on(&self, allocation: &impl Resident, device: &Device) -> Result<()> {
        self.check_owned(allocation)?;
        let index = self.index_of(device)?;
        let state = allocation.residency().state;
        // Noted before it is made resident: a pool's trim clears the resident bit before it reads
        // the note, so it cannot evict what this call then reports resident.
        let noted = index != state.owner && allocation.note_peer_use(index);
        self.shared
            .make_resident(state, index, Request::Explicit, noted)?;
        Ok(())
    }

    /// [`ResidencyManager::ensure_resident_on`] for several allocations.
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// let manager = ResidencyManager::new(Context::new(&devices)?, ResidencyConfig::default())?;
    /// let (a, b) = (manager.allocate(&devices[0], 4096)?, manager.allocate(&devices[0], 4096)?);
    /// manager.ensure_resident_batch(&[&a, &b], &devices[1])?;
    /// assert_eq!(manager.host_cost().current_bytes, 8192);
    /// # Ok::<(), Error>(())
    /// ```
    pub fn ensure_resident_batch<R: Resident>(
        &self,
        allocations: &[&R],
        device: &Device,
    ) -> Result<()> {
        for allocation in allocations {
            self.ensure_resident_on(*allocation, device)?;
        }
        Ok(())
    }

    /// Evicts `allocation` from peer `device`. Fails with [`Error::InUse`] while work through
    /// lazy-usm uses it, and for its owner.
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// let manager = ResidencyManager::new(Context::new(&devices)?, ResidencyConfig::default())?;
    /// let allocation = manager.allocate(&devices[0], 4096)?;
    /// manager.ensure_resident_on(&allocation, &devices[1])?;
    /// manager.evict_from(&allocation, &devices[1])?;
    /// assert_eq!(manager.host_cost().current_bytes, 0);
    /// assert!(manager.evict_from(&allocation, &devices[0]).is_err(), "not from its owner");
    /// # Ok::<(), Error>(())
    /// ```
    pub fn evict_from(&self, allocation: &impl Resident, device: &Device) -> Result<()> {
        if self.try_evict(allocation, device)? {
            Ok(())
        } else {
            Err(Error::InUse {
                pins: allocation.residency().state.pins.load(Ordering::SeqCst),
            })
        }
    }

    /// [`ResidencyManager::evict_from`], answering `false` instead of failing when in use.
    pub(crate) fn try_evict(&self, allocation: &dyn Resident, device: &Device) -> Result<bool> {
        self.try_evict_unless(allocation, device, &|| false)
    }

    /// [`ResidencyManager::try_evict`] that also keeps the residency while `needed` says so,
    /// read after the resident bit is cleared (a pool's count of blocks shared with peers).
    pub(crate) fn try_evict_unless(
        &self,
        allocation: &dyn Resident,
        device: &Device,
        needed: &dyn Fn() -> bool,
    ) -> Result<bool> {
        self.check_owned(allocation)?;
        let index = self.index_of(device)?;
        let allocation = allocation.residency().state;
        if index == allocation.owner {
            return Err(Error::invalid(format!(
                "device {index} owns the allocation; only peers can be evicted"
            )));
        }
        let mut state = self.shared.lock();
        self.shared
            .try_evict_locked(&mut state, allocation, index, needed)
    }

    /// Lets `accessor` become a residency target of `owner`'s `PeerEnabled` allocations.
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// let manager = ResidencyManager::new(Context::new(&devices)?, ResidencyConfig::new(Policy::PeerEnabled))?;
    /// manager.enable_peer_access(&devices[1], &devices[0])?;
    /// let source = manager.allocate(&devices[0], 4096)?;
    /// let mut target = manager.allocate(&devices[1], 4096)?;
    /// assert_eq!(manager.copy(&mut target, 0, &source, 0, 4096)?, CopyPath::PeerToPeer);
    /// # Ok::<(), Error>(())
    /// ```
    pub fn enable_peer_access(&self, accessor: &Device, owner: &Device) -> Result<()> {
        let (accessor, owner) = (self.index_of(accessor)?, self.index_of(owner)?);
        self.shared.enabled.set(accessor, owner, 1);
        Ok(())
    }

    /// Undoes [`ResidencyManager::enable_peer_access`] and evicts the `PeerEnabled`
    /// residencies it allowed (those copies made, not those the program asked for with
    /// `ensure_resident_on`), each once no work uses it.
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// let manager = ResidencyManager::new(Context::new(&devices)?, ResidencyConfig::new(Policy::PeerEnabled))?;
    /// manager.enable_peer_access(&devices[1], &devices[0])?;
    /// let source = manager.allocate(&devices[0], 4096)?;
    /// let mut target = manager.allocate(&devices[1], 4096)?;
    /// manager.copy(&mut target, 0, &source, 0, 4096)?;
    /// manager.disable_peer_access(&devices[1], &devices[0])?;
    /// assert_eq!(manager.host_cost().current_bytes, 0);
    /// # Ok::<(), Error>(())
    /// ```
    pub fn disable_peer_access(&self, accessor: &Device, owner: &Device) -> Result<()> {
        let (accessor, owner) = (self.index_of(accessor)?, self.index_of(owner)?);
        let mut state = self.shared.lock();
        self.shared.enabled.set(accessor, owner, 0);
        let allowed: Vec<Arc<AllocationState>> = state
            .peers
            .iter()
            .filter(|&(&(_, device), allocation)| {
                device == accessor
                    && allocation.owner == owner
                    && allocation.policy == Policy::PeerEnabled
                    && !allocation.explicit.load().contains(device)
            })
            .map(|(_, allocation)| Arc::clone(allocation))
            .collect();
        // Pinned ones go when their last use ends (`Shared::settle`). One failure does not
        // stop the others; the first is returned.
        let mut outcome = Ok(());
        for allocation in allowed {
            let evicted = self
                .shared
                .try_evict_locked(&mut state, &allocation, accessor, &|| false);
            if let (Err(error), Ok(())) = (evicted, &outcome) {
                outcome = Err(error);
            }
        }
        outcome
    }

    /// Whether `accessor` may use `owner`'s `PeerEnabled` allocations.
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// let manager = ResidencyManager::new(Context::new(&devices)?, ResidencyConfig::default())?;
    /// assert!(!manager.peer_access_enabled(&devices[1], &devices[0])?);
    /// # Ok::<(), Error>(())
    /// ```
    pub fn peer_access_enabled(&self, accessor: &Device, owner: &Device) -> Result<bool> {
        let (accessor, owner) = (self.index_of(accessor)?, self.index_of(owner)?);
        Ok(self.shared.enabled.get(accessor, owner) == 1)
    }

    /// What peer residency has cost so far.
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// let manager = ResidencyManager::new(Context::new(&devices)?, ResidencyConfig::default())?;
    /// assert_eq!(manager.host_cost().devices.len(), 2);
    /// # Ok::<(), Error>(())
    /// ```
    pub fn host_cost(&self) -> HostCost {
        self.shared.accounting.snapshot()
    }
}
