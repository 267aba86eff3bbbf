//! `ZeApi`: the Level Zero entry points the library calls, resolved at run time.

use crate::generated::ze_pfnInitDrivers_t;
use crate::generated::*;
use std::any::Any;
use std::ffi::c_void;
use std::fmt;
use std::sync::Arc;

/// Environment variable naming the Level Zero loader library to load instead of the default
/// search (`libze_loader.so.1`, then `libze_loader.so`).
pub const LOADER_PATH_ENV: &str = "LAZY_USM_ZE_LOADER";

/// Library names tried, in order, by [`ZeApi::load_system`] when [`LOADER_PATH_ENV`] is unset.
pub const SYSTEM_LOADER_NAMES: &[&str] = &["libze_loader.so.1", "libze_loader.so"];

/// Why a [`ZeApi`] could not be built.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// No candidate library could be opened.
    #[error("could not load a Level Zero loader; tried: {}", .tried.join("; "))]
    LibraryNotFound {
        /// Each candidate with the reason it failed.
        tried: Vec<String>,
    },
    /// The library opened but lacks entry points every Level Zero 1.x implementation has.
    #[error("{origin} lacks core Level Zero symbols: {}", .missing.join(", "))]
    MissingSymbols {
        /// What was loaded.
        origin: String,
        /// The symbols that could not be resolved.
        missing: Vec<&'static str>,
    },
}

/// Turns `Option<unsafe extern "C" fn(..)>` (how bindgen spells a `ze_pfn*_t`) into the bare
/// function-pointer type, so that core entry points need no unwrap at the call site.
pub trait FunctionPointer {
    /// The bare function-pointer type.
    type Bare: Copy;
}

impl<F: Copy> FunctionPointer for Option<F> {
    type Bare = F;
}

/// Reinterprets a resolved symbol address as a function pointer of type `F`.
///
/// # Safety
/// `address` must be null (only when `F` is an `Option` of a function pointer) or the address of
/// a function whose ABI and signature are exactly `F`'s.
unsafe fn cast_symbol<F: Copy>(address: *const c_void) -> F {
    const { assert!(size_of::<F>() == size_of::<*const c_void>()) };
    // SAFETY: same size (checked above); validity of the value is the caller's promise.
    unsafe { std::mem::transmute_copy::<*const c_void, F>(&address) }
}

