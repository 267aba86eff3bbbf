//! Each thread's cache of free small blocks, one per pool it uses: the hit path pops and pushes
//! here, with no lock and no read-modify-write, on memory only a thief out of device memory
//! (below) writes besides its owner.
//!
//! A cache holds at most [`PoolConfig::thread_cache_bytes`](super::PoolConfig) and, per class, a
//! bounded count; it refills from and spills to the class's shared free list in batches. It
//! goes back to the shared lists when its thread exits, and when the pool asks (trim raises a
//! flag on each cache, which its owner reads at its next call). Blocks in another thread's
//! cache count as cached, not allocated, in the statistics, and keep their segment from being
//! released until they are back.
//!
//! A thread that finds the device out of memory does not wait for the others' next calls (an
//! idle thread may never make one): it takes their caches itself ([`steal_idle_caches`]). The
//! lists are atomics that the owner reads and writes with plain loads and stores; the owner
//! marks each hit with an `active` flag and checks a word of signals, ordered by a compiler
//! fence; the thief raises its signal there, runs a process-wide barrier (`membarrier`) and takes only
//! the caches whose owner is not active. Either the owner's `active` is visible to the thief, or
//! the thief's signal is visible to the owner, which then goes to its slow path and waits
//! for the thief at the cache's gate. The owner's slow path holds the gate throughout, and a
//! thief only tries it, so a thief never waits for an owner. Where the kernel has no
//! `membarrier` (before Linux 4.14), nothing is taken: caches come back at their owners' next
//! calls, as a trim asks.

use super::classes::class_size;
use super::{Shared, Slot, lock};
use crate::os::AsymmetricBarrier;
use std::cell::RefCell;
use std::sync::atomic::{
    AtomicBool, AtomicI64, AtomicU8, AtomicU32, AtomicU64, AtomicUsize, Ordering,
};

/// A thief is deciding whether to take the cache's lists.
const STEALING: u8 = 1;
/// The pool asked the cache back (trim): the owner gives it back at its next call.
const FLUSH: u8 = 2;
use std::sync::{Arc, Mutex, OnceLock, TryLockError, Weak};

/// What of a thread's cache other threads reach: the counters one thread writes and any
/// thread reads (`stats` sums them), and the free lists, which a thread out of device memory
/// may take. Only the owning thread writes the counters, but for a thief's `stolen` and
/// `cached` (written only while the owner is neither in a hit nor in its slow path), so a plain
/// load and store is an exact increment, and no thread takes the cache line from another.
///
/// The thread's allocated bytes are `held - stolen - cached`: a hit or a free into the cache
/// moves a block between the two, so it changes `cached` only. A block freed on another thread
/// than the one that took it makes the first thread's figure high and the second's low by its
/// size; the sum is right.
#[derive(Debug)]
pub(super) struct ThreadCounters {
    hits: AtomicU64,
    misses: AtomicU64,
    /// Bytes this thread took from the shared level (or allocated) and has not given back:
    /// its live blocks and its cache.
    held: AtomicI64,
    /// Bytes of free blocks the thread's cache holds.
    cached: AtomicU64,
    /// Bytes other threads took out of this cache (its owner was idle), added by them.
    stolen: AtomicU64,
    /// Free blocks by list index (arena and class), each list made at its first use.
    lists: Box<[OnceLock<CachedList>]>,
    /// Set by the owner around each hit (see the module's doc).
    active: AtomicBool,
    /// What other threads ask of the cache: [`STEALING`] (a thief at work) and [`FLUSH`] (give
    /// everything back at the next call). The hit path reads this one word.
    signals: AtomicU8,
    /// Held by the owner in its slow path, and by a thief while it steals.
    gate: Mutex<()>,
}

/// One free list of a thread's cache: a stack of at most its capacity, newest on top.
#[derive(Debug)]
struct CachedList {
    len: AtomicUsize,
    slots: Box<[CachedSlot]>,
}

/// A block's place, in atomics.
#[derive(Debug, Default)]
struct CachedSlot {
    address: AtomicUsize,
    segment: AtomicU32,
}

