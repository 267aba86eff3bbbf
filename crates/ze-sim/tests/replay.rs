//! Seed 000's raw Level Zero table, strict residency and pending-work hazards, replayed in-process
//! and through the system loader (plain and with its validation layer).

use crate::common::{GIB, MIB, Sim, ok};
use level_zero_sys::*;
use std::ffi::c_void;
use std::ptr::null_mut;

const G: u64 = GIB as u64;

/// Seed 000, "Level Zero control": 1 GiB on device 0 of a 2-device context.
fn seed000_two_device_context(sim: &Sim) {
    let context = sim.context(&[0, 1]);
    let pointer = sim.alloc_device(context, 0, GIB);
    // Lazily committed: nothing shows until it is made resident.
    assert_eq!(sim.vram_gtt(0), (0, 0));
    assert_eq!(sim.vram_gtt(1), (0, 0));
    assert_eq!(sim.host_pinned(), 0);

    ok(sim.make_resident(context, 0, pointer, GIB));
    assert_eq!(sim.vram_gtt(0), (G, 0));
    assert_eq!(sim.vram_gtt(1), (0, 0));
    assert_eq!(sim.host_pinned(), 0);

    ok(sim.make_resident(context, 1, pointer, GIB));
    assert_eq!(sim.vram_gtt(0), (G, 0));
    assert_eq!(
        sim.vram_gtt(1),
        (0, G),
        "the peer mirrors the allocation in GTT"
    );
    assert_eq!(
        sim.host_pinned(),
        G,
        "and pins as much host memory (26.09+)"
    );
    assert_eq!(sim.counter("make_resident_calls"), 2);

    sim.free(context, pointer);
    assert_eq!(sim.vram_gtt(0), (0, 0));
    assert_eq!(sim.vram_gtt(1), (0, 0));
    assert_eq!(sim.host_pinned(), 0);
    sim.destroy_context(context);
    sim.assert_clean();
}
on_both_paths!(seed000_two_device_context, "b70x2");

/// The same steps with a 1-device context never grow GTT: device 1 is not in it.
fn seed000_one_device_context(sim: &Sim) {
    let context = sim.context(&[0]);
    let pointer = sim.alloc_device(context, 0, GIB);
    ok(sim.make_resident(context, 0, pointer, GIB));
    assert_eq!(sim.vram_gtt(0), (G, 0));
    assert_eq!(
        sim.make_resident(context, 1, pointer, GIB),
        ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT,
        "device 1 is not in the context"
    );
    assert_eq!(sim.vram_gtt(1), (0, 0));
    assert_eq!(sim.host_pinned(), 0);
    sim.free(context, pointer);
    sim.destroy_context(context);
    sim.assert_clean();
}
on_both_paths!(seed000_one_device_context, "b70x2");

/// compute-runtime 26.05 (seed 001): the GTT registration exists, host pages are not pinned.
fn registered_mirror_grows_gtt_not_pinned(sim: &Sim) {
    let context = sim.context(&[0, 1]);
    let pointer = sim.alloc_device(context, 0, GIB);
    ok(sim.make_resident(context, 0, pointer, GIB));
    ok(sim.make_resident(context, 1, pointer, GIB));
    assert_eq!(sim.vram_gtt(1), (0, G));
    assert_eq!(sim.host_pinned(), 0);
    // Evicting the peer releases the registration.
    ok(sim.evict(context, 1, pointer, GIB));
    assert_eq!(sim.vram_gtt(1), (0, 0));
    assert_eq!(sim.counter("evict_calls"), 1);
    sim.free(context, pointer);
    sim.destroy_context(context);
    sim.assert_clean();
}
on_both_paths!(registered_mirror_grows_gtt_not_pinned, "b70x2-26.05");

