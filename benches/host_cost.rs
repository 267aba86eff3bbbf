//! Each workload under each policy on the simulator: criterion times a run, and the host memory
//! it pins is printed beside it (the figure that matters; the time shows what lazy residency
//! costs in bookkeeping).

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use lazy_usm::{Policy, Runtime};
use lazy_usm_tools::workload::{Workload, run};
use std::time::Duration;

fn host_cost(c: &mut Criterion) {
    let runtime = Runtime::simulated("b70x2").expect("simulated platform");
    let mut group = c.benchmark_group("host_cost");
    group.warm_up_time(Duration::from_millis(200));
    group.measurement_time(Duration::from_secs(1));
    group.sample_size(10);
    for workload in [Workload::Seed000, Workload::Tp] {
        for policy in Policy::ALL {
            let report = run(&runtime, workload, policy, &mut |_| {}).expect("workload");
            println!(
                "{} / {}: host pinned {:.2} GiB (peak {:.2} GiB), {} residency calls",
                workload.name(),
                policy.name(),
                report.host_pinned_bytes.unwrap_or(0) as f64 / (1u64 << 30) as f64,
                report.host_pinned_peak_bytes.unwrap_or(0) as f64 / (1u64 << 30) as f64,
                report.make_resident_calls
            );
            group.bench_with_input(
                BenchmarkId::new(workload.name(), policy.name()),
                &policy,
                |bench, &policy| {
                    bench.iter(|| run(&runtime, workload, policy, &mut |_| {}).expect("workload"));
                },
            );
        }
    }
    group.finish();
}

criterion_group!(benches, host_cost);
criterion_main!(benches);
