//! The execution engine: the platform's state, queues and lists, command preparation and checks,
//! and running commands and kernels.

pub(crate) mod checks;
pub(crate) mod commands;
pub(crate) mod exec;
pub(crate) mod kernels;
pub(crate) mod memory;
pub(crate) mod ops;
pub(crate) mod platform;
pub(crate) mod prepare;
pub(crate) mod report;
pub(crate) mod sysman;
pub(crate) mod threads;
pub(crate) mod uses;
pub(crate) mod work;