/// A true P2P fabric costs neither GTT nor host memory.
fn fabric_peer_residency_is_free(sim: &Sim) {
    let context = sim.context(&[0, 1]);
    let pointer = sim.alloc_device(context, 1, GIB);
    ok(sim.make_resident(context, 0, pointer, GIB));
    assert_eq!(sim.vram_gtt(0), (0, 0));
    assert_eq!(sim.host_pinned(), 0);
    sim.free(context, pointer);
    sim.destroy_context(context);
    sim.assert_clean();
}
on_both_paths!(fabric_peer_residency_is_free, "xelink");

/// Copies `size` bytes through a copy engine of `device` and waits for completion.
fn copy_and_wait(
    sim: &Sim,
    context: ze_context_handle_t,
    device: u32,
    target: *mut c_void,
    source: *const c_void,
    size: usize,
) {
    let list = sim.immediate_list(context, device, 1);
    let pool = sim.event_pool(context, 1);
    let done = sim.event(pool, 0);
    ok(sim.copy(list, target, source, size, done, &mut []));
    sim.wait(done);
    sim.destroy_events(pool, &[done]);
    sim.destroy_list(list);
}

fn upload(
    sim: &Sim,
    context: ze_context_handle_t,
    device: u32,
    pointer: *mut c_void,
    bytes: &[u8],
) {
    copy_and_wait(
        sim,
        context,
        device,
        pointer,
        bytes.as_ptr() as *const c_void,
        bytes.len(),
    );
}

fn download(
    sim: &Sim,
    context: ze_context_handle_t,
    device: u32,
    pointer: *const c_void,
    size: usize,
) -> Vec<u8> {
    let mut bytes = vec![0u8; size];
    copy_and_wait(
        sim,
        context,
        device,
        bytes.as_mut_ptr() as *mut c_void,
        pointer,
        size,
    );
    bytes
}

fn pattern(size: usize) -> Vec<u8> {
    (0..size).map(|index| (index * 7 + 3) as u8).collect()
}

/// Strict residency: device 1's engine may not touch device 0 memory resident only on device 0.
fn strict_residency_refuses_then_allows(sim: &Sim) {
    let size = 64 * 1024;
    let context = sim.context(&[0, 1]);
    let source = sim.alloc_device(context, 0, size);
    let target = sim.alloc_device(context, 1, size);
    let bytes = pattern(size);
    upload(sim, context, 0, source, &bytes);

    let list = sim.immediate_list(context, 1, 1);
    assert_eq!(
        sim.copy(list, target, source, size, null_mut(), &mut []),
        ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT
    );
    assert_eq!(sim.counter("residency_violations"), 1);

    ok(sim.make_resident(context, 1, source, size));
    let pool = sim.event_pool(context, 1);
    let done = sim.event(pool, 0);
    ok(sim.copy(list, target, source, size, done, &mut []));
    sim.wait(done);
    assert_eq!(sim.counter("residency_violations"), 1);
    assert_eq!(sim.counter("p2p_copies"), 1);
    assert_eq!(
        download(sim, context, 1, target, size),
        bytes,
        "the bytes arrived"
    );

    sim.destroy_events(pool, &[done]);
    sim.destroy_list(list);
    sim.free(context, source);
    sim.free(context, target);
    sim.destroy_context(context);
    sim.assert_clean();
}
on_both_paths!(strict_residency_refuses_then_allows, "b70x2", checking);

