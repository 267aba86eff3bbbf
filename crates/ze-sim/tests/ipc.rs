//! IPC handles of device memory within a process: the opened mapping has the exporter's bytes
//! at a new address; a made-up handle is refused and changes nothing.

use crate::common::{Sim, ok};
use level_zero_sys::*;
use std::ptr::null_mut;

/// The IPC calls and list synchronisation, by name with their headers' types.
struct Functions {
    get: unsafe extern "C" fn(
        ze_context_handle_t,
        *const std::ffi::c_void,
        *mut ze_ipc_mem_handle_t,
    ) -> ze_result_t,
    open: unsafe extern "C" fn(
        ze_context_handle_t,
        ze_device_handle_t,
        ze_ipc_mem_handle_t,
        ze_ipc_memory_flags_t,
        *mut *mut std::ffi::c_void,
    ) -> ze_result_t,
    close: unsafe extern "C" fn(ze_context_handle_t, *const std::ffi::c_void) -> ze_result_t,
    synchronize: unsafe extern "C" fn(ze_command_list_handle_t, u64) -> ze_result_t,
}

fn functions(sim: &Sim) -> Functions {
    // SAFETY: the simulator's functions of these names have the headers' types.
    unsafe {
        Functions {
            get: sim
                .function::<ze_pfnMemGetIpcHandle_t>("zeMemGetIpcHandle")
                .unwrap(),
            open: sim
                .function::<ze_pfnMemOpenIpcHandle_t>("zeMemOpenIpcHandle")
                .unwrap(),
            close: sim
                .function::<ze_pfnMemCloseIpcHandle_t>("zeMemCloseIpcHandle")
                .unwrap(),
            synchronize: sim
                .function::<ze_pfnCommandListHostSynchronize_t>("zeCommandListHostSynchronize")
                .unwrap(),
        }
    }
}

/// `size` bytes of device memory of `context` on `device`, written with `(i * step) as u8` at
/// byte `i` (through a list made and destroyed here), and those bytes.
///
/// # Safety
/// `context` must be a live context of `sim` over `device`.
unsafe fn filled(
    sim: &Sim,
    context: ze_context_handle_t,
    device: u32,
    size: usize,
    step: u32,
) -> (*mut std::ffi::c_void, Vec<u8>) {
    let memory = sim.alloc_device(context, device, size);
    let data: Vec<u8> = (0..size as u32)
        .map(|i| i.wrapping_mul(step) as u8)
        .collect();
    let list = sim.immediate_list(context, device, 1);
    // SAFETY: the caller's context; the allocation and the vector hold `size` bytes.
    unsafe {
        ok(sim.copy(list, memory, data.as_ptr() as _, size, null_mut(), &mut []));
        ok((functions(sim).synchronize)(list, u64::MAX));
    }
    sim.destroy_list(list);
    (memory, data)
}

