//! Modules and kernels: programs built for one device, and the kernels they declare.

use crate::error::{Error, Result, check};
use crate::ze::call::{ze_call, ze_name};
use crate::ze::context::Context;
use crate::ze::device::Device;
use level_zero_sys::*;
use std::ffi::{CStr, CString, c_void};
use std::ptr::null_mut;
use std::sync::{Arc, Mutex, MutexGuard};

bitflags::bitflags! {
    /// Which kinds of memory a kernel may reach through pointers stored in memory
    /// (`ze_kernel_indirect_access_flags_t`). Intel's runtime sets all three on every kernel,
    /// so they say nothing about what a kernel reads: lazy-usm's launches declare such memory
    /// explicitly instead.
    ///
    /// ```
    /// use lazy_usm::KernelIndirectAccess;
    /// assert_eq!(KernelIndirectAccess::all().bits(), 0b111);
    /// ```
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub struct KernelIndirectAccess: u32 {
        /// Host USM.
        const HOST = ze_kernel_indirect_access_flag_t::ZE_KERNEL_INDIRECT_ACCESS_FLAG_HOST.0;
        /// Device USM.
        const DEVICE = ze_kernel_indirect_access_flag_t::ZE_KERNEL_INDIRECT_ACCESS_FLAG_DEVICE.0;
        /// Shared USM.
        const SHARED = ze_kernel_indirect_access_flag_t::ZE_KERNEL_INDIRECT_ACCESS_FLAG_SHARED.0;
    }
}

pub(crate) struct ModuleInner {
    context: Context,
    device: Device,
    handle: ze_module_handle_t,
}

// SAFETY: a module handle may be used from any thread (creating kernels from it is thread-safe
// in Level Zero); the wrapper adds no shared mutable state.
unsafe impl Send for ModuleInner {}
// SAFETY: as above.
unsafe impl Sync for ModuleInner {}

impl Drop for ModuleInner {
    fn drop(&mut self) {
        // Kernels hold the module, so none is left.
        // SAFETY: a live module, destroyed once, here.
        let result = unsafe { (self.context.api().module_destroy)(self.handle) };
        self.context.check_drop(ze_name!(module_destroy), result);
    }
}

/// A program built for one device of a context, from SPIR-V or a native binary.
///
/// ```
/// use lazy_usm::{Context, Module, Runtime};
/// let devices = Runtime::simulated("b70x2")?.devices()?;
/// let context = Context::new(&devices)?;
/// let spirv = lazy_usm::ze_sim::spirv::module_with_kernels(&[("lazy_usm_sim_fill_u32", 2)]);
/// let module = Module::from_spirv(&context, &devices[0], &spirv, "")?;
/// assert_eq!(module.kernel_names()?, ["lazy_usm_sim_fill_u32"]);
/// let bad = Module::from_spirv(&context, &devices[0], &[0; 20], "");
/// assert!(matches!(bad, Err(lazy_usm::Error::BuildFailed { ref log, .. }) if log.contains("magic")));
/// # Ok::<(), lazy_usm::Error>(())
/// ```
#[derive(Clone)]
pub struct Module {
    inner: Arc<ModuleInner>,
}

impl std::fmt::Debug for Module {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Module")
            .field("device", &self.inner.device.index())
            .finish_non_exhaustive()
    }
}

impl Module {
    /// Builds SPIR-V for `device` with build `options` (driver flags such as `-cl-opt-disable`).
    /// A failed build returns [`Error::BuildFailed`] with the driver's build log.
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// let context = Context::new(&devices)?;
    /// let spirv = ze_sim::spirv::module_with_kernels(&[("scale", 3)]);
    /// let module = Module::from_spirv(&context, &devices[1], &spirv, "-cl-fast-relaxed-math")?;
    /// assert_eq!(module.device(), &devices[1]);
    /// # Ok::<(), Error>(())
    /// ```
    pub fn from_spirv(
        context: &Context,
        device: &Device,
        spirv: &[u8],
        options: &str,
    ) -> Result<Self> {
        Self::build(
            context,
            device,
            ze_module_format_t::ZE_MODULE_FORMAT_IL_SPIRV,
            spirv,
            options,
        )
    }

