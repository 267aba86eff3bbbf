//! The pool's segments: device allocations of the residency manager, each whole segment
//! resident where any of its blocks is used, found by index from blocks and free lists.

use super::thread_cache::steal_idle_caches;
use super::{DevicePool, SEGMENT_ALIGNMENT, Slot, lock};
use crate::error::{Error, Result};
use crate::residency::DeviceAllocation;
use crate::ze::memory::Memory;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, OnceLock};

/// How a segment is divided into blocks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Layout {
    /// Blocks of one class, carved one after another from the segment's start.
    Class { block: usize },
    /// Best-fit ranges of its arena's large heap.
    Large,
    /// One block, the whole segment.
    Dedicated,
}

/// One segment.
pub(super) struct Segment {
    pub allocation: DeviceAllocation,
    pub arena: u8,
    pub layout: Layout,
    /// Live blocks of the segment that were used on a peer.
    pub shared_blocks: AtomicU32,
}

#[derive(Default)]
pub(super) struct SegmentTable {
    pub segments: Vec<Option<Arc<Segment>>>,
    pub free: Vec<u32>,
    /// Live segments by start address, for [`DevicePool::block_containing`].
    pub by_base: BTreeMap<usize, u32>,
}

impl DevicePool {
    pub(super) fn segment(&self, index: u32) -> Arc<Segment> {
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

    /// Allocates a segment (releasing idle cached ones and retrying once when the device is out
    /// of memory), places it by the arena's peers, and registers it.
    pub(super) fn new_segment(
        &self,
        arena: u8,
        size: usize,
        layout: Layout,
    ) -> Result<(Slot, u32)> {
        if let Some(cap) = self.config.max_cached_bytes
            && self.cached_bytes() > cap
        {
            // Only this thread's cache: asking every thread at each new segment would empty
            // every cache while the pool is above its cap.
            self.release_idle_segments(false);
        }
        let policy = self.manager.config().policy;
        let allocate = || {
            self.manager
                .allocate_aligned(&self.device, size, policy, SEGMENT_ALIGNMENT)
        };
        let allocation = match allocate() {
            Err(Error::OutOfDeviceMemory { .. }) => {
                self.allocation_retries.fetch_add(1, Ordering::Relaxed);
                log::info!(
                    "lazy-usm pool: device {} out of memory; releasing cached segments",
                    self.owner
                );
                self.reclaim_deferred();
                // Idle threads' caches now, not at their next call, which may never come.
                steal_idle_caches(&self.shared);
                self.release_idle_segments(true);
                allocate()?
            }
            other => other?,
        };
        self.driver_allocations.fetch_add(1, Ordering::Relaxed);
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
            layout,
            shared_blocks: AtomicU32::new(0),
        });
        let index = {
            let mut table = self
                .segments
                .write()
                .unwrap_or_else(|poisoned| poisoned.into_inner());
            let index = match table.free.pop() {
                Some(index) => {
                    table.segments[index as usize] = Some(segment);
                    index
                }
                None => {
                    table.segments.push(Some(segment));
                    (table.segments.len() - 1) as u32
                }
            };
            table.by_base.insert(address, index);
            index
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

    /// The slot holding `address` in this pool's segments, as a start and a length: a class
    /// segment's block (handed out, free, or not carved yet), a large segment's range (a block,
    /// or a free range, merged with its free neighbours), or a dedicated segment whole. What is
    /// handed out there is the caller's to know. `None` outside every live segment and in the
    /// tail of a class segment too short for a block. For callers that keep blocks by address
    /// and are asked about interior pointers.
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// let manager = ResidencyManager::new(Context::new(&devices)?, ResidencyConfig::default())?;
    /// let pool = DevicePool::new(&manager, &devices[0], PoolConfig::default())?;
    /// let block = pool.allocate(1000)?;
    /// assert_eq!(pool.block_containing(block.address() + 999), Some((block.address(), 1024)));
    /// assert_eq!(pool.block_containing(0x10), None);
    /// # Ok::<(), Error>(())
    /// ```
    pub fn block_containing(&self, address: usize) -> Option<(usize, usize)> {
        let segment = {
            let table = self
                .segments
                .read()
                .unwrap_or_else(|poisoned| poisoned.into_inner());
            let (_, &index) = table.by_base.range(..=address).next_back()?;
            Arc::clone(table.segments.get(index as usize)?.as_ref()?)
        };
        let (base, len) = (segment.allocation.address(), segment.allocation.len());
        // Checked, though the index holds each live segment at its own start: an address
        // below or past the segment found is in none.
        let offset = address.checked_sub(base).filter(|&offset| offset < len)?;
        match segment.layout {
            Layout::Class { block } => {
                let start = offset / block * block;
                (start + block <= len).then_some((base + start, block))
            }
            Layout::Dedicated => Some((base, len)),
            // The heap alone, as the lock order asks (the table's lock was let go above).
            Layout::Large => lock(&self.arena_ref(segment.arena).large).range_containing(address),
        }
    }

    /// Forgets segment `index` (freed once no block holds it); returns its size.
    pub(super) fn drop_segment(&self, index: u32) -> u64 {
        let removed = {
            let mut table = self
                .segments
                .write()
                .unwrap_or_else(|poisoned| poisoned.into_inner());
            let removed = table.segments[index as usize].take();
            if let Some(segment) = &removed {
                self.driver_frees.fetch_add(1, Ordering::Relaxed);
                table.free.push(index);
                table.by_base.remove(&segment.allocation.address());
            }
            removed
        };
        let size = removed.map_or(0, |segment| segment.allocation.len() as u64);
        self.reserved.fetch_sub(size, Ordering::AcqRel);
        size
    }

    pub(super) fn live_segments(&self) -> Vec<Arc<Segment>> {
        let table = self
            .segments
            .read()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        table.segments.iter().flatten().cloned().collect()
    }

    /// Releases segments no live block uses; returns the bytes released.
    /// `ask_others`: also ask every other thread's cache to come back (at its next call);
    /// this thread's always does.
    pub(super) fn release_idle_segments(&self, ask_others: bool) -> u64 {
        // Blocks in threads' caches keep their segments.
        self.flush_thread_caches(ask_others);
        let mut idle: Vec<u32> = Vec::new();
        for arena in self.shared.arenas.iter().filter_map(OnceLock::get) {
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
}

#[cfg(test)]
mod tests {
    use crate::{Context, DevicePool, PoolConfig, ResidencyConfig, ResidencyManager, Runtime};

    /// The index by address holds exactly the live segments: one entry per segment made, none
    /// left for a released one.
    #[test]
    fn the_index_by_address_follows_segments_made_and_released() {
        let devices = Runtime::simulated("b70x2").unwrap().devices().unwrap();
        let manager =
            ResidencyManager::new(Context::new(&devices).unwrap(), ResidencyConfig::default())
                .unwrap();
        let pool = DevicePool::new(&manager, &devices[0], PoolConfig::default()).unwrap();
        let indexed = || pool.segments.read().unwrap().by_base.len();
        let dedicated = pool.allocate(70 << 20).unwrap();
        let small = pool.allocate(100).unwrap();
        assert_eq!(indexed(), 2);
        drop(dedicated);
        assert_eq!(indexed(), 1, "a dedicated segment goes with its block");
        drop(small);
        pool.trim().unwrap();
        assert_eq!(indexed(), 0);
    }
}
