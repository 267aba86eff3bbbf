//! Builds a C program of `tests/c` against the Level Zero headers and runs it through the shim
//! over the simulator's loader stand-in (preset `b70x2`: strict residency, pinned mirror).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The target folder this test was built into (`target/debug`).
fn target_dir() -> PathBuf {
    let executable = std::env::current_exe().expect("test executable");
    executable
        .parent()
        .and_then(|deps| deps.parent())
        .expect("a target folder")
        .to_path_buf()
}

fn skip_or_fail(why: String) {
    assert!(std::env::var_os("CI").is_none(), "must run under CI: {why}");
    // Past the test harness's capture, so that the skip shows beside the test's "ok".
    skipped(format!("SKIPPED: {why}\n"));
}

/// A built C program with the folder the shim is found in and the simulator's module.
pub struct Program {
    folder: tempfile::TempDir,
    binary: PathBuf,
    stand_in: PathBuf,
    pub module: PathBuf,
}

/// Builds `tests/c/{name}.c`; `None` (SKIPPED, or a failure under CI) when what it needs is
/// absent.
pub fn build(name: &str) -> Option<Program> {
    let target = target_dir();
    let shim = target.join("liblazy_usm_shim.so");
    let stand_in = target.join("libze_sim_loader.so");
    if !stand_in.is_file() {
        skip_or_fail(format!(
            "{} not built (cargo build --workspace)",
            stand_in.display()
        ));
        return None;
    }
    // The vendored headers: nothing is downloaded, so parallel tests cannot race on a download.
    let include = Path::new(env!("CARGO_MANIFEST_DIR")).join("../level-zero-sys/include");
    let folder = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(&shim, folder.path().join("libze_loader.so.1")).unwrap();
    let module = folder.path().join("module.spv");
    // The simulator's built-in kernels, with their parameters typed as they are.
    use lazy_usm_spirv::ParameterType::{GlobalPointer, Scalar};
    std::fs::write(
        &module,
        lazy_usm_spirv::module(&[
            ("lazy_usm_sim_copy_u32", &[GlobalPointer, GlobalPointer]),
            ("lazy_usm_sim_fill_u32", &[GlobalPointer, Scalar(4)]),
            ("lazy_usm_sim_gather_u32", &[GlobalPointer, GlobalPointer]),
        ]),
    )
    .unwrap();
    let binary = folder.path().join(name);
    let compiler = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let build = Command::new(&compiler)
        .args(["-std=gnu11", "-Wall", "-Werror"])
        .arg("-I")
        .arg(&include)
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/c/{name}.c")))
        .arg("-o")
        .arg(&binary)
        .args(["-ldl", "-lpthread"])
        .output()
        .unwrap_or_else(|error| panic!("cannot run `{compiler}`: {error}"));
    assert!(
        build.status.success(),
        "{name}.c does not build:\n{}",
        String::from_utf8_lossy(&build.stderr)
    );
    Some(Program {
        folder,
        binary,
        stand_in,
        module,
    })
}

impl Program {
    /// Runs the program with `args` through the shim, with `env` set; fails the test if it
    /// fails or runs past two minutes (`timeout`).
    pub fn run(&self, args: &[&std::ffi::OsStr], env: &[(&str, &str)]) -> Output {
        let output = self.output(args, env);
        assert!(
            output.status.success(),
            "the program failed ({:?}):\n{}\n{}",
            output.status,
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        output
    }

    /// Runs the program as [`Program::run`] does, whatever its end.
    pub fn output(&self, args: &[&std::ffi::OsStr], env: &[(&str, &str)]) -> Output {
        let mut command = Command::new("timeout");
        command
            .arg("120")
            .arg(&self.binary)
            .args(args)
            .env("LD_LIBRARY_PATH", self.folder.path())
            .env("LAZY_USM_REAL_LOADER", &self.stand_in)
            .env("ZE_SIM_LIBRARY", &self.stand_in)
            .env("ZE_SIM_CONFIG", "b70x2")
            // Checking mode: a peer's memory the shim forgot to make resident is refused, where
            // the driver would import it.
            .env("ZE_SIM_CHECKING", "1")
            .env_remove("LAZY_USM_POLICY")
            .env_remove("LAZY_USM_INDIRECT")
            .env_remove("LAZY_USM_REPORT")
            .env_remove("LAZY_USM_HOST_BUDGET")
            .env_remove("LAZY_USM_LOG");
        for (name, value) in env {
            command.env(name, value);
        }
        command.output().unwrap()
    }
}

/// A program's "name number" lines.
pub fn figures(output: &Output) -> HashMap<String, u64> {
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| {
            let (name, number) = line.split_once(' ')?;
            Some((name.to_string(), number.trim().parse().ok()?))
        })
        .collect()
}

/// Writes a skip's line to the process's standard error itself: the harness captures what
/// `eprintln!` prints in a test that passes.
fn skipped(line: String) {
    let _ = std::io::Write::write_all(&mut std::io::stderr(), line.as_bytes());
}