    /// Loads a native binary for `device` (the driver checks it; the simulator takes it as
    /// opaque, with any kernel name).
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// let context = Context::new(&devices)?;
    /// let module = Module::from_native(&context, &devices[0], &[0x7f, 0x45, 0x4c, 0x46])?;
    /// assert!(module.kernel("anything").is_ok());
    /// assert!(Module::from_native(&context, &devices[0], &[]).is_err(), "empty");
    /// # Ok::<(), Error>(())
    /// ```
    pub fn from_native(context: &Context, device: &Device, binary: &[u8]) -> Result<Self> {
        Self::build(
            context,
            device,
            ze_module_format_t::ZE_MODULE_FORMAT_NATIVE,
            binary,
            "",
        )
    }

    fn build(
        context: &Context,
        device: &Device,
        format: ze_module_format_t,
        bytes: &[u8],
        options: &str,
    ) -> Result<Self> {
        context.check_device(device)?;
        if bytes.is_empty() {
            return Err(Error::invalid("a module needs at least one byte"));
        }
        let options = CString::new(options)
            .map_err(|_| Error::invalid("build options contain a nul byte"))?;
        let desc = ze_module_desc_t {
            stype: ze_structure_type_t::ZE_STRUCTURE_TYPE_MODULE_DESC,
            format,
            inputSize: bytes.len(),
            pInputModule: bytes.as_ptr(),
            pBuildFlags: options.as_ptr(),
            ..Default::default()
        };
        let (mut handle, mut log) = (null_mut(), null_mut());
        // SAFETY: a live context and device of it; descriptor, bytes and options outlive the
        // call; valid output pointers.
        let result = unsafe {
            (context.api().module_create)(
                context.handle().0,
                device.handle().0,
                &desc,
                &mut handle,
                &mut log,
            )
        };
        let text = build_log(context, log);
        if result == ze_result_t::ZE_RESULT_ERROR_MODULE_BUILD_FAILURE {
            return Err(Error::BuildFailed {
                log: text.unwrap_or_default(),
            });
        }
        check(ze_name!(module_create), result)?;
        Ok(Self {
            inner: Arc::new(ModuleInner {
                context: context.clone(),
                device: device.clone(),
                handle,
            }),
        })
    }

    /// The device it was built for.
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// # let context = Context::new(&devices)?;
    /// let module = Module::from_native(&context, &devices[0], &[1])?;
    /// assert_eq!(module.device(), &devices[0]);
    /// # Ok::<(), Error>(())
    /// ```
    pub fn device(&self) -> &Device {
        &self.inner.device
    }

    /// The kernels the module declares.
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// # let context = Context::new(&devices)?;
    /// let spirv = ze_sim::spirv::module_with_kernels(&[("a", 0), ("b", 1)]);
    /// let module = Module::from_spirv(&context, &devices[0], &spirv, "")?;
    /// assert_eq!(module.kernel_names()?, ["a", "b"]);
    /// # Ok::<(), Error>(())
    /// ```
    pub fn kernel_names(&self) -> Result<Vec<String>> {
        let names = crate::ze::handles::enumerate(
            ze_name!(module_get_kernel_names),
            std::ptr::null(),
            |count, array| {
                // SAFETY: a live module; the count/fill protocol's pointers.
                unsafe {
                    (self.inner.context.api().module_get_kernel_names)(
                        self.inner.handle,
                        count,
                        array,
                    )
                }
            },
        )?;
        Ok(names
            .into_iter()
            .filter(|name| !name.is_null())
            // SAFETY: nul-terminated names the module owns, alive as long as it is.
            .map(|name| {
                unsafe { CStr::from_ptr(name) }
                    .to_string_lossy()
                    .into_owned()
            })
            .collect())
    }

