//! The large-block path: best fit over free ranges of large segments, splitting on allocation
//! and coalescing neighbours on free.

use super::segments::Layout;
use super::{DevicePool, SEGMENT_ROUNDING, Slot, lock};
use crate::error::{Error, Result};
use std::collections::{BTreeMap, BTreeSet};

#[derive(Debug, Clone, Copy)]
struct Range {
    size: usize,
    segment: u32,
    free: bool,
}

/// Free and used ranges of every large segment.
#[derive(Debug, Default)]
pub(crate) struct LargeHeap {
    /// (size, address) of every free range: best fit is the first at or above a size.
    free_by_size: BTreeSet<(usize, usize)>,
    /// Every range by address.
    ranges: BTreeMap<usize, Range>,
    /// Segment -> (base, size).
    segments: BTreeMap<u32, (usize, usize)>,
}

impl LargeHeap {
    /// Adds a new, wholly free segment.
    pub(crate) fn add_segment(&mut self, segment: u32, base: usize, size: usize) {
        self.segments.insert(segment, (base, size));
        self.ranges.insert(
            base,
            Range {
                size,
                segment,
                free: true,
            },
        );
        self.free_by_size.insert((size, base));
    }

    /// The range (used or free) holding `address`: its start and size.
    pub(crate) fn range_containing(&self, address: usize) -> Option<(usize, usize)> {
        let (&start, range) = self.ranges.range(..=address).next_back()?;
        (address - start < range.size).then_some((start, range.size))
    }

    /// Best-fit range of `size` bytes: (address, segment).
    pub(crate) fn allocate(&mut self, size: usize) -> Option<(usize, u32)> {
        let &(found, address) = self.free_by_size.range((size, 0)..).next()?;
        self.free_by_size.remove(&(found, address));
        let range = self.ranges.get_mut(&address)?;
        range.free = false;
        range.size = size;
        let segment = range.segment;
        if found > size {
            let rest = address + size;
            self.ranges.insert(
                rest,
                Range {
                    size: found - size,
                    segment,
                    free: true,
                },
            );
            self.free_by_size.insert((found - size, rest));
        }
        Some((address, segment))
    }

    /// Frees the range at `address`, merging it with free neighbours of the same segment.
    /// Returns its size, or `None` for an address that is not a used range.
    pub(crate) fn free(&mut self, address: usize) -> Option<usize> {
        let range = *self.ranges.get(&address).filter(|range| !range.free)?;
        let (mut start, mut size) = (address, range.size);
        if let Some((&next, &after)) = self.ranges.range(address + range.size..).next()
            && next == address + range.size
            && after.free
            && after.segment == range.segment
        {
            self.free_by_size.remove(&(after.size, next));
            self.ranges.remove(&next);
            size += after.size;
        }
        if let Some((&previous, &before)) = self.ranges.range(..address).next_back()
            && previous + before.size == address
            && before.free
            && before.segment == range.segment
        {
            self.free_by_size.remove(&(before.size, previous));
            self.ranges.remove(&address);
            start = previous;
            size += before.size;
        }
        self.ranges.insert(
            start,
            Range {
                size,
                segment: range.segment,
                free: true,
            },
        );
        self.free_by_size.insert((size, start));
        Some(range.size)
    }

    /// Whether `segment` has no used range.
    pub(crate) fn segment_idle(&self, segment: u32) -> bool {
        self.segments.get(&segment).is_some_and(|&(base, size)| {
            self.ranges
                .get(&base)
                .is_some_and(|range| range.free && range.size == size)
        })
    }

    /// Segments with no used range.
    pub(crate) fn idle_segments(&self) -> Vec<u32> {
        self.segments
            .keys()
            .copied()
            .filter(|&segment| self.segment_idle(segment))
            .collect()
    }

    /// Forgets an idle segment.
    pub(crate) fn remove_segment(&mut self, segment: u32) {
        if let Some((base, size)) = self.segments.remove(&segment) {
            self.ranges.remove(&base);
            self.free_by_size.remove(&(size, base));
        }
    }
}

impl DevicePool {
    pub(super) fn large_allocate(&self, arena: u8, capacity: usize) -> Result<(Slot, bool)> {
        self.reclaim_deferred();
        let heap = &self.arena_ref(arena).large;
        if let Some((address, segment)) = lock(heap).allocate(capacity) {
            return Ok((Slot { address, segment }, true));
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
        let (slot, _) = self.new_segment(arena, segment_size, Layout::Large)?;
        let mut heap = lock(heap);
        heap.add_segment(slot.segment, slot.address, segment_size);
        let (address, segment) = heap.allocate(capacity).ok_or_else(|| {
            Error::Internal("a fresh large segment cannot hold its request".into())
        })?;
        Ok((Slot { address, segment }, false))
    }

    /// Returns a large block; a segment of a hinted arena goes back to the driver as soon as it
    /// is idle (its free space is peer residency nobody uses).
    pub(super) fn large_release(&self, slot: Slot, arena: u8) {
        let arena = self.arena_ref(arena);
        let mut heap = lock(&arena.large);
        heap.free(slot.address);
        if !arena.peers.is_empty() && heap.segment_idle(slot.segment) {
            heap.remove_segment(slot.segment);
            drop(heap);
            self.drop_segment(slot.segment);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn best_fit_split_and_coalesce() {
        let mut heap = LargeHeap::default();
        heap.add_segment(0, 0x10000, 1000);
        heap.add_segment(1, 0x90000, 300);
        // Best fit: the 300-byte segment for 250 bytes.
        assert_eq!(heap.allocate(250), Some((0x90000, 1)));
        let (a, _) = heap.allocate(400).unwrap();
        let (b, _) = heap.allocate(400).unwrap();
        assert_eq!((a, b), (0x10000, 0x10000 + 400));
        assert_eq!(heap.allocate(400), None, "200 bytes are left in segment 0");
        assert_eq!(heap.free(a), Some(400));
        assert_eq!(heap.free(a), None, "double free");
        assert_eq!(heap.free(b), Some(400));
        // Everything coalesced back into one 1000-byte range.
        assert_eq!(heap.allocate(1000), Some((0x10000, 0)));
        assert_eq!(heap.idle_segments(), Vec::<u32>::new());
        heap.free(0x10000);
        heap.free(0x90000);
        assert_eq!(heap.idle_segments(), vec![0, 1]);
        heap.remove_segment(0);
        assert_eq!(heap.allocate(300), Some((0x90000, 1)), "segment 1 remains");
        assert_eq!(heap.allocate(1), None, "segment 0 is gone");
    }

    #[test]
    fn ranges_of_different_segments_never_merge() {
        let mut heap = LargeHeap::default();
        heap.add_segment(0, 0, 100);
        heap.add_segment(1, 100, 100);
        let (a, _) = heap.allocate(100).unwrap();
        let (b, _) = heap.allocate(100).unwrap();
        heap.free(a);
        heap.free(b);
        assert_eq!(heap.allocate(200), None);
    }
}
