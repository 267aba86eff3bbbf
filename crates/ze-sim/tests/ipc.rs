//! IPC handles of device memory within a process: the opened mapping has the exporter's bytes
//! at a new address; a made-up handle is refused and changes nothing.

mod common;

use common::{Sim, ok};
use level_zero_sys::*;
use std::ptr::null_mut;

#[test]
fn an_opened_handle_shares_the_bytes_and_a_made_up_one_is_refused() {
    let sim = Sim::preset("b70x2");
    // SAFETY (whole test): the names with their headers' types; valid handles and outputs.
    unsafe {
        let get = sim
            .function::<ze_pfnMemGetIpcHandle_t>("zeMemGetIpcHandle")
            .unwrap();
        let open = sim
            .function::<ze_pfnMemOpenIpcHandle_t>("zeMemOpenIpcHandle")
            .unwrap();
        let close = sim
            .function::<ze_pfnMemCloseIpcHandle_t>("zeMemCloseIpcHandle")
            .unwrap();
        let synchronize = sim
            .function::<ze_pfnCommandListHostSynchronize_t>("zeCommandListHostSynchronize")
            .unwrap();
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
