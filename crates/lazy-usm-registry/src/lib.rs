//! Address ranges to what was handed out for them, for callers that hold only a raw pointer
//! (bindings, the C ABI): any address inside a live range finds it.
//!
//! Ranges are kept by size in levels: level `k` holds the ranges of at most `2^shift(k)`
//! bytes (64 KiB, 4 MiB, 256 MiB, ... up to the whole address space) that no smaller level
//! holds, each entered in the one or two windows of that size it overlaps. A level is a radix
//! tree over its window numbers (1,024 children per node, nodes made on first use), whose
//! leaves hold an immutable sorted list behind an `ArcSwapOption`. A lookup walks the levels
//! that hold ranges: a few loads down the tree, one `arc-swap` load, and a binary search of one
//! window's list. No lock is taken and nothing shared is written (`arc-swap`'s loads write only
//! a slot of the reading thread's own), so threads looking up at once do not trade cache
//! lines. Changes are serialised by one lock, which also guards an ordered map of every range
//! (overlap checks and removal by start); a change copies the list of each window it touches
//! and swaps it in, so a lookup that overlaps a change answers as before it or as after it.
//! Tree nodes stay once made (a few hundred KiB per region of the address space in use).
//!
//! Chosen over a window-hashed `dashmap`, whose lookups took a shard's read lock (a write to a
//! cache line every reader shares), and over copy-on-write sorted chunks behind a routing
//! table (two `arc-swap` loads and a 17-step search per lookup). Measured through
//! `ResidencyManager::find` with 100,000 live allocations (`cargo bench --bench registry`,
//! criterion means, one run each on a 16-core machine): a hot set of 64, 48.1 ns with one
//! thread and 53.9 ns with two (the `dashmap` index: 45.5 and 213.7 ns; the chunks: 89.6 and
//! 99.8 ns); scattered over all of them, 255 and 375 ns (`dashmap`: 272 and 290 ns; chunks:
//! 524 and 558 ns). A scattered lookup misses the caches three times (the window's list, its
//! entries, the allocation's record), which no index layout here avoided.

#![deny(unsafe_code)]
#![warn(missing_docs)]

use arc_swap::ArcSwapOption;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

/// Window sizes of the levels, as shifts: a range goes to the first level whose window is at
/// least its size, so it overlaps at most two windows there. The last covers everything.
const SHIFTS: [u32; 9] = [16, 22, 28, 34, 40, 46, 52, 58, 64];
/// Children of a tree node, as a shift.
const FAN_BITS: u32 = 10;

/// One live range and its value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry<T> {
    /// First address of the range.
    pub base: usize,
    /// Length in bytes (at least 1).
    pub size: usize,
    /// What was registered for it.
    pub value: T,
}

impl<T> Entry<T> {
    fn contains(&self, address: usize) -> bool {
        address >= self.base && address - self.base < self.size
    }
}

/// Why a range could not be registered.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RegistryError {
    /// A range of no bytes, or one that wraps past the end of the address space.
    #[error("the range at {base:#x} of {size} bytes is empty or wraps around")]
    BadRange {
        /// The range's start.
        base: usize,
        /// Its length.
        size: usize,
    },
    /// It overlaps a live range.
    #[error("the range at {base:#x} of {size} bytes overlaps the live range at {other:#x}")]
    Overlaps {
        /// The range's start.
        base: usize,
        /// Its length.
        size: usize,
        /// The start of the live range it overlaps.
        other: usize,
    },
}

/// Live address ranges, each with a value, found by any address inside them. `Sync`: register,
/// remove and look up from any thread.
///
/// ```
/// use lazy_usm_registry::PointerRegistry;
/// let registry = PointerRegistry::new();
/// registry.insert(0x10_0000, 4096, "weights").unwrap();
/// let found = registry.find(0x10_0000 + 100).unwrap();
/// assert_eq!((found.base, found.size, found.value), (0x10_0000, 4096, "weights"));
/// assert!(registry.find(0x10_0000 + 4096).is_none());
/// assert!(registry.insert(0x10_0800, 16, "overlap").is_err());
/// assert_eq!(registry.remove(0x10_0000).map(|entry| entry.value), Some("weights"));
/// assert!(registry.is_empty());
/// ```
pub struct PointerRegistry<T> {
    levels: [Level<T>; SHIFTS.len()],
    /// Bit `k`: level `k` holds ranges. Lookups skip the others.
    used: AtomicU32,
    writer: Mutex<Ranges>,
}

