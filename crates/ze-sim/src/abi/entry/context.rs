//! Contexts and residency.

use super::{guard, handles, out};
use crate::abi::registry::{self, Object};
use crate::engine::platform::Inner;
use crate::model::memory_kind::MemKind;
use crate::objects::context::Context;
use level_zero_sys::*;
use std::ffi::c_void;
use std::sync::Arc;

fn create_context(platform: &Arc<Inner>, devices: u64) -> usize {
    let handle = registry::register(platform, Object::Context(Arc::new(Context { devices })));
    platform.lock().counters.live_contexts += 1;
    handle
}

pub(crate) unsafe extern "C" fn create(
    driver: ze_driver_handle_t,
    desc: *const ze_context_desc_t,
    context: *mut ze_context_handle_t,
) -> ze_result_t {
    guard(|| {
        let platform = registry::driver(driver as usize)?;
        // SAFETY: the caller's descriptor.
        unsafe { super::input(desc) }?;
        // SAFETY: the caller's output pointer.
        let context = unsafe { out(context) }?;
        let all = u64::MAX >> (64 - platform.device_count());
        *context = create_context(&platform, all) as ze_context_handle_t;
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn create_ex(
    driver: ze_driver_handle_t,
    desc: *const ze_context_desc_t,
    device_count: u32,
    devices: *mut ze_device_handle_t,
    context: *mut ze_context_handle_t,
) -> ze_result_t {
    guard(|| {
        let platform = registry::driver(driver as usize)?;
        // SAFETY: the caller's descriptor.
        unsafe { super::input(desc) }?;
        // SAFETY: the caller's array of `device_count` handles.
        let listed = unsafe { handles(device_count, devices) }?;
        let mut mask = 0u64;
        for device in listed {
            let (owner, index) = registry::device(device as usize)?;
            if !Arc::ptr_eq(&owner, &platform) {
                return Err(ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT);
            }
            mask |= 1 << index;
        }
        if device_count == 0 {
            mask = u64::MAX >> (64 - platform.device_count());
        }
        // SAFETY: the caller's output pointer.
        let context = unsafe { out(context) }?;
        *context = create_context(&platform, mask) as ze_context_handle_t;
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn destroy(context: ze_context_handle_t) -> ze_result_t {
    guard(|| {
        let (platform, _) = registry::context(context as usize)?;
        let mut state = platform.lock();
        // Objects made in the context should go first; compute-runtime destroys it anyway
        // (`Context::destroy` answers success), and so does the simulator, counting the hazard.
        // What is left stays live (and counted): the driver keeps allocations in its own
        // manager, not the context's.
        if state
            .uses
            .context_children
            .get(&(context as usize))
            .copied()
            .unwrap_or(0)
            > 0
        {
            // The count stays, for the children's own destruction to come.
            state.counters.destroy_hazards += 1;
        } else {
            state.uses.context_children.remove(&(context as usize));
        }
        state.counters.live_contexts -= 1;
        drop(state);
        registry::unregister(context as usize);
        Ok(())
    })
}

/// The platform, the context's device set and the device index, checked to belong together.
pub(crate) fn context_device(
    context: ze_context_handle_t,
    device: ze_device_handle_t,
) -> Result<(Arc<Inner>, u32), ze_result_t> {
    let (platform, context) = registry::context(context as usize)?;
    let (device_platform, index) = registry::device(device as usize)?;
    if !Arc::ptr_eq(&platform, &device_platform) || context.devices & (1 << index) == 0 {
        return Err(ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT);
    }
    Ok((platform, index))
}

fn residency(
    context: ze_context_handle_t,
    device: ze_device_handle_t,
    pointer: *mut c_void,
    size: usize,
    evict: bool,
) -> Result<(), ze_result_t> {
    let (platform, index) = context_device(context, device)?;
    if pointer.is_null() {
        return Err(ze_result_t::ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    }
    let mut state = platform.lock();
    if evict {
        state.counters.evict_calls += 1;
    } else {
        state.counters.make_resident_calls += 1;
    }
    // Residency is tracked per allocation: any range inside one covers all of it.
    let base = Inner::find_allocation(&state, pointer as usize, size.max(1))?
        .ok_or(ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT)?;
    let allocation = &state.memory.allocations[&base];
    if allocation.context != context as usize {
        return Err(ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT);
    }
    // An opened IPC handle's residency on its owner is the exporter's, not this mapping's.
    if allocation.is_opened() && allocation.kind == (MemKind::Device { owner: index }) {
        return Ok(());
    }
    if evict {
        // Released drivers up to 26.31 look the pointer up only among the device's own
        // allocations (compute-runtime `level_zero/core/source/context/context.cpp`,
        // `Context::evictMemory`, before bfefe31a92): a peer's import is not found, and stays.
        // (An opened IPC handle is registered on the device that opened it, and found.)
        let peer_memory = matches!(allocation.kind, MemKind::Device { owner } if owner != index)
            && !allocation.is_opened();
        if peer_memory && platform.config.peer_eviction_refused {
            return Err(ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT);
        }
        platform.evict(&mut state, base, index)
    } else {
        let result = platform.make_resident(&mut state, base, index);
        if let Err(error) = result {
            let size = state
                .memory
                .allocations
                .get(&base)
                .map_or(0, |a| a.size as u64);
            platform.note_refusal("zeContextMakeMemoryResident", error, size);
        }
        result
    }
}

pub(crate) unsafe extern "C" fn make_memory_resident(
    context: ze_context_handle_t,
    device: ze_device_handle_t,
    pointer: *mut c_void,
    size: usize,
) -> ze_result_t {
    guard(|| residency(context, device, pointer, size, false))
}

pub(crate) unsafe extern "C" fn evict_memory(
    context: ze_context_handle_t,
    device: ze_device_handle_t,
    pointer: *mut c_void,
    size: usize,
) -> ze_result_t {
    guard(|| residency(context, device, pointer, size, true))
}

/// `zeContextGetStatus`: the context is usable unless its platform lost its device.
pub(crate) unsafe extern "C" fn get_status(context: ze_context_handle_t) -> ze_result_t {
    guard(|| {
        let (platform, _) = registry::context(context as usize)?;
        if platform.lock().lost {
            return Err(ze_result_t::ZE_RESULT_ERROR_DEVICE_LOST);
        }
        Ok(())
    })
}
