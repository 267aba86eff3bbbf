//! Peer copy by size on the simulator: lazy first touch, lazy warm, eager, staged. Criterion
//! times the simulator's work on this machine (a ratio between modes, side by side); the
//! modelled bandwidth each mode would reach on seed 000's hardware is printed first.

use criterion::{BatchSize, BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use lazy_usm::{Context, Policy, ResidencyConfig, ResidencyManager, Runtime};
use lazy_usm_tools::measure::{PeerCopy, PeerMode, peer_copy};
use std::time::Duration;

const SIZES: [usize; 3] = [64 << 10, 4 << 20, 64 << 20];

fn copy_bandwidth(c: &mut Criterion) {
    let runtime = Runtime::simulated("b70x2").expect("simulated platform");
    let devices = runtime.devices().expect("devices");
    let context = Context::new(&devices).expect("context");
    println!("modelled peer bandwidth 0 -> 1 (seed 000's B70 pair), GB/s by device time:");
    for mode in PeerMode::ALL {
        let rates: Vec<String> = SIZES
            .iter()
            .map(|&size| {
                let sample = peer_copy(
                    &context,
                    &devices[0],
                    &devices[1],
                    PeerCopy::new(size, mode),
                )
                .expect("copy");
                format!(
                    "{size} B: {:.2}",
                    sample.sample.device_gbps().unwrap_or(f64::NAN)
                )
            })
            .collect();
        println!("  {:<10} {}", mode.name(), rates.join(", "));
    }
    let mut group = c.benchmark_group("copy_bandwidth");
    group.warm_up_time(Duration::from_millis(300));
    group.measurement_time(Duration::from_secs(2));
    group.sample_size(10);
    for size in SIZES {
        group.throughput(Throughput::Bytes(size as u64));
        for (mode, policy) in [
            (PeerMode::LazyFirstTouch, Policy::Lazy),
            (PeerMode::LazyWarm, Policy::Lazy),
            (PeerMode::Eager, Policy::Eager),
            (PeerMode::Staged, Policy::Manual),
        ] {
            let manager = ResidencyManager::new(context.clone(), ResidencyConfig::new(policy))
                .expect("manager");
            let mut target = manager.allocate(&devices[1], size).expect("target");
            group.bench_with_input(
                BenchmarkId::new(mode.name(), size),
                &size,
                |bench, &size| {
                    if mode == PeerMode::LazyFirstTouch {
                        // A fresh source each time, so each copy is its first use on the peer.
                        bench.iter_batched(
                            || manager.allocate(&devices[0], size).expect("source"),
                            |source| {
                                manager
                                    .copy(&mut target, 0, &source, 0, size)
                                    .expect("copy")
                            },
                            BatchSize::PerIteration,
                        );
                    } else {
                        let source = manager.allocate(&devices[0], size).expect("source");
                        manager
                            .copy(&mut target, 0, &source, 0, size)
                            .expect("warm");
                        bench.iter(|| {
                            manager
                                .copy(&mut target, 0, &source, 0, size)
                                .expect("copy")
                        });
                    }
                },
            );
        }
    }
    group.finish();
}

criterion_group!(benches, copy_bandwidth);
criterion_main!(benches);
