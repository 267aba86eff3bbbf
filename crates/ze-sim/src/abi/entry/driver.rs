//! `zeInit`, `zeDriverGet` and the driver queries.

use super::{fill_array, guard, out, write_c_string};
use crate::abi::registry;
use crate::engine::platform::Inner;
use level_zero_sys::*;
use std::ffi::{CStr, c_char, c_void};
use std::sync::Arc;

/// The API version the simulator reports: the one Intel's SYCL runtime 2026.2 asks for (its Level
/// Zero front end requests the spec 1.15 tables), which compute-runtime reports for current GPUs
/// too. Functions of later versions are in the headers but answered as unsupported.
pub(crate) const API_VERSION: ze_api_version_t = ze_api_version_t::ZE_API_VERSION_1_15;

/// `zeInit`: idempotent; only GPU drivers are simulated.
pub(crate) fn init(platform: Option<Arc<Inner>>, flags: ze_init_flags_t) -> ze_result_t {
    guard(|| {
        let platform = platform.ok_or(ze_result_t::ZE_RESULT_ERROR_UNINITIALIZED)?;
        let known =
            ze_init_flag_t::ZE_INIT_FLAG_GPU_ONLY.0 | ze_init_flag_t::ZE_INIT_FLAG_VPU_ONLY.0;
        if flags & !known != 0 {
            return Err(ze_result_t::ZE_RESULT_ERROR_INVALID_ENUMERATION);
        }
        platform.lock().initialized = true;
        super::sysman::start_with_core_init(&platform);
        Ok(())
    })
}

/// `zeDriverGet`: this platform's one driver, after `zeInit`.
///
/// # Safety
/// Pointers as `zeDriverGet` takes them.
pub(crate) unsafe fn driver_get(
    platform: Option<Arc<Inner>>,
    count: *mut u32,
    drivers: *mut ze_driver_handle_t,
) -> ze_result_t {
    guard(|| {
        let platform = platform.ok_or(ze_result_t::ZE_RESULT_ERROR_UNINITIALIZED)?;
        if !platform.lock().initialized {
            return Err(ze_result_t::ZE_RESULT_ERROR_UNINITIALIZED);
        }
        let handle = platform.driver as ze_driver_handle_t;
        // SAFETY: the caller's pointers.
        unsafe { fill_array(count, drivers, std::iter::once(handle)) }
    })
}

/// `zeInitDrivers` (spec 1.10): `zeInit` and `zeDriverGet` in one, for GPU drivers.
///
/// # Safety
/// Pointers as `zeInitDrivers` takes them.
pub(crate) unsafe fn init_drivers(
    platform: Option<Arc<Inner>>,
    count: *mut u32,
    drivers: *mut ze_driver_handle_t,
    desc: *mut ze_init_driver_type_desc_t,
) -> ze_result_t {
    guard(|| {
        let platform = platform.ok_or(ze_result_t::ZE_RESULT_ERROR_UNINITIALIZED)?;
        // SAFETY: the caller's descriptor.
        let desc = unsafe { super::input(desc) }?;
        if desc.stype != ze_structure_type_t::ZE_STRUCTURE_TYPE_INIT_DRIVER_TYPE_DESC {
            return Err(ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT);
        }
        platform.lock().initialized = true;
        super::sysman::start_with_core_init(&platform);
        let gpu = desc.flags & ze_init_driver_type_flag_t::ZE_INIT_DRIVER_TYPE_FLAG_GPU.0 != 0;
        let handles = gpu.then_some(platform.driver as ze_driver_handle_t);
        // SAFETY: the caller's pointers.
        unsafe { fill_array(count, drivers, handles.into_iter()) }
    })
}

