//! Intel's `zex` host-pointer import extension, offered through
//! `zeDriverGetExtensionFunctionAddress` unless the configuration hides it.

use super::{guard, out};
use crate::registry;
use level_zero_sys::extensions::{
    ZEX_DRIVER_GET_HOST_POINTER_BASE_ADDRESS, ZEX_DRIVER_IMPORT_EXTERNAL_POINTER,
    ZEX_DRIVER_RELEASE_IMPORTED_POINTER,
};
use level_zero_sys::*;
use std::ffi::c_void;

pub(crate) fn resolve(name: &str) -> Option<*const c_void> {
    let name = name.as_bytes();
    if name == ZEX_DRIVER_IMPORT_EXTERNAL_POINTER.to_bytes() {
        Some(import_external_pointer as *const c_void)
    } else if name == ZEX_DRIVER_RELEASE_IMPORTED_POINTER.to_bytes() {
        Some(release_imported_pointer as *const c_void)
    } else if name == ZEX_DRIVER_GET_HOST_POINTER_BASE_ADDRESS.to_bytes() {
        Some(get_host_pointer_base_address as *const c_void)
    } else {
        None
    }
}

pub(crate) unsafe extern "C" fn import_external_pointer(
    driver: ze_driver_handle_t,
    pointer: *mut c_void,
    size: usize,
) -> ze_result_t {
    guard(|| {
        let platform = registry::driver(driver as usize)?;
        if pointer.is_null() {
            return Err(ze_result_t::ZE_RESULT_ERROR_INVALID_NULL_POINTER);
        }
        if size == 0 {
            return Err(ze_result_t::ZE_RESULT_ERROR_INVALID_SIZE);
        }
        let start = pointer as usize;
        let end = start
            .checked_add(size)
            .ok_or(ze_result_t::ZE_RESULT_ERROR_INVALID_SIZE)?;
        let mut state = platform.lock();
        let overlaps = state
            .imports
            .range(..end)
            .next_back()
            .is_some_and(|(&base, &length)| base + length > start);
        if overlaps {
            return Err(ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT);
        }
        state.imports.insert(start, size);
        state.counters.live_imports += 1;
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn release_imported_pointer(
    driver: ze_driver_handle_t,
    pointer: *mut c_void,
) -> ze_result_t {
    guard(|| {
        let platform = registry::driver(driver as usize)?;
        let mut state = platform.lock();
        state
            .imports
            .remove(&(pointer as usize))
            .ok_or(ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT)?;
        state.counters.live_imports -= 1;
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn get_host_pointer_base_address(
    driver: ze_driver_handle_t,
    pointer: *mut c_void,
    base_address: *mut *mut c_void,
) -> ze_result_t {
    guard(|| {
        let platform = registry::driver(driver as usize)?;
        // SAFETY: the caller's output pointer.
        let base_address = unsafe { out(base_address) }?;
        let address = pointer as usize;
        let state = platform.lock();
        let base = state
            .imports
            .range(..=address)
            .next_back()
            .filter(|&(&base, &length)| address < base + length)
            .map(|(&base, _)| base)
            .ok_or(ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT)?;
        *base_address = base as *mut c_void;
        Ok(())
    })
}