impl CachedList {
    fn new(capacity: usize) -> Self {
        CachedList {
            len: AtomicUsize::new(0),
            slots: (0..capacity).map(|_| CachedSlot::default()).collect(),
        }
    }

    #[inline]
    fn len(&self) -> usize {
        self.len.load(Ordering::Relaxed)
    }

    #[inline]
    fn get(&self, at: usize) -> Option<Slot> {
        let slot = self.slots.get(at)?;
        Some(Slot {
            address: slot.address.load(Ordering::Relaxed),
            segment: slot.segment.load(Ordering::Relaxed),
        })
    }

    #[inline]
    fn set(&self, at: usize, slot: Slot) -> bool {
        let Some(cached) = self.slots.get(at) else {
            return false;
        };
        cached.address.store(slot.address, Ordering::Relaxed);
        cached.segment.store(slot.segment, Ordering::Relaxed);
        true
    }

    #[inline]
    fn pop(&self) -> Option<Slot> {
        let len = self.len().checked_sub(1)?;
        let slot = self.get(len)?;
        self.len.store(len, Ordering::Relaxed);
        Some(slot)
    }

    #[inline]
    fn push(&self, slot: Slot) -> Result<(), Slot> {
        let len = self.len();
        if !self.set(len, slot) {
            return Err(slot);
        }
        self.len.store(len + 1, Ordering::Relaxed);
        Ok(())
    }

    /// The `count` oldest blocks (the bottom of the stack), taken out.
    fn take_oldest(&self, count: usize) -> Vec<Slot> {
        let len = self.len();
        let count = count.min(len);
        let taken = (0..count).filter_map(|at| self.get(at)).collect();
        for at in count..len {
            if let Some(slot) = self.get(at) {
                self.set(at - count, slot);
            }
        }
        self.len.store(len - count, Ordering::Relaxed);
        taken
    }
}

/// A thread's counters as read, or the sum of several.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(super) struct Totals {
    pub hits: u64,
    pub misses: u64,
    pub allocated: i64,
}

impl ThreadCounters {
    fn new(lists: usize) -> Self {
        ThreadCounters {
            hits: AtomicU64::new(0),
            misses: AtomicU64::new(0),
            held: AtomicI64::new(0),
            cached: AtomicU64::new(0),
            stolen: AtomicU64::new(0),
            lists: (0..lists).map(|_| OnceLock::new()).collect(),
            active: AtomicBool::new(false),
            signals: AtomicU8::new(0),
            gate: Mutex::new(()),
        }
    }

    #[inline]
    fn add(counter: &AtomicU64, count: u64) {
        counter.store(
            counter.load(Ordering::Relaxed).wrapping_add(count),
            Ordering::Relaxed,
        );
    }

    fn read(&self) -> Totals {
        let cached = self.cached.load(Ordering::Relaxed) as i64;
        let stolen = self.stolen.load(Ordering::Relaxed) as i64;
        Totals {
            hits: self.hits.load(Ordering::Relaxed),
            misses: self.misses.load(Ordering::Relaxed),
            allocated: self
                .held
                .load(Ordering::Relaxed)
                .wrapping_sub(stolen)
                .wrapping_sub(cached),
        }
    }

    /// Counts one allocation of `bytes` the thread took from the shared level: a free block
    /// (`hit`) or a new one.
    #[inline]
    pub fn allocated(&self, bytes: usize, hit: bool) {
        Self::add(if hit { &self.hits } else { &self.misses }, 1);
        self.live_bytes(bytes as i64);
    }

    /// Counts a hit in the thread's own cache: `bytes` leave the cache for a caller.
    #[inline]
    fn cache_hit(&self, bytes: usize) {
        self.count_hit();
        self.take_cached(bytes);
    }

    /// Counts a hit (no thief reads it: counted outside the marked hit).
    #[inline]
    fn count_hit(&self) {
        Self::add(&self.hits, 1);
    }

