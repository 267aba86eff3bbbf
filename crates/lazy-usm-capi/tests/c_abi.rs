//! The C ABI from C: `tests/c/abi_test.c` built against the committed header and linked to
//! `liblazy_usm.so` (and, separately, `liblazy_usm.a`), then run; and the committed header is
//! what cbindgen generates now.

use std::path::{Path, PathBuf};
use std::process::Command;

fn crate_dir() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The target folder this test was built into (`target/debug`).
fn target_dir() -> PathBuf {
    let executable = std::env::current_exe().expect("test executable");
    executable
        .parent()
        .and_then(|deps| deps.parent())
        .expect("a target folder")
        .to_path_buf()
}

#[test]
fn the_committed_header_is_what_cbindgen_generates() {
    let generated = std::fs::read_to_string(Path::new(env!("OUT_DIR")).join("lazy_usm.h")).unwrap();
    let committed = std::fs::read_to_string(crate_dir().join("include/lazy_usm.h")).unwrap();
    assert!(
        generated == committed,
        "include/lazy_usm.h is stale: copy {}/lazy_usm.h over it",
        env!("OUT_DIR")
    );
}

/// Builds the C test `source` (of `tests/c`) with `link` arguments and runs it with the loader
/// stand-in findable as `libze_loader.so.1`.
fn build_and_run(name: &str, source: &str, link: &[&str]) {
    let target = target_dir();
    let stand_in = target.join("libze_sim_loader.so");
    if !stand_in.is_file() {
        assert!(
            std::env::var_os("CI").is_none(),
            "the loader stand-in must be built under CI (cargo build --workspace)"
        );
        // Past the test harness's capture, so that the skip shows beside the test's "ok".
        skipped(format!(
            "SKIPPED {name}: {} not built (cargo build --workspace)\n",
            stand_in.display()
        ));
        return;
    }
    let folder = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(&stand_in, folder.path().join("libze_loader.so.1")).unwrap();
    let binary = folder.path().join(name);
    let stype = level_zero_sys::ze_structure_type_t::ZE_STRUCTURE_TYPE_CONTEXT_DESC.0;
    let compiler = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let build = Command::new(&compiler)
        .args(["-std=c11", "-Wall", "-Wextra", "-Werror", "-D_GNU_SOURCE"])
        .arg(format!("-DLAZY_USM_TEST_CONTEXT_DESC_STYPE={stype}"))
        .arg("-I")
        .arg(crate_dir().join("include"))
        .arg(crate_dir().join("tests/c").join(source))
        .arg("-o")
        .arg(&binary)
        .args(link)
        .args(["-ldl", "-lpthread", "-lm"])
        .output()
        .unwrap_or_else(|error| panic!("cannot run the C compiler `{compiler}`: {error}"));
    assert!(
        build.status.success(),
        "the C test does not build:\n{}",
        String::from_utf8_lossy(&build.stderr)
    );
    let run = Command::new(&binary)
        .env(
            "LD_LIBRARY_PATH",
            format!("{}:{}", folder.path().display(), target.display()),
        )
        .env_remove("ZE_SIM_CONFIG")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&run.stdout);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(
        run.status.success() && stdout.trim() == "ok",
        "{name} failed:\n{stdout}\n{stderr}"
    );
}

#[test]
fn every_function_works_from_c_with_the_shared_library() {
    let target = target_dir();
    assert!(
        target.join("liblazy_usm.so").is_file(),
        "cargo builds liblazy_usm.so for this test"
    );
    build_and_run(
        "abi_test_shared",
        "abi_test.c",
        &["-L", target.to_str().unwrap(), "-llazy_usm"],
    );
}

#[test]
fn every_function_works_from_c_with_the_static_library() {
    let target = target_dir();
    let archive = target.join("liblazy_usm.a");
    assert!(
        archive.is_file(),
        "cargo builds liblazy_usm.a for this test"
    );
    build_and_run(
        "abi_test_static",
        "abi_test.c",
        &[archive.to_str().unwrap(), "-lgcc_s"],
    );
}

/// A process that has loaded no Level Zero loader registers host memory: the library loads the
/// loader the process would load (the stand-in here) instead of refusing with "dlopen failed".
#[test]
fn registration_in_a_process_with_no_loader_loads_the_one_it_would_load() {
    let target = target_dir();
    build_and_run(
        "registration_test",
        "registration_test.c",
        &["-L", target.to_str().unwrap(), "-llazy_usm"],
    );
}

/// Writes a skip's line to the process's standard error itself: the harness captures what
/// `eprintln!` prints in a test that passes.
fn skipped(line: String) {
    let _ = std::io::Write::write_all(&mut std::io::stderr(), line.as_bytes());
}
