//! lazy-usm's Level Zero loader shim: makes peer residency lazy for programs that cannot be
//! changed (Intel's SYCL runtime and everything on it).
//!
//! Built as `liblazy_usm_shim.so` with the soname `libze_loader.so.1` and found, under that
//! name, through `ZEL_LIBRARY_PATH` (Intel's runtime) or `LD_LIBRARY_PATH` (programs linked to
//! the loader). Every Level Zero function is exported by name and forwarded to the real loader
//! (`LAZY_USM_REAL_LOADER`, else the system's, never the shim itself). Intercepted, and nothing
//! else: device allocations and frees; `zeContextMakeMemoryResident` of a device allocation on
//! a device other than its owner (recorded, not forwarded, under `LAZY_USM_POLICY=lazy`);
//! copies, fills and kernel launches on a device whose operands or pointer arguments are a
//! peer's allocations (made resident there first, once); evictions, frees and context
//! destruction (forget what was recorded). `LAZY_USM_INDIRECT=all` makes every peer allocation
//! resident on a device at its first kernel launch, for kernels that read memory through
//! pointers their arguments do not show. `LAZY_USM_HOST_BUDGET` (bytes, or with `KiB`, `MiB`
//! or `GiB`) bounds the peer residency made on use: the least recently used goes first, never
//! while queued work may use it (a bad value stops the program when the shim is loaded).
//! `LAZY_USM_REPORT=1` prints at exit what was asked for and made; `LAZY_USM_LOG=1` traces
//! each decision.

mod budget;
mod generated;
mod intercept;
mod loader_entry;
mod real;
mod state;
mod tables;

/// Checks the settings and registers the exit report, when the shim is loaded.
#[used]
#[unsafe(link_section = ".init_array")]
static AT_LOAD: extern "C" fn() = at_load;

unsafe extern "C" {
    /// The C library's `atexit`.
    fn atexit(function: extern "C" fn()) -> std::ffi::c_int;
}

/// The process that registered the report: a forked child inherits the registration and must
/// not print its parent's report.
static REPORTING_PROCESS: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);

extern "C" fn at_load() {
    // A budget that cannot be read stops the program before it starts, rather than leave it
    // running unbounded while its user believes it bounded.
    if let Err(why) = budget::from_env() {
        state::say(format!("{why}; stopping"));
        std::process::exit(2);
    }
    if !matches!(
        std::env::var("LAZY_USM_REPORT").as_deref(),
        Err(_) | Ok("") | Ok("0")
    ) {
        REPORTING_PROCESS.store(std::process::id(), std::sync::atomic::Ordering::Relaxed);
        // SAFETY: registers a plain function that takes no arguments.
        unsafe { atexit(print_report) };
    }
}

extern "C" fn print_report() {
    if REPORTING_PROCESS.load(std::sync::atomic::Ordering::Relaxed) != std::process::id() {
        return;
    }
    let report = std::panic::catch_unwind(|| state::shim().report());
    if let Ok(report) = report {
        use std::io::Write;
        let _ = writeln!(std::io::stderr(), "{report}");
    }
}
