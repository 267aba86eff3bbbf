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
/// The real loader's function `name`, if it exports one.
pub fn exported(name: &[u8]) -> Option<usize> {
    loader()
        // SAFETY: only looked up as an address; callers say what it is.
        .and_then(|library| unsafe { library.get::<*const c_void>(name) }.ok())
        .map(|symbol| *symbol as usize)
        .filter(|&address| address != 0)
}

/// The driver's functions for names it handed out through `zeDriverGetExtensionFunctionAddress`
/// while the shim handed out its own: the shim's function calls on to them.
static EXTENSIONS: std::sync::Mutex<Vec<(Vec<u8>, usize)>> = std::sync::Mutex::new(Vec::new());

/// Records the driver's function `address` for extension `name`.
pub fn record_extension(name: &[u8], address: usize) {
    let mut extensions = EXTENSIONS
        .lock()
        .unwrap_or_else(|poison| poison.into_inner());
    if address != 0 && !extensions.iter().any(|(known, _)| known == name) {
        extensions.push((name.to_vec(), address));
    }
}

/// The driver's function recorded for extension `name`.
fn extension_address(name: &[u8]) -> Option<usize> {
    EXTENSIONS
        .lock()
        .unwrap_or_else(|poison| poison.into_inner())
        .iter()
        .find(|(known, _)| known == name)
        .map(|&(_, address)| address)
}

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

    /// The function as `F`: the real loader's of that name, else the driver's answer to
    /// `zeDriverGetExtensionFunctionAddress` for it (an extension an older loader does not
    /// export); `None` if neither has one yet.
    ///
    /// # Safety
    /// `F` must be a function-pointer type of the signature the headers give this name.
    pub unsafe fn get<F: Copy>(&self) -> Option<F> {
        const { assert!(size_of::<F>() == size_of::<usize>()) };
        let address = match self.address.get() {
            Some(&address) => address,
            None => {
                let address = exported(self.name.to_bytes())
                    .or_else(|| extension_address(self.name.to_bytes()))
                    .unwrap_or(0);
                // Not found is not kept: the driver may hand the extension out later.
                if address != 0 {
                    let _ = self.address.set(address);
                }
                address
            }
        };
        // SAFETY: a non-null address of the function, whose type the caller names.
        (address != 0).then(|| unsafe { std::mem::transmute_copy::<usize, F>(&address) })
    }
}
