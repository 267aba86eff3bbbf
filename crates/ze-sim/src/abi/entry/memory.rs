//! USM allocation, free and queries.

use super::{guard, input, out};
use crate::abi::registry;
use crate::engine::platform::Inner;
use crate::model::memory_kind::MemKind;
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
        // SAFETY: the caller's descriptor. Its `stype` is not checked: compute-runtime reads
        // only its flags, ordinal and `pNext` chain (`Context::allocDeviceMem`,
        // level_zero/core/source/context/context.cpp), and programs that leave it 0 (Intel MPI's
        // IMB-MPI1-GPU) run there.
        unsafe { input(desc) }?;
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
        // SAFETY: the caller's descriptor; its `stype` is not checked, as for device memory
        // (`Context::allocHostMem`).
        unsafe { input(desc) }?;
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
        // Any allocation of the driver, whichever context made it: compute-runtime looks the
        // pointer up in the driver's allocation manager (`Context::getMemAllocProperties`,
        // level_zero/core/source/context/context.cpp, `driverHandle->svmAllocsManager`).
        let found = Inner::find_allocation(&state, pointer as usize, 1)
            .ok()
            .flatten()
            .map(|base| &state.memory.allocations[&base]);
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
        // Driver-wide, and ADDRESS_NOT_FOUND for memory it did not allocate, as compute-runtime's
        // `Context::getMemAddressRange` (level_zero/core/source/context/context.cpp).
        let found = Inner::find_allocation(&state, pointer as usize, 1)?
            .ok_or(ze_result_t::ZE_RESULT_ERROR_ADDRESS_NOT_FOUND)?;
        if !base.is_null() {
            // SAFETY: the caller's optional output pointer, checked non-null.
            unsafe { *base = found as *mut c_void };
        }
        if !size.is_null() {
            // SAFETY: as above.
            unsafe { *size = state.memory.allocations[&found].size };
        }
        Ok(())
    })
}

/// The allocation of `context` holding `pointer`, by its base, for the atomic attribute calls,
/// which look only at the pointer (compute-runtime's `getSVMAlloc(ptr)`).
fn allocation_at(
    state: &crate::engine::platform::State,
    context: usize,
    pointer: *const c_void,
) -> Result<usize, ze_result_t> {
    if pointer.is_null() {
        return Err(ze_result_t::ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    }
    Inner::find_allocation(state, pointer as usize, 1)?
        .filter(|base| state.memory.allocations[base].context == context)
        .ok_or(ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT)
}

/// `zeMemSetAtomicAccessAttributeExp`, as compute-runtime's `ContextImp::setAtomicAccessAttribute`
/// answers (read in its source): shared allocations only; device atomics refused unless the
/// device's `deviceAllocCapabilities` have atomics, host atomics unless `hostAllocCapabilities`
/// do, system atomics unless shared single- or cross-device allocations have concurrent
/// atomics; attributes naming no mode are refused. They are kept per device (the simulator
/// models no atomics, so they change nothing else).
pub(crate) unsafe extern "C" fn set_atomic_access_attribute(
    context: ze_context_handle_t,
    device: ze_device_handle_t,
    pointer: *const c_void,
    _size: usize,
    attributes: ze_memory_atomic_attr_exp_flags_t,
) -> ze_result_t {
    guard(|| {
        let (platform, index) = super::context::context_device(context, device)?;
        let mut access = ze_device_memory_access_properties_t::default();
        // SAFETY: a live device handle and an output struct of this frame.
        let result = unsafe { super::device::get_memory_access_properties(device, &mut access) };
        if result != ze_result_t::ZE_RESULT_SUCCESS {
            return Err(result);
        }
        type Flag = ze_memory_atomic_attr_exp_flag_t;
        type Cap = ze_memory_access_cap_flag_t;
        let has = |flag: Flag| attributes & flag.0 != 0;
        let refused = Err(ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT);
        let mut names_a_mode = attributes == 0;
        if has(Flag::ZE_MEMORY_ATOMIC_ATTR_EXP_FLAG_DEVICE_ATOMICS) {
            if access.deviceAllocCapabilities & Cap::ZE_MEMORY_ACCESS_CAP_FLAG_ATOMIC.0 == 0 {
                return refused;
            }
            names_a_mode = true;
        }
        if has(Flag::ZE_MEMORY_ATOMIC_ATTR_EXP_FLAG_HOST_ATOMICS) {
            if access.hostAllocCapabilities & Cap::ZE_MEMORY_ACCESS_CAP_FLAG_ATOMIC.0 == 0 {
                return refused;
            }
            names_a_mode = true;
        }
        if has(Flag::ZE_MEMORY_ATOMIC_ATTR_EXP_FLAG_SYSTEM_ATOMICS) {
            let concurrent = Cap::ZE_MEMORY_ACCESS_CAP_FLAG_CONCURRENT_ATOMIC.0;
            if (access.sharedSingleDeviceAllocCapabilities
                | access.sharedCrossDeviceAllocCapabilities)
                & concurrent
                == 0
            {
                return refused;
            }
            names_a_mode = true;
        }
        names_a_mode |= [
            Flag::ZE_MEMORY_ATOMIC_ATTR_EXP_FLAG_NO_ATOMICS,
            Flag::ZE_MEMORY_ATOMIC_ATTR_EXP_FLAG_NO_HOST_ATOMICS,
            Flag::ZE_MEMORY_ATOMIC_ATTR_EXP_FLAG_NO_DEVICE_ATOMICS,
            Flag::ZE_MEMORY_ATOMIC_ATTR_EXP_FLAG_NO_SYSTEM_ATOMICS,
        ]
        .into_iter()
        .any(has);
        let mut state = platform.lock();
        let base = allocation_at(&state, context as usize, pointer)?;
        if !matches!(state.memory.allocations[&base].kind, MemKind::Shared { .. }) {
            return refused;
        }
        if !names_a_mode {
            return refused;
        }
        if let Some(allocation) = state.memory.allocations.get_mut(&base) {
            allocation.atomic_attributes.retain(|&(of, _)| of != index);
            allocation.atomic_attributes.push((index, attributes));
        }
        Ok(())
    })
}

/// `zeMemGetAtomicAccessAttributeExp`: what was last set for the allocation on this device;
/// refused where nothing was (as compute-runtime refuses it).
pub(crate) unsafe extern "C" fn get_atomic_access_attribute(
    context: ze_context_handle_t,
    device: ze_device_handle_t,
    pointer: *const c_void,
    _size: usize,
    attributes: *mut ze_memory_atomic_attr_exp_flags_t,
) -> ze_result_t {
    guard(|| {
        let (platform, index) = super::context::context_device(context, device)?;
        // SAFETY: the caller's output pointer.
        let attributes = unsafe { out(attributes) }?;
        let state = platform.lock();
        let base = allocation_at(&state, context as usize, pointer)?;
        *attributes = state.memory.allocations[&base]
            .atomic_attributes
            .iter()
            .find(|&&(of, _)| of == index)
            .map(|&(_, set)| set)
            .ok_or(ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT)?;
        Ok(())
    })
}
