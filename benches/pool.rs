//! Pool latency: a hit (allocate + free of a cached block) with one thread and with two threads
//! on one pool, at 256 B, 4 KiB, 64 KiB and 1 MiB; and, side by side, the simulator's raw
//! `zeMemAllocDevice` + `zeMemFree` through the safe core.
//!
//! Results land in `target/criterion/pool/{hit_1t,hit_2t,raw}/<bytes>/`.

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use lazy_usm::{Context, DevicePool, PoolConfig, ResidencyConfig, ResidencyManager, Runtime};
use std::hint::black_box;
use std::time::{Duration, Instant};

const SIZES: [usize; 4] = [256, 4096, 64 << 10, 1 << 20];

fn pool_benches(c: &mut Criterion) {
    let runtime = Runtime::simulated("b70x2").expect("simulated platform");
    let devices = runtime.devices().expect("devices");
    let context = Context::new(&devices).expect("context");
    let manager =
        ResidencyManager::new(context.clone(), ResidencyConfig::default()).expect("manager");
    let pool = DevicePool::new(&manager, &devices[0], PoolConfig::default()).expect("pool");
    let mut group = c.benchmark_group("pool");
    group.warm_up_time(Duration::from_millis(500));
    group.measurement_time(Duration::from_secs(2));
    for size in SIZES {
        // Warm the cache so every measured allocation is a hit.
        drop(pool.allocate(size).expect("warm"));
        group.bench_with_input(BenchmarkId::new("hit_1t", size), &size, |bench, &size| {
            bench.iter(|| drop(black_box(pool.allocate(size).expect("hit"))));
        });
        group.bench_with_input(BenchmarkId::new("hit_2t", size), &size, |bench, &size| {
            bench.iter_custom(|iterations| {
                // Each of two threads does `iterations` pairs; the time per pair is the wall
                // time over `iterations`, as each thread sees it.
                let barrier = std::sync::Barrier::new(2);
                let elapsed = std::thread::scope(|scope| {
                    let workers: Vec<_> = (0..2)
                        .map(|_| {
                            scope.spawn(|| {
                                drop(pool.allocate(size).expect("warm"));
                                barrier.wait();
                                let start = Instant::now();
                                for _ in 0..iterations {
                                    drop(black_box(pool.allocate(size).expect("hit")));
                                }
                                start.elapsed()
                            })
                        })
                        .collect();
                    workers
                        .into_iter()
                        .map(|worker| worker.join().expect("worker"))
                        .max()
                });
                elapsed.unwrap_or_default()
            });
        });
        group.bench_with_input(BenchmarkId::new("raw", size), &size, |bench, &size| {
            bench.iter(|| {
                drop(black_box(
                    context.alloc_device(&devices[0], size, 0).expect("raw"),
                ))
            });
        });
    }
    group.finish();
}

criterion_group!(benches, pool_benches);
criterion_main!(benches);
