//! Modules, kernels and launches through the raw Level Zero API, in-process and behind the real
//! loader: SPIR-V checked and its entry points read, build logs, group-size limits, argument
//! checks, the built-in kernels' data, and residency of pointer arguments and of reads through
//! pointers.

use crate::common::modules::{build, kernel, launch, read_u32, set_argument};
use crate::common::{Sim, ok};
use level_zero_sys::*;
use std::ffi::c_void;
use std::ptr::null_mut;

const BUILTINS: &[(&str, u32)] = &[
    ("lazy_usm_sim_fill_u32", 2),
    ("lazy_usm_sim_copy_u32", 2),
    ("lazy_usm_sim_gather_u32", 2),
    ("scale", 3),
];

/// Builds, checks and runs the built-ins: fill, copy, and a gather through a pointer table whose
/// targets live on the other device (a violation until they are resident there).
fn builtins_run_with_residency_checked(sim: &Sim) {
    let context = sim.context(&[0, 1]);
    // Invalid SPIR-V: a build failure with a log that says why.
    let (result, log) = build(
        sim,
        context,
        1,
        ze_module_format_t::ZE_MODULE_FORMAT_IL_SPIRV,
        &[
            1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20,
        ],
    );
    assert_eq!(
        result,
        Err(ze_result_t::ZE_RESULT_ERROR_MODULE_BUILD_FAILURE)
    );
    assert!(log.contains("magic"), "{log}");
    let module_bytes = ze_sim::spirv::module_with_kernels(BUILTINS);
    let (module, log) = build(
        sim,
        context,
        1,
        ze_module_format_t::ZE_MODULE_FORMAT_IL_SPIRV,
        &module_bytes,
    );
    let module = module.unwrap();
    assert!(log.is_empty(), "{log}");
    assert_eq!(
        kernel(sim, module, "missing"),
        Err(ze_result_t::ZE_RESULT_ERROR_INVALID_KERNEL_NAME)
    );
    let fill = kernel(sim, module, "lazy_usm_sim_fill_u32").unwrap();
    let copy = kernel(sim, module, "lazy_usm_sim_copy_u32").unwrap();
    let gather = kernel(sim, module, "lazy_usm_sim_gather_u32").unwrap();
    let scale = kernel(sim, module, "scale").unwrap();
    let mut properties = ze_kernel_properties_t {
        stype: ze_structure_type_t::ZE_STRUCTURE_TYPE_KERNEL_PROPERTIES,
        ..Default::default()
    };
    // SAFETY: a kernel of this test and a valid output struct.
    unsafe {
        ok((sim.api.kernel_get_properties)(scale, &mut properties));
        assert_eq!(
            properties.numKernelArgs, 3,
            "from the SPIR-V function's parameters"
        );
        assert_eq!(
            (sim.api.kernel_set_group_size)(fill, 2048, 1, 1),
            ze_result_t::ZE_RESULT_ERROR_INVALID_GROUP_SIZE_DIMENSION
        );
        assert_eq!(
            (sim.api.kernel_set_group_size)(fill, 64, 64, 1),
            ze_result_t::ZE_RESULT_ERROR_INVALID_GROUP_SIZE_DIMENSION,
            "4096 work items in a group"
        );
        let (mut x, mut y, mut z) = (0, 0, 0);
        ok((sim.api.kernel_suggest_group_size)(
            fill, 3000, 1, 1, &mut x, &mut y, &mut z,
        ));
        assert_eq!((3000 % x, y, z), (0, 1, 1));
    }
    assert_eq!(
        set_argument(sim, fill, 2, &0u32),
        ze_result_t::ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_INDEX
    );
    assert_eq!(
        set_argument(sim, fill, 1, &0u64),
        ze_result_t::ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE
    );

    const ITEMS: usize = 64;
    let list = sim.immediate_list(context, 1, 0);
    let pool = sim.event_pool(context, 1);
    let done = sim.event(pool, 0);
    let local = sim.alloc_device(context, 1, ITEMS * 4);
    let other = sim.alloc_device(context, 1, ITEMS * 4);
    // fill, then copy, on device 1's own memory.
    ok(set_argument(sim, fill, 0, &local));
    ok(set_argument(sim, fill, 1, &0xfeed_u32));
    ok(launch(sim, list, fill, done, ITEMS as u32));
    ok(set_argument(sim, copy, 0, &other));
    ok(set_argument(sim, copy, 1, &local));
    ok(launch(sim, list, copy, done, ITEMS as u32));
    assert_eq!(read_u32(sim, list, done, other, ITEMS), vec![0xfeed; ITEMS]);
    // A pointer argument into device 0's memory, not resident on device 1: refused.
    let remote = sim.alloc_device(context, 0, ITEMS * 4);
    ok(set_argument(sim, copy, 1, &remote));
    let violations = sim.counter("residency_violations");
    assert_eq!(
        launch(sim, list, copy, done, ITEMS as u32),
        ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT
    );
    assert_eq!(sim.counter("residency_violations"), violations + 1);
    // A gather through a table (on device 1) of pointers into device 0's memory: the table
    // argument is resident, the targets are not, and only the reads can tell.
    let values: Vec<u32> = (0..ITEMS as u32).map(|index| index * 3).collect();
    let host_list = sim.immediate_list(context, 0, 0);
    ok(sim.copy(
        host_list,
        remote,
        values.as_ptr() as *const c_void,
        ITEMS * 4,
        done,
        &mut [],
    ));
    sim.wait(done);
    // SAFETY: an event of this test.
    ok(unsafe { (sim.api.event_host_reset)(done) });
    let table: Vec<u64> = (0..ITEMS)
        .map(|index| remote as u64 + 4 * index as u64)
        .collect();
    let table_memory = sim.alloc_device(context, 1, ITEMS * 8);
    ok(sim.copy(
        list,
        table_memory,
        table.as_ptr() as *const c_void,
        ITEMS * 8,
        done,
        &mut [],
    ));
    sim.wait(done);
    // SAFETY: an event of this test.
    ok(unsafe { (sim.api.event_host_reset)(done) });
    ok(set_argument(sim, gather, 0, &other));
    ok(set_argument(sim, gather, 1, &table_memory));
    let violations = sim.counter("residency_violations");
    ok(launch(sim, list, gather, done, ITEMS as u32));
    assert_eq!(
        sim.counter("residency_violations"),
        violations + ITEMS as u64,
        "each undeclared read"
    );
    ok(sim.make_resident(context, 1, remote, ITEMS * 4));
    ok(launch(sim, list, gather, done, ITEMS as u32));
    assert_eq!(
        sim.counter("residency_violations"),
        violations + ITEMS as u64,
        "none once resident"
    );
    assert_eq!(read_u32(sim, list, done, other, ITEMS), values);
    assert!(sim.counter("launches") >= 4);
    // An unknown kernel runs as a no-op that still checks its pointer arguments.
    ok(set_argument(sim, scale, 0, &remote));
    ok(set_argument(sim, scale, 1, &local));
    ok(set_argument(sim, scale, 2, &2.0f32));
    ok(launch(sim, list, scale, done, 4));
    // SAFETY: objects of this test, destroyed once; kernels before their module.
    unsafe {
        for kernel in [fill, copy, gather, scale] {
            ok((sim.api.kernel_destroy)(kernel));
        }
        ok((sim.api.module_destroy)(module));
    }
    sim.destroy_list(list);
    sim.destroy_list(host_list);
    sim.destroy_events(pool, &[done]);
    for pointer in [local, other, remote, table_memory] {
        sim.free(context, pointer);
    }
    sim.destroy_context(context);
    sim.assert_clean();
}
on_both_paths!(builtins_run_with_residency_checked, "b70x2", checking);

