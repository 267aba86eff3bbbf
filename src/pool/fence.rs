//! What a block freed behind device work waits for before the pool reuses it.

use super::Slot;
use crate::error::{Error, Result};
use crate::ze::command::Completion;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How long [`WorkFence::settle`]'s default polls before it gives up, and how long a dropped
/// pool goes on asking fences to settle before it leaks what is left.
pub const FENCE_SETTLE_WAIT: Duration = Duration::from_secs(5);

/// A block freed behind work ([`Block::free_after`](super::Block::free_after)): kept out of
/// every free list until the work completes.
pub(super) struct Deferred {
    pub slot: Slot,
    pub arena: u8,
    pub class: u16,
    pub capacity: usize,
    /// The peers the block was shared with and its size: the sharing lasts until the work
    /// completes, since the work may read the block there (trim must not evict it).
    pub peers: u64,
    pub size: usize,
    pub work: Arc<dyn WorkFence>,
}

/// Device work a freed block must outlive: the pool reuses the block only once
/// [`WorkFence::is_complete`] says so, and never waits for it (it asks again at its next
/// allocation or [`DevicePool::reclaim`](super::DevicePool::reclaim)).
///
/// lazy-usm's own [`Completion`] is one; a binding implements it for its runtime's events (a
/// SYCL barrier event on the queue that freed the block, say).
pub trait WorkFence: Send + Sync {
    /// Whether the work has completed. A fence that cannot tell (its runtime reports an error)
    /// answers `false`: the block stays out of use rather than be reused under running work.
    fn is_complete(&self) -> bool;

    /// Blocks until the work has completed, or fails when it cannot tell: the pool calls it
    /// only when it is dropped with blocks still waiting, before their memory goes back to the
    /// driver (a block whose fence fails is leaked, never freed under the device). The default
    /// polls [`WorkFence::is_complete`], backing off to a millisecond between polls, for at most
    /// [`FENCE_SETTLE_WAIT`], then answers [`Error::WorkNotComplete`]; an override must end too.
    ///
    /// ```
    /// use lazy_usm::{Error, WorkFence};
    /// struct Never;
    /// impl WorkFence for Never {
    ///     fn is_complete(&self) -> bool { false }
    /// }
    /// assert!(matches!(Never.settle(), Err(Error::WorkNotComplete { .. })));
    /// ```
    fn settle(&self) -> Result<()> {
        let deadline = Instant::now() + FENCE_SETTLE_WAIT;
        let mut pause = Duration::from_micros(1);
        while !self.is_complete() {
            if Instant::now() >= deadline {
                return Err(Error::WorkNotComplete {
                    waited: FENCE_SETTLE_WAIT,
                });
            }
            std::thread::sleep(pause);
            pause = (pause * 2).min(Duration::from_millis(1));
        }
        Ok(())
    }
}

impl WorkFence for Completion {
    fn is_complete(&self) -> bool {
        Completion::is_complete(self).unwrap_or(false)
    }

    fn settle(&self) -> Result<()> {
        Completion::settle(self)
    }
}
