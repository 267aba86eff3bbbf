//! The shim's overhead, side by side in one run: a forwarded call (`zeDriverGetApiVersion`)
//! and an intercepted one that looks its pointer argument up (`zeKernelSetArgumentValue`), each
//! through the shim and straight to the library the shim forwards to (the simulator's loader
//! stand-in); and a launch (two pointer arguments set, then `zeCommandListAppendLaunchKernel`
//! on an immediate list) from 1 and from 4 threads at once, each thread with its own kernel,
//! list and buffers. Goals: <= 20 ns more for a forwarded call, <= 50 ns for the argument
//! lookup.
//!
//! Needs the release build of the workspace (`cargo build --release --workspace`): both
//! libraries are loaded from the target folder. Results land in `target/criterion/shim/`.

use criterion::{Criterion, criterion_group, criterion_main};
use level_zero_sys::*;
use libloading::Library;
use std::ffi::c_void;
use std::hint::black_box;
use std::time::Duration;

type GetApiVersion = unsafe extern "C" fn(ze_driver_handle_t, *mut ze_api_version_t) -> ze_result_t;
type SetArgument =
    unsafe extern "C" fn(ze_kernel_handle_t, u32, usize, *const c_void) -> ze_result_t;

fn function<T: Copy>(library: &Library, name: &str) -> T {
    // SAFETY: each caller names the function's type as the headers declare it.
    unsafe {
        *library
            .get::<T>(name.as_bytes())
            .unwrap_or_else(|error| panic!("{name}: {error}"))
    }
}

fn ok(result: ze_result_t) {
    assert_eq!(result, ze_result_t::ZE_RESULT_SUCCESS);
}