/// A native binary is opaque: any kernel name exists, its arguments are not checked for
/// count beyond a limit (a large null one is local memory), and a launch of an unknown kernel
/// is a no-op.
#[test]
fn native_binaries_are_opaque() {
    let sim = Sim::preset("b70x2");
    let context = sim.context(&[0]);
    let (module, _) = build(
        &sim,
        context,
        0,
        ze_module_format_t::ZE_MODULE_FORMAT_NATIVE,
        &[0xde, 0xad],
    );
    let module = module.unwrap();
    let anything = kernel(&sim, module, "whatever_it_is").unwrap();
    ok(set_argument(&sim, anything, 7, &1u32));
    // A null value of 64 KiB is local memory, as compute-runtime takes it, not bytes refused.
    // SAFETY: a live kernel; a null value with its size.
    ok(unsafe { (sim.api.kernel_set_argument_value)(anything, 2, 64 << 10, std::ptr::null()) });
    // SAFETY: objects of this test, destroyed once.
    unsafe {
        ok((sim.api.kernel_destroy)(anything));
        ok((sim.api.module_destroy)(module));
    }
    sim.destroy_context(context);
    sim.assert_clean();
}

/// A kernel destroyed while a regular list has recorded (not submitted) a launch of it may go,
/// as nothing queued uses it; the list's execution then fails and counts a destroy hazard,
/// as a driver would read freed state.
#[test]
fn a_recorded_launch_of_a_destroyed_kernel_fails_when_its_list_runs() {
    let sim = Sim::preset("b70x2");
    let context = sim.context(&[0]);
    let bytes = ze_sim::spirv::module_with_kernels(BUILTINS);
    let (module, _) = build(
        &sim,
        context,
        0,
        ze_module_format_t::ZE_MODULE_FORMAT_IL_SPIRV,
        &bytes,
    );
    let module = module.unwrap();
    let fill = kernel(&sim, module, "lazy_usm_sim_fill_u32").unwrap();
    let memory = sim.alloc_device(context, 0, 4096);
    ok(set_argument(&sim, fill, 0, &memory));
    ok(set_argument(&sim, fill, 1, &7u32));
    let groups = ze_group_count_t {
        groupCountX: 4,
        groupCountY: 1,
        groupCountZ: 1,
    };
    // SAFETY: objects of this test and valid pointers.
    unsafe { ok((sim.api.kernel_set_group_size)(fill, 4, 1, 1)) };
    let result = sim.execute_recorded(
        context,
        0,
        // SAFETY: the kernel, its arguments set, and a group count of this test.
        |list| unsafe {
            ok((sim.api.command_list_append_launch_kernel)(
                list,
                fill,
                &groups,
                null_mut(),
                0,
                null_mut(),
            ))
        },
        // SAFETY: a kernel of this test, which no submitted work uses.
        || unsafe { ok((sim.api.kernel_destroy)(fill)) },
    );
    assert_eq!(result, ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT);
    assert_eq!(sim.counter("destroy_hazards"), 1);
    assert_eq!(sim.counter("launches"), 0, "nothing ran");
    // SAFETY: a module of this test whose kernels are gone.
    unsafe { ok((sim.api.module_destroy)(module)) };
    sim.free(context, memory);
    sim.destroy_context(context);
}

