//! Drivers: properties, extensions, devices.

use crate::error::Result;
use crate::ze::call::{ze_call, ze_name};
use crate::ze::handles::{DriverHandle, enumerate};
use crate::ze::runtime::Runtime;
use level_zero_sys::*;
use std::ffi::{CStr, CString, c_char, c_void};
use std::sync::Arc;

struct DriverInner {
    runtime: Runtime,
    handle: DriverHandle,
}

/// A Level Zero driver.
///
/// ```
/// let runtime = lazy_usm::Runtime::simulated("b60x4")?;
/// let driver = &runtime.drivers()?[0];
/// assert_eq!(driver.api_version()?, (1, 15));
/// assert_eq!(driver.devices()?.len(), 4);
/// # Ok::<(), lazy_usm::Error>(())
/// ```
#[derive(Clone)]
pub struct Driver {
    inner: Arc<DriverInner>,
}

impl std::fmt::Debug for Driver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Driver")
            .field("handle", &self.inner.handle)
            .finish()
    }
}

impl PartialEq for Driver {
    /// The same handle of the same runtime: two platforms may hand out equal raw handles.
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
            || (self.inner.handle == other.inner.handle
                && self.inner.runtime == other.inner.runtime)
    }
}

/// What `zeDriverGetProperties` reports.
///
/// ```
/// let runtime = lazy_usm::Runtime::simulated("b70x2")?;
/// let properties = runtime.drivers()?[0].properties()?;
/// assert_ne!(properties.driver_version, 0);
/// # Ok::<(), lazy_usm::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DriverProperties {
    /// The driver's UUID.
    pub uuid: [u8; 16],
    /// The driver's version number (vendor-specific packing).
    pub driver_version: u32,
}

impl Driver {
    pub(crate) fn new(runtime: Runtime, handle: DriverHandle) -> Self {
        Self {
            inner: Arc::new(DriverInner { runtime, handle }),
        }
    }

    /// The driver's identity across platforms: its runtime and its raw handle (two platforms
    /// may hand out equal raw handles).
    pub(crate) fn key(&self) -> (usize, usize) {
        (self.inner.runtime.id(), self.inner.handle.0 as usize)
    }

    /// The runtime this driver belongs to.
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// let driver = devices[0].driver();
    /// assert_eq!(driver.runtime().source(), runtime.source());
    /// # Ok::<(), Error>(())
    /// ```
    pub fn runtime(&self) -> &Runtime {
        &self.inner.runtime
    }

    /// The raw handle.
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// assert!(!runtime.drivers()?[0].handle().0.is_null());
    /// # Ok::<(), Error>(())
    /// ```
    pub fn handle(&self) -> DriverHandle {
        self.inner.handle
    }

    pub(crate) fn api(&self) -> &ZeApi {
        self.inner.runtime.api()
    }

    /// The API version the driver implements, as (major, minor).
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// assert_eq!(devices[0].driver().api_version()?, (1, 15));
    /// # Ok::<(), Error>(())
    /// ```
    pub fn api_version(&self) -> Result<(u32, u32)> {
        let mut version = ze_api_version_t(0);
        // SAFETY: a live driver handle and a valid output pointer.
        unsafe {
            ze_call!(
                self.api(),
                driver_get_api_version(self.inner.handle.0, &mut version)
            )
        }?;
        Ok((ze_major_version(version.0), ze_minor_version(version.0)))
    }

    /// The driver's UUID and version.
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// assert_ne!(devices[0].driver().properties()?.uuid, [0; 16]);
    /// # Ok::<(), Error>(())
    /// ```
    pub fn properties(&self) -> Result<DriverProperties> {
        let mut properties = ze_driver_properties_t {
            stype: ze_structure_type_t::ZE_STRUCTURE_TYPE_DRIVER_PROPERTIES,
            ..Default::default()
        };
        // SAFETY: a live driver handle and a valid output struct.
        unsafe {
            ze_call!(
                self.api(),
                driver_get_properties(self.inner.handle.0, &mut properties)
            )
        }?;
        Ok(DriverProperties {
            uuid: properties.uuid.id,
            driver_version: properties.driverVersion,
        })
    }

    /// The extensions the driver offers, as (name, version).
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// let names: Vec<String> = devices[0].driver().extensions()?.into_iter().map(|(name, _)| name).collect();
    /// assert!(names.contains(&"ZE_extension_memory_free_policies".to_string()));
    /// # Ok::<(), Error>(())
    /// ```
    pub fn extensions(&self) -> Result<Vec<(String, u32)>> {
        let api = self.api();
        let items = enumerate(
            ze_name!(driver_get_extension_properties),
            ze_driver_extension_properties_t::default(),
            |count, array| {
                // SAFETY: the count/fill pattern with pointers `enumerate` provides.
                unsafe { (api.driver_get_extension_properties)(self.inner.handle.0, count, array) }
            },
        )?;
        Ok(items
            .iter()
            .map(|item| (c_name(&item.name), item.version))
            .collect())
    }

    /// The address of an extension function, or `None` when the driver does not offer it.
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// assert!(devices[0].driver().extension_function(c"zexDriverImportExternalPointer").is_some());
    /// assert!(devices[0].driver().extension_function(c"zexNoSuchThing").is_none());
    /// # Ok::<(), Error>(())
    /// ```
    pub fn extension_function(&self, name: &CStr) -> Option<*const c_void> {
        let mut function = std::ptr::null_mut();
        // SAFETY: a live driver handle, a NUL-terminated name and a valid output pointer.
        let result = unsafe {
            (self.api().driver_get_extension_function_address)(
                self.inner.handle.0,
                name.as_ptr(),
                &mut function,
            )
        };
        (result == ze_result_t::ZE_RESULT_SUCCESS && !function.is_null())
            .then_some(function as *const c_void)
    }

    /// [`Driver::extension_function`] by a Rust string.
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// assert!(devices[0].driver().has_extension_function("zexDriverReleaseImportedPointer"));
    /// # Ok::<(), Error>(())
    /// ```
    pub fn has_extension_function(&self, name: &str) -> bool {
        CString::new(name).is_ok_and(|name| self.extension_function(&name).is_some())
    }
}

/// The name in a fixed-size C string field of a driver's properties.
pub(crate) fn c_name(chars: &[c_char]) -> String {
    let bytes: Vec<u8> = chars
        .iter()
        .take_while(|&&c| c != 0)
        .map(|&c| c as u8)
        .collect();
    String::from_utf8_lossy(&bytes).into_owned()
}

impl Runtime {
    /// The drivers, in the loader's order.
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// assert_eq!(runtime.drivers()?.len(), 1);
    /// # Ok::<(), Error>(())
    /// ```
    pub fn drivers(&self) -> Result<Vec<Driver>> {
        let api = self.api();
        let handles = enumerate(
            ze_name!(driver_get),
            std::ptr::null_mut(),
            |count, array| {
                // SAFETY: the count/fill pattern with pointers `enumerate` provides.
                unsafe { (api.driver_get)(count, array) }
            },
        )?;
        Ok(handles
            .into_iter()
            .map(|handle| Driver::new(self.clone(), DriverHandle(handle)))
            .collect())
    }
}
