//! The loader-facing DDI getters write only the fields that exist at the requested version.

use level_zero_sys::*;
use std::ffi::c_void;
use ze_sim::ddi;

const SENTINEL: usize = 0xdead_beef;

#[test]
fn a_1_0_driver_table_gets_its_five_fields_and_no_more() {
    // The 1.4 table has six fields; 1.0 had five (pfnGetExtensionFunctionAddress came in 1.1).
    let mut table = [SENTINEL; 6];
    // SAFETY: a buffer at least as large as the 1.0 table.
    let result = unsafe {
        ddi::zeGetDriverProcAddrTable(
            ze_api_version_t::ZE_API_VERSION_1_0,
            table.as_mut_ptr() as *mut ze_driver_dditable_t,
        )
    };
    assert_eq!(result, ze_result_t::ZE_RESULT_SUCCESS);
    assert!(
        table[..5]
            .iter()
            .all(|&field| field != SENTINEL && field != 0)
    );
    assert_eq!(
        table[5], SENTINEL,
        "a 1.0 loader's table has no sixth field"
    );
}

#[test]
fn global_table_gains_init_drivers_only_from_1_10() {
    let mut table = [SENTINEL; 2];
    // SAFETY: a buffer as large as the 1.10 global table.
    unsafe {
        ddi::zeGetGlobalProcAddrTable(
            ze_api_version_t::ZE_API_VERSION_1_4,
            table.as_mut_ptr() as *mut ze_global_dditable_t,
        );
    }
    assert_ne!(table[0], SENTINEL);
    assert_eq!(table[1], SENTINEL);
    let version_1_10 = ze_api_version_t(ze_make_version(1, 10));
    // SAFETY: as above.
    unsafe {
        ddi::zeGetGlobalProcAddrTable(
            version_1_10,
            table.as_mut_ptr() as *mut ze_global_dditable_t,
        );
    }
    assert_ne!(table[1], SENTINEL);
}

#[test]
fn unknown_major_versions_and_null_tables_are_refused() {
    let mut table = ze_mem_dditable_t::default();
    // SAFETY: a valid table, or null.
    unsafe {
        assert_eq!(
            ddi::zeGetMemProcAddrTable(ze_api_version_t(ze_make_version(2, 0)), &mut table),
            ze_result_t::ZE_RESULT_ERROR_UNSUPPORTED_VERSION
        );
        assert_eq!(
            ddi::zeGetMemProcAddrTable(ze_api_version_t::ZE_API_VERSION_1_4, std::ptr::null_mut()),
            ze_result_t::ZE_RESULT_ERROR_INVALID_NULL_POINTER
        );
        assert_eq!(
            ddi::zetGetDeviceProcAddrTable(
                ze_api_version_t::ZE_API_VERSION_1_4,
                std::ptr::null_mut::<c_void>()
            ),
            ze_result_t::ZE_RESULT_ERROR_INVALID_NULL_POINTER
        );
    }
    assert!(
        table.pfnAllocDevice.is_none(),
        "a refused request writes nothing"
    );
}

#[test]
fn each_loader_version_gets_exactly_its_own_fields() {
    // The memory table has 10 fields at spec 1.4, 12 at 1.9 (zeMemPutIpcHandle and
    // zeMemGetPitchFor2dImage) and 13 at 1.17 (zeMemGetIpcHandleWithProperties), per the ze_ddi.h
    // of loaders v1.8.12, v1.17.45 and v1.32.0. A loader newer than the simulator knows gets the
    // 1.17 part.
    for (minor, fields) in [(4, 10), (9, 12), (17, 13), (30, 13)] {
        let mut table = [SENTINEL; 32];
        // SAFETY: a buffer larger than any memory table the simulator writes.
        let result = unsafe {
            ddi::zeGetMemProcAddrTable(
                ze_api_version_t(ze_make_version(1, minor)),
                table.as_mut_ptr() as *mut ze_mem_dditable_t,
            )
        };
        assert_eq!(result, ze_result_t::ZE_RESULT_SUCCESS);
        assert_eq!(
            table[fields], SENTINEL,
            "1.{minor}: nothing past field {fields}"
        );
        assert!(
            table[..fields].iter().all(|&field| field != SENTINEL),
            "1.{minor}"
        );
    }
}