/// A kernel that queued launches use cannot be destroyed; unaligned arrays are refused; an
/// empty launch runs nothing.
#[test]
fn pending_launches_keep_their_kernel_and_bad_pointers_are_refused() {
    let sim = Sim::preset("b70x2");
    let context = sim.context(&[0]);
    let bytes = ze_sim::spirv::module_with_kernels(BUILTINS);
    let (module, _) = build(
        &sim,
        context,
        0,
        ze_module_format_t::ZE_MODULE_FORMAT_IL_SPIRV,
        &bytes,
    );
    let module = module.unwrap();
    let fill = kernel(&sim, module, "lazy_usm_sim_fill_u32").unwrap();
    let list = sim.immediate_list(context, 0, 0);
    let pool = sim.event_pool(context, 2);
    let (gate, done) = (sim.event(pool, 0), sim.event(pool, 1));
    let memory = sim.alloc_device(context, 0, 4096);
    let unaligned = (memory as usize + 2) as *mut c_void;
    ok(set_argument(&sim, fill, 0, &unaligned));
    ok(set_argument(&sim, fill, 1, &1u32));
    let groups = ze_group_count_t {
        groupCountX: 4,
        groupCountY: 1,
        groupCountZ: 1,
    };
    // SAFETY: objects of this test and valid pointers.
    unsafe {
        ok((sim.api.kernel_set_group_size)(fill, 4, 1, 1));
        assert_eq!(
            (sim.api.command_list_append_launch_kernel)(
                list,
                fill,
                &groups,
                null_mut(),
                0,
                null_mut()
            ),
            ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT,
            "an unaligned u32 array"
        );
        ok(set_argument(&sim, fill, 0, &memory));
        let mut waits = [gate];
        ok((sim.api.command_list_append_launch_kernel)(
            list,
            fill,
            &groups,
            done,
            1,
            waits.as_mut_ptr(),
        ));
        assert_eq!(
            (sim.api.kernel_destroy)(fill),
            ze_result_t::ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE
        );
        assert_eq!(sim.counter("destroy_hazards"), 1);
        ok((sim.api.event_host_signal)(gate));
        sim.wait(done);
        ok((sim.api.event_host_reset)(done));
        let none = ze_group_count_t {
            groupCountX: 0,
            groupCountY: 1,
            groupCountZ: 1,
        };
        ok((sim.api.command_list_append_launch_kernel)(
            list,
            fill,
            &none,
            done,
            0,
            null_mut(),
        ));
        sim.wait(done);
        ok((sim.api.kernel_destroy)(fill));
        ok((sim.api.module_destroy)(module));
    }
    sim.destroy_list(list);
    sim.destroy_events(pool, &[gate, done]);
    sim.free(context, memory);
    sim.destroy_context(context);
    sim.assert_clean();
}

