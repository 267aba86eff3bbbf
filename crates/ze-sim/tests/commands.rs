//! Regular command lists on queues with fences, fills, barriers, host and shared memory, and
//! allocation queries.

use crate::common::{Sim, ok};
use level_zero_sys::*;
use std::ffi::c_void;
use std::ptr::null_mut;

fn queue(
    sim: &Sim,
    context: ze_context_handle_t,
    device: u32,
    ordinal: u32,
) -> ze_command_queue_handle_t {
    let desc = ze_command_queue_desc_t {
        stype: ze_structure_type_t::ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC,
        ordinal,
        ..Default::default()
    };
    let mut queue = null_mut();
    // SAFETY: valid handles, descriptor and output pointer.
    ok(unsafe {
        (sim.api.command_queue_create)(context, sim.devices[device as usize], &desc, &mut queue)
    });
    queue
}

fn regular_list(
    sim: &Sim,
    context: ze_context_handle_t,
    device: u32,
    ordinal: u32,
) -> ze_command_list_handle_t {
    let desc = ze_command_list_desc_t {
        stype: ze_structure_type_t::ZE_STRUCTURE_TYPE_COMMAND_LIST_DESC,
        commandQueueGroupOrdinal: ordinal,
        ..Default::default()
    };
    let mut list = null_mut();
    // SAFETY: valid handles, descriptor and output pointer.
    ok(unsafe {
        (sim.api.command_list_create)(context, sim.devices[device as usize], &desc, &mut list)
    });
    list
}

#[test]
fn a_regular_list_runs_on_a_queue_and_signals_its_fence() {
    let sim = Sim::preset("b70x2");
    let context = sim.context(&[0, 1]);
    let size = 4096;
    let device = sim.alloc_device(context, 0, size);
    let host = sim.alloc_host(context, size);
    // The compute engine (ordinal 0): copy engines take one-byte fill patterns only.
    let queue = queue(&sim, context, 0, 0);
    let list = regular_list(&sim, context, 0, 0);
    let pattern = [0xabu8, 0xcd];
    let fence_desc = ze_fence_desc_t {
        stype: ze_structure_type_t::ZE_STRUCTURE_TYPE_FENCE_DESC,
        ..Default::default()
    };
    let mut fence = null_mut();
    let mut lists = [list];
    // SAFETY: handles this test created, pointers into its allocations.
    unsafe {
        ok((sim.api.command_list_append_memory_fill)(
            list,
            device,
            pattern.as_ptr() as *const c_void,
            pattern.len(),
            size,
            null_mut(),
            0,
            null_mut(),
        ));
        ok((sim.api.command_list_append_barrier)(
            list,
            null_mut(),
            0,
            null_mut(),
        ));
        ok(sim.copy(list, host, device, size, null_mut(), &mut []));
        assert_eq!(
            (sim.api.command_queue_execute_command_lists)(queue, 1, lists.as_mut_ptr(), null_mut()),
            ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT,
            "an open list cannot run"
        );
        ok((sim.api.command_list_close)(list));
        // A closed list takes no more commands: the append succeeds, and the fill never runs
        // (after the list's copy back, it would zero what the checks below read).
        let zero = [0u8; 1];
        ok((sim.api.command_list_append_memory_fill)(
            list,
            host,
            zero.as_ptr() as *const c_void,
            1,
            size,
            null_mut(),
            0,
            null_mut(),
        ));
        assert_eq!(sim.counter("appends_after_close"), 1);
        ok((sim.api.fence_create)(queue, &fence_desc, &mut fence));
        assert_eq!(
            (sim.api.fence_query_status)(fence),
            ze_result_t::ZE_RESULT_NOT_READY
        );
        ok((sim.api.command_queue_execute_command_lists)(
            queue,
            1,
            lists.as_mut_ptr(),
            fence,
        ));
        ok((sim.api.fence_host_synchronize)(fence, u64::MAX));
        ok((sim.api.command_queue_synchronize)(queue, u64::MAX));
        let bytes = std::slice::from_raw_parts(host as *const u8, size);
        assert!(
            bytes.chunks(2).all(|pair| pair == pattern),
            "the fill reached host memory"
        );
        ok((sim.api.fence_reset)(fence));
        assert_eq!(
            (sim.api.fence_query_status)(fence),
            ze_result_t::ZE_RESULT_NOT_READY
        );
        ok((sim.api.fence_destroy)(fence));
        ok((sim.api.command_list_destroy)(list));
        ok((sim.api.command_queue_destroy)(queue));
    }
    assert_eq!(sim.counter("fills"), 1);
    assert_eq!(sim.counter("host_direct_copies"), 1);
    sim.free(context, device);
    sim.free(context, host);
    sim.destroy_context(context);
    sim.assert_clean();
}

#[test]
fn host_and_shared_memory_need_no_residency_on_any_device() {
    let sim = Sim::preset("b70x2");
    let context = sim.context(&[0, 1]);
    let size = 1024;
    let host = sim.alloc_host(context, size);
    assert_eq!(sim.host_pinned(), size as u64, "host USM is pinned memory");
    let shared = sim.alloc_shared(context, 0, size);
    // SAFETY: host-accessible allocations of `size` bytes.
    unsafe { std::ptr::write_bytes(host as *mut u8, 0x5a, size) };
    let list = sim.immediate_list(context, 1, 1);
    let pool = sim.event_pool(context, 1);
    let done = sim.event(pool, 0);
    ok(sim.copy(list, shared, host, size, done, &mut []));
    sim.wait(done);
    // SAFETY: as above.
    assert!(
        unsafe { std::slice::from_raw_parts(shared as *const u8, size) }
            .iter()
            .all(|&b| b == 0x5a)
    );
    assert_eq!(sim.counter("residency_violations"), 0);

    let mut properties = ze_memory_allocation_properties_t {
        stype: ze_structure_type_t::ZE_STRUCTURE_TYPE_MEMORY_ALLOCATION_PROPERTIES,
        ..Default::default()
    };
    let mut owner = null_mut();
    let (mut base, mut length) = (null_mut(), 0usize);
    // SAFETY: pointers into this test's allocations and valid output pointers.
    unsafe {
        ok((sim.api.mem_get_alloc_properties)(
            context,
            shared.byte_add(10),
            &mut properties,
            &mut owner,
        ));
        assert_eq!(
            (properties.type_, owner),
            (ze_memory_type_t::ZE_MEMORY_TYPE_SHARED, sim.devices[0])
        );
        ok((sim.api.mem_get_alloc_properties)(
            context,
            host,
            &mut properties,
            &mut owner,
        ));
        assert_eq!(
            (properties.type_, owner),
            (ze_memory_type_t::ZE_MEMORY_TYPE_HOST, null_mut())
        );
        let stack = 0u64;
        ok((sim.api.mem_get_alloc_properties)(
            context,
            &stack as *const u64 as *const c_void,
            &mut properties,
            null_mut(),
        ));
        assert_eq!(properties.type_, ze_memory_type_t::ZE_MEMORY_TYPE_UNKNOWN);
        ok((sim.api.mem_get_address_range)(
            context,
            shared.byte_add(100),
            &mut base,
            &mut length,
        ));
        assert_eq!((base, length), (shared, size));
    }
    sim.destroy_events(pool, &[done]);
    sim.destroy_list(list);
    sim.free(context, host);
    sim.free(context, shared);
    sim.destroy_context(context);
    sim.assert_clean();
}

