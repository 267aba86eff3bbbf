//! What a `LazyUsmManager` handle holds: a residency manager, a pool per device, and what it
//! handed out by address. Safe code: the exports turn C's pointers into calls on it.

#![deny(unsafe_code)]

use crate::status::Failure;
use lazy_usm_core::{
    Context, DetachedBlock, Device, DeviceAllocation, DevicePool, DeviceSet, PoolConfig, PoolStats,
    ResidencyConfig, ResidencyManager, Runtime,
};
use rustc_hash::FxHashMap;
use std::sync::{Mutex, OnceLock};

/// What was handed out at an address.
enum Owned {
    Allocation(DeviceAllocation),
    Block { device: u32, block: DetachedBlock },
}

/// A range handed out, by its start: its size, how, on which device, and what owns it.
struct Handed {
    size: usize,
    kind: Kind,
    owner: u32,
    owned: Owned,
    /// Freed by PyTorch and kept by its in-order queue for that queue's next allocation of its
    /// size: still handed out, but a second free of it is refused.
    kept: bool,
}

/// Whether a free takes a block a queue keeps (the queue giving its blocks back) or refuses it
/// (the caller's free: a second one).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(not(feature = "xpu"), allow(dead_code))]
pub(crate) enum Kept {
    Take,
    Refuse,
}

/// How a range was handed out, for pointer queries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Allocation,
    Block,
}

/// A residency manager for C: see the crate documentation.
pub struct LazyUsmManager {
    // Field order is drop order: what was handed out goes back first (see `Drop`), then the
    // pools, the manager, the context, the runtime.
    /// By start: a free looks up its exact address (an ordered map cost PyTorch's path a fifth
    /// of its instructions; a pointer registry beside it, more in copy-on-write updates). A
    /// query about an interior pointer finds the start from the residency manager (an
    /// allocation) or the pool (a block): see `containing`. Held while `containing` calls the
    /// residency manager and the pools, neither of which calls back into this manager.
    owned: Mutex<FxHashMap<usize, Handed>>,
    /// `waiting`'s length, set under its lock: a reclaim with nothing waiting takes no lock.
    waiting_count: std::sync::atomic::AtomicUsize,
    /// Dedicated allocations freed behind work still running: freed once it completes.
    waiting: Mutex<
        Vec<(
            DeviceAllocation,
            std::sync::Arc<dyn lazy_usm_core::WorkFence>,
        )>,
    >,
    pools: Vec<OnceLock<DevicePool>>,
    manager: ResidencyManager,
    devices: Vec<Device>,
    _runtime: Runtime,
    /// The host program's objects the adopted context depends on (a SYCL context), released
    /// after everything above.
    _holding: Vec<Box<dyn std::any::Any + Send + Sync>>,
}

/// What a pointer points into.
pub(crate) struct Found {
    pub base: usize,
    pub size: usize,
    pub kind: Kind,
    pub owner: u32,
    pub resident: DeviceSet,
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|poison| poison.into_inner())
}

impl LazyUsmManager {
    pub(crate) fn new(
        runtime: Runtime,
        context: Context,
        config: ResidencyConfig,
    ) -> Result<Self, Failure> {
        let devices = context.devices().to_vec();
        let manager = ResidencyManager::new(context, config)?;
        Ok(Self {
            owned: Mutex::new(FxHashMap::default()),
            waiting: Mutex::new(Vec::new()),
            waiting_count: std::sync::atomic::AtomicUsize::new(0),
            pools: devices.iter().map(|_| OnceLock::new()).collect(),
            manager,
            devices,
            _runtime: runtime,
            _holding: Vec::new(),
        })
    }

    /// Keeps `object` until the manager and everything it made are gone.
    #[cfg_attr(not(feature = "xpu"), allow(dead_code))]
    pub(crate) fn holding(mut self, object: Box<dyn std::any::Any + Send + Sync>) -> Self {
        self._holding.push(object);
        self
    }

    pub(crate) fn device_count(&self) -> u32 {
        self.devices.len() as u32
    }