    /// `bytes` leave the cache (inside the marked hit: a thief reads and clears `cached`).
    #[inline]
    fn take_cached(&self, bytes: usize) {
        self.cached.store(
            self.cached
                .load(Ordering::Relaxed)
                .wrapping_sub(bytes as u64),
            Ordering::Relaxed,
        );
    }

    /// Bytes of free blocks the thread's cache holds.
    #[inline]
    fn cached_now(&self) -> usize {
        self.cached.load(Ordering::Relaxed) as usize
    }

    /// Records the bytes the thread's cache holds now.
    #[inline]
    fn set_cached(&self, bytes: usize) {
        self.cached.store(bytes as u64, Ordering::Relaxed);
    }

    /// Counts `bytes` more (or, negative, fewer) bytes taken from, or given back to, the
    /// shared level (live blocks allocated or freed past the cache).
    #[inline]
    pub fn live_bytes(&self, bytes: i64) {
        self.held.store(
            self.held.load(Ordering::Relaxed).wrapping_add(bytes),
            Ordering::Relaxed,
        );
    }

    /// List `index`, if it was made.
    #[inline]
    fn list(&self, index: usize) -> Option<&CachedList> {
        self.lists.get(index)?.get()
    }

    /// Runs `hit` as the owner's hit path: marked active, unless a thief is at work, when it
    /// answers `None` (the caller takes the slow path, which waits at the gate).
    #[inline(always)]
    fn as_owner<R>(
        &self,
        barrier: AsymmetricBarrier,
        hit: impl FnOnce() -> Option<R>,
    ) -> Option<R> {
        self.active.store(true, Ordering::Relaxed);
        barrier.light();
        // Acquire: pairs with a thief's clearing of STEALING, so a hit after a steal sees the
        // lists the thief emptied (on weakly ordered processors a later load could otherwise
        // read the list from before).
        let result = if self.signals.load(Ordering::Acquire) != 0 {
            None
        } else {
            hit()
        };
        self.active.store(false, Ordering::Release);
        result
    }

    /// Every cached block, by list index; the lists are left empty. The caller is the owner
    /// holding the gate, or a thief that found the owner idle.
    fn take_all(&self) -> Vec<(usize, Vec<Slot>)> {
        self.lists
            .iter()
            .enumerate()
            .filter_map(|(index, list)| Some((index, list.get()?)))
            .filter(|(_, list)| list.len() > 0)
            .map(|(index, list)| (index, list.take_oldest(list.len())))
            .collect()
    }
}

/// Every thread's counters of one pool: the live threads', and what exited threads left.
#[derive(Debug, Default)]
pub(super) struct CounterTable {
    live: Vec<Arc<ThreadCounters>>,
    exited: Totals,
}

impl CounterTable {
    /// Bytes of free blocks the live threads' caches hold.
    pub fn cached_bytes(&self) -> u64 {
        self.live
            .iter()
            .map(|counters| counters.cached.load(Ordering::Relaxed))
            .sum()
    }

    /// The sum over every thread, live or exited. Each thread's counters are read one after
    /// another, not at one instant, so a sum read while blocks move between threads can be
    /// off by what moved meanwhile (the pool's peak is then an upper bound).
    pub fn sum(&self) -> Totals {
        self.live
            .iter()
            .map(|counters| counters.read())
            .fold(self.exited, |sum, one| sum.plus(one))
    }
}

impl Totals {
    pub fn plus(self, other: Totals) -> Totals {
        Totals {
            hits: self.hits.wrapping_add(other.hits),
            misses: self.misses.wrapping_add(other.misses),
            allocated: self.allocated.wrapping_add(other.allocated),
        }
    }
}

/// Limits of a thread's cache for one pool, worked out once per class (a division per call
/// would cost more than the rest of a hit).
#[derive(Debug, Clone)]
pub(super) struct Limits {
    /// Most bytes in the whole cache.
    pub bytes: usize,
    /// Most blocks one list of each class keeps.
    blocks: Box<[usize]>,
    /// Each class's block size: a load, where `class_size` would be a dozen instructions
    /// on the hit path.
    sizes: Box<[usize]>,
}

