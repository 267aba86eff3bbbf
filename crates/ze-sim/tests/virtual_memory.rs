//! Virtual memory: reserve, physical memory, map, unmap, access attributes, free, with the
//! answers the specification and compute-runtime give; a mapping is device memory of the
//! physical memory's device, resident elsewhere only when asked, with its bytes shared.

use crate::common::{Sim, ok};
use level_zero_sys::*;
use std::ffi::c_void;
use std::ptr::null_mut;

const MIB: usize = 1 << 20;

/// The simulator's virtual-memory entry points (not in `ZeApi`), resolved by name.
struct Vm {
    reserve: ze_pfnVirtualMemReserve_t,
    free: ze_pfnVirtualMemFree_t,
    page_size: ze_pfnVirtualMemQueryPageSize_t,
    map: ze_pfnVirtualMemMap_t,
    unmap: ze_pfnVirtualMemUnmap_t,
    set_access: ze_pfnVirtualMemSetAccessAttribute_t,
    get_access: ze_pfnVirtualMemGetAccessAttribute_t,
    create: ze_pfnPhysicalMemCreate_t,
    destroy: ze_pfnPhysicalMemDestroy_t,
    synchronize: ze_pfnCommandListHostSynchronize_t,
}

fn vm(sim: &Sim) -> Vm {
    // SAFETY: each name with its headers' type.
    unsafe {
        Vm {
            set_access: sim
                .function::<ze_pfnVirtualMemSetAccessAttribute_t>("zeVirtualMemSetAccessAttribute"),
            get_access: sim
                .function::<ze_pfnVirtualMemGetAccessAttribute_t>("zeVirtualMemGetAccessAttribute"),
            synchronize: sim
                .function::<ze_pfnCommandListHostSynchronize_t>("zeCommandListHostSynchronize"),
            reserve: sim.function::<ze_pfnVirtualMemReserve_t>("zeVirtualMemReserve"),
            free: sim.function::<ze_pfnVirtualMemFree_t>("zeVirtualMemFree"),
            page_size: sim.function::<ze_pfnVirtualMemQueryPageSize_t>("zeVirtualMemQueryPageSize"),
            map: sim.function::<ze_pfnVirtualMemMap_t>("zeVirtualMemMap"),
            unmap: sim.function::<ze_pfnVirtualMemUnmap_t>("zeVirtualMemUnmap"),
            create: sim.function::<ze_pfnPhysicalMemCreate_t>("zePhysicalMemCreate"),
            destroy: sim.function::<ze_pfnPhysicalMemDestroy_t>("zePhysicalMemDestroy"),
        }
    }
}

const READWRITE: ze_memory_access_attribute_t =
    ze_memory_access_attribute_t::ZE_MEMORY_ACCESS_ATTRIBUTE_READWRITE;

