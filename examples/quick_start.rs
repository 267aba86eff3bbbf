//! The README's Rust quick start, as a program: a test checks the README shows these lines.

use lazy_usm::prelude::*;

fn main() -> Result<(), Error> {
    // The system's Level Zero when it has a GPU, else the simulated two-B70 platform; it says which.
    let (runtime, choice) = Runtime::auto("b70x2")?;
    println!("{}: {}", choice.source, choice.reason);
    let devices = runtime.devices()?;
    let manager =
        ResidencyManager::new(Context::new(&devices)?, ResidencyConfig::new(Policy::Lazy))?;
    let weights = manager.allocate(&devices[0], 64 << 20)?; // resident on device 0 only
    let mut replica = manager.allocate(&devices[1], 64 << 20)?;
    assert_eq!(manager.host_cost().current_bytes, 0); // SYCL would have pinned 128 MiB by now
    manager.copy(&mut replica, 0, &weights, 0, 64 << 20)?; // device 1's first use of `weights`
    assert_eq!(manager.host_cost().current_bytes, 64 << 20); // only what crossed
    Ok(())
}