impl Limits {
    /// Limits for a cache of at most `bytes`: per class, a quarter of the budget, at most 64
    /// blocks; none where one block would exceed the budget.
    pub fn new(bytes: usize, classes: usize) -> Self {
        let blocks = (0..classes)
            .map(|class| {
                let size = class_size(class);
                if size > bytes {
                    0
                } else {
                    (bytes / 4 / size).clamp(1, 64)
                }
            })
            .collect();
        let sizes = (0..classes).map(class_size).collect();
        Limits {
            bytes,
            blocks,
            sizes,
        }
    }

    /// The block size of class `class`.
    #[inline]
    pub fn size(&self, class: usize) -> usize {
        self.sizes
            .get(class)
            .copied()
            .unwrap_or_else(|| class_size(class))
    }

    /// Most blocks of class `class` one list keeps.
    pub fn blocks(&self, class: usize) -> usize {
        self.blocks.get(class).copied().unwrap_or(0)
    }

    /// How many blocks of class `class` a refill takes from the shared level at once.
    pub fn batch(&self, class: usize) -> usize {
        self.blocks(class).div_ceil(2).max(1)
    }
}

/// One thread's cache for one pool.
pub(super) struct PoolCache {
    pool: u64,
    owner: Weak<Shared>,
    counters: Arc<ThreadCounters>,
}

impl PoolCache {
    pub fn counters(&self) -> &ThreadCounters {
        &self.counters
    }

    /// A cached block of list `index` (of `block_size`), if there is one, counted as a hit.
    pub fn pop(&mut self, index: usize, block_size: usize) -> Option<Slot> {
        let slot = self.counters.list(index)?.pop()?;
        self.counters.cache_hit(block_size);
        Some(slot)
    }

    /// Keeps `slot` (of `block_size`, list `index` of class `class`), a block this thread
    /// frees; what does not fit is returned (with, when the list is full, the older half of the
    /// list), for the shared level, and counted as given back.
    pub fn push(
        &mut self,
        list: (usize, usize),
        slot: Slot,
        block_size: usize,
        limits: &Limits,
    ) -> Option<Vec<Slot>> {
        let spilled = self.keep(list, slot, block_size, limits)?;
        self.counters
            .live_bytes(-((spilled.len() * block_size) as i64));
        Some(spilled)
    }

    /// [`PoolCache::push`] without counting what is returned.
    fn keep(
        &mut self,
        (index, class): (usize, usize),
        slot: Slot,
        block_size: usize,
        limits: &Limits,
    ) -> Option<Vec<Slot>> {
        let most = limits.blocks(class);
        let Some(list) = self.counters.lists.get(index).filter(|_| most != 0) else {
            return Some(vec![slot]);
        };
        let list = list.get_or_init(|| CachedList::new(most));
        let mut bytes = self.counters.cached_now();
        if list.len() >= most || bytes + block_size > limits.bytes {
            // The older half goes: the newest blocks are the ones likely still in caches.
            let keep = list.len() / 2;
            let mut spilled = list.take_oldest(list.len() - keep);
            bytes -= spilled.len() * block_size;
            if bytes + block_size > limits.bytes || list.push(slot).is_err() {
                self.counters.set_cached(bytes);
                spilled.push(slot);
                return Some(spilled);
            }
            self.counters.set_cached(bytes + block_size);
            return Some(spilled);
        }
        if list.push(slot).is_err() {
            return Some(vec![slot]);
        }
        self.counters.set_cached(bytes + block_size);
        None
    }

    /// Adds blocks a refill brought from the shared level (all of `block_size`, for `list` as
    /// in `push`), as many as fit, counted as taken; the rest are returned.
    pub fn refill(
        &mut self,
        list: (usize, usize),
        slots: Vec<Slot>,
        block_size: usize,
        limits: &Limits,
    ) -> Vec<Slot> {
        // Counted as taken before any is cached, so a sum read meanwhile is high, never low;
        // what goes back (some of it older blocks spilled) is taken off after.
        self.counters.live_bytes((slots.len() * block_size) as i64);
        let mut rest = Vec::new();
        // Pushed in reverse so the lowest address is handed out first.
        for slot in slots.into_iter().rev() {
            if let Some(spilled) = self.keep(list, slot, block_size, limits) {
                rest.extend(spilled);
            }
        }
        self.counters
            .live_bytes(-((rest.len() * block_size) as i64));
        rest
    }