#[test]
fn without_peer_access_reported_copies_are_staged_through_the_host_and_kernels_refused() {
    // compute-runtime's ForceZeDeviceCanAccessPerReturnValue=0, read as the driver reads it.
    let keys = |name: &str| match name {
        "NEOReadDebugKeys" => Some("1".to_string()),
        "ForceZeDeviceCanAccessPerReturnValue" => Some("0".to_string()),
        _ => None,
    };
    let config = ze_sim::SimConfig::preset("b70x2-faithful")
        .unwrap()
        .with_driver_debug_keys(keys);
    let sim = Sim::in_process(config);
    let mut allowed = 1u8;
    // SAFETY: the two devices and an output.
    ok(unsafe { (sim.api.device_can_access_peer)(sim.devices[1], sim.devices[0], &mut allowed) });
    assert_eq!(allowed, 0, "no peer access reported");
    let context = sim.context(&[0, 1]);
    let (list0, list1) = (
        sim.immediate_list(context, 0, 0),
        sim.immediate_list(context, 1, 0),
    );
    let source = sim.alloc_device(context, 0, 4096);
    let target = sim.alloc_device(context, 1, 4096);
    let data: Vec<u8> = (0..4096u32).map(|i| (i * 3) as u8).collect();
    ok(sim.copy(list0, source, data.as_ptr() as _, 4096, null_mut(), &mut []));
    let pool = sim.event_pool(context, 1);
    let done = sim.event(pool, 0);
    // Device 1 copies device 0's memory without any residency: staged through the host, so no
    // mirror, no import, no violation.
    let staged = sim.counter("host_staged_copies");
    ok(sim.copy(list1, target, source, 4096, done, &mut []));
    sim.wait(done);
    assert_eq!(
        sim.counter("host_staged_copies"),
        staged + 1,
        "the peer copy was staged"
    );
    // SAFETY: an event this test made.
    ok(unsafe { (sim.api.event_host_reset)(done) });
    let mut back = vec![0u8; 4096];
    ok(sim.copy(list1, back.as_mut_ptr() as _, target, 4096, done, &mut []));
    sim.wait(done);
    assert_eq!(back, data);
    assert_eq!(sim.host_pinned(), 0);
    assert_eq!(sim.counter("implicit_imports"), 0);
    assert_eq!(sim.counter("residency_violations"), 0);
    // A kernel on device 1 reading device 0's memory cannot.
    let (module, _) = build(
        &sim,
        context,
        1,
        ze_module_format_t::ZE_MODULE_FORMAT_IL_SPIRV,
        &ze_sim::spirv::module_with_kernels(BUILTINS),
    );
    let module = module.unwrap();
    let copy = kernel(&sim, module, "lazy_usm_sim_copy_u32").unwrap();
    ok(set_argument(&sim, copy, 0, &target));
    ok(set_argument(&sim, copy, 1, &source));
    // SAFETY: an event this test made.
    ok(unsafe { (sim.api.event_host_reset)(done) });
    assert_ne!(
        launch(&sim, list1, copy, done, 1024),
        ze_result_t::ZE_RESULT_SUCCESS
    );
    assert_eq!(sim.counter("residency_violations"), 1);
    // SAFETY: objects this test made.
    unsafe {
        ok((sim.api.kernel_destroy)(copy));
        ok((sim.api.module_destroy)(module));
    }
    sim.destroy_events(pool, &[done]);
    sim.free(context, source);
    sim.free(context, target);
    sim.destroy_list(list0);
    sim.destroy_list(list1);
    sim.destroy_context(context);
}

