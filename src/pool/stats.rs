//! What a pool reports: its statistics, summed over the counters each thread keeps, and a
//! readable summary.

use super::thread_cache::Totals;
use super::{DevicePool, lock};
use crate::ze::memory::Memory;
use std::sync::atomic::Ordering;

/// Statistics of a [`DevicePool`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PoolStats {
    /// Index of the pool's device.
    pub device: u32,
    /// Bytes of live blocks (their rounded sizes).
    pub allocated_bytes: u64,
    /// Bytes of all segments.
    pub reserved_bytes: u64,
    /// Reserved but not allocated.
    pub cached_bytes: u64,
    /// Most bytes reserved at any time.
    pub peak_reserved_bytes: u64,
    /// Most bytes allocated, as seen by the pool's slow path and by `stats` calls.
    pub peak_allocated_bytes: u64,
    /// Allocations served from memory the pool held: cached small blocks, free space of large
    /// segments.
    pub hits: u64,
    /// Allocations that needed new blocks carved or a new segment: small, large and dedicated.
    pub misses: u64,
    /// Live segments.
    pub segments: u64,
    /// Segments allocated from the driver (PyTorch's `num_device_alloc`).
    pub driver_allocations: u64,
    /// Segments released to the driver (PyTorch's `num_device_free`).
    pub driver_frees: u64,
    /// Driver allocations that found the device out of memory and were retried after the
    /// pool released what it cached (PyTorch's `num_alloc_retries`).
    pub allocation_retries: u64,
    /// Out-of-memory errors the pool returned (PyTorch's `num_ooms`).
    pub out_of_memory_errors: u64,
    /// Per peer device: segment bytes resident there, bytes of live blocks used there, and the
    /// difference (collateral residency).
    pub peers: Vec<PeerResidency>,
}

/// Peer residency of a pool's segments on one device.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PeerResidency {
    /// The peer's index.
    pub device: u32,
    /// Segment bytes resident on it.
    pub resident_bytes: u64,
    /// Bytes of live blocks used on it.
    pub shared_bytes: u64,
    /// `resident_bytes - shared_bytes`: residency the segment granularity added.
    pub collateral_bytes: u64,
}

impl DevicePool {
    /// Every thread's counters summed, with those of calls no thread cache served.
    fn totals(&self) -> Totals {
        lock(&self.shared.counters)
            .sum()
            .plus(self.shared.uncached.read())
    }

    /// Bytes of free blocks other threads' caches hold (this thread's, just flushed, hold none).
    pub(super) fn others_cached_bytes(&self) -> u64 {
        lock(&self.shared.counters).cached_bytes()
    }

    pub(super) fn allocated_bytes(&self) -> u64 {
        self.totals().allocated.max(0) as u64
    }

    pub(super) fn note_peak(&self) {
        self.peak_allocated
            .fetch_max(self.allocated_bytes(), Ordering::AcqRel);
    }

    pub(super) fn cached_bytes(&self) -> u64 {
        self.reserved
            .load(Ordering::Acquire)
            .saturating_sub(self.allocated_bytes())
    }

    /// Current statistics.
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// let manager = ResidencyManager::new(Context::new(&devices)?, ResidencyConfig::default())?;
    /// let pool = DevicePool::new(&manager, &devices[0], PoolConfig::default())?;
    /// let _block = pool.allocate(4096)?;
    /// let stats = pool.stats();
    /// assert_eq!((stats.allocated_bytes, stats.misses), (4096, 1));
    /// # Ok::<(), Error>(())
    /// ```
    pub fn stats(&self) -> PoolStats {
        self.note_peak();
        let totals = self.totals();
        let (hits, misses) = (totals.hits, totals.misses);
        let segments = self.live_segments();
        let allocated = self.allocated_bytes();
        let reserved = self.reserved.load(Ordering::Acquire);
        let peers = (0..self.shared_bytes.len() as u32)
            .filter(|&device| device != self.owner)
            .map(|device| {
                let resident_bytes: u64 = segments
                    .iter()
                    .filter(|segment| segment.allocation.resident().contains(device))
                    .map(|segment| segment.allocation.len() as u64)
                    .sum();
                let shared_bytes = self.shared_bytes[device as usize].load(Ordering::Acquire);
                PeerResidency {
                    device,
                    resident_bytes,
                    shared_bytes,
                    collateral_bytes: resident_bytes.saturating_sub(shared_bytes),
                }
            })
            .collect();
        PoolStats {
            device: self.owner,
            allocated_bytes: allocated,
            reserved_bytes: reserved,
            cached_bytes: reserved.saturating_sub(allocated),
            peak_reserved_bytes: self.peak_reserved.load(Ordering::Acquire),
            peak_allocated_bytes: self.peak_allocated.load(Ordering::Acquire).max(allocated),
            hits,
            misses,
            segments: segments.len() as u64,
            driver_allocations: self.driver_allocations.load(Ordering::Relaxed),
            driver_frees: self.driver_frees.load(Ordering::Relaxed),
            allocation_retries: self.allocation_retries.load(Ordering::Relaxed),
            out_of_memory_errors: self.out_of_memory_errors.load(Ordering::Relaxed),
            peers,
        }
    }

    /// A readable summary: the statistics and the largest named live blocks.
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// let manager = ResidencyManager::new(Context::new(&devices)?, ResidencyConfig::default())?;
    /// let pool = DevicePool::new(&manager, &devices[0], PoolConfig::default())?;
    /// assert!(pool.report(10).starts_with("device 0:"));
    /// # Ok::<(), Error>(())
    /// ```
    pub fn report(&self, largest: usize) -> String {
        use std::fmt::Write;
        let stats = self.stats();
        let mib = |bytes: u64| bytes as f64 / (1 << 20) as f64;
        let mut text = String::new();
        let _ = writeln!(
            text,
            "device {}: {:.1} MiB allocated, {:.1} MiB reserved ({:.1} MiB cached, peak {:.1} MiB), \
             {} segments, {} hits / {} misses",
            stats.device,
            mib(stats.allocated_bytes),
            mib(stats.reserved_bytes),
            mib(stats.cached_bytes),
            mib(stats.peak_reserved_bytes),
            stats.segments,
            stats.hits,
            stats.misses
        );
        for peer in &stats.peers {
            let _ = writeln!(
                text,
                "  resident on device {}: {:.1} MiB ({:.1} MiB shared, {:.1} MiB collateral)",
                peer.device,
                mib(peer.resident_bytes),
                mib(peer.shared_bytes),
                mib(peer.collateral_bytes)
            );
        }
        let mut named: Vec<(String, usize, usize)> = lock(&self.named)
            .iter()
            .map(|(&address, (name, size))| (name.clone(), *size, address))
            .collect();
        named.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        for (name, size, address) in named.into_iter().take(largest) {
            let _ = writeln!(text, "  {size:>12} B  {name}  at {address:#x}");
        }
        text
    }
}