    /// Every cached block, by list index; the cache is left empty.
    fn drain(&mut self) -> Vec<(usize, Vec<Slot>)> {
        // Cached bytes first, so a sum read between the two is high, never low.
        let cached = self.counters.cached_now();
        self.counters.set_cached(0);
        self.counters.live_bytes(-(cached as i64));
        self.counters.take_all()
    }

    fn give_back(&mut self, owner: &Shared) {
        for (index, slots) in self.drain() {
            owner.take_back(index, slots);
        }
    }
}

/// The caches of one thread, one per pool it used.
struct ThreadCaches {
    pools: Vec<PoolCache>,
}

impl Drop for ThreadCaches {
    fn drop(&mut self) {
        for mut cache in self.pools.drain(..) {
            if let Some(owner) = cache.owner.upgrade() {
                let counters = Arc::clone(&cache.counters);
                let gate = lock(&counters.gate);
                cache.give_back(&owner);
                drop(gate);
                let totals = cache.counters.read();
                let mut table = lock(&owner.counters);
                table.exited = table.exited.plus(totals);
                table
                    .live
                    .retain(|counters| !Arc::ptr_eq(counters, &cache.counters));
            }
        }
    }
}

thread_local! {
    static CACHES: RefCell<ThreadCaches> = const { RefCell::new(ThreadCaches { pools: Vec::new() }) };
}

/// The hit path of an allocation: a cached block of list `index` (of `block_size`) from this
/// thread's cache for pool `pool`, counted as a hit; `None` sends the caller to the slow path
/// (no cache yet, a signal from another thread, an empty list, or no cache to offer).
#[inline]
pub(super) fn try_pop(pool: u64, owner: &Shared, index: usize, block_size: usize) -> Option<Slot> {
    CACHES
        .try_with(|caches| {
            let caches = caches.try_borrow_mut().ok()?;
            let cache = caches.pools.iter().find(|cache| cache.pool == pool)?;
            let counters = &*cache.counters;
            // Made by this thread only: read before the hit is marked.
            let list = counters.list(index)?;
            let slot = counters.as_owner(owner.barrier, || {
                let slot = list.pop()?;
                counters.take_cached(block_size);
                Some(slot)
            })?;
            counters.count_hit();
            Some(slot)
        })
        .ok()
        .flatten()
}

/// The hit path of a free: keeps `slot` in this thread's cache for pool `pool` if its list and
/// the cache have room, counted; gives it back otherwise, for the slow path.
#[inline]
pub(super) fn try_push(
    pool: u64,
    owner: &Shared,
    (index, class): (usize, usize),
    slot: Slot,
    block_size: usize,
    limits: &Limits,
) -> Result<(), Slot> {
    CACHES
        .try_with(|caches| {
            let caches = caches.try_borrow_mut().ok()?;
            let cache = caches.pools.iter().find(|cache| cache.pool == pool)?;
            let counters = &*cache.counters;
            // Made by this thread only: read before the hit is marked.
            let list = counters.list(index)?;
            let most = limits.blocks(class);
            counters.as_owner(owner.barrier, || {
                let bytes = counters.cached_now();
                if bytes + block_size > limits.bytes || list.len() >= most {
                    return None;
                }
                list.push(slot).ok()?;
                counters.set_cached(bytes + block_size);
                Some(())
            })
        })
        .ok()
        .flatten()
        .ok_or(slot)
}

