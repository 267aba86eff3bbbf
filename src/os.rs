//! The operating-system calls the library makes besides Level Zero: a process-wide memory
//! barrier (Linux `membarrier`, through rustix), which lets a thread's hot path order its own
//! memory accesses with a compiler fence while a rare other thread pays for the ordering of
//! both (the pool's thread caches, which another thread may empty when the device runs out of
//! memory).

#![deny(unsafe_code)]

use rustix::thread::{MembarrierCommand, membarrier, membarrier_query};
use std::sync::OnceLock;
use std::sync::atomic::{Ordering, compiler_fence};

/// Whether this process uses `membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED)`: the kernel has it
/// (Linux 4.14 or later), seccomp allows it, and the process registered for it.
static EXPEDITED: OnceLock<bool> = OnceLock::new();

/// A pair of barriers, one cheap for a frequent side and one dear for a rare side, that order
/// the two sides' accesses as full fences on both would. The frequent side's is a compiler
/// fence; the rare side's makes every running thread of the process run a full barrier
/// (`membarrier`), and where the kernel cannot (before Linux 4.14, or under a seccomp filter
/// that refuses it) it reports that it cannot, and the rare side must not go on.
#[derive(Debug, Clone, Copy)]
pub(crate) struct AsymmetricBarrier {
    expedited: bool,
}

impl AsymmetricBarrier {
    /// The process's pair: registers for expedited membarrier, once, where the kernel offers
    /// it.
    pub(crate) fn prepare() -> Self {
        let expedited = *EXPEDITED.get_or_init(|| {
            let offered = membarrier_query();
            offered.contains_command(MembarrierCommand::PrivateExpedited)
                && offered.contains_command(MembarrierCommand::RegisterPrivateExpedited)
                && membarrier(MembarrierCommand::RegisterPrivateExpedited).is_ok()
        });
        Self { expedited }
    }

    /// Whether the rare side's barrier can be had here (Linux's expedited membarrier).
    #[cfg(test)]
    pub(crate) fn available(self) -> bool {
        self.expedited
    }

    /// The frequent side's barrier (no instruction: it only keeps the compiler from moving
    /// memory accesses across it).
    #[inline(always)]
    pub(crate) fn light(self) {
        compiler_fence(Ordering::SeqCst);
    }

    /// The rare side's barrier; `false` when it could not be had, and the caller must then not
    /// rely on the frequent side's accesses being ordered.
    pub(crate) fn heavy(self) -> bool {
        self.expedited && membarrier(MembarrierCommand::PrivateExpedited).is_ok()
    }
}
