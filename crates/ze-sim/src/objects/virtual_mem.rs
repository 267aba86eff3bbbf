//! Physical memory objects and reserved address ranges.

use crate::model::memory_kind::MemKind;
use std::os::fd::OwnedFd;
use std::sync::atomic::AtomicU32;

/// A physical memory object: its pages, where they live, and how many mappings use them.
pub(crate) struct PhysicalMemory {
    pub context: usize,
    /// `Device { owner }` or `Host`.
    pub kind: MemKind,
    pub size: usize,
    pub file: OwnedFd,
    pub mappings: AtomicU32,
}

/// An address range `zeVirtualMemReserve` handed out.
pub(crate) struct Reservation {
    pub context: usize,
    pub size: usize,
}
