//! A residency-aware caching allocator per device.
//!
//! Small requests come from size classes carved out of segments, with per-thread shards of free
//! blocks so that the hit path takes one uncontended lock; large ones from best-fit ranges of
//! large segments; the largest get a segment of their own. Segments are `DeviceAllocation`s of a
//! [`ResidencyManager`], so residency is per segment: one peer residency covers every block in it,
//! and a placement hint puts blocks that a peer will use into segments already resident there.
//!
//! Lock order (a thread holding one lock takes only locks listed after it):
//! 1. a class's `grow`: taken with no other pool lock held, only to make a class segment;
//!    making a segment may release idle ones, which takes the locks below;
//! 2. a class's `carve`, then that class's shards, then the segment table (read);
//! 3. a large heap, alone;
//! 4. the segment table (write), the deferred list, the arena index, the name table: each
//!    alone.
//!
//! No pool lock but `grow` is held while the residency manager is called (allocating,
//! evicting, making resident).

#![deny(unsafe_code)]

mod classes;
mod large;
pub mod trace;

use crate::error::{Error, Result};
use crate::residency::{DeviceAllocation, DeviceSet, ResidencyHandle, ResidencyManager, Resident};
use crate::ze::command::Completion;
use crate::ze::context::Context;
use crate::ze::device::Device;
use crate::ze::memory::{AllocationView, Memory, MemoryKind, sealed};
use classes::{GRANULE, class_count, class_index, class_size};
use large::LargeHeap;
use std::cell::Cell;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, RwLock};

/// How a [`DevicePool`] sizes and caches memory.
///
/// The defaults follow what serving and training workloads allocate: many small tensors and
/// buckets up to 1 MiB (size classes, 2 MiB segments: the granularity drivers map device memory
/// in), activations and parameters of tens of MiB (best fit in 32 MiB segments, split and
/// coalesced), and a dedicated allocation above 64 MiB, where rounding a segment would waste
/// more than it saves.
///
/// ```
/// let config = lazy_usm::PoolConfig::default();
/// assert_eq!((config.small_max, config.dedicated_threshold), (1 << 20, 64 << 20));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PoolConfig {
    /// Largest request served from size classes.
    pub small_max: usize,
    /// Size of a small-class segment (at least eight blocks of the class).
    pub small_segment: usize,
    /// Size of a large segment (or the request rounded to 2 MiB, if larger).
    pub large_segment: usize,
    /// Requests above this get a dedicated allocation.
    pub dedicated_threshold: usize,
    /// Most idle bytes kept cached; above it, idle segments are released as new ones are made
    /// (`None`: no limit; `trim` releases them on demand).
    pub max_cached_bytes: Option<u64>,
    /// How long an allocation that finds the device out of memory waits for blocks freed behind
    /// running work ([`Block::free_after`]) to come back before it reports out of memory.
    pub out_of_memory_wait: std::time::Duration,
}

/// Largest segment size a [`PoolConfig`] may name (and largest dedicated threshold).
pub const MAX_SEGMENT: usize = 1 << 40;

impl PoolConfig {
    /// Checks every field; [`DevicePool::new`] calls it.
    ///
    /// ```
    /// use lazy_usm::{Error, PoolConfig};
    /// assert!(PoolConfig::default().validate().is_ok());
    /// let bad = PoolConfig { small_max: 1 << 30, ..PoolConfig::default() };
    /// assert!(matches!(bad.validate(), Err(Error::BadConfig { field: "small_max", .. })));
    /// let huge = PoolConfig { large_segment: usize::MAX, ..PoolConfig::default() };
    /// assert!(matches!(huge.validate(), Err(Error::BadConfig { field: "large_segment", .. })));
    /// ```
    pub fn validate(&self) -> Result<()> {
        let bad = |field: &'static str, reason: String| Err(Error::BadConfig { field, reason });
        if self.dedicated_threshold > MAX_SEGMENT {
            return bad(
                "dedicated_threshold",
                format!("{} is above {MAX_SEGMENT}", self.dedicated_threshold),
            );
        }
        if self.small_max < GRANULE || self.small_max > self.dedicated_threshold {
            return bad(
                "small_max",
                format!(
                    "{} must lie between {GRANULE} and dedicated_threshold {}",
                    self.small_max, self.dedicated_threshold
                ),
            );
        }
        for (field, size) in [
            ("small_segment", self.small_segment),
            ("large_segment", self.large_segment),
        ] {
            if size == 0 || size > MAX_SEGMENT {
                return bad(
                    field,
                    format!("{size} must lie between 1 and {MAX_SEGMENT}"),
                );
            }
        }
        Ok(())
    }
}

impl Default for PoolConfig {
    fn default() -> Self {
        Self {
            small_max: 1 << 20,
            small_segment: 2 << 20,
            large_segment: 32 << 20,
            dedicated_threshold: 64 << 20,
            max_cached_bytes: None,
            out_of_memory_wait: std::time::Duration::from_secs(1),
        }
    }
}