#[test]
fn an_opened_handle_shares_the_bytes_and_a_made_up_one_is_refused() {
    let sim = Sim::preset("b70x2");
    // SAFETY (whole test): the names with their headers' types; valid handles and outputs.
    unsafe {
        let Functions {
            get,
            open,
            close,
            synchronize,
        } = functions(&sim);
        let (exporter, importer) = (sim.context(&[0, 1]), sim.context(&[0, 1]));
        let exported = sim.alloc_device(exporter, 0, 8192);
        let never_exported = sim.alloc_device(exporter, 0, 8192);
        let list = sim.immediate_list(exporter, 0, 1);
        let data: Vec<u8> = (0..8192u32).map(|i| i as u8).collect();
        ok(sim.copy(
            list,
            exported,
            data.as_ptr() as _,
            8192,
            null_mut(),
            &mut [],
        ));
        ok(synchronize(list, u64::MAX));
        let mut handle = ze_ipc_mem_handle_t::default();
        ok(get(exporter, exported, &mut handle));
        // A handle naming an allocation that was never exported, or another length: refused.
        let mut forged = handle;
        forged.data[8] = forged.data[8].wrapping_add(1); // the next allocation's id
        let mut opened = null_mut();
        assert_eq!(
            open(importer, sim.devices[0], forged, 0, &mut opened),
            ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT
        );
        let mut forged = handle;
        forged.data[17] = forged.data[17].wrapping_add(1); // a longer mapping
        assert_eq!(
            open(importer, sim.devices[0], forged, 0, &mut opened),
            ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT
        );
        // The real handle maps the exporter's bytes at a new address of the importer.
        ok(open(importer, sim.devices[0], handle, 0, &mut opened));
        assert_ne!(opened, exported);
        let importer_list = sim.immediate_list(importer, 0, 1);
        let mut back = vec![0u8; 8192];
        ok(sim.copy(
            importer_list,
            back.as_mut_ptr() as _,
            opened,
            8192,
            null_mut(),
            &mut [],
        ));
        ok(synchronize(importer_list, u64::MAX));
        assert_eq!(back, data);
        assert_eq!(sim.counter("live_opened_ipc_handles"), 1);
        // zeMemFree is not how it goes; zeMemCloseIpcHandle is.
        assert_eq!(
            (sim.api.mem_free)(importer, opened),
            ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT
        );
        ok(close(importer, opened));
        sim.destroy_list(list);
        sim.destroy_list(importer_list);
        sim.free(exporter, exported);
        sim.free(exporter, never_exported);
        sim.destroy_context(exporter);
        sim.destroy_context(importer);
    }
    sim.assert_clean();
}

/// A handle from another process (a rank of the same job), as the exporter wrote it but for the
/// exporter's process id: only the descriptor is trusted, and only as far as it can be checked.
#[test]
fn a_handle_from_another_process_maps_the_bytes_and_a_forged_one_is_refused() {
    let sim = Sim::preset("b70x2");
    // SAFETY (whole test): the names with their headers' types; valid handles and outputs;
    // plain libc calls on descriptors this test owns.
    unsafe {
        let Functions {
            get,
            open,
            close,
            synchronize,
        } = functions(&sim);
        let (exporter, importer) = (sim.context(&[0, 1]), sim.context(&[0, 1]));
        // Not a whole number of pages (the memory file is), but of KiB (fdinfo's unit).
        let size = 5120;
        let (exported, data) = filled(&sim, exporter, 0, size, 7);
        let mut handle = ze_ipc_mem_handle_t::default();
        ok(get(exporter, exported, &mut handle));
        let set = |handle: &mut ze_ipc_mem_handle_t, at: usize, bytes: &[u8]| {
            for (slot, byte) in handle.data[at..].iter_mut().zip(bytes) {
                *slot = *byte as std::ffi::c_char;
            }
        };
        // Written by process 1, not this one.
        let mut foreign = handle;
        set(&mut foreign, 28, &1u32.to_ne_bytes());
        let refused = |handle: ze_ipc_mem_handle_t| {
            let mut opened = null_mut();
            open(importer, sim.devices[1], handle, 0, &mut opened)
        };
        let invalid = ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT;
        // A descriptor that is no memory file of the simulator, or none at all.
        let file = tempfile::tempfile().unwrap();
        let mut forged = foreign;
        set(
            &mut forged,
            0,
            &std::os::fd::AsRawFd::as_raw_fd(&file).to_ne_bytes(),
        );
        assert_eq!(refused(forged), invalid);
        set(&mut forged, 0, &(-1i32).to_ne_bytes());
        assert_eq!(refused(forged), invalid);
        // A memory file of the right name but not sealed: it could shrink under the mapping.
        let unsealed = libc::memfd_create(c"ze-sim device memory".as_ptr(), libc::MFD_CLOEXEC);
        assert!(unsealed >= 0);
        assert_eq!(libc::ftruncate(unsealed, 8192), 0);
        set(&mut forged, 0, &unsealed.to_ne_bytes());
        assert_eq!(refused(forged), invalid);
        libc::close(unsealed);
        // An owner beyond the machine's devices; a size of nothing or past the file.
        let mut forged = foreign;
        set(&mut forged, 24, &7u32.to_ne_bytes());
        assert_eq!(refused(forged), invalid);
        let mut forged = foreign;
        set(&mut forged, 32, &0u64.to_ne_bytes());
        assert_eq!(refused(forged), invalid);
        set(&mut forged, 32, &(1u64 << 40).to_ne_bytes());
        assert_eq!(refused(forged), invalid);
        assert_eq!(sim.counter("live_opened_ipc_handles"), 0);
        let (_, gtt_before) = sim.vram_gtt(1);
        let pinned_before = sim.host_pinned();

        // The real one, opened on the peer: the same bytes, imported there.
        let mut opened = null_mut();
        ok(open(importer, sim.devices[1], foreign, 0, &mut opened));
        let (_, gtt) = sim.vram_gtt(1);
        assert_eq!(
            gtt - gtt_before,
            size as u64,
            "the import, by the allocation's size"
        );
        assert_eq!(
            sim.host_pinned() - pinned_before,
            size as u64,
            "ipc_import_pins_host"
        );
        let importer_list = sim.immediate_list(importer, 1, 1);
        let mut back = vec![0u8; size];
        ok(sim.copy(
            importer_list,
            back.as_mut_ptr() as _,
            opened,
            size,
            null_mut(),
            &mut [],
        ));
        ok(synchronize(importer_list, u64::MAX));
        assert_eq!(back, data);
        ok(close(importer, opened));
        assert_eq!(sim.vram_gtt(1).1, gtt_before);
        assert_eq!(sim.host_pinned(), pinned_before);
        sim.destroy_list(importer_list);
        sim.free(exporter, exported);
        sim.destroy_context(exporter);
        sim.destroy_context(importer);
    }
    sim.assert_clean();
}

