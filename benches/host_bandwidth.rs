//! Host<->device transfers from pageable, registered and driver-host memory on the simulator:
//! modelled bandwidth printed first (labelled), then criterion timing of the simulator's work.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use lazy_usm::{Context, Runtime};
use lazy_usm_tools::measure::{Direction, HostKind, host_copy};
use std::time::Duration;

const SIZES: [usize; 3] = [64 << 10, 4 << 20, 64 << 20];

fn host_bandwidth(c: &mut Criterion) {
    let runtime = Runtime::simulated("b70x2").expect("simulated platform");
    let devices = runtime.devices().expect("devices");
    let context = Context::new(&devices).expect("context");
    println!("modelled host<->device bandwidth, GB/s by device time:");
    for direction in [Direction::HostToDevice, Direction::DeviceToHost] {
        for kind in HostKind::ALL {
            let rates: Vec<String> = SIZES
                .iter()
                .map(|&size| {
                    let sample =
                        host_copy(&context, &devices[0], kind, direction, size).expect("copy");
                    format!("{size} B: {:.2}", sample.device_gbps().unwrap_or(f64::NAN))
                })
                .collect();
            println!("  {direction:?} {:<12} {}", kind.name(), rates.join(", "));
        }
    }
    let mut group = c.benchmark_group("host_bandwidth");
    group.warm_up_time(Duration::from_millis(300));
    group.measurement_time(Duration::from_secs(1));
    group.sample_size(10);
    for size in SIZES {
        group.throughput(Throughput::Bytes(size as u64));
        for kind in HostKind::ALL {
            group.bench_with_input(
                BenchmarkId::new(format!("h2d_{}", kind.name()), size),
                &size,
                |bench, &size| {
                    bench.iter(|| {
                        host_copy(&context, &devices[0], kind, Direction::HostToDevice, size)
                            .expect("copy")
                    });
                },
            );
        }
    }
    group.finish();
}

criterion_group!(benches, host_bandwidth);
criterion_main!(benches);
