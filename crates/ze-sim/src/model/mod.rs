//! The machine model: its configuration, host and device memory, the machine shared by a job's
//! processes, and the figures and counters everything above reports.

pub(crate) mod backing;
pub(crate) mod config;
pub(crate) mod counters;
pub(crate) mod error;
pub(crate) mod machine;
pub(crate) mod memory_kind;
pub(crate) mod queue_groups;
pub(crate) mod report;
pub(crate) mod unsupported;
