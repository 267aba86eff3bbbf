//! Fault injection: each fault gives the error the spec names for it.

use crate::common::{GIB, MIB, Sim, ok};
use level_zero_sys::*;
use std::ffi::c_void;
use std::ptr::null_mut;
use ze_sim::SimConfig;

fn b70x2() -> SimConfig {
    SimConfig::preset("b70x2").unwrap()
}

#[test]
fn device_memory_exhausted_at_the_threshold() {
    let mut config = b70x2();
    config.faults.device_memory_limit_bytes = Some(GIB as u64);
    let sim = Sim::in_process(config);
    let context = sim.context(&[0, 1]);
    let first = sim.alloc_device(context, 0, 512 * MIB);
    assert_eq!(
        sim.try_alloc_device(context, 0, 768 * MIB),
        Err(ze_result_t::ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY)
    );
    // The other device has its own budget.
    let other = sim.alloc_device(context, 1, 768 * MIB);
    assert_eq!(
        sim.counter("live_allocations"),
        2,
        "the failed allocation left nothing behind"
    );
    sim.free(context, first);
    sim.free(context, other);
    sim.destroy_context(context);
    sim.assert_clean();
}

#[test]
fn larger_than_vram_is_an_unsupported_size_and_zero_is_refused() {
    let sim = Sim::preset("b70x2");
    let context = sim.context(&[0]);
    assert_eq!(
        sim.try_alloc_device(context, 0, 33 * GIB),
        Err(ze_result_t::ZE_RESULT_ERROR_UNSUPPORTED_SIZE)
    );
    assert_eq!(
        sim.try_alloc_device(context, 0, 0),
        Err(ze_result_t::ZE_RESULT_ERROR_UNSUPPORTED_SIZE)
    );
    sim.destroy_context(context);
    sim.assert_clean();
}

#[test]
fn host_memory_exhausted_by_pinned_peer_residency() {
    let mut config = b70x2();
    config.faults.host_memory_limit_bytes = Some(GIB as u64);
    let sim = Sim::in_process(config);
    let context = sim.context(&[0, 1]);
    let pointer = sim.alloc_device(context, 0, 2 * GIB);
    assert_eq!(
        sim.make_resident(context, 1, pointer, 2 * GIB),
        ze_result_t::ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY
    );
    assert_eq!(
        sim.vram_gtt(1),
        (0, 0),
        "a refused residency leaves no GTT behind"
    );
    assert_eq!(sim.host_pinned(), 0);
    sim.free(context, pointer);
    sim.destroy_context(context);
    sim.assert_clean();
}

#[test]
fn device_lost_after_n_submissions() {
    let mut config = b70x2();
    config.faults.device_lost_after_submissions = Some(2);
    let sim = Sim::in_process(config);
    let context = sim.context(&[0]);
    let pointer = sim.alloc_device(context, 0, 4096);
    let bytes = vec![1u8; 4096];
    let list = sim.immediate_list(context, 0, 1);
    let source = bytes.as_ptr() as *const c_void;
    ok(sim.copy(list, pointer, source, 4096, null_mut(), &mut []));
    ok(sim.copy(list, pointer, source, 4096, null_mut(), &mut []));
    assert_eq!(
        sim.copy(list, pointer, source, 4096, null_mut(), &mut []),
        ze_result_t::ZE_RESULT_ERROR_DEVICE_LOST
    );
    assert_eq!(
        sim.try_alloc_device(context, 0, 4096),
        Err(ze_result_t::ZE_RESULT_ERROR_DEVICE_LOST)
    );
    // SAFETY: a list this test created.
    ok(unsafe { (sim.api.command_list_destroy)(list) });
    sim.free(context, pointer);
    sim.destroy_context(context);
    sim.assert_clean();
}