macro_rules! ze_api {
    (
        core { $($field:ident: $pfn:ty = $symbol:literal,)* }
        optional { $($opt_field:ident: $opt_pfn:ty = $opt_symbol:literal,)* }
    ) => {
        /// The Level Zero entry points lazy-usm uses, resolved once at run time.
        ///
        /// Core entry points (present in every 1.x loader and driver) are plain function
        /// pointers; entry points that newer specs added are `Option`s. The struct keeps whatever
        /// provides the functions (a loaded library, a simulated platform) alive.
        ///
        /// ```
        /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
        /// use level_zero_sys::ZeApi;
        /// match ZeApi::load_system() {
        ///     Ok(api) => assert!(!api.origin().is_empty()),
        ///     Err(error) => assert!(error.to_string().contains("libze_loader"), "{error}"),
        /// }
        /// # Ok(()) }
        /// ```
        #[non_exhaustive]
        pub struct ZeApi {
            $(
                #[doc = concat!("`", $symbol, "`")]
                pub $field: <$pfn as FunctionPointer>::Bare,
            )*
            $(
                #[doc = concat!("`", $opt_symbol, "`: absent from older loaders and drivers")]
                pub $opt_field: $opt_pfn,
            )*
            /// `zeInitDrivers` (spec 1.10): absent from older loaders and drivers.
            pub init_drivers: ze_pfnInitDrivers_t,
            origin: String,
            _provider: Option<Arc<dyn Any + Send + Sync>>,
        }

        /// The name of each of [`ZeApi`]'s entry points, by field, as the headers spell it: what
        /// a failed call is named by (`ZeApi::SYMBOLS.mem_alloc_device` is
        /// `"zeMemAllocDevice"`), so no caller types a call's name by hand.
        ///
        /// ```
        /// let names = level_zero_sys::ZeApi::SYMBOLS;
        /// assert_eq!(names.mem_alloc_device, "zeMemAllocDevice");
        /// assert_eq!(names.init_drivers, "zeInitDrivers");
        /// ```
        #[non_exhaustive]
        pub struct ZeSymbols {
            $(
                #[doc = concat!("`", $symbol, "`")]
                pub $field: &'static str,
            )*
            $(
                #[doc = concat!("`", $opt_symbol, "`")]
                pub $opt_field: &'static str,
            )*
            /// `zeInitDrivers`
            pub init_drivers: &'static str,
        }

        impl ZeApi {
            /// Each entry point's name, by field.
            pub const SYMBOLS: ZeSymbols = ZeSymbols {
                $($field: $symbol,)*
                $($opt_field: $opt_symbol,)*
                init_drivers: "zeInitDrivers",
            };

            /// Each entry point's name beside the name of its function-pointer type, as the
            /// table declares them (a test checks that each pair agrees).
            #[doc(hidden)]
            pub const SYMBOL_TYPES: &'static [(&'static str, &'static str)] = &[
                $(($symbol, stringify!($pfn)),)*
                $(($opt_symbol, stringify!($opt_pfn)),)*
            ];

            /// Symbols every provider must have.
            pub const CORE_SYMBOLS: &'static [&'static str] = &[$($symbol),*];
            /// Symbols used when present.
            pub const OPTIONAL_SYMBOLS: &'static [&'static str] = &[$($opt_symbol,)* "zeInitDrivers"];

            /// Builds the table from a symbol resolver (`name -> address`, null or `None` when
            /// absent). `origin` describes the provider for messages; `provider` is kept alive as
            /// long as the table.
            ///
            /// # Safety
            /// Every address `resolve` returns for a name must be a function with the signature
            /// the Level Zero headers declare for that name, valid while `provider` lives.
            ///
            /// ```
            /// // A provider without the core functions is a typed error, not a panic.
            /// // SAFETY: nothing is resolved, so nothing can be called.
            /// let error = unsafe { level_zero_sys::ZeApi::from_resolver("empty", None, |_| None) }.unwrap_err();
            /// assert!(error.to_string().contains("zeInit"));
            /// ```
            pub unsafe fn from_resolver(
                origin: impl Into<String>,
                provider: Option<Arc<dyn Any + Send + Sync>>,
                resolve: impl Fn(&str) -> Option<*const c_void>,
            ) -> Result<Self, LoadError> {
                let origin = origin.into();
                let lookup = |name: &str| resolve(name).filter(|address| !address.is_null());
                let mut missing = Vec::new();
                $(
                    let $field = lookup($symbol);
                    if $field.is_none() {
                        missing.push($symbol);
                    }
                )*
                if !missing.is_empty() {
                    return Err(LoadError::MissingSymbols { origin, missing });
                }
                Ok(Self {
                    $(
                        // SAFETY: present (checked above) and of this signature (caller's promise).
                        $field: unsafe {
                            cast_symbol::<<$pfn as FunctionPointer>::Bare>(
                                $field.unwrap_or(std::ptr::null()),
                            )
                        },
                    )*
                    $(
                        // SAFETY: null maps to None; otherwise of this signature (caller's promise).
                        $opt_field: unsafe {
                            cast_symbol::<$opt_pfn>(lookup($opt_symbol).unwrap_or(std::ptr::null()))
                        },
                    )*
                    // SAFETY: as above.
                    init_drivers: unsafe {
                        cast_symbol::<ze_pfnInitDrivers_t>(
                            lookup("zeInitDrivers").unwrap_or(std::ptr::null()),
                        )
                    },
                    origin,
                    _provider: provider,
                })
            }
        }
    };
}

