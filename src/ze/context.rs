//! Contexts: the scope of allocations, residency and command lists.

use crate::error::{Error, Result, check};
use crate::ze::call::ze_name;
use crate::ze::device::Device;
use crate::ze::driver::Driver;
use crate::ze::handles::ContextHandle;
use level_zero_sys::*;
use std::ffi::c_void;
use std::sync::{Arc, Mutex};

pub(crate) struct ContextInner {
    driver: Driver,
    handle: ContextHandle,
    devices: Vec<Device>,
    drop_errors: Mutex<Vec<Error>>,
    /// Made by lazy-usm (destroyed with the last reference), or adopted from the host program
    /// (never destroyed here).
    owned: bool,
}

impl Drop for ContextInner {
    fn drop(&mut self) {
        if !self.owned {
            return;
        }
        // Every allocation, list and pool holds the context, so none is left here.
        // SAFETY: the handle is live and nothing else refers to it any more.
        let result = unsafe { (self.driver.api().context_destroy)(self.handle.0) };
        if let Err(error) = check(ze_name!(context_destroy), result) {
            log::error!("lazy-usm: {error}");
        }
    }
}

/// A Level Zero context over one device or several, shared by everything made in it.
///
/// Allocations, command lists and event pools keep their context alive (an `Arc` chain), so
/// dropping a `Context` while they live is safe: it is destroyed after the last of them.
///
/// ```
/// use lazy_usm::Memory;
/// let runtime = lazy_usm::Runtime::simulated("b70x2")?;
/// let devices = runtime.devices()?;
/// let context = lazy_usm::Context::new(&devices)?;
/// assert_eq!(context.devices().len(), 2);
/// let buffer = context.alloc_device(&devices[1], 1 << 20, 64)?;
/// drop(context); // the buffer keeps it alive
/// assert_eq!(buffer.len(), 1 << 20);
/// # Ok::<(), lazy_usm::Error>(())
/// ```
#[derive(Clone)]
pub struct Context {
    inner: Arc<ContextInner>,
}

impl std::fmt::Debug for Context {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Context")
            .field("handle", &self.inner.handle)
            .field("devices", &self.inner.devices.len())
            .finish()
    }
}

impl PartialEq for Context {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }
}

/// `devices` as a context's: at least one, all of one driver, no repeats; the first.
fn check_devices(devices: &[Device]) -> Result<&Device> {
    let first = devices
        .first()
        .ok_or_else(|| Error::invalid("a context needs at least one device"))?;
    for (position, device) in devices.iter().enumerate() {
        if device.driver() != first.driver() {
            return Err(Error::invalid(format!(
                "device {} belongs to another driver than device {}",
                device.index(),
                first.index()
            )));
        }
        if devices[..position].contains(device) {
            return Err(Error::invalid(format!(
                "device {} is listed twice",
                device.index()
            )));
        }
    }
    Ok(first)
}

impl Context {
    /// A context over `devices` (one or many, all of one driver, no repeats).
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// let single = Context::new(&devices[..1])?;
    /// assert_eq!(single.devices().len(), 1);
    /// assert!(Context::new(&[]).is_err());
    /// # Ok::<(), Error>(())
    /// ```
    pub fn new(devices: &[Device]) -> Result<Self> {
        let first = check_devices(devices)?;
        let driver = first.driver().clone();
        let api = driver.api();
        let desc = ze_context_desc_t {
            stype: ze_structure_type_t::ZE_STRUCTURE_TYPE_CONTEXT_DESC,
            ..Default::default()
        };
        let mut handles: Vec<_> = devices.iter().map(|device| device.handle().0).collect();
        let mut handle = std::ptr::null_mut();
        let (call, result) = match api.context_create_ex {
            // SAFETY: a live driver, a valid descriptor, device array and output pointer.
            Some(create_ex) => (ze_name!(context_create_ex), unsafe {
                create_ex(
                    driver.handle().0,
                    &desc,
                    handles.len() as u32,
                    handles.as_mut_ptr(),
                    &mut handle,
                )
            }),
            // Without zeContextCreateEx (spec 1.0) a context spans every device.
            None if driver.devices()?.len() == devices.len() => (ze_name!(context_create), {
                // SAFETY: a live driver, a valid descriptor and output pointer.
                unsafe { (api.context_create)(driver.handle().0, &desc, &mut handle) }
            }),
            None => {
                return Err(Error::invalid(
                    "this driver lacks zeContextCreateEx: contexts must span all devices",
                ));
            }
        };
        check(call, result)?;
        Ok(Self {
            inner: Arc::new(ContextInner {
                driver,
                handle: ContextHandle(handle),
                devices: devices.to_vec(),
                drop_errors: Mutex::new(Vec::new()),
                owned: true,
            }),
        })
    }