/// The faithful preset: a peer's memory used without a residency call is imported by the driver
/// on first use, mirrored like explicit residency, once, until it is freed.
fn faithful_driver_imports_on_use(sim: &Sim) {
    let size = 64 * 1024;
    let context = sim.context(&[0, 1]);
    let source = sim.alloc_device(context, 0, size);
    let target = sim.alloc_device(context, 1, size);
    let bytes = pattern(size);
    upload(sim, context, 0, source, &bytes);
    let list = sim.immediate_list(context, 1, 1);
    let pool = sim.event_pool(context, 1);
    let done = sim.event(pool, 0);
    for _ in 0..3 {
        ok(sim.copy(list, target, source, size, done, &mut []));
        sim.wait(done);
        // SAFETY: an event of this test.
        ok(unsafe { (sim.api.event_host_reset)(done) });
    }
    assert_eq!(
        sim.counter("implicit_imports"),
        1,
        "imported once, on first use"
    );
    assert_eq!(sim.counter("residency_violations"), 0);
    assert_eq!(
        sim.counter("make_resident_calls"),
        0,
        "no residency call was made"
    );
    assert_eq!(
        sim.vram_gtt(1).1,
        size as u64,
        "the import is device 1's GTT"
    );
    assert_eq!(
        sim.host_pinned(),
        size as u64,
        "and pinned host memory, as assumed"
    );
    assert_eq!(download(sim, context, 1, target, size), bytes);
    sim.destroy_events(pool, &[done]);
    sim.destroy_list(list);
    sim.free(context, source);
    assert_eq!(sim.host_pinned(), 0, "freeing releases the import");
    sim.free(context, target);
    sim.destroy_context(context);
    sim.assert_clean();
}
on_both_paths!(faithful_driver_imports_on_use, "b70x2-faithful");

/// Whether an implicit import pins host memory is a parameter: without, GTT grows but nothing
/// is pinned, and evicting the import releases it without touching the pinned total.
#[test]
fn implicit_imports_may_leave_host_memory_unpinned() {
    let mut config = ze_sim::SimConfig::preset("b70x2-faithful").unwrap();
    config.implicit_import_pins_host = false;
    let sim = Sim::in_process(config);
    let size = 64 * 1024;
    let context = sim.context(&[0, 1]);
    let source = sim.alloc_device(context, 0, size);
    let target = sim.alloc_device(context, 1, size);
    let list = sim.immediate_list(context, 1, 1);
    let pool = sim.event_pool(context, 1);
    let done = sim.event(pool, 0);
    ok(sim.copy(list, target, source, size, done, &mut []));
    sim.wait(done);
    assert_eq!((sim.counter("implicit_imports"), sim.host_pinned()), (1, 0));
    assert_eq!(sim.vram_gtt(1).1, size as u64);
    ok(sim.evict(context, 1, source, size));
    assert_eq!((sim.vram_gtt(1).1, sim.host_pinned()), (0, 0));
    sim.destroy_events(pool, &[done]);
    sim.destroy_list(list);
    sim.free(context, source);
    sim.free(context, target);
    sim.destroy_context(context);
    sim.assert_clean();
}

/// Freeing memory that a pending copy writes counts a hazard; a deferred free does not.
fn freeing_under_pending_work_counts_a_hazard(sim: &Sim) {
    let size = MIB;
    let context = sim.context(&[0]);
    let target = sim.alloc_device(context, 0, size);
    let deferred = sim.alloc_device(context, 0, size);
    let bytes = pattern(size);
    let list = sim.immediate_list(context, 0, 1);
    let pool = sim.event_pool(context, 3);
    let (gate, first, second) = (sim.event(pool, 0), sim.event(pool, 1), sim.event(pool, 2));
    let source = bytes.as_ptr() as *const c_void;
    // Both copies wait on an event only the host signals, so they are still pending below.
    ok(sim.copy(list, target, source, size, first, &mut [gate]));
    ok(sim.copy(list, deferred, source, size, second, &mut [gate]));
    // SAFETY: a plain query of an event this test created.
    assert_eq!(
        unsafe { (sim.api.event_query_status)(first) },
        ze_result_t::ZE_RESULT_NOT_READY
    );

    sim.free(context, target);
    assert_eq!(sim.counter("free_hazards"), 1);
    let defer = ze_memory_free_ext_desc_t {
        stype: ze_structure_type_t::ZE_STRUCTURE_TYPE_MEMORY_FREE_EXT_DESC,
        pNext: std::ptr::null(),
        freePolicy: ze_driver_memory_free_policy_ext_flag_t::ZE_DRIVER_MEMORY_FREE_POLICY_EXT_FLAG_DEFER_FREE.0,
    };
    let free_ext = sim.api.mem_free_ext.expect("zeMemFreeExt");
    // SAFETY: an allocation this test made, freed once.
    ok(unsafe { free_ext(context, &defer, deferred) });
    assert_eq!(
        sim.counter("free_hazards"),
        1,
        "a deferred free is no hazard"
    );
    assert_eq!(sim.counter("live_allocations"), 0);

    // SAFETY: an event this test created.
    ok(unsafe { (sim.api.event_host_signal)(gate) });
    sim.wait(first);
    sim.wait(second);
    sim.destroy_events(pool, &[gate, first, second]);
    sim.destroy_list(list);
    sim.destroy_context(context);
    sim.assert_clean();
}
on_both_paths!(freeing_under_pending_work_counts_a_hazard, "b70x2");

