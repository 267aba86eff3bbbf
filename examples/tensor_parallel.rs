//! A tensor-parallel step on two devices: each holds its shard of the weights; every step
//! device 0 produces activations and device 1 reads a slice of them through a kernel. Under
//! `Eager` (what SYCL's `malloc_device` does) every allocation is resident on both devices and
//! pins host memory for the peer; under `Lazy` only the activations device 1 reads do.
//!
//! `cargo run --example tensor_parallel` (on the simulated two-B70 platform)

use lazy_usm::{
    Arg, Context, Dims, Module, Policy, ResidencyConfig, ResidencyManager, Result, Runtime,
};

const GIB: usize = 1 << 30;
const SHARD: usize = 4 * GIB;
const ACTIVATIONS: usize = 64 << 20;
const SLICE_ITEMS: u32 = 64 * 1024;
const STEPS: u32 = 8;

fn main() -> Result<()> {
    // The kernels are the simulator's built-ins (a stub SPIR-V module declares them), so this
    // runs on the simulated platform; on an Intel box, build real kernels with `Module`.
    let runtime = Runtime::simulated("b70x2")?;
    println!("simulated two-B70 platform");
    let devices = runtime.devices()?;
    if devices.len() < 2 {
        println!("needs two devices");
        return Ok(());
    }
    let spirv = lazy_usm::ze_sim::spirv::module_with_kernels(&[
        ("lazy_usm_sim_fill_u32", 2),
        ("lazy_usm_sim_copy_u32", 2),
    ]);
    println!(
        "{:<8} {:>16} {:>16} {:>14}",
        "policy", "peer residency", "host pinned", "resident calls"
    );
    for policy in [Policy::Eager, Policy::Lazy] {
        let manager = ResidencyManager::new(Context::new(&devices)?, ResidencyConfig::new(policy))?;
        let produce = Module::from_spirv(manager.context(), &devices[0], &spirv, "")?
            .kernel("lazy_usm_sim_fill_u32")?;
        let consume = Module::from_spirv(manager.context(), &devices[1], &spirv, "")?
            .kernel("lazy_usm_sim_copy_u32")?;
        let _weights = [
            manager.allocate(&devices[0], SHARD)?,
            manager.allocate(&devices[1], SHARD)?,
        ];
        let mut activations = manager.allocate(&devices[0], ACTIVATIONS)?;
        let mut slice = manager.allocate(&devices[1], SLICE_ITEMS as usize * 4)?;
        let dims = Dims::linear(SLICE_ITEMS, 256)?;
        for step in 0..STEPS {
            // SAFETY: the built-in fill writes SLICE_ITEMS u32s of its first argument; the
            // built-in copy reads SLICE_ITEMS u32s of its second and writes its first.
            unsafe {
                manager.launch(
                    &produce,
                    dims,
                    &mut [Arg::Write(&mut activations), Arg::scalar(step)],
                    &[],
                )?;
                manager.launch(
                    &consume,
                    dims,
                    &mut [Arg::Write(&mut slice), Arg::Read(&activations)],
                    &[],
                )?;
            }
        }
        let mut first = [0u8; 4];
        manager.read(&slice, 0, &mut first)?;
        assert_eq!(
            u32::from_le_bytes(first),
            STEPS - 1,
            "device 1 read the last step"
        );
        let cost = manager.host_cost();
        let pinned = runtime
            .simulator()
            .map_or_else(|| "n/a".to_string(), |sim| gib(sim.host_pinned_bytes()));
        println!(
            "{:<8} {:>16} {:>16} {:>14}",
            policy.name(),
            gib(cost.current_bytes),
            pinned,
            cost.make_resident_calls
        );
    }
    Ok(())
}

fn gib(bytes: u64) -> String {
    format!("{:.2} GiB", bytes as f64 / GIB as f64)
}
