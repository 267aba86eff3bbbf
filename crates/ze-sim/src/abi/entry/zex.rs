//! Intel's `zex` host-pointer import extension, offered through
//! `zeDriverGetExtensionFunctionAddress` unless the configuration hides it.

use super::{guard, out};
use crate::abi::registry;
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

/// The import containing `address`, by its base: the one of greatest base at or below it, as
/// compute-runtime's host pointer manager finds one (an ordered map searched from below).
fn import_containing(
    imports: &std::collections::BTreeMap<usize, usize>,
    address: usize,
) -> Option<usize> {
    imports
        .range(..=address)
        .next_back()
        .filter(|&(&base, &length)| address - base < length)
        .map(|(&base, _)| base)
}

/// As compute-runtime's `HostPointerManager::createHostPointerMultiAllocation` answers (read in
/// its source, `level_zero/core/source/driver/host_pointer_manager.cpp`): any alignment is taken
/// (its DRM memory manager maps the whole pages around the range); a range inside one import
/// succeeds without a new one (counted as `nested_imports`); a range whose first byte lies in
/// an import is refused as in use, whose last byte alone lies in one as a bad size, whose ends
/// lie in two as overlapping; a range covering an import with neither end in it is imported.
pub(crate) unsafe extern "C" fn import_external_pointer(
    driver: ze_driver_handle_t,
    pointer: *mut c_void,
    size: usize,
) -> ze_result_t {
    guard(|| {
        let platform = registry::driver(driver as usize)?;
        if pointer.is_null() || size == 0 {
            return Err(ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT);
        }
        let start = pointer as usize;
        let last = start
            .checked_add(size - 1)
            .ok_or(ze_result_t::ZE_RESULT_ERROR_INVALID_SIZE)?;
        let mut state = platform.lock();
        let first_in = import_containing(&state.memory.imports, start);
        let last_in = import_containing(&state.memory.imports, last);
        match (first_in, last_in) {
            (Some(first), Some(last)) if first == last => {
                state.counters.nested_imports += 1;
                return Ok(());
            }
            (Some(_), Some(_)) => return Err(ze_result_t::ZE_RESULT_ERROR_OVERLAPPING_REGIONS),
            (Some(_), None) => return Err(ze_result_t::ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE),
            (None, Some(_)) => return Err(ze_result_t::ZE_RESULT_ERROR_INVALID_SIZE),
            (None, None) => {}
        }
        state.memory.imports.insert(start, size);
        state.counters.live_imports += 1;
        Ok(())
    })
}

/// Releases the import containing `pointer`, wherever in it `pointer` lies (compute-runtime's
/// `freeHostPointerAllocation` finds it as an import finds one).
pub(crate) unsafe extern "C" fn release_imported_pointer(
    driver: ze_driver_handle_t,
    pointer: *mut c_void,
) -> ze_result_t {
    guard(|| {
        let platform = registry::driver(driver as usize)?;
        let mut state = platform.lock();
        let base = import_containing(&state.memory.imports, pointer as usize)
            .ok_or(ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT)?;
        state.memory.imports.remove(&base);
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
        let base = import_containing(&state.memory.imports, address)
            .ok_or(ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT)?;
        *base_address = base as *mut c_void;
        Ok(())
    })
}
