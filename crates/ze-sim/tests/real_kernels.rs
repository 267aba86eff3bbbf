//! Kernels that run for real: SPIR-V modules with code, built and run by the OpenCL CPU runtime
//! (`tests/kernels`, built by `scripts/build-kernels.sh`), on the simulated devices' memory.
//! Each test is ignored, with its reason, where no runtime was found when it was built
//! (`build.rs`), says SKIPPED where one was found but does not load, and fails under CI,
//! which installs one.

use crate::common::modules::{build, build_with, kernel, read_u32, set_argument};
use crate::common::{MIB, Sim, ok};
use level_zero_sys::*;
use std::ffi::c_void;
use std::ptr::null_mut;
use ze_sim::SimConfig;

const KERNELS: &[u8] = include_bytes!("kernels/kernels.spv");
const SPECIALIZED: &[u8] = include_bytes!("kernels/specialized.spv");
const UNRESOLVED: &[u8] = include_bytes!("kernels/unresolved.spv");
const ATOMICS: &[u8] = include_bytes!("kernels/atomics.spv");
const GLOBALS: &[u8] = include_bytes!("kernels/globals.spv");
const FUNCTION_POINTERS: &[u8] = include_bytes!("kernels/function_pointers.spv");
const SAMPLERS: &[u8] = include_bytes!("kernels/samplers.spv");
const SPIRV: ze_module_format_t = ze_module_format_t::ZE_MODULE_FORMAT_IL_SPIRV;

/// Whether kernels can run here; under CI their absence fails the test.
fn runtime_present(test: &str) -> bool {
    match ze_sim::kernel_runtime() {
        Ok(_) => true,
        Err(why) if std::env::var_os("CI").is_some() => panic!("{test}: {why}"),
        Err(why) => {
            // Past the test harness's capture, so that the skip shows beside the test's "ok".
            skipped(format!("SKIPPED {test}: {why}\n"));
            false
        }
    }
}

/// The module a build made, which must have succeeded (else its log says why).
fn built((module, log): (Result<ze_module_handle_t, ze_result_t>, String)) -> ze_module_handle_t {
    module.unwrap_or_else(|result| panic!("{result:?}: {log}"))
}

/// Launches `kernel` in `groups` of `group_size` on `list` and waits for it.
fn run(
    sim: &Sim,
    list: ze_command_list_handle_t,
    kernel: ze_kernel_handle_t,
    group_size: [u32; 3],
    groups: [u32; 3],
    done: ze_event_handle_t,
) -> ze_result_t {
    let [x, y, z] = group_size;
    let counts = ze_group_count_t {
        groupCountX: groups[0],
        groupCountY: groups[1],
        groupCountZ: groups[2],
    };
    // SAFETY: a kernel, list and event of this test.
    unsafe {
        ok((sim.api.kernel_set_group_size)(kernel, x, y, z));
        let result =
            (sim.api.command_list_append_launch_kernel)(list, kernel, &counts, done, 0, null_mut());
        if result == ze_result_t::ZE_RESULT_SUCCESS {
            sim.wait(done);
            ok((sim.api.event_host_reset)(done));
        }
        result
    }
}

/// Writes `values` into device memory at `to` through a copy.
fn write_u32(
    sim: &Sim,
    list: ze_command_list_handle_t,
    done: ze_event_handle_t,
    to: *mut c_void,
    values: &[u32],
) {
    ok(sim.copy(
        list,
        to,
        values.as_ptr() as *const c_void,
        values.len() * 4,
        done,
        &mut [],
    ));
    sim.wait(done);
    // SAFETY: an event of this test.
    ok(unsafe { (sim.api.event_host_reset)(done) });
}

fn set_local(sim: &Sim, kernel: ze_kernel_handle_t, index: u32, bytes: usize) -> ze_result_t {
    // SAFETY: a null value with a size is how local memory is given.
    unsafe { (sim.api.kernel_set_argument_value)(kernel, index, bytes, std::ptr::null()) }
}

fn destroy_kernel(sim: &Sim, kernel: ze_kernel_handle_t) {
    // SAFETY: a kernel of this test, with no launch pending.
    ok(unsafe { (sim.api.kernel_destroy)(kernel) });
}

fn destroy_module(sim: &Sim, module: ze_module_handle_t) {
    // SAFETY: a module of this test whose kernels are destroyed.
    ok(unsafe { (sim.api.module_destroy)(module) });
}

/// A context on device 0 with an event and an immediate list to run kernels and move bytes
/// with; `finish` destroys them and asserts that the test left nothing else behind.
struct Bench {
    sim: Sim,
    context: ze_context_handle_t,
    pool: ze_event_pool_handle_t,
    done: ze_event_handle_t,
    list: ze_command_list_handle_t,
}

impl Bench {
    fn new(sim: Sim) -> Self {
        let context = sim.context(&[0]);
        let pool = sim.event_pool(context, 1);
        let done = sim.event(pool, 0);
        let list = sim.immediate_list(context, 0, 0);
        Self {
            sim,
            context,
            pool,
            done,
            list,
        }
    }

    fn finish(self) {
        self.sim.destroy_list(self.list);
        self.sim.destroy_events(self.pool, &[self.done]);
        self.sim.destroy_context(self.context);
        self.sim.assert_clean();
    }
}

#[test]
#[cfg_attr(
    no_kernel_runtime,
    ignore = "no OpenCL runtime when built: install tests/opencl-requirements.txt, then cargo clean -p ze-sim"
)]
fn a_kernel_with_code_runs_on_each_device_and_reads_what_copies_wrote() {
    if !runtime_present("a_kernel_with_code_runs_on_each_device") {
        return;
    }
    let sim = Sim::preset("b70x2");
    let context = sim.context(&[0, 1]);
    let pool = sim.event_pool(context, 1);
    let done = sim.event(pool, 0);
    for device in 0..2u32 {
        let module = built(build(&sim, context, device, SPIRV, KERNELS));
        let add = kernel(&sim, module, "add_u32").unwrap();
        let list = sim.immediate_list(context, device, 0);
        let items = 1024usize;
        let input = sim.alloc_device(context, device, items * 4);
        let output = sim.alloc_device(context, device, items * 4);
        let values: Vec<u32> = (0..items as u32).map(|i| i * 3).collect();
        write_u32(&sim, list, done, input, &values);
        ok(set_argument(&sim, add, 0, &output));
        ok(set_argument(&sim, add, 1, &input));
        ok(set_argument(&sim, add, 2, &(100 + device)));
        ok(run(&sim, list, add, [64, 1, 1], [16, 1, 1], done));
        let read = read_u32(&sim, list, done, output, items);
        let expected: Vec<u32> = values.iter().map(|v| v + 100 + device).collect();
        assert_eq!(read, expected, "device {device}");
        destroy_kernel(&sim, add);
        destroy_module(&sim, module);
        sim.destroy_list(list);
        sim.free(context, input);
        sim.free(context, output);
    }
    assert_eq!(sim.counter("kernels_executed"), 2);
    assert_eq!(sim.counter("kernels_not_executed"), 0);
    assert_eq!(sim.counter("kernel_failures"), 0);
    sim.destroy_events(pool, &[done]);
    sim.destroy_context(context);
    sim.assert_clean();
}

