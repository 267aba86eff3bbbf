//! Virtual memory: physical memory objects, reserved address ranges, and mappings of the one
//! into the other (what PyTorch's expandable segments and SYCL's virtual-memory extension use
//! instead of `zeMemAllocDevice`).
//!
//! The bytes are real and shared: a physical memory object is an anonymous memory file, a
//! reservation is inaccessible address space, and a mapping maps the file's pages at the
//! reserved address, so copies and kernels through the mapping read and write the physical
//! memory. A mapping is an allocation of the platform in every other respect: owned by the
//! physical memory's device, committed there on first use, made resident on a peer only by a
//! residency call or the driver's import, and checked like any other device memory.
//!
//! Semantics follow the specification (`ze_api.h`, virtual memory) and, where it is silent,
//! what compute-runtime does (`level_zero/core/source/context/context.cpp`): an unaligned size
//! is `UNSUPPORTED_SIZE`, an unaligned address or offset `UNSUPPORTED_ALIGNMENT`; a map past the
//! end of the physical memory, outside every reservation, over an existing mapping, or of device
//! physical memory mapped already is
//! `INVALID_ARGUMENT`; unmapping a range with no mapping succeeds. Access attributes are
//! recorded and reported per mapping (set for a whole mapping at a time), not enforced: the
//! host pages stay readable and writable. Assumed: a page size of
//! 64 KiB, and 2 MiB for requests of 2 MiB or more (the value `zeVirtualMemQueryPageSize`
//! returns; addresses and sizes need only be 64 KiB aligned). Refused where the specification
//! makes it the program's error, to keep the simulator's own memory safe: destroying physical
//! memory that is mapped (`HANDLE_OBJECT_IN_USE`), and unmapping or freeing a range that
//! submitted work still uses (`HANDLE_OBJECT_IN_USE`, counted as a free hazard).

use super::{guard, input, out};
use crate::abi::registry::{self, Object};
use crate::engine::memory::Allocation;
use crate::engine::platform::{Inner, State};
use crate::model::machine::Figure;
use crate::model::memory_kind::MemKind;
use crate::objects::virtual_mem::{PhysicalMemory, Reservation};
use level_zero_sys::*;
use std::ffi::c_void;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};

/// The granularity of addresses, sizes and offsets.
const GRANULE: usize = 64 << 10;
const LARGE_PAGE: usize = 2 << 20;

fn aligned(value: usize) -> bool {
    value.is_multiple_of(GRANULE)
}

/// Maps `size` bytes at `address` inaccessible again (the reservation's state).
///
/// # Safety
/// `[address, address + size)` must lie in a reservation of this module.
unsafe fn make_inaccessible(address: usize, size: usize) -> bool {
    // SAFETY: replaces pages of a reservation this module owns (the caller's promise).
    let mapped = unsafe {
        libc::mmap(
            address as *mut c_void,
            size,
            libc::PROT_NONE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE | libc::MAP_FIXED,
            -1,
            0,
        )
    };
    mapped != libc::MAP_FAILED
}

