//! The execution engine: the platform's state, queues and lists, command preparation and checks,
//! and running commands and kernels.

pub(crate) mod exec;
pub(crate) mod platform;
pub(crate) mod report;
