//! Replays seed 000's measurement: 4 GiB allocated on each device, made resident the way SYCL's
//! `malloc_device` does (on every device of the context), in a 1-device and a 2-device context;
//! then the same 2-device context with residency on the owner only, which is what lazy-usm does.
//!
//! Prints the per-device VRAM/GTT table and the host pinned total (`nr_gpu_active`) for each.
//! Runs on the simulated platform (`b70x2`, two Arc Pro B70 on compute-runtime 26.09+) unless
//! told otherwise: `cargo run --example seed000 -- [preset]`.

use lazy_usm::sys::*;
use std::ffi::c_void;
use std::ptr::null_mut;
use std::sync::Arc;
use ze_sim::Platform;

const GIB: usize = 1 << 30;

fn check(result: ze_result_t, what: &str) -> Result<(), String> {
    if result == ze_result_t::ZE_RESULT_SUCCESS {
        Ok(())
    } else {
        Err(format!(
            "{what}: {}",
            ze_result_name(result).unwrap_or("unknown result")
        ))
    }
}

/// Why the system's Level Zero cannot be used here, or `None` if it has a GPU.
fn system_gpu_absence() -> Option<String> {
    let api = match ZeApi::load_system() {
        Ok(api) => api,
        Err(error) => return Some(error.to_string()),
    };
    let mut count = 0;
    // SAFETY: plain Level Zero calls with valid pointers.
    let result = unsafe {
        let init = (api.init)(ze_init_flag_t::ZE_INIT_FLAG_GPU_ONLY.0);
        if init != ze_result_t::ZE_RESULT_SUCCESS {
            init
        } else {
            (api.driver_get)(&mut count, null_mut())
        }
    };
    match (result, count) {
        (ze_result_t::ZE_RESULT_SUCCESS, 1..) => None,
        (ze_result_t::ZE_RESULT_SUCCESS, _) => Some("the Level Zero loader found no driver".into()),
        (error, _) => Some(format!(
            "the Level Zero loader found no GPU ({})",
            ze_result_name(error).unwrap_or("unknown result")
        )),
    }
}

/// One replay: a fresh platform, `context_devices` in the context, 4 GiB on each, resident on
/// every context device (`eager`) or on its owner only.
fn replay(preset: &str, context_devices: u32, eager: bool) -> Result<(), String> {
    let platform = Platform::preset(preset).map_err(|error| error.to_string())?;
    let resolver = platform.clone();
    // SAFETY: the simulator's entry points have the signatures the headers declare.
    let api = unsafe {
        ZeApi::from_resolver(preset, Some(Arc::new(platform.clone())), move |name| {
            resolver.resolve(name)
        })
    }
    .map_err(|error| error.to_string())?;
    let mut driver = null_mut();
    let mut count = 1;
    let mut devices = vec![null_mut(); context_devices as usize];
    let mut device_count = context_devices;
    let desc = ze_context_desc_t {
        stype: ze_structure_type_t::ZE_STRUCTURE_TYPE_CONTEXT_DESC,
        ..Default::default()
    };
    let create_ex = api.context_create_ex.ok_or("zeContextCreateEx missing")?;
    let mut context = null_mut();
    // SAFETY: plain Level Zero calls with valid pointers and counts.
    unsafe {
        check(
            (api.init)(ze_init_flag_t::ZE_INIT_FLAG_GPU_ONLY.0),
            "zeInit",
        )?;
        check((api.driver_get)(&mut count, &mut driver), "zeDriverGet")?;
        check(
            (api.device_get)(driver, &mut device_count, devices.as_mut_ptr()),
            "zeDeviceGet",
        )?;
        check(
            create_ex(
                driver,
                &desc,
                device_count,
                devices.as_mut_ptr(),
                &mut context,
            ),
            "zeContextCreateEx",
        )?;
    }
    let alloc_desc = ze_device_mem_alloc_desc_t {
        stype: ze_structure_type_t::ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC,
        ..Default::default()
    };
    let mut allocations: Vec<*mut c_void> = Vec::new();
    let mut outcome = Ok(());
    for &owner in &devices {
        let mut pointer = null_mut();
        // SAFETY: valid descriptor, context, device and output pointer.
        let result = unsafe {
            (api.mem_alloc_device)(context, &alloc_desc, 4 * GIB, 64, owner, &mut pointer)
        };
        outcome = check(result, "zeMemAllocDevice");
        if outcome.is_err() {
            break;
        }
        allocations.push(pointer);
        let targets: Vec<_> = if eager { devices.clone() } else { vec![owner] };
        for target in targets {
            // SAFETY: a live allocation of this context and a device of it.
            let result =
                unsafe { (api.context_make_memory_resident)(context, target, pointer, 4 * GIB) };
            outcome = check(result, "zeContextMakeMemoryResident");
            if outcome.is_err() {
                break;
            }
        }
        if outcome.is_err() {
            break;
        }
    }
    if outcome.is_ok() {
        let how = if eager {
            "every device (SYCL malloc_device)"
        } else {
            "owner only (lazy-usm)"
        };
        println!("{context_devices}-device context, 4 GiB per device, resident on {how}");
        println!("  {:<14} {:>10} {:>10}", "device", "VRAM GiB", "GTT GiB");
        for index in 0..context_devices {
            let fdinfo = platform.fdinfo(index).unwrap_or_default();
            let field = |key: &str| -> f64 {
                fdinfo
                    .lines()
                    .find_map(|line| line.strip_prefix(key))
                    .and_then(|value| value.trim().strip_suffix(" KiB"))
                    .and_then(|kib| kib.parse::<f64>().ok())
                    .map_or(f64::NAN, |kib| kib / (1024.0 * 1024.0))
            };
            let pci = &platform.config().devices[index as usize].pci_address;
            let vram = field("drm-resident-vram0:");
            let gtt = field("drm-resident-gtt:");
            println!("  {pci:<14} {vram:>10.2} {gtt:>10.2}");
        }
        let pinned = platform.host_pinned_bytes() as f64 / GIB as f64;
        println!("  host pinned (nr_gpu_active) +{pinned:.2} GiB\n");
    }
    for pointer in allocations {
        // SAFETY: allocations made above, freed once.
        let _ = unsafe { (api.mem_free)(context, pointer) };
    }
    // SAFETY: the context made above, now empty.
    let _ = unsafe { (api.context_destroy)(context) };
    outcome
}

fn main() {
    let preset = std::env::args().nth(1).unwrap_or_else(|| "b70x2".into());
    match system_gpu_absence() {
        Some(reason) => println!("No Level Zero GPU here ({reason})."),
        None => println!("A Level Zero GPU is present; this replay still uses the simulator."),
    }
    println!("Replaying seed 000 on the simulated platform `{preset}`.\n");
    let runs = [(1, true), (2, true), (2, false)];
    for (devices, eager) in runs {
        if let Err(error) = replay(&preset, devices, eager) {
            eprintln!("replay failed: {error}");
            std::process::exit(1);
        }
    }
}