    fn device(&self, index: u32) -> Result<&Device, Failure> {
        self.devices.get(index as usize).ok_or_else(|| {
            Failure::invalid(format!(
                "device {index} does not exist; the manager has {} (0..{})",
                self.devices.len(),
                self.devices.len()
            ))
        })
    }

    fn pool(&self, index: u32) -> Result<&DevicePool, Failure> {
        let device = self.device(index)?;
        let slot = &self.pools[index as usize];
        if let Some(pool) = slot.get() {
            return Ok(pool);
        }
        let pool = DevicePool::new(&self.manager, device, PoolConfig::default())?;
        // Another thread may have made one meanwhile: its pool is kept, this one dropped unused.
        Ok(slot.get_or_init(|| pool))
    }

    fn hand_out(
        &self,
        address: usize,
        size: usize,
        kind: Kind,
        device: u32,
        owned: Owned,
    ) -> Result<(), Failure> {
        let size = size.max(1);
        let mut handed = lock(&self.owned);
        // Allocations and pool segments never overlap (the residency manager's registry refuses
        // that), and blocks inside a segment rest on the pool's carving and its large heap
        // (tested in tests/pool.rs): a start handed out twice is the overlap caught here.
        let why = match handed.entry(address) {
            _ if address.checked_add(size).is_none() => {
                format!("{size} bytes at {address:#x} wrap the address space")
            }
            std::collections::hash_map::Entry::Occupied(live) => format!(
                "{size} bytes at {address:#x} overlap the live range {address:#x}+{}",
                live.get().size
            ),
            std::collections::hash_map::Entry::Vacant(vacant) => {
                vacant.insert(Handed {
                    size,
                    kind,
                    owner: device,
                    owned,
                    kept: false,
                });
                return Ok(());
            }
        };
        drop(handed);
        // The driver or pool handed out a live range twice: give this one back.
        self.give_back(owned)?;
        Err(Failure(crate::LazyUsmStatus::Internal, why))
    }

    fn check_size(size: usize) -> Result<(), Failure> {
        if size == 0 {
            Err(Failure::invalid("a size of 0 bytes"))
        } else {
            Ok(())
        }
    }

    pub(crate) fn alloc_device(&self, device: u32, size: usize) -> Result<usize, Failure> {
        Self::check_size(size)?;
        self.reclaim();
        let allocation = self.manager.allocate(self.device(device)?, size)?;
        let address = lazy_usm_core::Memory::address(&allocation);
        self.hand_out(
            address,
            size,
            Kind::Allocation,
            device,
            Owned::Allocation(allocation),
        )?;
        Ok(address)
    }

    pub(crate) fn pool_alloc(&self, device: u32, size: usize) -> Result<usize, Failure> {
        Self::check_size(size)?;
        let block = self.pool(device)?.allocate(size)?.detach();
        let address = block.address();
        self.hand_out(
            address,
            size,
            Kind::Block,
            device,
            Owned::Block { device, block },
        )?;
        Ok(address)
    }

    fn give_back(&self, owned: Owned) -> Result<(), Failure> {
        match owned {
            Owned::Allocation(allocation) => drop(allocation),
            Owned::Block { device, block } => drop(self.pool(device)?.attach(block)?),
        }
        Ok(())
    }

    /// Frees what was handed out at exactly `address`.
    pub(crate) fn free(&self, address: usize) -> Result<(), Failure> {
        let owned = self.take_entry(address, Kept::Take)?.owned;
        self.give_back(owned)
    }

    /// Marks the block at exactly `address` as kept by a queue (see `Handed::kept`); refuses one
    /// kept already (a second free). Returns its device and size as handed out.
    #[cfg_attr(not(feature = "xpu"), allow(dead_code))]
    pub(crate) fn keep(&self, address: usize) -> Result<(u32, usize), Failure> {
        let mut handed = lock(&self.owned);
        let Some(entry) = handed.get_mut(&address) else {
            return Err(self.not_handed_out(&handed, address));
        };
        if entry.kept {
            return Err(Self::freed_already(address));
        }
        entry.kept = true;
        Ok((entry.owner, entry.size))
    }

