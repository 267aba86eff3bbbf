//! IPC handles of device memory: `zeMemGetIpcHandle` makes an allocation's pages a memory file
//! and writes its descriptor into the handle's first four bytes (as compute-runtime writes a
//! dma-buf's); `zeMemOpenIpcHandle` maps that file at a new address, an allocation of the
//! opening context owned by the exporter's device whose bytes are the exporter's;
//! `zeMemCloseIpcHandle` unmaps it. The handle also carries the exporting allocation's id, its
//! length, its owner device and the exporter's process id.
//!
//! Within one process the handle is checked against the exporting allocation. From another
//! process (a rank of the same job, which duplicated the descriptor into itself with
//! `pidfd_getfd` or over a socket and wrote its own number into the handle, as oneCCL and UMF
//! do) the descriptor must be one of the simulator's device memory files, of at least the
//! handle's length, and the owner one of the machine's devices: nothing else in a made-up
//! handle is trusted.
//!
//! Opening imports the memory on the device the call names (compute-runtime imports the
//! dma-buf there): resident on its owner already (the exporter's VRAM, counted once, by the
//! exporter) and, for another device, a peer residency that grows that device's GTT. Whether
//! the import also pins host memory on Battlemage is not known publicly: the configuration's
//! `ipc_import_pins_host` decides (under the pinned mirror mode).
use super::{guard, out};
use crate::abi::registry;
use crate::engine::memory::Allocation;
use crate::engine::platform::{Inner, State};
use crate::model::backing::Backing;
use crate::model::memory_kind::MemKind;
use level_zero_sys::*;
use std::ffi::c_void;

/// Where the handle's fields sit: the descriptor first (compute-runtime's layout), then what
/// this simulator needs to find the allocation again.
const FD: std::ops::Range<usize> = 0..4;
const ID: std::ops::Range<usize> = 8..16;
const LEN: std::ops::Range<usize> = 16..24;
const OWNER: std::ops::Range<usize> = 24..28;
const PROCESS: std::ops::Range<usize> = 28..32;
const SIZE: std::ops::Range<usize> = 32..40;
/// The machine's record of the export, plus one (0: none).
const EXPORT: std::ops::Range<usize> = 40..44;
/// What `/proc/self/fd` shows for the memory files device memory is shared through.
const DEVICE_MEMORY_FILE: &str = "/memfd:ze-sim device memory";

/// A descriptor of its own for `fd` if `fd` is one of the simulator's device memory files, of
/// at least `len` bytes and sealed against shrinking (so a mapping of it cannot fault later).
/// Checked on the duplicate, which the caller maps: `fd` may be replaced meanwhile.
fn device_memory_file(fd: i32, len: usize) -> Option<std::os::fd::OwnedFd> {
    use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
    // SAFETY: duplicates a descriptor number; a bad one fails the call.
    let duplicate = unsafe { libc::fcntl(fd, libc::F_DUPFD_CLOEXEC, 0) };
    if duplicate < 0 {
        return None;
    }
    // SAFETY: a descriptor just made, owned by nothing else.
    let duplicate = unsafe { OwnedFd::from_raw_fd(duplicate) };
    let raw = duplicate.as_raw_fd();
    let named = std::fs::read_link(format!("/proc/self/fd/{raw}"))
        .is_ok_and(|target| target.to_string_lossy().starts_with(DEVICE_MEMORY_FILE));
    let size = file_stat(raw).map(|stat| stat.st_size);
    // SAFETY: reads the seals of a descriptor this function owns.
    let seals = unsafe { libc::fcntl(raw, libc::F_GET_SEALS) };
    let sealed = seals >= 0 && seals & libc::F_SEAL_SHRINK != 0;
    (named && sealed && size.is_some_and(|size| size >= 0 && size as u64 >= len as u64))
        .then_some(duplicate)
}

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
        // The driver's allocation holding the pointer, whichever of its contexts asks (Intel
        // MPI asks with one of its own): compute-runtime's `Context::getIpcMemHandlesImpl`
        // (`level_zero/core/source/context/context.cpp`) looks it up in the driver's table.
        // The handle names the whole allocation, as there, where only pooled memory records
        // an offset.
        let base = Inner::find_allocation(&state, pointer as usize, 1)
            .ok()
            .flatten()
            .ok_or(ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT)?;
        let allocation = state
            .memory
            .allocations
            .get_mut(&base)
            .ok_or(ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT)?;
        if !matches!(allocation.kind, MemKind::Device { .. }) || allocation.is_opened() {
            return Err(ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT);
        }
        // Its pages become a memory file: nothing may be moving its bytes meanwhile.
        if allocation.pending > 0 {
            return Err(ze_result_t::ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE);
        }
        let MemKind::Device { owner } = allocation.kind else {
            return Err(ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT);
        };
        let (id, size, backing) = (allocation.id, allocation.size, allocation.backing_mut());
        let len = backing
            .and_then(|backing| backing.pages_len())
            .ok_or(ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT)?;
        let fd = allocation
            .backing_mut()
            .and_then(Backing::share)
            .ok_or(ze_result_t::ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY)?;
        // The machine follows who has it open, so that its memory outlives a free by its
        // exporter while another process uses it.
        allocation.buffer = file_identity(fd);
        let committed = if allocation.resident & (1 << owner) != 0 {
            size as u64
        } else {
            0
        };
        if allocation.export.is_none()
            && let (Some(machine), Some(file)) = (platform.machine, allocation.buffer)
        {
            allocation.export = machine.export(file, owner, size as u64, committed);
        }
        let export = allocation.export.map_or(0, |index| index + 1);
        *handle = ze_ipc_mem_handle_t::default();
        write(handle, FD, &fd.to_ne_bytes());
        write(handle, ID, &id.to_ne_bytes());
        write(handle, LEN, &(len as u64).to_ne_bytes());
        // By the machine's index: another rank may see other devices (ZE_AFFINITY_MASK).
        let machine_owner = platform.machine_devices[owner as usize];
        write(handle, OWNER, &machine_owner.to_ne_bytes());
        write(handle, PROCESS, &std::process::id().to_ne_bytes());
        write(handle, SIZE, &(size as u64).to_ne_bytes());
        write(handle, EXPORT, &export.to_ne_bytes());
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

