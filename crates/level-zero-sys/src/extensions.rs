//! Hand-declared items that are newer than the spec 1.4 headers the bindings are generated from.
//!
//! Everything else comes from [`crate::generated`]. Sources, by item:
//! - `zeInitDrivers` and `ze_init_driver_type_desc_t`: Level Zero specification 1.10,
//!   `ze_api.h` / `ze_ddi.h` of the oneAPI Level Zero loader (`ZE_API_VERSION_1_10` and later).
//! - `zexDriverImportExternalPointer`, `zexDriverReleaseImportedPointer`,
//!   `zexDriverGetHostPointerBaseAddress`: Intel's compute-runtime,
//!   `level_zero/include/level_zero/driver_experimental/zex_driver.h`; they are reached through
//!   `zeDriverGetExtensionFunctionAddress`, never linked by name.

#![allow(non_camel_case_types)]

use crate::generated::{ze_driver_handle_t, ze_result_t, ze_structure_type_t};
use std::ffi::c_void;

/// `ZE_STRUCTURE_TYPE_INIT_DRIVER_TYPE_DESC` (spec 1.10).
pub const ZE_STRUCTURE_TYPE_INIT_DRIVER_TYPE_DESC: ze_structure_type_t =
    ze_structure_type_t(0x0002_0021);

/// `ze_init_driver_type_flags_t` (spec 1.10).
pub type ze_init_driver_type_flags_t = u32;
/// `ZE_INIT_DRIVER_TYPE_FLAG_GPU`: initialise and return GPU drivers.
pub const ZE_INIT_DRIVER_TYPE_FLAG_GPU: ze_init_driver_type_flags_t = 1 << 0;
/// `ZE_INIT_DRIVER_TYPE_FLAG_NPU`: initialise and return NPU drivers.
pub const ZE_INIT_DRIVER_TYPE_FLAG_NPU: ze_init_driver_type_flags_t = 1 << 1;

/// `ze_init_driver_type_desc_t` (spec 1.10): which kinds of driver `zeInitDrivers` returns.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
#[allow(non_snake_case)]
pub struct ze_init_driver_type_desc_t {
    /// Must be [`ZE_STRUCTURE_TYPE_INIT_DRIVER_TYPE_DESC`].
    pub stype: ze_structure_type_t,
    /// Extension chain, or null.
    pub pNext: *const c_void,
    /// A combination of `ZE_INIT_DRIVER_TYPE_FLAG_*`, or `u32::MAX` for every kind.
    pub flags: ze_init_driver_type_flags_t,
}

impl Default for ze_init_driver_type_desc_t {
    fn default() -> Self {
        Self {
            stype: ZE_STRUCTURE_TYPE_INIT_DRIVER_TYPE_DESC,
            pNext: std::ptr::null(),
            flags: ZE_INIT_DRIVER_TYPE_FLAG_GPU,
        }
    }
}

/// `zeInitDrivers` (spec 1.10): initialise and enumerate drivers in one call.
pub type ze_pfnInitDrivers_t = Option<
    unsafe extern "C" fn(
        count: *mut u32,
        drivers: *mut ze_driver_handle_t,
        desc: *mut ze_init_driver_type_desc_t,
    ) -> ze_result_t,
>;

/// Name of Intel's host-pointer import extension functions, for
/// `zeDriverGetExtensionFunctionAddress`.
pub const ZEX_DRIVER_IMPORT_EXTERNAL_POINTER: &std::ffi::CStr = c"zexDriverImportExternalPointer";
/// See [`ZEX_DRIVER_IMPORT_EXTERNAL_POINTER`].
pub const ZEX_DRIVER_RELEASE_IMPORTED_POINTER: &std::ffi::CStr = c"zexDriverReleaseImportedPointer";
/// See [`ZEX_DRIVER_IMPORT_EXTERNAL_POINTER`].
pub const ZEX_DRIVER_GET_HOST_POINTER_BASE_ADDRESS: &std::ffi::CStr =
    c"zexDriverGetHostPointerBaseAddress";

/// `zexDriverImportExternalPointer(hDriver, ptr, size)`: registers a caller-owned host range
/// with the driver so that copies from it take the direct DMA path.
pub type zex_pfnDriverImportExternalPointer_t =
    unsafe extern "C" fn(driver: ze_driver_handle_t, ptr: *mut c_void, size: usize) -> ze_result_t;

/// `zexDriverReleaseImportedPointer(hDriver, ptr)`: undoes an import.
pub type zex_pfnDriverReleaseImportedPointer_t =
    unsafe extern "C" fn(driver: ze_driver_handle_t, ptr: *mut c_void) -> ze_result_t;

/// `zexDriverGetHostPointerBaseAddress(hDriver, ptr, baseAddress)`: the start of the imported
/// range containing `ptr`.
pub type zex_pfnDriverGetHostPointerBaseAddress_t = unsafe extern "C" fn(
    driver: ze_driver_handle_t,
    ptr: *mut c_void,
    base_address: *mut *mut c_void,
) -> ze_result_t;