const SHARDS: usize = 8;
const MAX_ARENAS: usize = 16;
const LARGE: u16 = u16::MAX;
const DEDICATED: u16 = u16::MAX - 1;
const SEGMENT_ROUNDING: usize = 2 << 20;
/// Segments are aligned like the pages drivers map device memory with.
const SEGMENT_ALIGNMENT: usize = 64 << 10;

#[derive(Debug, Clone, Copy)]
struct Slot {
    address: usize,
    segment: u32,
}

#[derive(Default)]
struct ShardState {
    slots: Vec<Slot>,
    hits: u64,
    misses: u64,
}

/// One shard of a class's free blocks, on its own cache line so threads do not share it.
#[repr(align(128))]
#[derive(Default)]
struct Shard(Mutex<ShardState>);

struct Carve {
    segment: u32,
    next: usize,
    end: usize,
    /// Segments made for the class so far: each new one holds twice as many blocks, so a class
    /// used a little costs a little.
    made: u32,
}

struct Class {
    size: usize,
    shards: Box<[Shard]>,
    carve: Mutex<Carve>,
    /// Held while the class makes a new segment, so one thread grows it at a time; the carve
    /// lock is not held then (see the lock order in the module documentation).
    grow: Mutex<()>,
}

/// Segments that share one placement: owner only, or also resident on some peers.
struct Arena {
    peers: DeviceSet,
    classes: Box<[Class]>,
    large: Mutex<LargeHeap>,
}

struct Segment {
    allocation: DeviceAllocation,
    arena: u8,
    /// Live blocks of the segment that were used on a peer.
    shared_blocks: AtomicU32,
}

#[derive(Default)]
struct SegmentTable {
    segments: Vec<Option<Arc<Segment>>>,
    free: Vec<u32>,
}

/// Source of [`DevicePool`] identities.
static NEXT_POOL_ID: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

struct Deferred {
    slot: Slot,
    arena: u8,
    class: u16,
    capacity: usize,
    /// The peers the block was shared with and its size: the sharing lasts until the work
    /// completes, since the work may read the block there (trim must not evict it).
    peers: u64,
    size: usize,
    work: Arc<dyn WorkFence>,
}

/// Device work a freed block must outlive: the pool reuses the block only once
/// [`WorkFence::is_complete`] says so, and never waits for it (it asks again at its next
/// allocation or [`DevicePool::reclaim`]).
///
/// lazy-usm's own [`Completion`] is one; a binding implements it for its runtime's events (a
/// SYCL barrier event on the queue that freed the block, say).
pub trait WorkFence: Send + Sync {
    /// Whether the work has completed. A fence that cannot tell (its runtime reports an error)
    /// answers `false`: the block stays out of use rather than be reused under running work.
    fn is_complete(&self) -> bool;

    /// Blocks until the work has completed: the pool calls it only when it is dropped with
    /// blocks still waiting, before their memory goes back to the driver. The default polls
    /// [`WorkFence::is_complete`], backing off to a millisecond between polls.
    fn settle(&self) -> Result<()> {
        let mut pause = std::time::Duration::from_micros(1);
        while !self.is_complete() {
            std::thread::sleep(pause);
            pause = (pause * 2).min(std::time::Duration::from_millis(1));
        }
        Ok(())
    }
}

impl WorkFence for Completion {
    fn is_complete(&self) -> bool {
        Completion::is_complete(self).unwrap_or(false)
    }

    fn settle(&self) -> Result<()> {
        Completion::settle(self)
    }
}

/// A pool block detached from the borrow of its pool, for callers that keep blocks by address
/// rather than as values (the C ABI). It frees nothing when dropped (the block then stays out
/// of use until the pool is dropped); hand it back with [`DevicePool::attach`].
#[derive(Debug)]
pub struct DetachedBlock {
    pool: u64,
    address: usize,
    size: usize,
    capacity: usize,
    segment: u32,
    arena: u8,
    class: u16,
    named: bool,
    peers: u64,
}

impl DetachedBlock {
    /// The block's address.
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// # let manager = ResidencyManager::new(Context::new(&devices)?, ResidencyConfig::default())?;
    /// # let pool = DevicePool::new(&manager, &devices[0], PoolConfig::default())?;
    /// let block = pool.allocate(100)?;
    /// let address = block.address();
    /// let detached = block.detach();
    /// assert_eq!((detached.address(), detached.len(), detached.is_empty()), (address, 100, false));
    /// # drop(pool.attach(detached)?);
    /// # Ok::<(), Error>(())
    /// ```
    pub fn address(&self) -> usize {
        self.address
    }

    /// The block's size in bytes (as asked for); see [`DetachedBlock::address`].
    pub fn len(&self) -> usize {
        self.size
    }