#[test]
#[cfg_attr(
    no_kernel_runtime,
    ignore = "no OpenCL runtime when built: install tests/opencl-requirements.txt, then cargo clean -p ze-sim"
)]
fn local_memory_structs_three_dimensions_atomics_and_required_group_sizes() {
    if !runtime_present("local_memory_structs_three_dimensions_atomics") {
        return;
    }
    let sim = Sim::preset("b70x2");
    let bench = Bench::new(sim);
    let (sim, context, done, list) = (&bench.sim, bench.context, bench.done, bench.list);
    let module = built(build(sim, context, 0, SPIRV, KERNELS));
    let buffer = sim.alloc_device(context, 0, MIB);

    // Local memory and a barrier: groups of 8, each reversed.
    let reverse = kernel(sim, module, "reverse_in_groups").unwrap();
    ok(set_argument(sim, reverse, 0, &buffer));
    assert_eq!(
        set_argument(sim, reverse, 1, &0u64),
        ze_result_t::ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE,
        "local memory takes a size and no value"
    );
    ok(set_local(sim, reverse, 1, 8 * 4));
    ok(run(sim, list, reverse, [8, 1, 1], [3, 1, 1], done));
    let expected: Vec<u32> = (0..3u32)
        .flat_map(|group| (0..8u32).rev().map(move |item| group * 8 + item))
        .collect();
    assert_eq!(read_u32(sim, list, done, buffer, 24), expected);

    // A struct by value: { uint a; ulong b; } is 16 bytes.
    let sum = kernel(sim, module, "sum_pair").unwrap();
    ok(set_argument(sim, sum, 0, &buffer));
    // Given in fewer bytes, a value's other bytes are zero, as compute-runtime copies only
    // what it is given: { a = 7, b = 0 }.
    ok(set_argument(sim, sum, 1, &7u64));
    ok(run(sim, list, sum, [1, 1, 1], [1, 1, 1], done));
    assert_eq!(read_u32(sim, list, done, buffer, 2), [7, 0]);
    let pair: [u64; 2] = [7, 1 << 40];
    ok(set_argument(sim, sum, 1, &pair));
    ok(run(sim, list, sum, [1, 1, 1], [2, 1, 1], done));
    let read = read_u32(sim, list, done, buffer, 4);
    assert_eq!(
        read,
        [7, 1 << 8, 7, 1 << 8],
        "two u64s of 7 + 2^40, as u32 pairs"
    );

    // Three dimensions: 4 x 6 x 8 items in groups of 2 x 2 x 2.
    let ids = kernel(sim, module, "ids_3d").unwrap();
    ok(set_argument(sim, ids, 0, &buffer));
    ok(run(sim, list, ids, [2, 2, 2], [2, 3, 4], done));
    let read = read_u32(sim, list, done, buffer, 4 * 6 * 8);
    for (linear, value) in read.iter().enumerate() {
        let (x, y, z) = (linear % 4, (linear / 4) % 6, linear / 24);
        assert_eq!(*value as usize, x | (y << 10) | (z << 20), "item {linear}");
    }

    // Atomics across 16 groups of 16.
    let count = kernel(sim, module, "count").unwrap();
    write_u32(sim, list, done, buffer, &[0]);
    ok(set_argument(sim, count, 0, &buffer));
    ok(run(sim, list, count, [16, 1, 1], [16, 1, 1], done));
    assert_eq!(read_u32(sim, list, done, buffer, 1), [256]);

    // A required group size is reported, and each item sees it.
    let fixed = kernel(sim, module, "fixed_group").unwrap();
    let mut properties = ze_kernel_properties_t {
        stype: ze_structure_type_t::ZE_STRUCTURE_TYPE_KERNEL_PROPERTIES,
        ..Default::default()
    };
    // SAFETY: a kernel of this test and a valid output struct.
    ok(unsafe { (sim.api.kernel_get_properties)(fixed, &mut properties) });
    assert_eq!(
        (
            properties.requiredGroupSizeX,
            properties.requiredGroupSizeY,
            properties.requiredGroupSizeZ,
            properties.numKernelArgs
        ),
        (8, 1, 1, 1)
    );
    // Any other size is refused, the required one suggested, and it is the default.
    // SAFETY: a kernel of this test and valid outputs.
    unsafe {
        assert_eq!(
            (sim.api.kernel_set_group_size)(fixed, 16, 1, 1),
            ze_result_t::ZE_RESULT_ERROR_INVALID_GROUP_SIZE_DIMENSION
        );
        let (mut x, mut y, mut z) = (0, 0, 0);
        ok((sim.api.kernel_suggest_group_size)(
            fixed, 64, 1, 1, &mut x, &mut y, &mut z,
        ));
        assert_eq!((x, y, z), (8, 1, 1));
    }
    ok(set_argument(sim, fixed, 0, &buffer));
    let counts = ze_group_count_t {
        groupCountX: 2,
        groupCountY: 1,
        groupCountZ: 1,
    };
    // SAFETY: a kernel, list and event of this test; no group size set: the required one.
    unsafe {
        ok((sim.api.command_list_append_launch_kernel)(
            list,
            fixed,
            &counts,
            done,
            0,
            null_mut(),
        ));
        sim.wait(done);
        ok((sim.api.event_host_reset)(done));
    }
    assert_eq!(read_u32(sim, list, done, buffer, 16), [8; 16]);

    assert_eq!(sim.counter("kernels_executed"), 6, "sum_pair twice");
    assert_eq!(sim.counter("kernel_failures"), 0);
    for kernel in [reverse, sum, ids, count, fixed] {
        destroy_kernel(sim, kernel);
    }
    destroy_module(sim, module);
    sim.free(context, buffer);
    bench.finish();
}

/// Builds `bytes` with `constants` (id, value); the module or the result and its log.
fn build_specialized(
    sim: &Sim,
    context: ze_context_handle_t,
    bytes: &[u8],
    constants: &[(u32, u32)],
) -> (Result<ze_module_handle_t, ze_result_t>, String) {
    let ids: Vec<u32> = constants.iter().map(|&(id, _)| id).collect();
    let values: Vec<u32> = constants.iter().map(|&(_, value)| value).collect();
    let mut pointers: Vec<*const c_void> = values
        .iter()
        .map(|value| value as *const u32 as *const c_void)
        .collect();
    let table = ze_module_constants_t {
        numConstants: constants.len() as u32,
        pConstantIds: ids.as_ptr(),
        pConstantValues: pointers.as_mut_ptr(),
    };
    let flags = c"-ze-opt-level=2 -cl-mad-enable";
    let desc = ze_module_desc_t {
        stype: ze_structure_type_t::ZE_STRUCTURE_TYPE_MODULE_DESC,
        format: SPIRV,
        inputSize: bytes.len(),
        pInputModule: bytes.as_ptr(),
        pBuildFlags: flags.as_ptr(),
        pConstants: &table,
        ..Default::default()
    };
    build_with(sim, context, 0, &desc)
}

#[test]
#[cfg_attr(
    no_kernel_runtime,
    ignore = "no OpenCL runtime when built: install tests/opencl-requirements.txt, then cargo clean -p ze-sim"
)]
fn specialization_constants_reach_the_build_and_what_opencl_cannot_build_runs_as_a_no_op() {
    if !runtime_present("specialization_constants_reach_the_build") {
        return;
    }
    let sim = Sim::preset("b70x2");
    let bench = Bench::new(sim);
    let (sim, context, done, list) = (&bench.sim, bench.context, bench.done, bench.list);
    let buffer = sim.alloc_device(context, 0, 4096);
    for (constants, expected) in [(&[][..], 5u32), (&[(7, 42)][..], 42)] {
        let module = built(build_specialized(sim, context, SPECIALIZED, constants));
        let write = kernel(sim, module, "write_constant").unwrap();
        ok(set_argument(sim, write, 0, &buffer));
        ok(run(sim, list, write, [1, 1, 1], [1, 1, 1], done));
        assert_eq!(read_u32(sim, list, done, buffer, 1), [expected]);
        destroy_kernel(sim, write);
        destroy_module(sim, module);
    }
    let (module, log) = build_specialized(sim, context, SPECIALIZED, &[(9, 1)]);
    assert_eq!(
        module,
        Err(ze_result_t::ZE_RESULT_ERROR_MODULE_BUILD_FAILURE)
    );
    assert!(log.contains("no specialization constant 9"), "{log}");
    // Valid SPIR-V that OpenCL fails to build (to link): the module stays, its kernels run as
    // no-ops (a GPU driver may build what the CPU runtime cannot), and the log says why.
    let (module, log) = build(sim, context, 0, SPIRV, UNRESOLVED);
    let module = module.unwrap();
    assert!(log.starts_with("warning:"), "{log}");
    assert!(log.contains("lazy_usm_no_such_function"), "{log}");
    assert_eq!(sim.counter("modules_not_built"), 1);
    let calls = kernel(sim, module, "calls_missing").unwrap();
    ok(set_argument(sim, calls, 0, &buffer));
    let not_executed = sim.counter("kernels_not_executed");
    ok(run(sim, list, calls, [1, 1, 1], [1, 1, 1], done));
    assert_eq!(sim.counter("kernels_not_executed"), not_executed + 1);
    destroy_kernel(sim, calls);
    destroy_module(sim, module);
    assert_eq!(sim.counter("live_modules"), 0);
    sim.free(context, buffer);
    bench.finish();
}

