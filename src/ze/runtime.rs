//! Where Level Zero comes from: the system loader, or an in-process simulated platform.

#[cfg(feature = "simulator")]
use crate::error::Error;
use crate::error::{Result, check};
use crate::ze::call::ze_name;
use level_zero_sys::*;
use std::sync::Arc;

/// Which Level Zero implementation a [`Runtime`] drives.
///
/// ```
/// let runtime = lazy_usm::Runtime::simulated("xelink")?;
/// assert_eq!(runtime.source().to_string(), "simulated platform `xelink`");
/// # Ok::<(), lazy_usm::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// The system's Level Zero loader; `origin` is the library that was loaded.
    System {
        /// The loaded library's path or name.
        origin: String,
    },
    /// The in-process simulated platform (`ze-sim`) with this preset or configuration name.
    Simulated {
        /// Preset or configuration name.
        name: String,
    },
}

impl std::fmt::Display for Source {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::System { origin } => write!(f, "system Level Zero ({origin})"),
            Self::Simulated { name } => write!(f, "simulated platform `{name}`"),
        }
    }
}

/// What `Runtime::auto` (the `simulator` feature) chose, and why.
///
/// ```
/// let (_, choice) = lazy_usm::Runtime::auto("b70x2")?;
/// assert!(!choice.reason.is_empty());
/// # Ok::<(), lazy_usm::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Choice {
    /// The implementation in use.
    pub source: Source,
    /// Why: the GPU count found, or why the system could not be used.
    pub reason: String,
}

struct RuntimeInner {
    api: ZeApi,
    source: Source,
    #[cfg(feature = "simulator")]
    simulator: Option<ze_sim::Platform>,
}

/// An initialised Level Zero implementation: the root every other object keeps alive.
///
/// ```
/// let runtime = lazy_usm::Runtime::simulated("b70x2")?;
/// assert_eq!(runtime.devices()?.len(), 2);
/// # Ok::<(), lazy_usm::Error>(())
/// ```
#[derive(Clone)]
pub struct Runtime {
    inner: Arc<RuntimeInner>,
}

impl Runtime {
    /// This runtime's identity, for keys that must not mix platforms.
    pub(crate) fn id(&self) -> usize {
        Arc::as_ptr(&self.inner) as usize
    }
}

impl PartialEq for Runtime {
    /// The same initialised implementation (handles from two runtimes are never mixed, even when
    /// their values coincide, as an in-process simulator's and a loaded driver's may).
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }
}

impl std::fmt::Debug for Runtime {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Runtime")
            .field("source", &self.inner.source)
            .finish_non_exhaustive()
    }
}

impl Runtime {
    /// Initialises Level Zero through `api`.
    fn start(api: ZeApi, source: Source) -> Result<RuntimeInner> {
        // SAFETY: `zeInit` takes flags only; calling it again is allowed.
        let result = unsafe { (api.init)(ze_init_flag_t::ZE_INIT_FLAG_GPU_ONLY.0) };
        check(ze_name!(init), result)?;
        Ok(RuntimeInner {
            api,
            source,
            #[cfg(feature = "simulator")]
            simulator: None,
        })
    }

    fn from_inner(inner: RuntimeInner) -> Self {
        Self {
            inner: Arc::new(inner),
        }
    }

    /// The system's Level Zero loader (`LAZY_USM_ZE_LOADER` or the default library search).
    ///
    /// ```
    /// match lazy_usm::Runtime::system() {
    ///     Ok(runtime) => assert!(matches!(runtime.source(), lazy_usm::Source::System { .. })),
    ///     // No loader, or a loader without a GPU driver (zeInit fails): a typed error.
    ///     Err(error) => assert!(matches!(
    ///         error,
    ///         lazy_usm::Error::Loader(_) | lazy_usm::Error::ZeError { call: "zeInit", .. }
    ///     ), "{error}"),
    /// }
    /// ```
    pub fn system() -> Result<Self> {
        let api = ZeApi::load_system()?;
        let origin = api.origin().to_string();
        Self::start(api, Source::System { origin }).map(Self::from_inner)
    }