    /// Whether the block is empty (never: pools hand out at least one byte).
    pub fn is_empty(&self) -> bool {
        self.size == 0
    }
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

thread_local! {
    static SHARD: Cell<usize> = const { Cell::new(usize::MAX) };
}
static NEXT_SHARD: AtomicUsize = AtomicUsize::new(0);

/// The next block of the class's current segment, if it has one left.
fn carve_one(carve: &mut Carve, size: usize) -> Option<Slot> {
    if carve.next + size > carve.end {
        return None;
    }
    let slot = Slot {
        address: carve.next,
        segment: carve.segment,
    };
    carve.next += size;
    Some(slot)
}

/// This thread's shard: threads are spread round-robin, so two threads never share one until
/// there are more threads than shards.
fn thread_shard() -> usize {
    SHARD.with(|shard| {
        let index = shard.get();
        if index != usize::MAX {
            return index;
        }
        let index = NEXT_SHARD.fetch_add(1, Ordering::Relaxed) % SHARDS;
        shard.set(index);
        index
    })
}

/// Statistics of a [`DevicePool`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PoolStats {
    /// Index of the pool's device.
    pub device: u32,
    /// Bytes of live blocks (their rounded sizes).
    pub allocated_bytes: u64,
    /// Bytes of all segments.
    pub reserved_bytes: u64,
    /// Reserved but not allocated.
    pub cached_bytes: u64,
    /// Most bytes reserved at any time.
    pub peak_reserved_bytes: u64,
    /// Most bytes allocated, as seen by the pool's slow path and by `stats` calls.
    pub peak_allocated_bytes: u64,
    /// Allocations served from cached blocks.
    pub hits: u64,
    /// Allocations that needed new blocks or segments.
    pub misses: u64,
    /// Live segments.
    pub segments: u64,
    /// Per peer device: segment bytes resident there, bytes of live blocks used there, and the
    /// difference (collateral residency).
    pub peers: Vec<PeerResidency>,
}

/// Peer residency of a pool's segments on one device.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PeerResidency {
    /// The peer's index.
    pub device: u32,
    /// Segment bytes resident on it.
    pub resident_bytes: u64,
    /// Bytes of live blocks used on it.
    pub shared_bytes: u64,
    /// `resident_bytes - shared_bytes`: residency the segment granularity added.
    pub collateral_bytes: u64,
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
    arenas: Box<[OnceLock<Arena>]>,
    arena_index: Mutex<HashMap<DeviceSet, u8>>,
    segments: RwLock<SegmentTable>,
    deferred: Mutex<Vec<Deferred>>,
    named: Mutex<HashMap<usize, (String, usize)>>,
    /// Bytes of live blocks, counted per shard of the thread that allocated or freed them and
    /// summed on demand: one shared counter would make threads contend on every hit.
    allocated: [AtomicI64Padded; SHARDS],
    reserved: AtomicU64,
    peak_reserved: AtomicU64,
    peak_allocated: AtomicU64,
    shared_bytes: Vec<AtomicU64>,
}

#[repr(align(128))]
#[derive(Default)]
struct AtomicI64Padded(std::sync::atomic::AtomicI64);

impl std::fmt::Debug for DevicePool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DevicePool")
            .field("device", &self.owner)
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

/// A block of a [`DevicePool`]: device memory that returns to the pool when dropped.
///
/// Blocks are [`Resident`] like `DeviceAllocation`s: copies and residency calls of the
/// [`ResidencyManager`] take them, and act on their segment.
pub struct Block<'pool> {
    pool: &'pool DevicePool,
    address: usize,
    size: usize,
    capacity: usize,
    segment: u32,
    arena: u8,
    class: u16,
    named: bool,
    /// Handed to the pool's deferred list: `Drop` has nothing left to do.
    deferred: bool,
    peers: AtomicU64,
    segment_ref: OnceLock<Arc<Segment>>,
}

impl std::fmt::Debug for Block<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Block")
            .field("address", &format_args!("{:#x}", self.address))
            .field("size", &self.size)
            .field("capacity", &self.capacity)
            .finish_non_exhaustive()
    }
}

impl AllocationView for Block<'_> {
    fn address(&self) -> usize {
        self.address
    }
    fn size(&self) -> usize {
        self.size
    }
    fn context(&self) -> &Context {
        self.pool.manager.context()
    }
    fn kind(&self) -> MemoryKind {
        MemoryKind::Device
    }
    fn device(&self) -> Option<&Device> {
        Some(&self.pool.device)
    }
    fn alignment(&self) -> usize {
        GRANULE
    }
}

impl sealed::Sealed for Block<'_> {}

impl Memory for Block<'_> {
    fn allocation(&self) -> &dyn AllocationView {
        self
    }

    fn as_resident(&self) -> Option<&dyn Resident> {
        Some(self)
    }
}

impl Resident for Block<'_> {
    fn residency(&self) -> ResidencyHandle<'_> {
        self.segment_ref
            .get_or_init(|| self.pool.segment(self.segment))
            .allocation
            .residency()
    }

    fn note_peer_use(&self, device: u32) -> bool {
        let bit = 1u64 << device;
        // One read-modify-write decides both: whether this peer is new to the block, and
        // whether it is the block's first peer (which makes the block count as shared).
        let before = self.peers.fetch_or(bit, Ordering::AcqRel);
        if before & bit == 0 {
            if before == 0 {
                // Sequentially consistent: ordered against trim's clear of the resident bit.
                self.pool
                    .segment(self.segment)
                    .shared_blocks
                    .fetch_add(1, Ordering::SeqCst);
            }
            self.pool.shared_bytes[device as usize].fetch_add(self.size as u64, Ordering::AcqRel);
        }
        // The segment now counts this block as shared, which trim weighs.
        true
    }
}

