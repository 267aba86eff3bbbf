//! How work this layer queues tells a layer above that tracks memory (lazy-usm's residency
//! manager) that the memory is in use, so that its residency is not evicted under the work.
//! This layer knows nothing of residency: it counts uses through [`UseTracking`], which the
//! residency layer implements for the memory it manages.

use std::any::Any;

/// Memory whose uses a layer above counts. The protocol behind the counts (a use is counted
/// before the memory's residency is read, and an evictor backs off while any is) is the
/// residency layer's; see its `pin` module.
#[doc(hidden)]
pub trait UseTracking: Sync {
    /// One use begins (before the work reads the memory's residency).
    fn begin_use(&self);
    /// A use begun with [`UseTracking::begin_use`] is over.
    fn end_use(&self);
    /// One use, held as long as the returned guard lives: for work that outlives the call.
    fn hold_use(&self) -> HeldUse;
    /// The tracker's own record of the memory, for the layer above to find its bookkeeping.
    fn record(&self) -> &dyn Any;
    /// The memory is about to be used on `device`; whether the tracker counted something it
    /// weighs later (a pool block's first use by a peer).
    fn note_use_on(&self, device: u32) -> bool {
        let _ = device;
        false
    }
}

/// Memory's use tracking as [`Memory::use_tracking`](crate::ze::memory::Memory::use_tracking)
/// hands it out: opaque outside the crate, so that no caller can end a use it did not begin
/// (which would let an evictor take memory from under queued work).
///
/// ```compile_fail,E0624
/// # use lazy_usm::*;
/// # let devices = Runtime::simulated("b70x2")?.devices()?;
/// let manager = ResidencyManager::new(Context::new(&devices)?, ResidencyConfig::default())?;
/// let allocation = manager.allocate(&devices[0], 4096)?;
/// // The tracker is the crate's alone: no use can be ended from outside.
/// allocation.use_tracking().unwrap().tracker().end_use();
/// # Ok::<(), Error>(())
/// ```
#[doc(hidden)]
#[derive(Clone, Copy)]
pub struct Tracked<'a>(&'a dyn UseTracking);

impl<'a> Tracked<'a> {
    /// The tracking of memory that implements it.
    pub(crate) fn new(tracker: &'a dyn UseTracking) -> Self {
        Self(tracker)
    }

    /// The tracker, for the crate's own uses.
    pub(crate) fn tracker(self) -> &'a dyn UseTracking {
        self.0
    }
}

/// One use of tracked memory, over when dropped.
#[doc(hidden)]
pub struct HeldUse(#[allow(dead_code)] Box<dyn Send + Sync>);

impl HeldUse {
    /// A use that ends when `guard` is dropped.
    pub fn new(guard: impl Send + Sync + 'static) -> Self {
        Self(Box::new(guard))
    }
}

/// Uses counted for the length of a call that waits for its device work (a synchronous copy or
/// launch). They borrow the memory the call borrows; being local to lazy-usm's own functions,
/// they cannot be leaked by a caller.
pub(crate) struct CallUses<'a> {
    tracked: Vec<&'a dyn UseTracking>,
}

impl<'a> CallUses<'a> {
    /// Begins one use of each of `tracked`.
    pub(crate) fn begin(tracked: impl Iterator<Item = &'a dyn UseTracking>) -> Self {
        let tracked: Vec<&'a dyn UseTracking> = tracked.collect();
        for tracker in &tracked {
            tracker.begin_use();
        }
        Self { tracked }
    }
}

impl Drop for CallUses<'_> {
    fn drop(&mut self) {
        for tracker in &self.tracked {
            tracker.end_use();
        }
    }
}
