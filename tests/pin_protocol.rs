//! A model check, with loom, of the protocol between uses and evictors that
//! `src/residency/pin.rs` documents: every interleaving of one use and one evictor (and of two
//! uses and one evictor) is explored, and a use must never find its memory evicted by the
//! "driver" while it holds its pin.
//!
//! The model mirrors the manager's steps one for one: a use pins (`fetch_add`), reads the
//! resident bit with a read-modify-write (`fetch_or(0)`), and on a miss takes the state lock and
//! makes the memory resident; an evictor takes the state lock, clears the bit (`fetch_and`),
//! reads the pins with a read-modify-write (`fetch_add(0)`), and restores the bit when pinned.
//! `driver_resident` stands for the driver's own view, which the device relies on.
//!
//! The reads are read-modify-writes because the protocol must not rest on sequentially
//! consistent plain loads alone: loom models those as acquire loads (so it cannot check them),
//! and with read-modify-writes on both sides each side's read either comes after the other's
//! write in that location's modification order and sees it, or comes before and synchronises
//! with it, which acquire/release alone guarantees.

use loom::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering::SeqCst};
use loom::sync::{Arc, Mutex};

const DEVICE: u64 = 1 << 1;

struct Allocation {
    resident: AtomicU64,
    pins: AtomicU32,
    state: Mutex<()>,
    driver_resident: AtomicBool,
}

impl Allocation {
    fn new(resident: bool) -> Self {
        Self {
            resident: AtomicU64::new(if resident { DEVICE } else { 0 }),
            pins: AtomicU32::new(0),
            state: Mutex::new(()),
            driver_resident: AtomicBool::new(resident),
        }
    }

    /// A copy: pin, make sure it is resident, use it (twice: start and end of the device work),
    /// unpin.
    fn use_on_device(&self) {
        self.pins.fetch_add(1, SeqCst);
        if self.resident.fetch_or(0, SeqCst) & DEVICE == 0 {
            let _state = self.state.lock().unwrap();
            if self.resident.load(SeqCst) & DEVICE == 0 {
                self.driver_resident.store(true, SeqCst);
                self.resident.fetch_or(DEVICE, SeqCst);
            }
        }
        assert!(self.driver_resident.load(SeqCst), "used while evicted");
        loom::thread::yield_now();
        assert!(self.driver_resident.load(SeqCst), "evicted under the use");
        self.pins.fetch_sub(1, SeqCst);
    }

    /// `evict_from`, the budget or a trim: clear, check pins, restore or evict.
    fn try_evict(&self) -> bool {
        let _state = self.state.lock().unwrap();
        if self.resident.load(SeqCst) & DEVICE == 0 {
            return true;
        }
        self.resident.fetch_and(!DEVICE, SeqCst);
        if self.pins.fetch_add(0, SeqCst) > 0 {
            self.resident.fetch_or(DEVICE, SeqCst);
            return false;
        }
        self.driver_resident.store(false, SeqCst);
        true
    }
}

#[test]
fn a_use_and_an_evictor_never_overlap() {
    for resident in [true, false] {
        loom::model(move || {
            let allocation = Arc::new(Allocation::new(resident));
            let user = {
                let allocation = Arc::clone(&allocation);
                loom::thread::spawn(move || allocation.use_on_device())
            };
            allocation.try_evict();
            user.join().unwrap();
        });
    }
}

#[test]
fn two_uses_and_an_evictor_never_overlap() {
    // Bounded preemptions keep the search to seconds; two is where such races show.
    let mut builder = loom::model::Builder::new();
    builder.preemption_bound = Some(2);
    builder.check(|| {
        let allocation = Arc::new(Allocation::new(true));
        let users: Vec<_> = (0..2)
            .map(|_| {
                let allocation = Arc::clone(&allocation);
                loom::thread::spawn(move || allocation.use_on_device())
            })
            .collect();
        allocation.try_evict();
        for user in users {
            user.join().unwrap();
        }
    });
}

/// The protocol is not vacuous: with the evictor checking the pins *before* clearing the bit
/// (the order the manager used before), loom finds the interleaving where a use runs on
/// evicted memory.
#[test]
#[should_panic(expected = "evicted")]
fn checking_pins_before_clearing_the_bit_races() {
    loom::model(|| {
        let allocation = Arc::new(Allocation::new(true));
        let user = {
            let allocation = Arc::clone(&allocation);
            loom::thread::spawn(move || allocation.use_on_device())
        };
        {
            let _state = allocation.state.lock().unwrap();
            if allocation.pins.load(SeqCst) == 0 {
                allocation.resident.fetch_and(!DEVICE, SeqCst);
                allocation.driver_resident.store(false, SeqCst);
            }
        }
        user.join().unwrap();
    });
}
