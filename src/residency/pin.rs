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
//! Both reads are read-modify-writes (`fetch_or(0)`, `fetch_add(0)`), so the protocol holds
//! under acquire/release reasoning alone, not only under the sequentially consistent total
//! order: the use's read of the bit either comes after the evictor's clear in that word's
//! modification order (the use sees "not resident" and takes the slow path, which waits for
//! the state lock and makes it resident again), or before it, and then the evictor's clear
//! synchronises with it, so the evictor's read of the pins sees the pin (and it backs off). A
//! use can never run on memory an evictor removed. `tests/pin_protocol.rs` model-checks every
//! interleaving with loom. A pool's trim reads its count of shared blocks the same way against
//! `ensure_resident_on`, which notes a block's peer use before reading the bit. A leaked pin
//! (its guard forgotten) only keeps the residency: safe.

use super::manager::{AllocationState, Shared};
use crate::ze::memory::Memory;
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

/// Pins held for the length of a call that waits for its device work (a synchronous copy or
/// launch): they borrow the memory the call borrows, so they need no reference counts. Being
/// local to lazy-usm's own functions, they cannot be leaked by a caller.
pub(crate) struct CallPins<'a> {
    pinned: Vec<(&'a AllocationState, &'a Shared)>,
}

impl Drop for CallPins<'_> {
    fn drop(&mut self) {
        for (state, manager) in &self.pinned {
            state.pins.fetch_sub(1, Ordering::SeqCst);
            manager.settle(state);
        }
    }
}

/// Pins the managed memory among `memories` for the length of a call.
pub(crate) fn pin_for_call<'a>(memories: &[&'a dyn Memory]) -> CallPins<'a> {
    let pinned = memories
        .iter()
        .filter_map(|memory| memory.residency_handle())
        .map(|handle| {
            let (state, manager): (&'a AllocationState, &'a Shared) =
                (&**handle.state, &**handle.manager);
            state.pins.fetch_add(1, Ordering::SeqCst);
            (state, manager)
        })
        .collect();
    CallPins { pinned }
}

/// Pins of the managed memory among `memories` (unmanaged memory needs none), owned: for work
/// that outlives the call (an asynchronous copy, a recorded list's held buffer).
pub(crate) fn pin_all(memories: &[&dyn Memory]) -> Vec<Pin> {
    memories
        .iter()
        .filter_map(|memory| memory.residency_handle())
        .map(|handle| Pin::new(handle.state, handle.manager))
        .collect()
}