impl<T> std::fmt::Debug for PointerRegistry<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PointerRegistry")
            .field("levels in use", &self.used.load(Ordering::Relaxed))
            .finish_non_exhaustive()
    }
}

/// What changes read and write under the writer lock: every live range by start (its size and
/// level), and how many ranges each level holds.
#[derive(Default)]
struct Ranges {
    by_start: BTreeMap<usize, (usize, usize)>,
    per_level: [usize; SHIFTS.len()],
}

/// The ranges overlapping one window, sorted by start.
struct List<T> {
    entries: Vec<Entry<T>>,
}

/// A radix tree node: a leaf's list, or an interior node's children (made on first use).
struct Node<T> {
    list: ArcSwapOption<List<T>>,
    children: OnceLock<Box<[Node<T>]>>,
}

impl<T> Node<T> {
    fn new() -> Self {
        Node {
            list: ArcSwapOption::empty(),
            children: OnceLock::new(),
        }
    }
}

/// One level: its window size and the tree over its window numbers.
struct Level<T> {
    shift: u32,
    /// Tree depth: enough digits of `FAN_BITS` for every window number.
    digits: u32,
    root: Node<T>,
}

impl<T> Level<T> {
    fn new(shift: u32) -> Self {
        Level {
            shift,
            digits: usize::BITS.saturating_sub(shift).div_ceil(FAN_BITS),
            root: Node::new(),
        }
    }

    fn window(&self, address: usize) -> usize {
        address.checked_shr(self.shift).unwrap_or(0)
    }

    fn digit(&self, window: usize, depth: u32) -> usize {
        let shift = (self.digits - 1 - depth) * FAN_BITS;
        (window >> shift) & ((1 << FAN_BITS) - 1)
    }

    /// The leaf of `window`, if its path was made.
    #[inline]
    fn leaf(&self, window: usize) -> Option<&Node<T>> {
        let mut node = &self.root;
        for depth in 0..self.digits {
            node = &node.children.get()?[self.digit(window, depth)];
        }
        Some(node)
    }

    /// The leaf of `window`, its path made if need be.
    fn leaf_or_make(&self, window: usize) -> &Node<T> {
        let mut node = &self.root;
        for depth in 0..self.digits {
            let children = node
                .children
                .get_or_init(|| (0..1 << FAN_BITS).map(|_| Node::new()).collect());
            node = &children[self.digit(window, depth)];
        }
        node
    }

    /// The windows a range of this level overlaps (one or two).
    fn windows(&self, base: usize, last: usize) -> std::ops::RangeInclusive<usize> {
        self.window(base)..=self.window(last)
    }
}

/// The level of a range of `size` bytes.
fn level_of(size: usize) -> usize {
    SHIFTS
        .iter()
        .position(|&shift| shift >= usize::BITS || size <= 1 << shift)
        .unwrap_or(SHIFTS.len() - 1)
}

impl<T> Default for PointerRegistry<T> {
    fn default() -> Self {
        Self {
            levels: SHIFTS.map(Level::new),
            used: AtomicU32::new(0),
            writer: Mutex::new(Ranges::default()),
        }
    }
}

impl<T: Clone> PointerRegistry<T> {
    /// An empty registry.
    pub fn new() -> Self {
        Self::default()
    }