/// Pointer queries are the driver's, not the context's: another context of the same driver is
/// told what an allocation is and where it lies (Intel MPI asks with a context of its own
/// before taking its GPU path), as compute-runtime looks pointers up driver-wide
/// (`Context::getMemAllocProperties`, `Context::getMemAddressRange`); memory the driver did not
/// allocate is unknown, and its range is `ADDRESS_NOT_FOUND`.
#[test]
fn pointer_queries_answer_for_every_context_of_the_driver() {
    let sim = Sim::preset("b70x2");
    let (owner, other) = (sim.context(&[0, 1]), sim.context(&[0]));
    let size = 1 << 20;
    let device = sim.alloc_device(owner, 1, size);
    let mut properties = ze_memory_allocation_properties_t {
        stype: ze_structure_type_t::ZE_STRUCTURE_TYPE_MEMORY_ALLOCATION_PROPERTIES,
        ..Default::default()
    };
    let mut found_on = null_mut();
    let (mut base, mut length) = (null_mut(), 0usize);
    let stack = 0u64;
    // SAFETY: this test's contexts, a pointer into its allocation, valid output pointers.
    unsafe {
        ok((sim.api.mem_get_alloc_properties)(
            other,
            device.byte_add(4096),
            &mut properties,
            &mut found_on,
        ));
        assert_eq!(
            (properties.type_, found_on),
            (ze_memory_type_t::ZE_MEMORY_TYPE_DEVICE, sim.devices[1])
        );
        ok((sim.api.mem_get_address_range)(
            other,
            device.byte_add(4096),
            &mut base,
            &mut length,
        ));
        assert_eq!((base, length), (device, size));
        assert_eq!(
            (sim.api.mem_get_address_range)(
                other,
                &stack as *const u64 as *const c_void,
                &mut base,
                &mut length,
            ),
            ze_result_t::ZE_RESULT_ERROR_ADDRESS_NOT_FOUND
        );
    }
    sim.free(owner, device);
    sim.destroy_context(other);
    sim.destroy_context(owner);
    sim.assert_clean();
}

/// An allocation descriptor whose `stype` is left 0 is taken, as compute-runtime takes it (it
/// reads only the descriptor's flags, ordinal and chain): Intel MPI's IMB-MPI1-GPU leaves it so.
#[test]
fn allocation_descriptors_without_their_structure_type_are_taken() {
    let sim = Sim::preset("b70x2");
    let context = sim.context(&[0]);
    let device_desc = ze_device_mem_alloc_desc_t::default();
    let host_desc = ze_host_mem_alloc_desc_t::default();
    assert_eq!(device_desc.stype.0, 0);
    let (mut device, mut host) = (null_mut(), null_mut());
    // SAFETY: this test's context and device, descriptors and output pointers.
    unsafe {
        ok((sim.api.mem_alloc_device)(
            context,
            &device_desc,
            4096,
            0,
            sim.devices[0],
            &mut device,
        ));
        ok((sim.api.mem_alloc_host)(
            context, &host_desc, 4096, 0, &mut host,
        ));
    }
    assert!(!device.is_null() && !host.is_null());
    sim.free(context, device);
    sim.free(context, host);
    sim.destroy_context(context);
    sim.assert_clean();
}

#[test]
fn device_memory_is_committed_on_its_first_use_by_its_owner() {
    let sim = Sim::preset("b70x2");
    let context = sim.context(&[0, 1]);
    let size = 1 << 20;
    let device = sim.alloc_device(context, 0, size);
    assert_eq!(sim.vram_gtt(0), (0, 0));
    let list = sim.immediate_list(context, 0, 0);
    let pool = sim.event_pool(context, 1);
    let done = sim.event(pool, 0);
    let host = vec![1u8; size];
    ok(sim.copy(
        list,
        device,
        host.as_ptr() as *const c_void,
        size,
        done,
        &mut [],
    ));
    sim.wait(done);
    assert_eq!(sim.vram_gtt(0), (size as u64, 0));
    sim.destroy_events(pool, &[done]);
    sim.destroy_list(list);
    sim.free(context, device);
    sim.destroy_context(context);
    sim.assert_clean();
}

#[test]
fn a_counter_based_event_stands_for_its_latest_signalling_append() {
    // Intel's v2 adapter signals copies with counter-based events and never resets them: a
    // host wait on one must wait for the append that signals it last, not return at once
    // because an earlier append signalled it.
    let mut config = ze_sim::SimConfig::preset("b70x2").unwrap();
    config.async_execution = true;
    config.faults.command_delay_us = Some(20_000);
    let sim = Sim::in_process(config);
    let context = sim.context(&[0]);
    let list = sim.immediate_list(context, 0, 1);
    let counter_based = ze_event_pool_counter_based_exp_desc_t {
        stype: ze_structure_type_t::ZE_STRUCTURE_TYPE_COUNTER_BASED_EVENT_POOL_EXP_DESC,
        flags:
            ze_event_pool_counter_based_exp_flag_t::ZE_EVENT_POOL_COUNTER_BASED_EXP_FLAG_IMMEDIATE.0,
        ..Default::default()
    };
    let desc = ze_event_pool_desc_t {
        stype: ze_structure_type_t::ZE_STRUCTURE_TYPE_EVENT_POOL_DESC,
        pNext: &counter_based as *const _ as *const std::ffi::c_void,
        flags: ze_event_pool_flag_t::ZE_EVENT_POOL_FLAG_HOST_VISIBLE.0,
        count: 1,
    };
    let mut pool = std::ptr::null_mut();
    // SAFETY: valid descriptor (its chain outlives the call) and output pointer.
    ok(unsafe { (sim.api.event_pool_create)(context, &desc, 0, std::ptr::null_mut(), &mut pool) });
    let event = sim.event(pool, 0);
    let device = sim.alloc_device(context, 0, 4096);
    for round in 1..=3u8 {
        let source = vec![round; 4096];
        let mut back = vec![0u8; 4096];
        ok(sim.copy(
            list,
            device,
            source.as_ptr() as _,
            4096,
            std::ptr::null_mut(),
            &mut [],
        ));
        ok(sim.copy(list, back.as_mut_ptr() as _, device, 4096, event, &mut []));
        sim.wait(event);
        assert_eq!(
            back, source,
            "round {round}: the wait waited for this round's copy"
        );
    }
    sim.destroy_events(pool, &[event]);
    sim.free(context, device);
    sim.destroy_list(list);
    sim.destroy_context(context);
    sim.assert_clean();
}

#[test]
fn an_earlier_append_completing_late_does_not_signal_a_re_armed_counter_based_event() {
    let mut config = ze_sim::SimConfig::preset("b70x2").unwrap();
    config.async_execution = true;
    let sim = Sim::in_process(config);
    let context = sim.context(&[0]);
    let (first, second) = (
        sim.immediate_list(context, 0, 1),
        sim.immediate_list(context, 0, 0),
    );
    let counter_based = ze_event_pool_counter_based_exp_desc_t {
        stype: ze_structure_type_t::ZE_STRUCTURE_TYPE_COUNTER_BASED_EVENT_POOL_EXP_DESC,
        flags:
            ze_event_pool_counter_based_exp_flag_t::ZE_EVENT_POOL_COUNTER_BASED_EXP_FLAG_IMMEDIATE.0,
        ..Default::default()
    };
    let desc = ze_event_pool_desc_t {
        stype: ze_structure_type_t::ZE_STRUCTURE_TYPE_EVENT_POOL_DESC,
        pNext: &counter_based as *const _ as *const c_void,
        flags: ze_event_pool_flag_t::ZE_EVENT_POOL_FLAG_HOST_VISIBLE.0,
        count: 1,
    };
    let mut pool = null_mut();
    // SAFETY: valid descriptor (its chain outlives the call) and output pointer.
    ok(unsafe { (sim.api.event_pool_create)(context, &desc, 0, null_mut(), &mut pool) });
    let event = sim.event(pool, 0);
    let gates = sim.event_pool(context, 2);
    let (gate_a, gate_b) = (sim.event(gates, 0), sim.event(gates, 1));
    let device = sim.alloc_device(context, 0, 4096);
    let (a, b) = (vec![1u8; 4096], vec![2u8; 4096]);
    // A, armed first, and B, armed last: each waits on its own gate.
    ok(sim.copy(first, device, a.as_ptr() as _, 4096, event, &mut [gate_a]));
    ok(sim.copy(second, device, b.as_ptr() as _, 4096, event, &mut [gate_b]));
    // SAFETY: events this test made.
    let (query, signal) = (sim.api.event_query_status, sim.api.event_host_signal);
    // SAFETY: as above.
    ok(unsafe { signal(gate_a) });
    // SAFETY: the name with its headers' type.
    let host_synchronize = unsafe {
        sim.function::<ze_pfnCommandListHostSynchronize_t>("zeCommandListHostSynchronize")
    };
    // SAFETY: lists this test made.
    let synchronize = |list| ok(unsafe { host_synchronize.unwrap()(list, u64::MAX) });
    synchronize(first);
    // SAFETY: as above.
    assert_eq!(
        unsafe { query(event) },
        ze_result_t::ZE_RESULT_NOT_READY,
        "A completed, but the event stands for B"
    );
    // SAFETY: as above.
    ok(unsafe { signal(gate_b) });
    sim.wait(event);
    synchronize(second);
    sim.destroy_events(pool, &[event]);
    sim.destroy_events(gates, &[gate_a, gate_b]);
    sim.free(context, device);
    sim.destroy_list(first);
    sim.destroy_list(second);
    sim.destroy_context(context);
    sim.assert_clean();
}

