//! Address ranges to what was handed out for them, for callers that hold only a raw pointer
//! (bindings, the C ABI): any address inside a live range finds it.
//!
//! Ranges are kept by size in levels: level `k` holds the ranges of at most `2^shift(k)`
//! bytes (64 KiB, 4 MiB, 256 MiB, ... up to the whole address space) that no smaller level
//! holds, each entered in the one or two windows of that size it overlaps. A window hashes to
//! one bucket of a table (windows of every level share it); a bucket is an immutable list of
//! the ranges entered in its windows, sorted by start, with a version that every change of the
//! bucket bumps. Every thread keeps its own copy of the bucket lists it has read, tagged with
//! their versions: a lookup hashes the address's window, compares the bucket's version with its
//! copy's, and, when they agree, searches its copy. So a lookup whose copy is current takes no
//! lock, makes no read-modify-write, and writes nothing another thread reads: threads looking
//! up at once trade no cache lines, and a core can overlap the memory reads of consecutive
//! lookups. A thread whose copy is out of date (its first lookup in a bucket after a change of
//! it, and in every bucket after the table grew) takes it again under the writer lock, so
//! lookups in buckets that change often contend with the changes. Changes are serialised by
//! that lock, which also guards an ordered map of every range (overlap checks, removal by
//! start, the rebuild when the table grows); a change makes
//! the new list of each bucket it touches, then bumps their versions, so a lookup that overlaps
//! a change answers as before it or as after it. The table grows (four times the buckets) when
//! it holds more than eight entries per bucket, which a thread sees as a new generation and
//! answers by dropping its copies.
//!
//! A thread's copies hold clones of the values of the buckets it read, until it reads those
//! buckets again after a change, makes copies of a registry it had not used after this one was
//! dropped, or exits: a value can outlive its removal by that long. Copies cost every thread
//! that looks up 24 bytes per bucket of each registry it uses (about 400 KiB for 100,000
//! ranges, 3 MiB for a million; times the number of such threads).
//!
//! Chosen over a radix tree of window lists behind `arc-swap` (two atomic read-modify-writes
//! per lookup, which also keep a core from overlapping lookups, and five levels of nodes), a
//! window-hashed `dashmap` (a shard's read lock: a write to a cache line every reader shares),
//! copy-on-write sorted chunks behind a routing table, and a `BTreeMap` behind an `RwLock`.
//! Measured through `ResidencyManager::find` with 100,000 live allocations: see the pool page's
//! registry table, `docs/pool.md` (`cargo bench --bench registry`).

#![deny(unsafe_code)]
#![warn(missing_docs)]

use std::any::Any;
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, Weak};

/// Window sizes of the levels, as shifts: a range goes to the first level whose window is at
/// least its size, so it overlaps at most two windows there. The last covers everything.
const SHIFTS: [u32; 9] = [16, 22, 28, 34, 40, 46, 52, 58, 64];
// The levels in use are bits of a `u32`, and the last level covers the address space.
const _: () = assert!(SHIFTS.len() <= 32 && SHIFTS[SHIFTS.len() - 1] == 64);
/// Buckets of a new registry's table, as a shift.
const FIRST_BUCKET_BITS: u32 = 6;
/// The table grows when it holds more entries than this per bucket.
const MOST_PER_BUCKET: usize = 8;

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

/// The ranges entered in one bucket's windows, sorted by start (`None`: none).
type List<T> = Option<Arc<[Entry<T>]>>;

/// Source of registry identities, by which a thread finds its copies.
static NEXT_REGISTRY_ID: AtomicU64 = AtomicU64::new(1);

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
    /// Unique in the process: a thread's copies name their registry by it.
    id: u64,
    /// Dropped with the registry: a thread's copies of a dropped registry see it gone.
    alive: Arc<()>,
    /// The table's generation; bumped (after the new table is in place) when it grows.
    generation: AtomicU64,
    /// Bit `k`: level `k` holds ranges. Lookups skip the others.
    used: AtomicU32,
    writer: Mutex<Ranges<T>>,
}

impl<T> std::fmt::Debug for PointerRegistry<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PointerRegistry")
            .field("levels in use", &self.used.load(Ordering::Relaxed))
            .finish_non_exhaustive()
    }
}

