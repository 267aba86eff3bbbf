//! What a Level Zero function answers when nothing behind it implements it: one answer for
//! every layer that exports functions by name (the simulator's loader stand-in, lazy-usm's
//! loader shim), so they cannot disagree.

use crate::ze_result_t;

/// The value an unimplemented function of this return type answers.
///
/// ```
/// use level_zero_sys::{Unsupported, ze_result_t};
/// assert_eq!(ze_result_t::unsupported(), ze_result_t::ZE_RESULT_ERROR_UNSUPPORTED_FEATURE);
/// assert!(<*mut u8>::unsupported().is_null());
/// assert_eq!(u32::unsupported(), u32::MAX);
/// ```
pub trait Unsupported {
    /// The answer.
    fn unsupported() -> Self;
}

impl Unsupported for ze_result_t {
    fn unsupported() -> Self {
        ze_result_t::ZE_RESULT_ERROR_UNSUPPORTED_FEATURE
    }
}

/// Functions that return a handle return a null one.
impl<T> Unsupported for *mut T {
    fn unsupported() -> Self {
        std::ptr::null_mut()
    }
}

/// `zerTranslateDeviceHandleToIdentifier` returns an identifier; `u32::MAX` is its "invalid".
impl Unsupported for u32 {
    fn unsupported() -> Self {
        u32::MAX
    }
}