/// Calls Intel's conformance suite makes that the simulator answers: the context's status, the
/// driver's error description (empty), and prefetch and memory advice (checked hints, no effect).
#[test]
fn status_error_description_prefetch_and_advice_are_answered() {
    let sim = Sim::preset("b70x2");
    // SAFETY (whole test): the names with their headers' types; handles of this test and valid
    // outputs.
    unsafe {
        let status = sim
            .function::<ze_pfnContextGetStatus_t>("zeContextGetStatus")
            .unwrap();
        let describe = sim
            .function::<ze_pfnDriverGetLastErrorDescription_t>("zeDriverGetLastErrorDescription")
            .unwrap();
        let prefetch = sim
            .function::<ze_pfnCommandListAppendMemoryPrefetch_t>(
                "zeCommandListAppendMemoryPrefetch",
            )
            .unwrap();
        let advise = sim
            .function::<ze_pfnCommandListAppendMemAdvise_t>("zeCommandListAppendMemAdvise")
            .unwrap();
        let context = sim.context(&[0, 1]);
        ok(status(context));
        assert_eq!(
            status(std::ptr::null_mut()),
            ze_result_t::ZE_RESULT_ERROR_INVALID_NULL_HANDLE
        );
        let mut text = std::ptr::null();
        ok(describe(sim.driver, &mut text));
        assert_eq!(std::ffi::CStr::from_ptr(text).to_bytes(), b"");
        let memory = sim.alloc_device(context, 0, 8192);
        let list = sim.immediate_list(context, 0, 0);
        ok(prefetch(list, memory, 8192));
        ok(advise(
            list,
            sim.devices[1],
            memory,
            4096,
            ze_memory_advice_t::ZE_MEMORY_ADVICE_SET_READ_MOSTLY,
        ));
        // Past the allocation's end, or memory the simulator did not allocate: refused.
        let past = (memory as usize + 4096) as *const std::ffi::c_void;
        assert_eq!(
            prefetch(list, past, 8192),
            ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT
        );
        let host = [0u8; 64];
        assert_eq!(
            prefetch(list, host.as_ptr() as _, 64),
            ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT
        );
        assert_eq!(sim.counter("submissions"), 0, "hints submit nothing");
        sim.destroy_list(list);
        sim.free(context, memory);
        sim.destroy_context(context);
    }
    sim.assert_clean();
}

#[test]
fn region_copies_move_the_rows_they_name_and_refuse_overlap_and_mismatched_shapes() {
    let sim = Sim::preset("b70x2");
    // SAFETY (whole test): the name with its header's type; handles of this test; regions and
    // buffers that outlive each call.
    unsafe {
        let copy_region = sim
            .function::<ze_pfnCommandListAppendMemoryCopyRegion_t>(
                "zeCommandListAppendMemoryCopyRegion",
            )
            .unwrap();
        let context = sim.context(&[0, 1]);
        let list = sim.immediate_list(context, 0, 0);
        // A 16 x 8 x 2 byte volume of distinct bytes on the host, copied into device memory.
        let (width, height, depth) = (16usize, 8usize, 2usize);
        let volume: Vec<u8> = (0..width * height * depth).map(|i| i as u8).collect();
        let device = sim.alloc_device(context, 0, volume.len());
        ok(sim.copy(
            list,
            device,
            volume.as_ptr() as _,
            volume.len(),
            null_mut(),
            &mut [],
        ));
        // A 5 x 3 x 2 box at (4, 2, 0) of the device volume into a packed host buffer.
        let source = ze_copy_region_t {
            originX: 4,
            originY: 2,
            originZ: 0,
            width: 5,
            height: 3,
            depth: 2,
        };
        let target = ze_copy_region_t {
            originX: 0,
            originY: 0,
            originZ: 0,
            ..source
        };
        let mut packed = vec![0u8; 5 * 3 * 2];
        let submissions = sim.counter("submissions");
        ok(copy_region(
            list,
            packed.as_mut_ptr() as _,
            &target,
            5,
            15,
            device,
            &source,
            width as u32,
            (width * height) as u32,
            null_mut(),
            0,
            null_mut(),
        ));
        assert_eq!(sim.counter("submissions"), submissions + 1, "one append");
        let expected: Vec<u8> = (0..2)
            .flat_map(|z| {
                (2..5).flat_map(move |y| (4..9).map(move |x| (z * 128 + y * 16 + x) as u8))
            })
            .collect();
        assert_eq!(packed, expected);
        // Whole rows of both sides are contiguous: merged into one copy.
        let copies = sim.counter("device_copies")
            + sim.counter("host_direct_copies")
            + sim.counter("host_staged_copies");
        let whole = ze_copy_region_t {
            originX: 0,
            originY: 0,
            originZ: 0,
            width: width as u32,
            height: height as u32,
            depth: 1,
        };
        let mut plane = vec![0u8; width * height];
        ok(copy_region(
            list,
            plane.as_mut_ptr() as _,
            &whole,
            width as u32,
            0,
            device,
            &whole,
            width as u32,
            0,
            null_mut(),
            0,
            null_mut(),
        ));
        let after = sim.counter("device_copies")
            + sim.counter("host_direct_copies")
            + sim.counter("host_staged_copies");
        assert_eq!(after, copies + 1, "eight contiguous rows are one copy");
        assert_eq!(plane, volume[..width * height]);
        // A depth of 0 is a 2D region: its rows are copied (as compute-runtime copies them).
        let flat = ze_copy_region_t { depth: 0, ..whole };
        let mut again = vec![0u8; width * height];
        ok(copy_region(
            list,
            again.as_mut_ptr() as _,
            &flat,
            width as u32,
            0,
            device,
            &flat,
            width as u32,
            0,
            null_mut(),
            0,
            null_mut(),
        ));
        assert_eq!(again, plane);
        // Rows of the same buffer that meet: refused. Rows that interleave without meeting: fine.
        let left = ze_copy_region_t {
            originX: 0,
            originY: 0,
            originZ: 0,
            width: 8,
            height: 8,
            depth: 1,
        };
        let right = ze_copy_region_t { originX: 8, ..left };
        ok(copy_region(
            list,
            device,
            &right,
            16,
            0,
            device,
            &left,
            16,
            0,
            null_mut(),
            0,
            null_mut(),
        ));
        let shifted = ze_copy_region_t { originX: 4, ..left };
        assert_eq!(
            copy_region(
                list,
                device,
                &shifted,
                16,
                0,
                device,
                &left,
                16,
                0,
                null_mut(),
                0,
                null_mut()
            ),
            ze_result_t::ZE_RESULT_ERROR_OVERLAPPING_REGIONS
        );
        // Regions of different shapes, rows wider than their pitch, and null regions.
        let narrower = ze_copy_region_t { width: 4, ..left };
        assert_eq!(
            copy_region(
                list,
                device,
                &narrower,
                16,
                0,
                device,
                &right,
                16,
                0,
                null_mut(),
                0,
                null_mut()
            ),
            ze_result_t::ZE_RESULT_ERROR_INVALID_SIZE
        );
        assert_eq!(
            copy_region(
                list,
                device,
                &right,
                4,
                0,
                device,
                &left,
                4,
                0,
                null_mut(),
                0,
                null_mut()
            ),
            ze_result_t::ZE_RESULT_ERROR_INVALID_SIZE
        );
        assert_eq!(
            copy_region(
                list,
                device,
                std::ptr::null(),
                16,
                0,
                device,
                &left,
                16,
                0,
                null_mut(),
                0,
                null_mut()
            ),
            ze_result_t::ZE_RESULT_ERROR_INVALID_NULL_POINTER
        );
        // A row straddling the allocation's end is refused like such a copy, and nothing moves.
        let straddling = ze_copy_region_t {
            originX: 12,
            originY: 8,
            ..left
        };
        plane.fill(0);
        assert_eq!(
            copy_region(
                list,
                plane.as_mut_ptr() as _,
                &left,
                16,
                0,
                device,
                &straddling,
                16,
                0,
                null_mut(),
                0,
                null_mut()
            ),
            ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT
        );
        assert_eq!(plane, vec![0u8; width * height]);
        sim.destroy_list(list);
        sim.free(context, device);
        sim.destroy_context(context);
    }
    sim.assert_clean();
}