/// `defer_peer_backing` (the `b60x4` preset's model of seed 003): a residency call on a peer
/// registers the residency (GTT) and pins nothing; the next kernel backs every waiting residency
/// with pinned host memory, and refuses with `ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY` when host
/// memory runs out, what was backed before staying backed. A residency evicted before any kernel
/// is never backed; a copy backs nothing.
#[test]
fn peer_residency_is_backed_at_the_next_kernel_and_a_kernel_fails_when_the_host_runs_out() {
    const MIB: u64 = 1 << 20;
    let mut config = ze_sim::SimConfig::preset("b60x4").unwrap();
    assert!(config.defer_peer_backing);
    config.host_memory_bytes = 7 * MIB;
    let sim = Sim::in_process(config);
    let context = sim.context(&[0, 1]);
    let bytes = ze_sim::spirv::module_with_kernels(BUILTINS);
    let (module, _) = build(
        &sim,
        context,
        0,
        ze_module_format_t::ZE_MODULE_FORMAT_IL_SPIRV,
        &bytes,
    );
    let module = module.unwrap();
    let fill = kernel(&sim, module, "lazy_usm_sim_fill_u32").unwrap();
    let list = sim.immediate_list(context, 0, 0);
    let pool = sim.event_pool(context, 1);
    let done = sim.event(pool, 0);
    let blocks: Vec<_> = (0..3)
        .map(|_| sim.alloc_device(context, 0, 2 << 20))
        .collect();
    for &block in &blocks {
        ok(sim.make_resident(context, 1, block, 2 << 20));
    }
    assert_eq!(sim.host_pinned(), 0, "registered only");
    assert_eq!(sim.vram_gtt(1).1, 6 * MIB);
    ok(sim.evict(context, 1, blocks[2], 2 << 20));
    // A copy binds only its operands: nothing is backed.
    let host = vec![0u8; 4096];
    ok(sim.copy(
        list,
        blocks[0],
        host.as_ptr() as _,
        4096,
        null_mut(),
        &mut [],
    ));
    // SAFETY: the name with its header's type; the list of this test.
    unsafe {
        let synchronize = sim
            .function::<ze_pfnCommandListHostSynchronize_t>("zeCommandListHostSynchronize")
            .unwrap();
        ok(synchronize(list, u64::MAX));
    }
    assert_eq!(sim.host_pinned(), 0);
    // The first kernel backs the two left: 4 MiB of the 7.
    ok(set_argument(&sim, fill, 0, &blocks[0]));
    ok(set_argument(&sim, fill, 1, &7u32));
    ok(launch(&sim, list, fill, done, 16));
    assert_eq!(sim.host_pinned(), 4 * MIB);
    // Three more residencies need 4 MiB more at the next kernel, 3 MiB are left: the kernel is
    // refused, and what fit before the refusal stays backed.
    let more: Vec<_> = (0..2)
        .map(|_| sim.alloc_device(context, 0, MIB as usize))
        .collect();
    for &block in &more {
        ok(sim.make_resident(context, 1, block, MIB as usize));
    }
    let big = sim.alloc_device(context, 0, 2 << 20);
    ok(sim.make_resident(context, 1, big, 2 << 20));
    assert_eq!(
        launch(&sim, list, fill, done, 16),
        ze_result_t::ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY
    );
    let pinned = sim.host_pinned();
    assert!(pinned > 4 * MIB && pinned <= 7 * MIB, "{pinned}");
    // Freed memory gives its backing back, and the kernel then runs.
    sim.free(context, big);
    ok(launch(&sim, list, fill, done, 16));
    assert_eq!(
        sim.host_pinned(),
        6 * MIB,
        "blocks 0, 1 and the two small ones"
    );
    // SAFETY: objects of this test, idle.
    unsafe {
        ok((sim.api.kernel_destroy)(fill));
        ok((sim.api.module_destroy)(module));
    }
    sim.destroy_list(list);
    sim.destroy_events(pool, &[done]);
    for block in blocks.into_iter().chain(more) {
        sim.free(context, block);
    }
    assert_eq!(sim.host_pinned(), 0);
    sim.destroy_context(context);
    sim.assert_clean();
}

