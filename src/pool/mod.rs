//! A residency-aware caching allocator per device.
//!
//! Small requests come from size classes carved out of segments (`small`): each thread keeps
//! a bounded cache of free blocks per pool (`thread_cache`), so a hit takes no lock and writes
//! nothing another thread writes, and moves blocks to and from a shared free list per class in
//! batches. Large ones come from best-fit ranges of large segments (`large`); the largest get a
//! segment of their own. Segments (`segments`) are `DeviceAllocation`s of a
//! [`ResidencyManager`], so residency is per segment: one peer residency covers every block in
//! it, and a placement hint puts blocks that a peer will use into segments already resident
//! there (an arena per set of peers). A block freed behind device work (`fence`) waits in the
//! deferred list until the work completes. `block` holds what callers hold; `stats` what the
//! pool reports; `config` how it is sized.
//!
//! Lock order (a thread holding one lock takes only locks listed after it):
//! 1. a class's `grow`: taken with no other pool lock held, only to make a class segment;
//!    making a segment may release idle ones, which takes the locks below;
//! 2. a class's `carve`, then that class's free list, then the segment table (read);
//! 3. a large heap, alone;
//! 4. the segment table (write), the deferred list, the arena index, the name table, the
//!    thread counter table: each alone.
//!
//! A thread's cache is borrowed with no pool lock held but, possibly, a class's `grow` (making
//! a segment may flush it or return deferred blocks to it), and its gate is held while it is
//! borrowed; it then takes only a class's free list and the thread counter table, both after
//! `grow`, and nothing called then borrows it again (a re-entered cache answers "none", and the
//! call goes to the shared level). Another thread takes a cache's gate only with `try_lock`
//! (stealing an idle cache when the device is out of memory), so it never waits on one; holding
//! it, it takes only class free lists. No pool lock but `grow` is held while the residency manager is
//! called (allocating, evicting, making resident).

#![deny(unsafe_code)]

mod block;
mod classes;
mod config;
mod fence;
mod large;
mod segments;
mod small;
mod stats;
mod thread_cache;
pub mod trace;

pub use block::{Block, DetachedBlock};
pub use config::{MAX_SEGMENT, PoolConfig};
pub use fence::{FENCE_SETTLE_WAIT, WorkFence};
pub use stats::{PeerResidency, PoolStats};

use crate::error::{Error, Result};
use crate::os::AsymmetricBarrier;
use crate::residency::{DeviceSet, ResidencyManager};
use crate::ze::device::Device;
use crate::ze::memory::Memory;
use classes::{GRANULE, class_count, class_index, class_size};
use fence::Deferred;
use large::LargeHeap;
use segments::{Layout, Segment, SegmentTable};
use small::Class;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, RwLock};
use thread_cache::{CounterTable, Limits, UncachedCounters, try_pop, with_cache};

const MAX_ARENAS: usize = 16;
const LARGE: u16 = u16::MAX;
const DEDICATED: u16 = u16::MAX - 1;
const SEGMENT_ROUNDING: usize = 2 << 20;
/// Segments are aligned like the pages drivers map device memory with.
const SEGMENT_ALIGNMENT: usize = 64 << 10;

/// A block's place: its address and its segment's index.
#[derive(Debug, Clone, Copy)]
struct Slot {
    address: usize,
    segment: u32,
}

/// Segments that share one placement: owner only, or also resident on some peers.
struct Arena {
    peers: DeviceSet,
    classes: Box<[Class]>,
    large: Mutex<LargeHeap>,
}

/// What a pool shares with the caches threads keep of it: the free lists their blocks go back
/// to, their counters, and the barrier that orders a cache with a thread taking it. A cache holds it weakly, so a
/// cache that outlives its pool returns nothing (its blocks were only addresses).
struct Shared {
    arenas: Box<[OnceLock<Arena>]>,
    /// Classes per arena: a cache's list index is `arena * classes + class`.
    classes: usize,
    counters: Mutex<CounterTable>,
    uncached: UncachedCounters,
    /// What orders a cache's owner and a thread taking its blocks (see `thread_cache`).
    barrier: AsymmetricBarrier,
}

