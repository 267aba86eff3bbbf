//! Each thread's cache of free small blocks, one per pool it uses: the hit path pops and pushes
//! here, with no lock and no write to memory another thread writes.
//!
//! A cache holds at most [`PoolConfig::thread_cache_bytes`](super::PoolConfig) and, per class, a
//! bounded count; it refills from and spills to the class's shared free list in batches. It
//! goes back to the shared lists when its thread exits, and when the pool asks (trim, or out of
//! memory, bump the pool's flush epoch; each cache compares it at its next call). Blocks in
//! another thread's cache count as cached, not allocated, in the statistics, and keep their
//! segment from being released until they are back.

use super::classes::class_size;
use super::{Shared, Slot};
use std::cell::RefCell;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::sync::{Arc, Weak};

/// Counters one thread writes and any thread reads (`stats` sums them). Only the owning thread
/// writes them, so a plain load and store is an exact increment, and no thread takes the cache
/// line from another.
///
/// The thread's allocated bytes are `held - cached`: a hit or a free into the cache moves a
/// block between the two, so it changes `cached` only. A block freed on another thread than
/// the one that took it makes the first thread's figure high and the second's low by its size;
/// the sum is right.
#[derive(Debug, Default)]
pub(super) struct ThreadCounters {
    hits: AtomicU64,
    misses: AtomicU64,
    /// Bytes this thread took from the shared level (or allocated) and has not given back:
    /// its live blocks and its cache.
    held: AtomicI64,
    /// Bytes of free blocks the thread's cache holds.
    cached: AtomicU64,
}

/// A thread's counters as read, or the sum of several.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(super) struct Totals {
    pub hits: u64,
    pub misses: u64,
    pub allocated: i64,
}

impl ThreadCounters {
    #[inline]
    fn add(counter: &AtomicU64, count: u64) {
        counter.store(
            counter.load(Ordering::Relaxed).wrapping_add(count),
            Ordering::Relaxed,
        );
    }

    fn read(&self) -> Totals {
        let cached = self.cached.load(Ordering::Relaxed) as i64;
        Totals {
            hits: self.hits.load(Ordering::Relaxed),
            misses: self.misses.load(Ordering::Relaxed),
            allocated: self.held.load(Ordering::Relaxed).wrapping_sub(cached),
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
        Self::add(&self.hits, 1);
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
    /// Free blocks by list index (arena and class); their bytes are `counters.cached`.
    lists: Vec<Vec<Slot>>,
    epoch: u64,
}

impl PoolCache {
    pub fn counters(&self) -> &ThreadCounters {
        &self.counters
    }

    /// A cached block of list `index` (of `block_size`), if there is one, counted as a hit.
    pub fn pop(&mut self, index: usize, block_size: usize) -> Option<Slot> {
        let slot = self.lists.get_mut(index)?.pop()?;
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
        if most == 0 {
            return Some(vec![slot]);
        }
        if self.lists.len() <= index {
            self.lists.resize_with(index + 1, Vec::new);
        }
        let list = &mut self.lists[index];
        let mut bytes = self.counters.cached_now();
        if list.len() >= most || bytes + block_size > limits.bytes {
            // The older half goes: the newest blocks are the ones likely still in caches.
            let keep = list.len() / 2;
            let mut spilled: Vec<Slot> = list.drain(..list.len() - keep).collect();
            bytes -= spilled.len() * block_size;
            if bytes + block_size > limits.bytes {
                self.counters.set_cached(bytes);
                spilled.push(slot);
                return Some(spilled);
            }
            list.push(slot);
            self.counters.set_cached(bytes + block_size);
            return Some(spilled);
        }
        list.push(slot);
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
        self.lists
            .iter_mut()
            .enumerate()
            .filter(|(_, list)| !list.is_empty())
            .map(|(index, list)| (index, std::mem::take(list)))
            .collect()
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
                cache.give_back(&owner);
                let totals = cache.counters.read();
                let mut table = owner
                    .counters
                    .lock()
                    .unwrap_or_else(|poisoned| poisoned.into_inner());
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
/// (no cache yet, a flush asked for, an empty list, or no cache to offer).
#[inline]
pub(super) fn try_pop(pool: u64, owner: &Shared, index: usize, block_size: usize) -> Option<Slot> {
    CACHES
        .try_with(|caches| {
            let mut caches = caches.try_borrow_mut().ok()?;
            let cache = caches.pools.iter_mut().find(|cache| cache.pool == pool)?;
            if cache.epoch != owner.flush_epoch.load(Ordering::Relaxed) {
                return None;
            }
            let slot = cache.lists.get_mut(index)?.pop()?;
            cache.counters.cache_hit(block_size);
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
            let mut caches = caches.try_borrow_mut().map_err(|_| slot)?;
            let Some(cache) = caches.pools.iter_mut().find(|cache| cache.pool == pool) else {
                return Err(slot);
            };
            let bytes = cache.counters.cached_now();
            if cache.epoch != owner.flush_epoch.load(Ordering::Relaxed)
                || bytes + block_size > limits.bytes
            {
                return Err(slot);
            }
            let Some(list) = cache.lists.get_mut(index) else {
                return Err(slot);
            };
            if list.len() >= limits.blocks(class) {
                return Err(slot);
            }
            list.push(slot);
            cache.counters.set_cached(bytes + block_size);
            Ok(())
        })
        .unwrap_or(Err(slot))
}

/// Runs `work` on this thread's cache for pool `pool` (made on first use), after flushing it if
/// the pool asked since; `None` when the thread cannot offer one (it is exiting, or is already
/// inside this function), and the caller then uses the shared level.
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
                    let counters = Arc::new(ThreadCounters::default());
                    owner
                        .counters
                        .lock()
                        .unwrap_or_else(|poisoned| poisoned.into_inner())
                        .live
                        .push(Arc::clone(&counters));
                    caches.pools.push(PoolCache {
                        pool,
                        owner: Arc::downgrade(owner),
                        counters,
                        lists: Vec::new(),
                        epoch: owner.flush_epoch.load(Ordering::Relaxed),
                    });
                    caches.pools.len() - 1
                }
            };
            let cache = &mut caches.pools[position];
            let epoch = owner.flush_epoch.load(Ordering::Relaxed);
            if cache.epoch != epoch {
                cache.epoch = epoch;
                cache.give_back(owner);
            }
            Some(work(cache))
        })
        .ok()
        .flatten()
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
