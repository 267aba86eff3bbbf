//! Interior-pointer lookups in a `PointerRegistry` of 100,000 live allocations, set up as
//! `cargo bench --bench registry` sets up its scattered one-thread cell, for counting what one
//! lookup costs under a profiler: run it with two lookup counts and take the difference (the
//! set-up is the same in both).
//!
//! ```text
//! cargo build --release --example registry_lookups
//! valgrind --tool=callgrind target/release/examples/registry_lookups 100000
//! valgrind --tool=callgrind target/release/examples/registry_lookups 300000
//! ```
//!
//! Per lookup: (the second run's total - the first's) / 200,000.

use lazy_usm::{
    Context, Memory, PointerRegistry, Policy, ResidencyConfig, ResidencyManager, Runtime,
};
use std::hint::black_box;
use std::process::ExitCode;
use std::sync::Arc;

#[path = "../benches/common/registry_set.rs"]
mod registry_set;

use registry_set::LIVE;

fn main() -> ExitCode {
    let Some(lookups) = std::env::args()
        .nth(1)
        .and_then(|count| count.parse::<usize>().ok())
    else {
        eprintln!(
            "usage: registry_lookups LOOKUPS (a count of lookups to time, after one warm pass)"
        );
        return ExitCode::from(2);
    };
    let runtime = Runtime::simulated("b70x2").expect("simulated platform");
    let devices = runtime.devices().expect("devices");
    let manager = ResidencyManager::new(
        Context::new(&devices).expect("context"),
        ResidencyConfig::new(Policy::Lazy),
    )
    .expect("manager");
    let allocations = registry_set::allocations(&manager, &devices);
    let registry = PointerRegistry::new();
    for (index, allocation) in allocations.iter().enumerate() {
        registry
            .insert(allocation.address(), allocation.len(), Arc::new(index))
            .expect("disjoint");
    }
    // The bench's interior addresses, in its first thread's order.
    let interior: Vec<usize> = allocations
        .iter()
        .map(|allocation| allocation.address() + allocation.len() / 2)
        .collect();
    let visits = registry_set::scattered(&interior, 0);
    // One warm pass: this thread's first lookup in each bucket takes its copy.
    let mut warm = 0;
    for &address in &visits {
        warm += usize::from(registry.find_map(address, |entry| entry.size).is_some());
    }
    let mut found = 0;
    for &address in visits.iter().cycle().take(lookups) {
        let range = registry.find_map(black_box(address), |entry| (entry.base, entry.size));
        found += usize::from(black_box(range).is_some());
    }
    println!(
        "{lookups} lookups after a warm pass of {LIVE}: {found} found ({warm} in the warm pass)"
    );
    if found == lookups && warm == LIVE {
        ExitCode::SUCCESS
    } else {
        eprintln!("some interior address found no allocation");
        ExitCode::FAILURE
    }
}
