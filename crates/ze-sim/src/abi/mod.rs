//! The Level Zero ABI: entry points, the handle registry and platform slots, DDI tables, the
//! exported symbols and the generated name table. Handles become objects here, before anything
//! below sees them.

pub mod ddi;
pub(crate) mod entry;
pub(crate) mod exports;
pub(crate) mod generated;
pub(crate) mod platforms;
pub(crate) mod registry;
pub(crate) mod slots;
