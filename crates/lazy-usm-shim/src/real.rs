//! The real Level Zero loader the shim forwards to: `LAZY_USM_REAL_LOADER`, else the system's
//! (never the shim itself), and its functions looked up by name once each.

use std::ffi::{CStr, c_void};
use std::sync::OnceLock;

/// Names the real loader's path.
pub const REAL_LOADER_ENV: &str = "LAZY_USM_REAL_LOADER";

/// Where distributions install the loader, tried in order when the variable is unset.
const SYSTEM_LOADERS: &[&str] = &[
    "/usr/lib/x86_64-linux-gnu/libze_loader.so.1",
    "/usr/lib64/libze_loader.so.1",
    "/usr/lib/libze_loader.so.1",
    "/usr/local/lib/libze_loader.so.1",
];

/// Exported by the shim only: a library that has it is the shim itself.
#[unsafe(no_mangle)]
pub static lazy_usm_shim_marker: u8 = 1;

fn open(path: &str) -> Result<libloading::Library, String> {
    // SAFETY: loading the Level Zero loader runs only its own initialisers.
    let library = unsafe { libloading::Library::new(path) }.map_err(|error| error.to_string())?;
    // SAFETY: only looked up.
    if unsafe { library.get::<*const u8>(b"lazy_usm_shim_marker") }.is_ok() {
        return Err(format!(
            "{path} is lazy-usm's shim itself, not a real loader"
        ));
    }
    Ok(library)
}

fn load() -> Result<libloading::Library, String> {
    if let Ok(path) = std::env::var(REAL_LOADER_ENV).map(|path| path.trim().to_string())
        && !path.is_empty()
    {
        return open(&path).map_err(|error| format!("{REAL_LOADER_ENV}={path}: {error}"));
    }
    let mut tried = Vec::new();
    for path in SYSTEM_LOADERS {
        match open(path) {
            Ok(library) => return Ok(library),
            Err(error) => tried.push(format!("{path}: {error}")),
        }
    }
    Err(format!(
        "no real Level Zero loader (set {REAL_LOADER_ENV}); tried {}",
        tried.join("; ")
    ))
}

/// The real loader, loaded on first use; `None` (said once on stderr) if there is none.
pub fn loader() -> Option<&'static libloading::Library> {
    static LOADER: OnceLock<Option<libloading::Library>> = OnceLock::new();
    LOADER
        .get_or_init(|| match load() {
            Ok(library) => Some(library),
            Err(error) => {
                crate::state::say(error);
                None
            }
        })
        .as_ref()
}

/// One function of the real loader, looked up by name on first use.
pub struct Real {
    name: &'static CStr,
    address: OnceLock<usize>,
}

impl Real {
    /// The real loader's function `name`.
    pub const fn new(name: &'static CStr) -> Self {
        Self {
            name,
            address: OnceLock::new(),
        }
    }

    /// The function as `F`, or `None` if the real loader has none of that name.
    ///
    /// # Safety
    /// `F` must be a function-pointer type of the signature the headers give this name.
    pub unsafe fn get<F: Copy>(&self) -> Option<F> {
        const { assert!(size_of::<F>() == size_of::<usize>()) };
        let address = *self.address.get_or_init(|| {
            loader()
                // SAFETY: only looked up; the caller says what it is.
                .and_then(|library| {
                    unsafe { library.get::<*const c_void>(self.name.to_bytes()) }.ok()
                })
                .map_or(0, |symbol| *symbol as usize)
        });
        // SAFETY: a non-null address of the function, whose type the caller names.
        (address != 0).then(|| unsafe { std::mem::transmute_copy::<usize, F>(&address) })
    }
}
