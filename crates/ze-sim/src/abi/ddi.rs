//! The `ze*Get*ProcAddrTable` exports through which the system's Level Zero loader drives the
//! simulator when it is loaded as a driver (`ZE_ENABLE_ALT_DRIVERS=/path/libze_sim.so`).
//!
//! The loader asks for each table at some API version and owns the memory: only the fields that
//! exist at that version may be written (an older loader's tables are smaller), which
//! `DDI_FIELD_COUNTS` (generated) says per table. Tables the simulator has no functions for, and the
//! `zet` tables, are acknowledged without writing anything: the loader requires every getter to
//! exist and succeed.

use crate::abi::entry::{
    command, context, device, driver, event, fabric, ipc, memory, module, sampler, sysman,
    virtual_mem,
};
use crate::abi::exports;
use crate::abi::generated::ddi_field_counts::DDI_FIELD_COUNTS;
use level_zero_sys::*;
use std::ffi::c_void;

/// How many leading fields of `table` exist at `version`, or the error the loader expects.
fn field_count(table: &str, version: ze_api_version_t) -> Result<usize, ze_result_t> {
    if ze_major_version(version.0) != 1 {
        return Err(ze_result_t::ZE_RESULT_ERROR_UNSUPPORTED_VERSION);
    }
    let minor = ze_minor_version(version.0);
    let (_, counts) = DDI_FIELD_COUNTS
        .iter()
        .find(|(name, _)| *name == table)
        .ok_or(ze_result_t::ZE_RESULT_ERROR_UNKNOWN)?;
    Ok(counts
        .iter()
        .take_while(|(since, _)| *since <= minor)
        .last()
        .map_or(0, |&(_, count)| count))
}

/// Writes the first `field_count(table, version)` function pointers of `full` into `target`.
///
/// # Safety
/// `target` must be null or point to a table of the layout the headers of `version` give.
unsafe fn write_table<T>(
    table: &str,
    version: ze_api_version_t,
    full: &T,
    target: *mut T,
) -> ze_result_t {
    if target.is_null() {
        return ze_result_t::ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    }
    let count = match field_count(table, version) {
        Ok(count) => count,
        Err(error) => return error,
    };
    let bytes = (count * size_of::<usize>()).min(size_of::<T>());
    // SAFETY: tables are arrays of function pointers; `bytes` covers only the fields that
    // exist at `version`, all of which the caller's table has.
    unsafe {
        std::ptr::copy_nonoverlapping(full as *const T as *const u8, target as *mut u8, bytes)
    };
    ze_result_t::ZE_RESULT_SUCCESS
}

/// # Safety
/// Called by the loader with a table of the layout its version gives.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zeGetGlobalProcAddrTable(
    version: ze_api_version_t,
    table: *mut ze_global_dditable_t,
) -> ze_result_t {
    let full = ze_global_dditable_t {
        pfnInit: Some(exports::global_init),
        pfnInitDrivers: Some(exports::global_init_drivers),
    };
    // SAFETY: the loader's table.
    let result = unsafe { write_table("ze_global_dditable_t", version, &full, table) };
    // `pfnInitDrivers` follows `pfnInit` from spec 1.10 on, but no loader release carried the
    // 1.10 headers, so the generated counts start it at 1.11.
    if result == ze_result_t::ZE_RESULT_SUCCESS && ze_minor_version(version.0) == 10 {
        // SAFETY: a 1.10 global table has its second field.
        unsafe { (*table).pfnInitDrivers = full.pfnInitDrivers };
    }
    result
}

/// # Safety
/// Called by the loader with a table of the layout its version gives.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zeGetDriverProcAddrTable(
    version: ze_api_version_t,
    table: *mut ze_driver_dditable_t,
) -> ze_result_t {
    let full = ze_driver_dditable_t {
        pfnGetLastErrorDescription: Some(driver::get_last_error_description),
        pfnGet: Some(exports::global_driver_get),
        pfnGetApiVersion: Some(driver::get_api_version),
        pfnGetProperties: Some(driver::get_properties),
        pfnGetIpcProperties: Some(driver::get_ipc_properties),
        pfnGetExtensionProperties: Some(driver::get_extension_properties),
        pfnGetExtensionFunctionAddress: Some(driver::get_extension_function_address),
        ..Default::default()
    };
    // SAFETY: the loader's table.
    unsafe { write_table("ze_driver_dditable_t", version, &full, table) }
}