impl Shared {
    /// Returns blocks of list `index` to its class's shared free list.
    fn take_back(&self, index: usize, slots: Vec<Slot>) {
        let (arena, class) = (index / self.classes, index % self.classes);
        if let Some(arena) = self.arenas.get(arena).and_then(OnceLock::get) {
            lock(&arena.classes[class].free).extend(slots);
        }
    }
}

/// Source of [`DevicePool`] identities.
static NEXT_POOL_ID: AtomicU64 = AtomicU64::new(1);

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// A caching allocator for one device, on top of a [`ResidencyManager`].
///
/// ```
/// use lazy_usm::{Context, DevicePool, Memory, PoolConfig, ResidencyConfig, ResidencyManager, Runtime};
/// let devices = Runtime::simulated("b70x2")?.devices()?;
/// let manager = ResidencyManager::new(Context::new(&devices)?, ResidencyConfig::default())?;
/// let pool = DevicePool::new(&manager, &devices[0], PoolConfig::default())?;
/// let block = pool.allocate(1000)?;
/// assert_eq!(block.len(), 1000);
/// let address = block.address();
/// drop(block);
/// assert_eq!(pool.allocate(1000)?.address(), address, "the freed block is reused");
/// assert_eq!(pool.stats().hits, 1);
/// # Ok::<(), lazy_usm::Error>(())
/// ```
pub struct DevicePool {
    /// Unique in the process: a detached block names its pool by it (an address could be
    /// reused by a later pool, or change when the pool moves).
    id: u64,
    manager: ResidencyManager,
    device: Device,
    owner: u32,
    config: PoolConfig,
    shared: Arc<Shared>,
    /// `shared.classes`, kept here too: the hit path reads it without following `shared`.
    classes: usize,
    limits: Limits,
    arena_index: Mutex<HashMap<DeviceSet, u8>>,
    segments: RwLock<SegmentTable>,
    deferred: Mutex<Vec<Deferred>>,
    /// `deferred`'s length, set under its lock: a reclaim with nothing deferred (every free
    /// of PyTorch's path asks) takes no lock.
    deferred_blocks: AtomicUsize,
    named: Mutex<HashMap<usize, (String, usize)>>,
    reserved: AtomicU64,
    peak_reserved: AtomicU64,
    peak_allocated: AtomicU64,
    shared_bytes: Vec<AtomicU64>,
    /// Segments allocated from and released to the driver, allocations retried after the
    /// device ran out of memory, and out-of-memory errors returned (`stats`).
    driver_allocations: AtomicU64,
    driver_frees: AtomicU64,
    allocation_retries: AtomicU64,
    out_of_memory_errors: AtomicU64,
}

impl std::fmt::Debug for DevicePool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DevicePool")
            .field("device", &self.owner)
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

impl DevicePool {
    /// Forgets a returned block's sharing with `peers` (its size `size`): the segment no longer
    /// counts it, so trim may evict the segment from them.
    #[inline]
    fn forget_sharing(&self, segment: u32, peers: u64, size: usize) {
        if peers != 0 {
            self.forget_peers(segment, peers, size);
        }
    }

    #[cold]
    fn forget_peers(&self, segment: u32, peers: u64, size: usize) {
        let peers = DeviceSet::from_bits(peers);
        for device in peers.iter() {
            self.shared_bytes[device as usize].fetch_sub(size as u64, Ordering::AcqRel);
        }
        self.segment(segment)
            .shared_blocks
            .fetch_sub(1, Ordering::AcqRel);
    }

    /// This pool's identity, for detached blocks.
    fn id(&self) -> u64 {
        self.id
    }