    /// Hands the kept block at `address` out again (its queue's next allocation took it).
    #[cfg_attr(not(feature = "xpu"), allow(dead_code))]
    pub(crate) fn unkeep(&self, address: usize) {
        let mut handed = lock(&self.owned);
        let entry = handed.get_mut(&address);
        debug_assert!(entry.is_some(), "{address:#x} is kept, so handed out");
        if let Some(entry) = entry {
            entry.kept = false;
        }
    }

    fn freed_already(address: usize) -> Failure {
        Failure::invalid(format!(
            "{address:#x} was freed already (it waits for its queue's next allocation)"
        ))
    }

    /// Frees what was handed out at exactly `address` once `work` has completed (returning its
    /// device and size as handed out), without
    /// waiting: a pool block goes to its pool's deferred list, a dedicated allocation to this
    /// manager's; both are freed by a later call (`reclaim`, an allocation) once `work` is done,
    /// or when the manager goes (which waits for it).
    #[cfg_attr(not(feature = "xpu"), allow(dead_code))]
    pub(crate) fn free_after(
        &self,
        address: usize,
        work: std::sync::Arc<dyn lazy_usm_core::WorkFence>,
        kept: Kept,
    ) -> Result<(u32, usize), Failure> {
        let entry = self.take_entry(address, kept)?;
        let handed = (entry.owner, entry.size);
        match entry.owned {
            Owned::Block { device, block } => {
                self.pool(device)?.attach(block)?.free_after(work);
            }
            Owned::Allocation(allocation) => {
                let mut waiting = lock(&self.waiting);
                waiting.push((allocation, work));
                self.waiting_count
                    .store(waiting.len(), std::sync::atomic::Ordering::Release);
            }
        }
        Ok(handed)
    }

    /// The caller's free of what was handed out at exactly `address` (one a queue keeps is
    /// refused), under one lock; returns its device and size as handed out.
    #[cfg_attr(not(feature = "xpu"), allow(dead_code))]
    pub(crate) fn free_start(&self, address: usize) -> Result<(u32, usize), Failure> {
        let entry = self.take_entry(address, Kept::Refuse)?;
        let handed = (entry.owner, entry.size);
        self.give_back(entry.owned)?;
        Ok(handed)
    }

    fn take_entry(&self, address: usize, kept: Kept) -> Result<Handed, Failure> {
        let mut handed = lock(&self.owned);
        match handed.entry(address) {
            std::collections::hash_map::Entry::Occupied(entry) => {
                if entry.get().kept && kept == Kept::Refuse {
                    return Err(Self::freed_already(address));
                }
                Ok(entry.remove())
            }
            std::collections::hash_map::Entry::Vacant(_) => {
                Err(self.not_handed_out(&handed, address))
            }
        }
    }

    /// Why `address` is not the start of anything handed out.
    fn not_handed_out(&self, handed: &FxHashMap<usize, Handed>, address: usize) -> Failure {
        let why = match self.containing(handed, address) {
            Some((base, _)) => {
                format!("{address:#x} is inside the allocation at {base:#x}, not its start")
            }
            None => format!("{address:#x} is not an allocation of this manager (or was freed)"),
        };
        Failure(crate::LazyUsmStatus::UnknownPointer, why)
    }