#[test]
#[cfg_attr(
    no_kernel_runtime,
    ignore = "no OpenCL runtime when built: install tests/opencl-requirements.txt, then cargo clean -p ze-sim"
)]
fn pointer_arguments_are_checked_and_a_pointer_outside_every_allocation_is_not_run() {
    if !runtime_present("pointer_arguments_are_checked") {
        return;
    }
    // Checking mode: a peer's memory not resident on the kernel's device is refused.
    let sim = Sim::checking("b70x2");
    let context = sim.context(&[0, 1]);
    let pool = sim.event_pool(context, 1);
    let done = sim.event(pool, 0);
    let list0 = sim.immediate_list(context, 0, 0);
    let list1 = sim.immediate_list(context, 1, 0);
    let module = built(build(&sim, context, 1, SPIRV, KERNELS));
    let add = kernel(&sim, module, "add_u32").unwrap();
    let items = 64usize;
    let peer = sim.alloc_device(context, 0, items * 4);
    let output = sim.alloc_device(context, 1, items * 4);
    write_u32(&sim, list0, done, peer, &vec![5; items]);

    // Device 0's memory, not resident on device 1: checking mode refuses the launch.
    ok(set_argument(&sim, add, 0, &output));
    ok(set_argument(&sim, add, 1, &peer));
    ok(set_argument(&sim, add, 2, &1u32));
    let violations = sim.counter("residency_violations");
    assert_ne!(
        run(&sim, list1, add, [64, 1, 1], [1, 1, 1], done),
        ze_result_t::ZE_RESULT_SUCCESS
    );
    assert_eq!(sim.counter("residency_violations"), violations + 1);
    // Resident there, the kernel on device 1 reads it.
    ok(sim.make_resident(context, 1, peer, items * 4));
    ok(run(&sim, list1, add, [64, 1, 1], [1, 1, 1], done));
    assert_eq!(read_u32(&sim, list1, done, output, items), vec![6; items]);

    // Pageable host memory is no USM: the launch completes without running (a GPU would
    // fault), counted as a violation and as not executed.
    let pageable = vec![9u32; items];
    ok(set_argument(&sim, add, 1, &pageable.as_ptr()));
    let (violations, not_executed) = (
        sim.counter("residency_violations"),
        sim.counter("kernels_not_executed"),
    );
    ok(run(&sim, list1, add, [64, 1, 1], [1, 1, 1], done));
    assert_eq!(sim.counter("residency_violations"), violations + 1);
    assert_eq!(sim.counter("kernels_not_executed"), not_executed + 1);
    assert_eq!(read_u32(&sim, list1, done, output, items), vec![6; items]);

    // An argument left unset is refused at append.
    let fresh = kernel(&sim, module, "add_u32").unwrap();
    ok(set_argument(&sim, fresh, 0, &output));
    assert_eq!(
        run(&sim, list1, fresh, [64, 1, 1], [1, 1, 1], done),
        ze_result_t::ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_INDEX
    );
    // A pointer is given in a pointer's bytes, nothing else; a value in at least one byte.
    assert_eq!(
        set_argument(&sim, fresh, 0, &1u32),
        ze_result_t::ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE
    );
    let nothing = 0u32;
    // SAFETY: a kernel of this test; a size of 0 reads nothing.
    assert_eq!(
        unsafe {
            (sim.api.kernel_set_argument_value)(
                fresh,
                2,
                0,
                &nothing as *const u32 as *const c_void,
            )
        },
        ze_result_t::ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE
    );

    // What the simulator cannot see: a read through a table of pointers. The table names
    // device 0's memory (evicted from device 1 now); the kernel reads it and nothing counts it.
    ok(sim.evict(context, 1, peer, items * 4));
    let table = sim.alloc_device(context, 1, items * 8);
    let addresses: Vec<u64> = (0..items).map(|i| peer as u64 + 4 * i as u64).collect();
    ok(sim.copy(
        list1,
        table,
        addresses.as_ptr() as *const c_void,
        items * 8,
        done,
        &mut [],
    ));
    sim.wait(done);
    // SAFETY: an event of this test.
    ok(unsafe { (sim.api.event_host_reset)(done) });
    let gather = kernel(&sim, module, "gather_table").unwrap();
    ok(set_argument(&sim, gather, 0, &output));
    ok(set_argument(&sim, gather, 1, &table));
    let violations = sim.counter("residency_violations");
    ok(run(&sim, list1, gather, [64, 1, 1], [1, 1, 1], done));
    assert_eq!(read_u32(&sim, list1, done, output, items), vec![5; items]);
    assert_eq!(
        sim.counter("residency_violations"),
        violations,
        "a read through a pointer in a buffer is invisible to the simulator"
    );

    for kernel in [add, fresh, gather] {
        destroy_kernel(&sim, kernel);
    }
    destroy_module(&sim, module);
    for pointer in [peer, output, table] {
        sim.free(context, pointer);
    }
    sim.destroy_list(list0);
    sim.destroy_list(list1);
    sim.destroy_events(pool, &[done]);
    sim.destroy_context(context);
    assert_eq!(sim.counter("kernel_failures"), 0);
}

#[test]
fn with_kernel_execution_off_a_launch_is_counted_as_not_executed() {
    let mut config = SimConfig::preset("b70x2").unwrap();
    config.execute_kernels = false;
    let sim = Sim::in_process(config);
    let bench = Bench::new(sim);
    let (sim, context, done, list) = (&bench.sim, bench.context, bench.done, bench.list);
    let module = built(build(sim, context, 0, SPIRV, KERNELS));
    let add = kernel(sim, module, "add_u32").unwrap();
    let buffer = sim.alloc_device(context, 0, 256);
    write_u32(sim, list, done, buffer, &[1; 64]);
    ok(set_argument(sim, add, 0, &buffer));
    ok(set_argument(sim, add, 1, &buffer));
    ok(set_argument(sim, add, 2, &1u32));
    ok(run(sim, list, add, [64, 1, 1], [1, 1, 1], done));
    assert_eq!(read_u32(sim, list, done, buffer, 64), [1; 64]);
    assert_eq!(
        (
            sim.counter("kernels_executed"),
            sim.counter("kernels_not_executed")
        ),
        (0, 1)
    );
    destroy_kernel(sim, add);
    destroy_module(sim, module);
    sim.free(context, buffer);
    bench.finish();
}

#[test]
#[cfg_attr(
    no_kernel_runtime,
    ignore = "no OpenCL runtime when built: install tests/opencl-requirements.txt, then cargo clean -p ze-sim"
)]
fn threads_launching_kernels_at_once_each_get_their_results() {
    if !runtime_present("threads_launching_kernels_at_once") {
        return;
    }
    let sim = Sim::preset("b70x2");
    let context = sim.context(&[0, 1]);
    let modules: Vec<ze_module_handle_t> = (0..2u32)
        .map(|device| build(&sim, context, device, SPIRV, KERNELS).0.unwrap())
        .collect();
    let rounds = 20u32;
    // Handles cross threads as addresses (the spec makes these calls thread-safe).
    let shared_context = context as usize;
    let shared_modules: Vec<usize> = modules.iter().map(|&module| module as usize).collect();
    std::thread::scope(|scope| {
        for thread in 0..4u32 {
            let (sim, shared_modules) = (&sim, &shared_modules);
            scope.spawn(move || {
                let context = shared_context as ze_context_handle_t;
                let device = thread % 2;
                let pool = sim.event_pool(context, 1);
                let done = sim.event(pool, 0);
                let list = sim.immediate_list(context, device, 0);
                let module = shared_modules[device as usize] as ze_module_handle_t;
                let add = kernel(sim, module, "add_u32").unwrap();
                let items = 256usize;
                let buffer = sim.alloc_device(context, device, items * 4);
                write_u32(sim, list, done, buffer, &vec![thread; items]);
                ok(set_argument(sim, add, 0, &buffer));
                ok(set_argument(sim, add, 1, &buffer));
                ok(set_argument(sim, add, 2, &1u32));
                for _ in 0..rounds {
                    ok(run(sim, list, add, [32, 1, 1], [8, 1, 1], done));
                }
                assert_eq!(
                    read_u32(sim, list, done, buffer, items),
                    vec![thread + rounds; items]
                );
                destroy_kernel(sim, add);
                sim.free(context, buffer);
                sim.destroy_list(list);
                sim.destroy_events(pool, &[done]);
            });
        }
    });
    assert_eq!(sim.counter("kernels_executed"), u64::from(4 * rounds));
    for module in modules {
        destroy_module(&sim, module);
    }
    sim.destroy_context(context);
    sim.assert_clean();
}