impl Block<'_> {
    /// Bytes the block really occupies (its size rounded up to its class or granule).
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// let manager = ResidencyManager::new(Context::new(&devices)?, ResidencyConfig::default())?;
    /// let pool = DevicePool::new(&manager, &devices[0], PoolConfig::default())?;
    /// assert_eq!(pool.allocate(1000)?.capacity(), 1024);
    /// # Ok::<(), Error>(())
    /// ```
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// Forgets the block's name; its memory is then the caller's to return (its sharing is
    /// forgotten by whoever returns it).
    fn retire(&mut self) -> Slot {
        if self.named {
            lock(&self.pool.named).remove(&self.address);
        }
        Slot {
            address: self.address,
            segment: self.segment,
        }
    }
}

impl Drop for Block<'_> {
    fn drop(&mut self) {
        if self.deferred {
            return;
        }
        let slot = self.retire();
        self.pool
            .forget_sharing(self.segment, self.peers.load(Ordering::Acquire), self.size);
        self.pool
            .release(slot, self.arena, self.class, self.capacity);
    }
}

impl Block<'_> {
    /// Detaches the block from the pool's borrow (see [`DetachedBlock`]).
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// let manager = ResidencyManager::new(Context::new(&devices)?, ResidencyConfig::default())?;
    /// let pool = DevicePool::new(&manager, &devices[0], PoolConfig::default())?;
    /// let detached = pool.allocate(1000)?.detach();
    /// assert_eq!(pool.stats().allocated_bytes, 1024, "still in use");
    /// drop(pool.attach(detached)?);
    /// assert_eq!(pool.stats().allocated_bytes, 0);
    /// # Ok::<(), Error>(())
    /// ```
    pub fn detach(self) -> DetachedBlock {
        let mut block = std::mem::ManuallyDrop::new(self);
        // The one field that owns something; the rest are plain values.
        drop(block.segment_ref.take());
        DetachedBlock {
            pool: block.pool.id(),
            address: block.address,
            size: block.size,
            capacity: block.capacity,
            segment: block.segment,
            arena: block.arena,
            class: block.class,
            named: block.named,
            peers: block.peers.load(Ordering::Acquire),
        }
    }
}

impl crate::ze::command::Deferrable for Block<'_> {
    /// Returns the block to the pool once `work` has completed, not before.
    fn defer(self, work: Arc<Completion>) {
        self.free_after(work);
    }
}

impl Block<'_> {
    /// Returns the block to the pool once `work` has completed, not before, without waiting.
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # use std::sync::{Arc, atomic::{AtomicBool, Ordering}};
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// struct Flag(AtomicBool);
    /// impl WorkFence for Flag {
    ///     fn is_complete(&self) -> bool { self.0.load(Ordering::Acquire) }
    /// }
    /// let manager = ResidencyManager::new(Context::new(&devices)?, ResidencyConfig::default())?;
    /// let pool = DevicePool::new(&manager, &devices[0], PoolConfig::default())?;
    /// let block = pool.allocate(1000)?;
    /// let address = block.address();
    /// let work = Arc::new(Flag(AtomicBool::new(false)));
    /// block.free_after(work.clone());
    /// assert_ne!(pool.allocate(1000)?.address(), address, "not reused under running work");
    /// work.0.store(true, Ordering::Release);
    /// pool.reclaim();
    /// assert_eq!(pool.allocate(1000)?.address(), address);
    /// # Ok::<(), Error>(())
    /// ```
    pub fn free_after(mut self, work: Arc<dyn WorkFence>) {
        let slot = self.retire();
        self.deferred = true;
        lock(&self.pool.deferred).push(Deferred {
            slot,
            arena: self.arena,
            class: self.class,
            capacity: self.capacity,
            peers: self.peers.load(Ordering::Acquire),
            size: self.size,
            work,
        });
    }
}

