//! The simulated objects: modules and kernels (their SPIR-V and OpenCL forms), events, samplers,
//! physical memory and reservations.

pub(crate) mod context;
pub(crate) mod event;
pub(crate) mod module;
pub(crate) mod opencl;
pub(crate) mod sampler;
pub mod spirv;
pub(crate) mod virtual_mem;
pub mod zebin;
