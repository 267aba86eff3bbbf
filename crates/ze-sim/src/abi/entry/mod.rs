//! The Level Zero entry points: `extern "C"` functions that find their platform through the
//! handle they are given.

pub(crate) mod command;
pub(crate) mod context;
pub(crate) mod device;
pub(crate) mod driver;
pub(crate) mod event;
pub(crate) mod fabric;
pub(crate) mod ipc;
pub(crate) mod memory;
pub(crate) mod module;
mod native_binary;
pub(crate) mod sampler;
pub(crate) mod sysman;
pub(crate) mod virtual_mem;
pub(crate) mod zex;

use level_zero_sys::ze_result_t;
use std::panic::AssertUnwindSafe;

/// Runs an entry point's body, turning its error into the returned code and a panic into
/// `ZE_RESULT_ERROR_UNKNOWN` (never unwinding into C).
pub(crate) fn guard(body: impl FnOnce() -> Result<(), ze_result_t>) -> ze_result_t {
    match std::panic::catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(())) => ze_result_t::ZE_RESULT_SUCCESS,
        Ok(Err(error)) => error,
        Err(_) => ze_result_t::ZE_RESULT_ERROR_UNKNOWN,
    }
}

/// The `stype` and `pNext` of the extension struct at `link`, read by value.
///
/// # Safety
/// `link` must point to a struct that starts as `ze_base_properties_t` does.
pub(crate) unsafe fn chain_link(
    link: *mut std::ffi::c_void,
) -> (level_zero_sys::ze_structure_type_t, *mut std::ffi::c_void) {
    let header = link as *const level_zero_sys::ze_base_properties_t;
    // SAFETY: the caller's promise; plain reads of two leading fields.
    unsafe { ((*header).stype, (*header).pNext) }
}

/// A caller's output pointer, or `ZE_RESULT_ERROR_INVALID_NULL_POINTER`.
///
/// # Safety
/// `pointer` must be null or valid for writes of a `T` for the returned lifetime.
pub(crate) unsafe fn out<'a, T>(pointer: *mut T) -> Result<&'a mut T, ze_result_t> {
    // SAFETY: the caller's promise.
    unsafe { pointer.as_mut() }.ok_or(ze_result_t::ZE_RESULT_ERROR_INVALID_NULL_POINTER)
}

/// A caller's input pointer, or `ZE_RESULT_ERROR_INVALID_NULL_POINTER`.
///
/// # Safety
/// `pointer` must be null or valid for reads of a `T` for the returned lifetime.
pub(crate) unsafe fn input<'a, T>(pointer: *const T) -> Result<&'a T, ze_result_t> {
    // SAFETY: the caller's promise.
    unsafe { pointer.as_ref() }.ok_or(ze_result_t::ZE_RESULT_ERROR_INVALID_NULL_POINTER)
}

/// The count/fill pattern: with `*count == 0` or no array, report how many there are; otherwise
/// write up to `*count` of them and report how many were written.
///
/// # Safety
/// `count` must be valid for reads and writes; `array`, if not null, for `*count` writes.
pub(crate) unsafe fn fill_array<T>(
    count: *mut u32,
    array: *mut T,
    items: impl ExactSizeIterator<Item = T>,
) -> Result<(), ze_result_t> {
    // SAFETY: the caller's promise.
    let count = unsafe { out(count) }?;
    let available = items.len() as u32;
    if *count == 0 || array.is_null() {
        *count = available;
        return Ok(());
    }
    let written = (*count).min(available);
    for (index, item) in items.take(written as usize).enumerate() {
        // SAFETY: `index < *count`, within the caller's array.
        unsafe { array.add(index).write(item) };
    }
    *count = written;
    Ok(())
}

/// A slice of handles from a `(count, pointer)` pair.
///
/// # Safety
/// `pointer` must be valid for `count` reads when `count > 0`.
pub(crate) unsafe fn handles<T: Copy>(
    count: u32,
    pointer: *const T,
) -> Result<Vec<T>, ze_result_t> {
    if count == 0 {
        return Ok(Vec::new());
    }
    if pointer.is_null() {
        return Err(ze_result_t::ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    }
    // SAFETY: the caller's promise.
    Ok(unsafe { std::slice::from_raw_parts(pointer, count as usize) }.to_vec())
}

/// Writes a NUL-terminated copy of `text` into a fixed C character array, truncating.
pub(crate) fn write_c_string(target: &mut [std::ffi::c_char], text: &str) {
    let length = text.len().min(target.len().saturating_sub(1));
    for (slot, byte) in target.iter_mut().zip(text.bytes().take(length)) {
        *slot = byte as std::ffi::c_char;
    }
    if let Some(end) = target.get_mut(length) {
        *end = 0;
    }
}