/// A handle that carries only its descriptor, completed as the exporter wrote it. oneCCL
/// passes a memory file between ranks (`pidfd_getfd`) and opens a fresh handle holding only
/// the new descriptor, as compute-runtime's handles allow: its `IpcMemoryData` is the
/// descriptor, then fields that are zero for device memory of no pool
/// (`level_zero/core/source/context/context.cpp`), and the kernel tells the importer which
/// buffer object the dma-buf is. Here the memory file names the allocation: this process's own,
/// or another's export in the machine's table.
fn descriptor_only(platform: &Inner, fd: i32) -> Result<ze_ipc_mem_handle_t, ze_result_t> {
    let buffer = file_identity(fd).ok_or(ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT)?;
    let state = platform.lock();
    // Its memory file's identity, recorded when the handle was made: the caller's descriptor
    // may be a duplicate, and this process's own may be closed and its number reused.
    let own = own_export(&state, buffer);
    let mut handle = ze_ipc_mem_handle_t::default();
    write(&mut handle, FD, &fd.to_ne_bytes());
    if let Some(allocation) = own {
        let MemKind::Device { owner } = allocation.kind else {
            return Err(ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT);
        };
        let len = allocation
            .backing()
            .and_then(Backing::pages_len)
            .ok_or(ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT)?;
        write(&mut handle, ID, &allocation.id.to_ne_bytes());
        write(&mut handle, LEN, &(len as u64).to_ne_bytes());
        let machine_owner = platform.machine_devices[owner as usize];
        write(&mut handle, OWNER, &machine_owner.to_ne_bytes());
        write(&mut handle, PROCESS, &std::process::id().to_ne_bytes());
        write(&mut handle, SIZE, &(allocation.size as u64).to_ne_bytes());
        let export = allocation.export.map_or(0, |index| index + 1);
        write(&mut handle, EXPORT, &export.to_ne_bytes());
        return Ok(handle);
    }
    drop(state);
    let (index, owner, size) = platform
        .machine
        .and_then(|machine| machine.find_export(buffer))
        .ok_or(ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT)?;
    let len = file_stat(fd)
        .and_then(|stat| u64::try_from(stat.st_size).ok())
        .ok_or(ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT)?;
    write(&mut handle, LEN, &len.to_ne_bytes());
    write(&mut handle, OWNER, &owner.to_ne_bytes());
    write(&mut handle, SIZE, &size.to_ne_bytes());
    write(&mut handle, EXPORT, &(index + 1).to_ne_bytes());
    Ok(handle)
}

/// `fstat` of descriptor `fd`; `None` for a bad one.
fn file_stat(fd: i32) -> Option<libc::stat> {
    // SAFETY: `fstat` writes the zeroed `stat` this function owns; a bad descriptor fails.
    unsafe {
        let mut stat: libc::stat = std::mem::zeroed();
        (libc::fstat(fd, &mut stat) == 0).then_some(stat)
    }
}

/// The device and inode of the file descriptor `fd` of this process names: the same for every
/// descriptor of one memory file, in any process.
fn file_identity(fd: i32) -> Option<(u64, u64)> {
    file_stat(fd).map(|stat| (stat.st_dev, stat.st_ino))
}

