//! For test suites that run the same bodies behind the system's Level Zero loader: a child
//! process of the test binary with `libze_sim.so` as the loader's only driver.

use std::path::PathBuf;
use std::process::Command;

/// Environment variable that marks such a child process.
pub const CHILD_ENV: &str = "ZE_SIM_LOADER_CHILD";

/// Why the loader path cannot run here, or `None` if it can: the loader library and
/// `libze_sim.so` (built next to the test binary's `deps/` folder) must both exist.
///
/// ```
/// // A doctest has no libze_sim.so beside it, so the loader path is unavailable, and says why.
/// let why = ze_sim::loader_test::unavailable().unwrap();
/// assert!(why.contains("libze_loader") || why.contains("libze_sim.so"), "{why}");
/// ```
pub fn unavailable() -> Option<String> {
    // SAFETY: probing for the loader; its initialisers only set up its own state.
    if let Err(error) = unsafe { libloading::Library::new("libze_loader.so.1") } {
        return Some(format!(
            "no Level Zero loader (apt-get install -y libze1): {error}"
        ));
    }
    driver_library().err()
}

/// `libze_sim.so` next to the running test binary's target folder.
///
/// ```
/// // Doctests run outside a target's deps folder: no driver library next to them.
/// assert!(ze_sim::loader_test::driver_library().is_err());
/// ```
pub fn driver_library() -> Result<PathBuf, String> {
    let executable = std::env::current_exe().map_err(|error| error.to_string())?;
    let target = executable
        .parent()
        .and_then(|deps| deps.parent())
        .ok_or("the test binary has no target folder")?;
    let driver = target.join("libze_sim.so");
    if driver.exists() {
        Ok(driver)
    } else {
        Err(format!(
            "{} not built (cargo build -p ze-sim)",
            driver.display()
        ))
    }
}

/// Runs the `#[ignore]`d test `name` (its full path as the harness names it, without the
/// binary's crate: `--exact` matches it) of the running test binary in a child process whose Level
/// Zero is the system loader driving `libze_sim.so` configured by `config` (a preset or TOML
/// path), with the loader's validation layer on if `validation`. Skips, saying why, where the
/// loader path is unavailable, unless `CI` is set: there that is a failure. Panics with the
/// child's output if it fails.
///
/// Compiled, not run: it starts the test binary it runs in, which a doctest is not.
///
/// ```no_run
/// #[test]
/// fn my_body_behind_the_loader() {
///     ze_sim::loader_test::run_in_loader_child("my_body::child", "b70x2", true);
/// }
/// ```
pub fn run_in_loader_child(name: &str, config: &str, validation: bool) {
    run_in_loader_child_with(name, config, validation, &[]);
}

/// [`run_in_loader_child`] with `variables` set in the child's environment (such as
/// [`crate::CHECKING_ENV`]).
///
/// ```no_run
/// ze_sim::loader_test::run_in_loader_child_with(
///     "my_body::child", "b70x2", true, &[(ze_sim::CHECKING_ENV, "1")]);
/// ```
pub fn run_in_loader_child_with(
    name: &str,
    config: &str,
    validation: bool,
    variables: &[(&str, &str)],
) {
    if let Some(why) = unavailable() {
        assert!(
            std::env::var_os("CI").is_none(),
            "loader-path test cannot run under CI: {why}"
        );
        // Past the test harness's capture, so that the skip shows beside the test's "ok".
        skipped(format!("SKIPPED {name}: {why}\n"));
        return;
    }
    let driver = driver_library().expect("checked above");
    let executable = std::env::current_exe().expect("test executable");
    let mut command = Command::new(&executable);
    command
        .args([
            name,
            "--exact",
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD_ENV, "1")
        .env("ZE_ENABLE_ALT_DRIVERS", &driver)
        .env(crate::CONFIG_ENV, config)
        .env_remove("LAZY_USM_ZE_LOADER")
        .env_remove("ZE_ENABLE_VALIDATION_LAYER")
        .env_remove("ZE_ENABLE_PARAMETER_VALIDATION")
        .env_remove(crate::CHECKING_ENV)
        .envs(variables.iter().copied());
    if validation {
        command
            .env("ZE_ENABLE_VALIDATION_LAYER", "1")
            .env("ZE_ENABLE_PARAMETER_VALIDATION", "1");
    }
    let output = command.output().expect("child test process");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success() && stdout.contains("1 passed"),
        "child {name} ({config}, validation {validation}) failed ({}):\n{stdout}\n{stderr}",
        output.status
    );
}

