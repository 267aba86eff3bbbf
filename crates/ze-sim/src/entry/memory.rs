//! USM allocation, free and queries.

use super::{guard, input, out};
use crate::platform::{Inner, MemKind};
use crate::registry;
use level_zero_sys::*;
use std::ffi::c_void;

pub(crate) unsafe extern "C" fn alloc_device(
    context: ze_context_handle_t,
    desc: *const ze_device_mem_alloc_desc_t,
    size: usize,
    alignment: usize,
    device: ze_device_handle_t,
    pointer: *mut *mut c_void,
) -> ze_result_t {
    guard(|| {
        // SAFETY: the caller's descriptor.
        let desc = unsafe { input(desc) }?;
        if desc.stype != ze_structure_type_t::ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC {
            return Err(ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT);
        }
        // SAFETY: the caller's output pointer.
        let pointer = unsafe { out(pointer) }?;
        let (platform, owner) = super::context::context_device(context, device)?;
        let kind = MemKind::Device { owner };
        *pointer = platform.allocate(context as usize, kind, size, alignment)? as *mut c_void;
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn alloc_host(
    context: ze_context_handle_t,
    desc: *const ze_host_mem_alloc_desc_t,
    size: usize,
    alignment: usize,
    pointer: *mut *mut c_void,
) -> ze_result_t {
    guard(|| {
        // SAFETY: the caller's descriptor.
        let desc = unsafe { input(desc) }?;
        if desc.stype != ze_structure_type_t::ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC {
            return Err(ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT);
        }
        // SAFETY: the caller's output pointer.
        let pointer = unsafe { out(pointer) }?;
        let (platform, _) = registry::context(context as usize)?;
        let address = platform.allocate(context as usize, MemKind::Host, size, alignment)?;
        *pointer = address as *mut c_void;
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn alloc_shared(
    context: ze_context_handle_t,
    device_desc: *const ze_device_mem_alloc_desc_t,
    host_desc: *const ze_host_mem_alloc_desc_t,
    size: usize,
    alignment: usize,
    device: ze_device_handle_t,
    pointer: *mut *mut c_void,
) -> ze_result_t {
    guard(|| {
        // SAFETY: the caller's descriptors.
        unsafe { input(device_desc) }?;
        // SAFETY: as above.
        unsafe { input(host_desc) }?;
        // SAFETY: the caller's output pointer.
        let pointer = unsafe { out(pointer) }?;
        let (platform, associated) = if device.is_null() {
            (registry::context(context as usize)?.0, None)
        } else {
            let (platform, index) = super::context::context_device(context, device)?;
            (platform, Some(index))
        };
        let kind = MemKind::Shared { device: associated };
        *pointer = platform.allocate(context as usize, kind, size, alignment)? as *mut c_void;
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn free(
    context: ze_context_handle_t,
    pointer: *mut c_void,
) -> ze_result_t {
    guard(|| {
        let (platform, _) = registry::context(context as usize)?;
        if pointer.is_null() {
            return Err(ze_result_t::ZE_RESULT_ERROR_INVALID_NULL_POINTER);
        }
        platform.free(context as usize, pointer as usize, false, false)
    })
}

pub(crate) unsafe extern "C" fn free_ext(
    context: ze_context_handle_t,
    desc: *const ze_memory_free_ext_desc_t,
    pointer: *mut c_void,
) -> ze_result_t {
    guard(|| {
        let (platform, _) = registry::context(context as usize)?;
        // SAFETY: the caller's descriptor.
        let desc = unsafe { input(desc) }?;
        if pointer.is_null() {
            return Err(ze_result_t::ZE_RESULT_ERROR_INVALID_NULL_POINTER);
        }
        let blocking =
            ze_driver_memory_free_policy_ext_flag_t::ZE_DRIVER_MEMORY_FREE_POLICY_EXT_FLAG_BLOCKING_FREE.0;
        let defer =
            ze_driver_memory_free_policy_ext_flag_t::ZE_DRIVER_MEMORY_FREE_POLICY_EXT_FLAG_DEFER_FREE.0;
        if desc.freePolicy & !(blocking | defer) != 0 {
            return Err(ze_result_t::ZE_RESULT_ERROR_INVALID_ENUMERATION);
        }
        platform.free(
            context as usize,
            pointer as usize,
            desc.freePolicy & blocking != 0,
            desc.freePolicy & defer != 0,
        )
    })
}

pub(crate) unsafe extern "C" fn get_alloc_properties(
    context: ze_context_handle_t,
    pointer: *const c_void,
    properties: *mut ze_memory_allocation_properties_t,
    device: *mut ze_device_handle_t,
) -> ze_result_t {
    guard(|| {
        let (platform, _) = registry::context(context as usize)?;
        // SAFETY: the caller's output pointer.
        let properties = unsafe { out(properties) }?;
        let state = platform.lock();
        let found = Inner::find_allocation(&state, pointer as usize, 1)
            .ok()
            .flatten()
            .map(|base| &state.allocations[&base])
            .filter(|allocation| allocation.context == context as usize);
        let (memory_type, id, owner) = match found {
            None => (ze_memory_type_t::ZE_MEMORY_TYPE_UNKNOWN, 0, None),
            Some(allocation) => match allocation.kind {
                MemKind::Device { owner } => (
                    ze_memory_type_t::ZE_MEMORY_TYPE_DEVICE,
                    allocation.id,
                    Some(owner),
                ),
                MemKind::Host => (ze_memory_type_t::ZE_MEMORY_TYPE_HOST, allocation.id, None),
                MemKind::Shared { device } => (
                    ze_memory_type_t::ZE_MEMORY_TYPE_SHARED,
                    allocation.id,
                    device,
                ),
            },
        };
        properties.type_ = memory_type;
        properties.id = id;
        properties.pageSize = if found.is_some() { 64 * 1024 } else { 0 };
        if !device.is_null() {
            let handle = owner.map_or(0, |index| platform.devices[index as usize]);
            // SAFETY: the caller's optional output pointer, checked non-null.
            unsafe { *device = handle as ze_device_handle_t };
        }
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn get_address_range(
    context: ze_context_handle_t,
    pointer: *const c_void,
    base: *mut *mut c_void,
    size: *mut usize,
) -> ze_result_t {
    guard(|| {
        let (platform, _) = registry::context(context as usize)?;
        let state = platform.lock();
        let found = Inner::find_allocation(&state, pointer as usize, 1)?
            .filter(|found| state.allocations[found].context == context as usize)
            .ok_or(ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT)?;
        if !base.is_null() {
            // SAFETY: the caller's optional output pointer, checked non-null.
            unsafe { *base = found as *mut c_void };
        }
        if !size.is_null() {
            // SAFETY: as above.
            unsafe { *size = state.allocations[&found].size };
        }
        Ok(())
    })
}

/// The shared allocation of `context` holding `[pointer, pointer + size)`, by its base: the
/// atomic attribute calls take shared allocations only ("Sets atomic access attributes for a
/// shared allocation", the spec's `zeMemSetAtomicAccessAttributeExp`).
fn shared_range(
    state: &crate::platform::State,
    context: usize,
    pointer: *const c_void,
    size: usize,
) -> Result<usize, ze_result_t> {
    if pointer.is_null() {
        return Err(ze_result_t::ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    }
    let base = Inner::find_allocation(state, pointer as usize, size.max(1))?
        .filter(|base| state.allocations[base].context == context)
        .ok_or(ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT)?;
    match state.allocations[&base].kind {
        MemKind::Shared { .. } => Ok(base),
        _ => Err(ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT),
    }
}

/// `zeMemSetAtomicAccessAttributeExp`: records the attributes of a shared allocation. A kind
/// of atomics the device's memory access properties do not offer is refused, as
/// compute-runtime refuses it: device atomics by `deviceAllocCapabilities`, host atomics by
/// `hostAllocCapabilities`, system atomics by `sharedSingleDeviceAllocCapabilities`.
pub(crate) unsafe extern "C" fn set_atomic_access_attribute(
    context: ze_context_handle_t,
    device: ze_device_handle_t,
    pointer: *const c_void,
    size: usize,
    attributes: ze_memory_atomic_attr_exp_flags_t,
) -> ze_result_t {
    guard(|| {
        let (platform, _) = super::context::context_device(context, device)?;
        type Flag = ze_memory_atomic_attr_exp_flag_t;
        let known = Flag::ZE_MEMORY_ATOMIC_ATTR_EXP_FLAG_NO_ATOMICS.0
            | Flag::ZE_MEMORY_ATOMIC_ATTR_EXP_FLAG_NO_DEVICE_ATOMICS.0
            | Flag::ZE_MEMORY_ATOMIC_ATTR_EXP_FLAG_DEVICE_ATOMICS.0
            | Flag::ZE_MEMORY_ATOMIC_ATTR_EXP_FLAG_NO_HOST_ATOMICS.0
            | Flag::ZE_MEMORY_ATOMIC_ATTR_EXP_FLAG_HOST_ATOMICS.0
            | Flag::ZE_MEMORY_ATOMIC_ATTR_EXP_FLAG_NO_SYSTEM_ATOMICS.0
            | Flag::ZE_MEMORY_ATOMIC_ATTR_EXP_FLAG_SYSTEM_ATOMICS.0;
        if attributes & !known != 0 {
            return Err(ze_result_t::ZE_RESULT_ERROR_INVALID_ENUMERATION);
        }
        let mut access = ze_device_memory_access_properties_t::default();
        // SAFETY: a live device handle and an output struct of this frame.
        let result = unsafe { super::device::get_memory_access_properties(device, &mut access) };
        if result != ze_result_t::ZE_RESULT_SUCCESS {
            return Err(result);
        }
        let atomic = ze_memory_access_cap_flag_t::ZE_MEMORY_ACCESS_CAP_FLAG_ATOMIC.0;
        let offered = [
            (
                Flag::ZE_MEMORY_ATOMIC_ATTR_EXP_FLAG_DEVICE_ATOMICS,
                access.deviceAllocCapabilities,
            ),
            (
                Flag::ZE_MEMORY_ATOMIC_ATTR_EXP_FLAG_HOST_ATOMICS,
                access.hostAllocCapabilities,
            ),
            (
                Flag::ZE_MEMORY_ATOMIC_ATTR_EXP_FLAG_SYSTEM_ATOMICS,
                access.sharedSingleDeviceAllocCapabilities,
            ),
        ];
        if offered
            .iter()
            .any(|(flag, capabilities)| attributes & flag.0 != 0 && capabilities & atomic == 0)
        {
            return Err(ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT);
        }
        let mut state = platform.lock();
        let base = shared_range(&state, context as usize, pointer, size)?;
        if let Some(allocation) = state.allocations.get_mut(&base) {
            allocation.atomic_attributes = attributes;
        }
        Ok(())
    })
}

/// `zeMemGetAtomicAccessAttributeExp`: what was last set for the shared allocation (0 before).
pub(crate) unsafe extern "C" fn get_atomic_access_attribute(
    context: ze_context_handle_t,
    device: ze_device_handle_t,
    pointer: *const c_void,
    size: usize,
    attributes: *mut ze_memory_atomic_attr_exp_flags_t,
) -> ze_result_t {
    guard(|| {
        let (platform, _) = super::context::context_device(context, device)?;
        // SAFETY: the caller's output pointer.
        let attributes = unsafe { out(attributes) }?;
        let state = platform.lock();
        let base = shared_range(&state, context as usize, pointer, size)?;
        *attributes = state.allocations[&base].atomic_attributes;
        Ok(())
    })
}