    /// The kernel `name`.
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// # let context = Context::new(&devices)?;
    /// let spirv = ze_sim::spirv::module_with_kernels(&[("scale", 3)]);
    /// let module = Module::from_spirv(&context, &devices[0], &spirv, "")?;
    /// assert_eq!(module.kernel("scale")?.properties()?.arguments, 3);
    /// assert!(matches!(module.kernel("missing"), Err(Error::NoSuchKernel { .. })));
    /// # Ok::<(), Error>(())
    /// ```
    pub fn kernel(&self, name: &str) -> Result<Kernel> {
        let c_name =
            CString::new(name).map_err(|_| Error::invalid("a kernel name contains a nul byte"))?;
        let desc = ze_kernel_desc_t {
            stype: ze_structure_type_t::ZE_STRUCTURE_TYPE_KERNEL_DESC,
            pKernelName: c_name.as_ptr(),
            ..Default::default()
        };
        let mut handle = null_mut();
        // SAFETY: a live module, a valid descriptor and output pointer.
        let result = unsafe {
            (self.inner.context.api().kernel_create)(self.inner.handle, &desc, &mut handle)
        };
        if result == ze_result_t::ZE_RESULT_ERROR_INVALID_KERNEL_NAME {
            return Err(Error::NoSuchKernel {
                name: name.to_string(),
            });
        }
        check(ze_name!(kernel_create), result)?;
        // Owned (and destroyed on an early return) before its properties are read.
        let mut inner = KernelInner {
            module: Arc::clone(&self.inner),
            handle,
            name: name.to_string(),
            arguments: 0,
            calls: Mutex::new(()),
        };
        // Every launch sets every argument: one left out would keep an earlier launch's value.
        inner.arguments = inner.properties()?.arguments;
        Ok(Kernel {
            inner: Arc::new(inner),
        })
    }
}

/// The text of a build log, which is then destroyed.
fn build_log(context: &Context, log: ze_module_build_log_handle_t) -> Option<String> {
    if log.is_null() {
        return None;
    }
    let api = context.api();
    let mut size = 0usize;
    // SAFETY: a live build log; a size query, then a fill of `size` bytes.
    let text = unsafe {
        let mut text = None;
        if (api.module_build_log_get_string)(log, &mut size, null_mut())
            == ze_result_t::ZE_RESULT_SUCCESS
        {
            let mut bytes = vec![0u8; size.max(1)];
            if (api.module_build_log_get_string)(log, &mut size, bytes.as_mut_ptr() as *mut _)
                == ze_result_t::ZE_RESULT_SUCCESS
            {
                let end = bytes
                    .iter()
                    .position(|&byte| byte == 0)
                    .unwrap_or(bytes.len());
                text = Some(String::from_utf8_lossy(&bytes[..end]).into_owned());
            }
        }
        text
    };
    // SAFETY: the build log, destroyed once, here.
    let result = unsafe { (api.module_build_log_destroy)(log) };
    context.check_drop(ze_name!(module_build_log_destroy), result);
    text
}

pub(crate) struct KernelInner {
    module: Arc<ModuleInner>,
    handle: ze_kernel_handle_t,
    name: String,
    /// How many arguments it takes: every launch sets all of them.
    arguments: u32,
    /// Level Zero kernels are not thread-safe: setting arguments and appending a launch (which
    /// captures them) happen under this lock.
    calls: Mutex<()>,
}

// SAFETY: the kernel handle's non-thread-safe calls are serialised by `calls`.
unsafe impl Send for KernelInner {}
// SAFETY: as above.
unsafe impl Sync for KernelInner {}

impl Drop for KernelInner {
    fn drop(&mut self) {
        // Launches hold the kernel until they complete, so none is pending.
        // SAFETY: a live kernel, destroyed once, here.
        let result = unsafe { (self.module.context.api().kernel_destroy)(self.handle) };
        self.module
            .context
            .check_drop(ze_name!(kernel_destroy), result);
    }
}

