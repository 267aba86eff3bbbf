//! The loader's own entry points, which Intel's runtime (the loader's static front end linked
//! into its Level Zero adapters) looks up by name in the library it loaded.
//!
//! Left out on purpose, because the front end checks for them and does without:
//! `zelLoaderTracingLayerInit`, `zelLoaderZerTracingLayerInit`, `zelLoaderGetContext`,
//! `zelRegisterTeardownCallback` and `zelLoaderDriverCheck`.

use crate::generated::api_exports::{
    zelTracerCreate, zelTracerDestroy, zelTracerSetEnabled, zelTracerSetEpilogues,
    zelTracerSetPrologues,
};
use level_zero_sys::*;
use std::ffi::c_void;

/// The loader this stand-in answers as: the one whose headers the bindings are generated from
/// (Level Zero loader v1.32.0). Intel's front end takes the `zeInitDrivers` path from v1.18 on.
const LOADER_VERSION: zel_version_t = zel_version_t {
    major: 1,
    minor: 32,
    patch: 0,
};

fn loader_component() -> zel_component_version_t {
    let mut component = zel_component_version_t {
        component_name: [0; 64],
        spec_version: ze_api_version_t::ZE_API_VERSION_CURRENT,
        component_lib_version: LOADER_VERSION,
    };
    for (slot, byte) in component.component_name.iter_mut().zip(b"loader") {
        *slot = *byte as std::ffi::c_char;
    }
    component
}

/// `zeLoaderInit`: the stand-in needs no initialisation of its own.
#[unsafe(no_mangle)]
pub extern "C" fn zeLoaderInit() -> ze_result_t {
    ze_result_t::ZE_RESULT_SUCCESS
}

/// `zelLoaderGetVersionsInternal`: one component, named "loader".
///
/// # Safety
/// `count` must be null or valid; `versions` null or valid for `*count` elements.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zelLoaderGetVersionsInternal(
    count: *mut usize,
    versions: *mut zel_component_version_t,
) -> ze_result_t {
    if count.is_null() {
        return ze_result_t::ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    }
    // SAFETY: checked non-null; the caller's count.
    let capacity = unsafe { *count };
    if !versions.is_null() {
        if capacity < 1 {
            return ze_result_t::ZE_RESULT_ERROR_INVALID_SIZE;
        }
        // SAFETY: the caller's array holds at least one element.
        unsafe { versions.write(loader_component()) };
    }
    // SAFETY: checked non-null.
    unsafe { count.write(1) };
    ze_result_t::ZE_RESULT_SUCCESS
}

/// `zelLoaderGetVersions`: as [`zelLoaderGetVersionsInternal`].
///
/// # Safety
/// As [`zelLoaderGetVersionsInternal`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zelLoaderGetVersions(
    count: *mut usize,
    versions: *mut zel_component_version_t,
) -> ze_result_t {
    // SAFETY: the caller's pointers, passed on.
    unsafe { zelLoaderGetVersionsInternal(count, versions) }
}

/// `zelLoaderGetVersion`: the loader component.
///
/// # Safety
/// `version` must be null or valid for a write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zelLoaderGetVersion(version: *mut zel_component_version_t) -> ze_result_t {
    if version.is_null() {
        return ze_result_t::ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    }
    // SAFETY: checked non-null; the caller's struct.
    unsafe { version.write(loader_component()) };
    ze_result_t::ZE_RESULT_SUCCESS
}

/// `zelGetLoaderVersion`: as [`zelLoaderGetVersion`].
///
/// # Safety
/// As [`zelLoaderGetVersion`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zelGetLoaderVersion(version: *mut zel_component_version_t) -> ze_result_t {
    // SAFETY: the caller's pointer, passed on.
    unsafe { zelLoaderGetVersion(version) }
}

/// `zeLoaderGetTracingHandle`: no tracing layer (the front end accepts null).
#[unsafe(no_mangle)]
pub extern "C" fn zeLoaderGetTracingHandle() -> *mut c_void {
    std::ptr::null_mut()
}