pub(crate) unsafe extern "C" fn get_api_version(
    driver: ze_driver_handle_t,
    version: *mut ze_api_version_t,
) -> ze_result_t {
    guard(|| {
        registry::driver(driver as usize)?;
        // SAFETY: the caller's output pointer.
        *unsafe { out(version) }? = API_VERSION;
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn get_properties(
    driver: ze_driver_handle_t,
    properties: *mut ze_driver_properties_t,
) -> ze_result_t {
    guard(|| {
        let platform = registry::driver(driver as usize)?;
        // SAFETY: the caller's output pointer.
        let properties = unsafe { out(properties) }?;
        let mut uuid = [0u8; 16];
        uuid[..8].copy_from_slice(b"ze-sim\0\0");
        uuid[8..12].copy_from_slice(&platform.config.driver_version.to_le_bytes());
        properties.uuid.id = uuid;
        properties.driverVersion = platform.config.driver_version;
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn get_ipc_properties(
    driver: ze_driver_handle_t,
    properties: *mut ze_driver_ipc_properties_t,
) -> ze_result_t {
    guard(|| {
        registry::driver(driver as usize)?;
        // SAFETY: the caller's output pointer.
        unsafe { out(properties) }?.flags = 0;
        Ok(())
    })
}

/// The extensions the simulator implements, with their versions (names from the headers).
fn extensions() -> [(&'static [u8], u32); 8] {
    [
        (
            ZE_PCI_PROPERTIES_EXT_NAME,
            ze_pci_properties_ext_version_t::ZE_PCI_PROPERTIES_EXT_VERSION_CURRENT.0,
        ),
        (
            ZE_BANDWIDTH_PROPERTIES_EXP_NAME,
            // The headers give this experimental extension no version enum: it is 1.0.
            ze_api_version_t::ZE_API_VERSION_1_0.0,
        ),
        (
            ZE_MEMORY_FREE_POLICIES_EXT_NAME,
            ze_memory_free_policies_ext_version_t::ZE_MEMORY_FREE_POLICIES_EXT_VERSION_CURRENT.0,
        ),
        (
            ZE_GLOBAL_OFFSET_EXP_NAME,
            ze_global_offset_exp_version_t::ZE_GLOBAL_OFFSET_EXP_VERSION_CURRENT.0,
        ),
        (
            ZE_FLOAT_ATOMICS_EXT_NAME,
            ze_float_atomics_ext_version_t::ZE_FLOAT_ATOMICS_EXT_VERSION_CURRENT.0,
        ),
        (
            ZE_EVENT_POOL_COUNTER_BASED_EXP_NAME,
            ze_event_pool_counter_based_exp_version_t::ZE_EVENT_POOL_COUNTER_BASED_EXP_VERSION_CURRENT.0,
        ),
        (
            ZE_EVENT_QUERY_KERNEL_TIMESTAMPS_EXT_NAME,
            ze_event_query_kernel_timestamps_ext_version_t::ZE_EVENT_QUERY_KERNEL_TIMESTAMPS_EXT_VERSION_CURRENT.0,
        ),
        // compute-runtime lists it (`driver_handle_helper.cpp`); see `fabric`.
        (
            ZE_FABRIC_EXP_NAME,
            ze_fabric_exp_version_t::ZE_FABRIC_EXP_VERSION_CURRENT.0,
        ),
    ]
}

pub(crate) unsafe extern "C" fn get_extension_properties(
    driver: ze_driver_handle_t,
    count: *mut u32,
    properties: *mut ze_driver_extension_properties_t,
) -> ze_result_t {
    guard(|| {
        let platform = registry::driver(driver as usize)?;
        // The clone extension only where the configuration implements it (compute-runtime
        // does not).
        let clone = platform.config.command_list_clone.then_some((
            ZE_COMMAND_LIST_CLONE_EXP_NAME as &[u8],
            ze_command_list_clone_exp_version_t::ZE_COMMAND_LIST_CLONE_EXP_VERSION_CURRENT.0,
        ));
        let all: Vec<(&[u8], u32)> = extensions().into_iter().chain(clone).collect();
        let items = all.into_iter().map(|(name, version)| {
            let mut property = ze_driver_extension_properties_t::default();
            let name = CStr::from_bytes_with_nul(name)
                .map(|name| name.to_string_lossy())
                .unwrap_or_default();
            write_c_string(&mut property.name, &name);
            property.version = version;
            property
        });
        // SAFETY: the caller's pointers.
        unsafe { fill_array(count, properties, items) }
    })
}

pub(crate) unsafe extern "C" fn get_extension_function_address(
    driver: ze_driver_handle_t,
    name: *const c_char,
    function: *mut *mut c_void,
) -> ze_result_t {
    guard(|| {
        let platform = registry::driver(driver as usize)?;
        if name.is_null() {
            return Err(ze_result_t::ZE_RESULT_ERROR_INVALID_NULL_POINTER);
        }
        // SAFETY: a NUL-terminated name, as the spec requires.
        let name = unsafe { CStr::from_ptr(name) }.to_string_lossy();
        // SAFETY: the caller's output pointer.
        let function = unsafe { out(function) }?;
        let address = platform
            .config
            .zex_extension
            .then(|| super::zex::resolve(&name))
            .flatten()
            .ok_or(ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT)?;
        *function = address as *mut c_void;
        Ok(())
    })
}

/// `zeDriverGetLastErrorDescription`: the simulator keeps no error text beyond the result codes
/// it returns, so the description is empty (the specification allows it).
pub(crate) unsafe extern "C" fn get_last_error_description(
    driver: ze_driver_handle_t,
    description: *mut *const c_char,
) -> ze_result_t {
    guard(|| {
        registry::driver(driver as usize)?;
        // SAFETY: the caller's output pointer.
        *unsafe { out(description) }? = c"".as_ptr();
        Ok(())
    })
}