/// `b60x4-refused`: no P2P across root ports; a peer copy is refused with the code seed 001 quotes.
fn refused_pairs_cannot_copy(sim: &Sim) {
    let context = sim.context(&[0, 1]);
    let mut access = 1u8;
    // SAFETY: two devices of this driver and a valid output pointer.
    ok(unsafe { (sim.api.device_can_access_peer)(sim.devices[1], sim.devices[0], &mut access) });
    assert_eq!(access, 0);
    let mut properties = ze_device_p2p_properties_t {
        stype: ze_structure_type_t::ZE_STRUCTURE_TYPE_DEVICE_P2P_PROPERTIES,
        ..Default::default()
    };
    // SAFETY: as above.
    ok(unsafe {
        (sim.api.device_get_p2p_properties)(sim.devices[1], sim.devices[0], &mut properties)
    });
    assert_eq!(properties.flags, 0);

    let size = 4096;
    let source = sim.alloc_device(context, 0, size);
    let target = sim.alloc_device(context, 1, size);
    ok(sim.make_resident(context, 1, source, size));
    let list = sim.immediate_list(context, 1, 1);
    assert_eq!(
        sim.copy(list, target, source, size, null_mut(), &mut []),
        ze_result_t::ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY
    );
    assert_eq!(sim.counter("refused_copies"), 1);
    sim.destroy_list(list);
    sim.free(context, source);
    sim.free(context, target);
    sim.destroy_context(context);
    sim.assert_clean();
}
on_both_paths!(refused_pairs_cannot_copy, "b60x4-refused");

/// `b70x2-acs`: P2P claims access and copies "succeed", but the bytes are 0xFF.
fn corrupting_pairs_return_ff(sim: &Sim) {
    let context = sim.context(&[0, 1]);
    let mut access = 0u8;
    // SAFETY: two devices of this driver and a valid output pointer.
    ok(unsafe { (sim.api.device_can_access_peer)(sim.devices[1], sim.devices[0], &mut access) });
    assert_eq!(access, 1, "the pair claims access");
    let size = 8192;
    let source = sim.alloc_device(context, 0, size);
    let target = sim.alloc_device(context, 1, size);
    let bytes = pattern(size);
    upload(sim, context, 0, source, &bytes);
    ok(sim.make_resident(context, 1, source, size));
    let list = sim.immediate_list(context, 1, 1);
    let pool = sim.event_pool(context, 1);
    let done = sim.event(pool, 0);
    ok(sim.copy(list, target, source, size, done, &mut []));
    sim.wait(done);
    assert_eq!(download(sim, context, 1, target, size), vec![0xff; size]);
    assert_eq!(sim.counter("corrupt_copies"), 1);
    sim.destroy_events(pool, &[done]);
    sim.destroy_list(list);
    sim.free(context, source);
    sim.free(context, target);
    sim.destroy_context(context);
    sim.assert_clean();
}
on_both_paths!(corrupting_pairs_return_ff, "b70x2-acs");