/// # Safety
/// Called by the loader with a table of the layout its version gives.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zeGetDeviceExpProcAddrTable(
    version: ze_api_version_t,
    table: *mut ze_device_exp_dditable_t,
) -> ze_result_t {
    let full = ze_device_exp_dditable_t {
        pfnGetFabricVertexExp: Some(fabric::device_get_fabric_vertex),
    };
    // SAFETY: the loader's table.
    unsafe { write_table("ze_device_exp_dditable_t", version, &full, table) }
}

/// # Safety
/// Called by the loader with a table of the layout its version gives.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zeGetFabricVertexExpProcAddrTable(
    version: ze_api_version_t,
    table: *mut ze_fabric_vertex_exp_dditable_t,
) -> ze_result_t {
    let full = ze_fabric_vertex_exp_dditable_t {
        pfnGetExp: Some(fabric::vertex_get),
        pfnGetSubVerticesExp: Some(fabric::vertex_get_sub_vertices),
        pfnGetPropertiesExp: Some(fabric::vertex_get_properties),
        pfnGetDeviceExp: Some(fabric::vertex_get_device),
    };
    // SAFETY: the loader's table.
    unsafe { write_table("ze_fabric_vertex_exp_dditable_t", version, &full, table) }
}

/// # Safety
/// Called by the loader with a table of the layout its version gives.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zeGetFabricEdgeExpProcAddrTable(
    version: ze_api_version_t,
    table: *mut ze_fabric_edge_exp_dditable_t,
) -> ze_result_t {
    let full = ze_fabric_edge_exp_dditable_t {
        pfnGetExp: Some(fabric::edge_get),
        pfnGetVerticesExp: Some(fabric::edge_get_vertices),
        pfnGetPropertiesExp: Some(fabric::edge_get_properties),
    };
    // SAFETY: the loader's table.
    unsafe { write_table("ze_fabric_edge_exp_dditable_t", version, &full, table) }
}

/// # Safety
/// Called by the loader with a table of the layout its version gives.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zeGetDeviceProcAddrTable(
    version: ze_api_version_t,
    table: *mut ze_device_dditable_t,
) -> ze_result_t {
    let full = ze_device_dditable_t {
        pfnGet: Some(device::get),
        pfnGetSubDevices: Some(device::get_sub_devices),
        pfnGetProperties: Some(device::get_properties),
        pfnGetMemoryProperties: Some(device::get_memory_properties),
        pfnGetCommandQueueGroupProperties: Some(device::get_command_queue_group_properties),
        pfnGetP2PProperties: Some(device::get_p2p_properties),
        pfnCanAccessPeer: Some(device::can_access_peer),
        pfnGetGlobalTimestamps: Some(device::get_global_timestamps),
        pfnGetComputeProperties: Some(device::get_compute_properties),
        pfnPciGetPropertiesExt: Some(device::pci_get_properties_ext),
        pfnGetMemoryAccessProperties: Some(device::get_memory_access_properties),
        pfnGetModuleProperties: Some(device::get_module_properties),
        pfnGetCacheProperties: Some(device::get_cache_properties),
        pfnGetImageProperties: Some(device::get_image_properties),
        pfnGetExternalMemoryProperties: Some(device::get_external_memory_properties),
        pfnGetStatus: Some(device::get_status),
        pfnGetRootDevice: Some(device::get_root_device),
        pfnSynchronize: Some(device::synchronize),
        ..Default::default()
    };
    // SAFETY: the loader's table.
    unsafe { write_table("ze_device_dditable_t", version, &full, table) }
}