/// One handle opened twice in one context is one buffer object, as the kernel makes a dma-buf
/// imported twice into one DRM file: both opens are one mapping, charged once on the importing
/// peer, and released when the last open is closed.
#[test]
fn a_handle_opened_twice_in_one_context_is_charged_once_and_released_at_the_last_close() {
    let sim = Sim::preset("b70x2");
    // SAFETY (whole test): the names with their headers' types; valid handles and outputs.
    unsafe {
        let Functions {
            get, open, close, ..
        } = functions(&sim);
        let (exporter, importer) = (sim.context(&[0, 1]), sim.context(&[0, 1]));
        let size = 1 << 20;
        let exported = sim.alloc_device(exporter, 0, size);
        let mut handle = ze_ipc_mem_handle_t::default();
        ok(get(exporter, exported, &mut handle));
        let (mut first, mut second) = (null_mut(), null_mut());
        // Opened on device 1, a peer of the owner: an import there.
        ok(open(importer, sim.devices[1], handle, 0, &mut first));
        let once = (sim.host_pinned(), sim.vram_gtt(1).1);
        assert_eq!(
            once,
            (size as u64, size as u64),
            "pinned and GTT of one import"
        );
        ok(open(importer, sim.devices[1], handle, 0, &mut second));
        assert_eq!(first, second, "one buffer, one mapping");
        assert_eq!((sim.host_pinned(), sim.vram_gtt(1).1), once, "charged once");
        assert_eq!(sim.counter("live_opened_ipc_handles"), 2);
        ok(close(importer, first));
        assert_eq!(
            (sim.host_pinned(), sim.vram_gtt(1).1),
            once,
            "the other open holds it"
        );
        ok(close(importer, second));
        assert_eq!((sim.host_pinned(), sim.vram_gtt(1).1), (0, 0));
        assert_eq!(
            close(importer, second),
            ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT,
            "closed as often as opened"
        );
        // Another context maps it apart, as before.
        let other = sim.context(&[0, 1]);
        let (mut mine, mut theirs) = (null_mut(), null_mut());
        ok(open(importer, sim.devices[0], handle, 0, &mut mine));
        ok(open(other, sim.devices[0], handle, 0, &mut theirs));
        assert_ne!(mine, theirs);
        ok(close(importer, mine));
        ok(close(other, theirs));
        sim.free(exporter, exported);
        sim.destroy_context(other);
        sim.destroy_context(exporter);
        sim.destroy_context(importer);
    }
    sim.assert_clean();
}

