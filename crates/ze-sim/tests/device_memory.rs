//! Device memory's host backing: more live allocations than the process may have mappings,
//! and a freed range that comes back to a later allocation reads as zero, shared or not.

use crate::common::{Sim, ok};
use level_zero_sys::*;
use std::ptr::null_mut;

#[test]
fn live_allocations_do_not_take_a_host_mapping_each() {
    // A third of the host's usual limit of 65,530 mappings: mapped one by one they would take
    // that many, carved they take a few (40 GiB of address space reserved, none committed).
    let count = 20_000;
    let sim = Sim::preset("b70x2");
    let context = sim.context(&[0, 1]);
    let pointers: Vec<_> = (0..count)
        .map(|index| {
            // Aligned to 2 MiB: mapped one by one, no two would be adjacent, so none would merge.
            sim.try_alloc_device_aligned(context, (index % 2) as u32, 256 + index % 700, 2 << 20)
                .unwrap_or_else(|error| panic!("allocation {index} of {count} failed: {error:?}"))
        })
        .collect();
    let maps = std::fs::read_to_string("/proc/self/maps").map_or(0, |maps| maps.lines().count());
    assert!(maps < count / 10, "{maps} mappings for {count} allocations");
    // The host can still map memory of its own.
    let after = vec![1u8; 4 << 20];
    assert_eq!(
        after.iter().map(|&byte| byte as usize).sum::<usize>(),
        4 << 20
    );
    for pointer in pointers {
        sim.free(context, pointer);
    }
}

/// Writes `bytes` into device allocation `pointer` and reads `len` bytes back.
fn write_then_read(
    sim: &Sim,
    list: ze_command_list_handle_t,
    pointer: *mut std::ffi::c_void,
    bytes: Option<&[u8]>,
    len: usize,
) -> Vec<u8> {
    // SAFETY: the names with their headers' types; a live list and allocations of `len` bytes.
    unsafe {
        let synchronize = sim
            .function::<ze_pfnCommandListHostSynchronize_t>("zeCommandListHostSynchronize")
            .unwrap();
        if let Some(bytes) = bytes {
            ok(sim.copy(
                list,
                pointer,
                bytes.as_ptr() as _,
                bytes.len(),
                null_mut(),
                &mut [],
            ));
        }
        let mut back = vec![0xAAu8; len];
        ok(sim.copy(
            list,
            back.as_mut_ptr() as _,
            pointer,
            len,
            null_mut(),
            &mut [],
        ));
        ok(synchronize(list, u64::MAX));
        back
    }
}

#[test]
fn a_reused_range_reads_as_zero_after_private_or_shared_use() {
    let sim = Sim::preset("b70x2");
    let context = sim.context(&[0, 1]);
    let list = sim.immediate_list(context, 0, 1);
    let len = 3 * 4096;
    let written = vec![0x5Au8; len];
    for export in [false, true] {
        let first = sim.alloc_device(context, 0, len);
        assert_eq!(
            write_then_read(&sim, list, first, Some(&written), len),
            written
        );
        if export {
            // SAFETY: the name with its header's type; a live allocation and a valid output.
            unsafe {
                let get = sim
                    .function::<ze_pfnMemGetIpcHandle_t>("zeMemGetIpcHandle")
                    .unwrap();
                let mut handle = ze_ipc_mem_handle_t::default();
                ok(get(context, first, &mut handle));
            }
        }
        sim.free(context, first);
        let second = sim.alloc_device(context, 0, len);
        assert_eq!(
            second, first,
            "the freed range is reused (export: {export})"
        );
        assert!(
            write_then_read(&sim, list, second, None, len)
                .iter()
                .all(|&byte| byte == 0),
            "a reused range reads as zero (export: {export})"
        );
        sim.free(context, second);
    }
}

#[test]
fn a_copy_whose_host_range_wraps_around_is_refused() {
    let sim = Sim::preset("b70x2");
    let context = sim.context(&[0, 1]);
    let list = sim.immediate_list(context, 0, 1);
    let device = sim.alloc_device(context, 0, 4096);
    let wrapping = (usize::MAX - 100) as *const std::ffi::c_void;
    assert_eq!(
        sim.copy(list, device, wrapping, 4096, null_mut(), &mut []),
        ze_result_t::ZE_RESULT_ERROR_INVALID_SIZE
    );
    sim.free(context, device);
}
