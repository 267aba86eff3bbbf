//! Ways to the intercepted functions other than their names: the tables the loader's getters
//! fill (an older static front end of Intel's runtime uses them as they are) and
//! `zeDriverGetExtensionFunctionAddress`. Which entries are patched is generated.

use crate::real::Real;
use level_zero_sys::*;
use std::ffi::{CStr, c_char, c_void};

const SUCCESS: ze_result_t = ze_result_t::ZE_RESULT_SUCCESS;

/// Exports getter `$name` of `$table`: the real loader's table, with the shim's functions over
/// the intercepted entries that exist at the caller's version (those the real getter fills),
/// where the headers' layout holds at that version (`$holds`, of its minor version).
macro_rules! wrapped_getter {
    ($name:ident, $table:ty, |$minor:ident| $holds:expr, [$($field:ident => $function:ident),* $(,)?]) => {
        /// The real loader's table, with the shim's intercepted functions in it.
        ///
        /// # Safety
        /// `table` must be null or the caller's table of the layout `version` gives.
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn $name(version: ze_api_version_t, table: *mut $table) -> ze_result_t {
            type Getter = unsafe extern "C" fn(ze_api_version_t, *mut $table) -> ze_result_t;
            static REAL: $crate::real::Real = $crate::real::Real::new(
                match ::std::ffi::CStr::from_bytes_with_nul(concat!(stringify!($name), "\0").as_bytes()) {
                    Ok(name) => name,
                    Err(_) => panic!("a NUL-free name"),
                },
            );
            // SAFETY: the real loader's getter of this name has this signature.
            let Some(getter) = (unsafe { REAL.get::<Getter>() }) else {
                return ze_result_t::ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
            };
            // SAFETY: the caller's arguments, passed on.
            let result = unsafe { getter(version, table) };
            if result != ::level_zero_sys::ze_result_t::ZE_RESULT_SUCCESS || table.is_null() {
                return result;
            }
            // Where the headers' layout does not hold at `version`, nothing is patched.
            #[allow(unused_variables)]
            let $minor = ::level_zero_sys::ze_minor_version(version.0);
            if !($holds) {
                return result;
            }
            // Which entries exist at `version`: those the real getter fills in a whole table.
            let mut probe = <$table>::default();
            // SAFETY: a whole table, larger than any version's.
            if unsafe { getter(version, &mut probe) } != ::level_zero_sys::ze_result_t::ZE_RESULT_SUCCESS {
                return result;
            }
            $(
                if probe.$field.is_some() {
                    // SAFETY: the entry exists at `version`, so it lies inside the caller's table.
                    unsafe { std::ptr::addr_of_mut!((*table).$field).write(Some($function)) };
                }
            )*
            result
        }
    };
}

// Which entries of which tables, and every intercepted function by name: generated with the
// forwarders, so each intercepted function is patched into its table (scripts/generate-forwarders.py).
#[rustfmt::skip]
#[path = "generated/intercepted_tables.rs"]
mod intercepted_tables;
use intercepted_tables::intercepted;

/// Forwarded; for a name the shim intercepts, the shim's own function is handed back (which
/// calls on to the driver's where the real loader does not export the name).
///
/// # Safety
/// As the specification requires of `zeDriverGetExtensionFunctionAddress`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zeDriverGetExtensionFunctionAddress(
    driver: ze_driver_handle_t,
    name: *const c_char,
    function: *mut *mut c_void,
) -> ze_result_t {
    type Get =
        unsafe extern "C" fn(ze_driver_handle_t, *const c_char, *mut *mut c_void) -> ze_result_t;
    static REAL: Real = Real::new(c"zeDriverGetExtensionFunctionAddress");
    // SAFETY: the real loader's function of this name has this signature.
    let Some(get) = (unsafe { REAL.get::<Get>() }) else {
        return ze_result_t::ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
    };
    // SAFETY: the caller's arguments, passed on.
    let result = unsafe { get(driver, name, function) };
    if result == SUCCESS && !name.is_null() && !function.is_null() {
        // SAFETY: the caller's NUL-terminated name.
        let bytes = unsafe { CStr::from_ptr(name) }.to_bytes();
        if let Some(ours) = intercepted(bytes) {
            // SAFETY: the caller's output, which the real call just wrote.
            let theirs = unsafe { function.read() };
            // Ours calls on to theirs where the real loader does not export the name.
            crate::real::record_extension(bytes, theirs as usize);
            // SAFETY: as above.
            unsafe { function.write(ours) };
        }
    }
    result
}
