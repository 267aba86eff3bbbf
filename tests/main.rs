//! The library's integration tests, one binary: each file a module (`tests/common` their
//! shared helpers), on the simulated platform (the crate's dev-dependency on itself turns the
//! `simulator` feature on).

#[macro_use]
mod common;

mod concurrency;
mod core;
mod host;
mod kernels;
mod model;
mod pin_protocol;
mod pool;
mod pool_fences;
mod pool_threads;
mod probe;
mod registry;
mod residency;
mod soundness;