#[test]
fn misuse_gets_the_answers_the_driver_gives() {
    let sim = Sim::preset("b70x2");
    let vm = vm(&sim);
    let context = sim.context(&[0, 1]);
    // SAFETY (whole test): valid handles and output pointers; ranges are checked by the
    // simulator, which is what the test is about.
    unsafe {
        let mut page = 0;
        ok(vm.page_size.unwrap()(
            context,
            sim.devices[0],
            MIB,
            &mut page,
        ));
        assert_eq!(page, 64 << 10);
        ok(vm.page_size.unwrap()(
            context,
            sim.devices[0],
            4 * MIB,
            &mut page,
        ));
        assert_eq!(page, 2 * MIB);
        let mut range = null_mut();
        assert_eq!(
            vm.reserve.unwrap()(context, std::ptr::null(), 1000, &mut range),
            ze_result_t::ZE_RESULT_ERROR_UNSUPPORTED_SIZE
        );
        ok(vm.reserve.unwrap()(
            context,
            std::ptr::null(),
            4 * MIB,
            &mut range,
        ));
        let mut desc = ze_physical_mem_desc_t {
            stype: ze_structure_type_t::ZE_STRUCTURE_TYPE_PHYSICAL_MEM_DESC,
            size: 1000,
            ..Default::default()
        };
        let mut physical = null_mut();
        assert_eq!(
            vm.create.unwrap()(context, sim.devices[0], &mut desc, &mut physical),
            ze_result_t::ZE_RESULT_ERROR_UNSUPPORTED_SIZE
        );
        desc.size = 2 * MIB;
        ok(vm.create.unwrap()(
            context,
            sim.devices[0],
            &mut desc,
            &mut physical,
        ));
        let map = |at: *const c_void, size, offset| {
            vm.map.unwrap()(context, at, size, physical, offset, READWRITE)
        };
        let inside = (range as usize + MIB) as *const c_void;
        assert_eq!(
            map((range as usize + 4096) as _, MIB, 0),
            ze_result_t::ZE_RESULT_ERROR_UNSUPPORTED_ALIGNMENT
        );
        assert_eq!(
            map(inside, 3 * MIB, 0),
            ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT,
            "past the physical memory"
        );
        assert_eq!(
            map(inside, MIB, 2 * MIB),
            ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT,
            "offset past its end"
        );
        assert_eq!(
            map((range as usize + 4 * MIB) as _, MIB, 0),
            ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT,
            "outside the reservation"
        );
        assert_eq!(
            vm.map.unwrap()(
                context,
                inside,
                MIB,
                physical,
                0,
                ze_memory_access_attribute_t(7)
            ),
            ze_result_t::ZE_RESULT_ERROR_INVALID_ENUMERATION
        );
        ok(map(inside, MIB, 0));
        assert_eq!(
            map(inside, MIB, MIB),
            ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT,
            "device memory maps once"
        );
        assert_eq!(sim.counter("live_virtual_mappings"), 1);
        // zeMemFree is not how a mapping goes.
        assert_eq!(
            (sim.api.mem_free)(context, inside as *mut c_void),
            ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT
        );
        // Access attributes are recorded per mapping.
        let (mut access, mut size) = (READWRITE, 0);
        ok(vm.get_access.unwrap()(
            context,
            inside,
            MIB,
            &mut access,
            &mut size,
        ));
        assert_eq!((access, size), (READWRITE, MIB));
        let readonly = ze_memory_access_attribute_t::ZE_MEMORY_ACCESS_ATTRIBUTE_READONLY;
        ok(vm.set_access.unwrap()(context, inside, MIB, readonly));
        ok(vm.get_access.unwrap()(
            context,
            inside,
            MIB,
            &mut access,
            &mut size,
        ));
        assert_eq!(access, readonly);
        ok(vm.get_access.unwrap()(
            context,
            range,
            MIB,
            &mut access,
            &mut size,
        ));
        assert_eq!(
            (access, size),
            (
                ze_memory_access_attribute_t::ZE_MEMORY_ACCESS_ATTRIBUTE_NONE,
                MIB
            ),
            "unmapped up to the mapping"
        );
        // Physical memory that is mapped stays.
        assert_eq!(
            vm.destroy.unwrap()(context, physical),
            ze_result_t::ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE
        );
        // Unmapping a range with no mapping succeeds; freeing the reservation unmaps the rest.
        ok(vm.unmap.unwrap()(context, range, MIB));
        assert_eq!(
            vm.free.unwrap()(context, range, MIB),
            ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT,
            "not the reserved size"
        );
        ok(vm.free.unwrap()(context, range, 4 * MIB));
        assert_eq!(sim.counter("live_virtual_mappings"), 0);
        ok(vm.destroy.unwrap()(context, physical));
    }
    sim.destroy_context(context);
    sim.assert_clean();
}