#[test]
#[cfg_attr(
    no_kernel_runtime,
    ignore = "no OpenCL runtime when built: install tests/opencl-requirements.txt, then cargo clean -p ze-sim"
)]
fn a_global_offset_moves_the_first_work_items_id() {
    if !runtime_present("a_global_offset_moves_the_first_work_items_id") {
        return;
    }
    let sim = Sim::preset("b70x2");
    // SAFETY (whole test): the name with its header's type, on a kernel of this test.
    let set_offset = unsafe {
        sim.function::<ze_pfnKernelSetGlobalOffsetExp_t>("zeKernelSetGlobalOffsetExp")
            .unwrap()
    };
    let bench = Bench::new(sim);
    let (sim, context, done, list) = (&bench.sim, bench.context, bench.done, bench.list);
    let module = built(build(sim, context, 0, SPIRV, KERNELS));
    let add = kernel(sim, module, "add_u32").unwrap();
    let items = 128usize;
    let input = sim.alloc_device(context, 0, items * 4);
    let output = sim.alloc_device(context, 0, items * 4);
    let values: Vec<u32> = (0..items as u32).collect();
    write_u32(sim, list, done, input, &values);
    write_u32(sim, list, done, output, &vec![0; items]);
    ok(set_argument(sim, add, 0, &output));
    ok(set_argument(sim, add, 1, &input));
    ok(set_argument(sim, add, 2, &1000u32));
    // SAFETY: a kernel of this test.
    ok(unsafe { set_offset(add, 16, 0, 0) });
    ok(run(sim, list, add, [16, 1, 1], [4, 1, 1], done));
    let read = read_u32(sim, list, done, output, items);
    for (index, value) in read.iter().enumerate() {
        let expected = if (16..80).contains(&index) {
            index as u32 + 1000
        } else {
            0
        };
        assert_eq!(*value, expected, "item {index}");
    }
    // The built-ins index from the first work item: an offset is refused for them.
    let builtins = ze_sim::spirv::module_with_kernels(&[("lazy_usm_sim_fill_u32", 2)]);
    let (declared, _) = build(sim, context, 0, SPIRV, &builtins);
    let declared = declared.unwrap();
    let fill = kernel(sim, declared, "lazy_usm_sim_fill_u32").unwrap();
    ok(set_argument(sim, fill, 0, &output));
    ok(set_argument(sim, fill, 1, &7u32));
    // SAFETY: a kernel of this test.
    ok(unsafe { set_offset(fill, 4, 0, 0) });
    assert_eq!(
        run(sim, list, fill, [4, 1, 1], [1, 1, 1], done),
        ze_result_t::ZE_RESULT_ERROR_UNSUPPORTED_FEATURE
    );
    destroy_kernel(sim, fill);
    destroy_kernel(sim, add);
    destroy_module(sim, declared);
    destroy_module(sim, module);
    sim.free(context, input);
    sim.free(context, output);
    bench.finish();
}

#[test]
#[cfg_attr(
    no_kernel_runtime,
    ignore = "no OpenCL runtime when built: install tests/opencl-requirements.txt, then cargo clean -p ze-sim"
)]
fn memory_a_queued_kernel_reaches_through_a_table_outlives_its_free() {
    if !runtime_present("memory_a_queued_kernel_reaches_through_a_table_outlives_its_free") {
        return;
    }
    let sim = Sim::preset("b70x2");
    let context = sim.context(&[0]);
    let pool = sim.event_pool(context, 2);
    let (gate, done) = (sim.event(pool, 0), sim.event(pool, 1));
    let list = sim.immediate_list(context, 0, 0);
    let module = built(build(&sim, context, 0, SPIRV, KERNELS));
    let gather = kernel(&sim, module, "gather_table").unwrap();
    let items = 64usize;
    let values = sim.alloc_device(context, 0, items * 4);
    let table = sim.alloc_device(context, 0, items * 8);
    let output = sim.alloc_device(context, 0, items * 4);
    write_u32(
        &sim,
        list,
        done,
        values,
        &(0..items as u32).map(|i| i * 7).collect::<Vec<_>>(),
    );
    let addresses: Vec<u64> = (0..items).map(|i| values as u64 + 4 * i as u64).collect();
    ok(sim.copy(
        list,
        table,
        addresses.as_ptr() as _,
        items * 8,
        done,
        &mut [],
    ));
    sim.wait(done);
    ok(set_argument(&sim, gather, 0, &output));
    ok(set_argument(&sim, gather, 1, &table));
    let mut waits = [gate];
    let groups = ze_group_count_t {
        groupCountX: 1,
        groupCountY: 1,
        groupCountZ: 1,
    };
    // SAFETY: handles of this test; the wait list outlives the call.
    unsafe {
        ok((sim.api.kernel_set_group_size)(gather, items as u32, 1, 1));
        ok((sim.api.event_host_reset)(done));
        ok((sim.api.command_list_append_launch_kernel)(
            list,
            gather,
            &groups,
            done,
            1,
            waits.as_mut_ptr(),
        ));
    }
    // Freed while the launch waits: only the table reaches it, so the simulator cannot know the
    // kernel uses it, and keeps it until the launch completes (no hazard: nothing is known).
    sim.free(context, values);
    assert_eq!(sim.counter("free_hazards"), 0);
    assert_eq!(sim.counter("frees_held_for_kernels"), 1);
    assert_eq!(
        sim.counter("live_allocations"),
        2,
        "freed as the program sees it"
    );
    // SAFETY: an event of this test.
    ok(unsafe { (sim.api.event_host_signal)(gate) });
    sim.wait(done);
    // SAFETY: an event of this test.
    ok(unsafe { (sim.api.event_host_reset)(done) });
    let expected: Vec<u32> = (0..items as u32).map(|i| i * 7).collect();
    assert_eq!(read_u32(&sim, list, done, output, items), expected);
    destroy_kernel(&sim, gather);
    destroy_module(&sim, module);
    sim.free(context, table);
    sim.free(context, output);
    sim.destroy_list(list);
    sim.destroy_events(pool, &[gate, done]);
    sim.destroy_context(context);
    sim.assert_clean();
}

#[test]
#[cfg_attr(
    no_kernel_runtime,
    ignore = "no OpenCL runtime when built: install tests/opencl-requirements.txt, then cargo clean -p ze-sim"
)]
fn atomics_through_generic_pointers_run_with_the_builtins_the_cpu_runtime_lacks() {
    if !runtime_present("atomics_through_generic_pointers_run") {
        return;
    }
    let sim = Sim::preset("b70x2");
    let bench = Bench::new(sim);
    let (sim, context, done, list) = (&bench.sim, bench.context, bench.done, bench.list);
    let (module, log) = build(sim, context, 0, SPIRV, ATOMICS);
    assert!(log.is_empty(), "built, with the atomics linked in: {log}");
    let module = built((module, log));
    assert_eq!(sim.counter("modules_not_built"), 0);
    let items = 256usize;
    let (source, target) = (
        sim.alloc_device(context, 0, items * 4),
        sim.alloc_device(context, 0, items * 4),
    );
    let values: Vec<u32> = (0..items as u32).map(|i| i ^ 0x5a5a).collect();
    write_u32(sim, list, done, source, &values);
    let copy = kernel(sim, module, "atomic_copy").unwrap();
    ok(set_argument(sim, copy, 0, &target));
    ok(set_argument(sim, copy, 1, &source));
    ok(run(sim, list, copy, [64, 1, 1], [4, 1, 1], done));
    assert_eq!(read_u32(sim, list, done, target, items), values);
    // Every work item of 32 groups adds one.
    let count = kernel(sim, module, "atomic_count").unwrap();
    write_u32(sim, list, done, target, &[0]);
    ok(set_argument(sim, count, 0, &target));
    ok(run(sim, list, count, [32, 1, 1], [32, 1, 1], done));
    assert_eq!(read_u32(sim, list, done, target, 1), [1024]);
    assert_eq!(sim.counter("kernels_executed"), 2);
    for kernel in [copy, count] {
        destroy_kernel(sim, kernel);
    }
    destroy_module(sim, module);
    sim.free(context, source);
    sim.free(context, target);
    bench.finish();
}