#[test]
fn an_event_made_without_a_pool_is_counter_based_and_a_child_of_its_context() {
    let mut config = ze_sim::SimConfig::preset("b70x2").unwrap();
    config.faults.command_delay_us = Some(20_000);
    let sim = Sim::in_process(config);
    // SAFETY (whole test): the name with its header's type; handles of this test and valid
    // descriptors and outputs.
    unsafe {
        let create = sim
            .function::<ze_pfnEventCounterBasedCreate_t>("zeEventCounterBasedCreate")
            .unwrap();
        let context = sim.context(&[0]);
        let mut desc = ze_event_counter_based_desc_t {
            stype: ze_structure_type_t::ZE_STRUCTURE_TYPE_EVENT_COUNTER_BASED_DESC,
            flags: ze_event_counter_based_flag_t::ZE_EVENT_COUNTER_BASED_FLAG_IMMEDIATE.0
                | ze_event_counter_based_flag_t::ZE_EVENT_COUNTER_BASED_FLAG_HOST_VISIBLE.0,
            ..Default::default()
        };
        let mut event = null_mut();
        ok(create(context, sim.devices[0], &desc, &mut event));
        assert_eq!(sim.counter("live_events"), 1);
        let list = sim.immediate_list(context, 0, 1);
        let device = sim.alloc_device(context, 0, 4096);
        for round in 1..=3u8 {
            let source = vec![round; 4096];
            let mut back = vec![0u8; 4096];
            ok(sim.copy(
                list,
                device,
                source.as_ptr() as _,
                4096,
                null_mut(),
                &mut [],
            ));
            ok(sim.copy(list, back.as_mut_ptr() as _, device, 4096, event, &mut []));
            sim.wait(event);
            assert_eq!(
                back, source,
                "round {round}: the wait waited for this round's copy"
            );
        }
        // IPC events are not modelled; unknown flags are refused; the device must be the context's.
        desc.flags = ze_event_counter_based_flag_t::ZE_EVENT_COUNTER_BASED_FLAG_IPC.0;
        let mut other = null_mut();
        assert_eq!(
            create(context, sim.devices[0], &desc, &mut other),
            ze_result_t::ZE_RESULT_ERROR_UNSUPPORTED_FEATURE
        );
        desc.flags = 1 << 30;
        assert_eq!(
            create(context, sim.devices[0], &desc, &mut other),
            ze_result_t::ZE_RESULT_ERROR_INVALID_ENUMERATION
        );
        desc.flags = 0;
        assert_ne!(
            create(context, sim.devices[1], &desc, &mut other),
            ze_result_t::ZE_RESULT_SUCCESS
        );
        ok((sim.api.event_destroy)(event));
        sim.destroy_list(list);
        sim.free(context, device);
        sim.destroy_context(context);
    }
    sim.assert_clean();
}

#[test]
fn fill_patterns_follow_the_groups_limits_and_immediate_lists_close() {
    let sim = Sim::preset("b70x2");
    // SAFETY (whole test): the name with its header's type; handles of this test, valid
    // patterns and outputs.
    unsafe {
        let synchronize = sim
            .function::<ze_pfnCommandListHostSynchronize_t>("zeCommandListHostSynchronize")
            .unwrap();
        let context = sim.context(&[0]);
        let compute = sim.immediate_list(context, 0, 0);
        let copy = sim.immediate_list(context, 0, 1);
        let mut count = 2;
        let mut groups = [ze_command_queue_group_properties_t::default(); 2];
        ok((sim.api.device_get_command_queue_group_properties)(
            sim.devices[0],
            &mut count,
            groups.as_mut_ptr(),
        ));
        let cooperative =
            ze_command_queue_group_property_flag_t::ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COOPERATIVE_KERNELS.0;
        assert_eq!(
            (
                groups[0].maxMemoryFillPatternSize,
                groups[1].maxMemoryFillPatternSize
            ),
            (usize::MAX, 1)
        );
        assert_eq!(
            (
                groups[0].flags & cooperative != 0,
                groups[1].flags & cooperative != 0
            ),
            (true, false)
        );
        let memory = sim.alloc_device(context, 0, 1024);
        // A 256-byte pattern on the compute engine: the whole of it, repeated.
        let pattern: Vec<u8> = (0..=255).collect();
        ok((sim.api.command_list_append_memory_fill)(
            compute,
            memory,
            pattern.as_ptr() as _,
            256,
            1024,
            null_mut(),
            0,
            null_mut(),
        ));
        let mut back = vec![0u8; 1024];
        ok(sim.copy(
            compute,
            back.as_mut_ptr() as _,
            memory,
            1024,
            null_mut(),
            &mut [],
        ));
        ok(synchronize(compute, u64::MAX));
        assert!(back.chunks(256).all(|chunk| chunk == pattern.as_slice()));
        // A pattern longer than the fill: its first bytes.
        ok((sim.api.command_list_append_memory_fill)(
            compute,
            memory,
            pattern[16..].as_ptr() as _,
            128,
            8,
            null_mut(),
            0,
            null_mut(),
        ));
        ok(sim.copy(
            compute,
            back.as_mut_ptr() as _,
            memory,
            16,
            null_mut(),
            &mut [],
        ));
        ok(synchronize(compute, u64::MAX));
        assert_eq!(
            &back[..16],
            &[16, 17, 18, 19, 20, 21, 22, 23, 8, 9, 10, 11, 12, 13, 14, 15]
        );
        // The copy engine takes one byte; two are refused, and so is a size that is no power
        // of two on any engine.
        ok((sim.api.command_list_append_memory_fill)(
            copy,
            memory,
            pattern.as_ptr() as _,
            1,
            64,
            null_mut(),
            0,
            null_mut(),
        ));
        assert_eq!(
            (sim.api.command_list_append_memory_fill)(
                copy,
                memory,
                pattern.as_ptr() as _,
                2,
                64,
                null_mut(),
                0,
                null_mut(),
            ),
            ze_result_t::ZE_RESULT_ERROR_INVALID_SIZE
        );
        assert_eq!(
            (sim.api.command_list_append_memory_fill)(
                compute,
                memory,
                pattern.as_ptr() as _,
                3,
                64,
                null_mut(),
                0,
                null_mut(),
            ),
            ze_result_t::ZE_RESULT_ERROR_INVALID_SIZE
        );
        // Closing an immediate list is nothing to do, as in compute-runtime.
        ok((sim.api.command_list_close)(compute));
        ok(synchronize(copy, u64::MAX));
        sim.destroy_list(compute);
        sim.destroy_list(copy);
        sim.free(context, memory);
        sim.destroy_context(context);
    }
    sim.assert_clean();
}