    /// The live range containing `address`: its start and entry. A start is looked up as it
    /// is; an interior address through the allocation the residency manager has there (an
    /// allocation handed out whole, or a pool segment), then the block its pool has there.
    fn containing<'map>(
        &self,
        handed: &'map FxHashMap<usize, Handed>,
        address: usize,
    ) -> Option<(usize, &'map Handed)> {
        let holds = |start: usize| {
            handed
                .get(&start)
                .filter(|entry| {
                    address
                        .checked_sub(start)
                        .is_some_and(|offset| offset < entry.size)
                })
                .map(|entry| (start, entry))
        };
        if let Some(found) = holds(address) {
            return Some(found);
        }
        // Handed-out ranges never overlap: what starts at the allocation's start and holds the
        // address is the answer, an allocation or a segment's first block.
        let target = self.manager.find(address)?;
        if let Some(found) = holds(target.base) {
            return Some(found);
        }
        let pool = self.pools.get(target.owner as usize)?.get()?;
        let (start, _) = pool.block_containing(address)?;
        holds(start).filter(|(_, entry)| entry.kind == Kind::Block)
    }

    /// The range containing `address`, without its residency (what a free needs).
    pub(crate) fn handed(&self, address: usize) -> Result<Found, Failure> {
        let handed = lock(&self.owned);
        let (base, entry) = self.containing(&handed, address).ok_or_else(|| {
            Failure(
                crate::LazyUsmStatus::UnknownPointer,
                format!("{address:#x} is not inside an allocation of this manager"),
            )
        })?;
        Ok(Found {
            base,
            size: entry.size,
            kind: entry.kind,
            owner: entry.owner,
            resident: DeviceSet::EMPTY,
        })
    }

    pub(crate) fn find(&self, address: usize) -> Result<Found, Failure> {
        let found = self.handed(address)?;
        let resident = self
            .manager
            .find(address)
            .map(|target| target.resident)
            .unwrap_or(DeviceSet::EMPTY);
        Ok(Found { resident, ..found })
    }

    pub(crate) fn ensure_resident(&self, address: usize, device: u32) -> Result<(), Failure> {
        let found = self.find(address)?;
        let target = self.device(device)?;
        if found.kind == Kind::Allocation {
            return Ok(self.manager.ensure_resident_at(address, target)?);
        }
        // A pool block goes through its pool, which counts the block as shared with `device`:
        // the pool's trim then keeps its segment resident there while the block lives.
        let mut owned = lock(&self.owned);
        // Checked before it is taken out: the range may have been freed and something else
        // handed out at its start meanwhile.
        let home = match owned.get(&found.base) {
            Some(Handed {
                owned: Owned::Block { device, .. },
                ..
            }) => *device,
            _ => {
                return Err(Failure(
                    crate::LazyUsmStatus::UnknownPointer,
                    format!("{address:#x} was freed meanwhile"),
                ));
            }
        };
        let pool = self.pool(home)?;
        let Some(mut entry) = owned.remove(&found.base) else {
            return Err(Failure::invalid(format!(
                "{address:#x} was freed meanwhile"
            )));
        };
        let Owned::Block { device, block } = entry.owned else {
            return Err(Failure(
                crate::LazyUsmStatus::Internal,
                format!("{address:#x} changed kind under the manager's lock"),
            ));
        };
        let block = pool.attach(block)?;
        let result = self.manager.ensure_resident_on(&block, target);
        entry.owned = Owned::Block {
            device,
            block: block.detach(),
        };
        owned.insert(found.base, entry);
        Ok(result?)
    }

    pub(crate) fn evict(&self, address: usize, device: u32) -> Result<(), Failure> {
        let found = self.find(address)?;
        if found.kind == Kind::Block {
            // Its residency is its segment's, which other live blocks may need on `device`.
            return Err(Failure::invalid(format!(
                "{address:#x} is a pool block, whose residency its pool segment shares with other \
                 blocks: free it instead, or allocate memory to evict with lazy_usm_alloc_device"
            )));
        }
        Ok(self.manager.evict_at(address, self.device(device)?)?)
    }

    pub(crate) fn set_peer_access(
        &self,
        accessor: u32,
        owner: u32,
        enable: bool,
    ) -> Result<(), Failure> {
        let (accessor, owner) = (self.device(accessor)?, self.device(owner)?);
        if enable {
            self.manager.enable_peer_access(accessor, owner)?;
        } else {
            self.manager.disable_peer_access(accessor, owner)?;
        }
        Ok(())
    }

    pub(crate) fn host_cost(&self) -> lazy_usm_core::HostCost {
        self.manager.host_cost()
    }

    pub(crate) fn pool_stats(&self, device: u32) -> Result<PoolStats, Failure> {
        Ok(self.pool(device)?.stats())
    }

    /// `device`'s pool figures if it has a pool (a query makes none).
    #[cfg_attr(not(feature = "xpu"), allow(dead_code))]
    pub(crate) fn existing_pool_stats(&self, device: u32) -> Option<PoolStats> {
        self.pools
            .get(device as usize)?
            .get()
            .map(DevicePool::stats)
    }

    /// Returns blocks freed after work that has since completed to their pools.
    #[cfg_attr(not(feature = "xpu"), allow(dead_code))]
    pub(crate) fn reclaim(&self) {
        for pool in self.pools.iter().filter_map(OnceLock::get) {
            pool.reclaim();
        }
        // One freed meanwhile is found by the next reclaim.
        if self
            .waiting_count
            .load(std::sync::atomic::Ordering::Acquire)
            == 0
        {
            return;
        }
        let done: Vec<_> = {
            let mut waiting = lock(&self.waiting);
            let (done, still): (Vec<_>, Vec<_>) = std::mem::take(&mut *waiting)
                .into_iter()
                .partition(|(_, work)| work.is_complete());
            *waiting = still;
            self.waiting_count
                .store(waiting.len(), std::sync::atomic::Ordering::Release);
            done
        };
        drop(done);
    }

    pub(crate) fn trim(&self) -> Result<u64, Failure> {
        let mut released = 0;
        for pool in self.pools.iter().filter_map(OnceLock::get) {
            released += pool.trim()?;
        }
        Ok(released)
    }
}