#[test]
fn kernel_properties_fill_the_extensions_chained_to_them() {
    let sim = Sim::preset("b70x2");
    let context = sim.context(&[0]);
    let bytes = ze_sim::spirv::module_with_kernels(&[("k", 1)]);
    let (module, _) = build(
        &sim,
        context,
        0,
        ze_module_format_t::ZE_MODULE_FORMAT_IL_SPIRV,
        &bytes,
    );
    let module = module.unwrap();
    let k = kernel(&sim, module, "k").unwrap();
    let mut preferred = ze_kernel_preferred_group_size_properties_t {
        stype: ze_structure_type_t::ZE_STRUCTURE_TYPE_KERNEL_PREFERRED_GROUP_SIZE_PROPERTIES,
        ..Default::default()
    };
    let mut limit = ze_kernel_max_group_size_properties_ext_t {
        stype: ze_structure_type_t::ZE_STRUCTURE_TYPE_KERNEL_MAX_GROUP_SIZE_EXT_PROPERTIES,
        pNext: &mut preferred as *mut _ as *mut c_void,
        ..Default::default()
    };
    let mut properties = ze_kernel_properties_t {
        stype: ze_structure_type_t::ZE_STRUCTURE_TYPE_KERNEL_PROPERTIES,
        pNext: &mut limit as *mut _ as *mut c_void,
        ..Default::default()
    };
    // SAFETY: a kernel of this test and a valid chain of outputs; then its destruction.
    unsafe {
        ok((sim.api.kernel_get_properties)(k, &mut properties));
        ok((sim.api.kernel_destroy)(k));
        ok((sim.api.module_destroy)(module));
    }
    assert_eq!(
        (
            properties.numKernelArgs,
            limit.maxGroupSize,
            preferred.preferredMultiple
        ),
        (1, 1024, 16)
    );
    sim.destroy_context(context);
    sim.assert_clean();
}