    /// A pool for `device`, whose segments `manager` allocates and tracks.
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// let manager = ResidencyManager::new(Context::new(&devices)?, ResidencyConfig::default())?;
    /// let bad = PoolConfig { small_max: 1 << 30, ..PoolConfig::default() };
    /// assert!(DevicePool::new(&manager, &devices[0], bad).is_err(), "small_max above dedicated_threshold");
    /// # Ok::<(), Error>(())
    /// ```
    pub fn new(manager: &ResidencyManager, device: &Device, config: PoolConfig) -> Result<Self> {
        let owner = manager.index_of(device)?;
        config.validate()?;
        let devices = manager.context().devices().len();
        let pool = Self {
            id: NEXT_POOL_ID.fetch_add(1, Ordering::Relaxed),
            manager: manager.clone(),
            device: device.clone(),
            owner,
            shared: Arc::new(Shared {
                arenas: (0..MAX_ARENAS).map(|_| OnceLock::new()).collect(),
                classes: class_count(config.small_max),
                counters: Mutex::new(CounterTable::default()),
                uncached: UncachedCounters::default(),
                barrier: AsymmetricBarrier::prepare(),
            }),
            classes: class_count(config.small_max),
            limits: Limits::new(config.thread_cache_bytes, class_count(config.small_max)),
            arena_index: Mutex::new(HashMap::new()),
            segments: RwLock::new(SegmentTable::default()),
            deferred: Mutex::new(Vec::new()),
            deferred_blocks: AtomicUsize::new(0),
            named: Mutex::new(HashMap::new()),
            reserved: AtomicU64::new(0),
            peak_reserved: AtomicU64::new(0),
            peak_allocated: AtomicU64::new(0),
            shared_bytes: (0..devices).map(|_| AtomicU64::new(0)).collect(),
            driver_allocations: AtomicU64::new(0),
            driver_frees: AtomicU64::new(0),
            allocation_retries: AtomicU64::new(0),
            out_of_memory_errors: AtomicU64::new(0),
            config,
        };
        pool.arena(DeviceSet::EMPTY)?;
        Ok(pool)
    }

    /// The pool's device.
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// let manager = ResidencyManager::new(Context::new(&devices)?, ResidencyConfig::default())?;
    /// let pool = DevicePool::new(&manager, &devices[0], PoolConfig::default())?;
    /// assert_eq!(pool.device(), &devices[0]);
    /// # Ok::<(), Error>(())
    /// ```
    pub fn device(&self) -> &Device {
        &self.device
    }

    /// The manager whose segments the pool uses.
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// let manager = ResidencyManager::new(Context::new(&devices)?, ResidencyConfig::default())?;
    /// let pool = DevicePool::new(&manager, &devices[0], PoolConfig::default())?;
    /// assert_eq!(pool.manager().context().devices().len(), 2);
    /// # Ok::<(), Error>(())
    /// ```
    pub fn manager(&self) -> &ResidencyManager {
        &self.manager
    }

    fn new_arena(&self, peers: DeviceSet) -> Arena {
        let classes = (0..self.shared.classes).map(Class::new).collect();
        Arena {
            peers,
            classes,
            large: Mutex::new(LargeHeap::default()),
        }
    }

    /// The arena for blocks that `peers` will use (index 0: no peers).
    fn arena(&self, peers: DeviceSet) -> Result<u8> {
        if peers.is_empty()
            && let Some(_) = self.shared.arenas[0].get()
        {
            return Ok(0);
        }
        let mut index = lock(&self.arena_index);
        if let Some(&found) = index.get(&peers) {
            return Ok(found);
        }
        let next = index.len();
        if next >= MAX_ARENAS {
            return Err(Error::invalid(format!(
                "at most {MAX_ARENAS} distinct peer hints per pool"
            )));
        }
        let _ = self.shared.arenas[next].set(self.new_arena(peers));
        index.insert(peers, next as u8);
        Ok(next as u8)
    }

    fn arena_ref(&self, index: u8) -> &Arena {
        self.shared.arenas[index as usize]
            .get()
            .expect("arenas are set before they are indexed")
    }