    /// The Level Zero loader the host program has already loaded (a SYCL runtime, a framework),
    /// shared with it, so that handles from either side mean the same objects. Fails with
    /// [`Error::Loader`](crate::Error::Loader) if the process has loaded none.
    ///
    /// ```
    /// // A doctest has loaded no Level Zero loader.
    /// assert!(matches!(lazy_usm::Runtime::loaded(), Err(lazy_usm::Error::Loader(_))));
    /// ```
    pub fn loaded() -> Result<Self> {
        let api = ZeApi::load_already_loaded()?;
        let origin = api.origin().to_string();
        Self::start(api, Source::System { origin }).map(Self::from_inner)
    }

    /// A Level Zero loader (or driver library exporting the API) at an explicit path.
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// match Runtime::system_at("/nonexistent/libze_loader.so.1") {
    ///     Err(Error::Loader(error)) => assert!(error.to_string().contains("/nonexistent")),
    ///     other => panic!("{other:?}"),
    /// }
    /// # Ok::<(), Error>(())
    /// ```
    pub fn system_at(path: impl AsRef<std::ffi::OsStr>) -> Result<Self> {
        let api = ZeApi::load_from_path(path)?;
        let origin = api.origin().to_string();
        Self::start(api, Source::System { origin }).map(Self::from_inner)
    }

    /// A new in-process simulated platform from a preset (`b70x2`, `b70x2-26.05`, `b60x4`,
    /// `b70x2-acs`, `xelink`).
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// assert_eq!(devices.len(), 2);
    /// assert!(Runtime::simulated("nonesuch").is_err());
    /// # Ok::<(), Error>(())
    /// ```
    #[cfg(feature = "simulator")]
    pub fn simulated(preset: &str) -> Result<Self> {
        Self::simulated_with(
            ze_sim::SimConfig::preset(preset)
                .ok_or_else(|| ze_sim::SimError::UnknownPreset(preset.to_string()))?,
        )
    }

    /// A new in-process simulated platform from a configuration.
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// let mut config = ze_sim::SimConfig::preset("b60x4").unwrap();
    /// config.devices.truncate(3);
    /// assert_eq!(Runtime::simulated_with(config)?.devices()?.len(), 3);
    /// # Ok::<(), Error>(())
    /// ```
    #[cfg(feature = "simulator")]
    pub fn simulated_with(config: ze_sim::SimConfig) -> Result<Self> {
        let name = config.name.clone();
        let platform = ze_sim::Platform::new(config)?;
        let resolver = platform.clone();
        let keep_alive: Arc<dyn std::any::Any + Send + Sync> = Arc::new(platform.clone());
        // SAFETY: the simulator's entry points have the signatures the headers declare, and the
        // platform is kept alive by the table.
        let api = unsafe {
            ZeApi::from_resolver(format!("ze-sim {name}"), Some(keep_alive), move |symbol| {
                resolver.resolve(symbol)
            })
        }?;
        let mut inner = Self::start(api, Source::Simulated { name })?;
        inner.simulator = Some(platform);
        Ok(Self::from_inner(inner))
    }

    /// The system's Level Zero when it has at least one GPU, otherwise the simulated platform
    /// `fallback_preset`. Says (in the returned [`Choice`] and through `log`) which and why.
    ///
    /// ```
    /// let (runtime, choice) = lazy_usm::Runtime::auto("b70x2")?;
    /// println!("using {}: {}", choice.source, choice.reason);
    /// assert!(!runtime.devices()?.is_empty());
    /// # Ok::<(), lazy_usm::Error>(())
    /// ```
    #[cfg(feature = "simulator")]
    pub fn auto(fallback_preset: &str) -> Result<(Self, Choice)> {
        let system = Self::system().and_then(|runtime| {
            let count = runtime.devices()?.len();
            if count == 0 {
                return Err(Error::NoDevice(
                    "the loader's drivers report no device".into(),
                ));
            }
            Ok((runtime, count))
        });
        let (runtime, reason) = match system {
            Ok((runtime, count)) => (runtime, format!("the system has {count} Level Zero GPU(s)")),
            Err(error) => (
                Self::simulated(fallback_preset)?,
                format!("no usable Level Zero GPU ({error}); simulating `{fallback_preset}`"),
            ),
        };
        let choice = Choice {
            source: runtime.source().clone(),
            reason,
        };
        log::info!("lazy-usm uses the {}: {}", choice.source, choice.reason);
        Ok((runtime, choice))
    }

