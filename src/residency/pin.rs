//! Pins: how a use of managed memory keeps its residency from being evicted under it.
//!
//! The protocol, between a use (a copy, an asynchronous copy until it completes, a recorded
//! list that holds the memory) and an evictor (`evict_from`, the host budget, peer-access
//! switches, a pool's `trim`):
//! - a use increments the allocation's pin count *before* it reads the resident bit, and keeps
//!   the pin until the device work is done;
//! - an evictor, holding the manager's state lock, clears the resident bit *first*, then reads
//!   the pin count: if it is not zero, it sets the bit again and evicts nothing.
//!
//! Both sides use sequentially consistent operations, so in their one total order either the
//! use's read of the bit comes after the evictor's clear (the use sees "not resident" and takes
//! the slow path, which waits for the state lock and makes it resident again), or the use's pin
//! comes before the evictor's read of the pins (the evictor backs off). A use can never run on
//! memory an evictor removed. A leaked pin (its guard forgotten) only keeps the residency: safe.

use super::manager::{AllocationState, Shared};
use crate::memory::Memory;
use std::sync::Arc;
use std::sync::atomic::Ordering;

/// One use of one managed allocation, held until the work using it is done.
pub(crate) struct Pin {
    state: Arc<AllocationState>,
    manager: Arc<Shared>,
}

impl Pin {
    pub(crate) fn new(state: &Arc<AllocationState>, manager: &Arc<Shared>) -> Self {
        state.pins.fetch_add(1, Ordering::SeqCst);
        Self {
            state: Arc::clone(state),
            manager: Arc::clone(manager),
        }
    }
}

impl Drop for Pin {
    fn drop(&mut self) {
        self.state.pins.fetch_sub(1, Ordering::SeqCst);
        // Peer residencies whose pair was disabled while this use held them can go now.
        self.manager.settle(&self.state);
    }
}

/// Pins of the managed memory among `memories` (unmanaged memory needs none).
pub(crate) fn pin_all(memories: &[&dyn Memory]) -> Vec<Pin> {
    memories
        .iter()
        .filter_map(|memory| memory.residency_handle())
        .map(|handle| Pin::new(handle.state, handle.manager))
        .collect()
}