pub(crate) unsafe extern "C" fn query_page_size(
    context: ze_context_handle_t,
    device: ze_device_handle_t,
    size: usize,
    page_size: *mut usize,
) -> ze_result_t {
    guard(|| {
        let (platform, _) = super::context::context_device(context, device)?;
        // SAFETY: the caller's output pointer.
        let page_size = unsafe { out(page_size) }?;
        // The specification makes a size of 0 an error; compute-runtime answers its smallest
        // page (`ContextImp::queryVirtualMemPageSize` takes any size), and level-zero-tests'
        // virtual-memory cases ask with 0. Checking mode refuses it.
        if size == 0 && !platform.config.implicit_peer_import {
            return Err(ze_result_t::ZE_RESULT_ERROR_UNSUPPORTED_SIZE);
        }
        *page_size = if size >= LARGE_PAGE {
            LARGE_PAGE
        } else {
            GRANULE
        };
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn physical_create(
    context: ze_context_handle_t,
    device: ze_device_handle_t,
    desc: *mut ze_physical_mem_desc_t,
    physical: *mut ze_physical_mem_handle_t,
) -> ze_result_t {
    guard(|| {
        let (platform, _) = registry::context(context as usize)?;
        // SAFETY: the caller's descriptor.
        let desc = unsafe { input(desc as *const ze_physical_mem_desc_t) }?;
        // SAFETY: the caller's output pointer.
        let physical = unsafe { out(physical) }?;
        let on_host = ze_physical_mem_flag_t::ZE_PHYSICAL_MEM_FLAG_ALLOCATE_ON_HOST.0;
        if desc.flags & !(on_host | 1) != 0 {
            return Err(ze_result_t::ZE_RESULT_ERROR_INVALID_ENUMERATION);
        }
        let kind = if desc.flags & on_host != 0 {
            MemKind::Host
        } else {
            let (_, owner) = super::context::context_device(context, device)?;
            MemKind::Device { owner }
        };
        if desc.size == 0 || !aligned(desc.size) {
            return Err(ze_result_t::ZE_RESULT_ERROR_UNSUPPORTED_SIZE);
        }
        let mut state = platform.lock();
        let size64 = desc.size as u64;
        let (figure, limit, refused) = match kind {
            MemKind::Device { owner } => (
                Figure::Allocated(owner),
                platform.device_limit(owner),
                ze_result_t::ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY,
            ),
            _ => (
                Figure::HostPinned,
                platform.host_limit(),
                ze_result_t::ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY,
            ),
        };
        if platform
            .charge(&mut state, figure, size64, Some(limit))
            .is_err()
        {
            platform.note_refusal("zePhysicalMemCreate", refused, size64);
            return Err(refused);
        }
        // Charged: undone if the memory file cannot be made.
        let undo = |mut state: parking_lot::MutexGuard<'_, crate::engine::platform::State>| {
            platform.discharge(&mut state, figure, size64);
            ze_result_t::ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY
        };
        // SAFETY: a name and flags; the result is a new descriptor or -1.
        let fd =
            unsafe { libc::memfd_create(c"ze-sim physical memory".as_ptr(), libc::MFD_CLOEXEC) };
        if fd < 0 {
            return Err(undo(state));
        }
        // SAFETY: a descriptor just made, owned by nothing else.
        let file = unsafe { OwnedFd::from_raw_fd(fd) };
        // A sparse file: pages cost host memory only once written, like the other allocations.
        // SAFETY: a descriptor this function owns.
        if unsafe { libc::ftruncate(file.as_raw_fd(), desc.size as libc::off_t) } != 0 {
            return Err(undo(state));
        }
        state.counters.live_physical_memory += 1;
        *state
            .uses
            .context_children
            .entry(context as usize)
            .or_default() += 1;
        drop(state);
        let object = PhysicalMemory {
            context: context as usize,
            kind,
            size: desc.size,
            file,
            mappings: AtomicU32::new(0),
        };
        *physical = registry::register(&platform, Object::PhysicalMemory(Arc::new(object))) as _;
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn physical_destroy(
    context: ze_context_handle_t,
    physical: ze_physical_mem_handle_t,
) -> ze_result_t {
    guard(|| {
        let (platform, object) = registry::physical_memory(physical as usize)?;
        if object.context != context as usize {
            return Err(ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT);
        }
        let mut state = platform.lock();
        if object.mappings.load(Ordering::Acquire) > 0 {
            return Err(ze_result_t::ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE);
        }
        registry::unregister(physical as usize);
        let size64 = object.size as u64;
        let figure = match object.kind {
            MemKind::Device { owner } => Figure::Allocated(owner),
            _ => Figure::HostPinned,
        };
        platform.discharge(&mut state, figure, size64);
        state.counters.live_physical_memory -= 1;
        if let Some(children) = state.uses.context_children.get_mut(&(context as usize)) {
            *children = children.saturating_sub(1);
        }
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn physical_get_properties(
    context: ze_context_handle_t,
    physical: ze_physical_mem_handle_t,
    properties: *mut ze_physical_mem_properties_t,
) -> ze_result_t {
    guard(|| {
        let (_, object) = registry::physical_memory(physical as usize)?;
        if object.context != context as usize {
            return Err(ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT);
        }
        // SAFETY: the caller's output pointer.
        let properties = unsafe { out(properties) }?;
        properties.id = physical as u64;
        properties.size = object.size as u64;
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn reserve(
    context: ze_context_handle_t,
    _start: *const c_void,
    size: usize,
    pointer: *mut *mut c_void,
) -> ze_result_t {
    guard(|| {
        let (platform, _) = registry::context(context as usize)?;
        // SAFETY: the caller's output pointer.
        let pointer = unsafe { out(pointer) }?;
        if size == 0 || !aligned(size) {
            return Err(ze_result_t::ZE_RESULT_ERROR_UNSUPPORTED_SIZE);
        }
        let padded = size
            .checked_add(LARGE_PAGE)
            .ok_or(ze_result_t::ZE_RESULT_ERROR_UNSUPPORTED_SIZE)?;
        // The start hint is only a hint: the range goes where the host has room, aligned to a
        // large page.
        // SAFETY: asks for fresh, inaccessible address space.
        let raw = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                padded,
                libc::PROT_NONE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
                -1,
                0,
            )
        };
        if raw == libc::MAP_FAILED {
            return Err(ze_result_t::ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY);
        }
        let raw = raw as usize;
        let base = raw.next_multiple_of(LARGE_PAGE);
        // SAFETY: the head and tail of the range just mapped, outside the reservation.
        unsafe {
            if base > raw {
                libc::munmap(raw as *mut c_void, base - raw);
            }
            let end = base + size;
            if raw + padded > end {
                libc::munmap(end as *mut c_void, raw + padded - end);
            }
        }
        let mut state = platform.lock();
        state.memory.reservations.insert(
            base,
            Reservation {
                context: context as usize,
                size,
            },
        );
        state.counters.live_virtual_reservations += 1;
        *state
            .uses
            .context_children
            .entry(context as usize)
            .or_default() += 1;
        *pointer = base as *mut c_void;
        Ok(())
    })
}

/// The reservation of `context` holding `[address, address + size)`.
fn reservation_holding(
    state: &State,
    context: usize,
    address: usize,
    size: usize,
) -> Result<usize, ze_result_t> {
    let (&base, reservation) = state
        .memory
        .reservations
        .range(..=address)
        .next_back()
        .ok_or(ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT)?;
    let end = address
        .checked_add(size)
        .ok_or(ze_result_t::ZE_RESULT_ERROR_UNSUPPORTED_SIZE)?;
    if reservation.context != context || end > base + reservation.size {
        return Err(ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT);
    }
    Ok(base)
}

/// Checks a range's alignment as unmap and the access calls do.
fn check_range(address: usize, size: usize) -> Result<(), ze_result_t> {
    if !aligned(address) {
        return Err(ze_result_t::ZE_RESULT_ERROR_UNSUPPORTED_ALIGNMENT);
    }
    if size == 0 || !aligned(size) {
        return Err(ze_result_t::ZE_RESULT_ERROR_UNSUPPORTED_SIZE);
    }
    Ok(())
}

fn check_access(access: ze_memory_access_attribute_t) -> Result<(), ze_result_t> {
    if access.0 > ze_memory_access_attribute_t::ZE_MEMORY_ACCESS_ATTRIBUTE_READONLY.0 {
        return Err(ze_result_t::ZE_RESULT_ERROR_INVALID_ENUMERATION);
    }
    Ok(())
}

pub(crate) unsafe extern "C" fn map(
    context: ze_context_handle_t,
    pointer: *const c_void,
    size: usize,
    physical: ze_physical_mem_handle_t,
    offset: usize,
    access: ze_memory_access_attribute_t,
) -> ze_result_t {
    guard(|| {
        let (platform, _) = registry::context(context as usize)?;
        let (_, object) = registry::physical_memory(physical as usize)?;
        check_access(access)?;
        let address = pointer as usize;
        if size == 0 || !aligned(size) {
            return Err(ze_result_t::ZE_RESULT_ERROR_UNSUPPORTED_SIZE);
        }
        if !aligned(address) || !aligned(offset) {
            return Err(ze_result_t::ZE_RESULT_ERROR_UNSUPPORTED_ALIGNMENT);
        }
        if object.context != context as usize
            || offset.checked_add(size).is_none_or(|end| end > object.size)
        {
            return Err(ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT);
        }
        // Under the platform lock, which destroying physical memory takes too: the object is
        // still live, and (compute-runtime maps a device's physical memory once at a time) not
        // mapped already.
        let mut state = platform.lock();
        let live = registry::physical_memory(physical as usize).is_ok();
        let mapped_already =
            object.kind != MemKind::Host && object.mappings.load(Ordering::Acquire) > 0;
        if !live || mapped_already {
            return Err(ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT);
        }
        reservation_holding(&state, context as usize, address, size)?;
        // No mapping may overlap the range (nor any other allocation, which cannot lie in a
        // reservation anyway).
        let overlaps = state
            .memory
            .allocations
            .range(..address + size)
            .next_back()
            .is_some_and(|(&base, allocation)| base + allocation.size > address);
        if overlaps {
            return Err(ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT);
        }
        // SAFETY: replaces inaccessible pages of a reservation of this context with the
        // physical memory's pages `[offset, offset + size)`, which exist (checked above).
        let mapped = unsafe {
            libc::mmap(
                address as *mut c_void,
                size,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED | libc::MAP_FIXED,
                object.file.as_raw_fd(),
                offset as libc::off_t,
            )
        };
        if mapped == libc::MAP_FAILED {
            return Err(ze_result_t::ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY);
        }
        object.mappings.fetch_add(1, Ordering::AcqRel);
        let mapping = Allocation::mapping(&mut state.memory, size, object.kind, context as usize);
        state.memory.allocations.insert(address, mapping);
        state.memory.mapped_from.insert(address, (object, access));
        state.counters.live_virtual_mappings += 1;
        Ok(())
    })
}

/// Removes the mappings of `context` that lie in `[address, address + size)` (a mapping that
/// only partly overlaps is left, as compute-runtime does); refused, with a hazard counted, if
/// work still uses one.
fn unmap_range(
    platform: &Inner,
    state: &mut State,
    context: usize,
    address: usize,
    size: usize,
) -> Result<(), ze_result_t> {
    let end = address
        .checked_add(size)
        .ok_or(ze_result_t::ZE_RESULT_ERROR_UNSUPPORTED_SIZE)?;
    let inside: Vec<usize> = state
        .memory
        .allocations
        .range(address..end)
        .filter(|(base, allocation)| {
            allocation.is_mapping()
                && allocation.context == context
                && **base + allocation.size <= end
        })
        .map(|(&base, _)| base)
        .collect();
    if inside
        .iter()
        .any(|base| state.memory.allocations[base].pending > 0)
    {
        state.counters.free_hazards += 1;
        return Err(ze_result_t::ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE);
    }
    for base in inside {
        let size = state.memory.allocations[&base].size;
        // The pages first: if the host refuses, every record stays as it was.
        // SAFETY: the mapping's pages, inside a reservation of this context.
        if !unsafe { make_inaccessible(base, size) } {
            return Err(ze_result_t::ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY);
        }
        let Some(mapping) = state.memory.allocations.remove(&base) else {
            continue;
        };
        platform.release_all_residency(state, &mapping);
        if let Some((object, _)) = state.memory.mapped_from.remove(&base) {
            object.mappings.fetch_sub(1, Ordering::AcqRel);
        }
        state.counters.live_virtual_mappings -= 1;
    }
    Ok(())
}

pub(crate) unsafe extern "C" fn unmap(
    context: ze_context_handle_t,
    pointer: *const c_void,
    size: usize,
) -> ze_result_t {
    guard(|| {
        let (platform, _) = registry::context(context as usize)?;
        check_range(pointer as usize, size)?;
        let mut state = platform.lock();
        unmap_range(
            &platform,
            &mut state,
            context as usize,
            pointer as usize,
            size,
        )
    })
}

pub(crate) unsafe extern "C" fn free(
    context: ze_context_handle_t,
    pointer: *const c_void,
    size: usize,
) -> ze_result_t {
    guard(|| {
        let (platform, _) = registry::context(context as usize)?;
        let address = pointer as usize;
        if size == 0 {
            return Err(ze_result_t::ZE_RESULT_ERROR_UNSUPPORTED_SIZE);
        }
        if !aligned(address) {
            return Err(ze_result_t::ZE_RESULT_ERROR_UNSUPPORTED_ALIGNMENT);
        }
        let mut state = platform.lock();
        match state.memory.reservations.get(&address) {
            Some(reservation)
                if reservation.context == context as usize && reservation.size == size => {}
            _ => return Err(ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT),
        }
        unmap_range(&platform, &mut state, context as usize, address, size)?;
        state.memory.reservations.remove(&address);
        // SAFETY: the whole reservation, handed out by `reserve`, now without mappings.
        unsafe { libc::munmap(address as *mut c_void, size) };
        state.counters.live_virtual_reservations -= 1;
        if let Some(children) = state.uses.context_children.get_mut(&(context as usize)) {
            *children = children.saturating_sub(1);
        }
        Ok(())
    })
}

/// The mapping of `context` that is exactly `[address, address + size)`.
fn whole_mapping(
    state: &State,
    context: usize,
    address: usize,
    size: usize,
) -> Result<(), ze_result_t> {
    match state.memory.allocations.get(&address) {
        Some(mapping)
            if mapping.is_mapping() && mapping.context == context && mapping.size == size =>
        {
            Ok(())
        }
        _ => Err(ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT),
    }
}

pub(crate) unsafe extern "C" fn set_access_attribute(
    context: ze_context_handle_t,
    pointer: *const c_void,
    size: usize,
    access: ze_memory_access_attribute_t,
) -> ze_result_t {
    guard(|| {
        let (platform, _) = registry::context(context as usize)?;
        check_access(access)?;
        let address = pointer as usize;
        check_range(address, size)?;
        let mut state = platform.lock();
        reservation_holding(&state, context as usize, address, size)?;
        whole_mapping(&state, context as usize, address, size)?;
        if let Some((_, recorded)) = state.memory.mapped_from.get_mut(&address) {
            *recorded = access;
        }
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn get_access_attribute(
    context: ze_context_handle_t,
    pointer: *const c_void,
    size: usize,
    access: *mut ze_memory_access_attribute_t,
    out_size: *mut usize,
) -> ze_result_t {
    guard(|| {
        let (platform, _) = registry::context(context as usize)?;
        let address = pointer as usize;
        check_range(address, size)?;
        // SAFETY: the caller's output pointers.
        let (access, out_size) = unsafe { (out(access)?, out(out_size)?) };
        let state = platform.lock();
        reservation_holding(&state, context as usize, address, size)?;
        // The mapping that starts at `address`, and how far its attribute holds; unmapped
        // pages are inaccessible up to the next mapping.
        match state.memory.mapped_from.get(&address) {
            Some((_, recorded)) => {
                *access = *recorded;
                *out_size = state.memory.allocations[&address].size;
            }
            None => {
                *access = ze_memory_access_attribute_t::ZE_MEMORY_ACCESS_ATTRIBUTE_NONE;
                let next = state
                    .memory
                    .allocations
                    .range(address..address + size)
                    .next()
                    .map_or(address + size, |(&base, _)| base);
                *out_size = next - address;
            }
        }
        Ok(())
    })
}