#[test]
fn cooperative_launches_fit_the_device_and_run_on_compute_engines_only() {
    let sim = Sim::preset("b70x2");
    // SAFETY (whole test): the names with their headers' types; handles of this test.
    unsafe {
        let cooperative = sim
            .function::<ze_pfnCommandListAppendLaunchCooperativeKernel_t>(
                "zeCommandListAppendLaunchCooperativeKernel",
            )
            .unwrap();
        let suggest = sim
            .function::<ze_pfnKernelSuggestMaxCooperativeGroupCount_t>(
                "zeKernelSuggestMaxCooperativeGroupCount",
            )
            .unwrap();
        let context = sim.context(&[0]);
        let bytes = ze_sim::spirv::module_with_kernels(&[("k", 0)]);
        let (module, _) = build(
            &sim,
            context,
            0,
            ze_module_format_t::ZE_MODULE_FORMAT_IL_SPIRV,
            &bytes,
        );
        let module = module.unwrap();
        let k = kernel(&sim, module, "k").unwrap();
        ok((sim.api.kernel_set_group_size)(k, 64, 1, 1));
        let mut most = 0;
        ok(suggest(k, &mut most));
        // 2,048 hardware threads of SIMD 16: groups of 64 items take 4 threads each.
        assert_eq!(most, 512);
        let compute = sim.immediate_list(context, 0, 0);
        let copy = sim.immediate_list(context, 0, 1);
        let fits = ze_group_count_t {
            groupCountX: most,
            groupCountY: 1,
            groupCountZ: 1,
        };
        let too_many = ze_group_count_t {
            groupCountX: most + 1,
            ..fits
        };
        let huge = ze_group_count_t {
            groupCountX: u32::MAX,
            groupCountY: u32::MAX,
            groupCountZ: u32::MAX,
        };
        ok(cooperative(compute, k, &fits, null_mut(), 0, null_mut()));
        assert_eq!(
            cooperative(compute, k, &too_many, null_mut(), 0, null_mut()),
            ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT
        );
        assert_eq!(
            cooperative(compute, k, &huge, null_mut(), 0, null_mut()),
            ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT
        );
        assert_eq!(
            cooperative(copy, k, &fits, null_mut(), 0, null_mut()),
            ze_result_t::ZE_RESULT_ERROR_INVALID_COMMAND_LIST_TYPE
        );
        let synchronize = sim
            .function::<ze_pfnCommandListHostSynchronize_t>("zeCommandListHostSynchronize")
            .unwrap();
        ok(synchronize(compute, u64::MAX));
        sim.destroy_list(compute);
        sim.destroy_list(copy);
        ok((sim.api.kernel_destroy)(k));
        ok((sim.api.module_destroy)(module));
        sim.destroy_context(context);
    }
    sim.assert_clean();
}

#[test]
fn a_context_destroyed_before_its_module_leaves_the_module_and_its_kernels_to_destroy() {
    let sim = Sim::preset("b70x2");
    let context = sim.context(&[0]);
    let bytes = ze_sim::spirv::module_with_kernels(&[("k", 0)]);
    let (module, _) = build(
        &sim,
        context,
        0,
        ze_module_format_t::ZE_MODULE_FORMAT_IL_SPIRV,
        &bytes,
    );
    let module = module.unwrap();
    sim.destroy_context(context);
    assert_eq!(sim.counter("destroy_hazards"), 1);
    // The orphans: a kernel made and destroyed, then the module, without underflow.
    let k = kernel(&sim, module, "k").unwrap();
    // SAFETY: objects of this test, destroyed once.
    unsafe {
        ok((sim.api.kernel_destroy)(k));
        ok((sim.api.module_destroy)(module));
    }
    sim.assert_clean();
}
