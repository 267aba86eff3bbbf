//! The loader's own entry points, forwarded to the real loader (Intel's runtime calls them on
//! the library it loaded, the shim). Left out, as the runtime does without them:
//! `zelLoaderTracingLayerInit`, `zelLoaderZerTracingLayerInit`, `zelLoaderGetContext`,
//! `zelRegisterTeardownCallback`, `zelLoaderDriverCheck`.

use crate::real::Real;
use level_zero_sys::*;
use std::ffi::c_void;

/// Exports `name(args) -> ret`, forwarded to the real loader's function of that name, or
/// answering `missing` if it has none.
macro_rules! forward {
    ($(fn $name:ident($($arg:ident: $ty:ty),*) -> $ret:ty = $missing:expr;)*) => {
        $(
            /// Forwarded to the real loader.
            ///
            /// # Safety
            /// The caller passes what the loader requires of this function.
            #[unsafe(no_mangle)]
            pub unsafe extern "C" fn $name($($arg: $ty),*) -> $ret {
                static REAL: Real = Real::new(
                    match std::ffi::CStr::from_bytes_with_nul(concat!(stringify!($name), "\0").as_bytes()) {
                        Ok(name) => name,
                        Err(_) => panic!("a NUL-free name"),
                    },
                );
                // SAFETY: the real loader's function of this name has this signature.
                match unsafe { REAL.get::<unsafe extern "C" fn($($ty),*) -> $ret>() } {
                    // SAFETY: the caller's arguments, passed on unchanged.
                    Some(function) => unsafe { function($($arg),*) },
                    None => $missing,
                }
            }
        )*
    };
}

const UNSUPPORTED: ze_result_t = ze_result_t::ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;

forward! {
    fn zeLoaderInit() -> ze_result_t = UNSUPPORTED;
    fn zelLoaderGetVersionsInternal(count: *mut usize, versions: *mut zel_component_version_t) -> ze_result_t = UNSUPPORTED;
    fn zelLoaderGetVersions(count: *mut usize, versions: *mut zel_component_version_t) -> ze_result_t = UNSUPPORTED;
    fn zelLoaderGetVersion(version: *mut zel_component_version_t) -> ze_result_t = UNSUPPORTED;
    fn zelGetLoaderVersion(version: *mut zel_component_version_t) -> ze_result_t = UNSUPPORTED;
    fn zeLoaderGetTracingHandle() -> *mut c_void = std::ptr::null_mut();
    fn zelLoaderTranslateHandleInternal(kind: zel_handle_type_t, handle: *mut c_void, out: *mut *mut c_void) -> ze_result_t = UNSUPPORTED;
    fn zelLoaderTranslateHandle(kind: zel_handle_type_t, handle: *mut c_void, out: *mut *mut c_void) -> ze_result_t = UNSUPPORTED;
    fn zelEnableTracingLayer() -> ze_result_t = UNSUPPORTED;
    fn zelDisableTracingLayer() -> ze_result_t = UNSUPPORTED;
    fn zelGetTracingLayerState(enabled: *mut bool) -> ze_result_t = UNSUPPORTED;
    fn zelSetDriverTeardown() -> ze_result_t = ze_result_t::ZE_RESULT_SUCCESS;
    fn zelCheckIsLoaderInTearDown() -> bool = false;
}

/// `zelSetDelayLoaderContextTeardown`, forwarded (nothing to do without a real loader).
#[unsafe(no_mangle)]
pub extern "C" fn zelSetDelayLoaderContextTeardown() {
    static REAL: Real = Real::new(c"zelSetDelayLoaderContextTeardown");
    // SAFETY: the real loader's function of this name takes and returns nothing.
    if let Some(function) = unsafe { REAL.get::<unsafe extern "C" fn()>() } {
        // SAFETY: no arguments.
        unsafe { function() }
    }
}

/// `zelLoaderContextTeardown`, forwarded (nothing to do without a real loader).
#[unsafe(no_mangle)]
pub extern "C" fn zelLoaderContextTeardown() {
    static REAL: Real = Real::new(c"zelLoaderContextTeardown");
    // SAFETY: the real loader's function of this name takes and returns nothing.
    if let Some(function) = unsafe { REAL.get::<unsafe extern "C" fn()>() } {
        // SAFETY: no arguments.
        unsafe { function() }
    }
}
