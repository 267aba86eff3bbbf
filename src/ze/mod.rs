//! The safe Level Zero layer: one file per object (runtime, driver, device, context, memory,
//! command lists and queues, events, modules and kernels, launches), owning their handles in
//! `Arc` chains so nothing outlives what it needs. Every other layer reaches Level Zero through
//! this one.

pub(crate) mod command;
pub(crate) mod context;
pub(crate) mod device;
pub(crate) mod driver;
pub(crate) mod event;
pub(crate) mod handles;
pub(crate) mod host;
pub(crate) mod import_probe;
pub(crate) mod launch;
pub(crate) mod memory;
pub(crate) mod module;
pub(crate) mod queue;
pub(crate) mod runtime;
pub(crate) mod uses;