/// A rank in another PID namespace may have this process's pid: its handle carries this
/// process's id but names a memory file this process never exported. It is another process's
/// handle (mapped), not a forged one of this process's own (refused).
#[test]
fn a_handle_from_a_process_with_this_processs_pid_in_another_namespace_maps_its_bytes() {
    let (exporting, importing) = (Sim::preset("b70x2"), Sim::preset("b70x2"));
    // SAFETY (whole test): the names with their headers' types; valid handles and outputs.
    unsafe {
        let exported_by = functions(&exporting);
        let imported_by = functions(&importing);
        let exporter = exporting.context(&[0, 1]);
        let importer = importing.context(&[0, 1]);
        let size = 8192;
        let (exported, data) = filled(&exporting, exporter, 0, size, 3);
        let mut handle = ze_ipc_mem_handle_t::default();
        ok((exported_by.get)(exporter, exported, &mut handle));
        // The handle as written, this process's id in it: the importing platform owns no such
        // memory file.
        let mut opened = null_mut();
        ok((imported_by.open)(
            importer,
            importing.devices[0],
            handle,
            0,
            &mut opened,
        ));
        let importer_list = importing.immediate_list(importer, 0, 1);
        let mut back = vec![0u8; size];
        ok(importing.copy(
            importer_list,
            back.as_mut_ptr() as _,
            opened,
            size,
            null_mut(),
            &mut [],
        ));
        ok((imported_by.synchronize)(importer_list, u64::MAX));
        assert_eq!(back, data);
        ok((imported_by.close)(importer, opened));
        importing.destroy_list(importer_list);
        importing.destroy_context(importer);
        exporting.free(exporter, exported);
        exporting.destroy_context(exporter);
    }
    exporting.assert_clean();
    importing.assert_clean();
}

/// Memory an exporter frees while another context still has it open stays allocated and
/// committed on its device, as a dma-buf keeps its buffer object, until the last open closes.
#[test]
fn an_exported_allocation_freed_while_open_elsewhere_stays_until_its_last_user_closes() {
    let sim = Sim::preset("b70x2");
    // SAFETY (whole test): the names with their headers' types; valid handles and outputs.
    unsafe {
        let Functions {
            get,
            open,
            close,
            synchronize,
        } = functions(&sim);
        let (exporter, importer) = (sim.context(&[0, 1]), sim.context(&[0, 1]));
        let size = 1 << 20;
        let (exported, data) = filled(&sim, exporter, 0, size, 5);
        let mut handle = ze_ipc_mem_handle_t::default();
        ok(get(exporter, exported, &mut handle));
        let mut opened = null_mut();
        ok(open(importer, sim.devices[0], handle, 0, &mut opened));
        assert_eq!(sim.vram_gtt(0).0, size as u64);
        sim.free(exporter, exported);
        assert_eq!(
            sim.vram_gtt(0).0,
            size as u64,
            "still committed: the importer uses it"
        );
        let importer_list = sim.immediate_list(importer, 0, 1);
        let mut back = vec![0u8; size];
        ok(sim.copy(
            importer_list,
            back.as_mut_ptr() as _,
            opened,
            size,
            null_mut(),
            &mut [],
        ));
        ok(synchronize(importer_list, u64::MAX));
        assert_eq!(back, data);
        ok(close(importer, opened));
        assert_eq!(sim.vram_gtt(0).0, 0, "gone with its last user");
        sim.destroy_list(importer_list);
        sim.destroy_context(exporter);
        sim.destroy_context(importer);
    }
    sim.assert_clean();
}