/// # Safety
/// Called by the loader with a table of the layout its version gives.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zeGetContextProcAddrTable(
    version: ze_api_version_t,
    table: *mut ze_context_dditable_t,
) -> ze_result_t {
    let full = ze_context_dditable_t {
        pfnCreate: Some(context::create),
        pfnDestroy: Some(context::destroy),
        pfnMakeMemoryResident: Some(context::make_memory_resident),
        pfnEvictMemory: Some(context::evict_memory),
        pfnGetStatus: Some(context::get_status),
        pfnCreateEx: Some(context::create_ex),
        ..Default::default()
    };
    // SAFETY: the loader's table.
    unsafe { write_table("ze_context_dditable_t", version, &full, table) }
}

/// # Safety
/// Called by the loader with a table of the layout its version gives.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zeGetCommandQueueProcAddrTable(
    version: ze_api_version_t,
    table: *mut ze_command_queue_dditable_t,
) -> ze_result_t {
    let full = ze_command_queue_dditable_t {
        pfnCreate: Some(command::queue_create),
        pfnDestroy: Some(command::queue_destroy),
        pfnExecuteCommandLists: Some(command::queue_execute_command_lists),
        pfnSynchronize: Some(command::queue_synchronize),
        ..Default::default()
    };
    // SAFETY: the loader's table.
    unsafe { write_table("ze_command_queue_dditable_t", version, &full, table) }
}

/// # Safety
/// Called by the loader with a table of the layout its version gives.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zeGetCommandListProcAddrTable(
    version: ze_api_version_t,
    table: *mut ze_command_list_dditable_t,
) -> ze_result_t {
    let full = ze_command_list_dditable_t {
        pfnCreate: Some(command::list_create),
        pfnCreateImmediate: Some(command::list_create_immediate),
        pfnDestroy: Some(command::list_destroy),
        pfnClose: Some(command::list_close),
        pfnReset: Some(command::list_reset),
        pfnAppendBarrier: Some(command::append_barrier),
        pfnAppendMemoryCopy: Some(command::append_memory_copy),
        pfnAppendMemoryFill: Some(command::append_memory_fill),
        pfnAppendMemoryCopyRegion: Some(command::append_memory_copy_region),
        pfnAppendSignalEvent: Some(command::append_signal_event),
        pfnAppendWaitOnEvents: Some(command::append_wait_on_events),
        pfnAppendEventReset: Some(command::append_event_reset),
        pfnAppendLaunchKernel: Some(module::append_launch_kernel),
        pfnAppendLaunchCooperativeKernel: Some(module::append_launch_cooperative_kernel),
        pfnAppendLaunchKernelIndirect: Some(module::append_launch_kernel_indirect),
        pfnAppendLaunchKernelWithParameters: Some(module::append_launch_kernel_with_parameters),
        pfnAppendLaunchMultipleKernelsIndirect: Some(
            module::append_launch_multiple_kernels_indirect,
        ),
        pfnAppendMemoryRangesBarrier: Some(command::append_memory_ranges_barrier),
        pfnAppendMemoryCopyWithParameters: Some(command::append_memory_copy_with_parameters),
        pfnAppendMemoryFillWithParameters: Some(command::append_memory_fill_with_parameters),
        pfnAppendImageCopy: Some(command::append_image_copy),
        pfnAppendImageCopyRegion: Some(command::append_image_copy_region),
        pfnAppendImageCopyToMemory: Some(command::append_image_copy_to_memory),
        pfnAppendImageCopyFromMemory: Some(command::append_image_copy_from_memory),
        pfnHostSynchronize: Some(command::list_host_synchronize),
        pfnAppendMemoryCopyFromContext: Some(command::append_memory_copy_from_context),
        pfnAppendWriteGlobalTimestamp: Some(command::append_write_global_timestamp),
        pfnAppendQueryKernelTimestamps: Some(command::append_query_kernel_timestamps),
        pfnAppendLaunchKernelWithArguments: Some(module::append_launch_kernel_with_arguments),
        pfnAppendMemoryPrefetch: Some(command::append_memory_prefetch),
        pfnAppendMemAdvise: Some(command::append_mem_advise),
        ..Default::default()
    };
    // SAFETY: the loader's table.
    unsafe { write_table("ze_command_list_dditable_t", version, &full, table) }
}