#[test]
fn in_process_resolution_hands_out_exactly_what_the_loader_tables_hold() {
    let platform = ze_sim::Platform::preset("b70x2").unwrap();
    let mut table = ze_command_list_dditable_t::default();
    // SAFETY: a whole table at this crate's version.
    let result = unsafe {
        ddi::zeGetCommandListProcAddrTable(ze_api_version_t::ZE_API_VERSION_CURRENT, &mut table)
    };
    assert_eq!(result, ze_result_t::ZE_RESULT_SUCCESS);
    // The appends added with the shim's residency work, once only in the tables.
    for (name, field) in [
        (
            "zeCommandListAppendWriteGlobalTimestamp",
            table
                .pfnAppendWriteGlobalTimestamp
                .map(|f| f as *const c_void),
        ),
        (
            "zeCommandListAppendQueryKernelTimestamps",
            table
                .pfnAppendQueryKernelTimestamps
                .map(|f| f as *const c_void),
        ),
        (
            "zeCommandListAppendMemoryCopyFromContext",
            table
                .pfnAppendMemoryCopyFromContext
                .map(|f| f as *const c_void),
        ),
        (
            "zeCommandListAppendMemoryCopy",
            table.pfnAppendMemoryCopy.map(|f| f as *const c_void),
        ),
    ] {
        assert!(field.is_some(), "{name} is in the table");
        assert_eq!(
            platform.resolve(name),
            field,
            "{name} resolves to the table's entry"
        );
    }
    // A field the table leaves empty resolves to nothing.
    assert!(table.pfnAppendSignalExternalSemaphoreExt.is_none());
    assert_eq!(
        platform.resolve("zeCommandListAppendSignalExternalSemaphoreExt"),
        None
    );
}

/// One loader release inserted `pfnGetCardPowerDomain` into the middle of the Sysman device
/// table (before `pfnEnumPsus`): a loader of an older version gets only the fields that sit
/// where its headers put them, never a function in another's slot.
#[test]
fn an_old_sysman_device_table_gets_only_the_fields_that_never_moved() {
    let fields = size_of::<zes_device_dditable_t>() / size_of::<usize>();
    let mut table = vec![SENTINEL; fields];
    // SAFETY: a buffer as large as the newest table.
    let result = unsafe {
        ddi::zesGetDeviceProcAddrTable(
            ze_api_version_t::ZE_API_VERSION_1_0,
            table.as_mut_ptr() as *mut zes_device_dditable_t,
        )
    };
    assert_eq!(result, ze_result_t::ZE_RESULT_SUCCESS);
    // pfnEnumMemoryModules (16) and pfnEnumPowerDomains (18) are where every release has them.
    assert!(table[16] != SENTINEL && table[18] != SENTINEL);
    assert!(
        table[19..].iter().all(|&field| field == SENTINEL),
        "the 1.0 table's 20th field is pfnEnumPsus, not pfnGetCardPowerDomain: {:x?}",
        &table[19..]
    );
    let mut table = vec![SENTINEL; fields];
    // SAFETY: as above.
    unsafe {
        ddi::zesGetDeviceProcAddrTable(
            ze_api_version_t::ZE_API_VERSION_1_15,
            table.as_mut_ptr() as *mut zes_device_dditable_t,
        );
    }
    // pfnEnumTemperatureSensors (24) and pfnGet (29) exist at 1.15.
    assert!(table[24] != SENTINEL && table[24] != 0);
    assert!(table[29] != SENTINEL && table[29] != 0);
}

/// The command-list exp table began with other functions in one 1.11 loader (v1.18.0): at 1.11
/// nothing is written; at 1.9 the clone and append functions are, in the first two fields, and
/// nothing past that version's six.
#[test]
fn the_command_list_exp_table_is_left_alone_at_1_11() {
    let fields = size_of::<ze_command_list_exp_dditable_t>() / size_of::<usize>();
    for (minor, written) in [(11, false), (9, true), (17, true)] {
        let mut table = vec![SENTINEL; fields];
        // SAFETY: a buffer as large as the newest table.
        let result = unsafe {
            ddi::zeGetCommandListExpProcAddrTable(
                ze_api_version_t(ze_make_version(1, minor)),
                table.as_mut_ptr() as *mut ze_command_list_exp_dditable_t,
            )
        };
        assert_eq!(result, ze_result_t::ZE_RESULT_SUCCESS);
        let first_two =
            table[0] != SENTINEL && table[0] != 0 && table[1] != SENTINEL && table[1] != 0;
        assert_eq!(first_two, written, "1.{minor}: {table:x?}");
        if !written {
            assert!(table.iter().all(|&field| field == SENTINEL), "1.{minor}");
        }
        if minor == 9 {
            // A 1.9 loader's table has six fields: nothing past them.
            assert!(
                table[6..].iter().all(|&field| field == SENTINEL),
                "{table:x?}"
            );
        }
    }
}