fn shim_benches(c: &mut Criterion) {
    let executable = std::env::current_exe().expect("bench executable");
    let target = executable
        .parent()
        .and_then(|deps| deps.parent())
        .expect("target folder");
    let stand_in = target.join("libze_sim_loader.so");
    assert!(
        stand_in.is_file(),
        "build the workspace first: cargo build --release --workspace"
    );
    // SAFETY: environment set before any thread starts; the shim reads it when it loads.
    unsafe { std::env::set_var("LAZY_USM_REAL_LOADER", &stand_in) };
    // SAFETY: loading the two libraries runs only their own initialisers.
    let (direct, shim) = unsafe {
        (
            Library::new(&stand_in).unwrap(),
            Library::new(target.join("liblazy_usm_shim.so")).unwrap(),
        )
    };
    let mut driver = std::ptr::null_mut();
    let mut count = 1;
    let mut devices = [std::ptr::null_mut(); 2];
    let mut device_count = 2;
    let mut context = std::ptr::null_mut();
    let mut module = std::ptr::null_mut();
    let mut kernel = std::ptr::null_mut();
    let mut buffer = std::ptr::null_mut();
    let spirv = ze_sim::spirv::module_with_kernels(&[("lazy_usm_sim_copy_u32", 2)]);
    // SAFETY: the headers' signatures; valid pointers throughout; objects made through the
    // shim, so it knows the allocation.
    unsafe {
        ok(function::<unsafe extern "C" fn(u32) -> ze_result_t>(
            &shim, "zeInit",
        )(0));
        ok(function::<
            unsafe extern "C" fn(*mut u32, *mut ze_driver_handle_t) -> ze_result_t,
        >(&shim, "zeDriverGet")(&mut count, &mut driver));
        ok(function::<
            unsafe extern "C" fn(
                ze_driver_handle_t,
                *mut u32,
                *mut ze_device_handle_t,
            ) -> ze_result_t,
        >(&shim, "zeDeviceGet")(
            driver,
            &mut device_count,
            devices.as_mut_ptr(),
        ));
        let desc = ze_context_desc_t {
            stype: ze_structure_type_t::ZE_STRUCTURE_TYPE_CONTEXT_DESC,
            ..Default::default()
        };
        ok(function::<
            unsafe extern "C" fn(
                ze_driver_handle_t,
                *const ze_context_desc_t,
                *mut ze_context_handle_t,
            ) -> ze_result_t,
        >(&shim, "zeContextCreate")(
            driver, &desc, &mut context
        ));
        let module_desc = ze_module_desc_t {
            stype: ze_structure_type_t::ZE_STRUCTURE_TYPE_MODULE_DESC,
            format: ze_module_format_t::ZE_MODULE_FORMAT_IL_SPIRV,
            inputSize: spirv.len(),
            pInputModule: spirv.as_ptr(),
            ..Default::default()
        };
        ok(function::<
            unsafe extern "C" fn(
                ze_context_handle_t,
                ze_device_handle_t,
                *const ze_module_desc_t,
                *mut ze_module_handle_t,
                *mut ze_module_build_log_handle_t,
            ) -> ze_result_t,
        >(&shim, "zeModuleCreate")(
            context,
            devices[1],
            &module_desc,
            &mut module,
            std::ptr::null_mut(),
        ));
        let kernel_desc = ze_kernel_desc_t {
            stype: ze_structure_type_t::ZE_STRUCTURE_TYPE_KERNEL_DESC,
            pKernelName: c"lazy_usm_sim_copy_u32".as_ptr(),
            ..Default::default()
        };
        ok(function::<
            unsafe extern "C" fn(
                ze_module_handle_t,
                *const ze_kernel_desc_t,
                *mut ze_kernel_handle_t,
            ) -> ze_result_t,
        >(&shim, "zeKernelCreate")(
            module, &kernel_desc, &mut kernel
        ));
        let alloc_desc = ze_device_mem_alloc_desc_t {
            stype: ze_structure_type_t::ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC,
            ..Default::default()
        };
        ok(function::<
            unsafe extern "C" fn(
                ze_context_handle_t,
                *const ze_device_mem_alloc_desc_t,
                usize,
                usize,
                ze_device_handle_t,
                *mut *mut c_void,
            ) -> ze_result_t,
        >(&shim, "zeMemAllocDevice")(
            context,
            &alloc_desc,
            4096,
            64,
            devices[0],
            &mut buffer,
        ));
    }
    let interior = (buffer as usize + 100) as *mut c_void;
    let mut group = c.benchmark_group("shim");
    group.warm_up_time(Duration::from_millis(500));
    group.measurement_time(Duration::from_secs(2));
    for (name, library) in [("direct", &direct), ("shim", &shim)] {
        let get_version: GetApiVersion = function(library, "zeDriverGetApiVersion");
        let set_argument: SetArgument = function(library, "zeKernelSetArgumentValue");
        group.bench_function(format!("forwarded_{name}"), |bench| {
            let mut version = ze_api_version_t(0);
            // SAFETY: a live driver and a valid output.
            bench.iter(|| unsafe { black_box(get_version(black_box(driver), &mut version)) });
        });
        group.bench_function(format!("kernel_argument_{name}"), |bench| {
            // SAFETY: a live kernel; argument 1 is a pointer, set to a device allocation's
            // interior.
            bench.iter(|| unsafe {
                black_box(set_argument(
                    kernel,
                    1,
                    size_of::<usize>(),
                    black_box(&interior) as *const _ as *const c_void,
                ))
            });
        });
    }
    for (name, library) in [("direct", &direct), ("shim", &shim)] {
        for threads in [1usize, 4] {
            group.bench_function(format!("launch_{threads}t_{name}"), |bench| {
                bench.iter_custom(|iterations| {
                    launches(
                        library, &shim, context, devices[1], module, threads, iterations,
                    )
                });
            });
        }
    }
    group.finish();
}

