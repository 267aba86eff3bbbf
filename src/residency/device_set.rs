//! A set of device indices in one word, so "already resident?" is one atomic load.

use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};

/// Up to 64 device indices of one context.
///
/// ```
/// use lazy_usm::DeviceSet;
/// let set = DeviceSet::single(0).with(3);
/// assert!(set.contains(3) && !set.contains(1));
/// assert_eq!(set.iter().collect::<Vec<_>>(), [0, 3]);
/// assert_eq!(set.without(0), DeviceSet::single(3));
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct DeviceSet(u64);

/// Most devices a context may have for residency tracking.
pub const MAX_DEVICES: u32 = 64;

impl DeviceSet {
    /// No device.
    pub const EMPTY: Self = Self(0);

    /// The set holding only `index`.
    pub const fn single(index: u32) -> Self {
        Self(1 << index)
    }

    /// Devices `0..count`.
    pub const fn first(count: u32) -> Self {
        if count >= MAX_DEVICES {
            Self(u64::MAX)
        } else {
            Self((1 << count) - 1)
        }
    }

    /// Whether `index` is in the set.
    pub const fn contains(self, index: u32) -> bool {
        index < MAX_DEVICES && self.0 & (1 << index) != 0
    }

    /// The set with `index` added.
    pub const fn with(self, index: u32) -> Self {
        Self(self.0 | 1 << index)
    }

    /// The set with `index` removed.
    pub const fn without(self, index: u32) -> Self {
        Self(self.0 & !(1 << index))
    }

    /// Number of devices.
    pub const fn len(self) -> u32 {
        self.0.count_ones()
    }

    /// Whether the set is empty.
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The indices, ascending.
    ///
    /// ```
    /// assert_eq!(lazy_usm::DeviceSet::first(3).iter().collect::<Vec<_>>(), [0, 1, 2]);
    /// ```
    pub fn iter(self) -> impl Iterator<Item = u32> {
        (0..MAX_DEVICES).filter(move |&index| self.contains(index))
    }

    /// The set with these raw bits.
    pub const fn from_bits(bits: u64) -> Self {
        Self(bits)
    }

    /// The raw bits.
    pub const fn bits(self) -> u64 {
        self.0
    }
}

impl fmt::Debug for DeviceSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.iter()).finish()
    }
}

/// A [`DeviceSet`] shared between threads.
#[derive(Debug, Default)]
pub(crate) struct AtomicDeviceSet(AtomicU64);

impl AtomicDeviceSet {
    pub(crate) fn new(set: DeviceSet) -> Self {
        Self(AtomicU64::new(set.0))
    }

    pub(crate) fn load(&self) -> DeviceSet {
        DeviceSet(self.0.load(Ordering::Acquire))
    }

    pub(crate) fn insert(&self, index: u32) {
        self.0.fetch_or(1 << index, Ordering::AcqRel);
    }

    pub(crate) fn remove(&self, index: u32) {
        self.0.fetch_and(!(1 << index), Ordering::AcqRel);
    }
}