#[test]
fn a_mapping_is_its_physical_memorys_devices_memory_with_real_bytes() {
    // Checking mode: a peer's use of a mapping not resident there is refused.
    let sim = Sim::checking("b70x2");
    let vm = vm(&sim);
    let context = sim.context(&[0, 1]);
    let (owner, peer) = (
        sim.immediate_list(context, 0, 1),
        sim.immediate_list(context, 1, 1),
    );
    let host: Vec<u32> = (0..1024).collect();
    let mut back = vec![0u32; 1024];
    let bytes = host.len() * 4;
    // SAFETY (whole test): valid handles; copies of `bytes` bytes inside the mapping and the
    // vectors, synchronised before the vectors are read.
    unsafe {
        let mut range = null_mut();
        ok(vm.reserve.unwrap()(
            context,
            std::ptr::null(),
            2 * MIB,
            &mut range,
        ));
        let mut desc = ze_physical_mem_desc_t {
            stype: ze_structure_type_t::ZE_STRUCTURE_TYPE_PHYSICAL_MEM_DESC,
            size: 2 * MIB,
            ..Default::default()
        };
        let mut physical = null_mut();
        ok(vm.create.unwrap()(
            context,
            sim.devices[0],
            &mut desc,
            &mut physical,
        ));
        // The second half of the physical memory, at the range's start.
        ok(vm.map.unwrap()(
            context, range, MIB, physical, MIB, READWRITE,
        ));
        ok(sim.copy(owner, range, host.as_ptr() as _, bytes, null_mut(), &mut []));
        let synchronize = |list| ok(vm.synchronize.unwrap()(list, u64::MAX));
        synchronize(owner);
        assert_eq!(
            sim.vram_gtt(0).0,
            MIB as u64,
            "committed on its owner at first use"
        );
        // Not resident on the peer: strict residency refuses the peer's copy.
        assert_ne!(
            sim.copy(
                peer,
                back.as_mut_ptr() as _,
                range,
                bytes,
                null_mut(),
                &mut []
            ),
            ze_result_t::ZE_RESULT_SUCCESS
        );
        assert_eq!(sim.counter("residency_violations"), 1);
        ok(sim.make_resident(context, 1, range, MIB));
        assert_eq!(
            sim.host_pinned(),
            MIB as u64,
            "the peer's mirror, as for an allocation"
        );
        ok(sim.copy(
            peer,
            back.as_mut_ptr() as _,
            range,
            bytes,
            null_mut(),
            &mut [],
        ));
        synchronize(peer);
        assert_eq!(back, host);
        ok(vm.unmap.unwrap()(context, range, MIB));
        assert_eq!(sim.host_pinned(), 0);
        // Mapped again, elsewhere: the physical memory kept the bytes.
        let again = (range as usize + MIB) as *mut c_void;
        ok(vm.map.unwrap()(
            context, again, MIB, physical, MIB, READWRITE,
        ));
        back.fill(0);
        ok(sim.copy(
            owner,
            back.as_mut_ptr() as _,
            again,
            bytes,
            null_mut(),
            &mut [],
        ));
        synchronize(owner);
        assert_eq!(back, host);
        ok(vm.free.unwrap()(context, range, 2 * MIB));
        ok(vm.destroy.unwrap()(context, physical));
    }
    sim.destroy_list(owner);
    sim.destroy_list(peer);
    sim.destroy_context(context);
    // The refused copy is this test's one deliberate violation.
    assert_eq!(sim.counter("residency_violations"), 1);
    assert_eq!(sim.counter("live_virtual_reservations"), 0);
    assert_eq!(sim.counter("live_physical_memory"), 0);
    assert_eq!(sim.host_pinned(), 0);
}