/// Launches from `threads` threads at once, `iterations` each, through `library` (objects the
/// launches use are made through it too; the module through the shim, which learns its
/// kernels' parameters); the wall time of the slowest thread.
fn launches(
    library: &Library,
    shim: &Library,
    context: ze_context_handle_t,
    device: ze_device_handle_t,
    module: ze_module_handle_t,
    threads: usize,
    iterations: u64,
) -> Duration {
    let barrier = std::sync::Barrier::new(threads);
    let (context, device, module) = (context as usize, device as usize, module as usize);
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                let barrier = &barrier;
                scope.spawn(move || {
                    let (context, device, module) = (
                        context as ze_context_handle_t,
                        device as ze_device_handle_t,
                        module as ze_module_handle_t,
                    );
                    let set_argument: SetArgument = function(library, "zeKernelSetArgumentValue");
                    let launch = function::<ze_pfnCommandListAppendLaunchKernel_t>(
                        library,
                        "zeCommandListAppendLaunchKernel",
                    )
                    .unwrap();
                    // SAFETY: the headers' signatures; live objects; outputs valid.
                    unsafe {
                        let mut kernel = std::ptr::null_mut();
                        let kernel_desc = ze_kernel_desc_t {
                            stype: ze_structure_type_t::ZE_STRUCTURE_TYPE_KERNEL_DESC,
                            pKernelName: c"lazy_usm_sim_copy_u32".as_ptr(),
                            ..Default::default()
                        };
                        ok(function::<ze_pfnKernelCreate_t>(shim, "zeKernelCreate")
                            .unwrap()(
                            module, &kernel_desc, &mut kernel
                        ));
                        ok(function::<ze_pfnKernelSetGroupSize_t>(
                            library,
                            "zeKernelSetGroupSize",
                        )
                        .unwrap()(kernel, 1, 1, 1));
                        let queue_desc = ze_command_queue_desc_t {
                            stype: ze_structure_type_t::ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC,
                            ..Default::default()
                        };
                        let mut list = std::ptr::null_mut();
                        ok(function::<ze_pfnCommandListCreateImmediate_t>(
                            library,
                            "zeCommandListCreateImmediate",
                        )
                        .unwrap()(
                            context, device, &queue_desc, &mut list
                        ));
                        let alloc_desc = ze_device_mem_alloc_desc_t {
                            stype: ze_structure_type_t::ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC,
                            ..Default::default()
                        };
                        let allocate =
                            function::<ze_pfnMemAllocDevice_t>(library, "zeMemAllocDevice")
                                .unwrap();
                        let mut buffers = [std::ptr::null_mut(); 2];
                        for buffer in &mut buffers {
                            ok(allocate(context, &alloc_desc, 4096, 64, device, buffer));
                        }
                        let groups = ze_group_count_t {
                            groupCountX: 1,
                            groupCountY: 1,
                            groupCountZ: 1,
                        };
                        barrier.wait();
                        let start = std::time::Instant::now();
                        for _ in 0..iterations {
                            for (index, buffer) in buffers.iter().enumerate() {
                                ok(set_argument(
                                    kernel,
                                    index as u32,
                                    size_of::<usize>(),
                                    buffer as *const _ as *const c_void,
                                ));
                            }
                            ok(launch(
                                list,
                                kernel,
                                &groups,
                                std::ptr::null_mut(),
                                0,
                                std::ptr::null_mut(),
                            ));
                        }
                        ok(function::<ze_pfnCommandListHostSynchronize_t>(
                            library,
                            "zeCommandListHostSynchronize",
                        )
                        .unwrap()(list, u64::MAX));
                        let elapsed = start.elapsed();
                        ok(function::<ze_pfnCommandListDestroy_t>(
                            library,
                            "zeCommandListDestroy",
                        )
                        .unwrap()(list));
                        ok(function::<ze_pfnKernelDestroy_t>(shim, "zeKernelDestroy")
                            .unwrap()(kernel));
                        let free = function::<ze_pfnMemFree_t>(library, "zeMemFree").unwrap();
                        for buffer in buffers {
                            ok(free(context, buffer));
                        }
                        elapsed
                    }
                })
            })
            .collect();
        workers
            .into_iter()
            .map(|worker| worker.join().expect("launch worker"))
            .max()
            .unwrap_or_default()
    })
}

criterion_group!(benches, shim_benches);
criterion_main!(benches);