/// Whether this process is such a child.
///
/// ```
/// assert!(!ze_sim::loader_test::is_child());
/// ```
pub fn is_child() -> bool {
    std::env::var_os(CHILD_ENV).is_some()
}

/// The accounting exports of the `libze_sim.so` the loader loaded in this (child) process: the
/// same figures [`crate::Platform`] gives in-process, read through the C interface.
///
/// ```
/// // Outside a loader child there is no driver library to open.
/// assert!(ze_sim::loader_test::DriverExports::open().is_err());
/// ```
pub struct DriverExports {
    library: libloading::Library,
}

impl DriverExports {
    /// Opens the library named by `ZE_ENABLE_ALT_DRIVERS` (already loaded by the loader, so this
    /// reaches the same process-wide platform).
    pub fn open() -> Result<Self, String> {
        let path =
            std::env::var("ZE_ENABLE_ALT_DRIVERS").map_err(|_| "ZE_ENABLE_ALT_DRIVERS is unset")?;
        // SAFETY: the simulator's library; its initialisers are Rust statics set up lazily.
        let library = unsafe { libloading::Library::new(&path) }
            .map_err(|error| format!("{path}: {error}"))?;
        Ok(Self { library })
    }

    /// `zesim_fdinfo` of device `index`, as text.
    pub fn fdinfo(&self, index: u32) -> String {
        // SAFETY: the export's signature (see `crate::zesim_fdinfo`); a null buffer asks for the
        // length, then a buffer one byte longer receives the text and its NUL.
        unsafe {
            let Ok(fdinfo) =
                self.library
                    .get::<unsafe extern "C" fn(u32, *mut std::ffi::c_char, usize) -> usize>(
                        b"zesim_fdinfo",
                    )
            else {
                return String::new();
            };
            let length = fdinfo(index, std::ptr::null_mut(), 0);
            let mut buffer = vec![0u8; length + 1];
            fdinfo(
                index,
                buffer.as_mut_ptr() as *mut std::ffi::c_char,
                buffer.len(),
            );
            String::from_utf8_lossy(&buffer[..length]).into_owned()
        }
    }

    /// `zesim_host_pinned_bytes`.
    pub fn host_pinned_bytes(&self) -> u64 {
        // SAFETY: the export's signature (see `crate::zesim_host_pinned_bytes`).
        unsafe {
            self.library
                .get::<unsafe extern "C" fn() -> u64>(b"zesim_host_pinned_bytes")
                .map_or(u64::MAX, |pinned| pinned())
        }
    }

    /// `zesim_counter(name)`; `u64::MAX` for an unknown name.
    pub fn counter(&self, name: &str) -> u64 {
        let Ok(name) = std::ffi::CString::new(name) else {
            return u64::MAX;
        };
        // SAFETY: the export's signature (see `crate::zesim_counter`) and a NUL-terminated name.
        unsafe {
            self.library
                .get::<unsafe extern "C" fn(*const std::ffi::c_char) -> u64>(b"zesim_counter")
                .map_or(u64::MAX, |counter| counter(name.as_ptr()))
        }
    }
}

/// Writes a skip's line to the process's standard error itself: the harness captures what
/// `eprintln!` prints in a test that passes.
fn skipped(line: String) {
    let _ = std::io::Write::write_all(&mut std::io::stderr(), line.as_bytes());
}
