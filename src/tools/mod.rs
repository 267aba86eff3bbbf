//! Measurement and workload tooling the command and the benches use: peer and host bandwidth,
//! synthetic workloads, and the DRM fdinfo probe of live processes.

pub mod measure;
pub(crate) mod probe;
pub mod workload;