/// What changes read and write under the writer lock.
struct Ranges<T> {
    /// Every live range by start, with its level.
    by_start: BTreeMap<usize, (Entry<T>, usize)>,
    per_level: [usize; SHIFTS.len()],
    table: Table<T>,
}

/// The buckets: their lists (read under the writer lock) and their versions (read by lookups).
struct Table<T> {
    generation: u64,
    bits: u32,
    lists: Vec<List<T>>,
    versions: Arc<[AtomicU64]>,
    /// Entries in all lists (a range counts once per bucket it is entered in).
    entries: usize,
}

/// The bucket of `window` at `level` in a table of `2^bits` buckets (Fibonacci hashing, so
/// windows at any regular stride spread over the buckets).
#[inline]
fn bucket_of(level: usize, window: usize, bits: u32) -> usize {
    let key = (window as u64) ^ ((level as u64) << 58);
    (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - bits)) as usize
}

fn window_of(level: usize, address: usize) -> usize {
    address.checked_shr(SHIFTS[level]).unwrap_or(0)
}

/// The level of a range of `size` bytes.
fn level_of(size: usize) -> usize {
    SHIFTS
        .iter()
        .position(|&shift| shift >= usize::BITS || size <= 1 << shift)
        .unwrap_or(SHIFTS.len() - 1)
}

/// The buckets a range at `level` is entered in (one, or two for a range across a window
/// boundary that hash apart).
fn buckets_of(level: usize, base: usize, last: usize, bits: u32) -> impl Iterator<Item = usize> {
    let (first, second) = (window_of(level, base), window_of(level, last));
    let one = bucket_of(level, first, bits);
    let two = bucket_of(level, second, bits);
    std::iter::once(one).chain((second != first && two != one).then_some(two))
}

/// In `list` (sorted by start), the range holding `address`. Ranges never overlap, so only the
/// last one starting at or before `address` can hold it, whatever window each was entered for.
#[inline]
fn search<T>(list: &[Entry<T>], address: usize) -> Option<usize> {
    // A count rather than a binary search: lists are short, and a count has no branch that
    // depends on the entries, so a core need not wait for them to start the next lookup.
    let position = list
        .iter()
        .map(|entry| usize::from(entry.base <= address))
        .sum::<usize>()
        .checked_sub(1)?;
    list[position].contains(address).then_some(position)
}

impl<T> Table<T> {
    fn new(generation: u64, bits: u32) -> Self {
        Table {
            generation,
            bits,
            lists: (0..1usize << bits).map(|_| None).collect(),
            versions: (0..1usize << bits).map(|_| AtomicU64::new(0)).collect(),
            entries: 0,
        }
    }
}

impl<T: Clone> Table<T> {
    /// The new list of `bucket`: `change` applied to a copy of the current one.
    fn changed(&self, bucket: usize, change: impl FnOnce(&mut Vec<Entry<T>>)) -> List<T> {
        let mut entries = self.lists[bucket]
            .as_deref()
            .map(<[Entry<T>]>::to_vec)
            .unwrap_or_default();
        change(&mut entries);
        (!entries.is_empty()).then(|| Arc::from(entries))
    }

    /// Stores new lists, then bumps their versions (so a lookup that sees a new version finds
    /// the new list when it takes it).
    fn store(&mut self, lists: Vec<(usize, List<T>)>) {
        for (bucket, list) in lists {
            let before = self.lists[bucket].as_ref().map_or(0, |list| list.len());
            let after = list.as_ref().map_or(0, |list| list.len());
            self.entries = self.entries - before + after;
            self.lists[bucket] = list;
            self.versions[bucket].fetch_add(1, Ordering::Release);
        }
    }
}

/// A thread's copies of one registry's buckets.
struct Local<T> {
    generation: u64,
    bits: u32,
    versions: Arc<[AtomicU64]>,
    /// Per bucket: the version the copy was taken at, and the list then.
    copies: Vec<(u64, List<T>)>,
}

impl<T: Clone> Local<T> {
    /// Copies of `table` taken now: every bucket's list as empty at version 0, which is right
    /// for the buckets never changed and out of date for the others.
    fn of(table: &Table<T>) -> Self {
        Local {
            generation: table.generation,
            bits: table.bits,
            versions: Arc::clone(&table.versions),
            copies: vec![(0, None); table.lists.len()],
        }
    }
}