/// # Safety
/// Called by the loader with a table of the layout its version gives.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zeGetEventPoolProcAddrTable(
    version: ze_api_version_t,
    table: *mut ze_event_pool_dditable_t,
) -> ze_result_t {
    let full = ze_event_pool_dditable_t {
        pfnCreate: Some(event::pool_create),
        pfnDestroy: Some(event::pool_destroy),
        pfnGetIpcHandle: Some(event::pool_get_ipc_handle),
        pfnPutIpcHandle: Some(event::pool_put_ipc_handle),
        pfnOpenIpcHandle: Some(event::pool_open_ipc_handle),
        ..Default::default()
    };
    // SAFETY: the loader's table.
    unsafe { write_table("ze_event_pool_dditable_t", version, &full, table) }
}

/// # Safety
/// Called by the loader with a table of the layout its version gives.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zeGetEventProcAddrTable(
    version: ze_api_version_t,
    table: *mut ze_event_dditable_t,
) -> ze_result_t {
    let full = ze_event_dditable_t {
        pfnCreate: Some(event::create),
        pfnDestroy: Some(event::destroy),
        pfnHostSignal: Some(event::host_signal),
        pfnHostSynchronize: Some(event::host_synchronize),
        pfnQueryStatus: Some(event::query_status),
        pfnHostReset: Some(event::host_reset),
        pfnQueryKernelTimestamp: Some(event::query_kernel_timestamp),
        pfnQueryKernelTimestampsExt: Some(event::query_kernel_timestamps_ext),
        pfnCounterBasedCreate: Some(event::counter_based_create),
        ..Default::default()
    };
    // SAFETY: the loader's table.
    unsafe { write_table("ze_event_dditable_t", version, &full, table) }
}

/// # Safety
/// Called by the loader with a table of the layout its version gives.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zeGetFenceProcAddrTable(
    version: ze_api_version_t,
    table: *mut ze_fence_dditable_t,
) -> ze_result_t {
    let full = ze_fence_dditable_t {
        pfnCreate: Some(event::fence_create),
        pfnDestroy: Some(event::fence_destroy),
        pfnHostSynchronize: Some(event::fence_host_synchronize),
        pfnQueryStatus: Some(event::fence_query_status),
        pfnReset: Some(event::fence_reset),
    };
    // SAFETY: the loader's table.
    unsafe { write_table("ze_fence_dditable_t", version, &full, table) }
}

/// # Safety
/// Called by the loader with a table of the layout its version gives.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zeGetMemProcAddrTable(
    version: ze_api_version_t,
    table: *mut ze_mem_dditable_t,
) -> ze_result_t {
    let full = ze_mem_dditable_t {
        pfnAllocShared: Some(memory::alloc_shared),
        pfnAllocDevice: Some(memory::alloc_device),
        pfnAllocHost: Some(memory::alloc_host),
        pfnFree: Some(memory::free),
        pfnGetAllocProperties: Some(memory::get_alloc_properties),
        pfnGetAddressRange: Some(memory::get_address_range),
        pfnFreeExt: Some(memory::free_ext),
        pfnGetIpcHandle: Some(ipc::get_handle),
        pfnOpenIpcHandle: Some(ipc::open_handle),
        pfnCloseIpcHandle: Some(ipc::close_handle),
        pfnPutIpcHandle: Some(ipc::put_handle),
        ..Default::default()
    };
    // SAFETY: the loader's table.
    unsafe { write_table("ze_mem_dditable_t", version, &full, table) }
}

/// # Safety
/// Called by the loader with a table of the layout its version gives.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zeGetModuleProcAddrTable(
    version: ze_api_version_t,
    table: *mut ze_module_dditable_t,
) -> ze_result_t {
    let full = ze_module_dditable_t {
        pfnCreate: Some(module::module_create),
        pfnDestroy: Some(module::module_destroy),
        pfnGetKernelNames: Some(module::module_get_kernel_names),
        pfnGetNativeBinary: Some(module::module_get_native_binary),
        pfnGetProperties: Some(module::module_get_properties),
        pfnGetGlobalPointer: Some(module::module_get_global_pointer),
        pfnGetFunctionPointer: Some(module::module_get_function_pointer),
        ..Default::default()
    };
    // SAFETY: the loader's table.
    unsafe { write_table("ze_module_dditable_t", version, &full, table) }
}

