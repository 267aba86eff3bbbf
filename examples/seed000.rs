//! Replays seed 000's measurement: 4 GiB allocated on each device of a 1-device and a 2-device
//! context, made resident the way SYCL's `malloc_device` does (policy `Eager`: on every device of
//! the context), then the 2-device context under lazy-usm's default `Lazy` policy.
//!
//! Prints the per-device VRAM/GTT table (read back from the driver's DRM fdinfo) and the pinned
//! host memory (`nr_gpu_active`) for each. Runs on the simulated platform (`b70x2`: two Arc Pro
//! B70 on compute-runtime 26.09+); another preset: `cargo run --example seed000 -- b70x2-26.05`.

use lazy_usm::{Context, Policy, ResidencyConfig, ResidencyManager, Runtime, Source};

const GIB: usize = 1 << 30;

fn replay(preset: &str, context_devices: usize, policy: Policy) -> lazy_usm::Result<()> {
    let runtime = Runtime::simulated(preset)?;
    let devices = runtime.devices()?;
    let context = Context::new(&devices[..context_devices])?;
    let manager = ResidencyManager::new(context, ResidencyConfig::new(policy))?;
    let held = devices[..context_devices]
        .iter()
        .map(|device| manager.allocate(device, 4 * GIB))
        .collect::<lazy_usm::Result<Vec<_>>>()?;
    let platform = runtime.simulator().expect("a simulated runtime");
    println!(
        "{context_devices}-device context, 4 GiB per device, policy {}",
        policy.name()
    );
    println!("  {:<14} {:>10} {:>10}", "device", "VRAM GiB", "GTT GiB");
    for index in 0..context_devices as u32 {
        let fdinfo = platform.fdinfo(index).unwrap_or_default();
        let client = lazy_usm_tools::parse_fdinfo(&fdinfo).unwrap_or_default();
        let gib = |bytes: Option<u64>| bytes.map_or(f64::NAN, |b| b as f64 / GIB as f64);
        println!(
            "  {:<14} {:>10.2} {:>10.2}",
            client.pdev,
            gib(client.resident_vram),
            gib(client.resident_gtt)
        );
    }
    let pinned = platform.host_pinned_bytes() as f64 / GIB as f64;
    let cost = manager.host_cost().current_bytes as f64 / GIB as f64;
    println!(
        "  host pinned (nr_gpu_active) +{pinned:.2} GiB; lazy-usm's peer residency {cost:.2} GiB\n"
    );
    drop(held);
    Ok(())
}

fn main() {
    let preset = std::env::args().nth(1).unwrap_or_else(|| "b70x2".into());
    let system = match Runtime::system() {
        Ok(runtime) => match runtime.devices() {
            Ok(devices) if !devices.is_empty() => Some(runtime.source().clone()),
            _ => None,
        },
        Err(_) => None,
    };
    match system {
        Some(Source::System { origin }) => {
            println!(
                "A Level Zero GPU is present ({origin}); this replay still uses the simulator."
            )
        }
        _ => println!("No Level Zero GPU here: replaying seed 000 on the simulated platform."),
    }
    println!("Preset `{preset}`.\n");
    for (devices, policy) in [(1, Policy::Eager), (2, Policy::Eager), (2, Policy::Lazy)] {
        if let Err(error) = replay(&preset, devices, policy) {
            eprintln!("replay failed: {error}");
            std::process::exit(1);
        }
    }
}
