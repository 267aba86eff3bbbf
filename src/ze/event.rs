//! Event pools and events: completion and timing of device work.

use crate::error::{Error, Result};
use crate::ze::call::{ze_call, ze_name};
use crate::ze::context::Context;
use crate::ze::handles::{EventHandle, EventPoolHandle};
use level_zero_sys::*;
use std::sync::Arc;
use std::time::Duration;

struct EventPoolInner {
    context: Context,
    handle: EventPoolHandle,
    count: u32,
}

impl Drop for EventPoolInner {
    fn drop(&mut self) {
        // SAFETY: every event of the pool holds it, so none is left; destroyed once, here.
        let result = unsafe { (self.context.api().event_pool_destroy)(self.handle.0) };
        self.context
            .check_drop(ze_name!(event_pool_destroy), result);
    }
}

/// A pool of host-visible events that record kernel timestamps.
///
/// ```
/// let devices = lazy_usm::Runtime::simulated("b70x2")?.devices()?;
/// let context = lazy_usm::Context::new(&devices)?;
/// let pool = lazy_usm::EventPool::new(&context, 2)?;
/// let event = pool.event(0)?;
/// assert!(!event.is_signaled()?);
/// event.signal()?;
/// assert!(event.wait_timeout(std::time::Duration::ZERO)?);
/// assert!(pool.event(2).is_err(), "index beyond the pool");
/// # Ok::<(), lazy_usm::Error>(())
/// ```
#[derive(Clone)]
pub struct EventPool {
    inner: Arc<EventPoolInner>,
}

impl std::fmt::Debug for EventPool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EventPool")
            .field("count", &self.inner.count)
            .finish_non_exhaustive()
    }
}

impl EventPool {
    /// A pool of `count` events.
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// let context = Context::new(&devices)?;
    /// assert_eq!(EventPool::new(&context, 4)?.count(), 4);
    /// assert!(EventPool::new(&context, 0).is_err());
    /// # Ok::<(), Error>(())
    /// ```
    pub fn new(context: &Context, count: u32) -> Result<Self> {
        if count == 0 {
            return Err(Error::invalid("an event pool needs at least one event"));
        }
        let desc = ze_event_pool_desc_t {
            stype: ze_structure_type_t::ZE_STRUCTURE_TYPE_EVENT_POOL_DESC,
            flags: ze_event_pool_flag_t::ZE_EVENT_POOL_FLAG_HOST_VISIBLE.0
                | ze_event_pool_flag_t::ZE_EVENT_POOL_FLAG_KERNEL_TIMESTAMP.0,
            count,
            ..Default::default()
        };
        let mut devices: Vec<_> = context.devices().iter().map(|d| d.handle().0).collect();
        let mut handle = std::ptr::null_mut();
        // SAFETY: a live context, a valid descriptor, device array and output pointer.
        unsafe {
            ze_call!(
                context.api(),
                event_pool_create(
                    context.handle().0,
                    &desc,
                    devices.len() as u32,
                    devices.as_mut_ptr(),
                    &mut handle,
                )
            )
        }?;
        Ok(Self {
            inner: Arc::new(EventPoolInner {
                context: context.clone(),
                handle: EventPoolHandle(handle),
                count,
            }),
        })
    }

    /// How many events the pool holds.
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// let context = Context::new(&devices)?;
    /// assert_eq!(EventPool::new(&context, 2)?.count(), 2);
    /// # Ok::<(), Error>(())
    /// ```
    pub fn count(&self) -> u32 {
        self.inner.count
    }

    /// Event `index` of the pool (each index once at a time).
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// let context = Context::new(&devices)?;
    /// let pool = EventPool::new(&context, 2)?;
    /// let (a, b) = (pool.event(0)?, pool.event(1)?);
    /// assert_ne!(a.handle(), b.handle());
    /// # Ok::<(), Error>(())
    /// ```
    pub fn event(&self, index: u32) -> Result<Event> {
        if index >= self.inner.count {
            return Err(Error::invalid(format!(
                "event index {index} is beyond the pool's {} events",
                self.inner.count
            )));
        }
        let desc = ze_event_desc_t {
            stype: ze_structure_type_t::ZE_STRUCTURE_TYPE_EVENT_DESC,
            index,
            signal: ze_event_scope_flag_t::ZE_EVENT_SCOPE_FLAG_HOST.0,
            wait: ze_event_scope_flag_t::ZE_EVENT_SCOPE_FLAG_HOST.0,
            ..Default::default()
        };
        let mut handle = std::ptr::null_mut();
        // SAFETY: a live pool, a valid descriptor and output pointer.
        unsafe {
            ze_call!(
                self.inner.context.api(),
                event_create(self.inner.handle.0, &desc, &mut handle)
            )
        }?;
        Ok(Event {
            pool: self.clone(),
            handle: EventHandle(handle),
        })
    }
}