#[test]
fn float_atomics_are_reported_as_compute_runtime_reports_them() {
    let sim = Sim::preset("b70x2");
    let mut atomics = ze_float_atomic_ext_properties_t {
        stype: ze_structure_type_t::ZE_STRUCTURE_TYPE_FLOAT_ATOMIC_EXT_PROPERTIES,
        ..Default::default()
    };
    let mut properties = ze_device_module_properties_t {
        stype: ze_structure_type_t::ZE_STRUCTURE_TYPE_DEVICE_MODULE_PROPERTIES,
        pNext: &mut atomics as *mut _ as *mut c_void,
        ..Default::default()
    };
    // SAFETY: the name with its header's type; a device of this test and a valid chain of
    // outputs.
    ok(unsafe {
        let get = sim
            .function::<ze_pfnDeviceGetModuleProperties_t>("zeDeviceGetModuleProperties")
            .unwrap();
        get(sim.devices[0], &mut properties)
    });
    type Fp = ze_device_fp_atomic_ext_flag_t;
    let add = Fp::ZE_DEVICE_FP_ATOMIC_EXT_FLAG_GLOBAL_ADD.0
        | Fp::ZE_DEVICE_FP_ATOMIC_EXT_FLAG_LOCAL_ADD.0;
    let min_max = Fp::ZE_DEVICE_FP_ATOMIC_EXT_FLAG_GLOBAL_MIN_MAX.0
        | Fp::ZE_DEVICE_FP_ATOMIC_EXT_FLAG_LOCAL_MIN_MAX.0;
    assert_eq!(atomics.fp32Flags & (add | min_max), add | min_max);
    assert_eq!(atomics.fp64Flags, atomics.fp32Flags);
    assert_eq!(atomics.fp16Flags & add, 0, "no fp16 add");
    assert_ne!(atomics.fp16Flags & min_max, 0);
}

#[test]
fn an_unsupported_append_still_signals_its_event_and_parameter_variants_run() {
    let sim = Sim::preset("b70x2");
    // SAFETY (whole test): the names with their headers' types; handles of this test and
    // buffers that outlive each call.
    unsafe {
        let image_copy = sim
            .function::<ze_pfnCommandListAppendImageCopy_t>("zeCommandListAppendImageCopy")
            .unwrap();
        let ranges_barrier = sim
            .function::<ze_pfnCommandListAppendMemoryRangesBarrier_t>(
                "zeCommandListAppendMemoryRangesBarrier",
            )
            .unwrap();
        let copy_with = sim
            .function::<ze_pfnCommandListAppendMemoryCopyWithParameters_t>(
                "zeCommandListAppendMemoryCopyWithParameters",
            )
            .unwrap();
        let fill_with = sim
            .function::<ze_pfnCommandListAppendMemoryFillWithParameters_t>(
                "zeCommandListAppendMemoryFillWithParameters",
            )
            .unwrap();
        let context = sim.context(&[0]);
        let pool = sim.event_pool(context, 1);
        let event = sim.event(pool, 0);
        let list = sim.immediate_list(context, 0, 0);
        // Unsupported, counted by name, and the event a caller would wait on is signalled,
        // after the waits it names.
        let gate_pool = sim.event_pool(context, 1);
        let gate = sim.event(gate_pool, 0);
        let mut waits = [gate];
        assert_eq!(
            image_copy(list, null_mut(), null_mut(), event, 1, waits.as_mut_ptr()),
            ze_result_t::ZE_RESULT_ERROR_UNSUPPORTED_FEATURE
        );
        assert_eq!(
            (sim.api.event_query_status)(event),
            ze_result_t::ZE_RESULT_NOT_READY
        );
        ok((sim.api.event_host_signal)(gate));
        sim.wait(event);
        ok((sim.api.event_host_reset)(event));
        sim.destroy_events(gate_pool, &[gate]);
        assert!(
            ze_sim::unsupported_calls()
                .iter()
                .any(|(name, _)| *name == "zeCommandListAppendImageCopy")
        );
        // The parameter variants copy and fill; a ranges barrier orders like a barrier.
        let memory = sim.alloc_device(context, 0, 256);
        let source = [9u8; 256];
        let mut back = [0u8; 256];
        ok(copy_with(
            list,
            memory,
            source.as_ptr() as _,
            256,
            std::ptr::null(),
            null_mut(),
            0,
            null_mut(),
        ));
        let pattern = [4u8];
        ok(fill_with(
            list,
            memory,
            pattern.as_ptr() as _,
            1,
            128,
            std::ptr::null(),
            null_mut(),
            0,
            null_mut(),
        ));
        let sizes = [256usize];
        let mut ranges = [memory as *const c_void];
        ok(ranges_barrier(
            list,
            1,
            sizes.as_ptr(),
            ranges.as_mut_ptr(),
            null_mut(),
            0,
            null_mut(),
        ));
        assert_eq!(
            ranges_barrier(
                list,
                1,
                std::ptr::null(),
                ranges.as_mut_ptr(),
                null_mut(),
                0,
                null_mut()
            ),
            ze_result_t::ZE_RESULT_ERROR_INVALID_NULL_POINTER
        );
        ok(sim.copy(list, back.as_mut_ptr() as _, memory, 256, event, &mut []));
        sim.wait(event);
        assert_eq!(&back[..128], &[4u8; 128]);
        assert_eq!(&back[128..], &[9u8; 128]);
        sim.destroy_events(pool, &[event]);
        sim.destroy_list(list);
        sim.free(context, memory);
        sim.destroy_context(context);
    }
    sim.assert_clean();
}

#[test]
fn a_large_copy_split_across_threads_keeps_every_byte() {
    let sim = Sim::preset("b70x2");
    let context = sim.context(&[0, 1]);
    let size = 24 << 20;
    let source: Vec<u8> = (0..size).map(|i| (i % 251) as u8).collect();
    let (first, second) = (
        sim.alloc_device(context, 0, size),
        sim.alloc_device(context, 1, size),
    );
    let list = sim.immediate_list(context, 0, 0);
    let pool = sim.event_pool(context, 1);
    let done = sim.event(pool, 0);
    let mut back = vec![0u8; size];
    ok(sim.copy(list, first, source.as_ptr() as _, size, null_mut(), &mut []));
    ok(sim.copy(list, second, first, size, null_mut(), &mut []));
    ok(sim.copy(list, back.as_mut_ptr() as _, second, size, done, &mut []));
    sim.wait(done);
    assert!(
        back == source,
        "24 MiB through three copies, each split in parts"
    );
    sim.destroy_events(pool, &[done]);
    sim.destroy_list(list);
    sim.free(context, first);
    sim.free(context, second);
    sim.destroy_context(context);
    sim.assert_clean();
}

#[test]
fn another_contexts_memory_is_used_as_the_driver_does_and_refused_in_checking_mode() {
    for (sim, checking) in [
        (Sim::preset("b70x2"), false),
        (Sim::checking("b70x2"), true),
    ] {
        let (owner, user) = (sim.context(&[0]), sim.context(&[0]));
        let memory = sim.alloc_device(owner, 0, 4096);
        let list = sim.immediate_list(user, 0, 0);
        let source = [3u8; 4096];
        let result = sim.copy(
            list,
            memory,
            source.as_ptr() as _,
            4096,
            null_mut(),
            &mut [],
        );
        if checking {
            assert_eq!(result, ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT);
            assert_eq!(sim.counter("cross_context_uses"), 0);
        } else {
            ok(result);
            assert_eq!(sim.counter("cross_context_uses"), 1);
        }
        // SAFETY: a list of this test.
        ok(unsafe {
            sim.function::<ze_pfnCommandListHostSynchronize_t>("zeCommandListHostSynchronize")
                .unwrap()(list, u64::MAX)
        });
        sim.destroy_list(list);
        sim.free(owner, memory);
        sim.destroy_context(owner);
        sim.destroy_context(user);
        sim.assert_clean();
    }
}

#[test]
fn the_first_commands_timestamps_are_not_zero() {
    let sim = Sim::preset("b70x2");
    let context = sim.context(&[0]);
    let list = sim.immediate_list(context, 0, 0);
    let pool = sim.event_pool(context, 1);
    let event = sim.event(pool, 0);
    let memory = sim.alloc_device(context, 0, 4096);
    let source = [1u8; 4096];
    ok(sim.copy(list, memory, source.as_ptr() as _, 4096, event, &mut []));
    sim.wait(event);
    let mut stamp = ze_kernel_timestamp_result_t::default();
    // SAFETY: an event of this test, signalled, and a valid output.
    ok(unsafe { (sim.api.event_query_kernel_timestamp)(event, &mut stamp) });
    assert!(stamp.global.kernelStart > 0, "{stamp:?}");
    assert!(
        stamp.global.kernelEnd > stamp.global.kernelStart,
        "{stamp:?}"
    );
    sim.destroy_events(pool, &[event]);
    sim.free(context, memory);
    sim.destroy_list(list);
    sim.destroy_context(context);
    sim.assert_clean();
}

