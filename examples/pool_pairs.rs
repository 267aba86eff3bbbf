//! Pool hits on one thread (allocate + free of a cached 4 KiB block, the block black-boxed as
//! `cargo bench --bench pool` does), for counting what one pair costs under a profiler: run it
//! with two pair counts and take the difference (the set-up is the same in both).
//!
//! ```text
//! cargo build --release --example pool_pairs
//! valgrind --tool=callgrind target/release/examples/pool_pairs 100000
//! valgrind --tool=callgrind target/release/examples/pool_pairs 300000
//! ```
//!
//! Per pair: (the second run's total - the first's) / 200,000.

use lazy_usm::{Context, DevicePool, PoolConfig, ResidencyConfig, ResidencyManager, Runtime};
use std::hint::black_box;
use std::process::ExitCode;

fn main() -> ExitCode {
    let Some(pairs) = std::env::args()
        .nth(1)
        .and_then(|count| count.parse::<u64>().ok())
    else {
        eprintln!(
            "usage: pool_pairs PAIRS (a count of allocate + free pairs, after one warm pair)"
        );
        return ExitCode::from(2);
    };
    let runtime = Runtime::simulated("b70x2").expect("simulated platform");
    let devices = runtime.devices().expect("devices");
    let manager = ResidencyManager::new(
        Context::new(&devices).expect("context"),
        ResidencyConfig::default(),
    )
    .expect("manager");
    let pool = DevicePool::new(&manager, &devices[0], PoolConfig::default()).expect("pool");
    let pair = || drop(black_box(pool.allocate(4096).expect("hit")));
    // The first pair makes this thread's cache; every later one is a hit.
    pair();
    for _ in 0..pairs {
        pair();
    }
    let stats = pool.stats();
    println!("{} hits, {} misses", stats.hits, stats.misses);
    ExitCode::SUCCESS
}