fn extension_function(sim: &Sim, name: &std::ffi::CStr) -> Result<*mut c_void, ze_result_t> {
    let mut function = null_mut();
    // SAFETY: a NUL-terminated name and a valid output pointer.
    let result = unsafe {
        (sim.api.driver_get_extension_function_address)(sim.driver, name.as_ptr(), &mut function)
    };
    if result == ze_result_t::ZE_RESULT_SUCCESS {
        Ok(function)
    } else {
        Err(result)
    }
}

#[test]
fn hidden_zex_extension_is_not_found() {
    let mut config = b70x2();
    config.zex_extension = false;
    let sim = Sim::in_process(config);
    assert_eq!(
        extension_function(&sim, extensions::ZEX_DRIVER_IMPORT_EXTERNAL_POINTER),
        Err(ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT)
    );
    sim.assert_clean();
}

#[test]
fn zex_import_round_trip_overlap_and_direct_copies() {
    let sim = Sim::preset("b70x2");
    let import = extension_function(&sim, extensions::ZEX_DRIVER_IMPORT_EXTERNAL_POINTER).unwrap();
    let release =
        extension_function(&sim, extensions::ZEX_DRIVER_RELEASE_IMPORTED_POINTER).unwrap();
    let base_of =
        extension_function(&sim, extensions::ZEX_DRIVER_GET_HOST_POINTER_BASE_ADDRESS).unwrap();
    // SAFETY: the addresses of functions with these documented signatures.
    let (import, release, base_of) = unsafe {
        (
            std::mem::transmute::<*mut c_void, extensions::zex_pfnDriverImportExternalPointer_t>(
                import,
            ),
            std::mem::transmute::<*mut c_void, extensions::zex_pfnDriverReleaseImportedPointer_t>(
                release,
            ),
            std::mem::transmute::<*mut c_void, extensions::zex_pfnDriverGetHostPointerBaseAddress_t>(
                base_of,
            ),
        )
    };
    let mut host = vec![9u8; 2 * 4096];
    let start = host.as_mut_ptr() as *mut c_void;
    // SAFETY: a live host range of the given size.
    unsafe {
        ok(import(sim.driver, start, 4096));
        // Inside the import: success, and no second import (as compute-runtime answers).
        ok(import(sim.driver, start.byte_add(100), 10));
        assert_eq!(sim.counter("nested_imports"), 1);
        assert_eq!(
            import(sim.driver, start.byte_add(4000), 200),
            ze_result_t::ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE,
            "first byte in the import, last outside"
        );
        assert_eq!(
            import(sim.driver, start, 0),
            ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT
        );
        assert_eq!(
            import(sim.driver, null_mut(), 64),
            ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT
        );
        let mut base = null_mut();
        ok(base_of(sim.driver, start.byte_add(100), &mut base));
        assert_eq!(base, start);
    }
    assert_eq!(sim.counter("live_imports"), 1);

    let context = sim.context(&[0]);
    let device = sim.alloc_device(context, 0, 4096);
    let list = sim.immediate_list(context, 0, 1);
    let pool = sim.event_pool(context, 2);
    let (first, second) = (sim.event(pool, 0), sim.event(pool, 1));
    ok(sim.copy(list, device, start, 4096, first, &mut []));
    // SAFETY: the second page is inside `host` but not imported.
    ok(sim.copy(
        list,
        device,
        unsafe { start.byte_add(4096) },
        4096,
        second,
        &mut [],
    ));
    sim.wait(first);
    sim.wait(second);
    assert_eq!(
        sim.counter("host_direct_copies"),
        1,
        "registered memory is copied directly"
    );
    assert_eq!(
        sim.counter("host_staged_copies"),
        1,
        "pageable memory is staged"
    );

    // SAFETY: the imported base, released once.
    unsafe {
        ok(release(sim.driver, start));
        assert_eq!(
            release(sim.driver, start),
            ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT
        );
    }
    sim.destroy_events(pool, &[first, second]);
    sim.destroy_list(list);
    sim.free(context, device);
    sim.destroy_context(context);
    sim.assert_clean();
}