impl KernelInner {
    fn properties(&self) -> Result<KernelProperties> {
        let mut properties = ze_kernel_properties_t {
            stype: ze_structure_type_t::ZE_STRUCTURE_TYPE_KERNEL_PROPERTIES,
            ..Default::default()
        };
        // SAFETY: a live kernel and a valid output struct.
        unsafe {
            ze_call!(
                self.module.context.api(),
                kernel_get_properties(self.handle, &mut properties)
            )
        }?;
        let required = [
            properties.requiredGroupSizeX,
            properties.requiredGroupSizeY,
            properties.requiredGroupSizeZ,
        ];
        Ok(KernelProperties {
            arguments: properties.numKernelArgs,
            required_group_size: required.iter().all(|&side| side > 0).then_some(required),
            max_subgroup_size: properties.maxSubgroupSize,
        })
    }
}

/// A kernel of a [`Module`]. `Sync`: launches from several threads take turns setting its
/// arguments.
///
/// ```
/// use lazy_usm::{Context, Module, Runtime};
/// let devices = Runtime::simulated("b70x2")?.devices()?;
/// let context = Context::new(&devices)?;
/// let spirv = lazy_usm::ze_sim::spirv::module_with_kernels(&[("lazy_usm_sim_fill_u32", 2)]);
/// let kernel = Module::from_spirv(&context, &devices[0], &spirv, "")?.kernel("lazy_usm_sim_fill_u32")?;
/// assert_eq!(kernel.name(), "lazy_usm_sim_fill_u32");
/// # Ok::<(), lazy_usm::Error>(())
/// ```
#[derive(Clone)]
pub struct Kernel {
    pub(crate) inner: Arc<KernelInner>,
}

impl std::fmt::Debug for Kernel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Kernel")
            .field("name", &self.inner.name)
            .finish_non_exhaustive()
    }
}

/// What `zeKernelGetProperties` reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KernelProperties {
    /// How many arguments it takes.
    pub arguments: u32,
    /// The group size it requires, if its source fixes one.
    pub required_group_size: Option<[u32; 3]>,
    /// Largest sub-group size.
    pub max_subgroup_size: u32,
}

impl Kernel {
    /// Its name.
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// # let context = Context::new(&devices)?;
    /// let module = Module::from_native(&context, &devices[0], &[1])?;
    /// assert_eq!(module.kernel("k")?.name(), "k");
    /// # Ok::<(), Error>(())
    /// ```
    pub fn name(&self) -> &str {
        &self.inner.name
    }

    /// The device it runs on (its module's).
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// # let context = Context::new(&devices)?;
    /// let module = Module::from_native(&context, &devices[1], &[1])?;
    /// assert_eq!(module.kernel("k")?.device(), &devices[1]);
    /// # Ok::<(), Error>(())
    /// ```
    pub fn device(&self) -> &Device {
        &self.inner.module.device
    }

    pub(crate) fn context(&self) -> &Context {
        &self.inner.module.context
    }

    /// How many arguments it takes.
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// # let context = Context::new(&devices)?;
    /// let spirv = ze_sim::spirv::module_with_kernels(&[("two", 2)]);
    /// assert_eq!(Module::from_spirv(&context, &devices[0], &spirv, "")?.kernel("two")?.arguments(), 2);
    /// # Ok::<(), Error>(())
    /// ```
    pub fn arguments(&self) -> u32 {
        self.inner.arguments
    }

    /// Its properties.
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// # let context = Context::new(&devices)?;
    /// let spirv = ze_sim::spirv::module_with_kernels(&[("two", 2)]);
    /// let kernel = Module::from_spirv(&context, &devices[0], &spirv, "")?.kernel("two")?;
    /// let properties = kernel.properties()?;
    /// assert_eq!((properties.arguments, properties.required_group_size), (2, None));
    /// # Ok::<(), Error>(())
    /// ```
    pub fn properties(&self) -> Result<KernelProperties> {
        self.inner.properties()
    }

