//! What is in use and may not go: allocations, lists and kernels queued work uses, each
//! context's objects, and the event slots taken.

use rustc_hash::FxHashMap;
use std::collections::HashSet;

/// What queued work and live objects use.
pub(crate) struct UseCounts {
    /// (allocation base, executing device) -> submitted commands using it there, not yet done.
    pub device_uses: FxHashMap<(usize, u32), u32>,
    /// Regular command list -> its executions not yet completed.
    pub list_uses: FxHashMap<usize, u32>,
    /// Kernel -> queued launches of it.
    pub kernel_uses: FxHashMap<usize, u32>,
    /// Objects created in each context that must go before it.
    pub context_children: FxHashMap<usize, u64>,
    pub used_event_slots: HashSet<(usize, u32)>,
}

impl UseCounts {
    pub(crate) fn new() -> Self {
        Self {
            device_uses: FxHashMap::default(),
            list_uses: FxHashMap::default(),
            kernel_uses: FxHashMap::default(),
            context_children: FxHashMap::default(),
            used_event_slots: HashSet::new(),
        }
    }
}
