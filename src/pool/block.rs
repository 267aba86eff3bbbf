//! Blocks handed out by a pool: owned ([`Block`], returned when dropped, or once work completes)
//! and detached ([`DetachedBlock`], for callers that keep blocks by address).

use super::classes::GRANULE;
use super::fence::{Deferred, WorkFence};
use super::{DevicePool, Segment, Slot, lock};
use crate::error::{Error, Result};
use crate::residency::{DeviceAllocation, ResidencyHandle, Resident};
use crate::ze::command::Completion;
use crate::ze::context::Context;
use crate::ze::device::Device;
use crate::ze::memory::{AllocationView, Memory, MemoryKind, sealed};
use crate::ze::uses::{HeldUse, Tracked, UseTracking};
use std::any::Any;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

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

/// A block of a [`DevicePool`]: device memory that returns to the pool when dropped.
///
/// Blocks are [`Resident`] like `DeviceAllocation`s: copies and residency calls of the
/// [`ResidencyManager`](crate::ResidencyManager) take them, and act on their segment.
pub struct Block<'pool> {
    pub(super) pool: &'pool DevicePool,
    pub(super) address: usize,
    pub(super) size: usize,
    pub(super) capacity: usize,
    pub(super) segment: u32,
    pub(super) arena: u8,
    pub(super) class: u16,
    pub(super) named: bool,
    pub(super) peers: AtomicU64,
    pub(super) segment_ref: OnceLock<Arc<Segment>>,
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

    fn use_tracking(&self) -> Option<Tracked<'_>> {
        Some(Tracked::new(self))
    }
}

impl UseTracking for Block<'_> {
    fn begin_use(&self) {
        self.segment_allocation().begin_use();
    }

    fn end_use(&self) {
        self.segment_allocation().end_use();
    }

    fn hold_use(&self) -> HeldUse {
        self.segment_allocation().hold_use()
    }

    fn record(&self) -> &dyn Any {
        self.segment_allocation()
    }

    fn note_use_on(&self, device: u32) -> bool {
        self.note_peer_use(device)
    }
}

impl Resident for Block<'_> {
    fn residency(&self) -> ResidencyHandle<'_> {
        self.segment_allocation().residency()
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
    /// The allocation of the segment the block lies in (it carries the block's residency).
    fn segment_allocation(&self) -> &DeviceAllocation {
        &self
            .segment_ref
            .get_or_init(|| self.pool.segment(self.segment))
            .allocation
    }

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

    /// The block with its `Drop` disarmed, for a caller that returns it another way, and its
    /// segment reference dropped: the one field that owns something (the rest are values).
    fn disarm(self) -> std::mem::ManuallyDrop<Self> {
        let mut block = std::mem::ManuallyDrop::new(self);
        drop(block.segment_ref.take());
        block
    }

    /// Forgets the block's name; its memory is then the caller's to return (its sharing is
    /// forgotten by whoever returns it).
    #[inline]
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
    #[inline]
    fn drop(&mut self) {
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
        let block = self.disarm();
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
    pub fn free_after(self, work: Arc<dyn WorkFence>) {
        // The deferred list returns the block later, so `Drop` must not run. Not a "deferred"
        // flag for `Drop` to check: a lone byte in the block's last word made moving a fresh
        // block slower (a stalled store-to-load forward, we think).
        let mut block = self.disarm();
        let slot = block.retire();
        let mut deferred = lock(&block.pool.deferred);
        deferred.push(Deferred {
            slot,
            arena: block.arena,
            class: block.class,
            capacity: block.capacity,
            peers: block.peers.load(Ordering::Acquire),
            size: block.size,
            work,
        });
        block
            .pool
            .deferred_blocks
            .store(deferred.len(), Ordering::Release);
    }
}

impl DevicePool {
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
            peers: AtomicU64::new(detached.peers),
            segment_ref: OnceLock::new(),
        })
    }

    #[inline]
    pub(super) fn block(
        &self,
        slot: Slot,
        size: usize,
        capacity: usize,
        arena: u8,
        class: u16,
    ) -> Block<'_> {
        Block {
            pool: self,
            address: slot.address,
            size,
            capacity,
            segment: slot.segment,
            arena,
            class,
            named: false,
            peers: AtomicU64::new(0),
            segment_ref: OnceLock::new(),
        }
    }
}
