//! The simulator's integration tests, one binary: each file a module (`tests/common` their
//! shared driver).

#[macro_use]
mod common;

mod commands;
mod concurrency;
mod ddi;
mod device_memory;
mod engines;
mod faults;
mod ipc;
mod kernels;
mod properties;
mod real_kernels;
mod replay;
mod sysman;
mod timing;
mod virtual_memory;