/// Runs `work` on this thread's cache for pool `pool` (made on first use), after flushing it if
/// the pool asked since; `None` when the thread cannot offer one (it is exiting, or is already
/// inside this function), and the caller then uses the shared level. The cache's gate is held
/// throughout, so no thief takes from it meanwhile.
pub(super) fn with_cache<R>(
    pool: u64,
    owner: &Arc<Shared>,
    work: impl FnOnce(&mut PoolCache) -> R,
) -> Option<R> {
    CACHES
        .try_with(|caches| {
            let mut caches = caches.try_borrow_mut().ok()?;
            let position = match caches.pools.iter().position(|cache| cache.pool == pool) {
                Some(position) => position,
                None => {
                    // Caches of pools dropped since go first.
                    caches.pools.retain(|cache| cache.owner.strong_count() > 0);
                    let counters =
                        Arc::new(ThreadCounters::new(owner.arenas.len() * owner.classes));
                    lock(&owner.counters).live.push(Arc::clone(&counters));
                    caches.pools.push(PoolCache {
                        pool,
                        owner: Arc::downgrade(owner),
                        counters,
                    });
                    caches.pools.len() - 1
                }
            };
            let cache = &mut caches.pools[position];
            let counters = Arc::clone(&cache.counters);
            let _gate = lock(&counters.gate);
            if counters.signals.load(Ordering::Acquire) & FLUSH != 0 {
                counters.signals.fetch_and(!FLUSH, Ordering::Relaxed);
                cache.give_back(owner);
            }
            Some(work(cache))
        })
        .ok()
        .flatten()
}

/// Takes the cached blocks of every thread's cache of this pool whose owner is idle (neither
/// in a hit nor in its slow path) back to the shared free lists, now, without waiting for any
/// owner; returns the bytes taken. A cache whose owner is busy is left: it comes back at the
/// owner's next call, as a flush asks.
pub(super) fn steal_idle_caches(owner: &Shared) -> u64 {
    // Copied out, so the table's lock is not held while the free lists are taken.
    let caches: Vec<Arc<ThreadCounters>> = lock(&owner.counters).live.clone();
    // Every gate that can be had, each cache signalled, then one barrier for all of them.
    let held: Vec<_> = caches
        .iter()
        .filter_map(|counters| {
            let gate = match counters.gate.try_lock() {
                Ok(gate) => gate,
                Err(TryLockError::Poisoned(poisoned)) => poisoned.into_inner(),
                // Its owner is in its slow path: busy, not idle.
                Err(TryLockError::WouldBlock) => return None,
            };
            counters.signals.fetch_or(STEALING, Ordering::Relaxed);
            Some((counters, gate))
        })
        .collect();
    let ordered = !held.is_empty() && owner.barrier.heavy();
    let mut taken = 0;
    for (counters, gate) in held {
        if ordered && !counters.active.load(Ordering::Acquire) {
            let bytes = counters.cached.load(Ordering::Relaxed);
            counters.cached.store(0, Ordering::Relaxed);
            counters.stolen.fetch_add(bytes, Ordering::Relaxed);
            for (index, slots) in counters.take_all() {
                owner.take_back(index, slots);
            }
            taken += bytes;
            #[cfg(test)]
            tests::STOLEN.fetch_add(1, Ordering::Relaxed);
        } else {
            #[cfg(test)]
            tests::SKIPPED_ACTIVE.fetch_add(usize::from(ordered) as u64, Ordering::Relaxed);
        }
        counters.signals.fetch_and(!STEALING, Ordering::Release);
        drop(gate);
    }
    taken
}

/// Asks every thread's cache of this pool to come back to the shared lists at its owner's next
/// call.
pub(super) fn ask_caches_back(owner: &Shared) {
    for counters in &lock(&owner.counters).live {
        counters.signals.fetch_or(FLUSH, Ordering::Release);
    }
}

/// Counters of calls that found no thread cache (a thread exiting, or one re-entering the pool
/// from inside its cache): shared, so updated with read-modify-writes.
#[derive(Debug, Default)]
pub(super) struct UncachedCounters {
    hits: AtomicU64,
    misses: AtomicU64,
    allocated: AtomicI64,
}

impl UncachedCounters {
    /// Counts one allocation of `bytes`, served from a cached block (`hit`) or a new one.
    pub fn allocated(&self, bytes: usize, hit: bool) {
        let counter = if hit { &self.hits } else { &self.misses };
        counter.fetch_add(1, Ordering::Relaxed);
        self.live_bytes(bytes as i64);
    }