/// One command over adjacent mappings of one reservation, from two devices' physical memory,
/// reaches each (as the GPU's address space has it); a range running past the last mapping,
/// or across a gap, is refused. The page-size query takes a size of 0 as the driver does, and
/// checking mode refuses it as the specification does.
#[test]
fn a_command_reaches_across_adjacent_mappings_of_a_reservation() {
    const PAGE: usize = 64 << 10;
    let checking = Sim::checking("b70x2");
    let checking_context = checking.context(&[0]);
    let mut page = 0;
    // SAFETY: valid handles and output pointer.
    unsafe {
        assert_eq!(
            vm(&checking).page_size.unwrap()(checking_context, checking.devices[0], 0, &mut page),
            ze_result_t::ZE_RESULT_ERROR_UNSUPPORTED_SIZE
        );
    }
    checking.destroy_context(checking_context);

    let sim = Sim::preset("b70x2");
    let vm = vm(&sim);
    let context = sim.context(&[0, 1]);
    let list = sim.immediate_list(context, 0, 0);
    let host = sim.alloc_host(context, 3 * PAGE);
    let synchronize = || {
        // SAFETY: a live list.
        ok(unsafe { vm.synchronize.unwrap()(list, u64::MAX) })
    };
    let fill = |at: *mut c_void, value: u8, size: usize| {
        let pattern = [value];
        // SAFETY: a live list; the simulator checks the range; a one-byte pattern.
        unsafe {
            (sim.api.command_list_append_memory_fill)(
                list,
                at,
                pattern.as_ptr().cast(),
                1,
                size,
                null_mut(),
                0,
                null_mut(),
            )
        }
    };
    // SAFETY (whole block): valid handles and output pointers; every range is checked by the
    // simulator, and the host allocation is read only after the list synchronised.
    unsafe {
        ok(vm.page_size.unwrap()(context, sim.devices[0], 0, &mut page));
        assert_eq!(page, PAGE, "the smallest page, as compute-runtime answers");
        let mut range = null_mut();
        ok(vm.reserve.unwrap()(
            context,
            std::ptr::null(),
            4 * PAGE,
            &mut range,
        ));
        let physical: Vec<_> = [0, 1, 0]
            .into_iter()
            .map(|device| {
                let mut desc = ze_physical_mem_desc_t {
                    stype: ze_structure_type_t::ZE_STRUCTURE_TYPE_PHYSICAL_MEM_DESC,
                    size: PAGE,
                    ..Default::default()
                };
                let mut physical = null_mut();
                ok(vm.create.unwrap()(
                    context,
                    sim.devices[device],
                    &mut desc,
                    &mut physical,
                ));
                physical
            })
            .collect();
        let at = |pages: usize| (range as usize + pages * PAGE) as *mut c_void;
        // Device 0's page, device 1's page after it, a gap, then another of device 0's.
        ok(vm.map.unwrap()(
            context,
            at(0),
            PAGE,
            physical[0],
            0,
            READWRITE,
        ));
        ok(vm.map.unwrap()(
            context,
            at(1),
            PAGE,
            physical[1],
            0,
            READWRITE,
        ));
        ok(fill(at(0), 9, 2 * PAGE));
        ok(sim.copy(list, host, at(0), 2 * PAGE, null_mut(), &mut []));
        synchronize();
        let bytes = std::slice::from_raw_parts(host.cast::<u8>(), 2 * PAGE);
        assert!(
            bytes.iter().all(|&byte| byte == 9),
            "both pages filled and read"
        );
        assert_eq!(
            sim.counter("implicit_imports"),
            1,
            "device 1's page, on device 0"
        );
        // From inside the first mapping into the second.
        ok(fill(at(0).byte_add(PAGE / 2), 7, PAGE));
        ok(sim.copy(list, host, at(0), 2 * PAGE, null_mut(), &mut []));
        synchronize();
        let bytes = std::slice::from_raw_parts(host.cast::<u8>(), 2 * PAGE);
        assert!(bytes[..PAGE / 2].iter().all(|&byte| byte == 9));
        assert!(bytes[PAGE / 2..3 * PAGE / 2].iter().all(|&byte| byte == 7));
        assert!(bytes[3 * PAGE / 2..].iter().all(|&byte| byte == 9));
        assert_eq!(
            fill(at(1), 1, 2 * PAGE),
            ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT,
            "past the last mapping"
        );
        ok(vm.map.unwrap()(
            context,
            at(3),
            PAGE,
            physical[2],
            0,
            READWRITE,
        ));
        assert_eq!(
            fill(at(1), 1, 3 * PAGE),
            ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT,
            "across the unmapped page"
        );
        ok(vm.free.unwrap()(context, range, 4 * PAGE));
        for physical in physical {
            ok(vm.destroy.unwrap()(context, physical));
        }
    }
    sim.free(context, host);
    sim.destroy_list(list);
    sim.destroy_context(context);
    for name in ["residency_violations", "free_hazards", "destroy_hazards"] {
        assert_eq!(sim.counter(name), 0, "{name}");
    }
    sim.assert_clean();
}