/// # Safety
/// Called by the loader with a table of the layout its version gives.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zeGetSamplerProcAddrTable(
    version: ze_api_version_t,
    table: *mut ze_sampler_dditable_t,
) -> ze_result_t {
    let full = ze_sampler_dditable_t {
        pfnCreate: Some(sampler::sampler_create),
        pfnDestroy: Some(sampler::sampler_destroy),
    };
    // SAFETY: the loader's table.
    unsafe { write_table("ze_sampler_dditable_t", version, &full, table) }
}

/// # Safety
/// Called by the loader with a table of the layout its version gives.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zeGetModuleBuildLogProcAddrTable(
    version: ze_api_version_t,
    table: *mut ze_module_build_log_dditable_t,
) -> ze_result_t {
    let full = ze_module_build_log_dditable_t {
        pfnDestroy: Some(module::build_log_destroy),
        pfnGetString: Some(module::build_log_get_string),
    };
    // SAFETY: the loader's table.
    unsafe { write_table("ze_module_build_log_dditable_t", version, &full, table) }
}

/// # Safety
/// Called by the loader with a table of the layout its version gives.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zeGetKernelProcAddrTable(
    version: ze_api_version_t,
    table: *mut ze_kernel_dditable_t,
) -> ze_result_t {
    let full = ze_kernel_dditable_t {
        pfnCreate: Some(module::kernel_create),
        pfnDestroy: Some(module::kernel_destroy),
        pfnSetGroupSize: Some(module::kernel_set_group_size),
        pfnSuggestGroupSize: Some(module::kernel_suggest_group_size),
        pfnSuggestMaxCooperativeGroupCount: Some(
            module::kernel_suggest_max_cooperative_group_count,
        ),
        pfnSetArgumentValue: Some(module::kernel_set_argument_value),
        pfnSetIndirectAccess: Some(module::kernel_set_indirect_access),
        pfnGetIndirectAccess: Some(module::kernel_get_indirect_access),
        pfnGetProperties: Some(module::kernel_get_properties),
        pfnGetName: Some(module::kernel_get_name),
        pfnGetSourceAttributes: Some(module::kernel_get_source_attributes),
        pfnSetCacheConfig: Some(module::kernel_set_cache_config),
    };
    // SAFETY: the loader's table.
    unsafe { write_table("ze_kernel_dditable_t", version, &full, table) }
}

/// The command-list exp table: one loader release (v1.18.0, API 1.11) began it with other
/// functions, so the generated counts write nothing at 1.11 (`ddi_field_counts.py`).
///
/// # Safety
/// Called by the loader with a table of the layout its version gives.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zeGetCommandListExpProcAddrTable(
    version: ze_api_version_t,
    table: *mut ze_command_list_exp_dditable_t,
) -> ze_result_t {
    let full = ze_command_list_exp_dditable_t {
        pfnCreateCloneExp: Some(command::list_create_clone),
        pfnImmediateAppendCommandListsExp: Some(command::immediate_append_command_lists),
        ..Default::default()
    };
    // SAFETY: the loader's table.
    unsafe { write_table("ze_command_list_exp_dditable_t", version, &full, table) }
}

/// # Safety
/// Called by the loader with a table of the layout its version gives.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zeGetMemExpProcAddrTable(
    version: ze_api_version_t,
    table: *mut ze_mem_exp_dditable_t,
) -> ze_result_t {
    let full = ze_mem_exp_dditable_t {
        pfnSetAtomicAccessAttributeExp: Some(memory::set_atomic_access_attribute),
        pfnGetAtomicAccessAttributeExp: Some(memory::get_atomic_access_attribute),
        ..Default::default()
    };
    // SAFETY: the loader's table.
    unsafe { write_table("ze_mem_exp_dditable_t", version, &full, table) }
}

