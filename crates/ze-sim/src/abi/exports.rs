//! The platform the system loader drives, and the C exports that read its accounting.
//!
//! When `libze_sim.so` is loaded as a driver there is one platform per process, configured by
//! `ZE_SIM_CONFIG` (a preset name or a TOML file; `b70x2` when unset).

use crate::abi::entry::{driver, sysman};
use crate::engine::platform::Platform;
use crate::model::config::SimConfig;
use crate::model::counters::Counters;
use crate::model::error::SimError;
use crate::model::machine::{MACHINE_ENV, Membership};
use level_zero_sys::ze_init_driver_type_desc_t;
use level_zero_sys::{
    ze_driver_handle_t, ze_init_flags_t, ze_result_t, zes_driver_handle_t, zes_init_flags_t,
};
use std::ffi::{CStr, c_char};
use std::io::Write;
use std::sync::OnceLock;

/// Environment variable that configures the loader-driven platform.
pub const CONFIG_ENV: &str = "ZE_SIM_CONFIG";

/// The driver's device selection (`ZE_AFFINITY_MASK`), which the loader-driven platform reads.
const AFFINITY_ENV: &str = "ZE_AFFINITY_MASK";

static GLOBAL: OnceLock<Result<Platform, String>> = OnceLock::new();

/// The process-wide platform the loader path uses, built on first use from [`CONFIG_ENV`].
///
/// ```
/// // Without ZE_SIM_CONFIG, the process-wide platform is `b70x2`.
/// assert_eq!(ze_sim::global_platform().unwrap().config().devices.len(), 2);
/// ```
pub fn global_platform() -> Result<Platform, SimError> {
    GLOBAL
        .get_or_init(|| {
            let config = match std::env::var(CONFIG_ENV) {
                Ok(value) => SimConfig::from_name_or_path(&value),
                Err(_) => Ok(SimConfig::default()),
            }
            // The driver's debug keys, read from the environment as compute-runtime reads them.
            .map(|config| config.with_driver_debug_keys(|name| std::env::var(name).ok()))
            .map(|config| config.with_wall_clock_variable(|name| std::env::var(name).ok()))
            .map(|config| config.with_kernels_variable(|name| std::env::var(name).ok()))
            .map(|config| config.with_checking_variable(|name| std::env::var(name).ok()));
            let platform = config
                .map_err(SimError::from)
                .and_then(|config| {
                    // The process sees what ZE_AFFINITY_MASK leaves; the machine has them all.
                    let (visible, machine_devices) = match std::env::var(AFFINITY_ENV) {
                        Ok(mask) if !mask.trim().is_empty() => config.with_affinity_mask(&mask)?,
                        _ => (config.clone(), (0..config.devices.len() as u32).collect()),
                    };
                    let machine = join_machine(&config, machine_devices.clone())?;
                    let total = config.devices.len() as u32;
                    Platform::build(visible, false, machine, Some((machine_devices, total)))
                })
                .map_err(|error| error.to_string());
            if platform.is_ok() && std::env::var_os(crate::model::report::REPORT_ENV).is_some() {
                REPORTING_PROCESS.store(std::process::id(), std::sync::atomic::Ordering::SeqCst);
                // SAFETY: registers a plain function that takes no arguments.
                if unsafe { atexit(write_report_at_exit) } != 0 {
                    let _ = writeln!(std::io::stderr(), "ze-sim: cannot register the exit report");
                }
            }
            platform
        })
        .clone()
        .map_err(SimError::Global)
}

/// Joins the machine `ZE_SIM_MACHINE` names, if it names one (for the life of the process).
fn join_machine(
    config: &SimConfig,
    machine_devices: Vec<u32>,
) -> Result<Option<&'static Membership>, SimError> {
    let Some(path) = std::env::var_os(MACHINE_ENV) else {
        return Ok(None);
    };
    let membership = Membership::join(std::path::Path::new(&path), config, machine_devices)
        .map_err(|error| SimError::Global(error.to_string()))?;
    let membership: &'static Membership = Box::leak(Box::new(membership));
    Membership::install(membership, leave_machine);
    Ok(Some(membership))
}

/// What the machine's exit handler does for this process: publish the process-wide platform's
/// counters under its lock, where every change of the figures is made (so none is half done
/// while the share leaves), then leave the machine.
fn leave_machine(membership: &Membership, status: std::ffi::c_int) {
    let platform = GLOBAL.get().and_then(|platform| platform.as_ref().ok());
    let state = platform.and_then(|platform| {
        platform
            .inner
            .state
            .try_lock_for(std::time::Duration::from_millis(200))
    });
    if let Some(state) = &state {
        membership.publish_counters(&state.counters);
    }
    membership.leave(status);
    drop(state);
}

unsafe extern "C" {
    /// The C library's `atexit`: the report is written when the process exits normally.
    fn atexit(function: extern "C" fn()) -> std::ffi::c_int;
}

/// The process that registered the exit report: a child made by `fork` inherits the
/// registration and a copy of the platform, but its figures are not the platform's.
static REPORTING_PROCESS: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);

