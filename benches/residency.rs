//! The residency hot path: asking for residency an allocation already has (one atomic load),
//! with one thread and with two threads on one manager, without and with a host budget (which
//! adds one store for eviction order). And copies through the manager from one thread and from
//! two (independent pairs of allocations, host time): 2 * copy_1t / copy_2t is the two-thread
//! throughput gain, which needs copies not to serialise on one list or bounce buffer.

mod common;

use common::slowest_of;
use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use lazy_usm::{Context, DeviceAllocation, ResidencyConfig, ResidencyManager, Runtime};
use std::hint::black_box;
use std::sync::Mutex;
use std::time::{Duration, Instant};

fn residency(c: &mut Criterion) {
    let runtime = Runtime::simulated("b70x2").expect("simulated platform");
    let devices = runtime.devices().expect("devices");
    let mut group = c.benchmark_group("residency");
    group.warm_up_time(Duration::from_millis(300));
    group.measurement_time(Duration::from_secs(1));
    for (name, budget) in [("no_budget", None), ("budget", Some(1u64 << 40))] {
        let config = ResidencyConfig {
            host_budget: budget,
            ..ResidencyConfig::default()
        };
        let manager = ResidencyManager::new(Context::new(&devices).expect("context"), config)
            .expect("manager");
        let allocation = manager.allocate(&devices[0], 1 << 20).expect("allocation");
        manager
            .ensure_resident_on(&allocation, &devices[1])
            .expect("peer residency");
        group.bench_function(BenchmarkId::new("already_resident_1t", name), |bench| {
            bench.iter(|| {
                manager
                    .ensure_resident_on(black_box(&allocation), &devices[1])
                    .expect("resident")
            });
        });
        group.bench_function(BenchmarkId::new("already_resident_2t", name), |bench| {
            bench.iter_custom(|iterations| {
                slowest_of(2, |_| {
                    let start = Instant::now();
                    for _ in 0..iterations {
                        manager
                            .ensure_resident_on(black_box(&allocation), &devices[1])
                            .expect("resident");
                    }
                    start.elapsed()
                })
            });
        });
    }
    group.finish();
}

fn copies(c: &mut Criterion) {
    let runtime = Runtime::simulated("b70x2").expect("simulated platform");
    let devices = runtime.devices().expect("devices");
    let manager = ResidencyManager::new(
        Context::new(&devices).expect("context"),
        ResidencyConfig::default(),
    )
    .expect("manager");
    let mut group = c.benchmark_group("residency");
    group.warm_up_time(Duration::from_millis(300));
    group.measurement_time(Duration::from_secs(2));
    for (label, size) in [("4KiB", 4usize << 10), ("1MiB", 1 << 20)] {
        let pairs: Vec<_> = (0..2)
            .map(|_| {
                let source = manager.allocate(&devices[0], size).expect("source");
                let mut target = manager.allocate(&devices[1], size).expect("target");
                manager
                    .copy(&mut target, 0, &source, 0, size)
                    .expect("first copy: self-test and residency");
                Mutex::new((source, target))
            })
            .collect();
        let copy = |pair: &Mutex<(DeviceAllocation, DeviceAllocation)>, count: u64| {
            let mut pair = pair.lock().expect("pair");
            let (source, target) = &mut *pair;
            let start = Instant::now();
            for _ in 0..count {
                manager
                    .copy(target, 0, black_box(&*source), 0, size)
                    .expect("copy");
            }
            start.elapsed()
        };
        group.bench_function(BenchmarkId::new("copy_1t", label), |bench| {
            bench.iter_custom(|iterations| copy(&pairs[0], iterations));
        });
        group.bench_function(BenchmarkId::new("copy_2t", label), |bench| {
            bench.iter_custom(|iterations| {
                slowest_of(pairs.len(), |thread| copy(&pairs[thread], iterations))
            });
        });
    }
    group.finish();
}

criterion_group!(benches, residency, copies);
criterion_main!(benches);