    /// The group size the driver suggests for `global` work items per dimension (each side
    /// divides the global size and fits the device).
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// # let context = Context::new(&devices)?;
    /// let kernel = Module::from_native(&context, &devices[0], &[1])?.kernel("k")?;
    /// let [x, y, z] = kernel.suggest_group_size([3000, 1, 1])?;
    /// assert_eq!((3000 % x, y, z), (0, 1, 1));
    /// # Ok::<(), Error>(())
    /// ```
    pub fn suggest_group_size(&self, global: [u32; 3]) -> Result<[u32; 3]> {
        let (mut x, mut y, mut z) = (0, 0, 0);
        // SAFETY: a live kernel and valid output pointers.
        unsafe {
            ze_call!(
                self.context().api(),
                kernel_suggest_group_size(
                    self.inner.handle,
                    global[0],
                    global[1],
                    global[2],
                    &mut x,
                    &mut y,
                    &mut z,
                )
            )
        }?;
        Ok([x, y, z])
    }

    /// Sets which memory the kernel may reach through pointers in memory (see
    /// [`KernelIndirectAccess`]; lazy-usm's residency does not rely on it).
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// # let context = Context::new(&devices)?;
    /// let kernel = Module::from_native(&context, &devices[0], &[1])?.kernel("k")?;
    /// kernel.set_indirect_access(KernelIndirectAccess::DEVICE)?;
    /// # Ok::<(), Error>(())
    /// ```
    pub fn set_indirect_access(&self, access: KernelIndirectAccess) -> Result<()> {
        let _calls = self.lock();
        // SAFETY: a live kernel; calls on it are serialised by the lock.
        unsafe {
            ze_call!(
                self.context().api(),
                kernel_set_indirect_access(self.inner.handle, access.bits())
            )
        }
    }

    pub(crate) fn lock(&self) -> MutexGuard<'_, ()> {
        self.inner
            .calls
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    pub(crate) fn handle(&self) -> ze_kernel_handle_t {
        self.inner.handle
    }

    /// Sets the group size and the arguments; the caller holds [`Kernel::lock`] until the
    /// launch that captures them is appended.
    pub(crate) fn prepare(&self, group_size: [u32; 3], arguments: &[ArgumentBytes]) -> Result<()> {
        let api = self.context().api();
        // SAFETY: a live kernel; the caller holds the lock.
        unsafe {
            ze_call!(
                api,
                kernel_set_group_size(
                    self.inner.handle,
                    group_size[0],
                    group_size[1],
                    group_size[2],
                )
            )
        }
        .map_err(|error| match error {
            Error::ZeError { result, .. }
                if result.0 == ze_result_t::ZE_RESULT_ERROR_INVALID_GROUP_SIZE_DIMENSION =>
            {
                Error::invalid(format!(
                    "group size {group_size:?} exceeds the device's limits"
                ))
            }
            other => other,
        })?;
        for (index, argument) in arguments.iter().enumerate() {
            let (size, value) = match argument {
                ArgumentBytes::Pointer(address) => {
                    (size_of::<usize>(), address as *const usize as *const c_void)
                }
                ArgumentBytes::Scalar(bytes) => (bytes.len(), bytes.as_ptr() as *const c_void),
            };
            // SAFETY: a live kernel; `value` is `size` readable bytes; the caller holds the lock.
            unsafe {
                ze_call!(
                    api,
                    kernel_set_argument_value(self.inner.handle, index as u32, size, value)
                )
            }
            .map_err(|error| match error {
                Error::ZeError { result, .. }
                    if result.0 == ze_result_t::ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_INDEX
                        || result.0
                            == ze_result_t::ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE =>
                {
                    Error::BadKernelArgument {
                        kernel: self.inner.name.clone(),
                        index: index as u32,
                        size,
                    }
                }
                other => other,
            })?;
        }
        Ok(())
    }
}

/// An argument as the driver takes it.
#[derive(Debug, Clone)]
pub(crate) enum ArgumentBytes {
    Pointer(usize),
    Scalar(Vec<u8>),
}