ze_api! {
    core {
        init: ze_pfnInit_t = "zeInit",
        driver_get: ze_pfnDriverGet_t = "zeDriverGet",
        driver_get_api_version: ze_pfnDriverGetApiVersion_t = "zeDriverGetApiVersion",
        driver_get_properties: ze_pfnDriverGetProperties_t = "zeDriverGetProperties",
        driver_get_extension_properties: ze_pfnDriverGetExtensionProperties_t = "zeDriverGetExtensionProperties",
        driver_get_extension_function_address: ze_pfnDriverGetExtensionFunctionAddress_t = "zeDriverGetExtensionFunctionAddress",
        device_get: ze_pfnDeviceGet_t = "zeDeviceGet",
        device_get_sub_devices: ze_pfnDeviceGetSubDevices_t = "zeDeviceGetSubDevices",
        device_get_properties: ze_pfnDeviceGetProperties_t = "zeDeviceGetProperties",
        device_get_memory_properties: ze_pfnDeviceGetMemoryProperties_t = "zeDeviceGetMemoryProperties",
        device_get_command_queue_group_properties: ze_pfnDeviceGetCommandQueueGroupProperties_t = "zeDeviceGetCommandQueueGroupProperties",
        device_get_p2p_properties: ze_pfnDeviceGetP2PProperties_t = "zeDeviceGetP2PProperties",
        device_can_access_peer: ze_pfnDeviceCanAccessPeer_t = "zeDeviceCanAccessPeer",
        context_create: ze_pfnContextCreate_t = "zeContextCreate",
        context_destroy: ze_pfnContextDestroy_t = "zeContextDestroy",
        context_make_memory_resident: ze_pfnContextMakeMemoryResident_t = "zeContextMakeMemoryResident",
        context_evict_memory: ze_pfnContextEvictMemory_t = "zeContextEvictMemory",
        mem_alloc_device: ze_pfnMemAllocDevice_t = "zeMemAllocDevice",
        mem_alloc_host: ze_pfnMemAllocHost_t = "zeMemAllocHost",
        mem_alloc_shared: ze_pfnMemAllocShared_t = "zeMemAllocShared",
        mem_free: ze_pfnMemFree_t = "zeMemFree",
        mem_get_alloc_properties: ze_pfnMemGetAllocProperties_t = "zeMemGetAllocProperties",
        mem_get_address_range: ze_pfnMemGetAddressRange_t = "zeMemGetAddressRange",
        command_queue_create: ze_pfnCommandQueueCreate_t = "zeCommandQueueCreate",
        command_queue_destroy: ze_pfnCommandQueueDestroy_t = "zeCommandQueueDestroy",
        command_queue_execute_command_lists: ze_pfnCommandQueueExecuteCommandLists_t = "zeCommandQueueExecuteCommandLists",
        command_queue_synchronize: ze_pfnCommandQueueSynchronize_t = "zeCommandQueueSynchronize",
        command_list_create: ze_pfnCommandListCreate_t = "zeCommandListCreate",
        command_list_create_immediate: ze_pfnCommandListCreateImmediate_t = "zeCommandListCreateImmediate",
        command_list_destroy: ze_pfnCommandListDestroy_t = "zeCommandListDestroy",
        command_list_close: ze_pfnCommandListClose_t = "zeCommandListClose",
        command_list_reset: ze_pfnCommandListReset_t = "zeCommandListReset",
        command_list_append_barrier: ze_pfnCommandListAppendBarrier_t = "zeCommandListAppendBarrier",
        command_list_append_memory_copy: ze_pfnCommandListAppendMemoryCopy_t = "zeCommandListAppendMemoryCopy",
        command_list_append_memory_fill: ze_pfnCommandListAppendMemoryFill_t = "zeCommandListAppendMemoryFill",
        command_list_append_signal_event: ze_pfnCommandListAppendSignalEvent_t = "zeCommandListAppendSignalEvent",
        command_list_append_wait_on_events: ze_pfnCommandListAppendWaitOnEvents_t = "zeCommandListAppendWaitOnEvents",
        command_list_append_event_reset: ze_pfnCommandListAppendEventReset_t = "zeCommandListAppendEventReset",
        command_list_append_launch_kernel: ze_pfnCommandListAppendLaunchKernel_t = "zeCommandListAppendLaunchKernel",
        device_get_compute_properties: ze_pfnDeviceGetComputeProperties_t = "zeDeviceGetComputeProperties",
        module_create: ze_pfnModuleCreate_t = "zeModuleCreate",
        module_destroy: ze_pfnModuleDestroy_t = "zeModuleDestroy",
        module_get_kernel_names: ze_pfnModuleGetKernelNames_t = "zeModuleGetKernelNames",
        module_build_log_destroy: ze_pfnModuleBuildLogDestroy_t = "zeModuleBuildLogDestroy",
        module_build_log_get_string: ze_pfnModuleBuildLogGetString_t = "zeModuleBuildLogGetString",
        kernel_create: ze_pfnKernelCreate_t = "zeKernelCreate",
        kernel_destroy: ze_pfnKernelDestroy_t = "zeKernelDestroy",
        kernel_set_group_size: ze_pfnKernelSetGroupSize_t = "zeKernelSetGroupSize",
        kernel_suggest_group_size: ze_pfnKernelSuggestGroupSize_t = "zeKernelSuggestGroupSize",
        kernel_set_argument_value: ze_pfnKernelSetArgumentValue_t = "zeKernelSetArgumentValue",
        kernel_set_indirect_access: ze_pfnKernelSetIndirectAccess_t = "zeKernelSetIndirectAccess",
        kernel_get_properties: ze_pfnKernelGetProperties_t = "zeKernelGetProperties",
        event_pool_create: ze_pfnEventPoolCreate_t = "zeEventPoolCreate",
        event_pool_destroy: ze_pfnEventPoolDestroy_t = "zeEventPoolDestroy",
        event_create: ze_pfnEventCreate_t = "zeEventCreate",
        event_destroy: ze_pfnEventDestroy_t = "zeEventDestroy",
        event_host_signal: ze_pfnEventHostSignal_t = "zeEventHostSignal",
        event_host_synchronize: ze_pfnEventHostSynchronize_t = "zeEventHostSynchronize",
        event_query_status: ze_pfnEventQueryStatus_t = "zeEventQueryStatus",
        event_host_reset: ze_pfnEventHostReset_t = "zeEventHostReset",
        event_query_kernel_timestamp: ze_pfnEventQueryKernelTimestamp_t = "zeEventQueryKernelTimestamp",
        fence_create: ze_pfnFenceCreate_t = "zeFenceCreate",
        fence_destroy: ze_pfnFenceDestroy_t = "zeFenceDestroy",
        fence_host_synchronize: ze_pfnFenceHostSynchronize_t = "zeFenceHostSynchronize",
        fence_query_status: ze_pfnFenceQueryStatus_t = "zeFenceQueryStatus",
        fence_reset: ze_pfnFenceReset_t = "zeFenceReset",
    }
    optional {
        context_create_ex: ze_pfnContextCreateEx_t = "zeContextCreateEx",
        mem_free_ext: ze_pfnMemFreeExt_t = "zeMemFreeExt",
        device_pci_get_properties_ext: ze_pfnDevicePciGetPropertiesExt_t = "zeDevicePciGetPropertiesExt",
        device_get_global_timestamps: ze_pfnDeviceGetGlobalTimestamps_t = "zeDeviceGetGlobalTimestamps",
        kernel_get_name: ze_pfnKernelGetName_t = "zeKernelGetName",
        loader_get_versions: crate::extensions::zel_pfnLoaderGetVersions_t = "zelLoaderGetVersions",
    }
}