    fn lock(&self) -> MutexGuard<'_, Ranges> {
        self.writer
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The new list of `window` at `level`: `change` applied to a copy of the current one (made
    /// first for every window a change touches, then stored, so that a panic while copying
    /// leaves no window changed).
    fn changed_list(
        &self,
        level: usize,
        window: usize,
        change: impl FnOnce(&mut Vec<Entry<T>>),
    ) -> (&Node<T>, Option<Arc<List<T>>>) {
        let node = self.levels[level].leaf_or_make(window);
        let mut entries = node
            .list
            .load()
            .as_ref()
            .map(|list| list.entries.clone())
            .unwrap_or_default();
        change(&mut entries);
        let list = (!entries.is_empty()).then(|| Arc::new(List { entries }));
        (node, list)
    }

    fn note_levels(&self, ranges: &Ranges) {
        let used = ranges
            .per_level
            .iter()
            .enumerate()
            .filter(|(_, count)| **count > 0)
            .fold(0, |mask, (level, _)| mask | 1 << level);
        self.used.store(used, Ordering::Release);
    }

    /// Registers `base..base + size` with `value`; refuses an empty or wrapping range and one
    /// that overlaps a live range (nothing is registered then).
    ///
    /// ```
    /// # use lazy_usm_registry::{PointerRegistry, RegistryError};
    /// let registry = PointerRegistry::new();
    /// assert!(matches!(registry.insert(0x1000, 0, ()), Err(RegistryError::BadRange { .. })));
    /// assert!(matches!(registry.insert(usize::MAX, 2, ()), Err(RegistryError::BadRange { .. })));
    /// ```
    pub fn insert(&self, base: usize, size: usize, value: T) -> Result<(), RegistryError> {
        let Some(last) = size
            .checked_sub(1)
            .and_then(|extra| base.checked_add(extra))
        else {
            return Err(RegistryError::BadRange { base, size });
        };
        let mut ranges = self.lock();
        // Ranges are disjoint: only the last one starting at or before the new range's last
        // byte can overlap it. Inclusive ends, so no sum overflows.
        if let Some((&other, &(other_size, _))) = ranges.by_start.range(..=last).next_back()
            && other + (other_size - 1) >= base
        {
            return Err(RegistryError::Overlaps { base, size, other });
        }
        let level = level_of(size);
        let entry = Entry { base, size, value };
        let lists: Vec<_> = self.levels[level]
            .windows(base, last)
            .map(|window| {
                self.changed_list(level, window, |entries| {
                    let position = entries.partition_point(|other| other.base < base);
                    entries.insert(position, entry.clone());
                })
            })
            .collect();
        // Marked before the lists change, so a lookup that finds the range finds its level.
        ranges.by_start.insert(base, (size, level));
        ranges.per_level[level] += 1;
        self.note_levels(&ranges);
        for (node, list) in lists {
            node.list.store(list);
        }
        Ok(())
    }

    /// Forgets the range that starts at `base` and returns it; `None` if no live range starts
    /// there (an interior address removes nothing).
    pub fn remove(&self, base: usize) -> Option<Entry<T>> {
        let mut ranges = self.lock();
        let &(size, level) = ranges.by_start.get(&base)?;
        let mut removed = None;
        let lists: Vec<_> = self.levels[level]
            .windows(base, base + (size - 1))
            .map(|window| {
                self.changed_list(level, window, |entries| {
                    if let Ok(position) = entries.binary_search_by_key(&base, |entry| entry.base) {
                        removed = Some(entries.remove(position));
                    }
                })
            })
            .collect();
        for (node, list) in lists {
            node.list.store(list);
        }
        ranges.by_start.remove(&base);
        ranges.per_level[level] -= 1;
        self.note_levels(&ranges);
        removed
    }

    /// The live range containing `address`, if any.
    pub fn find(&self, address: usize) -> Option<Entry<T>> {
        self.find_map(address, Entry::clone)
    }

    /// `read` applied to the live range containing `address`, if any, without copying the entry
    /// (`read` runs on a snapshot of one window's list: keep it short; it may use the registry).
    ///
    /// ```
    /// # use lazy_usm_registry::PointerRegistry;
    /// let registry = PointerRegistry::new();
    /// registry.insert(0x20_0000, 64, 7u32).unwrap();
    /// assert_eq!(registry.find_map(0x20_0000 + 63, |entry| entry.value * 2), Some(14));
    /// ```
    #[inline]
    pub fn find_map<R>(&self, address: usize, read: impl FnOnce(&Entry<T>) -> R) -> Option<R> {
        let mut used = self.used.load(Ordering::Acquire);
        while used != 0 {
            let level = &self.levels[used.trailing_zeros() as usize];
            used &= used - 1;
            let Some(leaf) = level.leaf(level.window(address)) else {
                continue;
            };
            let list = leaf.list.load();
            let Some(list) = list.as_ref() else {
                continue;
            };
            // Ranges never overlap, so only the last one starting at or before `address` can
            // hold it.
            let Some(position) = list
                .entries
                .partition_point(|entry| entry.base <= address)
                .checked_sub(1)
            else {
                continue;
            };
            let entry = &list.entries[position];
            if entry.contains(address) {
                return Some(read(entry));
            }
        }
        None
    }

    /// How many ranges are live.
    pub fn len(&self) -> usize {
        self.lock().by_start.len()
    }

    /// Whether no range is live.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_go_to_the_smallest_level_whose_window_holds_them() {
        assert_eq!(level_of(1), 0);
        assert_eq!(level_of(64 << 10), 0);
        assert_eq!(level_of((64 << 10) + 1), 1);
        assert_eq!(level_of(1 << 40), 4);
        assert_eq!(level_of(usize::MAX), SHIFTS.len() - 1);
    }