impl DevicePool {
    /// Forgets a returned block's sharing with `peers` (its size `size`): the segment no longer
    /// counts it, so trim may evict the segment from them.
    fn forget_sharing(&self, segment: u32, peers: u64, size: usize) {
        let peers = DeviceSet::from_bits(peers);
        if peers.is_empty() {
            return;
        }
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

    /// Takes back a block [`Block::detach`] made; refuses one of another pool.
    pub fn attach(&self, detached: DetachedBlock) -> Result<Block<'_>> {
        if detached.pool != self.id() {
            return Err(Error::ForeignMemory {
                address: detached.address,
                len: detached.size,
                owner: "another pool",
            });
        }
        Ok(Block {
            pool: self,
            address: detached.address,
            size: detached.size,
            capacity: detached.capacity,
            segment: detached.segment,
            arena: detached.arena,
            class: detached.class,
            named: detached.named,
            deferred: false,
            peers: AtomicU64::new(detached.peers),
            segment_ref: OnceLock::new(),
        })
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
            arenas: (0..MAX_ARENAS).map(|_| OnceLock::new()).collect(),
            arena_index: Mutex::new(HashMap::new()),
            segments: RwLock::new(SegmentTable::default()),
            deferred: Mutex::new(Vec::new()),
            named: Mutex::new(HashMap::new()),
            allocated: Default::default(),
            reserved: AtomicU64::new(0),
            peak_reserved: AtomicU64::new(0),
            peak_allocated: AtomicU64::new(0),
            shared_bytes: (0..devices).map(|_| AtomicU64::new(0)).collect(),
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
        let classes = (0..class_count(self.config.small_max))
            .map(|index| Class {
                size: class_size(index),
                shards: (0..SHARDS).map(|_| Shard::default()).collect(),
                carve: Mutex::new(Carve {
                    segment: 0,
                    next: 0,
                    end: 0,
                    made: 0,
                }),
                grow: Mutex::new(()),
            })
            .collect();
        Arena {
            peers,
            classes,
            large: Mutex::new(LargeHeap::default()),
        }
    }

    /// The arena for blocks that `peers` will use (index 0: no peers).
    fn arena(&self, peers: DeviceSet) -> Result<u8> {
        if peers.is_empty()
            && let Some(_) = self.arenas[0].get()
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
        let _ = self.arenas[next].set(self.new_arena(peers));
        index.insert(peers, next as u8);
        Ok(next as u8)
    }

    fn arena_ref(&self, index: u8) -> &Arena {
        self.arenas[index as usize]
            .get()
            .expect("arenas are set before they are indexed")
    }

    fn segment(&self, index: u32) -> Arc<Segment> {
        let table = self
            .segments
            .read()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        Arc::clone(
            table.segments[index as usize]
                .as_ref()
                .expect("a live block's segment is live"),
        )
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

    fn block(&self, slot: Slot, size: usize, capacity: usize, arena: u8, class: u16) -> Block<'_> {
        Block {
            pool: self,
            address: slot.address,
            size,
            capacity,
            segment: slot.segment,
            arena,
            class,
            named: false,
            deferred: false,
            peers: AtomicU64::new(0),
            segment_ref: OnceLock::new(),
        }
    }

    fn count_allocated(&self, shard: usize, bytes: i64) {
        self.allocated[shard].0.fetch_add(bytes, Ordering::Relaxed);
    }

