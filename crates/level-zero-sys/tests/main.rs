//! The bindings' integration tests, one binary: each file a module.

mod abi;
mod loading;