    /// Ranges of every level, some straddling windows, near the ends of the address space:
    /// each found from its first and last byte and not from the bytes around it.
    #[test]
    fn ranges_of_every_level_are_found_at_both_ends() {
        let registry = PointerRegistry::new();
        let mut ranges = Vec::new();
        let mut base = 0x10usize;
        for (index, size) in [
            1usize,
            100,
            64 << 10,
            (64 << 10) + 1,
            5 << 20,
            300 << 20,
            1 << 35,
        ]
        .into_iter()
        .enumerate()
        {
            // Starting just before a window boundary of its level, so it straddles two.
            let window = 1usize << SHIFTS[level_of(size)];
            base = (base + window).next_multiple_of(window) - size / 2 - 1;
            registry.insert(base, size, index).unwrap();
            ranges.push((base, size, index));
            base += size + 0x1000;
        }
        let top = usize::MAX - 0xfff;
        registry.insert(top, 0x1000, 99).unwrap();
        ranges.push((top, 0x1000, 99));
        for &(base, size, index) in &ranges {
            assert_eq!(registry.find(base).map(|entry| entry.value), Some(index));
            assert_eq!(
                registry.find(base + (size - 1)).map(|entry| entry.value),
                Some(index)
            );
            assert!(registry.find(base - 1).is_none(), "before {index}");
            if base.checked_add(size).is_some() {
                assert!(registry.find(base + size).is_none(), "after {index}");
            }
        }
        assert_eq!(registry.len(), ranges.len());
        for &(base, size, index) in &ranges {
            assert_eq!(registry.remove(base).map(|entry| entry.value), Some(index));
            assert!(registry.find(base).is_none());
            assert!(
                registry.find(base + (size - 1)).is_none(),
                "its second window too"
            );
        }
        assert!(registry.is_empty());
        assert_eq!(registry.used.load(Ordering::Relaxed), 0);
    }

    /// The widest range, on the level of the whole address space, and two windows that differ
    /// only in their top digit, which must get leaves of their own.
    #[test]
    fn the_last_level_and_the_top_digit() {
        let registry = PointerRegistry::new();
        registry.insert(1, usize::MAX - 1, "everything").unwrap();
        assert_eq!(
            registry.find(usize::MAX - 1).map(|entry| entry.value),
            Some("everything")
        );
        assert!(registry.find(0).is_none() && registry.find(usize::MAX).is_none());
        assert!(registry.insert(1 << 40, 1, "inside").is_err());
        assert!(registry.remove(1).is_some());
        let level = &registry.levels[0];
        let low = level.leaf_or_make(5) as *const Node<&str>;
        let high =
            level.leaf_or_make(5 | 1 << (FAN_BITS * (level.digits - 1))) as *const Node<&str>;
        assert!(
            !std::ptr::eq(low, high),
            "windows differing in the top digit share a leaf"
        );
    }
}
