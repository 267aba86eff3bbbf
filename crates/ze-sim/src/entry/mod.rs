//! The Level Zero entry points: `extern "C"` functions that find their platform through the
//! handle they are given.

pub(crate) mod command;
pub(crate) mod context;
pub(crate) mod device;
pub(crate) mod driver;
pub(crate) mod event;
pub(crate) mod memory;
pub(crate) mod module;
pub(crate) mod zex;

use level_zero_sys::ze_result_t;
use std::ffi::c_void;
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

macro_rules! entry_points {
    ($($name:literal => $function:path,)*) => {
        /// Every handle-taking entry point, by its Level Zero name.
        pub(crate) fn resolve(name: &str) -> Option<*const c_void> {
            match name {
                $($name => Some($function as *const c_void),)*
                _ => None,
            }
        }
    };
}

entry_points! {
    "zeDriverGetApiVersion" => driver::get_api_version,
    "zeDriverGetProperties" => driver::get_properties,
    "zeDriverGetIpcProperties" => driver::get_ipc_properties,
    "zeDriverGetExtensionProperties" => driver::get_extension_properties,
    "zeDriverGetExtensionFunctionAddress" => driver::get_extension_function_address,
    "zeDeviceGet" => device::get,
    "zeDeviceGetSubDevices" => device::get_sub_devices,
    "zeDeviceGetProperties" => device::get_properties,
    "zeDeviceGetMemoryProperties" => device::get_memory_properties,
    "zeDeviceGetCommandQueueGroupProperties" => device::get_command_queue_group_properties,
    "zeDeviceGetP2PProperties" => device::get_p2p_properties,
    "zeDeviceCanAccessPeer" => device::can_access_peer,
    "zeDeviceGetGlobalTimestamps" => device::get_global_timestamps,
    "zeDeviceGetComputeProperties" => device::get_compute_properties,
    "zeDevicePciGetPropertiesExt" => device::pci_get_properties_ext,
    "zeDeviceGetMemoryAccessProperties" => device::get_memory_access_properties,
    "zeDeviceGetModuleProperties" => device::get_module_properties,
    "zeDeviceGetCacheProperties" => device::get_cache_properties,
    "zeDeviceGetImageProperties" => device::get_image_properties,
    "zeDeviceGetExternalMemoryProperties" => device::get_external_memory_properties,
    "zeDeviceGetStatus" => device::get_status,
    "zeDeviceGetRootDevice" => device::get_root_device,
    "zeDeviceSynchronize" => device::synchronize,
    "zeContextCreate" => context::create,
    "zeContextCreateEx" => context::create_ex,
    "zeContextDestroy" => context::destroy,
    "zeContextMakeMemoryResident" => context::make_memory_resident,
    "zeContextEvictMemory" => context::evict_memory,
    "zeMemAllocDevice" => memory::alloc_device,
    "zeMemAllocHost" => memory::alloc_host,
    "zeMemAllocShared" => memory::alloc_shared,
    "zeMemFree" => memory::free,
    "zeMemFreeExt" => memory::free_ext,
    "zeMemGetAllocProperties" => memory::get_alloc_properties,
    "zeMemGetAddressRange" => memory::get_address_range,
    "zeCommandQueueCreate" => command::queue_create,
    "zeCommandQueueDestroy" => command::queue_destroy,
    "zeCommandQueueExecuteCommandLists" => command::queue_execute_command_lists,
    "zeCommandQueueSynchronize" => command::queue_synchronize,
    "zeCommandListCreate" => command::list_create,
    "zeCommandListCreateImmediate" => command::list_create_immediate,
    "zeCommandListDestroy" => command::list_destroy,
    "zeCommandListClose" => command::list_close,
    "zeCommandListReset" => command::list_reset,
    "zeCommandListHostSynchronize" => command::list_host_synchronize,
    "zeCommandListAppendBarrier" => command::append_barrier,
    "zeCommandListAppendMemoryCopy" => command::append_memory_copy,
    "zeCommandListAppendMemoryFill" => command::append_memory_fill,
    "zeCommandListAppendSignalEvent" => command::append_signal_event,
    "zeCommandListAppendWaitOnEvents" => command::append_wait_on_events,
    "zeCommandListAppendEventReset" => command::append_event_reset,
    "zeCommandListAppendLaunchKernel" => module::append_launch_kernel,
    "zeModuleCreate" => module::module_create,
    "zeModuleDestroy" => module::module_destroy,
    "zeModuleGetKernelNames" => module::module_get_kernel_names,
    "zeModuleBuildLogDestroy" => module::build_log_destroy,
    "zeModuleBuildLogGetString" => module::build_log_get_string,
    "zeKernelCreate" => module::kernel_create,
    "zeKernelDestroy" => module::kernel_destroy,
    "zeKernelSetGroupSize" => module::kernel_set_group_size,
    "zeKernelSuggestGroupSize" => module::kernel_suggest_group_size,
    "zeKernelSetArgumentValue" => module::kernel_set_argument_value,
    "zeKernelSetIndirectAccess" => module::kernel_set_indirect_access,
    "zeKernelGetIndirectAccess" => module::kernel_get_indirect_access,
    "zeKernelGetProperties" => module::kernel_get_properties,
    "zeKernelGetName" => module::kernel_get_name,
    "zeEventPoolCreate" => event::pool_create,
    "zeEventPoolDestroy" => event::pool_destroy,
    "zeEventCreate" => event::create,
    "zeEventDestroy" => event::destroy,
    "zeEventHostSignal" => event::host_signal,
    "zeEventHostSynchronize" => event::host_synchronize,
    "zeEventQueryStatus" => event::query_status,
    "zeEventHostReset" => event::host_reset,
    "zeEventQueryKernelTimestamp" => event::query_kernel_timestamp,
    "zeFenceCreate" => event::fence_create,
    "zeFenceDestroy" => event::fence_destroy,
    "zeFenceHostSynchronize" => event::fence_host_synchronize,
    "zeFenceQueryStatus" => event::fence_query_status,
    "zeFenceReset" => event::fence_reset,
}
