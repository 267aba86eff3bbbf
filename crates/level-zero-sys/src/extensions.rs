//! Hand-declared items that the official headers do not carry: Intel's driver-experimental
//! extensions.
//!
//! Everything else comes from [`crate::generated`]. Sources, by item:
//! - `zexDriverImportExternalPointer`, `zexDriverReleaseImportedPointer`,
//!   `zexDriverGetHostPointerBaseAddress`: Intel's compute-runtime,
//!   `level_zero/include/level_zero/driver_experimental/zex_driver.h`; they are reached through
//!   `zeDriverGetExtensionFunctionAddress`, never linked by name.
//! - `zelLoaderGetVersions`: the Level Zero loader's `include/loader/ze_loader.h` declares it as
//!   a function, and bindgen here generates types only, so its pointer type is declared here.

#![allow(non_camel_case_types)]

use crate::generated::{ze_driver_handle_t, ze_result_t, zel_component_version_t};
use std::ffi::c_void;

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

/// `zelLoaderGetVersions(num_elems, versions)`: the loader's components (`loader`, and each
/// layer it loaded) with their versions; with `versions` null, only their count.
pub type zel_pfnLoaderGetVersions_t = Option<
    unsafe extern "C" fn(
        num_elems: *mut usize,
        versions: *mut zel_component_version_t,
    ) -> ze_result_t,
>;