/// Writes the process-wide platform's report to the file `ZE_SIM_REPORT` names, whole (a
/// temporary file renamed over it). Runs inside the C library's `exit`, so it never panics and
/// never waits long: a lock still held by another thread after a second skips the report.
/// When several processes load the simulator with the same `ZE_SIM_REPORT`, the last to exit
/// wins.
extern "C" fn write_report_at_exit() {
    if REPORTING_PROCESS.load(std::sync::atomic::Ordering::SeqCst) != std::process::id() {
        return;
    }
    let Some(path) = std::env::var_os(crate::model::report::REPORT_ENV) else {
        return;
    };
    let Some(Ok(platform)) = GLOBAL.get() else {
        return;
    };
    let write = || -> std::io::Result<()> {
        let report = platform
            .report_within(std::time::Duration::from_secs(1))
            .ok_or_else(|| std::io::Error::other("the platform stayed locked"))?;
        let mut partial = path.clone();
        partial.push(format!(".{}.partial", std::process::id()));
        std::fs::write(&partial, report.to_json())?;
        std::fs::rename(&partial, &path)
    };
    let written = std::panic::catch_unwind(std::panic::AssertUnwindSafe(write));
    let why = match written {
        Ok(Ok(())) => return,
        Ok(Err(error)) => error.to_string(),
        Err(_) => "a panic".to_string(),
    };
    let _ = writeln!(
        std::io::stderr(),
        "ze-sim: no report written to {}: {why}",
        path.to_string_lossy()
    );
}

fn global_inner() -> Option<std::sync::Arc<crate::engine::platform::Inner>> {
    match global_platform() {
        Ok(platform) => Some(platform.inner),
        Err(error) => {
            eprintln!("ze-sim: {error}");
            None
        }
    }
}

pub(crate) unsafe extern "C" fn global_init(flags: ze_init_flags_t) -> ze_result_t {
    driver::init(global_inner(), flags)
}

pub(crate) unsafe extern "C" fn global_sysman_init(flags: zes_init_flags_t) -> ze_result_t {
    sysman::init(global_inner(), flags)
}

pub(crate) unsafe extern "C" fn global_sysman_driver_get(
    count: *mut u32,
    drivers: *mut zes_driver_handle_t,
) -> ze_result_t {
    // SAFETY: the loader passes `zesDriverGet`'s pointers.
    unsafe { sysman::driver_get(global_inner(), count, drivers) }
}

pub(crate) unsafe extern "C" fn global_driver_get(
    count: *mut u32,
    drivers: *mut ze_driver_handle_t,
) -> ze_result_t {
    // SAFETY: the loader passes `zeDriverGet`'s pointers.
    unsafe { driver::driver_get(global_inner(), count, drivers) }
}

pub(crate) unsafe extern "C" fn global_init_drivers(
    count: *mut u32,
    drivers: *mut ze_driver_handle_t,
    desc: *mut ze_init_driver_type_desc_t,
) -> ze_result_t {
    // SAFETY: the loader passes `zeInitDrivers`'s pointers.
    unsafe { driver::init_drivers(global_inner(), count, drivers, desc) }
}

/// Writes device `device_index`'s usage in DRM fdinfo format into `buf` (NUL-terminated when it
/// fits in `len` bytes) and returns the text's length without the NUL; 0 for no such device.
///
/// # Safety
/// `buf` must be null or valid for `len` bytes of writes.
///
/// ```
/// let mut buffer = vec![0 as std::ffi::c_char; 512];
/// // SAFETY: a buffer of the given length.
/// let length = unsafe { ze_sim::zesim_fdinfo(0, buffer.as_mut_ptr(), buffer.len()) };
/// assert!(length > 0 && length < 512);
/// ```
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zesim_fdinfo(device_index: u32, buf: *mut c_char, len: usize) -> usize {
    let Some(text) = global_platform().ok().and_then(|p| p.fdinfo(device_index)) else {
        return 0;
    };
    if !buf.is_null() && len > text.len() {
        // SAFETY: `buf` holds `len > text.len()` bytes, room for the text and its NUL.
        unsafe {
            std::ptr::copy_nonoverlapping(text.as_ptr(), buf as *mut u8, text.len());
            buf.add(text.len()).write(0);
        }
    }
    text.len()
}

/// Host memory pinned by the simulated driver (the `nr_gpu_active` analogue), in bytes: the
/// whole machine's where this process shares one (`ZE_SIM_MACHINE`), as `nr_gpu_active` is
/// machine-wide; else this process's.
///
/// ```
/// assert_eq!(ze_sim::zesim_host_pinned_bytes(), 0);
/// ```
#[unsafe(no_mangle)]
pub extern "C" fn zesim_host_pinned_bytes() -> u64 {
    global_platform().map_or(0, |platform| {
        let inner = &platform.inner;
        inner.machine_host_pinned(&inner.lock())
    })
}

/// The most host memory this process's simulated driver pinned at once, in bytes (its own
/// peak, shared machine or not: a process's residency is what it asked for).
///
/// ```
/// assert_eq!(ze_sim::zesim_host_pinned_peak_bytes(), 0);
/// ```
#[unsafe(no_mangle)]
pub extern "C" fn zesim_host_pinned_peak_bytes() -> u64 {
    global_platform().map_or(0, |platform| platform.inner.lock().memory.peak_host_pinned)
}

/// A counter of the loader-driven platform by name (see `Counters::NAMES`); `UINT64_MAX` for an
/// unknown name.
///
/// # Safety
/// `name` must be null or a NUL-terminated string.
///
/// ```
/// // SAFETY: NUL-terminated names.
/// assert_eq!(unsafe { ze_sim::zesim_counter(c"evict_calls".as_ptr()) }, 0);
/// assert_eq!(unsafe { ze_sim::zesim_counter(c"bogus".as_ptr()) }, u64::MAX);
/// ```
#[unsafe(no_mangle)]
pub unsafe extern "C" fn zesim_counter(name: *const c_char) -> u64 {
    if name.is_null() {
        return u64::MAX;
    }
    // SAFETY: the caller's NUL-terminated string.
    let name = unsafe { CStr::from_ptr(name) }.to_string_lossy();
    if !Counters::NAMES.contains(&name.as_ref()) {
        return u64::MAX;
    }
    global_platform()
        .ok()
        .and_then(|platform| platform.counter(&name))
        .unwrap_or(u64::MAX)
}