impl Drop for LazyUsmManager {
    fn drop(&mut self) {
        // What C never freed goes back to its pool (a detached block would otherwise stay out of
        // use) before the pools and the manager go.
        let owned: Vec<Owned> = std::mem::take(&mut *lock(&self.owned))
            .into_values()
            .map(|entry| entry.owned)
            .collect();
        for owned in owned {
            let _ = self.give_back(owned);
        }
        for (allocation, work) in lock(&self.waiting).drain(..) {
            if work.settle().is_ok() {
                drop(allocation);
            } else {
                // The device may still write it: leaked rather than freed under running work.
                std::mem::forget(allocation);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use lazy_usm_core::{Context, ResidencyConfig, Runtime};

    /// Work that has completed.
    struct Done;

    impl lazy_usm_core::WorkFence for Done {
        fn is_complete(&self) -> bool {
            true
        }
    }

    fn manager() -> LazyUsmManager {
        let runtime = Runtime::simulated("b70x2").expect("simulated platform");
        let devices = runtime.devices().expect("devices");
        let context = Context::new(&devices).expect("context");
        LazyUsmManager::new(runtime, context, ResidencyConfig::default()).expect("manager")
    }

    /// Every kind of range is found from its last byte and from the middle (a small block, a
    /// large one, a dedicated one, an allocation handed out whole), and not from the byte past
    /// its size; a free of an interior pointer names the range's start; a freed range is found
    /// no more, even where its pool slot is still there.
    #[test]
    fn interior_pointers_find_their_range_of_every_kind() {
        let manager = manager();
        // Each kind twice where a segment holds several, so the second is not at its
        // segment's start.
        let ranges = [
            (manager.pool_alloc(0, 1000).unwrap(), 1000, Kind::Block),
            (manager.pool_alloc(0, 1000).unwrap(), 1000, Kind::Block),
            (manager.pool_alloc(0, 3000).unwrap(), 3000, Kind::Block),
            (
                manager.pool_alloc(0, 8 << 20).unwrap(),
                8 << 20,
                Kind::Block,
            ),
            (
                manager.pool_alloc(0, 5 << 20).unwrap(),
                5 << 20,
                Kind::Block,
            ),
            (
                manager.pool_alloc(1, 100 << 20).unwrap(),
                100 << 20,
                Kind::Block,
            ),
            (
                manager.alloc_device(1, 5000).unwrap(),
                5000,
                Kind::Allocation,
            ),
            (
                manager.alloc_device(1, 5000).unwrap(),
                5000,
                Kind::Allocation,
            ),
        ];
        assert_eq!(ranges[1].0, ranges[0].0 + 1024, "one class segment");
        assert_eq!(ranges[4].0, ranges[3].0 + (8 << 20), "one large segment");
        for &(base, size, kind) in &ranges {
            for address in [base, base + size / 2, base + size - 1] {
                let found = manager.find(address).unwrap();
                assert_eq!((found.base, found.size, found.kind), (base, size, kind));
            }
            let past = manager.find(base + size);
            assert!(past.is_err() || past.is_ok_and(|found| found.base != base));
            let refused = manager.free(base + 1).unwrap_err();
            assert!(
                refused
                    .1
                    .contains(&format!("inside the allocation at {base:#x}")),
                "{}",
                refused.1
            );
        }
        for &(base, size, _) in &ranges {
            manager.free(base).unwrap();
            assert!(manager.find(base + size / 2).is_err(), "freed");
        }
    }

    /// A start handed out twice, and a range that wraps the address space, are refused, and
    /// what came with them is given back; the live range stays as it was.
    #[test]
    fn a_start_handed_out_twice_or_a_wrapping_range_is_refused_and_given_back() {
        let manager = manager();
        let live = manager.pool_alloc(0, 4096).unwrap();
        let allocated = || manager.pool_stats(0).unwrap().allocated_bytes;
        let before = allocated();
        // A second block of the pool, handed out at `address`: refused, it must go back.
        let hand_out_another = |address: usize| {
            let block = manager.pool(0).unwrap().allocate(4096).unwrap().detach();
            assert_eq!(allocated(), before + 4096);
            let owned = Owned::Block { device: 0, block };
            manager
                .hand_out(address, 16, Kind::Block, 0, owned)
                .unwrap_err()
        };
        let refused = hand_out_another(live);
        assert_eq!(refused.0, crate::LazyUsmStatus::Internal);
        assert!(
            refused.1.contains("overlap the live range"),
            "{}",
            refused.1
        );
        assert_eq!(
            allocated(),
            before,
            "the second block went back to its pool"
        );
        assert_eq!(manager.find(live + 8).unwrap().size, 4096, "unchanged");
        let refused = hand_out_another(usize::MAX - 8);
        assert!(
            refused.1.contains("wrap the address space"),
            "{}",
            refused.1
        );
        assert_eq!(allocated(), before);
        manager.free(live).unwrap();
    }

    /// A kept block refuses every caller's free and a second keep, whatever the order, until
    /// its queue hands it out again; its queue's give-back frees it.
    #[test]
    fn a_kept_block_refuses_the_callers_frees_until_it_is_handed_out_again() {
        let manager = manager();
        let address = manager.pool_alloc(1, 4096).unwrap();
        assert_eq!(manager.keep(address).unwrap(), (1, 4096));
        assert!(manager.keep(address).is_err(), "kept twice");
        assert!(manager.free_start(address).is_err(), "freed while kept");
        let fence: std::sync::Arc<dyn lazy_usm_core::WorkFence> = std::sync::Arc::new(Done);
        assert!(
            manager
                .free_after(address, std::sync::Arc::clone(&fence), Kept::Refuse)
                .is_err(),
            "freed behind work while kept"
        );
        manager.unkeep(address);
        assert_eq!(manager.free_start(address).unwrap(), (1, 4096));
        assert!(manager.keep(address).is_err(), "freed: nothing to keep");
        // The queue's own give-back takes a kept block.
        let again = manager.pool_alloc(0, 100).unwrap();
        manager.keep(again).unwrap();
        assert_eq!(
            manager.free_after(again, fence, Kept::Take).unwrap(),
            (0, 100)
        );
        let third = manager.pool_alloc(0, 100).unwrap();
        manager.keep(third).unwrap();
        manager.free(third).unwrap();
        assert!(manager.free(third).is_err(), "freed twice");
    }
}