/// The handle is the driver's: asked with another context of it (Intel MPI asks with a context
/// of its own) or for an address inside the allocation, it names the whole allocation, as
/// compute-runtime's `Context::getIpcMemHandlesImpl` finds it in the driver's table. An address
/// in no allocation is refused. Opening counts in `ipc_handles_opened`.
#[test]
fn a_handle_is_the_drivers_whichever_context_asks_and_names_the_whole_allocation() {
    let sim = Sim::preset("b70x2");
    // SAFETY (whole test): the names with their headers' types; valid handles and outputs.
    unsafe {
        let Functions {
            get,
            open,
            close,
            synchronize,
        } = functions(&sim);
        let (application, library) = (sim.context(&[0, 1]), sim.context(&[0, 1]));
        let (memory, data) = filled(&sim, application, 0, 8192, 3);
        let mut handle = ze_ipc_mem_handle_t::default();
        let inside = memory.cast::<u8>().add(4096).cast::<std::ffi::c_void>();
        ok(get(library, inside, &mut handle));
        let mut outside = ze_ipc_mem_handle_t::default();
        let stack_byte = 0u8;
        assert_eq!(
            get(library, (&raw const stack_byte).cast(), &mut outside),
            ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT
        );
        let mut opened = null_mut();
        ok(open(library, sim.devices[1], handle, 0, &mut opened));
        let list = sim.immediate_list(library, 1, 1);
        let mut back = vec![0u8; 8192];
        ok(sim.copy(
            list,
            back.as_mut_ptr() as _,
            opened,
            8192,
            null_mut(),
            &mut [],
        ));
        ok(synchronize(list, u64::MAX));
        assert_eq!(back, data, "the whole allocation, from its first byte");
        assert_eq!(sim.counter("ipc_handles_exported"), 1);
        assert_eq!(sim.counter("ipc_handles_opened"), 1);
        ok(close(library, opened));
        sim.destroy_list(list);
        sim.free(application, memory);
        sim.destroy_context(application);
        sim.destroy_context(library);
    }
    sim.assert_clean();
}

/// A handle holding nothing but a descriptor of the memory file (oneCCL duplicates the
/// exporter's with `pidfd_getfd` and opens a fresh handle with just its number, as
/// compute-runtime's handles allow) opens the allocation the file is; a descriptor of a memory
/// file no allocation or export is, or of none, is refused.
#[test]
fn a_handle_holding_only_a_descriptor_opens_the_allocation_its_memory_file_is() {
    let sim = Sim::preset("b70x2");
    // SAFETY (whole test): the names with their headers' types; valid handles and outputs;
    // plain libc calls on descriptors this test owns.
    unsafe {
        let Functions {
            get,
            open,
            close,
            synchronize,
        } = functions(&sim);
        let (exporter, importer) = (sim.context(&[0, 1]), sim.context(&[0, 1]));
        let (memory, data) = filled(&sim, exporter, 0, 8192, 5);
        let mut handle = ze_ipc_mem_handle_t::default();
        ok(get(exporter, memory, &mut handle));
        let descriptor = i32::from_ne_bytes(std::array::from_fn(|at| handle.data[at] as u8));
        let duplicate = libc::dup(descriptor);
        assert!(duplicate >= 0);
        let only = |fd: i32| {
            let mut only = ze_ipc_mem_handle_t::default();
            for (slot, byte) in only.data.iter_mut().zip(fd.to_ne_bytes()) {
                *slot = byte as std::ffi::c_char;
            }
            only
        };
        let mut opened = null_mut();
        ok(open(
            importer,
            sim.devices[1],
            only(duplicate),
            0,
            &mut opened,
        ));
        let list = sim.immediate_list(importer, 1, 1);
        let mut back = vec![0u8; 8192];
        ok(sim.copy(
            list,
            back.as_mut_ptr() as _,
            opened,
            8192,
            null_mut(),
            &mut [],
        ));
        ok(synchronize(list, u64::MAX));
        assert_eq!(back, data);
        ok(close(importer, opened));
        // A memory file of the simulator's name that no allocation is, and no descriptor.
        let stranger = libc::memfd_create(c"ze-sim device memory".as_ptr(), libc::MFD_CLOEXEC);
        assert!(stranger >= 0);
        for fd in [stranger, -1] {
            assert_eq!(
                open(importer, sim.devices[1], only(fd), 0, &mut opened),
                ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT
            );
        }
        libc::close(stranger);
        libc::close(duplicate);
        assert_eq!(sim.counter("live_opened_ipc_handles"), 0);
        sim.destroy_list(list);
        sim.free(exporter, memory);
        sim.destroy_context(exporter);
        sim.destroy_context(importer);
    }
    sim.assert_clean();
}