/// compute-runtime's import rules below a page and between imports: any alignment; a range
/// whose last byte alone is in an import is a bad size, one whose ends lie in two imports
/// overlaps; a range covering an import with neither end in it is imported; a release through
/// any address inside an import releases it.
#[test]
fn zex_imports_follow_compute_runtimes_rules_below_a_page() {
    let sim = Sim::preset("b70x2");
    let import = extension_function(&sim, extensions::ZEX_DRIVER_IMPORT_EXTERNAL_POINTER).unwrap();
    let release =
        extension_function(&sim, extensions::ZEX_DRIVER_RELEASE_IMPORTED_POINTER).unwrap();
    // SAFETY: the addresses of functions with these documented signatures.
    let (import, release) = unsafe {
        (
            std::mem::transmute::<*mut c_void, extensions::zex_pfnDriverImportExternalPointer_t>(
                import,
            ),
            std::mem::transmute::<*mut c_void, extensions::zex_pfnDriverReleaseImportedPointer_t>(
                release,
            ),
        )
    };
    let mut host = vec![0u8; 8 * 4096];
    let start = host.as_mut_ptr() as *mut c_void;
    // SAFETY: every range lies inside `host`, which outlives the imports.
    unsafe {
        let at = |offset: usize| start.byte_add(offset);
        ok(import(sim.driver, at(64), 1000));
        ok(import(sim.driver, at(1064), 3000));
        assert_eq!(
            sim.counter("live_imports"),
            2,
            "two imports may share a page"
        );
        assert_eq!(
            import(sim.driver, at(0), 100),
            ze_result_t::ZE_RESULT_ERROR_INVALID_SIZE,
            "only its last byte is in an import"
        );
        assert_eq!(
            import(sim.driver, at(500), 1000),
            ze_result_t::ZE_RESULT_ERROR_OVERLAPPING_REGIONS,
            "its ends lie in two imports"
        );
        ok(import(sim.driver, at(0), 5 * 4096));
        assert_eq!(sim.counter("live_imports"), 3, "neither end in an import");
        ok(release(sim.driver, at(2000)));
        ok(release(sim.driver, at(500)));
        assert_eq!(sim.counter("live_imports"), 1);
        ok(release(sim.driver, at(20000)));
        assert_eq!(
            release(sim.driver, at(64)),
            ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT
        );
    }
    assert_eq!(sim.counter("live_imports"), 0);
    sim.assert_clean();
}

/// An event pool destroyed before its events: destroyed (compute-runtime's `EventPool::destroy`
/// deletes it whatever it holds), counted as a hazard, as is a later use of its event; the
/// event is still destroyed after.
#[test]
fn an_event_pool_destroyed_before_its_events_is_destroyed_and_counted_as_a_hazard() {
    let sim = Sim::preset("b70x2");
    let context = sim.context(&[0]);
    let pool = sim.event_pool(context, 2);
    let event = sim.event(pool, 1);
    // SAFETY: a pool of this test, destroyed once.
    ok(unsafe { (sim.api.event_pool_destroy)(pool) });
    assert_eq!(sim.counter("destroy_hazards"), 1);
    assert_eq!(
        (sim.counter("live_event_pools"), sim.counter("live_events")),
        (0, 1)
    );
    // Its memory went with the pool on hardware: a use of it is a hazard too.
    // SAFETY: the event of this test.
    unsafe { (sim.api.event_query_status)(event) };
    assert_eq!(sim.counter("destroy_hazards"), 2);
    // SAFETY: the event of this test, destroyed once.
    ok(unsafe { (sim.api.event_destroy)(event) });
    let empty = sim.event_pool(context, 2);
    let fine = sim.event(empty, 0);
    // SAFETY: an event of a live pool.
    unsafe { (sim.api.event_query_status)(fine) };
    sim.destroy_events(empty, &[fine]);
    assert_eq!(
        sim.counter("destroy_hazards"),
        2,
        "no hazard with the pool alive"
    );
    sim.destroy_context(context);
    assert_eq!(sim.counter("live_events"), 0);
}

