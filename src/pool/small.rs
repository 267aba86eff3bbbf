//! The small-block path: size classes carved out of segments, a shared free list per class
//! behind the threads' caches, and the batches that move blocks between the two.

use super::classes::{GRANULE, class_size};
use super::segments::Layout;
use super::thread_cache::{try_pop, try_push, with_cache};
use super::{DevicePool, Segment, Slot, lock};
use crate::error::{Error, Result};
use crate::ze::memory::Memory;
use std::collections::HashMap;
use std::sync::Mutex;

/// The cursor of a class's current segment.
pub(super) struct Carve {
    pub segment: u32,
    pub next: usize,
    pub end: usize,
    /// Segments made for the class so far: each new one holds twice as many blocks, so a class
    /// used a little costs a little.
    pub made: u32,
}

/// One size class of an arena.
pub(super) struct Class {
    pub size: usize,
    /// Free blocks no thread's cache holds. On its own cache lines: threads take it only to move
    /// a batch.
    pub free: CacheLine<Mutex<Vec<Slot>>>,
    pub carve: Mutex<Carve>,
    /// Held while the class makes a new segment, so one thread grows it at a time; the carve
    /// lock is not held then (see the lock order in the module documentation).
    pub grow: Mutex<()>,
}

/// A value on cache lines of its own.
#[repr(align(128))]
#[derive(Default)]
pub(super) struct CacheLine<T>(pub T);

impl<T> std::ops::Deref for CacheLine<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

impl Class {
    pub fn new(index: usize) -> Self {
        Class {
            size: class_size(index),
            free: CacheLine(Mutex::new(Vec::new())),
            carve: Mutex::new(Carve {
                segment: 0,
                next: 0,
                end: 0,
                made: 0,
            }),
            grow: Mutex::new(()),
        }
    }
}

/// Up to `count` blocks of the class's current segment.
fn carve_batch(carve: &mut Carve, size: usize, count: usize) -> Vec<Slot> {
    let left = carve.end.saturating_sub(carve.next) / size;
    (0..count.min(left))
        .map(|_| {
            let slot = Slot {
                address: carve.next,
                segment: carve.segment,
            };
            carve.next += size;
            slot
        })
        .collect()
}

impl DevicePool {
    /// A block of class `class` in arena `arena`: from this thread's cache (the hit path: no
    /// lock), else a batch from the class's free list or newly carved, the rest of which the
    /// cache keeps.
    #[inline]
    pub(super) fn small_allocate(&self, arena: u8, class: usize) -> Result<Slot> {
        let size = class_size(class);
        let index = self.list_index(arena, class);
        if let Some(slot) = try_pop(self.id, &self.shared, index, size) {
            return Ok(slot);
        }
        self.small_miss(arena, class, index, size)
    }

    /// [`DevicePool::small_allocate`] past this thread's cache: blocks whose work completed
    /// returned, a flush asked for done, a block in the cache taken, else a batch brought.
    #[cold]
    #[inline(never)]
    fn small_miss(&self, arena: u8, class: usize, index: usize, size: usize) -> Result<Slot> {
        // Blocks whose work completed come back first (into this thread's cache), and are
        // taken before anything is carved.
        self.reclaim_deferred();
        let hit = with_cache(self.id, &self.shared, |cache| cache.pop(index, size));
        if let Some(Some(slot)) = hit {
            return Ok(slot);
        }
        let (mut slots, from_free_list) =
            self.small_batch(arena, class, self.limits.batch(class))?;
        let first = slots.remove(0);
        let rest = with_cache(self.id, &self.shared, |cache| {
            cache.counters().allocated(size, from_free_list);
            cache.refill(
                (index, class),
                std::mem::take(&mut slots),
                size,
                &self.limits,
            )
        })
        .unwrap_or_else(|| {
            self.shared.uncached.allocated(size, from_free_list);
            std::mem::take(&mut slots)
        });
        if !rest.is_empty() {
            self.shared.take_back(index, rest);
        }
        if !from_free_list {
            self.note_peak();
        }
        Ok(first)
    }

    /// Returns a block of class `class` to this thread's cache, or (what the cache does not
    /// keep) to the class's free list.
    #[inline]
    pub(super) fn small_release(&self, slot: Slot, arena: u8, class: usize, size: usize) {
        debug_assert_eq!(size, class_size(class));
        let index = self.list_index(arena, class);
        if let Err(slot) = try_push(
            self.id,
            &self.shared,
            (index, class),
            slot,
            size,
            &self.limits,
        ) {
            self.small_release_slow(slot, index, class, size);
        }
    }

    /// [`DevicePool::small_release`] past the hit path: the cache made, flushed or spilled.
    #[cold]
    #[inline(never)]
    fn small_release_slow(&self, slot: Slot, index: usize, class: usize, size: usize) {
        let spilled = with_cache(self.id, &self.shared, |cache| {
            cache.push((index, class), slot, size, &self.limits)
        })
        .unwrap_or_else(|| {
            self.shared.uncached.live_bytes(-(size as i64));
            Some(vec![slot])
        });
        if let Some(slots) = spilled {
            self.shared.take_back(index, slots);
        }
    }

    /// The list index of a class of an arena, in thread caches.
    #[inline]
    pub(super) fn list_index(&self, arena: u8, class: usize) -> usize {
        arena as usize * self.classes + class
    }

    /// At least one and up to `count` blocks of the class, and whether they were free blocks
    /// (rather than newly carved): from the shared free list, else carved from the class's
    /// segment, else from a new segment.
    fn small_batch(&self, arena: u8, class: usize, count: usize) -> Result<(Vec<Slot>, bool)> {
        let class = &self.arena_ref(arena).classes[class];
        {
            let mut free = lock(&class.free);
            if !free.is_empty() {
                let from = free.len().saturating_sub(count);
                return Ok((free.split_off(from), true));
            }
        }
        let size = class.size;
        let carved = carve_batch(&mut lock(&class.carve), size, count);
        if !carved.is_empty() {
            return Ok((carved, false));
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
            let carved = carve_batch(&mut lock(&class.carve), size, count);
            if carved.is_empty() {
                return Err(Error::Internal(
                    "a grown class has no block to carve".into(),
                ));
            }
            return Ok((carved, false));
        };
        // Four blocks first, then twice as many each time, up to the configured segment size:
        // a class used a little costs a little.
        let blocks = 4usize << made.min(16);
        let segment_size = (blocks * size)
            .min(self.config.small_segment.max(4 * size))
            .next_multiple_of(GRANULE);
        let (slot, _) = self.new_segment(arena, segment_size, Layout::Class { block: size })?;
        let mut carve = lock(&class.carve);
        *carve = Carve {
            segment: slot.segment,
            next: slot.address,
            end: slot.address + segment_size - segment_size % size,
            made: made + 1,
        };
        Ok((carve_batch(&mut carve, size, count), false))
    }

    /// The class's segments whose every carved block is back in its shared free list, with their
    /// blocks taken out of it (blocks in a thread's cache keep their segment).
    pub(super) fn take_idle_small_segments(&self, class: &Class) -> Vec<u32> {
        let mut carve = lock(&class.carve);
        let mut list = lock(&class.free);
        let mut free: HashMap<u32, usize> = HashMap::new();
        for slot in list.iter() {
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
        list.retain(|slot| !empty.contains(&slot.segment));
        if carve.end > 0 && empty.contains(&carve.segment) {
            carve.next = 0;
            carve.end = 0;
        }
        empty
    }
}