/// This process's own allocation whose memory file is `buffer`: the one it exports, never a
/// mapping it opened of it.
fn own_export(state: &State, buffer: (u64, u64)) -> Option<&Allocation> {
    state
        .memory
        .allocations
        .values()
        .find(|allocation| !allocation.is_opened() && allocation.buffer == Some(buffer))
}

pub(crate) unsafe extern "C" fn open_handle(
    context: ze_context_handle_t,
    device: ze_device_handle_t,
    handle: ze_ipc_mem_handle_t,
    _flags: ze_ipc_memory_flags_t,
    pointer: *mut *mut c_void,
) -> ze_result_t {
    guard(|| {
        let (platform, opening_device) = super::context::context_device(context, device)?;
        // SAFETY: the caller's output pointer.
        let pointer = unsafe { out(pointer) }?;
        let handle = if handle.data[FD.end..].iter().all(|&byte| byte == 0) {
            descriptor_only(&platform, i32::from_ne_bytes(read(&handle, FD)))?
        } else {
            handle
        };
        let fd = i32::from_ne_bytes(read(&handle, FD));
        let id = u64::from_ne_bytes(read(&handle, ID));
        let len = usize::try_from(u64::from_ne_bytes(read(&handle, LEN)))
            .map_err(|_| ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT)?;
        let machine_owner = u32::from_ne_bytes(read(&handle, OWNER));
        let exporter = u32::from_ne_bytes(read(&handle, PROCESS));
        // The owner as this process numbers it, if it sees that device.
        let visible_owner = platform
            .machine_devices
            .iter()
            .position(|&index| index == machine_owner)
            .map(|index| index as u32);
        // The buffer the handle names: its memory file, whoever exported it (the kernel gives a
        // dma-buf imported twice into one DRM file one buffer object; so does this driver).
        let buffer = file_identity(fd).ok_or(ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT)?;
        let mut state = platform.lock();
        let key = (buffer.0, buffer.1, context as usize);
        if let Some(&address) = state.memory.opened_buffers.get(&key) {
            let known = state
                .memory
                .allocations
                .get(&address)
                .map(|opened| (opened.kind, opened.foreign_import));
            // Opened again on the device it was, or on another that sees its owner (an import
            // there, if it is none yet, as a use would make).
            let again = match known {
                Some((MemKind::Device { .. }, None)) => visible_owner.is_some(),
                Some((_, Some(_))) => {
                    state.memory.allocations[&address].resident == 1 << opening_device
                }
                _ => false,
            };
            if again {
                if let Some(MemKind::Device { owner }) = known.map(|(kind, _)| kind)
                    && opening_device != owner
                    && let Err(error) = platform.import_opened(&mut state, address, opening_device)
                {
                    platform.note_refusal("zeMemOpenIpcHandle", error, 0);
                    return Err(error);
                }
                if let Some(opened) = state.memory.allocations.get_mut(&address) {
                    opened.opens += 1;
                }
                state.counters.live_opened_ipc_handles += 1;
                state.counters.ipc_handles_opened += 1;
                *state
                    .uses
                    .context_children
                    .entry(context as usize)
                    .or_default() += 1;
                *pointer = address as *mut c_void;
                return Ok(());
            }
        }
        // A handle of this process's own names one of its memory files (another process's may
        // carry this process's id: ranks in other PID namespaces); it must then name the
        // exporter, live in this platform, with the descriptor, length and owner it has.
        let own = exporter == std::process::id() && own_export(&state, buffer).is_some();
        let (size, backing, owner) = if own {
            let owner = visible_owner.ok_or(ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT)?;
            let size = own_export(&state, buffer)
                .filter(|allocation| allocation.id == id)
                .and_then(|allocation| {
                    let backing = allocation.backing()?;
                    (allocation.kind == MemKind::Device { owner }
                        && backing.pages_len() == Some(len))
                    .then_some(allocation.size)
                })
                .ok_or(ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT)?;
            let backing =
                Backing::open(fd, len).ok_or(ze_result_t::ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY)?;
            (size, backing, Some(owner))
        } else {
            // Another process's: only what this process can check of it.
            let size = usize::try_from(u64::from_ne_bytes(read(&handle, SIZE)))
                .map_err(|_| ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT)?;
            if machine_owner >= platform.machine_device_total || size == 0 || size > len {
                return Err(ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT);
            }
            let file =
                device_memory_file(fd, len).ok_or(ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT)?;
            // The mapping keeps the file; the duplicate goes with this scope.
            let backing = Backing::open(std::os::fd::AsRawFd::as_raw_fd(&file), len)
                .ok_or(ze_result_t::ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY)?;
            (size, backing, visible_owner)
        };
        let address = backing.address();
        // Another process's export: once the open has succeeded, the machine counts this
        // process among its users (not before: a refused open holds nothing).
        let record = (!own)
            .then(|| u32::from_ne_bytes(read(&handle, EXPORT)).checked_sub(1))
            .flatten();
        let join_export = |platform: &Inner| {
            record.filter(|&index| {
                platform
                    .machine
                    .is_some_and(|machine| machine.open_export(index, buffer))
            })
        };
        let Some(owner) = owner else {
            // A device this process cannot see (ZE_AFFINITY_MASK): an import onto the opening
            // device, its cost charged here and released at close.
            let pins = platform.config.mirror == crate::model::config::MirrorMode::Pinned
                && platform.config.ipc_import_pins_host;
            platform.import_foreign(&mut state, size as u64, opening_device, pins)?;
            let export = join_export(&platform);
            let mut opened = Allocation::opened(
                &mut state.memory,
                size,
                opening_device,
                context as usize,
                backing,
            );
            opened.resident = 1 << opening_device;
            opened.foreign_import = Some(pins);
            opened.opens = 1;
            opened.buffer = Some(buffer);
            opened.export = export;
            state.memory.allocations.insert(address, opened);
            state.memory.opened_buffers.entry(key).or_insert(address);
            state.counters.live_opened_ipc_handles += 1;
            state.counters.ipc_handles_opened += 1;
            *state
                .uses
                .context_children
                .entry(context as usize)
                .or_default() += 1;
            *pointer = address as *mut c_void;
            return Ok(());
        };
        let mut opened =
            Allocation::opened(&mut state.memory, size, owner, context as usize, backing);
        // Resident on its owner already: the exporter committed it there.
        opened.resident = 1 << owner;
        opened.opens = 1;
        opened.buffer = Some(buffer);
        state.memory.allocations.insert(address, opened);
        if opening_device != owner
            && let Err(error) = platform.import_opened(&mut state, address, opening_device)
        {
            state.memory.allocations.remove(&address);
            platform.note_refusal("zeMemOpenIpcHandle", error, size as u64);
            return Err(error);
        }
        let export = join_export(&platform);
        if let Some(opened) = state.memory.allocations.get_mut(&address) {
            opened.export = export;
        }
        state.memory.opened_buffers.entry(key).or_insert(address);
        state.counters.live_opened_ipc_handles += 1;
        state.counters.ipc_handles_opened += 1;
        *state
            .uses
            .context_children
            .entry(context as usize)
            .or_default() += 1;
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
        match state.memory.allocations.get(&address) {
            Some(opened) if opened.is_opened() && opened.context == context as usize => {
                if opened.pending > 0 {
                    state.counters.free_hazards += 1;
                    return Err(ze_result_t::ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE);
                }
            }
            _ => return Err(ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT),
        }
        let release_children = |state: &mut crate::engine::platform::State| {
            state.counters.live_opened_ipc_handles -= 1;
            if let Some(children) = state.uses.context_children.get_mut(&(context as usize)) {
                *children = children.saturating_sub(1);
            }
        };
        // One open of several of its buffer: the mapping stays for the others.
        if let Some(opened) = state.memory.allocations.get_mut(&address)
            && opened.opens > 1
        {
            opened.opens -= 1;
            release_children(&mut state);
            return Ok(());
        }
        let Some(mut opened) = state.memory.allocations.remove(&address) else {
            return Err(ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT);
        };
        // Its residency on the owner is the exporter's, not this mapping's; an import of a
        // device this process cannot see gives back what its opening charged.
        if let Some(pins) = opened.foreign_import {
            opened.resident = 0;
            platform.release_foreign(&mut state, opened.size as u64, opened.kind, pins);
        } else if let MemKind::Device { owner } = opened.kind {
            opened.resident &= !(1 << owner);
        }
        Inner::release_all_residency(&platform, &mut state, &opened);
        if let Some((dev, ino)) = opened.buffer {
            let key = (dev, ino, context as usize);
            if state.memory.opened_buffers.get(&key) == Some(&address) {
                state.memory.opened_buffers.remove(&key);
            }
            // This process's last mapping of the buffer: an export of its own it freed
            // meanwhile goes now, and another process's export loses this process as a user.
            let open_here = state
                .memory
                .allocations
                .values()
                .any(|other| other.is_opened() && other.buffer == Some((dev, ino)));
            if !open_here {
                if let Some(orphan) = state.memory.orphaned_exports.remove(&(dev, ino)) {
                    platform.release_exported(
                        &mut state,
                        orphan.owner,
                        orphan.size,
                        orphan.vram,
                        orphan.export,
                    );
                }
                if let (Some(machine), Some(index)) = (platform.machine, opened.export) {
                    machine.close_export(index);
                }
            }
        }
        release_children(&mut state);
        Ok(())
    })
}
