//! Measurement and workload tooling on lazy-usm, shared by the `lazy-usm` command, the Python
//! module and the benches: peer and host copy bandwidth ([`measure`]), synthetic workloads
//! under each residency policy ([`workload`]), and the live probe of what GPU memory a process
//! really uses ([`probe`]). Not part of the library's API: its figures are for people.
//!
//! ```
//! // This process holds no DRM file descriptor: no device is listed.
//! let memory = lazy_usm_tools::probe_process(None)?;
//! assert!(memory.devices.iter().all(|device| device.clients > 0));
//! # Ok::<(), lazy_usm::Error>(())
//! ```

#![warn(missing_docs)]

pub mod measure;
pub mod probe;
pub mod workload;

pub use probe::{
    DeviceMemory, DrmClient, MemoryPeaks, ProcessMemory, group_by_device, parse_fdinfo,
    parse_gpu_active_pages, probe_paths, probe_process,
};

/// The library's error for an argument the tools refuse.
pub(crate) fn invalid(message: impl Into<String>) -> lazy_usm::Error {
    lazy_usm::Error::InvalidArgument(message.into())
}