/// Start and end of the work an event signalled after, in device timestamp ticks
/// (see `DeviceProperties::timestamp_frequency`).
///
/// ```
/// use lazy_usm::{Context, Runtime};
/// let devices = Runtime::simulated("b70x2")?.devices()?;
/// let context = Context::new(&devices)?;
/// let list = context.immediate_list(&devices[0].compute_engine()?)?;
/// let (a, b) = (context.alloc_device(&devices[0], 1 << 20, 0)?, context.alloc_device(&devices[0], 1 << 20, 0)?);
/// let (_, _, stamp) = list.copy_async(a, b)?.wait_timed()?;
/// let stamp = stamp.unwrap();
/// assert!(stamp.end > stamp.start);
/// # Ok::<(), lazy_usm::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KernelTimestamp {
    /// Start tick.
    pub start: u64,
    /// End tick.
    pub end: u64,
}

/// An event of an [`EventPool`].
///
/// ```
/// let devices = lazy_usm::Runtime::simulated("b70x2")?.devices()?;
/// let context = lazy_usm::Context::new(&devices)?;
/// let mut event = lazy_usm::EventPool::new(&context, 1)?.event(0)?;
/// assert_eq!(event.kernel_timestamp()?, None);
/// event.signal()?;
/// event.wait()?;
/// event.reset()?;
/// assert!(!event.is_signaled()?);
/// # Ok::<(), lazy_usm::Error>(())
/// ```
#[derive(Debug)]
pub struct Event {
    pool: EventPool,
    handle: EventHandle,
}

impl Drop for Event {
    fn drop(&mut self) {
        let context = &self.pool.inner.context;
        // SAFETY: a live event, destroyed once, here.
        let result = unsafe { (context.api().event_destroy)(self.handle.0) };
        context.check_drop(ze_name!(event_destroy), result);
    }
}

impl Event {
    fn api(&self) -> &ZeApi {
        self.pool.inner.context.api()
    }

    /// The raw handle.
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// let context = Context::new(&devices)?;
    /// assert!(!EventPool::new(&context, 1)?.event(0)?.handle().0.is_null());
    /// # Ok::<(), Error>(())
    /// ```
    pub fn handle(&self) -> EventHandle {
        self.handle
    }

    pub(crate) fn check_context(&self, context: &Context) -> Result<()> {
        if &self.pool.inner.context == context {
            Ok(())
        } else {
            Err(Error::ForeignObject {
                what: "event",
                detail: format!("event {:?} belongs to another context", self.handle.0),
            })
        }
    }

    /// Signals from the host.
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// let context = Context::new(&devices)?;
    /// let event = EventPool::new(&context, 1)?.event(0)?;
    /// event.signal()?;
    /// assert!(event.is_signaled()?);
    /// # Ok::<(), Error>(())
    /// ```
    pub fn signal(&self) -> Result<()> {
        // SAFETY: a live event.
        unsafe { ze_call!(self.api(), event_host_signal(self.handle.0)) }
    }

    /// Returns to the unsignalled state. Takes `&mut self`: a reset must not run while another
    /// thread waits on or queries the event, nor while queued work still uses it (work that
    /// waits on an event shares it through an `Arc`, which hands out no `&mut`).
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// let context = Context::new(&devices)?;
    /// let mut event = EventPool::new(&context, 1)?.event(0)?;
    /// event.signal()?;
    /// event.reset()?;
    /// assert!(!event.is_signaled()?);
    /// # Ok::<(), Error>(())
    /// ```
    ///
    /// A shared event cannot be reset:
    ///
    /// ```compile_fail
    /// fn reset_shared(event: &lazy_usm::Event) {
    ///     event.reset().unwrap();
    /// }
    /// ```
    pub fn reset(&mut self) -> Result<()> {
        self.host_reset()
    }

    /// `zeEventHostReset` for an event only its owner can reach (a command list's private
    /// completion event): the caller guarantees no concurrent use.
    pub(crate) fn host_reset(&self) -> Result<()> {
        // SAFETY: a live event; the caller rules out concurrent use.
        unsafe { ze_call!(self.api(), event_host_reset(self.handle.0)) }
    }

    /// Whether the event is signalled now.
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// let context = Context::new(&devices)?;
    /// assert!(!EventPool::new(&context, 1)?.event(0)?.is_signaled()?);
    /// # Ok::<(), Error>(())
    /// ```
    pub fn is_signaled(&self) -> Result<bool> {
        // SAFETY: a live event.
        match unsafe { (self.api().event_query_status)(self.handle.0) } {
            ze_result_t::ZE_RESULT_SUCCESS => Ok(true),
            ze_result_t::ZE_RESULT_NOT_READY => Ok(false),
            other => Err(Error::from_result(ze_name!(event_query_status), other)),
        }
    }

