//! The operating-system calls the library makes besides Level Zero: a process-wide memory
//! barrier (Linux `membarrier`, through rustix), which lets a thread's hot path order its own
//! memory accesses with a compiler fence while a rare other thread pays for the ordering of
//! both (the pool's thread caches, which another thread may empty when the device runs out of
//! memory).

#![deny(unsafe_code)]

use rustix::thread::{MembarrierCommand, membarrier, membarrier_query};
use std::sync::OnceLock;
use std::sync::atomic::{Ordering, compiler_fence, fence};

/// Whether this process uses `membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED)`: the kernel has it
/// (Linux 4.14 or later), seccomp allows it, and the process registered for it.
static EXPEDITED: OnceLock<bool> = OnceLock::new();

/// Sets up the barrier for this process, once: registers for expedited membarrier where the
/// kernel offers it. Until this has run, both sides use full fences.
pub(crate) fn prepare_asymmetric_barrier() {
    EXPEDITED.get_or_init(|| {
        let offered = membarrier_query();
        offered.contains_command(MembarrierCommand::PrivateExpedited)
            && offered.contains_command(MembarrierCommand::RegisterPrivateExpedited)
            && membarrier(MembarrierCommand::RegisterPrivateExpedited).is_ok()
    });
}

/// The frequent side's barrier: with [`heavy_barrier`] on the other side, orders this
/// thread's accesses before and after it as a full fence would. A compiler fence once the
/// process is registered (the heavy side then makes every thread run a full barrier), else a
/// full fence.
#[inline(always)]
pub(crate) fn light_barrier() {
    if EXPEDITED.get() == Some(&true) {
        compiler_fence(Ordering::SeqCst);
    } else {
        fence(Ordering::SeqCst);
    }
}

/// The rare side's barrier: a full barrier on every running thread of the process
/// (`membarrier`), or a full fence where the frequent side uses one. `false` when the ordering
/// could not be had (the registered call failed): the caller must then not rely on it.
pub(crate) fn heavy_barrier() -> bool {
    match EXPEDITED.get() {
        Some(true) => membarrier(MembarrierCommand::PrivateExpedited).is_ok(),
        _ => {
            fence(Ordering::SeqCst);
            true
        }
    }
}