/// `zelLoaderTranslateHandleInternal`: the simulator's handles are the driver's own, so a handle
/// translates to itself.
///
/// # Safety
/// `handle_out` must be null or valid for a write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zelLoaderTranslateHandleInternal(
    _handle_type: zel_handle_type_t,
    handle_in: *mut c_void,
    handle_out: *mut *mut c_void,
) -> ze_result_t {
    if handle_out.is_null() {
        return ze_result_t::ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    }
    // SAFETY: checked non-null.
    unsafe { handle_out.write(handle_in) };
    ze_result_t::ZE_RESULT_SUCCESS
}

/// `zelLoaderTranslateHandle`: as [`zelLoaderTranslateHandleInternal`].
///
/// # Safety
/// As [`zelLoaderTranslateHandleInternal`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zelLoaderTranslateHandle(
    handle_type: zel_handle_type_t,
    handle_in: *mut c_void,
    handle_out: *mut *mut c_void,
) -> ze_result_t {
    // SAFETY: the caller's pointers, passed on.
    unsafe { zelLoaderTranslateHandleInternal(handle_type, handle_in, handle_out) }
}

/// `zelGetTracerApiProcAddrTable`: the tracer functions (each answering as the loader without its
/// tracing layer does). The table has had these five fields in every loader release that has it.
///
/// # Safety
/// `table` must be null or the caller's `zel_tracer_dditable_t`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zelGetTracerApiProcAddrTable(
    version: ze_api_version_t,
    table: *mut zel_tracer_dditable_t,
) -> ze_result_t {
    let result = crate::forward::acknowledge(version, table.is_null());
    if result == ze_result_t::ZE_RESULT_SUCCESS {
        let full = zel_tracer_dditable_t {
            pfnCreate: Some(zelTracerCreate),
            pfnDestroy: Some(zelTracerDestroy),
            pfnSetPrologues: Some(zelTracerSetPrologues),
            pfnSetEpilogues: Some(zelTracerSetEpilogues),
            pfnSetEnabled: Some(zelTracerSetEnabled),
        };
        // SAFETY: checked non-null; the caller's table of this layout.
        unsafe { table.write(full) };
    }
    result
}

/// `zelEnableTracingLayer`: there is no tracing layer.
#[unsafe(no_mangle)]
pub extern "C" fn zelEnableTracingLayer() -> ze_result_t {
    ze_result_t::ZE_RESULT_ERROR_UNSUPPORTED_FEATURE
}

/// `zelDisableTracingLayer`: there is no tracing layer.
#[unsafe(no_mangle)]
pub extern "C" fn zelDisableTracingLayer() -> ze_result_t {
    ze_result_t::ZE_RESULT_ERROR_UNSUPPORTED_FEATURE
}

/// `zelGetTracingLayerState`: never enabled.
///
/// # Safety
/// `enabled` must be null or valid for a write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zelGetTracingLayerState(enabled: *mut bool) -> ze_result_t {
    if enabled.is_null() {
        return ze_result_t::ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    }
    // SAFETY: checked non-null.
    unsafe { enabled.write(false) };
    ze_result_t::ZE_RESULT_SUCCESS
}

/// `zelSetDriverTeardown`: nothing to tear down ahead of the process.
#[unsafe(no_mangle)]
pub extern "C" fn zelSetDriverTeardown() -> ze_result_t {
    ze_result_t::ZE_RESULT_SUCCESS
}

/// `zelSetDelayLoaderContextTeardown`: the simulator's platform lives until the process ends.
#[unsafe(no_mangle)]
pub extern "C" fn zelSetDelayLoaderContextTeardown() {}

/// `zelLoaderContextTeardown`: as [`zelSetDelayLoaderContextTeardown`].
#[unsafe(no_mangle)]
pub extern "C" fn zelLoaderContextTeardown() {}

/// `zelCheckIsLoaderInTearDown`: never (the platform is never torn down before exit).
#[unsafe(no_mangle)]
pub extern "C" fn zelCheckIsLoaderInTearDown() -> bool {
    false
}
