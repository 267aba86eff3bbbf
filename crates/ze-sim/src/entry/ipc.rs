//! IPC handles of device memory: `zeMemGetIpcHandle` makes an allocation's pages a memory file
//! and writes its descriptor into the handle's first four bytes (as compute-runtime writes a
//! dma-buf's); `zeMemOpenIpcHandle` maps that file at a new address, an allocation of the
//! opening context owned by the exporter's device whose bytes are the exporter's;
//! `zeMemCloseIpcHandle` unmaps it. Within one process (one simulated platform) the handle is
//! found by the exporting allocation's id, which it also carries.
//!
//! Assumed, since it is not known publicly: an opened handle is resident on its owner only;
//! a peer's use of it needs residency (or the driver's import) as any allocation's does, and
//! costs the same host memory.

use super::{guard, out};
use crate::backing::Backing;
use crate::platform::{Allocation, Inner, MemKind};
use crate::registry;
use level_zero_sys::*;
use std::ffi::c_void;

/// Where the handle's fields sit: the descriptor first (compute-runtime's layout), then what
/// this simulator needs to find the allocation again.
const FD: std::ops::Range<usize> = 0..4;
const ID: std::ops::Range<usize> = 8..16;
const LEN: std::ops::Range<usize> = 16..24;

fn write(handle: &mut ze_ipc_mem_handle_t, range: std::ops::Range<usize>, bytes: &[u8]) {
    for (slot, byte) in handle.data[range].iter_mut().zip(bytes) {
        *slot = *byte as std::ffi::c_char;
    }
}

fn read<const N: usize>(handle: &ze_ipc_mem_handle_t, range: std::ops::Range<usize>) -> [u8; N] {
    let mut bytes = [0; N];
    for (byte, slot) in bytes.iter_mut().zip(&handle.data[range]) {
        *byte = *slot as u8;
    }
    bytes
}

pub(crate) unsafe extern "C" fn get_handle(
    context: ze_context_handle_t,
    pointer: *const c_void,
    handle: *mut ze_ipc_mem_handle_t,
) -> ze_result_t {
    guard(|| {
        let (platform, _) = registry::context(context as usize)?;
        // SAFETY: the caller's output pointer.
        let handle = unsafe { out(handle) }?;
        let mut state = platform.lock();
        let allocation = state
            .allocations
            .get_mut(&(pointer as usize))
            .filter(|allocation| allocation.context == context as usize)
            .ok_or(ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT)?;
        if !matches!(allocation.kind, MemKind::Device { .. }) || allocation.is_opened() {
            return Err(ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT);
        }
        // Its pages become a memory file: nothing may be moving its bytes meanwhile.
        if allocation.pending > 0 {
            return Err(ze_result_t::ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE);
        }
        let (id, backing) = (allocation.id, allocation.backing_mut());
        let len = backing
            .and_then(|backing| backing.pages_len())
            .ok_or(ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT)?;
        let fd = allocation
            .backing_mut()
            .and_then(Backing::share)
            .ok_or(ze_result_t::ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY)?;
        *handle = ze_ipc_mem_handle_t::default();
        write(handle, FD, &fd.to_ne_bytes());
        write(handle, ID, &id.to_ne_bytes());
        write(handle, LEN, &(len as u64).to_ne_bytes());
        state.counters.ipc_handles_exported += 1;
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn put_handle(
    context: ze_context_handle_t,
    _handle: ze_ipc_mem_handle_t,
) -> ze_result_t {
    // The memory file lives as long as the allocation or an opened mapping of it.
    guard(|| registry::context(context as usize).map(|_| ()))
}

pub(crate) unsafe extern "C" fn open_handle(
    context: ze_context_handle_t,
    device: ze_device_handle_t,
    handle: ze_ipc_mem_handle_t,
    _flags: ze_ipc_memory_flags_t,
    pointer: *mut *mut c_void,
) -> ze_result_t {
    guard(|| {
        let (platform, _) = super::context::context_device(context, device)?;
        // SAFETY: the caller's output pointer.
        let pointer = unsafe { out(pointer) }?;
        let fd = i32::from_ne_bytes(read(&handle, FD));
        let id = u64::from_ne_bytes(read(&handle, ID));
        let len = usize::try_from(u64::from_ne_bytes(read(&handle, LEN)))
            .map_err(|_| ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT)?;
        let mut state = platform.lock();
        // The exporter, live in this platform, exported already (its pages are a memory file),
        // with the descriptor and length the handle names: nothing in a made-up handle is
        // trusted further than that.
        let (size, owner) = state
            .allocations
            .values()
            .find(|allocation| allocation.id == id)
            .and_then(|allocation| {
                let backing = allocation.backing()?;
                let MemKind::Device { owner } = allocation.kind else {
                    return None;
                };
                (backing.shared_file() == Some(fd) && backing.pages_len() == Some(len))
                    .then_some((allocation.size, owner))
            })
            .ok_or(ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT)?;
        let backing =
            Backing::open(fd, len).ok_or(ze_result_t::ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY)?;
        let address = backing.address();
        let mut opened = Allocation::opened(&mut state, size, owner, context as usize, backing);
        // Resident on its owner already: the exporter committed it there.
        opened.resident = 1 << owner;
        state.allocations.insert(address, opened);
        state.counters.live_opened_ipc_handles += 1;
        *state.context_children.entry(context as usize).or_default() += 1;
        *pointer = address as *mut c_void;
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn close_handle(
    context: ze_context_handle_t,
    pointer: *const c_void,
) -> ze_result_t {
    guard(|| {
        let (platform, _) = registry::context(context as usize)?;
        let mut state = platform.lock();
        let address = pointer as usize;
        match state.allocations.get(&address) {
            Some(opened) if opened.is_opened() && opened.context == context as usize => {
                if opened.pending > 0 {
                    state.counters.free_hazards += 1;
                    return Err(ze_result_t::ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE);
                }
            }
            _ => return Err(ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT),
        }
        let Some(mut opened) = state.allocations.remove(&address) else {
            return Err(ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT);
        };
        // Its residency on the owner is the exporter's, not this mapping's.
        if let MemKind::Device { owner } = opened.kind {
            opened.resident &= !(1 << owner);
        }
        Inner::release_all_residency(&platform, &mut state, &opened);
        state.counters.live_opened_ipc_handles -= 1;
        if let Some(children) = state.context_children.get_mut(&(context as usize)) {
            *children -= 1;
        }
        Ok(())
    })
}
