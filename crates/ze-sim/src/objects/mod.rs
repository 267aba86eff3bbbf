//! The simulated objects: modules and kernels (their SPIR-V and OpenCL forms), events, samplers,
//! physical memory and reservations.

pub(crate) mod opencl;
pub mod spirv;