/// # Safety
/// Called by the loader with a table of the layout its version gives.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zeGetKernelExpProcAddrTable(
    version: ze_api_version_t,
    table: *mut ze_kernel_exp_dditable_t,
) -> ze_result_t {
    let full = ze_kernel_exp_dditable_t {
        pfnSetGlobalOffsetExp: Some(module::kernel_set_global_offset),
        ..Default::default()
    };
    // SAFETY: the loader's table.
    unsafe { write_table("ze_kernel_exp_dditable_t", version, &full, table) }
}

/// # Safety
/// Called by the loader with a table of the layout its version gives.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zeGetVirtualMemProcAddrTable(
    version: ze_api_version_t,
    table: *mut ze_virtual_mem_dditable_t,
) -> ze_result_t {
    let full = ze_virtual_mem_dditable_t {
        pfnReserve: Some(virtual_mem::reserve),
        pfnFree: Some(virtual_mem::free),
        pfnQueryPageSize: Some(virtual_mem::query_page_size),
        pfnMap: Some(virtual_mem::map),
        pfnUnmap: Some(virtual_mem::unmap),
        pfnSetAccessAttribute: Some(virtual_mem::set_access_attribute),
        pfnGetAccessAttribute: Some(virtual_mem::get_access_attribute),
    };
    // SAFETY: the loader's table.
    unsafe { write_table("ze_virtual_mem_dditable_t", version, &full, table) }
}

/// # Safety
/// Called by the loader with a table of the layout its version gives.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zeGetPhysicalMemProcAddrTable(
    version: ze_api_version_t,
    table: *mut ze_physical_mem_dditable_t,
) -> ze_result_t {
    let full = ze_physical_mem_dditable_t {
        pfnCreate: Some(virtual_mem::physical_create),
        pfnDestroy: Some(virtual_mem::physical_destroy),
        pfnGetProperties: Some(virtual_mem::physical_get_properties),
    };
    // SAFETY: the loader's table.
    unsafe { write_table("ze_physical_mem_dditable_t", version, &full, table) }
}

/// # Safety
/// Called by the loader with a table of the layout its version gives.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zesGetGlobalProcAddrTable(
    version: ze_api_version_t,
    table: *mut zes_global_dditable_t,
) -> ze_result_t {
    let full = zes_global_dditable_t {
        pfnInit: Some(exports::global_sysman_init),
    };
    // SAFETY: the loader's table.
    unsafe { write_table("zes_global_dditable_t", version, &full, table) }
}

/// # Safety
/// Called by the loader with a table of the layout its version gives.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zesGetDriverProcAddrTable(
    version: ze_api_version_t,
    table: *mut zes_driver_dditable_t,
) -> ze_result_t {
    let full = zes_driver_dditable_t {
        pfnGet: Some(exports::global_sysman_driver_get),
        ..Default::default()
    };
    // SAFETY: the loader's table.
    unsafe { write_table("zes_driver_dditable_t", version, &full, table) }
}

/// # Safety
/// Called by the loader with a table of the layout its version gives.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zesGetDriverExpProcAddrTable(
    version: ze_api_version_t,
    table: *mut zes_driver_exp_dditable_t,
) -> ze_result_t {
    let full = zes_driver_exp_dditable_t {
        pfnGetDeviceByUuidExp: Some(sysman::driver_get_device_by_uuid),
    };
    // SAFETY: the loader's table.
    unsafe { write_table("zes_driver_exp_dditable_t", version, &full, table) }
}

