//! `lazy_usm._native`: the parts of the Python package that are Rust.
//!
//! - [`probe`]: a live process's device memory, read from DRM fdinfo and `nr_gpu_active`, or,
//!   for a process of a simulated machine (`ZE_SIM_MACHINE`), its modelled figures.
//!
//! The command, the loader shim, the loader stand-in and PyTorch's allocator library travel
//! beside this module in the package (see `build.rs`) and are reached from Python.

use pyo3::exceptions::{PyLookupError, PyOSError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

/// Device memory of a process: `{"pid", "modelled", "host_pinned_bytes", "devices": [{...,
/// "vram_bytes", "gtt_bytes"}]}` (a real device also gives `pci_address` and `driver`; a
/// simulated one its `index`). `pid=None` is this process. A process of the simulated
/// machine this one runs in (under `lazy-usm run`) is read from the machine (`modelled` is
/// True); any other from `/proc/PID/fdinfo` and the nodes' `nr_gpu_active`.
#[pyfunction]
#[pyo3(signature = (pid=None))]
fn probe(py: Python<'_>, pid: Option<u32>) -> PyResult<Py<PyDict>> {
    let target = pid.unwrap_or_else(std::process::id);
    let result = PyDict::new(py);
    result.set_item("pid", target)?;
    if let Some(path) = std::env::var_os(ze_sim::MACHINE_ENV) {
        let machine = ze_sim::Machine::open(std::path::Path::new(&path))
            .map_err(|error| PyOSError::new_err(error.to_string()))?;
        let report = machine.report();
        let process = report.processes.iter().rev().find(|process| {
            process.pid == target && process.state == ze_sim::ProcessState::Running
        });
        if let Some(process) = process {
            result.set_item("modelled", true)?;
            result.set_item("platform", &report.platform)?;
            result.set_item("host_pinned_bytes", process.host_pinned_bytes.current)?;
            result.set_item(
                "machine_host_pinned_bytes",
                report.host_pinned_bytes.current,
            )?;
            let devices = PyList::empty(py);
            for device in &process.devices {
                let entry = PyDict::new(py);
                entry.set_item("index", device.index)?;
                entry.set_item("vram_bytes", device.vram_bytes.current)?;
                entry.set_item("gtt_bytes", device.gtt_bytes.current)?;
                devices.append(entry)?;
            }
            result.set_item("devices", devices)?;
            return Ok(result.unbind());
        }
        if pid.is_none() {
            return Err(PyLookupError::new_err(
                "this process has not joined the simulated machine yet (it made no Level Zero call)",
            ));
        }
    }
    let memory = lazy_usm_tools::probe_process(pid)
        .map_err(|error| PyOSError::new_err(error.to_string()))?;
    result.set_item("modelled", false)?;
    result.set_item("host_pinned_bytes", memory.gpu_active_bytes)?;
    let devices = PyList::empty(py);
    for device in &memory.devices {
        let entry = PyDict::new(py);
        entry.set_item("pci_address", &device.pdev)?;
        entry.set_item("driver", &device.driver)?;
        entry.set_item("vram_bytes", device.vram_bytes)?;
        entry.set_item("gtt_bytes", device.gtt_bytes)?;
        devices.append(entry)?;
    }
    result.set_item("devices", devices)?;
    if memory.devices.is_empty() && std::env::var_os(ze_sim::CONFIG_ENV).is_some() {
        // Set up by `lazy-usm sim-env`: the simulated GPUs are in-process, no DRM file shows them.
        result.set_item(
            "note",
            "this process runs on the simulated platform (lazy-usm sim-env) but in no simulated \
             machine, and no DRM file shows simulated GPUs: run it under `lazy-usm run` for \
             modelled figures",
        )?;
    }
    Ok(result.unbind())
}

#[pymodule]
fn _native(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_function(wrap_pyfunction!(probe, module)?)?;
    module.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
