//! How a pool sizes and caches memory, checked before a pool is made.

use super::classes::GRANULE;
use crate::error::{Error, Result};

/// How a [`DevicePool`](super::DevicePool) sizes and caches memory.
///
/// The defaults follow what serving and training workloads allocate: many small tensors and
/// buckets up to 1 MiB (size classes, 2 MiB segments: the granularity drivers map device memory
/// in), activations and parameters of tens of MiB (best fit in 32 MiB segments, split and
/// coalesced), and a dedicated allocation above 64 MiB, where rounding a segment would waste
/// more than it saves.
///
/// ```
/// let config = lazy_usm::PoolConfig::default();
/// assert_eq!((config.small_max, config.dedicated_threshold), (1 << 20, 64 << 20));
/// assert_eq!(config.thread_cache_bytes, 4 << 20);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PoolConfig {
    /// Largest request served from size classes.
    pub small_max: usize,
    /// Size of a small-class segment (at least eight blocks of the class).
    pub small_segment: usize,
    /// Size of a large segment (or the request rounded to 2 MiB, if larger).
    pub large_segment: usize,
    /// Requests above this get a dedicated allocation.
    pub dedicated_threshold: usize,
    /// Most idle bytes kept cached; above it, idle segments are released as new ones are made
    /// (`None`: no limit; `trim` releases them on demand).
    pub max_cached_bytes: Option<u64>,
    /// How long an allocation that finds the device out of memory waits for blocks freed behind
    /// running work ([`Block::free_after`](super::Block::free_after)) to come back before it
    /// reports out of memory.
    pub out_of_memory_wait: std::time::Duration,
    /// Most bytes of freed small blocks each thread keeps for its own next allocations from the
    /// pool (0: none, every block goes back to the shared free lists). A thread's cache is
    /// what makes a hit free of locks and shared writes; it returns to the shared lists in
    /// batches, when the thread exits, and when the pool is trimmed (at the thread's next call).
    /// When the device runs out of memory, another thread takes what an idle thread's cache
    /// holds at once (where the kernel has `membarrier`, Linux 4.14 and later).
    pub thread_cache_bytes: usize,
}

/// Largest segment size a [`PoolConfig`] may name (and largest dedicated threshold).
pub const MAX_SEGMENT: usize = 1 << 40;

impl PoolConfig {
    /// Checks every field; [`DevicePool::new`](super::DevicePool::new) calls it.
    ///
    /// ```
    /// use lazy_usm::{Error, PoolConfig};
    /// assert!(PoolConfig::default().validate().is_ok());
    /// let bad = PoolConfig { small_max: 1 << 30, ..PoolConfig::default() };
    /// assert!(matches!(bad.validate(), Err(Error::BadConfig { field: "small_max", .. })));
    /// let huge = PoolConfig { large_segment: usize::MAX, ..PoolConfig::default() };
    /// assert!(matches!(huge.validate(), Err(Error::BadConfig { field: "large_segment", .. })));
    /// ```
    pub fn validate(&self) -> Result<()> {
        let bad = |field: &'static str, reason: String| Err(Error::BadConfig { field, reason });
        if self.dedicated_threshold > MAX_SEGMENT {
            return bad(
                "dedicated_threshold",
                format!("{} is above {MAX_SEGMENT}", self.dedicated_threshold),
            );
        }
        if self.small_max < GRANULE || self.small_max > self.dedicated_threshold {
            return bad(
                "small_max",
                format!(
                    "{} must lie between {GRANULE} and dedicated_threshold {}",
                    self.small_max, self.dedicated_threshold
                ),
            );
        }
        for (field, size) in [
            ("small_segment", self.small_segment),
            ("large_segment", self.large_segment),
        ] {
            if size == 0 || size > MAX_SEGMENT {
                return bad(
                    field,
                    format!("{size} must lie between 1 and {MAX_SEGMENT}"),
                );
            }
        }
        if self.thread_cache_bytes > MAX_SEGMENT {
            return bad(
                "thread_cache_bytes",
                format!("{} is above {MAX_SEGMENT}", self.thread_cache_bytes),
            );
        }
        Ok(())
    }
}

impl Default for PoolConfig {
    fn default() -> Self {
        Self {
            small_max: 1 << 20,
            small_segment: 2 << 20,
            large_segment: 32 << 20,
            dedicated_threshold: 64 << 20,
            max_cached_bytes: None,
            out_of_memory_wait: std::time::Duration::from_secs(1),
            thread_cache_bytes: 4 << 20,
        }
    }
}
