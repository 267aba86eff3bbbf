//! A set of device indices in one word, so "already resident?" is one atomic load.

use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};

/// Up to 64 device indices of one context. An index beyond 63 is a typed error, never a
/// panic or a wrapped shift.
///
/// ```
/// use lazy_usm::{DeviceSet, Error};
/// let set = DeviceSet::single(0)?.with(3)?;
/// assert!(set.contains(3) && !set.contains(1));
/// assert_eq!(set.iter().collect::<Vec<_>>(), [0, 3]);
/// assert_eq!(set.without(0), DeviceSet::single(3)?);
/// assert!(matches!(DeviceSet::single(64), Err(Error::DeviceIndex { index: 64, limit: 64 })));
/// assert!(matches!(set.with(70), Err(Error::DeviceIndex { index: 70, .. })));
/// assert_eq!(set.without(70), set, "removing what cannot be there changes nothing");
/// # Ok::<(), Error>(())
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct DeviceSet(u64);

/// Most devices a context may have for residency tracking.
pub const MAX_DEVICES: u32 = 64;

impl DeviceSet {
    /// No device.
    pub const EMPTY: Self = Self(0);

    /// The set holding only `index`.
    pub fn single(index: u32) -> Result<Self, crate::Error> {
        Self::EMPTY.with(index)
    }

    fn bit(index: u32) -> Result<u64, crate::Error> {
        1u64.checked_shl(index).ok_or(crate::Error::DeviceIndex {
            index,
            limit: MAX_DEVICES,
        })
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
    pub fn with(self, index: u32) -> Result<Self, crate::Error> {
        Ok(Self(self.0 | Self::bit(index)?))
    }

    /// The set with `index` removed (an index beyond the set's range is never in it).
    pub fn without(self, index: u32) -> Self {
        Self(self.0 & !Self::bit(index).unwrap_or(0))
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

    // Sequentially consistent: the pin protocol (module `pin`) orders these against pins.
    // Indices come from a manager's context, which has at most MAX_DEVICES devices.

    pub(crate) fn load(&self) -> DeviceSet {
        DeviceSet(self.0.load(Ordering::SeqCst))
    }

    /// The set, read with a read-modify-write: after a pin, the pin protocol's read (module
    /// `pin`), which holds under acquire/release reasoning alone.
    pub(crate) fn read_claimed(&self) -> DeviceSet {
        DeviceSet(self.0.fetch_or(0, Ordering::SeqCst))
    }

    pub(crate) fn insert(&self, index: u32) {
        self.0.fetch_or(1 << index, Ordering::SeqCst);
    }

    pub(crate) fn store(&self, set: DeviceSet) {
        self.0.store(set.0, Ordering::SeqCst);
    }

    pub(crate) fn remove(&self, index: u32) {
        self.0.fetch_and(!(1 << index), Ordering::SeqCst);
    }
}
