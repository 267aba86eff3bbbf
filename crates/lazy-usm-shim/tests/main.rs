//! The shim's integration tests, one binary: each file a module (`tests/common` their shared
//! harness: C programs built and run through the shim over the simulator).

mod common;

mod budget;
mod generator;
mod holes;
mod kernels;