    /// [`DevicePool::try_allocate_in`], and while the device stays out of memory and blocks
    /// wait on work ([`Block::free_after`]), again as that work completes and they come back
    /// (free lists first), for up to [`PoolConfig::out_of_memory_wait`] (as PyTorch's allocator
    /// syncs its streams' events before it reports out of memory).
    fn allocate_in(&self, size: usize, arena: u8) -> Result<Block<'_>> {
        let mut deadline = None;
        let mut pause = std::time::Duration::from_micros(10);
        loop {
            let error = match self.try_allocate_in(size, arena) {
                Err(error @ Error::OutOfDeviceMemory { .. }) => error,
                other => return other,
            };
            let now = std::time::Instant::now();
            let deadline = *deadline.get_or_insert(now + self.config.out_of_memory_wait);
            if lock(&self.deferred).is_empty() || now >= deadline {
                return Err(error);
            }
            std::thread::sleep(pause);
            pause = (pause * 2).min(std::time::Duration::from_millis(1));
            if self.reclaim_deferred() > 0 {
                self.release_idle_segments();
            }
        }
    }

    fn try_allocate_in(&self, size: usize, arena: u8) -> Result<Block<'_>> {
        if size == 0 {
            return Err(Error::invalid("allocation size is 0"));
        }
        let shard_index = thread_shard();
        if size <= self.config.small_max {
            let class = class_index(size);
            let capacity = class_size(class);
            let shard = &self.arena_ref(arena).classes[class].shards[shard_index];
            {
                let mut shard = lock(&shard.0);
                if let Some(slot) = shard.slots.pop() {
                    shard.hits += 1;
                    drop(shard);
                    self.count_allocated(shard_index, capacity as i64);
                    return Ok(self.block(slot, size, capacity, arena, class as u16));
                }
                shard.misses += 1;
            }
            let slot = self.small_miss(arena, class)?;
            self.count_allocated(shard_index, capacity as i64);
            self.note_peak();
            return Ok(self.block(slot, size, capacity, arena, class as u16));
        }
        let capacity = size
            .checked_next_multiple_of(GRANULE)
            .ok_or(Error::SizeOverflow {
                what: "a pool block",
                size,
            })?;
        let (slot, class) = if size > self.config.dedicated_threshold {
            let (slot, _) = self.new_segment(arena, capacity)?;
            (slot, DEDICATED)
        } else {
            (self.large_allocate(arena, capacity)?, LARGE)
        };
        self.count_allocated(shard_index, capacity as i64);
        self.note_peak();
        Ok(self.block(slot, size, capacity, arena, class))
    }

    fn small_miss(&self, arena: u8, class: usize) -> Result<Slot> {
        self.reclaim_deferred();
        let classes = &self.arena_ref(arena).classes;
        // Blocks another thread freed sit in its shard: take one before carving.
        for shard in classes[class].shards.iter() {
            if let Some(slot) = lock(&shard.0).slots.pop() {
                return Ok(slot);
            }
        }
        let class = &classes[class];
        let size = class.size;
        if let Some(slot) = carve_one(&mut lock(&class.carve), size) {
            return Ok(slot);
        }
        // One thread grows the class at a time; the carve lock is released while the segment
        // is made, because making one may release idle segments, which takes every carve lock.
        let _grow = lock(&class.grow);
        let made = {
            let carve = lock(&class.carve);
            if carve.next + size <= carve.end {
                None
            } else {
                Some(carve.made)
            }
        };
        let Some(made) = made else {
            // Another thread grew it while this one waited.
            return carve_one(&mut lock(&class.carve), size)
                .ok_or_else(|| Error::Internal("a grown class has no block to carve".into()));
        };
        // Four blocks first, then twice as many each time, up to the configured segment size:
        // a class used a little costs a little.
        let blocks = 4usize << made.min(16);
        let segment_size = (blocks * size)
            .min(self.config.small_segment.max(4 * size))
            .next_multiple_of(GRANULE);
        let (slot, _) = self.new_segment(arena, segment_size)?;
        *lock(&class.carve) = Carve {
            segment: slot.segment,
            next: slot.address + size,
            end: slot.address + segment_size - segment_size % size,
            made: made + 1,
        };
        Ok(slot)
    }

    fn large_allocate(&self, arena: u8, capacity: usize) -> Result<Slot> {
        self.reclaim_deferred();
        let heap = &self.arena_ref(arena).large;
        if let Some((address, segment)) = lock(heap).allocate(capacity) {
            return Ok(Slot { address, segment });
        }
        // Segments others will read are smaller: their free space is peer residency nobody
        // uses (collateral), so it is kept small, and they are released as soon as they empty.
        let hinted = !self.arena_ref(arena).peers.is_empty();
        let target = if hinted {
            (self.config.large_segment / 8).max(SEGMENT_ROUNDING)
        } else {
            self.config.large_segment
        };
        // A request of more than half a segment gets a segment of its own size (rounded to
        // 2 MiB): a shared one would leave a hole only smaller requests could use.
        let segment_size = if capacity > target / 2 {
            capacity
                .checked_next_multiple_of(SEGMENT_ROUNDING)
                .ok_or(Error::SizeOverflow {
                    what: "a pool segment",
                    size: capacity,
                })?
        } else {
            target
        };
        let (slot, _) = self.new_segment(arena, segment_size)?;
        let mut heap = lock(heap);
        heap.add_segment(slot.segment, slot.address, segment_size);
        let (address, segment) = heap.allocate(capacity).ok_or_else(|| {
            Error::Internal("a fresh large segment cannot hold its request".into())
        })?;
        Ok(Slot { address, segment })
    }

    /// Allocates a segment (releasing idle cached ones and retrying once when the device is out
    /// of memory), places it by the arena's peers, and registers it.
    fn new_segment(&self, arena: u8, size: usize) -> Result<(Slot, u32)> {
        if let Some(cap) = self.config.max_cached_bytes
            && self.cached_bytes() > cap
        {
            self.release_idle_segments();
        }
        let policy = self.manager.config().policy;
        let allocate = || {
            self.manager
                .allocate_aligned(&self.device, size, policy, SEGMENT_ALIGNMENT)
        };
        let allocation = match allocate() {
            Err(Error::OutOfDeviceMemory { .. }) => {
                log::info!(
                    "lazy-usm pool: device {} out of memory; releasing cached segments",
                    self.owner
                );
                self.reclaim_deferred();
                self.release_idle_segments();
                allocate()?
            }
            other => other?,
        };
        allocation.state.pooled.store(true, Ordering::Release);
        for peer in self.arena_ref(arena).peers.iter() {
            self.manager.ensure_resident_on(
                &allocation,
                &self.manager.context().devices()[peer as usize],
            )?;
        }
        let address = allocation.address();
        let segment = Arc::new(Segment {
            allocation,
            arena,
            shared_blocks: AtomicU32::new(0),
        });
        let index = {
            let mut table = self
                .segments
                .write()
                .unwrap_or_else(|poisoned| poisoned.into_inner());
            match table.free.pop() {
                Some(index) => {
                    table.segments[index as usize] = Some(segment);
                    index
                }
                None => {
                    table.segments.push(Some(segment));
                    (table.segments.len() - 1) as u32
                }
            }
        };
        let reserved = self.reserved.fetch_add(size as u64, Ordering::AcqRel) + size as u64;
        self.peak_reserved.fetch_max(reserved, Ordering::AcqRel);
        Ok((
            Slot {
                address,
                segment: index,
            },
            index,
        ))
    }

    /// Forgets segment `index` (freed once no block holds it); returns its size.
    fn drop_segment(&self, index: u32) -> u64 {
        let removed = {
            let mut table = self
                .segments
                .write()
                .unwrap_or_else(|poisoned| poisoned.into_inner());
            let removed = table.segments[index as usize].take();
            if removed.is_some() {
                table.free.push(index);
            }
            removed
        };
        let size = removed.map_or(0, |segment| segment.allocation.len() as u64);
        self.reserved.fetch_sub(size, Ordering::AcqRel);
        size
    }

    fn release(&self, slot: Slot, arena: u8, class: u16, capacity: usize) {
        let shard_index = thread_shard();
        match class {
            DEDICATED => {
                self.drop_segment(slot.segment);
            }
            LARGE => {
                let arena = self.arena_ref(arena);
                let mut heap = lock(&arena.large);
                heap.free(slot.address);
                if !arena.peers.is_empty() && heap.segment_idle(slot.segment) {
                    heap.remove_segment(slot.segment);
                    drop(heap);
                    self.drop_segment(slot.segment);
                }
            }
            class => {
                let shard = &self.arena_ref(arena).classes[class as usize].shards[shard_index];
                lock(&shard.0).slots.push(slot);
            }
        }
        self.count_allocated(shard_index, -(capacity as i64));
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
        let ready: Vec<Deferred> = {
            let mut deferred = lock(&self.deferred);
            if deferred.is_empty() {
                return 0;
            }
            let (ready, waiting) = std::mem::take(&mut *deferred)
                .into_iter()
                .partition(|entry| entry.work.is_complete());
            *deferred = waiting;
            ready
        };
        let count = ready.len();
        for entry in ready {
            self.forget_sharing(entry.slot.segment, entry.peers, entry.size);
            self.release(entry.slot, entry.arena, entry.class, entry.capacity);
        }
        count
    }

    fn allocated_bytes(&self) -> u64 {
        let sum: i64 = self
            .allocated
            .iter()
            .map(|counter| counter.0.load(Ordering::Relaxed))
            .sum();
        sum.max(0) as u64
    }

    fn note_peak(&self) {
        self.peak_allocated
            .fetch_max(self.allocated_bytes(), Ordering::AcqRel);
    }

    fn cached_bytes(&self) -> u64 {
        self.reserved
            .load(Ordering::Acquire)
            .saturating_sub(self.allocated_bytes())
    }

    /// Releases segments no live block uses; returns the bytes released.
    fn release_idle_segments(&self) -> u64 {
        let mut idle: Vec<u32> = Vec::new();
        for arena in self.arenas.iter().filter_map(OnceLock::get) {
            for class in arena.classes.iter() {
                idle.extend(self.take_idle_small_segments(class));
            }
            let mut heap = lock(&arena.large);
            for segment in heap.idle_segments() {
                heap.remove_segment(segment);
                idle.push(segment);
            }
        }
        idle.into_iter()
            .map(|segment| self.drop_segment(segment))
            .sum()
    }

    /// The class's segments whose every carved block is free again, with their blocks taken
    /// out of the free lists.
    fn take_idle_small_segments(&self, class: &Class) -> Vec<u32> {
        let mut carve = lock(&class.carve);
        let mut shards: Vec<_> = class.shards.iter().map(|shard| lock(&shard.0)).collect();
        let mut free: HashMap<u32, usize> = HashMap::new();
        for slot in shards.iter().flat_map(|shard| shard.slots.iter()) {
            *free.entry(slot.segment).or_default() += 1;
        }
        // Blocks carved so far: all of a full segment, up to the cursor of the current one.
        let carved = |index: u32, segment: &Segment| -> usize {
            let base = segment.allocation.address();
            if carve.end > 0 && carve.segment == index {
                (carve.next - base) / class.size
            } else {
                segment.allocation.len() / class.size
            }
        };
        let empty: Vec<u32> = {
            let table = self
                .segments
                .read()
                .unwrap_or_else(|poisoned| poisoned.into_inner());
            free.iter()
                .filter(|&(&index, &count)| {
                    table.segments[index as usize]
                        .as_ref()
                        .is_some_and(|segment| count == carved(index, segment))
                })
                .map(|(&index, _)| index)
                .collect()
        };
        for shard in shards.iter_mut() {
            shard.slots.retain(|slot| !empty.contains(&slot.segment));
        }
        if carve.end > 0 && empty.contains(&carve.segment) {
            carve.next = 0;
            carve.end = 0;
        }
        empty
    }

    /// Releases idle segments and the peer residency of segments no live shared block needs
    /// (outside hinted arenas, which keep theirs); returns the bytes of segments released.
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
        let released = self.release_idle_segments();
        let segments = self.live_segments();
        let devices = self.manager.context().devices();
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
                self.manager.try_evict_unless(
                    &segment.allocation,
                    &devices[peer as usize],
                    &shared,
                )?;
            }
        }
        Ok(released)
    }

    fn live_segments(&self) -> Vec<Arc<Segment>> {
        let table = self
            .segments
            .read()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        table.segments.iter().flatten().cloned().collect()
    }

    /// Current statistics.
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// let manager = ResidencyManager::new(Context::new(&devices)?, ResidencyConfig::default())?;
    /// let pool = DevicePool::new(&manager, &devices[0], PoolConfig::default())?;
    /// let _block = pool.allocate(4096)?;
    /// let stats = pool.stats();
    /// assert_eq!((stats.allocated_bytes, stats.misses), (4096, 1));
    /// # Ok::<(), Error>(())
    /// ```
    pub fn stats(&self) -> PoolStats {
        self.note_peak();
        let (mut hits, mut misses) = (0, 0);
        for arena in self.arenas.iter().filter_map(OnceLock::get) {
            for class in arena.classes.iter() {
                for shard in class.shards.iter() {
                    let shard = lock(&shard.0);
                    hits += shard.hits;
                    misses += shard.misses;
                }
            }
        }
        let segments = self.live_segments();
        let allocated = self.allocated_bytes();
        let reserved = self.reserved.load(Ordering::Acquire);
        let peers = (0..self.shared_bytes.len() as u32)
            .filter(|&device| device != self.owner)
            .map(|device| {
                let resident_bytes: u64 = segments
                    .iter()
                    .filter(|segment| segment.allocation.resident().contains(device))
                    .map(|segment| segment.allocation.len() as u64)
                    .sum();
                let shared_bytes = self.shared_bytes[device as usize].load(Ordering::Acquire);
                PeerResidency {
                    device,
                    resident_bytes,
                    shared_bytes,
                    collateral_bytes: resident_bytes.saturating_sub(shared_bytes),
                }
            })
            .collect();
        PoolStats {
            device: self.owner,
            allocated_bytes: allocated,
            reserved_bytes: reserved,
            cached_bytes: reserved.saturating_sub(allocated),
            peak_reserved_bytes: self.peak_reserved.load(Ordering::Acquire),
            peak_allocated_bytes: self.peak_allocated.load(Ordering::Acquire).max(allocated),
            hits,
            misses,
            segments: segments.len() as u64,
            peers,
        }
    }

    /// A readable summary: the statistics and the largest named live blocks.
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// let manager = ResidencyManager::new(Context::new(&devices)?, ResidencyConfig::default())?;
    /// let pool = DevicePool::new(&manager, &devices[0], PoolConfig::default())?;
    /// assert!(pool.report(10).starts_with("device 0:"));
    /// # Ok::<(), Error>(())
    /// ```
    pub fn report(&self, largest: usize) -> String {
        use std::fmt::Write;
        let stats = self.stats();
        let mib = |bytes: u64| bytes as f64 / (1 << 20) as f64;
        let mut text = String::new();
        let _ = writeln!(
            text,
            "device {}: {:.1} MiB allocated, {:.1} MiB reserved ({:.1} MiB cached, peak {:.1} MiB), \
             {} segments, {} hits / {} misses",
            stats.device,
            mib(stats.allocated_bytes),
            mib(stats.reserved_bytes),
            mib(stats.cached_bytes),
            mib(stats.peak_reserved_bytes),
            stats.segments,
            stats.hits,
            stats.misses
        );
        for peer in &stats.peers {
            let _ = writeln!(
                text,
                "  resident on device {}: {:.1} MiB ({:.1} MiB shared, {:.1} MiB collateral)",
                peer.device,
                mib(peer.resident_bytes),
                mib(peer.shared_bytes),
                mib(peer.collateral_bytes)
            );
        }
        let mut named: Vec<(String, usize, usize)> = lock(&self.named)
            .iter()
            .map(|(&address, (name, size))| (name.clone(), *size, address))
            .collect();
        named.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        for (name, size, address) in named.into_iter().take(largest) {
            let _ = writeln!(text, "  {size:>12} B  {name}  at {address:#x}");
        }
        text
    }
}

impl Drop for DevicePool {
    fn drop(&mut self) {
        // Deferred blocks may still be written by the device: wait before segments go. A
        // segment whose work cannot be waited for is leaked, never freed under the device.
        let unsettled: Vec<u32> = lock(&self.deferred)
            .drain(..)
            .filter_map(|entry| {
                let error = entry.work.settle().err()?;
                self.manager.context().record_drop_error(error);
                Some(entry.slot.segment)
            })
            .collect();
        let mut table = self
            .segments
            .write()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        for index in unsettled {
            if let Some(segment) = table
                .segments
                .get_mut(index as usize)
                .and_then(Option::take)
            {
                log::error!(
                    "lazy-usm pool: leaking a {}-byte segment whose pending work cannot be waited for",
                    segment.allocation.len()
                );
                std::mem::forget(segment);
            }
        }
    }
}