    /// The function table.
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// assert!(runtime.api().context_create_ex.is_some());
    /// # Ok::<(), Error>(())
    /// ```
    pub fn api(&self) -> &ZeApi {
        &self.inner.api
    }

    /// The Level Zero loader's components and their versions (`zelLoaderGetVersions`): the
    /// loader itself (`loader`) and each layer it loaded. `None` where there is no loader (the
    /// in-process simulator) or it has no such call.
    ///
    /// ```
    /// # use lazy_usm::*;
    /// let runtime = Runtime::simulated("b70x2")?;
    /// assert_eq!(runtime.loader_versions()?, None, "the in-process simulator has no loader");
    /// # Ok::<(), Error>(())
    /// ```
    pub fn loader_versions(&self) -> Result<Option<Vec<LoaderComponent>>> {
        let Some(get_versions) = self.inner.api.loader_get_versions else {
            return Ok(None);
        };
        let mut count = 0usize;
        // SAFETY: the loader's own call; with no array it writes only the count.
        let result = unsafe { get_versions(&mut count, std::ptr::null_mut()) };
        // A layer exporting the name without implementing it (lazy-usm's shim answers
        // unsupported; a loader not yet initialised, uninitialised): no versions to read.
        if matches!(
            result,
            ze_result_t::ZE_RESULT_ERROR_UNSUPPORTED_FEATURE
                | ze_result_t::ZE_RESULT_ERROR_UNINITIALIZED
        ) {
            return Ok(None);
        }
        check(ze_name!(loader_get_versions), result)?;
        if count == 0 {
            return Ok(Some(Vec::new()));
        }
        let mut versions = vec![zel_component_version_t::default(); count];
        // SAFETY: an array of `count` elements, as the count call asked for.
        check(ze_name!(loader_get_versions), unsafe {
            get_versions(&mut count, versions.as_mut_ptr())
        })?;
        // The loader fills at most the count it was given; a count that shrank meanwhile
        // leaves unfilled entries, which have no name.
        versions.truncate(count);
        Ok(Some(
            versions
                .iter()
                .filter(|version| version.component_name[0] != 0)
                .map(|version| {
                    let name: Vec<u8> = version
                        .component_name
                        .iter()
                        .take_while(|&&byte| byte != 0)
                        .map(|&byte| byte as u8)
                        .collect();
                    LoaderComponent {
                        name: String::from_utf8_lossy(&name).into_owned(),
                        spec: (
                            ze_major_version(version.spec_version.0),
                            ze_minor_version(version.spec_version.0),
                        ),
                        version: (
                            version.component_lib_version.major,
                            version.component_lib_version.minor,
                            version.component_lib_version.patch,
                        ),
                    }
                })
                .collect(),
        ))
    }

    /// Which implementation this is.
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// assert_eq!(runtime.source(), &Source::Simulated { name: "b70x2".into() });
    /// # Ok::<(), Error>(())
    /// ```
    pub fn source(&self) -> &Source {
        &self.inner.source
    }

    /// The simulated platform behind this runtime, for its accounting; `None` on the system.
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// assert_eq!(runtime.simulator().unwrap().host_pinned_bytes(), 0);
    /// # Ok::<(), Error>(())
    /// ```
    #[cfg(feature = "simulator")]
    pub fn simulator(&self) -> Option<&ze_sim::Platform> {
        self.inner.simulator.as_ref()
    }
}

/// One component of the Level Zero loader, as `zelLoaderGetVersions` names it
/// ([`Runtime::loader_versions`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoaderComponent {
    /// `loader`, or a layer's name (`validation layer`, `tracing layer`).
    pub name: String,
    /// The API specification it implements, as (major, minor).
    pub spec: (u32, u32),
    /// Its library version, as (major, minor, patch).
    pub version: (i32, i32, i32),
}
