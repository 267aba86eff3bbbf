//! The pool's segments: device allocations of the residency manager, each whole segment
//! resident where any of its blocks is used, found by index from blocks and free lists.

use super::{DevicePool, SEGMENT_ALIGNMENT, Slot, lock};
use crate::error::{Error, Result};
use crate::residency::DeviceAllocation;
use crate::ze::memory::Memory;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, OnceLock};

/// One segment.
pub(super) struct Segment {
    pub allocation: DeviceAllocation,
    pub arena: u8,
    /// Live blocks of the segment that were used on a peer.
    pub shared_blocks: AtomicU32,
}

#[derive(Default)]
pub(super) struct SegmentTable {
    pub segments: Vec<Option<Arc<Segment>>>,
    pub free: Vec<u32>,
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
    pub(super) fn new_segment(&self, arena: u8, size: usize) -> Result<(Slot, u32)> {
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
                log::info!(
                    "lazy-usm pool: device {} out of memory; releasing cached segments",
                    self.owner
                );
                self.reclaim_deferred();
                self.release_idle_segments(true);
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
    pub(super) fn drop_segment(&self, index: u32) -> u64 {
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