#[test]
fn an_immediate_list_runs_closed_regular_lists_between_its_waits_and_its_signal() {
    let sim = Sim::preset("b70x2");
    // SAFETY (whole test): the name with its header's type; handles of this test and buffers
    // that outlive the work.
    unsafe {
        let append_lists = sim
            .function::<ze_pfnCommandListImmediateAppendCommandListsExp_t>(
                "zeCommandListImmediateAppendCommandListsExp",
            )
            .unwrap();
        let context = sim.context(&[0]);
        let immediate = sim.immediate_list(context, 0, 0);
        let regular = regular_list(&sim, context, 0, 0);
        let pool = sim.event_pool(context, 2);
        let (gate, done) = (sim.event(pool, 0), sim.event(pool, 1));
        let memory = sim.alloc_device(context, 0, 4096);
        let source = [6u8; 4096];
        let mut back = [0u8; 4096];
        ok(sim.copy(
            regular,
            memory,
            source.as_ptr() as _,
            4096,
            null_mut(),
            &mut [],
        ));
        ok((sim.api.command_list_append_barrier)(
            regular,
            null_mut(),
            0,
            null_mut(),
        ));
        ok(sim.copy(
            regular,
            back.as_mut_ptr() as _,
            memory,
            4096,
            null_mut(),
            &mut [],
        ));
        let mut lists = [regular];
        // Not closed yet: refused.
        assert_eq!(
            append_lists(immediate, 1, lists.as_mut_ptr(), done, 0, null_mut()),
            ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT
        );
        ok((sim.api.command_list_close)(regular));
        let mut waits = [gate];
        ok(append_lists(
            immediate,
            1,
            lists.as_mut_ptr(),
            done,
            1,
            waits.as_mut_ptr(),
        ));
        assert_eq!(
            (sim.api.event_query_status)(done),
            ze_result_t::ZE_RESULT_NOT_READY,
            "waits for the gate"
        );
        ok((sim.api.event_host_signal)(gate));
        sim.wait(done);
        assert_eq!(back, source);
        // A regular list is no immediate one.
        assert_eq!(
            append_lists(regular, 1, lists.as_mut_ptr(), null_mut(), 0, null_mut()),
            ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT
        );
        sim.destroy_events(pool, &[gate, done]);
        sim.destroy_list(immediate);
        sim.destroy_list(regular);
        sim.free(context, memory);
        sim.destroy_context(context);
    }
    sim.assert_clean();
}

#[test]
fn work_that_waits_on_a_counter_based_event_and_signals_it_waits_for_the_earlier_signal() {
    // level-zero-tests' mixed-list event counter test: each list's last launch waits on the
    // event and signals it. The wait is for the event's state when it was appended, not for the
    // re-arming its own signal makes (which would wait for itself forever). Slow engines: the
    // first copy still runs when the second is appended, so the wait must really wait for it.
    let mut config = ze_sim::SimConfig::preset("b70x2").unwrap();
    config.faults.command_delay_us = Some(20_000);
    let sim = Sim::in_process(config);
    // SAFETY (whole test): the name with its header's type; handles of this test and buffers
    // that outlive the work.
    unsafe {
        let create = sim
            .function::<ze_pfnEventCounterBasedCreate_t>("zeEventCounterBasedCreate")
            .unwrap();
        let context = sim.context(&[0]);
        let desc = ze_event_counter_based_desc_t {
            stype: ze_structure_type_t::ZE_STRUCTURE_TYPE_EVENT_COUNTER_BASED_DESC,
            flags: ze_event_counter_based_flag_t::ZE_EVENT_COUNTER_BASED_FLAG_IMMEDIATE.0
                | ze_event_counter_based_flag_t::ZE_EVENT_COUNTER_BASED_FLAG_HOST_VISIBLE.0,
            ..Default::default()
        };
        let mut event = null_mut();
        ok(create(context, sim.devices[0], &desc, &mut event));
        let (first, second) = (
            sim.immediate_list(context, 0, 0),
            sim.immediate_list(context, 0, 1),
        );
        let memory = sim.alloc_device(context, 0, 4096);
        let source = [8u8; 4096];
        let mut back = [0u8; 4096];
        ok(sim.copy(first, memory, source.as_ptr() as _, 4096, event, &mut []));
        let mut waits = [event];
        ok(sim.copy(
            second,
            back.as_mut_ptr() as _,
            memory,
            4096,
            event,
            &mut waits,
        ));
        // Bounded: a wait for itself would never end.
        ok((sim.api.event_host_synchronize)(event, 10_000_000_000));
        assert_eq!(back, source, "the second copy ran after the first");
        ok((sim.api.event_destroy)(event));
        sim.destroy_list(first);
        sim.destroy_list(second);
        sim.free(context, memory);
        sim.destroy_context(context);
    }
    sim.assert_clean();
}

/// Atomic access attributes of a shared allocation, per device, as compute-runtime keeps
/// them: nothing to read before a set, a set on one device not read on the other; a device
/// allocation and attributes naming no mode refused; unknown bits beside a mode kept.
#[test]
fn atomic_access_attributes_of_a_shared_allocation() {
    let sim = Sim::preset("b70x2");
    // SAFETY (whole test): each name with its header's type; handles of this test.
    let (set, get) = unsafe {
        (
            sim.function::<ze_pfnMemSetAtomicAccessAttributeExp_t>(
                "zeMemSetAtomicAccessAttributeExp",
            )
            .unwrap(),
            sim.function::<ze_pfnMemGetAtomicAccessAttributeExp_t>(
                "zeMemGetAtomicAccessAttributeExp",
            )
            .unwrap(),
        )
    };
    let context = sim.context(&[0, 1]);
    let (device, other) = (sim.devices[0], sim.devices[1]);
    let shared = sim.alloc_shared(context, 0, 4096);
    let on_device = sim.alloc_device(context, 0, 4096);
    type Flag = ze_memory_atomic_attr_exp_flag_t;
    let refused = ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT;
    // SAFETY: allocations of this test and output slots of this frame.
    unsafe {
        let mut read = u32::MAX;
        assert_eq!(
            get(context, device, shared, 4096, &mut read),
            refused,
            "nothing set yet"
        );
        for flag in [
            Flag::ZE_MEMORY_ATOMIC_ATTR_EXP_FLAG_NO_ATOMICS,
            Flag::ZE_MEMORY_ATOMIC_ATTR_EXP_FLAG_HOST_ATOMICS,
            Flag::ZE_MEMORY_ATOMIC_ATTR_EXP_FLAG_DEVICE_ATOMICS,
            Flag::ZE_MEMORY_ATOMIC_ATTR_EXP_FLAG_SYSTEM_ATOMICS,
        ] {
            ok(set(context, device, shared, 4096, flag.0));
            ok(get(context, device, shared.byte_add(64), 64, &mut read));
            assert_eq!(read, flag.0);
        }
        assert_eq!(
            get(context, other, shared, 4096, &mut read),
            refused,
            "set on device 0 only"
        );
        let no_host = Flag::ZE_MEMORY_ATOMIC_ATTR_EXP_FLAG_NO_HOST_ATOMICS.0;
        ok(set(context, other, shared, 4096, no_host | 1 << 20));
        ok(get(context, other, shared, 4096, &mut read));
        assert_eq!(read, no_host | 1 << 20, "kept as given");
        ok(get(context, device, shared, 4096, &mut read));
        assert_eq!(read, Flag::ZE_MEMORY_ATOMIC_ATTR_EXP_FLAG_SYSTEM_ATOMICS.0);
        assert_eq!(
            set(
                context,
                device,
                on_device,
                4096,
                Flag::ZE_MEMORY_ATOMIC_ATTR_EXP_FLAG_NO_ATOMICS.0
            ),
            refused,
            "device memory"
        );
        assert_eq!(
            set(context, device, shared, 4096, 1 << 20),
            refused,
            "no mode"
        );
    }
    sim.free(context, shared);
    sim.free(context, on_device);
    sim.destroy_context(context);
    sim.assert_clean();
}

