//! Status codes, the thread's last error message, and the guard every export runs its body in.

#![deny(unsafe_code)]

use lazy_usm_core::Error;
use std::cell::RefCell;
use std::ffi::{CString, c_char};

/// What a call did. `LAZY_USM_STATUS_OK` is 0; on anything else `lazy_usm_last_error()` says
/// what was wrong.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LazyUsmStatus {
    /// Done.
    Ok = 0,
    /// An argument is out of range or inconsistent (a device index, a size, a policy).
    InvalidArgument = 1,
    /// A pointer argument that must not be null was.
    NullPointer = 2,
    /// No live allocation of this manager contains (or, for a free, starts at) the pointer.
    UnknownPointer = 3,
    /// The device has no memory left for the request.
    OutOfDeviceMemory = 4,
    /// The host has no memory left (a peer residency's pinned mirror, say).
    OutOfHostMemory = 5,
    /// Work through lazy-usm uses the memory; try again after it completes.
    InUse = 6,
    /// The manager's host budget cannot afford the residency asked for.
    HostBudgetExceeded = 7,
    /// No Level Zero loader, or no GPU.
    NoDevice = 8,
    /// A Level Zero call failed.
    LevelZero = 9,
    /// A bug in lazy-usm (please report it with the message).
    Internal = 10,
    /// lazy-usm panicked; the message says where. The manager may be left in any state.
    Panic = 11,
}

thread_local! {
    static LAST_ERROR: RefCell<CString> = RefCell::new(CString::default());
}

fn remember(message: String) {
    // A message with a NUL inside is cut there, rather than lost.
    let message = CString::new(message).unwrap_or_else(|error| {
        let end = error.nul_position();
        let mut bytes = error.into_vec();
        bytes.truncate(end);
        CString::new(bytes).unwrap_or_default()
    });
    // After the thread's locals are gone (a call from a thread-exit or process-exit handler)
    // the message is dropped rather than panic across the C boundary.
    let _ = LAST_ERROR.try_with(|last| *last.borrow_mut() = message);
}

/// This thread's last failure message, as a C string that lives until the thread's next
/// failure.
pub fn last_error() -> *const c_char {
    LAST_ERROR
        .try_with(|last| last.borrow().as_ptr())
        .unwrap_or(c"".as_ptr())
}

/// A failure: its status and message.
#[derive(Debug)]
pub struct Failure(pub LazyUsmStatus, pub String);

impl Failure {
    /// A null pointer where `what` was expected.
    pub fn null(what: &str) -> Self {
        Self(LazyUsmStatus::NullPointer, format!("{what} is null"))
    }

    /// A bad argument.
    pub fn invalid(message: impl Into<String>) -> Self {
        Self(LazyUsmStatus::InvalidArgument, message.into())
    }
}

impl From<Error> for Failure {
    fn from(error: Error) -> Self {
        let status = match &error {
            Error::OutOfDeviceMemory { .. } => LazyUsmStatus::OutOfDeviceMemory,
            Error::OutOfHostMemory { .. } => LazyUsmStatus::OutOfHostMemory,
            Error::HostBudgetExceeded { .. } => LazyUsmStatus::HostBudgetExceeded,
            Error::InUse { .. } => LazyUsmStatus::InUse,
            Error::UnknownPointer { .. } | Error::ForeignMemory { .. } => {
                LazyUsmStatus::UnknownPointer
            }
            Error::Loader(_) | Error::NoDevice(_) => LazyUsmStatus::NoDevice,
            Error::ZeError { .. } | Error::DeviceLost { .. } => LazyUsmStatus::LevelZero,
            Error::Internal(_) => LazyUsmStatus::Internal,
            _ => LazyUsmStatus::InvalidArgument,
        };
        Self(status, error.to_string())
    }
}

/// Runs an export's body: its failure (or panic) becomes a status and this thread's message.
pub fn guard(body: impl FnOnce() -> Result<(), Failure>) -> LazyUsmStatus {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(body)) {
        Ok(Ok(())) => LazyUsmStatus::Ok,
        Ok(Err(Failure(status, message))) => {
            remember(message);
            status
        }
        Err(panic) => {
            let what = panic
                .downcast_ref::<&str>()
                .map(|text| text.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "a panic".into());
            remember(format!("lazy-usm panicked: {what}"));
            LazyUsmStatus::Panic
        }
    }
}