    /// Counts `bytes` more (or, negative, fewer) bytes of live blocks.
    pub fn live_bytes(&self, bytes: i64) {
        self.allocated.fetch_add(bytes, Ordering::Relaxed);
    }

    pub fn read(&self) -> Totals {
        Totals {
            hits: self.hits.load(Ordering::Relaxed),
            misses: self.misses.load(Ordering::Relaxed),
            allocated: self.allocated.load(Ordering::Relaxed),
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::{
        Context, DevicePool, Memory, PoolConfig, ResidencyConfig, ResidencyManager, Runtime,
    };
    use std::collections::HashSet;
    use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
    use std::sync::{Arc, Mutex};
    use std::time::{Duration, Instant};

    /// Caches taken, and caches skipped because their owner was in a hit, by every thief.
    pub(super) static STOLEN: AtomicU64 = AtomicU64::new(0);
    pub(super) static SKIPPED_ACTIVE: AtomicU64 = AtomicU64::new(0);

    /// Two threads allocate and free through their caches while a third takes idle caches in a
    /// loop (no out of memory, no flush asked): no block is ever held twice, caches are taken
    /// while their owners run, and every block comes back.
    #[test]
    fn caches_taken_while_their_owners_run_never_hand_a_block_out_twice() {
        let devices = Runtime::simulated("b70x2").unwrap().devices().unwrap();
        let manager =
            ResidencyManager::new(Context::new(&devices).unwrap(), ResidencyConfig::default())
                .unwrap();
        let pool = DevicePool::new(&manager, &devices[0], PoolConfig::default()).unwrap();
        if !pool.shared.barrier.available() {
            assert!(
                std::env::var_os("CI").is_none(),
                "CI's kernel has membarrier"
            );
            eprintln!("SKIPPED: no expedited membarrier here, so no cache is ever taken");
            return;
        }
        let pool = Arc::new(pool);
        let held = Arc::new(Mutex::new(HashSet::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let stolen_before = STOLEN.load(Ordering::Relaxed);
        // Owned threads, joined before the pool is checked: a scoped thread's cache may still
        // be on its way back (thread-local destructors) when its scope has ended.
        let owners: Vec<_> = (0..2)
            .map(|_| {
                let (pool, held, stop) = (Arc::clone(&pool), Arc::clone(&held), Arc::clone(&stop));
                std::thread::spawn(move || {
                    let mut mine = Vec::new();
                    while !stop.load(Ordering::Relaxed) {
                        for _ in 0..8 {
                            let block = pool.allocate(256).unwrap();
                            assert!(held.lock().unwrap().insert(block.address()), "held twice");
                            mine.push(block);
                        }
                        for block in mine.drain(..) {
                            assert!(held.lock().unwrap().remove(&block.address()));
                            drop(block);
                        }
                    }
                })
            })
            .collect();
        let deadline = Instant::now() + Duration::from_millis(300);
        while Instant::now() < deadline {
            super::steal_idle_caches(&pool.shared);
            std::thread::yield_now();
        }
        stop.store(true, Ordering::Relaxed);
        // Joined under a time limit: an owner stuck at its gate fails the test, not hangs it.
        let (joined, all_joined) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let results: Vec<_> = owners
                .into_iter()
                .map(|owner| owner.join().is_ok())
                .collect();
            let _ = joined.send(results);
        });
        let results = all_joined
            .recv_timeout(Duration::from_secs(60))
            .expect("the owners stopped within a minute");
        assert!(results.iter().all(|&ok| ok), "an owner panicked");
        let stolen = STOLEN.load(Ordering::Relaxed) - stolen_before;
        eprintln!(
            "caches taken: {stolen}; skipped as active, over all tests: {}",
            SKIPPED_ACTIVE.load(Ordering::Relaxed)
        );
        assert!(stolen > 0, "no cache was taken");
        assert_eq!(pool.stats().allocated_bytes, 0);
        pool.trim().unwrap();
        assert_eq!(pool.stats().reserved_bytes, 0, "every block came back");
    }
}