    /// Blocks until the event is signalled. A driver's `ZE_RESULT_NOT_READY` (which an infinite
    /// wait may still return) means "not yet", so it waits again; it never reads as success.
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// let context = Context::new(&devices)?;
    /// let event = EventPool::new(&context, 1)?.event(0)?;
    /// event.signal()?;
    /// event.wait()?;
    /// # Ok::<(), Error>(())
    /// ```
    pub fn wait(&self) -> Result<()> {
        while !self.synchronize(u64::MAX)? {
            std::thread::yield_now();
        }
        Ok(())
    }

    /// Waits until the work before the event can no longer touch memory: [`Event::wait`], and
    /// if that fails, polling until the event signals or the device is lost. Used before memory
    /// the work used is handed back or freed. Aborts the process if the driver can tell
    /// neither for a long time: returning then could let the device write freed memory.
    pub(crate) fn wait_settled(&self) -> Result<()> {
        settle(|| self.wait(), || self.is_signaled())
    }

    /// Blocks until the event is signalled or `timeout` passes; whether it was signalled.
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// let context = Context::new(&devices)?;
    /// let event = EventPool::new(&context, 1)?.event(0)?;
    /// assert!(!event.wait_timeout(std::time::Duration::from_millis(1))?, "nobody signals it");
    /// # Ok::<(), Error>(())
    /// ```
    pub fn wait_timeout(&self, timeout: Duration) -> Result<bool> {
        let nanos = u64::try_from(timeout.as_nanos()).unwrap_or(u64::MAX - 1);
        self.synchronize(nanos)
    }

    fn synchronize(&self, nanos: u64) -> Result<bool> {
        // SAFETY: a live event.
        match unsafe { (self.api().event_host_synchronize)(self.handle.0, nanos) } {
            ze_result_t::ZE_RESULT_SUCCESS => Ok(true),
            ze_result_t::ZE_RESULT_NOT_READY => Ok(false),
            other => Err(Error::from_result(ze_name!(event_host_synchronize), other)),
        }
    }

    /// When the work before the event ran, once it has signalled; `None` before.
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// let context = Context::new(&devices)?;
    /// let event = EventPool::new(&context, 1)?.event(0)?;
    /// assert_eq!(event.kernel_timestamp()?, None);
    /// event.signal()?;
    /// assert!(event.kernel_timestamp()?.is_some());
    /// # Ok::<(), Error>(())
    /// ```
    pub fn kernel_timestamp(&self) -> Result<Option<KernelTimestamp>> {
        let mut stamp = ze_kernel_timestamp_result_t::default();
        // SAFETY: a live event and a valid output struct.
        match unsafe { (self.api().event_query_kernel_timestamp)(self.handle.0, &mut stamp) } {
            ze_result_t::ZE_RESULT_SUCCESS => Ok(Some(KernelTimestamp {
                start: stamp.global.kernelStart,
                end: stamp.global.kernelEnd,
            })),
            ze_result_t::ZE_RESULT_NOT_READY => Ok(None),
            other => Err(Error::from_result(
                ze_name!(event_query_kernel_timestamp),
                other,
            )),
        }
    }
}

/// Waits with `wait`; if it fails, polls `query` until the work is known complete (`Ok`) or the
/// device is lost (the error). A device that keeps failing both for about a minute cannot be
/// trusted to have stopped, so the process aborts rather than free memory it may write.
pub(crate) fn settle(
    wait: impl Fn() -> Result<()>,
    query: impl Fn() -> Result<bool>,
) -> Result<()> {
    // Until this returns, the work may still touch memory that unwinding would free: a panic
    // in here (a logger's, say) aborts instead.
    let _abort_on_unwind = AbortOnUnwind(std::thread::panicking());
    let first = match wait() {
        Ok(()) => return Ok(()),
        Err(error @ Error::DeviceLost { .. }) => return Err(error),
        Err(error) => error,
    };
    let mut failures = 0u32;
    loop {
        match query() {
            Ok(true) => break,
            Ok(false) => failures = 0,
            Err(error @ Error::DeviceLost { .. }) => return Err(error),
            Err(error) => {
                failures += 1;
                if failures >= SETTLE_ATTEMPTS {
                    log::error!(
                        "lazy-usm: cannot tell whether device work using host or device memory \
                         has completed ({error}); aborting rather than freeing memory it may write"
                    );
                    std::process::abort();
                }
            }
        }
        std::thread::sleep(Duration::from_micros(500));
    }
    log::warn!("lazy-usm: {first}; the work completed nonetheless (polled)");
    Ok(())
}

/// Aborts the process if dropped during a panic that began after it was made (it holds
/// whether one was already unwinding then).
struct AbortOnUnwind(bool);

impl Drop for AbortOnUnwind {
    fn drop(&mut self) {
        if std::thread::panicking() && !self.0 {
            std::process::abort();
        }
    }
}

/// Consecutive failed queries (500 us apart) before [`settle`] gives up.
const SETTLE_ATTEMPTS: u32 = 120_000;