#[test]
#[cfg_attr(
    no_kernel_runtime,
    ignore = "no OpenCL runtime when built: install tests/opencl-requirements.txt, then cargo clean -p ze-sim"
)]
fn an_indirect_launch_reads_its_group_counts_when_it_runs() {
    if !runtime_present("an_indirect_launch_reads_its_group_counts_when_it_runs") {
        return;
    }
    let sim = Sim::preset("b70x2");
    // SAFETY (whole test): the name with its header's type; handles of this test.
    let indirect = unsafe {
        sim.function::<ze_pfnCommandListAppendLaunchKernelIndirect_t>(
            "zeCommandListAppendLaunchKernelIndirect",
        )
        .unwrap()
    };
    let bench = Bench::new(sim);
    let (sim, context, done, list) = (&bench.sim, bench.context, bench.done, bench.list);
    let module = built(build(sim, context, 0, SPIRV, KERNELS));
    let add = kernel(sim, module, "add_u32").unwrap();
    let items = 256usize;
    let input = sim.alloc_device(context, 0, items * 4);
    let output = sim.alloc_device(context, 0, items * 4);
    let counts = sim.alloc_device(context, 0, 64);
    write_u32(sim, list, done, input, &vec![1; items]);
    write_u32(sim, list, done, output, &vec![0; items]);
    ok(set_argument(sim, add, 0, &output));
    ok(set_argument(sim, add, 1, &input));
    ok(set_argument(sim, add, 2, &1u32));
    // SAFETY: a kernel of this test.
    ok(unsafe { (sim.api.kernel_set_group_size)(add, 32, 1, 1) });
    // A regular list: the counts are written by its own copy, just before the launch reads them
    // (3 groups of 32), so reading them at append would see the zeros there now.
    write_u32(sim, list, done, counts, &[0, 0, 0]);
    let queue_desc = ze_command_queue_desc_t {
        stype: ze_structure_type_t::ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC,
        ..Default::default()
    };
    let list_desc = ze_command_list_desc_t {
        stype: ze_structure_type_t::ZE_STRUCTURE_TYPE_COMMAND_LIST_DESC,
        ..Default::default()
    };
    let (mut queue, mut regular) = (null_mut(), null_mut());
    let groups: [u32; 3] = [3, 1, 1];
    // SAFETY: handles of this test; descriptors and the counts outlive the calls.
    unsafe {
        ok((sim.api.command_queue_create)(
            context,
            sim.devices[0],
            &queue_desc,
            &mut queue,
        ));
        ok((sim.api.command_list_create)(
            context,
            sim.devices[0],
            &list_desc,
            &mut regular,
        ));
        ok(sim.copy(
            regular,
            counts,
            groups.as_ptr() as _,
            12,
            null_mut(),
            &mut [],
        ));
        ok((sim.api.command_list_append_barrier)(
            regular,
            null_mut(),
            0,
            null_mut(),
        ));
        ok(indirect(
            regular,
            add,
            counts as *const ze_group_count_t,
            null_mut(),
            0,
            null_mut(),
        ));
        ok((sim.api.command_list_close)(regular));
        let mut lists = [regular];
        ok((sim.api.command_queue_execute_command_lists)(
            queue,
            1,
            lists.as_mut_ptr(),
            null_mut(),
        ));
        ok((sim.api.command_queue_synchronize)(queue, u64::MAX));
    }
    let read = read_u32(sim, list, done, output, items);
    let expected: Vec<u32> = (0..items).map(|i| if i < 96 { 2 } else { 0 }).collect();
    assert_eq!(read, expected, "3 groups of 32 ran");
    // SAFETY: handles of this test, idle now.
    unsafe {
        ok((sim.api.command_list_destroy)(regular));
        ok((sim.api.command_queue_destroy)(queue));
    }
    destroy_kernel(sim, add);
    destroy_module(sim, module);
    for pointer in [input, output, counts] {
        sim.free(context, pointer);
    }
    bench.finish();
}

#[test]
#[cfg_attr(
    no_kernel_runtime,
    ignore = "no OpenCL runtime when built: install tests/opencl-requirements.txt, then cargo clean -p ze-sim"
)]
fn a_native_binary_builds_the_module_again_with_its_constants() {
    if !runtime_present("a_native_binary_builds_the_module_again") {
        return;
    }
    let sim = Sim::preset("b70x2");
    // SAFETY (whole test): the name with its header's type; handles of this test.
    let get_binary = unsafe {
        sim.function::<ze_pfnModuleGetNativeBinary_t>("zeModuleGetNativeBinary")
            .unwrap()
    };
    let bench = Bench::new(sim);
    let (sim, context, done, list) = (&bench.sim, bench.context, bench.done, bench.list);
    let buffer = sim.alloc_device(context, 0, 4096);
    let module = built(build_specialized(sim, context, SPECIALIZED, &[(7, 99)]));
    let mut size = 0;
    // SAFETY: a module of this test; size query, then a buffer of that size.
    let binary = unsafe {
        ok(get_binary(module, &mut size, null_mut()));
        let mut binary = vec![0u8; size];
        let mut short = size - 1;
        assert_eq!(
            get_binary(module, &mut short, binary.as_mut_ptr()),
            ze_result_t::ZE_RESULT_ERROR_INVALID_SIZE
        );
        ok(get_binary(module, &mut size, binary.as_mut_ptr()));
        binary
    };
    destroy_module(sim, module);
    // Cut short, it is no module.
    let (damaged, log) = build(
        sim,
        context,
        0,
        ze_module_format_t::ZE_MODULE_FORMAT_NATIVE,
        &binary[..binary.len() - 1],
    );
    assert_eq!(
        damaged,
        Err(ze_result_t::ZE_RESULT_ERROR_MODULE_BUILD_FAILURE)
    );
    assert!(log.contains("damaged"), "{log}");
    let (again, log) = build(
        sim,
        context,
        0,
        ze_module_format_t::ZE_MODULE_FORMAT_NATIVE,
        &binary,
    );
    let again = again.unwrap_or_else(|result| panic!("{result:?}: {log}"));
    // Its kernels are the module's: a name it lacks is refused, as for SPIR-V.
    assert_eq!(
        kernel(sim, again, "missing"),
        Err(ze_result_t::ZE_RESULT_ERROR_INVALID_KERNEL_NAME)
    );
    let write = kernel(sim, again, "write_constant").unwrap();
    ok(set_argument(sim, write, 0, &buffer));
    ok(run(sim, list, write, [1, 1, 1], [1, 1, 1], done));
    assert_eq!(
        read_u32(sim, list, done, buffer, 1),
        [99],
        "the constant came along"
    );
    destroy_kernel(sim, write);
    destroy_module(sim, again);
    // Intel's form of the same: a zebin carrying the SPIR-V and its constants (64-bit values,
    // each given to the build at its constant's size); one naming a constant the module lacks
    // is refused.
    let zebin = ze_sim::zebin::write(&["write_constant"], Some(SPECIALIZED), None, &[(7, 1234)]);
    let from_zebin = built(build(
        sim,
        context,
        0,
        ze_module_format_t::ZE_MODULE_FORMAT_NATIVE,
        &zebin,
    ));
    let write = kernel(sim, from_zebin, "write_constant").unwrap();
    ok(set_argument(sim, write, 0, &buffer));
    ok(run(sim, list, write, [1, 1, 1], [1, 1, 1], done));
    assert_eq!(
        read_u32(sim, list, done, buffer, 1),
        [1234],
        "the zebin's constant"
    );
    destroy_kernel(sim, write);
    destroy_module(sim, from_zebin);
    let unknown = ze_sim::zebin::write(&["write_constant"], Some(SPECIALIZED), None, &[(9, 1)]);
    let (refused, log) = build(
        sim,
        context,
        0,
        ze_module_format_t::ZE_MODULE_FORMAT_NATIVE,
        &unknown,
    );
    assert_eq!(
        refused,
        Err(ze_result_t::ZE_RESULT_ERROR_MODULE_BUILD_FAILURE)
    );
    assert!(log.contains("specialization constant 9"), "{log}");
    sim.free(context, buffer);
    bench.finish();
}