/// An event pool made shareable gives an IPC handle; one that is not refuses; opening a
/// handle is not implemented (events stay in one process), and a made-up one is refused.
#[test]
fn event_pool_ipc_handles() {
    let sim = Sim::preset("b70x2");
    // SAFETY (whole test): each name with its header's type; handles of this test.
    let (get, put, open) = unsafe {
        (
            sim.function::<ze_pfnEventPoolGetIpcHandle_t>("zeEventPoolGetIpcHandle")
                .unwrap(),
            sim.function::<ze_pfnEventPoolPutIpcHandle_t>("zeEventPoolPutIpcHandle")
                .unwrap(),
            sim.function::<ze_pfnEventPoolOpenIpcHandle_t>("zeEventPoolOpenIpcHandle")
                .unwrap(),
        )
    };
    let context = sim.context(&[0]);
    let desc = ze_event_pool_desc_t {
        stype: ze_structure_type_t::ZE_STRUCTURE_TYPE_EVENT_POOL_DESC,
        flags: ze_event_pool_flag_t::ZE_EVENT_POOL_FLAG_IPC.0,
        count: 4,
        ..Default::default()
    };
    let mut shareable = null_mut();
    // SAFETY: a valid descriptor and output pointer.
    ok(unsafe { (sim.api.event_pool_create)(context, &desc, 0, null_mut(), &mut shareable) });
    let plain = sim.event_pool(context, 4);
    // SAFETY: pools of this test and handles of this frame.
    unsafe {
        let mut handle = ze_ipc_event_pool_handle_t::default();
        ok(get(shareable, &mut handle));
        assert!(
            handle.data.iter().any(|&byte| byte != 0),
            "a handle with content"
        );
        assert_eq!(
            get(plain, &mut ze_ipc_event_pool_handle_t::default()),
            ze_result_t::ZE_RESULT_ERROR_UNSUPPORTED_FEATURE
        );
        let mut opened = null_mut();
        assert_eq!(
            open(context, handle, &mut opened),
            ze_result_t::ZE_RESULT_ERROR_UNSUPPORTED_FEATURE
        );
        assert!(opened.is_null());
        assert_eq!(
            open(context, ze_ipc_event_pool_handle_t::default(), &mut opened),
            ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT
        );
        ok(put(context, handle));
        // Any handle is put back, as compute-runtime answers.
        ok(put(context, ze_ipc_event_pool_handle_t::default()));
    }
    sim.destroy_events(shareable, &[]);
    sim.destroy_events(plain, &[]);
    sim.destroy_context(context);
    sim.assert_clean();
}

/// `zeEventQueryKernelTimestampsExt` gives one packet, the same as the event's kernel
/// timestamp, and as synchronized host time the same again (the simulated clock is the
/// host's); not ready before the work signalled; and the device says it has both kinds.
#[test]
fn kernel_timestamps_ext_match_the_events_timestamp() {
    let sim = Sim::preset("b70x2");
    // SAFETY (whole test): the name with its header's type; handles of this test.
    let query = unsafe {
        sim.function::<ze_pfnEventQueryKernelTimestampsExt_t>("zeEventQueryKernelTimestampsExt")
            .unwrap()
    };
    let mut query_properties = ze_event_query_kernel_timestamps_ext_properties_t {
        stype: ze_structure_type_t::ZE_STRUCTURE_TYPE_EVENT_QUERY_KERNEL_TIMESTAMPS_EXT_PROPERTIES,
        ..Default::default()
    };
    let mut properties = ze_device_properties_t {
        stype: ze_structure_type_t::ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES,
        pNext: &mut query_properties as *mut _ as *mut std::ffi::c_void,
        ..Default::default()
    };
    // SAFETY: a device of this test and a chain of this frame.
    ok(unsafe { (sim.api.device_get_properties)(sim.devices[0], &mut properties) });
    type QueryFlag = ze_event_query_kernel_timestamps_ext_flag_t;
    assert_eq!(
        query_properties.flags,
        QueryFlag::ZE_EVENT_QUERY_KERNEL_TIMESTAMPS_EXT_FLAG_KERNEL.0
            | QueryFlag::ZE_EVENT_QUERY_KERNEL_TIMESTAMPS_EXT_FLAG_SYNCHRONIZED.0
    );
    let context = sim.context(&[0]);
    let (source, target) = (
        sim.alloc_device(context, 0, 4096),
        sim.alloc_device(context, 0, 4096),
    );
    let list = sim.immediate_list(context, 0, 1);
    let pool = sim.event_pool(context, 4);
    let done = sim.event(pool, 0);
    let mut count = 0;
    let mut kernel = [ze_kernel_timestamp_result_t::default(); 2];
    let mut synchronized = [ze_synchronized_timestamp_result_ext_t::default(); 2];
    let mut results = ze_event_query_kernel_timestamps_results_ext_properties_t {
        stype: ze_structure_type_t::ZE_STRUCTURE_TYPE_EVENT_QUERY_KERNEL_TIMESTAMPS_RESULTS_EXT_PROPERTIES,
        pKernelTimestampsBuffer: kernel.as_mut_ptr(),
        pSynchronizedTimestampsBuffer: synchronized.as_mut_ptr(),
        ..Default::default()
    };
    // SAFETY: an event of this test, output slots of this frame (room for two results).
    unsafe {
        ok(query(done, sim.devices[0], &mut count, null_mut()));
        assert_eq!(count, 1);
        // A count of 0 asks for the count, ready or not.
        count = 0;
        ok(query(done, sim.devices[0], &mut count, &mut results));
        assert_eq!(count, 1);
        assert_eq!(
            query(done, sim.devices[0], &mut count, &mut results),
            ze_result_t::ZE_RESULT_NOT_READY
        );
    }
    ok(sim.copy(list, target, source, 4096, done, &mut []));
    sim.wait(done);
    let mut plain = ze_kernel_timestamp_result_t::default();
    count = 2;
    // SAFETY: as above.
    unsafe {
        ok((sim.api.event_query_kernel_timestamp)(done, &mut plain));
        ok(query(done, sim.devices[0], &mut count, &mut results));
    }
    assert_eq!(count, 1, "one packet");
    assert!(plain.global.kernelEnd >= plain.global.kernelStart && plain.global.kernelStart > 0);
    assert_eq!(
        (kernel[0].global.kernelStart, kernel[0].global.kernelEnd),
        (plain.global.kernelStart, plain.global.kernelEnd)
    );
    assert_eq!(
        (
            synchronized[0].global.kernelStart,
            synchronized[0].context.kernelEnd
        ),
        (plain.global.kernelStart, plain.global.kernelEnd)
    );
    assert_eq!(kernel[1].global.kernelStart, 0, "only one written");
    // Queried on a list: written when the query runs, after its wait. The copy it reads waits
    // for a gate the host opens after the append, so at the append the event has no
    // timestamps yet: a query that read them then would write zeros.
    // SAFETY (block): the name with its header's type; handles and memory of this test.
    let append_query = unsafe {
        sim.function::<ze_pfnCommandListAppendQueryKernelTimestamps_t>(
            "zeCommandListAppendQueryKernelTimestamps",
        )
        .unwrap()
    };
    let host = sim.alloc_host(context, 4096);
    let (gate, later, queried) = (sim.event(pool, 1), sim.event(pool, 2), sim.event(pool, 3));
    ok(sim.copy(list, target, source, 4096, later, &mut [gate]));
    let mut events = [later];
    // SAFETY: as above; `host` holds one result.
    unsafe {
        std::ptr::write_bytes(host as *mut u8, 0xff, 64);
        ok(append_query(
            list,
            1,
            events.as_mut_ptr(),
            host,
            std::ptr::null(),
            queried,
            1,
            events.as_mut_ptr(),
        ));
        ok((sim.api.event_host_signal)(gate));
    }
    sim.wait(queried);
    let mut expected = ze_kernel_timestamp_result_t::default();
    // SAFETY: an event of this test and an output slot of this frame.
    ok(unsafe { (sim.api.event_query_kernel_timestamp)(later, &mut expected) });
    // SAFETY: host memory the query wrote.
    let written = unsafe { *(host as *const ze_kernel_timestamp_result_t) };
    assert!(expected.global.kernelStart > 0);
    assert_eq!(
        (
            written.global.kernelStart,
            written.global.kernelEnd,
            written.context.kernelEnd
        ),
        (
            expected.global.kernelStart,
            expected.global.kernelEnd,
            expected.context.kernelEnd
        )
    );
    sim.free(context, host);
    sim.destroy_events(pool, &[done, gate, later, queried]);
    sim.destroy_list(list);
    sim.free(context, source);
    sim.free(context, target);
    sim.destroy_context(context);
    sim.assert_clean();
}

