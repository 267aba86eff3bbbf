//! Launch overhead of the residency manager: a launch through `ResidencyManager::launch` against
//! the same launch on an immediate list directly, with 1, 4 and 16 memory arguments already
//! resident on the executing device (half of them a peer's). The difference divided by the
//! argument count is what residency costs per argument on the already-resident path.

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use lazy_usm::{
    Arg, Context, DeviceAllocation, Dims, Module, ResidencyConfig, ResidencyManager, Runtime,
};
use std::time::Duration;

fn launch(c: &mut Criterion) {
    let runtime = Runtime::simulated("b70x2").expect("simulated platform");
    let devices = runtime.devices().expect("devices");
    let manager = ResidencyManager::new(
        Context::new(&devices).expect("context"),
        ResidencyConfig::default(),
    )
    .expect("manager");
    let names: Vec<String> = [1u32, 4, 16]
        .iter()
        .map(|count| format!("noop{count}"))
        .collect();
    let kernels: Vec<(&str, u32)> = names
        .iter()
        .zip([1u32, 4, 16])
        .map(|(name, count)| (name.as_str(), count))
        .collect();
    let spirv = lazy_usm::ze_sim::spirv::module_with_kernels(&kernels);
    let module = Module::from_spirv(manager.context(), &devices[1], &spirv, "").expect("module");
    let list = manager
        .context()
        .immediate_list(&devices[1].compute_engine().expect("engine"))
        .expect("list");
    let mut group = c.benchmark_group("launch");
    group.warm_up_time(Duration::from_millis(300));
    group.measurement_time(Duration::from_secs(2));
    for (name, count) in kernels {
        let kernel = module.kernel(name).expect("kernel");
        // Half the arguments live on device 0 (a peer of the executing device 1).
        let memory: Vec<DeviceAllocation> = (0..count)
            .map(|index| {
                let allocation = manager
                    .allocate(&devices[(index % 2) as usize], 4096)
                    .expect("allocation");
                manager
                    .ensure_resident_on(&allocation, &devices[1])
                    .expect("resident");
                allocation
            })
            .collect();
        let dims = Dims::linear(64, 64).expect("dims");
        group.bench_function(BenchmarkId::new("raw", count), |bench| {
            bench.iter(|| {
                let mut args: Vec<Arg> = memory.iter().map(|m| Arg::Read(m)).collect();
                // SAFETY: the no-op kernels touch nothing.
                unsafe { list.launch(&kernel, dims, &mut args) }.expect("launch")
            });
        });
        group.bench_function(BenchmarkId::new("manager", count), |bench| {
            bench.iter(|| {
                let mut args: Vec<Arg> = memory.iter().map(|m| Arg::Read(m)).collect();
                // SAFETY: the no-op kernels touch nothing.
                unsafe { manager.launch(&kernel, dims, &mut args, &[]) }.expect("launch")
            });
        });
    }
    group.finish();
}

criterion_group!(benches, launch);
criterion_main!(benches);
