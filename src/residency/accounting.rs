//! Host cost accounting: bytes lazy-usm made resident on devices that do not own them.

use std::sync::atomic::{AtomicU64, Ordering};

/// Peer residency on one device: bytes of other devices' allocations resident here.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct DeviceCost {
    /// Now.
    pub current_bytes: u64,
    /// Most at any time.
    pub peak_bytes: u64,
}

/// What peer residency has cost, per context and per device.
///
/// On compute-runtime 26.09+ each byte is a pinned host byte (the GTT mirror); on 26.05 a GTT
/// registration without pinning; on a true P2P fabric nothing.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct HostCost {
    /// By device index: peer bytes resident on that device.
    pub devices: Vec<DeviceCost>,
    /// All devices now.
    pub current_bytes: u64,
    /// All devices, most at any time.
    pub peak_bytes: u64,
    /// `zeContextMakeMemoryResident` calls made (owner and peer).
    pub make_resident_calls: u64,
    /// `zeContextEvictMemory` calls made.
    pub evict_calls: u64,
    /// Pinned host bytes held for staged copies (the bounce buffer).
    pub staging_bytes: u64,
}

struct Gauge {
    current: AtomicU64,
    peak: AtomicU64,
}

impl Gauge {
    fn new() -> Self {
        Self {
            current: AtomicU64::new(0),
            peak: AtomicU64::new(0),
        }
    }

    fn add(&self, bytes: u64) {
        let now = self.current.fetch_add(bytes, Ordering::AcqRel) + bytes;
        self.peak.fetch_max(now, Ordering::AcqRel);
    }

    fn sub(&self, bytes: u64) {
        self.current.fetch_sub(bytes, Ordering::AcqRel);
    }

    fn read(&self) -> DeviceCost {
        DeviceCost {
            current_bytes: self.current.load(Ordering::Acquire),
            peak_bytes: self.peak.load(Ordering::Acquire),
        }
    }
}

/// The live counters behind [`HostCost`].
pub(crate) struct Accounting {
    devices: Vec<Gauge>,
    total: Gauge,
    make_resident_calls: AtomicU64,
    evict_calls: AtomicU64,
    staging_bytes: AtomicU64,
}

impl Accounting {
    pub(crate) fn new(devices: usize) -> Self {
        Self {
            devices: (0..devices).map(|_| Gauge::new()).collect(),
            total: Gauge::new(),
            make_resident_calls: AtomicU64::new(0),
            evict_calls: AtomicU64::new(0),
            staging_bytes: AtomicU64::new(0),
        }
    }

    pub(crate) fn resident_call(&self) {
        self.make_resident_calls.fetch_add(1, Ordering::AcqRel);
    }

    pub(crate) fn evict_call(&self) {
        self.evict_calls.fetch_add(1, Ordering::AcqRel);
    }

    pub(crate) fn peer_added(&self, device: u32, bytes: u64) {
        self.devices[device as usize].add(bytes);
        self.total.add(bytes);
    }

    pub(crate) fn peer_removed(&self, device: u32, bytes: u64) {
        self.devices[device as usize].sub(bytes);
        self.total.sub(bytes);
    }

    pub(crate) fn current(&self) -> u64 {
        self.total.read().current_bytes
    }

    pub(crate) fn add_staging(&self, bytes: u64) {
        self.staging_bytes.fetch_add(bytes, Ordering::AcqRel);
    }

    pub(crate) fn snapshot(&self) -> HostCost {
        let total = self.total.read();
        HostCost {
            devices: self.devices.iter().map(Gauge::read).collect(),
            current_bytes: total.current_bytes,
            peak_bytes: total.peak_bytes,
            make_resident_calls: self.make_resident_calls.load(Ordering::Acquire),
            evict_calls: self.evict_calls.load(Ordering::Acquire),
            staging_bytes: self.staging_bytes.load(Ordering::Acquire),
        }
    }
}
