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

use super::manager::{AllocationState, DeviceAllocation, ResidencyHandle, Resident, Shared};
use crate::ze::memory::Memory;
use crate::ze::uses::{HeldUse, UseTracking};
use std::any::Any;
use std::sync::Arc;
use std::sync::atomic::Ordering;

/// One use of one managed allocation, held until the work using it is done.
struct Pin {
    state: Arc<AllocationState>,
    manager: Arc<Shared>,
}

impl Pin {
    fn new(state: &Arc<AllocationState>, manager: &Arc<Shared>) -> Self {
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

impl UseTracking for DeviceAllocation {
    fn begin_use(&self) {
        self.residency().state.pins.fetch_add(1, Ordering::SeqCst);
    }

    fn end_use(&self) {
        let handle = self.residency();
        handle.state.pins.fetch_sub(1, Ordering::SeqCst);
        // Peer residencies whose pair was disabled while this use held them can go now.
        handle.manager.settle(handle.state);
    }

    fn hold_use(&self) -> HeldUse {
        let handle = self.residency();
        HeldUse::new(Pin::new(handle.state, handle.manager))
    }

    fn record(&self) -> &dyn Any {
        self
    }
}

/// The residency record of `memory`, when a manager tracks it (a [`DeviceAllocation`], or a
/// pool block through its segment's).
pub(crate) fn residency_of(memory: &dyn Memory) -> Option<ResidencyHandle<'_>> {
    memory
        .use_tracking()?
        .tracker()
        .record()
        .downcast_ref::<DeviceAllocation>()
        .map(Resident::residency)
}
