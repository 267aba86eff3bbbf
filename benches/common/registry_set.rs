//! The registry bench's live allocations and the order its threads visit them in, shared with
//! `examples/registry_lookups.rs`, so that the example counts the lookups the bench times.

use lazy_usm::{Device, DeviceAllocation, ResidencyManager};

/// Live allocations in the registry.
pub const LIVE: usize = 100_000;

/// [`LIVE`] small allocations (256 B to 640 B) alternating between the first two devices, laid
/// out by the driver.
pub fn allocations(manager: &ResidencyManager, devices: &[Device]) -> Vec<DeviceAllocation> {
    (0..LIVE)
        .map(|index| {
            manager
                .allocate(&devices[index % 2], 256 + (index % 7) * 64)
                .expect("allocation")
        })
        .collect()
}

/// `addresses` in thread `thread`'s scattered order: a stride prime to their count, from a
/// start of the thread's own, visits each once.
pub fn scattered(addresses: &[usize], thread: usize) -> Vec<usize> {
    (0..addresses.len())
        .map(|step| {
            addresses[step.wrapping_mul(7919).wrapping_add(thread * 104_729) % addresses.len()]
        })
        .collect()
}
