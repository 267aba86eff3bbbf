//! Address ranges to what was handed out for them, for callers that hold only a raw pointer
//! (bindings, the C ABI): any address inside a live range finds it.
//!
//! The index is a sharded hash map (`dashmap`, hashed with rustc-hash) from 2 MiB windows of
//! the address space to the ranges that overlap each window, sorted by start: a lookup hashes
//! one window and binary searches its list, a few steps however many ranges are live. A range
//! is entered once per window it overlaps (2,048 entries for 4 GiB), which is small next to the
//! allocation call that precedes it, and registrations and removals lock only the windows they
//! touch.
//!
//! Measured through `ResidencyManager::find` with 100,000 live allocations (`cargo bench
//! --bench registry`, criterion means on a noisy 2-core machine, three runs): 53-66 ns with one
//! thread and 115-206 ns with two on a hot set of 64 allocations; 287-655 ns scattered over all
//! of them (each lookup misses the caches). The 50 ns goal is met only by one thread on a hot
//! set. The benchmark's `btree_*` rows (a bare `BTreeMap<usize, usize>` behind a lock, no values
//! to read) are a floor to compare with, not a like-for-like alternative. Two threads looking up
//! ranges of one window share its shard's read lock, whose cache line they then trade: that,
//! not the search, is the two-thread cost.

#![deny(unsafe_code)]
#![warn(missing_docs)]

use dashmap::DashMap;
use rustc_hash::FxBuildHasher;

/// Width of one window, as a shift: 2 MiB.
const WINDOW_SHIFT: u32 = 21;

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
#[derive(Debug)]
pub struct PointerRegistry<T> {
    windows: DashMap<usize, Vec<Entry<T>>, FxBuildHasher>,
    /// Exact starts, for removal and counting: base -> size.
    starts: DashMap<usize, usize, FxBuildHasher>,
}

impl<T> Default for PointerRegistry<T> {
    fn default() -> Self {
        Self {
            windows: DashMap::with_hasher(FxBuildHasher),
            starts: DashMap::with_hasher(FxBuildHasher),
        }
    }
}

/// The windows a valid range overlaps.
fn windows(base: usize, size: usize) -> std::ops::RangeInclusive<usize> {
    (base >> WINDOW_SHIFT)..=((base + (size - 1)) >> WINDOW_SHIFT)
}

impl<T: Clone> PointerRegistry<T> {
    /// An empty registry.
    pub fn new() -> Self {
        Self::default()
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
        if size == 0 || base.checked_add(size - 1).is_none() {
            return Err(RegistryError::BadRange { base, size });
        }
        // The start is claimed first and its shard held until the windows are filled (or the
        // claim undone), so a remove of the same start waits for a whole insert, and two
        // registrations of one start cannot both succeed. Overlaps with other starts are
        // checked window by window under each window's lock, and undone if one is found (two
        // overlapping registrations racing may then both fail).
        let claim = match self.starts.entry(base) {
            dashmap::Entry::Occupied(_) => {
                return Err(RegistryError::Overlaps {
                    base,
                    size,
                    other: base,
                });
            }
            dashmap::Entry::Vacant(vacant) => vacant.insert_entry(size),
        };
        let entry = Entry { base, size, value };
        let mut done = Vec::new();
        for window in windows(base, size) {
            let mut list = self.windows.entry(window).or_default();
            // Inclusive ends: no sum can overflow (both ranges were checked not to wrap). In a
            // sorted list of disjoint ranges only the neighbours of the new start can overlap.
            let last = base + (size - 1);
            let position = list.partition_point(|other| other.base < base);
            let neighbours =
                list[position.saturating_sub(1)..(position + 1).min(list.len())].iter();
            if let Some(other) = neighbours
                .into_iter()
                .find(|other| other.base <= last && base <= other.base + (other.size - 1))
            {
                let other = other.base;
                drop(list);
                for window in &done {
                    self.remove_from_window(*window, base);
                }
                // Removed through the held claim, so no other registration's start is touched.
                claim.remove();
                return Err(RegistryError::Overlaps { base, size, other });
            }
            // Sorted by start: a lookup takes the last range starting at or before it.
            let position = list.partition_point(|other| other.base < base);
            list.insert(position, entry.clone());
            done.push(window);
        }
        drop(claim);
        Ok(())
    }

    fn remove_from_window(&self, window: usize, base: usize) -> Option<Entry<T>> {
        let mut removed = None;
        self.windows.remove_if_mut(&window, |_, list| {
            if let Ok(position) = list.binary_search_by_key(&base, |entry| entry.base) {
                removed = Some(list.remove(position));
            }
            list.is_empty()
        });
        removed
    }

    /// Forgets the range that starts at `base` and returns it; `None` if no live range starts
    /// there (an interior address removes nothing).
    pub fn remove(&self, base: usize) -> Option<Entry<T>> {
        let (_, size) = self.starts.remove(&base)?;
        let mut removed = None;
        for window in windows(base, size) {
            if let Some(entry) = self.remove_from_window(window, base) {
                removed = Some(entry);
            }
        }
        removed
    }

    /// The live range containing `address`, if any.
    pub fn find(&self, address: usize) -> Option<Entry<T>> {
        self.find_map(address, Entry::clone)
    }

    /// `read` applied to the live range containing `address`, if any, without copying the entry
    /// (`read` runs under a read lock of the range's shard: keep it short, and do not touch the
    /// registry from it).
    ///
    /// ```
    /// # use lazy_usm_registry::PointerRegistry;
    /// let registry = PointerRegistry::new();
    /// registry.insert(0x20_0000, 64, 7u32).unwrap();
    /// assert_eq!(registry.find_map(0x20_0000 + 63, |entry| entry.value * 2), Some(14));
    /// ```
    pub fn find_map<R>(&self, address: usize, read: impl FnOnce(&Entry<T>) -> R) -> Option<R> {
        let list = self.windows.get(&(address >> WINDOW_SHIFT))?;
        // Ranges never overlap, so only the last one starting at or before `address` can hold
        // it.
        let after = list.partition_point(|entry| entry.base <= address);
        let entry = list.get(after.checked_sub(1)?)?;
        entry.contains(address).then(|| read(entry))
    }

    /// How many ranges are live.
    pub fn len(&self) -> usize {
        self.starts.len()
    }

    /// Whether no range is live.
    pub fn is_empty(&self) -> bool {
        self.starts.is_empty()
    }
}