    /// A block of at least `size` bytes.
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// let manager = ResidencyManager::new(Context::new(&devices)?, ResidencyConfig::default())?;
    /// let pool = DevicePool::new(&manager, &devices[0], PoolConfig::default())?;
    /// let block = pool.allocate(100 << 20)?; // above the dedicated threshold: its own allocation
    /// assert_eq!(block.len(), 100 << 20);
    /// # Ok::<(), Error>(())
    /// ```
    #[inline]
    pub fn allocate(&self, size: usize) -> Result<Block<'_>> {
        self.allocate_in(size, 0)
    }

    /// A block for memory that `peers` will also use: placed in a segment already resident
    /// there, so sharing it costs no new residency.
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// let manager = ResidencyManager::new(Context::new(&devices)?, ResidencyConfig::default())?;
    /// let pool = DevicePool::new(&manager, &devices[0], PoolConfig::default())?;
    /// let calls = manager.host_cost().make_resident_calls;
    /// let block = pool.allocate_for(1 << 20, &[&devices[1]])?;
    /// manager.ensure_resident_on(&block, &devices[1])?;
    /// assert_eq!(manager.host_cost().make_resident_calls, calls + 2, "owner and peer, once, at segment creation");
    /// # Ok::<(), Error>(())
    /// ```
    pub fn allocate_for(&self, size: usize, peers: &[&Device]) -> Result<Block<'_>> {
        let mut set = DeviceSet::EMPTY;
        for peer in peers {
            let index = self.manager.index_of(peer)?;
            if index != self.owner {
                set = set.with(index)?;
            }
        }
        let arena = self.arena(set)?;
        self.allocate_in(size, arena)
    }

    /// A block recorded with a name, for [`DevicePool::report`].
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// let manager = ResidencyManager::new(Context::new(&devices)?, ResidencyConfig::default())?;
    /// let pool = DevicePool::new(&manager, &devices[0], PoolConfig::default())?;
    /// let _weights = pool.allocate_named(4 << 20, "weights")?;
    /// assert!(pool.report(1).contains("weights"));
    /// # Ok::<(), Error>(())
    /// ```
    pub fn allocate_named(&self, size: usize, name: &str) -> Result<Block<'_>> {
        let mut block = self.allocate(size)?;
        block.named = true;
        lock(&self.named).insert(block.address, (name.to_string(), size));
        Ok(block)
    }

    /// Counts an allocation of a large or dedicated block of `bytes`: from free space of a
    /// segment the pool held (`hit`) or from a new one.
    fn count_allocation(&self, bytes: usize, hit: bool) {
        if with_cache(self.id, &self.shared, |cache| {
            cache.counters().allocated(bytes, hit)
        })
        .is_none()
        {
            self.shared.uncached.allocated(bytes, hit);
        }
    }

    /// Counts `bytes` more (or fewer) bytes of live large or dedicated blocks.
    fn count_allocated(&self, bytes: i64) {
        if with_cache(self.id, &self.shared, |cache| {
            cache.counters().live_bytes(bytes)
        })
        .is_none()
        {
            self.shared.uncached.live_bytes(bytes);
        }
    }

    /// Returns this thread's cache to the shared free lists now and, with `ask_others`, asks
    /// every other thread's to (each does at its next call).
    fn flush_thread_caches(&self, ask_others: bool) {
        if ask_others {
            thread_cache::ask_caches_back(&self.shared);
        }
        let _ = with_cache(self.id, &self.shared, |_| ());
    }

    /// A block of at least `size` bytes in arena `arena`: the hit path (a block of this
    /// thread's cache) inline, everything else in [`DevicePool::allocate_slow`].
    // Always: the hit path is a few loads and stores, and a call costs it a tenth.
    #[inline(always)]
    fn allocate_in(&self, size: usize, arena: u8) -> Result<Block<'_>> {
        if size != 0 && size <= self.config.small_max {
            let class = class_index(size);
            let capacity = self.limits.size(class);
            let index = self.list_index(arena, class);
            if let Some(slot) = try_pop(self.id, &self.shared, index, capacity) {
                return Ok(self.block(slot, size, capacity, arena, class as u16));
            }
        }
        self.allocate_slow(size, arena)
    }

    /// [`DevicePool::try_allocate_in`], and while the device stays out of memory and blocks
    /// wait on work ([`Block::free_after`]), again as that work completes and they come back
    /// (free lists first), for up to [`PoolConfig::out_of_memory_wait`] (as PyTorch's allocator
    /// syncs its streams' events before it reports out of memory).
    #[cold]
    #[inline(never)]
    fn allocate_slow(&self, size: usize, arena: u8) -> Result<Block<'_>> {
        let mut deadline = None;
        let mut pause = std::time::Duration::from_micros(10);
        // Blocks come back from work completing, and from other threads' caches: idle ones are
        // taken at once when a segment cannot be made, busy ones come back at their owner's
        // next call; with neither to wait for, out of memory it is.
        let something_may_come_back =
            || !lock(&self.deferred).is_empty() || self.others_cached_bytes() != 0;
        loop {
            let could_come_back = something_may_come_back();
            let error = match self.try_allocate_in(size, arena) {
                Err(error @ Error::OutOfDeviceMemory { .. }) => error,
                other => return other,
            };
            let now = std::time::Instant::now();
            let deadline = *deadline.get_or_insert(now + self.config.out_of_memory_wait);
            let may_come_back = something_may_come_back();
            if (!could_come_back && !may_come_back) || now >= deadline {
                self.out_of_memory_errors.fetch_add(1, Ordering::Relaxed);
                return Err(error);
            }
            if !may_come_back {
                // What was waiting came back during the failed attempt (its out-of-memory
                // path reclaims and flushes after its own free lists were searched): the
                // next attempt finds it, or, with nothing waiting then, ends the wait.
                continue;
            }
            std::thread::sleep(pause);
            pause = (pause * 2).min(std::time::Duration::from_millis(1));
            self.reclaim_deferred();
            self.release_idle_segments(true);
        }
    }

    fn try_allocate_in(&self, size: usize, arena: u8) -> Result<Block<'_>> {
        if size == 0 {
            return Err(Error::invalid("allocation size is 0"));
        }
        if size <= self.config.small_max {
            let class = class_index(size);
            let slot = self.small_allocate(arena, class)?;
            return Ok(self.block(slot, size, class_size(class), arena, class as u16));
        }
        let capacity = size
            .checked_next_multiple_of(GRANULE)
            .ok_or(Error::SizeOverflow {
                what: "a pool block",
                size,
            })?;
        let (slot, class, hit) = if size > self.config.dedicated_threshold {
            let (slot, _) = self.new_segment(arena, capacity, Layout::Dedicated)?;
            (slot, DEDICATED, false)
        } else {
            let (slot, hit) = self.large_allocate(arena, capacity)?;
            (slot, LARGE, hit)
        };
        self.count_allocation(capacity, hit);
        self.note_peak();
        Ok(self.block(slot, size, capacity, arena, class))
    }

    #[inline]
    fn release(&self, slot: Slot, arena: u8, class: u16, capacity: usize) {
        match class {
            DEDICATED => {
                self.drop_segment(slot.segment);
                self.count_allocated(-(capacity as i64));
            }
            LARGE => {
                self.large_release(slot, arena);
                self.count_allocated(-(capacity as i64));
            }
            // Counted by the thread cache.
            class => self.small_release(slot, arena, class as usize, capacity),
        }
    }

    /// Returns blocks whose pending work has completed to the free lists (the slow path does
    /// this too); how many came back.
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// let manager = ResidencyManager::new(Context::new(&devices)?, ResidencyConfig::default())?;
    /// let pool = DevicePool::new(&manager, &devices[0], PoolConfig::default())?;
    /// assert_eq!(pool.reclaim(), 0, "nothing deferred");
    /// # Ok::<(), Error>(())
    /// ```
    pub fn reclaim(&self) -> usize {
        self.reclaim_deferred()
    }

    fn reclaim_deferred(&self) -> usize {
        // A block deferred meanwhile is found by the next reclaim; the out-of-memory wait
        // looks at the list itself.
        if self.deferred_blocks.load(Ordering::Acquire) == 0 {
            return 0;
        }
        let ready: Vec<Deferred> = {
            let mut deferred = lock(&self.deferred);
            let (ready, waiting): (Vec<Deferred>, Vec<Deferred>) = std::mem::take(&mut *deferred)
                .into_iter()
                .partition(|entry| entry.work.is_complete());
            *deferred = waiting;
            self.deferred_blocks
                .store(deferred.len(), Ordering::Release);
            ready
        };
        let count = ready.len();
        for entry in ready {
            self.forget_sharing(entry.slot.segment, entry.peers, entry.size);
            self.release(entry.slot, entry.arena, entry.class, entry.capacity);
        }
        count
    }

    /// Releases idle segments and the peer residency of segments no live shared block needs
    /// (outside hinted arenas, which keep theirs); returns the bytes of segments released. A
    /// peer residency the driver refuses to evict (releases up to 26.31 refuse a peer's import)
    /// stays, counted, until its segment is released.
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// let manager = ResidencyManager::new(Context::new(&devices)?, ResidencyConfig::default())?;
    /// let pool = DevicePool::new(&manager, &devices[0], PoolConfig::default())?;
    /// drop(pool.allocate(10 << 20)?);
    /// assert_eq!(pool.trim()?, 32 << 20, "the idle large segment");
    /// # Ok::<(), Error>(())
    /// ```
    pub fn trim(&self) -> Result<u64> {
        self.reclaim_deferred();
        let released = self.release_idle_segments(true);
        let segments = self.live_segments();
        let devices = self.manager.context().devices();
        let mut failure = None;
        for segment in segments {
            let hinted = self.arena_ref(segment.arena).peers;
            if segment.shared_blocks.load(Ordering::Acquire) > 0 {
                continue;
            }
            let peers = segment.allocation.resident().without(self.owner);
            for peer in peers.iter().filter(|&peer| !hinted.contains(peer)) {
                // A segment that work in flight uses, or that a block noted as shared since the
                // check above, keeps its residency until the next trim.
                // A read-modify-write read, as the pin protocol's (module `residency::pin`).
                let shared = || segment.shared_blocks.fetch_add(0, Ordering::SeqCst) > 0;
                // A driver that refuses to evict a peer's import (releases up to 26.31) leaves
                // the residency in place, and counted: the segment keeps it until it is
                // released. Other errors are returned once every segment had its turn.
                match self.manager.try_evict_unless(
                    &segment.allocation,
                    &devices[peer as usize],
                    &shared,
                ) {
                    Err(error) if error.is_refused_eviction() => {}
                    Err(error) => {
                        failure.get_or_insert(error);
                    }
                    Ok(_) => {}
                }
            }
        }
        failure.map_or(Ok(released), Err)
    }
}