impl ZeApi {
    /// Loads the system's Level Zero loader: the path in [`LOADER_PATH_ENV`] if set, otherwise
    /// the first of [`SYSTEM_LOADER_NAMES`] the dynamic linker finds.
    ///
    /// ```
    /// match level_zero_sys::ZeApi::load_system() {
    ///     Ok(api) => assert!(api.origin().contains("libze_loader")),
    ///     // Every name tried is listed, with why it failed.
    ///     Err(level_zero_sys::LoadError::LibraryNotFound { tried }) => assert!(!tried.is_empty()),
    ///     Err(other) => panic!("{other}"),
    /// }
    /// ```
    pub fn load_system() -> Result<Self, LoadError> {
        match std::env::var_os(LOADER_PATH_ENV) {
            Some(path) => Self::load_from_path(path),
            None => {
                let mut tried = Vec::new();
                for name in SYSTEM_LOADER_NAMES {
                    match Self::load_from_path(name) {
                        Ok(api) => return Ok(api),
                        Err(LoadError::LibraryNotFound { tried: mut more }) => {
                            tried.append(&mut more)
                        }
                        Err(other) => return Err(other),
                    }
                }
                Err(LoadError::LibraryNotFound { tried })
            }
        }
    }

    /// The Level Zero loader this process has already loaded (`libze_loader.so.1`, found by its
    /// soname whatever folder it came from), shared with whoever loaded it: never a second copy.
    /// Fails if the process has not loaded one.
    ///
    /// ```
    /// // A doctest has loaded no loader.
    /// assert!(level_zero_sys::ZeApi::load_already_loaded().is_err());
    /// ```
    pub fn load_already_loaded() -> Result<Self, LoadError> {
        let name = SYSTEM_LOADER_NAMES[0];
        // SAFETY: RTLD_NOLOAD only looks the library up among those already loaded; nothing
        // is initialised.
        let library = unsafe {
            libloading::os::unix::Library::open(
                Some(name),
                libc::RTLD_NOLOAD | libloading::os::unix::RTLD_LAZY,
            )
        }
        .map_err(|error| LoadError::LibraryNotFound {
            tried: vec![match error {
                // glibc sets no dlerror() for a library RTLD_NOLOAD does not find.
                libloading::Error::DlOpenUnknown => format!(
                    "{name} is not loaded in this process yet (nothing such as a SYCL runtime, \
                     dpctl or torch has loaded it)"
                ),
                other => format!("{name} (already loaded): {other}"),
            }],
        })?;
        let library = Arc::new(libloading::Library::from(library));
        let resolver = Arc::clone(&library);
        // SAFETY: as in `load_from_path`: the loader's exports have the headers' signatures.
        unsafe {
            Self::from_resolver(
                format!("{name} (already loaded)"),
                Some(library),
                move |name| {
                    resolver
                        .get::<unsafe extern "C" fn()>(name.as_bytes())
                        .ok()
                        .map(|symbol| *symbol as *const c_void)
                },
            )
        }
    }