/// One thread's copies of every registry it looked up in.
struct Copies {
    registries: Vec<(u64, Weak<()>, Box<dyn Any>)>,
}

thread_local! {
    static COPIES: RefCell<Copies> = const { RefCell::new(Copies { registries: Vec::new() }) };
}

impl<T> Default for PointerRegistry<T> {
    fn default() -> Self {
        Self {
            id: NEXT_REGISTRY_ID.fetch_add(1, Ordering::Relaxed),
            alive: Arc::new(()),
            generation: AtomicU64::new(0),
            used: AtomicU32::new(0),
            writer: Mutex::new(Ranges {
                by_start: BTreeMap::new(),
                per_level: [0; SHIFTS.len()],
                table: Table::new(0, FIRST_BUCKET_BITS),
            }),
        }
    }
}

impl<T: Clone + 'static> PointerRegistry<T> {
    /// An empty registry.
    pub fn new() -> Self {
        Self::default()
    }

    fn lock(&self) -> MutexGuard<'_, Ranges<T>> {
        self.writer
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn note_levels(&self, ranges: &Ranges<T>) {
        let used = ranges
            .per_level
            .iter()
            .enumerate()
            .filter(|(_, count)| **count > 0)
            .fold(0, |mask, (level, _)| mask | 1 << level);
        self.used.store(used, Ordering::Release);
    }

    /// A table of four times the buckets with every live range entered, if the current one
    /// holds more than [`MOST_PER_BUCKET`] entries per bucket.
    fn grow_if_full(&self, ranges: &mut Ranges<T>) {
        let table = &ranges.table;
        if table.entries <= MOST_PER_BUCKET << table.bits || table.bits + 2 > usize::BITS - 8 {
            return;
        }
        let mut grown = Table::new(table.generation + 1, table.bits + 2);
        let mut lists: Vec<Vec<Entry<T>>> = vec![Vec::new(); grown.lists.len()];
        for (entry, level) in ranges.by_start.values() {
            for bucket in buckets_of(
                *level,
                entry.base,
                entry.base + (entry.size - 1),
                grown.bits,
            ) {
                lists[bucket].push(entry.clone());
            }
        }
        for (bucket, list) in lists.into_iter().enumerate() {
            if !list.is_empty() {
                grown.entries += list.len();
                grown.lists[bucket] = Some(Arc::from(list));
                // Version 1: a thread's fresh copies (version 0, empty) are out of date.
                grown.versions[bucket].store(1, Ordering::Relaxed);
            }
        }
        ranges.table = grown;
        self.generation
            .store(ranges.table.generation, Ordering::Release);
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
        if let Some((&other, (other_entry, _))) = ranges.by_start.range(..=last).next_back()
            && other + (other_entry.size - 1) >= base
        {
            return Err(RegistryError::Overlaps { base, size, other });
        }
        let level = level_of(size);
        let entry = Entry { base, size, value };
        // Every new list is made before any is stored, so a panic (a value's clone) leaves
        // nothing changed.
        let lists: Vec<_> = buckets_of(level, base, last, ranges.table.bits)
            .map(|bucket| {
                let list = ranges.table.changed(bucket, |entries| {
                    let position = entries.partition_point(|other| other.base < base);
                    entries.insert(position, entry.clone());
                });
                (bucket, list)
            })
            .collect();
        ranges.by_start.insert(base, (entry, level));
        ranges.per_level[level] += 1;
        // Marked before the lists change, so a lookup that finds the range finds its level.
        self.note_levels(&ranges);
        ranges.table.store(lists);
        self.grow_if_full(&mut ranges);
        Ok(())
    }

    /// Forgets the range that starts at `base` and returns it; `None` if no live range starts
    /// there (an interior address removes nothing).
    pub fn remove(&self, base: usize) -> Option<Entry<T>> {
        let mut ranges = self.lock();
        let (entry, level) = ranges.by_start.get(&base)?.clone();
        let last = base + (entry.size - 1);
        let lists: Vec<_> = buckets_of(level, base, last, ranges.table.bits)
            .map(|bucket| {
                let list = ranges.table.changed(bucket, |entries| {
                    entries.retain(|other| other.base != base);
                });
                (bucket, list)
            })
            .collect();
        ranges.table.store(lists);
        ranges.by_start.remove(&base);
        ranges.per_level[level] -= 1;
        self.note_levels(&ranges);
        Some(entry)
    }

    /// The live range containing `address`, if any.
    pub fn find(&self, address: usize) -> Option<Entry<T>> {
        self.find_map(address, Entry::clone)
    }

    /// `read` applied to the live range containing `address`, if any, without copying the entry
    /// (`read` runs on this thread's copy of the range's bucket: keep it short; it may look up
    /// in this or any registry, and such nested lookups take the writer lock).
    ///
    /// ```
    /// # use lazy_usm_registry::PointerRegistry;
    /// let registry = PointerRegistry::new();
    /// registry.insert(0x20_0000, 64, 7u32).unwrap();
    /// assert_eq!(registry.find_map(0x20_0000 + 63, |entry| entry.value * 2), Some(14));
    /// ```
    #[inline]
    pub fn find_map<R>(&self, address: usize, read: impl FnOnce(&Entry<T>) -> R) -> Option<R> {
        let mut read = Some(read);
        let fast = COPIES.try_with(|copies| {
            // Taken already: `read` of an outer lookup is using the registry.
            let mut copies = copies.try_borrow_mut().ok()?;
            let local = self.local(&mut copies);
            Some(self.find_in(local, address).and_then(|(bucket, position)| {
                let entry = &local.copies[bucket].1.as_deref()?[position];
                read.take().map(|read| read(entry))
            }))
        });
        match fast {
            Ok(Some(found)) => found,
            // No copies to read: the thread is exiting, or this is a nested lookup.
            _ => {
                let found = self.find_locked(address)?;
                read.take().map(|read| read(&found))
            }
        }
    }

    /// The lookup without a thread's copies: under the writer lock, the entry cloned (so
    /// `read` runs with no lock held).
    #[cold]
    fn find_locked(&self, address: usize) -> Option<Entry<T>> {
        let ranges = self.lock();
        let (_, (entry, _)) = ranges.by_start.range(..=address).next_back()?;
        entry.contains(address).then(|| entry.clone())
    }

    /// This thread's copies of this registry, made (and those of dropped registries dropped)
    /// on first use, and taken anew when the table has grown. Inlined: a lookup is a few dozen
    /// instructions, and a call's prologue and epilogue were a fifth of them.
    #[inline(always)]
    fn local<'copies>(&self, copies: &'copies mut Copies) -> &'copies mut Local<T> {
        let generation = self.generation.load(Ordering::Acquire);
        let position = match copies.registries.iter().position(|(id, ..)| *id == self.id) {
            Some(position) => position,
            None => self.first_copies(copies),
        };
        let local = copies.registries[position]
            .2
            .downcast_mut::<Local<T>>()
            .expect("a registry's copies are of its own type");
        if local.generation != generation {
            self.copies_anew(local);
        }
        local
    }

    /// This thread's first copies of this registry (those of dropped registries dropped);
    /// their place in `copies`.
    #[cold]
    #[inline(never)]
    fn first_copies(&self, copies: &mut Copies) -> usize {
        copies
            .registries
            .retain(|(_, alive, _)| alive.strong_count() > 0);
        let local = Local::of(&self.lock().table);
        copies
            .registries
            .push((self.id, Arc::downgrade(&self.alive), Box::new(local)));
        copies.registries.len() - 1
    }

    /// `local` taken anew from the current table (it has grown).
    #[cold]
    #[inline(never)]
    fn copies_anew(&self, local: &mut Local<T>) {
        let fresh = Local::of(&self.lock().table);
        // The old copies' values are dropped with no lock held.
        drop(std::mem::replace(local, fresh));
    }

    /// The bucket and position in it of the range holding `address`, in `local`'s copies (each
    /// bucket looked at brought up to date first).
    #[inline(always)]
    fn find_in(&self, local: &mut Local<T>, address: usize) -> Option<(usize, usize)> {
        let mut used = self.used.load(Ordering::Acquire);
        while used != 0 {
            let level = used.trailing_zeros() as usize;
            used &= used - 1;
            let mut bucket = bucket_of(level, window_of(level, address), local.bits);
            if local.copies[bucket].0 != local.versions[bucket].load(Ordering::Acquire) {
                bucket = self.bring_up_to_date(local, level, address);
            }
            let Some(list) = local.copies[bucket].1.as_deref() else {
                continue;
            };
            if let Some(position) = search(list, address) {
                return Some((bucket, position));
            }
        }
        None
    }

    /// Takes the bucket of `address` at `level` again, under the writer lock (all of `local`
    /// if the table has grown since it was taken); returns the bucket's index.
    #[cold]
    #[inline(never)]
    fn bring_up_to_date(&self, local: &mut Local<T>, level: usize, address: usize) -> usize {
        let ranges = self.lock();
        // What the copies replace is dropped after the lock: a value's drop may use the
        // registry.
        let mut old_copies = None;
        if local.generation != ranges.table.generation {
            old_copies = Some(std::mem::replace(local, Local::of(&ranges.table)));
        }
        let bucket = bucket_of(level, window_of(level, address), local.bits);
        let old_list = std::mem::replace(
            &mut local.copies[bucket],
            (
                ranges.table.versions[bucket].load(Ordering::Relaxed),
                ranges.table.lists[bucket].clone(),
            ),
        );
        drop(ranges);
        drop((old_copies, old_list));
        bucket
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
        // Every level's largest range is its own, the next byte the next level's.
        for (level, &shift) in SHIFTS.iter().enumerate().take(SHIFTS.len() - 1) {
            assert_eq!(level_of(1 << shift), level);
            assert_eq!(level_of((1 << shift) + 1), level + 1);
        }
        assert_eq!(level_of(usize::MAX), SHIFTS.len() - 1);
    }

    /// The count over a bucket's list, at every length from empty to 41: each range found from
    /// its first and last byte, none from the gaps or past the ends.
    #[test]
    fn search_finds_each_range_of_lists_of_any_length() {
        for length in 0..=41usize {
            // Ranges of 1 to 3 bytes with a gap of 2 after each, from 0x100.
            let list: Vec<Entry<usize>> = (0..length)
                .map(|index| Entry {
                    base: 0x100 + index * 5,
                    size: 1 + index % 3,
                    value: index,
                })
                .collect();
            let naive = |address: usize| list.iter().find(|entry| entry.contains(address));
            for address in 0xf0..0x100 + length * 5 + 10 {
                let found = search(&list, address).map(|position| list[position].value);
                assert_eq!(
                    found,
                    naive(address).map(|entry| entry.value),
                    "length {length}, address {address:#x}"
                );
            }
            for entry in &list {
                assert_eq!(
                    search(&list, entry.base).map(|found| list[found].value),
                    Some(entry.value)
                );
                let last = entry.base + (entry.size - 1);
                assert_eq!(
                    search(&list, last).map(|found| list[found].value),
                    Some(entry.value)
                );
            }
        }
        // The ends of the address space.
        let top = [Entry {
            base: usize::MAX - 1,
            size: 2,
            value: 0,
        }];
        assert!(search(&top, usize::MAX).is_some() && search(&top, 0).is_none());
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

    /// The widest range, on the level of the whole address space.
    #[test]
    fn the_last_level() {
        let registry = PointerRegistry::new();
        registry.insert(1, usize::MAX - 1, "everything").unwrap();
        assert_eq!(
            registry.find(usize::MAX - 1).map(|entry| entry.value),
            Some("everything")
        );
        assert!(registry.find(0).is_none() && registry.find(usize::MAX).is_none());
        assert!(registry.insert(1 << 40, 1, "inside").is_err());
        assert!(registry.remove(1).is_some());
        assert!(registry.find(usize::MAX - 1).is_none());
    }

    /// A thread's copies follow every change: the table growing several times (a new
    /// generation), ranges removed and others inserted in buckets it had copied.
    #[test]
    fn a_threads_copies_follow_growth_and_changes() {
        let registry = PointerRegistry::new();
        let base = |index: usize| 0x7000_0000_0000 + index * 0x1_0000;
        registry.insert(base(0), 100, 0usize).unwrap();
        assert_eq!(
            registry.find(base(0) + 99).map(|entry| entry.value),
            Some(0)
        );
        let first_bits = registry.lock().table.bits;
        for index in 1..5000 {
            registry.insert(base(index), 100 + index, index).unwrap();
            // Looked up at once, through copies of a table that may have just grown.
            assert_eq!(
                registry.find(base(index)).map(|entry| entry.value),
                Some(index)
            );
        }
        let table_bits = registry.lock().table.bits;
        assert!(
            table_bits >= first_bits + 4,
            "grew twice at least: {first_bits} to {table_bits}"
        );
        for index in (0..5000).step_by(2) {
            assert_eq!(
                registry.remove(base(index)).map(|entry| entry.value),
                Some(index)
            );
        }
        for index in 0..5000 {
            let found = registry.find(base(index) + 99).map(|entry| entry.value);
            assert_eq!(found, (index % 2 == 1).then_some(index), "range {index}");
        }
        // In a bucket this thread copied: the same start again, with a new value.
        registry.insert(base(0), 8, 77).unwrap();
        assert_eq!(
            registry.find(base(0) + 7).map(|entry| entry.value),
            Some(77)
        );
        assert!(registry.find(base(0) + 8).is_none());
        let entries = registry.lock().table.entries;
        assert_eq!(
            entries, 2501,
            "each range once: each starts a window it ends in"
        );
    }

    /// Another thread's changes reach a thread that copied the buckets before them.
    #[test]
    fn changes_on_another_thread_reach_a_threads_copies() {
        let registry = PointerRegistry::new();
        registry.insert(0x10_0000, 64, 1u32).unwrap();
        assert_eq!(registry.find(0x10_0010).map(|entry| entry.value), Some(1));
        std::thread::scope(|scope| {
            scope.spawn(|| {
                registry.remove(0x10_0000).unwrap();
                registry.insert(0x10_0000, 16, 2).unwrap();
                for index in 1..2000 {
                    registry.insert(0x20_0000 + index * 0x100, 16, 3).unwrap();
                }
            });
        });
        assert_eq!(registry.find(0x10_0000).map(|entry| entry.value), Some(2));
        assert!(registry.find(0x10_0010).is_none(), "the old range is gone");
        assert_eq!(
            registry
                .find(0x20_0000 + 1999 * 0x100 + 15)
                .map(|entry| entry.value),
            Some(3)
        );
    }

    /// A miss in current copies is answered from them: it does not wait for the writer lock.
    #[test]
    fn a_miss_in_current_copies_takes_no_lock() {
        let registry = PointerRegistry::new();
        registry.insert(0x10_0000, 64, 1u32).unwrap();
        let (answered, answers) = std::sync::mpsc::channel();
        std::thread::scope(|scope| {
            let (warmed, warm) = std::sync::mpsc::channel();
            let (go, wait) = std::sync::mpsc::channel::<()>();
            let registry = &registry;
            scope.spawn(move || {
                // The thread's copies of the miss's bucket, taken under the lock.
                assert!(registry.find(0x10_0040).is_none());
                warmed.send(()).unwrap();
                wait.recv().unwrap();
                answered.send(registry.find(0x10_0040).is_none()).unwrap();
            });
            warm.recv().unwrap();
            let held = registry.lock();
            go.send(()).unwrap();
            let answer = answers.recv_timeout(std::time::Duration::from_secs(20));
            drop(held);
            match answer {
                Ok(missed) => assert!(missed, "the miss found a range"),
                Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
                    panic!("the miss waited for the writer lock")
                }
                // The lookup thread panicked: the scope reports its panic.
                Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {}
            }
        });
    }

    /// A lookup inside another's `read` (the thread's copies are in use) answers under the
    /// writer lock, the same.
    #[test]
    fn a_nested_lookup_answers_the_same() {
        let registry = PointerRegistry::new();
        registry.insert(0x1000, 16, 1u32).unwrap();
        registry.insert(0x2000, 16, 2u32).unwrap();
        let nested = registry.find_map(0x1008, |outer| {
            (
                outer.value,
                registry.find(0x2008).map(|inner| inner.value),
                registry.find(0x3000),
            )
        });
        assert_eq!(nested, Some((1, Some(2), None)));
    }

    /// A range across a window boundary is found from both windows, and leaves both.
    #[test]
    fn a_range_across_two_windows() {
        let registry = PointerRegistry::new();
        let window = 1usize << SHIFTS[0];
        registry.insert(3 * window - 8, 16, "across").unwrap();
        assert_eq!(registry.lock().table.entries, 2);
        assert!(registry.find(3 * window - 8).is_some() && registry.find(3 * window + 7).is_some());
        registry.remove(3 * window - 8).unwrap();
        assert_eq!(registry.lock().table.entries, 0);
        assert!(registry.find(3 * window + 7).is_none());
    }
}
