//! Throughput of copies through one residency manager from one thread and from two
//! (independent pairs of allocations), by size and path (P2P on `b70x2`, staged through pinned
//! host memory on `b60x4-refused`), with two controls: two managers of one platform, and two
//! independent platforms (no shared state at all: what the machine and the simulator allow).
//!
//! `cargo run --release --example copy_scaling`

use lazy_usm::{Context, DeviceAllocation, Memory, ResidencyConfig, ResidencyManager, Runtime};
use std::time::{Duration, Instant};

struct Pair {
    manager: ResidencyManager,
    source: DeviceAllocation,
    target: DeviceAllocation,
}

fn manager(preset: &str) -> ResidencyManager {
    let runtime = Runtime::simulated(preset).expect("simulated platform");
    let devices = runtime.devices().expect("devices");
    ResidencyManager::new(
        Context::new(&devices).expect("context"),
        ResidencyConfig::default(),
    )
    .expect("manager")
}

fn pair(manager: &ResidencyManager, size: usize) -> Pair {
    let devices = manager.context().devices().to_vec();
    let source = manager.allocate(&devices[0], size).expect("source");
    let mut target = manager
        .allocate(&devices[devices.len() - 1], size)
        .expect("target");
    manager
        .copy(&mut target, 0, &source, 0, size)
        .expect("first copy");
    Pair {
        manager: manager.clone(),
        source,
        target,
    }
}

fn run(pair: &mut Pair, copies: u32) -> Duration {
    let size = pair.source.len();
    let start = Instant::now();
    for _ in 0..copies {
        pair.manager
            .copy(&mut pair.target, 0, &pair.source, 0, size)
            .expect("copy");
    }
    start.elapsed()
}

fn parallel(pairs: &mut [Pair], copies: u32) -> Duration {
    std::thread::scope(|scope| {
        let workers: Vec<_> = pairs
            .iter_mut()
            .map(|pair| scope.spawn(move || run(pair, copies)))
            .collect();
        workers
            .into_iter()
            .map(|worker| worker.join().expect("worker"))
            .max()
            .unwrap_or_default()
    })
}

fn main() {
    for (preset, size, copies) in [
        ("b70x2", 4 << 10, 20_000),
        ("b70x2", 1 << 20, 2_000),
        ("b60x4-refused", 1 << 20, 1_000),
    ] {
        let shared = manager(preset);
        let mut one = [pair(&shared, size)];
        let mut two = [pair(&shared, size), pair(&shared, size)];
        let platform = manager(preset);
        let second = ResidencyManager::new(
            Context::new(platform.context().devices()).expect("context"),
            ResidencyConfig::default(),
        )
        .expect("manager");
        let mut managers = [pair(&platform, size), pair(&second, size)];
        let mut apart = [pair(&manager(preset), size), pair(&manager(preset), size)];
        let rate = |copies: u32, time: Duration| f64::from(copies) / time.as_secs_f64();
        for round in 0..3 {
            let base = rate(copies, run(&mut one[0], copies));
            let together = rate(2 * copies, parallel(&mut two, copies)) / base;
            let two_managers = rate(2 * copies, parallel(&mut managers, copies)) / base;
            let separate = rate(2 * copies, parallel(&mut apart, copies)) / base;
            println!(
                "{preset} {:>7} B round {round}: 1 thread {base:>8.0} copies/s; 2 threads: one \
                 manager {together:.2}x, two managers of one platform {two_managers:.2}x, two \
                 platforms {separate:.2}x",
                size
            );
        }
    }
}
