//! Where an allocation's pages live.

/// Device memory of its owner, host memory, or shared memory (with its associated device).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum MemKind {
    Device { owner: u32 },
    Host,
    Shared { device: Option<u32> },
}