    /// Wraps a context the host program made (SYCL's `get_native`, another binding) over
    /// `devices`, without owning it: lazy-usm never destroys it.
    ///
    /// # Safety
    /// `handle` must be a live context of the devices' driver that spans `devices`, and it must
    /// outlive this `Context` and everything made in it (allocations, pools, lists, managers).
    ///
    /// ```
    /// # use lazy_usm::*;
    /// let runtime = Runtime::simulated("b70x2")?;
    /// let devices = runtime.devices()?;
    /// let host_made = Context::new(&devices)?; // stands in for the host program's context
    /// // SAFETY: `host_made` is live, spans `devices` and outlives `adopted`.
    /// let adopted = unsafe { Context::adopt(host_made.handle(), &devices) }?;
    /// let buffer = adopted.alloc_device(&devices[0], 4096, 0)?;
    /// drop(buffer);
    /// drop(adopted); // destroys nothing
    /// assert_eq!(runtime.simulator().unwrap().counters().live_contexts, 1);
    /// # Ok::<(), Error>(())
    /// ```
    pub unsafe fn adopt(handle: ContextHandle, devices: &[Device]) -> Result<Self> {
        if handle.0.is_null() {
            return Err(Error::invalid("a null context handle"));
        }
        let first = check_devices(devices)?;
        Ok(Self {
            inner: Arc::new(ContextInner {
                driver: first.driver().clone(),
                handle,
                devices: devices.to_vec(),
                drop_errors: Mutex::new(Vec::new()),
                owned: false,
            }),
        })
    }

    /// Whether lazy-usm made this context (and destroys it), rather than adopting it.
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// assert!(Context::new(&devices)?.is_owned());
    /// # Ok::<(), Error>(())
    /// ```
    pub fn is_owned(&self) -> bool {
        self.inner.owned
    }

    /// The devices the context spans.
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// assert_eq!(Context::new(&devices)?.devices(), &devices[..]);
    /// # Ok::<(), Error>(())
    /// ```
    pub fn devices(&self) -> &[Device] {
        &self.inner.devices
    }

    /// Whether `device` is in the context.
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// let context = Context::new(&devices[1..])?;
    /// assert!(context.contains(&devices[1]) && !context.contains(&devices[0]));
    /// # Ok::<(), Error>(())
    /// ```
    pub fn contains(&self, device: &Device) -> bool {
        self.inner.devices.contains(device)
    }

    /// The driver.
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// assert_eq!(Context::new(&devices)?.driver(), devices[0].driver());
    /// # Ok::<(), Error>(())
    /// ```
    pub fn driver(&self) -> &Driver {
        &self.inner.driver
    }

    /// The raw handle.
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// assert!(!Context::new(&devices)?.handle().0.is_null());
    /// # Ok::<(), Error>(())
    /// ```
    pub fn handle(&self) -> ContextHandle {
        self.inner.handle
    }

    pub(crate) fn api(&self) -> &ZeApi {
        self.inner.driver.api()
    }

    pub(crate) fn check_device(&self, device: &Device) -> Result<()> {
        if self.contains(device) {
            Ok(())
        } else {
            Err(Error::DeviceNotInContext {
                device: device.index(),
                devices: self.inner.devices.iter().map(Device::index).collect(),
            })
        }
    }

    /// Residency of an allocation known only by its range: the caller guarantees it is a live
    /// allocation of this context.
    pub(crate) fn residency_range(
        &self,
        address: usize,
        size: usize,
        device: &Device,
        evict: bool,
    ) -> Result<()> {
        self.check_device(device)?;
        let (call, function) = if evict {
            (
                ze_name!(context_evict_memory),
                self.api().context_evict_memory,
            )
        } else {
            (
                ze_name!(context_make_memory_resident),
                self.api().context_make_memory_resident,
            )
        };
        // SAFETY: the driver looks the range up; an unknown range is an error, not a fault.
        check(call, unsafe {
            function(
                self.inner.handle.0,
                device.handle().0,
                address as *mut c_void,
                size,
            )
        })
    }

    /// Keeps a failed `call` of a `Drop` for [`Context::take_drop_errors`] (and logs it).
    pub(crate) fn check_drop(&self, call: &'static str, result: ze_result_t) {
        if let Err(error) = check(call, result) {
            self.record_drop_error(error);
        }
    }

    pub(crate) fn record_drop_error(&self, error: Error) {
        log::error!("lazy-usm: {error}");
        self.inner
            .drop_errors
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .push(error);
    }

    /// Errors that `Drop` implementations met (a failed free, a failed wait) and could not
    /// return; taking them clears the list.
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// let context = Context::new(&devices)?;
    /// drop(context.alloc_device(&devices[0], 64, 0)?);
    /// assert!(context.take_drop_errors().is_empty());
    /// # Ok::<(), Error>(())
    /// ```
    pub fn take_drop_errors(&self) -> Vec<Error> {
        std::mem::take(
            &mut *self
                .inner
                .drop_errors
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner()),
        )
    }
}