/// Intel's native binaries (zebin) as clients hand them in: one carrying SPIR-V builds from
/// it, as compute-runtime rebuilds from a zebin's intermediate representation, and its kernels
/// run; one of GPU machine code only is refused with a log saying why, so that a client (as
/// oneMKL does) takes its SPIR-V path instead of getting kernels that silently did nothing.
/// Its launch carries its arguments, local memory among them as a pointer to its size.
#[test]
#[cfg_attr(
    no_kernel_runtime,
    ignore = "no OpenCL runtime when built: install tests/opencl-requirements.txt, then cargo clean -p ze-sim"
)]
fn an_intel_native_binary_runs_from_its_spirv_and_one_of_machine_code_only_is_refused() {
    if !runtime_present("an_intel_native_binary_runs_from_its_spirv") {
        return;
    }
    let sim = Sim::preset("b70x2");
    let mut table = ze_command_list_dditable_t::default();
    // SAFETY: a whole table at this crate's version.
    ok(unsafe {
        ze_sim::ddi::zeGetCommandListProcAddrTable(
            ze_api_version_t::ZE_API_VERSION_CURRENT,
            &mut table,
        )
    });
    let launch_with_arguments = table.pfnAppendLaunchKernelWithArguments.unwrap();
    let bench = Bench::new(sim);
    let (sim, context, done, list) = (&bench.sim, bench.context, bench.done, bench.list);
    let native = ze_module_format_t::ZE_MODULE_FORMAT_NATIVE;

    let machine_code_only = ze_sim::zebin::write(&["sgemm_generated"], None, None, &[]);
    let (refused, log) = build(sim, context, 0, native, &machine_code_only);
    assert_eq!(
        refused,
        Err(ze_result_t::ZE_RESULT_ERROR_MODULE_BUILD_FAILURE)
    );
    assert!(
        log.contains("machine code") && log.contains("sgemm_generated"),
        "{log}"
    );
    assert_eq!(sim.counter("native_binaries_refused"), 1);

    let carrying_spirv = ze_sim::zebin::write(&["reverse_in_groups"], Some(KERNELS), Some(""), &[]);
    let module = built(build(sim, context, 0, native, &carrying_spirv));
    let reverse = kernel(sim, module, "reverse_in_groups").unwrap();
    let buffer = sim.alloc_device(context, 0, MIB);
    let mut pointer = buffer;
    let mut local_bytes: usize = 8 * 4;
    let mut arguments = [
        (&raw mut pointer).cast::<c_void>(),
        (&raw mut local_bytes).cast::<c_void>(),
    ];
    let counts = ze_group_count_t {
        groupCountX: 3,
        groupCountY: 1,
        groupCountZ: 1,
    };
    let group = ze_group_size_t {
        groupSizeX: 8,
        groupSizeY: 1,
        groupSizeZ: 1,
    };
    // SAFETY: a kernel, list and event of this test; one pointer per argument, each to its
    // value (the local memory's to its size), valid for the call.
    unsafe {
        ok(launch_with_arguments(
            list,
            reverse,
            counts,
            group,
            arguments.as_mut_ptr(),
            std::ptr::null(),
            done,
            0,
            null_mut(),
        ));
        sim.wait(done);
        ok((sim.api.event_host_reset)(done));
    }
    let expected: Vec<u32> = (0..3u32)
        .flat_map(|group| (0..8u32).rev().map(move |item| group * 8 + item))
        .collect();
    assert_eq!(read_u32(sim, list, done, buffer, 24), expected);
    // More local memory than a group has fails the launch, as compute-runtime's does; the size
    // is kept as a 32-bit count, as there, so stray upper bits of a size_t are no request for
    // terabytes (and no allocation of them).
    for (bytes, result) in [
        (
            1usize << 20,
            ze_result_t::ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY,
        ),
        ((0x7ffd_usize << 32) | 32, ze_result_t::ZE_RESULT_SUCCESS),
    ] {
        // SAFETY: the array's second pointer is `local_bytes`'s, live here; as above.
        let launched = unsafe {
            arguments[1].cast::<usize>().write(bytes);
            launch_with_arguments(
                list,
                reverse,
                counts,
                group,
                arguments.as_mut_ptr(),
                std::ptr::null(),
                done,
                0,
                null_mut(),
            )
        };
        assert_eq!(launched, result, "{bytes:#x} bytes of local memory");
        if launched == ze_result_t::ZE_RESULT_SUCCESS {
            sim.wait(done);
            // SAFETY: an event of this test.
            ok(unsafe { (sim.api.event_host_reset)(done) });
        }
    }
    assert_eq!(sim.counter("native_binaries_refused"), 1);
    assert_eq!(sim.counter("kernel_failures"), 0);
    destroy_kernel(sim, reverse);
    destroy_module(sim, module);
    sim.free(context, buffer);
    bench.finish();
}

#[test]
#[cfg_attr(
    no_kernel_runtime,
    ignore = "no OpenCL runtime when built: install tests/opencl-requirements.txt, then cargo clean -p ze-sim"
)]
fn a_module_destroyed_before_its_kernels_leaves_them_running_and_counts_a_hazard() {
    if !runtime_present("a_module_destroyed_before_its_kernels") {
        return;
    }
    let sim = Sim::preset("b70x2");
    let bench = Bench::new(sim);
    let (sim, context, done, list) = (&bench.sim, bench.context, bench.done, bench.list);
    let module = built(build(sim, context, 0, SPIRV, KERNELS));
    let add = kernel(sim, module, "add_u32").unwrap();
    destroy_module(sim, module);
    assert_eq!(sim.counter("destroy_hazards"), 1);
    let buffer = sim.alloc_device(context, 0, 256);
    write_u32(sim, list, done, buffer, &[4; 64]);
    ok(set_argument(sim, add, 0, &buffer));
    ok(set_argument(sim, add, 1, &buffer));
    ok(set_argument(sim, add, 2, &3u32));
    ok(run(sim, list, add, [64, 1, 1], [1, 1, 1], done));
    assert_eq!(
        read_u32(sim, list, done, buffer, 64),
        [7; 64],
        "its code stayed"
    );
    destroy_kernel(sim, add);
    sim.free(context, buffer);
    assert_eq!(
        sim.counter("destroy_hazards"),
        1,
        "the module's, and no other"
    );
    bench.finish();
}

/// What a module and its kernels say of themselves, from their SPIR-V (no runtime needed):
/// the imports flag, each kernel's source attributes as OpenCL C spells them, the cache split
/// taken or an unknown flag refused, and the compiler's options in the native binary as
/// compute-runtime makes them from the build flags.
#[test]
fn modules_and_kernels_describe_themselves_as_the_driver_does() {
    let sim = Sim::preset("b70x2");
    // SAFETY (whole test): each name with its header's type; handles of this test.
    let (properties_of, attributes_of, cache_config, get_binary) = unsafe {
        (
            sim.function::<ze_pfnModuleGetProperties_t>("zeModuleGetProperties")
                .unwrap(),
            sim.function::<ze_pfnKernelGetSourceAttributes_t>("zeKernelGetSourceAttributes")
                .unwrap(),
            sim.function::<ze_pfnKernelSetCacheConfig_t>("zeKernelSetCacheConfig")
                .unwrap(),
            sim.function::<ze_pfnModuleGetNativeBinary_t>("zeModuleGetNativeBinary")
                .unwrap(),
        )
    };
    let context = sim.context(&[0]);
    let flags = c"-ze-opt-level=1 -cl-mad-enable";
    let desc = ze_module_desc_t {
        stype: ze_structure_type_t::ZE_STRUCTURE_TYPE_MODULE_DESC,
        format: SPIRV,
        inputSize: KERNELS.len(),
        pInputModule: KERNELS.as_ptr(),
        pBuildFlags: flags.as_ptr(),
        ..Default::default()
    };
    let module = built(build_with(&sim, context, 0, &desc));
    let (unresolved, _) = build(&sim, context, 0, SPIRV, UNRESOLVED);
    let unresolved = unresolved.unwrap();
    let flags_of = |module| {
        let mut properties = ze_module_properties_t {
            stype: ze_structure_type_t::ZE_STRUCTURE_TYPE_MODULE_PROPERTIES,
            flags: u32::MAX,
            ..Default::default()
        };
        // SAFETY: a module of this test and an output struct of this frame.
        ok(unsafe { properties_of(module, &mut properties) });
        properties.flags
    };
    assert_eq!(flags_of(module), 0);
    assert_eq!(
        flags_of(unresolved),
        ze_module_property_flag_t::ZE_MODULE_PROPERTY_FLAG_IMPORTS.0
    );
    let attributes = |name: &str| {
        let kernel = kernel(&sim, module, name).unwrap();
        let mut size = 0u32;
        // SAFETY: a kernel of this test; the size, then a buffer of that size through a
        // pointer to its address, as the spec's signature has it.
        let text = unsafe {
            ok(attributes_of(kernel, &mut size, null_mut()));
            let mut buffer = vec![0x7f as std::ffi::c_char; size as usize];
            let mut start = buffer.as_mut_ptr();
            ok(attributes_of(kernel, &mut size, &mut start));
            assert_eq!(buffer.last(), Some(&0), "nul-terminated");
            std::ffi::CStr::from_ptr(buffer.as_ptr())
                .to_string_lossy()
                .into_owned()
        };
        (kernel, text)
    };
    let (hinted, text) = attributes("hinted");
    assert_eq!(
        text,
        "intel_reqd_sub_group_size(16) work_group_size_hint(4,2,1)"
    );
    let (fixed, text) = attributes("fixed_group");
    assert_eq!(text, "reqd_work_group_size(8,1,1)");
    let (plain, text) = attributes("gather_table");
    assert_eq!(text, "");
    // A buffer too small is left as it is (compute-runtime's strncpy_s refuses the copy).
    let mut short = [0x7f as std::ffi::c_char; 4];
    let mut start = short.as_mut_ptr();
    let mut size = short.len() as u32;
    // SAFETY: a kernel of this test and a buffer of `size` bytes.
    ok(unsafe { attributes_of(fixed, &mut size, &mut start) });
    assert_eq!((short, size), ([0x7f; 4], 4));
    // SAFETY: a kernel of this test.
    unsafe {
        ok(cache_config(
            hinted,
            ze_cache_config_flag_t::ZE_CACHE_CONFIG_FLAG_LARGE_SLM.0,
        ));
        assert_eq!(
            cache_config(hinted, 1 << 7),
            ze_result_t::ZE_RESULT_ERROR_INVALID_ENUMERATION
        );
    }
    let mut size = 0;
    // SAFETY: a module of this test; size query, then a buffer of that size.
    let binary = unsafe {
        ok(get_binary(module, &mut size, null_mut()));
        let mut binary = vec![0u8; size];
        ok(get_binary(module, &mut size, binary.as_mut_ptr()));
        binary
    };
    let found = |needle: &[u8]| binary.windows(needle.len()).any(|window| window == needle);
    assert!(
        found(b"-cl-mad-enable -ze-opt-level=O1"),
        "the compiler's options"
    );
    for kernel in [hinted, fixed, plain] {
        destroy_kernel(&sim, kernel);
    }
    destroy_module(&sim, module);
    destroy_module(&sim, unresolved);
    sim.destroy_context(context);
    sim.assert_clean();
}