/// # Safety
/// Called by the loader with a table of the layout its version gives.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zesGetDeviceProcAddrTable(
    version: ze_api_version_t,
    table: *mut zes_device_dditable_t,
) -> ze_result_t {
    let full = zes_device_dditable_t {
        pfnGetProperties: Some(sysman::device_get_properties),
        pfnProcessesGetState: Some(sysman::device_processes_get_state),
        pfnPciGetProperties: Some(sysman::device_pci_get_properties),
        pfnEnumFrequencyDomains: Some(sysman::device_enum_none),
        pfnEnumMemoryModules: Some(sysman::device_enum_memory_modules),
        pfnEnumPowerDomains: Some(sysman::device_enum_none),
        pfnEnumTemperatureSensors: Some(sysman::device_enum_none),
        pfnGet: Some(sysman::device_get),
        ..Default::default()
    };
    // SAFETY: the loader's table.
    unsafe { write_table("zes_device_dditable_t", version, &full, table) }
}

/// # Safety
/// Called by the loader with a table of the layout its version gives.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zesGetMemoryProcAddrTable(
    version: ze_api_version_t,
    table: *mut zes_memory_dditable_t,
) -> ze_result_t {
    let full = zes_memory_dditable_t {
        pfnGetProperties: Some(sysman::memory_get_properties),
        pfnGetState: Some(sysman::memory_get_state),
        pfnGetBandwidth: Some(sysman::memory_get_bandwidth),
    };
    // SAFETY: the loader's table.
    unsafe { write_table("zes_memory_dditable_t", version, &full, table) }
}

/// Getters for tables the simulator leaves empty: they check the version and succeed, so the
/// loader accepts the driver; calls through the empty fields are refused by the loader.
macro_rules! empty_tables {
    ($($getter:ident,)*) => {
        $(
            /// # Safety
            /// Called by the loader; nothing is written.
            #[unsafe(no_mangle)]
            pub unsafe extern "C" fn $getter(
                version: ze_api_version_t,
                table: *mut c_void,
            ) -> ze_result_t {
                if table.is_null() {
                    ze_result_t::ZE_RESULT_ERROR_INVALID_NULL_POINTER
                } else if ze_major_version(version.0) != 1 {
                    ze_result_t::ZE_RESULT_ERROR_UNSUPPORTED_VERSION
                } else {
                    ze_result_t::ZE_RESULT_SUCCESS
                }
            }
        )*
    };
}

empty_tables! {
    zeGetEventExpProcAddrTable,
    zeGetImageProcAddrTable,
    zeGetImageExpProcAddrTable,
    zetGetCommandListProcAddrTable,
    zetGetContextProcAddrTable,
    zetGetDebugProcAddrTable,
    zetGetDeviceProcAddrTable,
    zetGetKernelProcAddrTable,
    zetGetMetricGroupExpProcAddrTable,
    zetGetMetricGroupProcAddrTable,
    zetGetMetricProcAddrTable,
    zetGetMetricQueryPoolProcAddrTable,
    zetGetMetricQueryProcAddrTable,
    zetGetMetricStreamerProcAddrTable,
    zetGetModuleProcAddrTable,
    zetGetTracerExpProcAddrTable,
    zesGetDiagnosticsProcAddrTable,
    zesGetEngineProcAddrTable,
    zesGetFabricPortProcAddrTable,
    zesGetFanProcAddrTable,
    zesGetFirmwareProcAddrTable,
    zesGetFrequencyProcAddrTable,
    zesGetLedProcAddrTable,
    zesGetPerformanceFactorProcAddrTable,
    zesGetPowerProcAddrTable,
    zesGetPsuProcAddrTable,
    zesGetRasProcAddrTable,
    zesGetSchedulerProcAddrTable,
    zesGetStandbyProcAddrTable,
    zesGetTemperatureProcAddrTable,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The counts come from the loader's release tags, the structs from the spec 1.17 headers:
    /// at 1.17 they must agree for every table the simulator writes, or a 1.17 loader's table
    /// would be under- or overwritten.
    #[test]
    fn the_newest_counts_cover_the_generated_tables_exactly() {
        let sizes = crate::abi::generated::by_name::FILLED_TABLES;
        assert!(
            sizes.len() > 20,
            "every filled table is listed: {}",
            sizes.len()
        );
        for &(table, size) in sizes {
            let count = field_count(table, ze_api_version_t::ZE_API_VERSION_1_17).unwrap();
            assert_eq!(count * size_of::<usize>(), size, "{table}");
        }
    }
}