impl Drop for DevicePool {
    fn drop(&mut self) {
        // Deferred blocks may still be written by the device: wait before segments go. A
        // segment whose work cannot be waited for is leaked, never freed under the device.
        // Each fence is asked once (many blocks may share one); once one has failed, or
        // `FENCE_SETTLE_WAIT` has passed, the rest are only asked whether they are complete, so a
        // drop ends within about twice that (a fence whose own `settle` never returns aside).
        let deadline = std::time::Instant::now() + fence::FENCE_SETTLE_WAIT;
        let mut answers: HashMap<*const (), bool> = HashMap::new();
        let mut failure = None;
        let mut unsettled = Vec::new();
        for entry in lock(&self.deferred).drain(..) {
            let fence = Arc::as_ptr(&entry.work).cast::<()>();
            let complete = match answers.get(&fence) {
                Some(&complete) => complete,
                None => {
                    let complete = if failure.is_none() && std::time::Instant::now() < deadline {
                        entry
                            .work
                            .settle()
                            .map_err(|error| failure = Some(error))
                            .is_ok()
                    } else {
                        entry.work.is_complete()
                    };
                    answers.insert(fence, complete);
                    complete
                }
            };
            if !complete {
                unsettled.push(entry.slot.segment);
            }
        }
        if unsettled.is_empty() {
            return;
        }
        let mut table = self
            .segments
            .write()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let (mut segments, mut bytes) = (0, 0);
        for index in &unsettled {
            if let Some(segment) = table
                .segments
                .get_mut(*index as usize)
                .and_then(Option::take)
            {
                segments += 1;
                bytes += segment.allocation.len();
                std::mem::forget(segment);
            }
        }
        log::warn!(
            "lazy-usm pool: dropped with {} blocks behind work that did not complete; leaking \
             {segments} segments ({bytes} bytes) rather than freeing them under the device",
            unsettled.len()
        );
        self.manager
            .context()
            .record_drop_error(failure.unwrap_or(Error::WorkNotComplete {
                waited: fence::FENCE_SETTLE_WAIT,
            }));
    }
}