/// Several kernels launched indirectly: each with its own group counts, and only as many as
/// the count in device memory says when they run (here 2 of 3).
#[test]
#[cfg_attr(
    no_kernel_runtime,
    ignore = "no OpenCL runtime when built: install tests/opencl-requirements.txt, then cargo clean -p ze-sim"
)]
fn multiple_indirect_launches_run_as_many_as_the_count_says() {
    if !runtime_present("multiple_indirect_launches_run_as_many_as_the_count_says") {
        return;
    }
    let sim = Sim::preset("b70x2");
    // SAFETY (whole test): the name with its header's type; handles of this test.
    let multiple = unsafe {
        sim.function::<ze_pfnCommandListAppendLaunchMultipleKernelsIndirect_t>(
            "zeCommandListAppendLaunchMultipleKernelsIndirect",
        )
        .unwrap()
    };
    let bench = Bench::new(sim);
    let (sim, context, done, list) = (&bench.sim, bench.context, bench.done, bench.list);
    let module = built(build(sim, context, 0, SPIRV, KERNELS));
    let items = 128usize;
    let input = sim.alloc_device(context, 0, items * 4);
    let outputs: Vec<_> = (0..3)
        .map(|_| sim.alloc_device(context, 0, items * 4))
        .collect();
    let counts = sim.alloc_device(context, 0, 64);
    write_u32(sim, list, done, input, &vec![1; items]);
    let kernels: Vec<_> = outputs
        .iter()
        .map(|output| {
            write_u32(sim, list, done, *output, &vec![0; items]);
            let add = kernel(sim, module, "add_u32").unwrap();
            ok(set_argument(sim, add, 0, output));
            ok(set_argument(sim, add, 1, &input));
            ok(set_argument(sim, add, 2, &1u32));
            // SAFETY: a kernel of this test.
            ok(unsafe { (sim.api.kernel_set_group_size)(add, 32, 1, 1) });
            add
        })
        .collect();
    // The count (2), then each launch's group counts: 1, 2 and 4 groups of 32.
    write_u32(
        sim,
        list,
        done,
        counts,
        &[2, 0, 0, 0, 1, 1, 1, 2, 1, 1, 4, 1, 1],
    );
    let mut handles = kernels.clone();
    // SAFETY: handles of this test; the counts are device memory of this test.
    ok(unsafe {
        multiple(
            list,
            3,
            handles.as_mut_ptr(),
            counts as *const u32,
            (counts as *const u8).add(16) as *const ze_group_count_t,
            done,
            0,
            null_mut(),
        )
    });
    sim.wait(done);
    // SAFETY: the event of this test, signalled.
    ok(unsafe { (sim.api.event_host_reset)(done) });
    let ran: Vec<usize> = outputs
        .iter()
        .map(|output| {
            read_u32(sim, list, done, *output, items)
                .iter()
                .filter(|&&v| v == 2)
                .count()
        })
        .collect();
    assert_eq!(
        ran,
        [32, 64, 0],
        "two launches of their own sizes, the third not"
    );
    for kernel in kernels {
        destroy_kernel(sim, kernel);
    }
    destroy_module(sim, module);
    for pointer in outputs.into_iter().chain([input, counts]) {
        sim.free(context, pointer);
    }
    bench.finish();
}

/// A kernel that runs past the end of a small shared allocation writes into the rest of its
/// page, as on hardware (a driver backs USM with whole pages), not into its neighbours or this
/// process's heap.
#[test]
#[cfg_attr(
    no_kernel_runtime,
    ignore = "no OpenCL runtime when built: install tests/opencl-requirements.txt, then cargo clean -p ze-sim"
)]
fn a_small_overrun_stays_in_the_allocations_page() {
    if !runtime_present("a_small_overrun_stays_in_the_allocations_page") {
        return;
    }
    let sim = Sim::preset("b70x2");
    let bench = Bench::new(sim);
    let (sim, context, done, list) = (&bench.sim, bench.context, bench.done, bench.list);
    let module = built(build(sim, context, 0, SPIRV, KERNELS));
    let add = kernel(sim, module, "add_u32").unwrap();
    // 16 elements each, as level-zero-tests' multiple-indirect test allocates them.
    let (output, input) = (
        sim.alloc_shared(context, 0, 64),
        sim.alloc_shared(context, 0, 64),
    );
    let neighbours: Vec<_> = (0..8).map(|_| sim.alloc_shared(context, 0, 64)).collect();
    // SAFETY: 64 host-accessible bytes each.
    unsafe {
        std::ptr::write_bytes(output as *mut u8, 0, 64);
        std::ptr::write_bytes(input as *mut u8, 0, 64);
        for &neighbour in &neighbours {
            std::ptr::write_bytes(neighbour as *mut u8, 0x5a, 64);
        }
    }
    ok(set_argument(sim, add, 0, &output));
    ok(set_argument(sim, add, 1, &input));
    ok(set_argument(sim, add, 2, &1u32));
    // 256 work items over 16 elements: 960 bytes past the end of each buffer.
    ok(run(sim, list, add, [16, 1, 1], [16, 1, 1], done));
    // SAFETY: as above; the kernel completed.
    unsafe {
        assert_eq!(*(output as *const u32), 1, "the kernel ran");
        for &neighbour in &neighbours {
            let bytes = std::slice::from_raw_parts(neighbour as *const u8, 64);
            assert!(
                bytes.iter().all(|&byte| byte == 0x5a),
                "a neighbour was overwritten"
            );
        }
    }
    destroy_kernel(sim, add);
    destroy_module(sim, module);
    for pointer in neighbours.into_iter().chain([output, input]) {
        sim.free(context, pointer);
    }
    bench.finish();
}