/// In checking mode an append to a closed list is refused (lazy-usm's tests must see one), and
/// nothing is counted as dropped.
#[test]
fn checking_mode_refuses_an_append_to_a_closed_list() {
    let sim = Sim::checking("b70x2");
    let context = sim.context(&[0]);
    let device = sim.alloc_device(context, 0, 4096);
    let host = sim.alloc_host(context, 4096);
    let list = regular_list(&sim, context, 0, 0);
    // The same copy is taken while the list is open.
    ok(sim.copy(list, host, device, 4096, null_mut(), &mut []));
    // SAFETY: handles of this test.
    ok(unsafe { (sim.api.command_list_close)(list) });
    assert_eq!(
        sim.copy(list, host, device, 4096, null_mut(), &mut []),
        ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT
    );
    assert_eq!(sim.counter("appends_after_close"), 0);
    sim.destroy_list(list);
    sim.free(context, device);
    sim.free(context, host);
    sim.destroy_context(context);
    sim.assert_clean();
}

/// Several indirect launches are refused without their kernels, count or group counts, and at
/// submission when the count lies in pageable host memory (the device cannot read it); with a
/// count in device memory they are taken (no runtime needed: declarations-only kernels).
#[test]
fn multiple_indirect_launches_refuse_what_the_device_cannot_read() {
    let sim = Sim::preset("b70x2");
    // SAFETY (whole test): the name with its header's type; handles of this test.
    let multiple = unsafe {
        sim.function::<ze_pfnCommandListAppendLaunchMultipleKernelsIndirect_t>(
            "zeCommandListAppendLaunchMultipleKernelsIndirect",
        )
        .unwrap()
    };
    let context = sim.context(&[0]);
    let (module, log) = crate::common::modules::build(
        &sim,
        context,
        0,
        ze_module_format_t::ZE_MODULE_FORMAT_IL_SPIRV,
        &ze_sim::spirv::module_with_kernels(&[("k", 1)]),
    );
    let module = module.unwrap_or_else(|result| panic!("{result:?}: {log}"));
    let kernel = crate::common::modules::kernel(&sim, module, "k").unwrap();
    let buffer = sim.alloc_device(context, 0, 4096);
    ok(crate::common::modules::set_argument(
        &sim, kernel, 0, &buffer,
    ));
    let list = sim.immediate_list(context, 0, 0);
    let pool = sim.event_pool(context, 1);
    let done = sim.event(pool, 0);
    let mut kernels = [kernel];
    let pageable = [1u32, 1, 1, 1, 0, 0, 0, 0];
    // SAFETY: handles of this test; the pointers are this frame's or device memory.
    unsafe {
        let counts = buffer as *const u32;
        let groups = (buffer as *const u8).add(16) as *const ze_group_count_t;
        let null = ze_result_t::ZE_RESULT_ERROR_INVALID_NULL_POINTER;
        let call = |kernels: *mut ze_kernel_handle_t, count: *const u32, groups| {
            multiple(list, 1, kernels, count, groups, null_mut(), 0, null_mut())
        };
        assert_eq!(call(null_mut(), counts, groups), null);
        assert_eq!(call(kernels.as_mut_ptr(), std::ptr::null(), groups), null);
        assert_eq!(call(kernels.as_mut_ptr(), counts, std::ptr::null()), null);
        assert_eq!(
            call(kernels.as_mut_ptr(), pageable.as_ptr(), groups),
            ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT,
            "a count in pageable memory"
        );
        ok(multiple(
            list,
            1,
            kernels.as_mut_ptr(),
            counts,
            groups,
            done,
            0,
            null_mut(),
        ));
    }
    sim.wait(done);
    sim.destroy_events(pool, &[done]);
    sim.destroy_list(list);
    // SAFETY: a kernel and module of this test, idle now.
    unsafe {
        ok((sim.api.kernel_destroy)(kernel));
        ok((sim.api.module_destroy)(module));
    }
    sim.free(context, buffer);
    sim.destroy_context(context);
    sim.assert_clean();
}

/// `zeCommandListCreateCloneExp`: compute-runtime answers it as unsupported, as every preset
/// does; a configuration that implements the extension clones a closed, cloneable list into one
/// that runs the same commands, and refuses an open or uncloneable one.
#[test]
fn a_cloned_list_runs_its_sources_commands_where_the_driver_implements_cloning() {
    let unsupported = Sim::preset("b70x2");
    let context = unsupported.context(&[0]);
    let list = regular_list(&unsupported, context, 0, 0);
    // SAFETY: the simulator's zeCommandListCreateCloneExp has the headers' type.
    let clone: ze_pfnCommandListCreateCloneExp_t =
        unsafe { unsupported.function("zeCommandListCreateCloneExp") };
    let clone = clone.expect("an entry point");
    let mut cloned = null_mut();
    // SAFETY: a live list and an output pointer.
    let result = unsafe { clone(list, &mut cloned) };
    assert_eq!(result, ze_result_t::ZE_RESULT_ERROR_UNSUPPORTED_FEATURE);
    // SAFETY: the list this test made.
    ok(unsafe { (unsupported.api.command_list_destroy)(list) });

    let mut config = ze_sim::SimConfig::preset("b70x2").unwrap();
    config.command_list_clone = true;
    let sim = Sim::in_process(config);
    let context = sim.context(&[0, 1]);
    let size = 4096;
    let device = sim.alloc_device(context, 0, size);
    let host = sim.alloc_host(context, size);
    let desc = ze_command_list_desc_t {
        stype: ze_structure_type_t::ZE_STRUCTURE_TYPE_COMMAND_LIST_DESC,
        flags: ze_command_list_flag_t::ZE_COMMAND_LIST_FLAG_EXP_CLONEABLE.0,
        ..Default::default()
    };
    let (mut source, mut cloned) = (null_mut(), null_mut());
    let pattern = [0x5au8];
    // SAFETY: handles this test made, pointers into its allocations.
    unsafe {
        ok((sim.api.command_list_create)(
            context,
            sim.devices[0],
            &desc,
            &mut source,
        ));
        ok((sim.api.command_list_append_memory_fill)(
            source,
            device,
            pattern.as_ptr() as *const c_void,
            1,
            size,
            null_mut(),
            0,
            null_mut(),
        ));
        ok((sim.api.command_list_append_barrier)(
            source,
            null_mut(),
            0,
            null_mut(),
        ));
        ok((sim.api.command_list_append_memory_copy)(
            source,
            host,
            device,
            size,
            null_mut(),
            0,
            null_mut(),
        ));
        let clone: ze_pfnCommandListCreateCloneExp_t = sim.function("zeCommandListCreateCloneExp");
        let clone = clone.unwrap();
        // Open: refused.
        assert_eq!(
            clone(source, &mut cloned),
            ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT
        );
        ok((sim.api.command_list_close)(source));
        ok(clone(source, &mut cloned));
        // Not made cloneable: refused.
        let plain = regular_list(&sim, context, 0, 0);
        ok((sim.api.command_list_close)(plain));
        let mut refused = null_mut();
        assert_eq!(
            clone(plain, &mut refused),
            ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT
        );
        assert_eq!(sim.counter("live_command_lists"), 3);
        // The clone runs the source's commands.
        let queue = queue(&sim, context, 0, 0);
        let mut lists = [cloned];
        ok((sim.api.command_queue_execute_command_lists)(
            queue,
            1,
            lists.as_mut_ptr(),
            null_mut(),
        ));
        ok((sim.api.command_queue_synchronize)(queue, u64::MAX));
        let bytes = std::slice::from_raw_parts(host as *const u8, size);
        assert!(bytes.iter().all(|&byte| byte == 0x5a));
        ok((sim.api.command_list_destroy)(cloned));
        ok((sim.api.command_list_destroy)(source));
        ok((sim.api.command_list_destroy)(plain));
        ok((sim.api.command_queue_destroy)(queue));
    }
    assert_eq!(sim.counter("live_command_lists"), 0);
}
