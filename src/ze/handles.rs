//! Level Zero handles as thread-safe newtypes, and the count/fill enumeration helper.

use crate::error::{Result, check};
use level_zero_sys::*;

macro_rules! handle {
    ($(#[$doc:meta])* $name:ident, $raw:ty) => {
        $(#[$doc])*
        #[repr(transparent)]
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub struct $name(pub $raw);

        // SAFETY: Level Zero driver, device, context, queue, event-pool, event and fence handles
        // are opaque identifiers the spec allows to be used from any thread; the wrappers that
        // own them serialise the calls the spec says are not thread-safe.
        unsafe impl Send for $name {}
        // SAFETY: as above.
        unsafe impl Sync for $name {}
    };
}

handle!(
    /// A `ze_driver_handle_t`.
    DriverHandle, ze_driver_handle_t
);
handle!(
    /// A `ze_device_handle_t`.
    DeviceHandle, ze_device_handle_t
);
handle!(
    /// A `ze_context_handle_t`.
    ContextHandle, ze_context_handle_t
);
handle!(
    /// A `ze_command_list_handle_t`.
    CommandListHandle, ze_command_list_handle_t
);
handle!(
    /// A `ze_event_pool_handle_t`.
    EventPoolHandle, ze_event_pool_handle_t
);
handle!(
    /// A `ze_event_handle_t`.
    EventHandle, ze_event_handle_t
);

/// The Level Zero count/fill pattern in one place: calls `fill(count, null)` for the count,
/// then `fill(count, array)` for the items, and returns as many as were written.
pub(crate) fn enumerate<T: Clone>(
    call: &'static str,
    blank: T,
    mut fill: impl FnMut(&mut u32, *mut T) -> ze_result_t,
) -> Result<Vec<T>> {
    let mut count = 0;
    check(call, fill(&mut count, std::ptr::null_mut()))?;
    let mut items = vec![blank; count as usize];
    if count > 0 {
        check(call, fill(&mut count, items.as_mut_ptr()))?;
        items.truncate(count as usize);
    }
    Ok(items)
}