/// A module's program-scope variables are its own (two modules of one SPIR-V do not share
/// them), reached by copies through `zeModuleGetGlobalPointer` and by its kernels; an exported
/// function's address from `zeModuleGetFunctionPointer` is callable from a kernel; unknown
/// names get the specification's errors.
#[test]
#[cfg_attr(
    no_kernel_runtime,
    ignore = "no OpenCL runtime when built: install tests/opencl-requirements.txt, then cargo clean -p ze-sim"
)]
fn global_variables_and_function_pointers_as_the_driver_hands_them_out() {
    if !runtime_present("global_variables_and_function_pointers") {
        return;
    }
    let bench = Bench::new(Sim::preset("b70x2"));
    let (sim, list, done) = (&bench.sim, bench.list, bench.done);
    // SAFETY: each name with its headers' type.
    let (global_pointer, function_pointer) = unsafe {
        (
            sim.function::<ze_pfnModuleGetGlobalPointer_t>("zeModuleGetGlobalPointer")
                .unwrap(),
            sim.function::<ze_pfnModuleGetFunctionPointer_t>("zeModuleGetFunctionPointer")
                .unwrap(),
        )
    };
    let global = |module, name: &std::ffi::CStr| {
        let (mut size, mut pointer) = (0usize, null_mut());
        // SAFETY: a module of this test, a nul-terminated name, two output pointers.
        let result = unsafe { global_pointer(module, name.as_ptr(), &mut size, &mut pointer) };
        (result, size, pointer)
    };
    let modules = [0, 1].map(|_| built(build(sim, bench.context, 0, SPIRV, GLOBALS)));
    let counters = modules.map(|module| {
        let (result, size, pointer) = global(module, c"counter");
        ok(result);
        assert_eq!(size, 4);
        pointer
    });
    assert_ne!(counters[0], counters[1], "each module has its own");
    let (result, size, _) = global(modules[0], c"table");
    ok(result);
    assert_eq!(size, 16);
    assert_eq!(
        global(modules[0], c"no_such_variable").0,
        ze_result_t::ZE_RESULT_ERROR_INVALID_GLOBAL_NAME
    );
    assert_eq!(
        read_u32(sim, list, done, counters[1], 1),
        [5],
        "initialised"
    );
    write_u32(sim, list, done, counters[0], &[41]);
    let out = sim.alloc_device(bench.context, 0, 8);
    for (module, expected) in modules.into_iter().zip([[42, 30], [6, 30]]) {
        let bump = kernel(sim, module, "bump_counter").unwrap();
        ok(set_argument(sim, bump, 0, &out));
        ok(run(sim, list, bump, [1, 1, 1], [1, 1, 1], done));
        assert_eq!(read_u32(sim, list, done, out, 2), expected);
        destroy_kernel(sim, bump);
    }
    assert_eq!(
        read_u32(sim, list, done, counters[0], 1),
        [42],
        "the kernel's write"
    );
    // The variable's address as a kernel's argument, as a GPU driver takes it.
    let add = kernel(sim, modules[1], "add_to").unwrap();
    ok(set_argument(sim, add, 0, &counters[1]));
    ok(set_argument(sim, add, 1, &100i32));
    ok(run(sim, list, add, [1, 1, 1], [1, 1, 1], done));
    assert_eq!(read_u32(sim, list, done, counters[1], 1), [106]);
    destroy_kernel(sim, add);
    for module in modules {
        destroy_module(sim, module);
    }
    // A command on a destroyed module's global still reaches live memory (the simulator keeps
    // the program of a module whose globals were handed out; a GPU would fault).
    assert_eq!(read_u32(sim, list, done, counters[1], 1), [106]);

    let module = built(build(sim, bench.context, 0, SPIRV, FUNCTION_POINTERS));
    let mut twice = null_mut();
    // SAFETY: a module of this test, nul-terminated names, an output pointer.
    unsafe {
        ok(function_pointer(module, c"twice".as_ptr(), &mut twice));
        assert_eq!(
            function_pointer(module, c"thrice".as_ptr(), &mut twice.clone()),
            ze_result_t::ZE_RESULT_ERROR_INVALID_FUNCTION_NAME
        );
    }
    assert!(!twice.is_null());
    let call = kernel(sim, module, "call_through").unwrap();
    ok(set_argument(sim, call, 0, &(twice as u64)));
    ok(set_argument(sim, call, 1, &out));
    ok(run(sim, list, call, [1, 1, 1], [1, 1, 1], done));
    assert_eq!(read_u32(sim, list, done, out, 1), [42]);
    destroy_kernel(sim, call);
    destroy_module(sim, module);
    sim.free(bench.context, out);
    assert_eq!(sim.counter("kernels_executed"), 4);
    assert_eq!(sim.counter("kernel_failures"), 0);
    assert_eq!(sim.counter("residency_violations"), 0);
    bench.finish();
}

/// Samplers: made with their descriptor's modes (unknown ones refused), taken by a kernel as
/// OpenCL samplers of the same modes, refused as arguments when they are no live sampler or
/// of the wrong size, and counted while they live.
#[test]
#[cfg_attr(
    no_kernel_runtime,
    ignore = "no OpenCL runtime when built: install tests/opencl-requirements.txt, then cargo clean -p ze-sim"
)]
fn samplers_are_kernel_arguments() {
    if !runtime_present("samplers_are_kernel_arguments") {
        return;
    }
    let bench = Bench::new(Sim::preset("b70x2"));
    let (sim, list, done) = (&bench.sim, bench.list, bench.done);
    // SAFETY: each name with its headers' type.
    let (create, destroy) = unsafe {
        (
            sim.function::<ze_pfnSamplerCreate_t>("zeSamplerCreate")
                .unwrap(),
            sim.function::<ze_pfnSamplerDestroy_t>("zeSamplerDestroy")
                .unwrap(),
        )
    };
    let sampler = |address_mode, filter_mode| {
        let desc = ze_sampler_desc_t {
            stype: ze_structure_type_t::ZE_STRUCTURE_TYPE_SAMPLER_DESC,
            addressMode: address_mode,
            filterMode: filter_mode,
            isNormalized: 1,
            ..Default::default()
        };
        let mut sampler = null_mut();
        // SAFETY: this test's context and device, a descriptor and an output pointer.
        let result = unsafe { create(bench.context, sim.devices[0], &desc, &mut sampler) };
        (result, sampler)
    };
    use ze_sampler_address_mode_t as Mode;
    use ze_sampler_filter_mode_t as Filter;
    assert_eq!(
        sampler(Mode(9), Filter::ZE_SAMPLER_FILTER_MODE_LINEAR).0,
        ze_result_t::ZE_RESULT_ERROR_INVALID_ENUMERATION
    );
    let samplers = [
        (
            Mode::ZE_SAMPLER_ADDRESS_MODE_CLAMP,
            Filter::ZE_SAMPLER_FILTER_MODE_NEAREST,
        ),
        (
            Mode::ZE_SAMPLER_ADDRESS_MODE_MIRROR,
            Filter::ZE_SAMPLER_FILTER_MODE_LINEAR,
        ),
    ]
    .map(|(mode, filter)| {
        let (result, made) = sampler(mode, filter);
        ok(result);
        made
    });
    assert_eq!(sim.counter("live_samplers"), 2);
    let module = built(build(sim, bench.context, 0, SPIRV, SAMPLERS));
    let take = kernel(sim, module, "take_samplers").unwrap();
    let out = sim.alloc_device(bench.context, 0, 4);
    assert_eq!(
        set_argument(sim, take, 0, &out),
        ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT,
        "an allocation is no sampler"
    );
    assert_eq!(
        set_argument(sim, take, 0, &0u32),
        ze_result_t::ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE
    );
    ok(set_argument(sim, take, 0, &samplers[0]));
    ok(set_argument(sim, take, 1, &samplers[1]));
    ok(set_argument(sim, take, 2, &out));
    ok(run(sim, list, take, [1, 1, 1], [1, 1, 1], done));
    assert_eq!(read_u32(sim, list, done, out, 1), [2]);
    assert_eq!(sim.counter("kernels_executed"), 1);
    assert_eq!(sim.counter("kernel_failures"), 0);
    // A sampler destroyed after it was set, before the launch: the launch is refused.
    let (result, gone) = sampler(
        Mode::ZE_SAMPLER_ADDRESS_MODE_CLAMP,
        Filter::ZE_SAMPLER_FILTER_MODE_NEAREST,
    );
    ok(result);
    ok(set_argument(sim, take, 0, &gone));
    // SAFETY: a sampler of this test that no launch uses yet.
    ok(unsafe { destroy(gone) });
    assert_eq!(
        run(sim, list, take, [1, 1, 1], [1, 1, 1], done),
        ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT
    );
    // Destroyed after a regular list recorded the launch: it fails when the list runs.
    let (result, recorded_with) = sampler(
        Mode::ZE_SAMPLER_ADDRESS_MODE_CLAMP,
        Filter::ZE_SAMPLER_FILTER_MODE_NEAREST,
    );
    ok(result);
    ok(set_argument(sim, take, 0, &recorded_with));
    let counts = ze_group_count_t {
        groupCountX: 1,
        groupCountY: 1,
        groupCountZ: 1,
    };
    let result = sim.execute_recorded(
        bench.context,
        0,
        // SAFETY: the kernel, its arguments set, and a group count of this test.
        |recorded| unsafe {
            ok((sim.api.command_list_append_launch_kernel)(
                recorded,
                take,
                &counts,
                null_mut(),
                0,
                null_mut(),
            ))
        },
        // SAFETY: a sampler of this test; the recorded launch is not submitted yet.
        || ok(unsafe { destroy(recorded_with) }),
    );
    assert_eq!(result, ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT);
    assert_eq!(sim.counter("kernels_executed"), 1, "neither launch ran");
    destroy_kernel(sim, take);
    destroy_module(sim, module);
    sim.free(bench.context, out);
    for made in samplers {
        // SAFETY: a sampler of this test, used by no pending launch.
        ok(unsafe { destroy(made) });
    }
    bench.finish();
}

/// Writes a skip's line to the process's standard error itself: the harness captures what
/// `eprintln!` prints in a test that passes.
fn skipped(line: String) {
    let _ = std::io::Write::write_all(&mut std::io::stderr(), line.as_bytes());
}