#[test]
fn a_context_destroyed_before_its_objects_is_destroyed_and_counted_as_a_hazard() {
    // compute-runtime's `Context::destroy` answers success whatever the context still holds;
    // the simulator too, and counts it. What was left stays live and counted.
    let sim = Sim::preset("b70x2");
    let context = sim.context(&[0]);
    let pointer = sim.alloc_device(context, 0, 4096);
    let clean = sim.context(&[0]);
    sim.destroy_context(clean);
    assert_eq!(
        sim.counter("destroy_hazards"),
        0,
        "an empty context is no hazard"
    );
    sim.destroy_context(context);
    assert_eq!(sim.counter("destroy_hazards"), 1);
    assert_eq!(
        (
            sim.counter("live_contexts"),
            sim.counter("live_allocations")
        ),
        (0, 1),
        "the allocation outlives its context, as a leak"
    );
    let _ = pointer;
}

#[test]
fn overlapping_copies_are_refused() {
    let sim = Sim::preset("b70x2");
    let context = sim.context(&[0]);
    let pointer = sim.alloc_device(context, 0, 8192);
    let list = sim.immediate_list(context, 0, 1);
    // SAFETY: both ranges lie inside the allocation.
    let shifted = unsafe { pointer.byte_add(100) };
    assert_eq!(
        sim.copy(list, shifted, pointer, 4096, null_mut(), &mut []),
        ze_result_t::ZE_RESULT_ERROR_OVERLAPPING_REGIONS
    );
    // Out of bounds of the allocation (the source is on the stack, so it cannot sit right
    // after the allocation on the heap and overlap instead).
    let host = [0u8; 8192];
    assert_eq!(
        sim.copy(
            list,
            shifted,
            host.as_ptr() as *const c_void,
            8192,
            null_mut(),
            &mut []
        ),
        ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT
    );
    sim.destroy_list(list);
    sim.free(context, pointer);
    sim.destroy_context(context);
    sim.assert_clean();
}

/// Destroying what queued work still uses is refused and counted: an event it waits on, and the
/// immediate list it runs on. Once the work completes, both go.
#[test]
fn destroying_what_queued_work_uses_is_refused_and_counted() {
    let sim = Sim::preset("b70x2");
    let context = sim.context(&[0]);
    let pointer = sim.alloc_device(context, 0, 4096);
    let pool = sim.event_pool(context, 2);
    let (gate, done) = (sim.event(pool, 0), sim.event(pool, 1));
    let list = sim.immediate_list(context, 0, 1);
    let bytes = vec![7u8; 4096];
    let source = bytes.as_ptr() as *const c_void;
    ok(sim.copy(list, pointer, source, 4096, done, &mut [gate]));
    // SAFETY: events and a list this test created.
    unsafe {
        assert_eq!(
            (sim.api.event_destroy)(gate),
            ze_result_t::ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE
        );
        assert_eq!(
            (sim.api.event_destroy)(done),
            ze_result_t::ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE
        );
        assert_eq!(
            (sim.api.command_list_destroy)(list),
            ze_result_t::ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE
        );
        assert_eq!(sim.counter("destroy_hazards"), 3);
        ok((sim.api.event_host_signal)(gate));
    }
    sim.wait(done);
    sim.destroy_list(list);
    sim.destroy_events(pool, &[gate, done]);
    sim.free(context, pointer);
    sim.destroy_context(context);
    assert_eq!(sim.counter("residency_violations"), 0);
    sim.assert_clean();
}