    /// Loads a Level Zero loader (or any library exporting the Level Zero API) from `path`.
    ///
    /// ```
    /// assert!(level_zero_sys::ZeApi::load_from_path("/nonexistent/libze_loader.so.1").is_err());
    /// ```
    pub fn load_from_path(path: impl AsRef<std::ffi::OsStr>) -> Result<Self, LoadError> {
        let path = path.as_ref();
        let shown = path.to_string_lossy().into_owned();
        // SAFETY: loading a shared library runs its initialisers; the Level Zero loader's only
        // set up its own state. This is the documented way to use the loader.
        let library = unsafe { libloading::Library::new(path) }.map_err(|error| {
            LoadError::LibraryNotFound {
                tried: vec![format!("{shown}: {error}")],
            }
        })?;
        let library = Arc::new(library);
        let resolver = Arc::clone(&library);
        // SAFETY: the symbols are the Level Zero API functions the library exports under their
        // spec names, so they have the signatures the headers declare; `library` is kept alive
        // by the table.
        unsafe {
            Self::from_resolver(shown, Some(library), move |name| {
                resolver
                    .get::<unsafe extern "C" fn()>(name.as_bytes())
                    .ok()
                    .map(|symbol| *symbol as *const c_void)
            })
        }
    }

    /// What provides these functions (a library path or a simulated platform's name).
    ///
    /// ```
    /// if let Ok(api) = level_zero_sys::ZeApi::load_system() {
    ///     assert!(api.origin().contains("libze_loader"));
    /// }
    /// ```
    pub fn origin(&self) -> &str {
        &self.origin
    }
}

impl fmt::Debug for ZeApi {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ZeApi")
            .field("origin", &self.origin)
            .field("context_create_ex", &self.context_create_ex.is_some())
            .field("mem_free_ext", &self.mem_free_ext.is_some())
            .field("init_drivers", &self.init_drivers.is_some())
            .finish_non_exhaustive()
    }
}