/// Residency is checked while a command runs: evicting a peer's memory that a queued copy reads
/// is a violation, counted at the eviction and again when the copy runs.
#[test]
fn evicting_under_queued_work_is_a_residency_violation() {
    let sim = Sim::preset("b70x2");
    let context = sim.context(&[0, 1]);
    let source = sim.alloc_device(context, 0, 4096);
    let target = sim.alloc_device(context, 1, 4096);
    ok(sim.make_resident(context, 1, source, 4096));
    let pool = sim.event_pool(context, 2);
    let (gate, done) = (sim.event(pool, 0), sim.event(pool, 1));
    let list = sim.immediate_list(context, 1, 1);
    ok(sim.copy(list, target, source, 4096, done, &mut [gate]));
    assert_eq!(
        sim.counter("residency_violations"),
        0,
        "resident when appended"
    );
    ok(sim.evict(context, 1, source, 4096));
    assert_eq!(
        sim.counter("residency_violations"),
        1,
        "evicted under the copy"
    );
    // SAFETY: an event this test created.
    ok(unsafe { (sim.api.event_host_signal)(gate) });
    sim.wait(done);
    assert_eq!(
        sim.counter("residency_violations"),
        2,
        "and not resident as it ran"
    );
    sim.destroy_list(list);
    sim.destroy_events(pool, &[gate, done]);
    sim.free(context, source);
    sim.free(context, target);
    sim.destroy_context(context);
    sim.assert_clean();
}

/// The wait faults: a host wait may come back `NOT_READY` or fail while the work goes on.
#[test]
fn wait_faults_answer_before_the_work_is_done() {
    let mut config = b70x2();
    config.faults.failed_waits = Some(1);
    config.faults.not_ready_waits = Some(1);
    let sim = Sim::in_process(config);
    let context = sim.context(&[0]);
    let pool = sim.event_pool(context, 1);
    let event = sim.event(pool, 0);
    // SAFETY: an event this test created.
    unsafe {
        ok((sim.api.event_host_signal)(event));
        let wait = sim.api.event_host_synchronize;
        assert_eq!(wait(event, u64::MAX), ze_result_t::ZE_RESULT_ERROR_UNKNOWN);
        assert_eq!(wait(event, u64::MAX), ze_result_t::ZE_RESULT_NOT_READY);
        ok(wait(event, u64::MAX));
    }
    sim.destroy_events(pool, &[event]);
    sim.destroy_context(context);
    sim.assert_clean();
}

/// An alignment no address space can honour is an alignment error, not out-of-memory.
#[test]
fn impossible_alignment_is_an_alignment_error() {
    let sim = Sim::preset("b70x2");
    let context = sim.context(&[0]);
    let desc = ze_host_mem_alloc_desc_t {
        stype: ze_structure_type_t::ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC,
        ..Default::default()
    };
    let mut pointer = null_mut();
    // SAFETY: valid descriptor and output pointer.
    let result = unsafe { (sim.api.mem_alloc_host)(context, &desc, 4096, 1 << 63, &mut pointer) };
    assert_eq!(result, ze_result_t::ZE_RESULT_ERROR_UNSUPPORTED_ALIGNMENT);
    sim.destroy_context(context);
    sim.assert_clean();
}

#[test]
fn an_alignment_that_is_no_power_of_two_is_taken_as_the_driver_takes_it() {
    for (sim, checking) in [
        (Sim::preset("b70x2"), false),
        (Sim::checking("b70x2"), true),
    ] {
        let context = sim.context(&[0]);
        let result = sim.try_alloc_device_aligned(context, 0, 12, 12);
        if checking {
            assert_eq!(
                result.err(),
                Some(ze_result_t::ZE_RESULT_ERROR_UNSUPPORTED_ALIGNMENT)
            );
        } else {
            let pointer = result.unwrap();
            assert_eq!(pointer as usize % 16, 0, "aligned to the next power of two");
            sim.free(context, pointer);
        }
        sim.destroy_context(context);
        sim.assert_clean();
    }
}
