//! The `lazy-usm` command end to end: JSON figures, the report's table (a snapshot), the plot,
//! and bad arguments.

use serde_json::Value;
use std::process::{Command, Output};

fn lazy_usm(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_lazy-usm"))
        .args(args)
        .env_remove("ZE_ENABLE_ALT_DRIVERS")
        .output()
        .expect("run lazy-usm")
}

fn json(args: &[&str]) -> Value {
    let output = lazy_usm(args);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).expect("JSON on stdout")
}

fn policy<'a>(reports: &'a Value, name: &str) -> &'a Value {
    reports
        .as_array()
        .expect("an array")
        .iter()
        .find(|report| report["policy"] == name)
        .unwrap_or_else(|| panic!("no {name} entry"))
}

#[test]
fn host_cost_seed000_eager_pins_8_gib_and_lazy_nothing() {
    let reports = json(&[
        "--preset",
        "b70x2",
        "--json",
        "host-cost",
        "--workload",
        "seed000",
    ]);
    assert_eq!(
        reports.as_array().unwrap().len(),
        4,
        "one object per policy"
    );
    let eager = policy(&reports, "eager");
    assert_eq!(eager["workload"], "seed000");
    assert_eq!(eager["host_pinned_bytes"], 8u64 << 30);
    assert_eq!(eager["host_pinned_peak_bytes"], 8u64 << 30);
    assert_eq!(
        eager["gtt_bytes"],
        serde_json::json!([4u64 << 30, 4u64 << 30])
    );
    assert_eq!(eager["make_resident_calls"], 4);
    for name in ["lazy", "peer-enabled", "manual"] {
        assert_eq!(policy(&reports, name)["host_pinned_bytes"], 0, "{name}");
    }
}

#[test]
fn host_cost_ddp_lazy_costs_the_exchanged_buckets() {
    let reports = json(&[
        "--preset",
        "b70x2",
        "--json",
        "host-cost",
        "--workload",
        "ddp",
        "--policies",
        "lazy,manual",
    ]);
    let bucket = 25_000_000u64 * 4;
    assert_eq!(
        policy(&reports, "lazy")["host_pinned_bytes"],
        2 * bucket,
        "each rank's bucket on its peer"
    );
    assert_eq!(
        policy(&reports, "lazy")["gtt_bytes"],
        serde_json::json!([bucket, bucket])
    );
    // Manual stages every exchange through pinned host memory: only the bounce buffer is pinned.
    assert_eq!(policy(&reports, "manual")["peer_resident_bytes"], 0);
    assert_eq!(policy(&reports, "manual")["host_pinned_bytes"], 16u64 << 20);
}

#[test]
fn the_report_table_matches_its_snapshot() {
    let output = lazy_usm(&["--preset", "b70x2", "report"]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let actual = String::from_utf8(output.stdout).unwrap();
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/snapshots/report_b70x2.txt"
    );
    if std::env::var_os("UPDATE_SNAPSHOTS").is_some() {
        std::fs::write(path, &actual).unwrap();
    }
    let expected = std::fs::read_to_string(path).expect("snapshot (UPDATE_SNAPSHOTS=1 writes it)");
    assert_eq!(actual, expected);
}

#[test]
fn the_report_marks_corrupt_and_refused_pairs() {
    let acs = json(&["--preset", "b70x2-acs", "--json", "report"]);
    assert_eq!(
        acs["p2p"],
        serde_json::json!([["self", "corrupt"], ["corrupt", "self"]])
    );
    let b60 = json(&["--preset", "b60x4-refused", "--json", "report"]);
    assert_eq!(
        b60["p2p"][0],
        serde_json::json!(["self", "refused", "refused", "refused"])
    );
    assert_eq!(b60["devices"].as_array().unwrap().len(), 4);
    assert!(
        b60["platform"]
            .as_str()
            .unwrap()
            .contains("simulated preset `b60x4-refused`")
    );
}

#[test]
fn peer_bench_reports_modelled_bandwidth_by_size() {
    let results = json(&[
        "--preset",
        "b70x2",
        "--json",
        "peer-bench",
        "--pair",
        "0:1",
        "--min",
        "4096",
        "--max",
        "16777216",
        "--modes",
        "lazy-warm,staged",
        "--validate",
    ]);
    let results = results.as_array().unwrap();
    assert_eq!(
        results.len(),
        2 * 13,
        "4 KiB to 16 MiB is 13 sizes, two modes"
    );
    for result in results {
        assert_eq!(result["modelled"], true);
        assert_eq!(result["validated"], true);
    }
    let largest = results
        .iter()
        .find(|r| r["mode"] == "lazy-warm" && r["bytes"] == 16u64 << 20)
        .unwrap();
    let gbps = largest["device_gbps"].as_f64().unwrap();
    assert!((gbps - 28.6).abs() < 1.0, "seed 000's P2P rate: {gbps}");
    assert_eq!(largest["path"], "PeerToPeer");
}

#[test]
fn peer_bench_runs_on_compute_engines_too() {
    let results = json(&[
        "--preset",
        "b70x2",
        "--json",
        "peer-bench",
        "--pair",
        "1:0",
        "--min",
        "1048576",
        "--max",
        "1048576",
        "--modes",
        "eager",
        "--engine",
        "compute",
        "--validate",
        "--bidirectional",
    ]);
    let result = &results[0];
    assert_eq!(
        (result["source"].as_u64(), result["target"].as_u64()),
        (Some(1), Some(0))
    );
    assert_eq!(result["validated"], true);
    assert_eq!(result["bidirectional"], true);
    assert_eq!(result["path"], "PeerToPeer");
}

#[test]
fn peer_bench_host_compares_pageable_registered_and_driver_host_memory() {
    let results = json(&[
        "--preset",
        "b70x2",
        "--json",
        "peer-bench",
        "--host",
        "--min",
        "16777216",
        "--max",
        "16777216",
    ]);
    let rate = |memory: &str| {
        results
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["direction"] == "h2d" && r["memory"] == memory)
            .unwrap()["device_gbps"]
            .as_f64()
            .unwrap()
    };
    assert!(
        rate("registered") > 5.0 * rate("pageable"),
        "registration avoids the staged path"
    );
    assert!((rate("registered") - rate("driver-host")).abs() < 0.01);
}

#[test]
fn the_plot_is_an_svg_with_a_line_per_policy() {
    let path = std::env::temp_dir().join(format!("lazy-usm-plot-{}.svg", std::process::id()));
    let output = lazy_usm(&[
        "--preset",
        "b70x2",
        "host-cost",
        "--workload",
        "seed000",
        "--plot",
        path.to_str().unwrap(),
    ]);
    assert!(output.status.success());
    let svg = std::fs::read_to_string(&path).unwrap();
    std::fs::remove_file(&path).unwrap();
    assert!(svg.starts_with("<svg"));
    assert_eq!(svg.matches("<polyline").count(), 4);
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert!(
        stdout.contains("eager") && stdout.contains("8.00"),
        "{stdout}"
    );
}

#[test]
fn probe_reads_this_machine() {
    let probe = json(&["--json", "probe"]);
    assert!(
        probe["devices"].as_array().unwrap().is_empty(),
        "no GPU on the build machines"
    );
}

#[test]
fn bad_arguments_say_what_is_wrong_and_fail() {
    for (args, needle) in [
        (
            vec!["--preset", "b99", "report"],
            "no simulator preset `b99`",
        ),
        (
            vec!["--preset", "b70x2", "host-cost", "--workload", "sgd"],
            "unknown workload `sgd`",
        ),
        (
            vec![
                "--preset",
                "b70x2",
                "host-cost",
                "--workload",
                "seed000",
                "--policies",
                "greedy",
            ],
            "unknown policy `greedy`",
        ),
        (
            vec!["--preset", "b70x2", "peer-bench", "--pair", "0:0"],
            "two different devices",
        ),
        (
            vec![
                "--preset",
                "b70x2",
                "peer-bench",
                "--min",
                "64",
                "--max",
                "8",
            ],
            "--min <= --max",
        ),
        (
            vec!["--sim-config", "/nonexistent.toml", "report"],
            "neither a preset",
        ),
        (vec!["report", "--frobnicate"], "--frobnicate"),
        (
            vec!["--preset", "b70x2", "peer-bench", "--engine", "warp"],
            "unknown engine `warp`",
        ),
        (
            vec!["--preset", "b70x2", "--sim-config", "x.toml", "report"],
            "cannot be used with",
        ),
    ] {
        let output = lazy_usm(&args);
        assert!(!output.status.success(), "{args:?} succeeded");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            stderr.contains(needle),
            "{args:?}: `{stderr}` lacks `{needle}`"
        );
    }
}

/// Whether the loader stand-in was built next to the binary under test (`cargo build
/// --workspace` builds it; `cargo test -p lazy-usm-cli` alone does not).
fn stand_in_built() -> bool {
    let binary = std::path::Path::new(env!("CARGO_BIN_EXE_lazy-usm"));
    let built = binary.with_file_name("libze_sim_loader.so").is_file();
    if !built {
        assert!(
            std::env::var_os("CI").is_none(),
            "the loader stand-in must be built under CI (cargo build --workspace)"
        );
        // Past the test harness's capture, so that the skip shows beside the test's "ok".
        skipped("SKIPPED: libze_sim_loader.so not built (cargo build --workspace)\n".to_string());
    }
    built
}

#[test]
fn sim_env_prints_what_points_a_program_at_the_stand_in() {
    if !stand_in_built() {
        return;
    }
    let output = lazy_usm(&["sim-env", "--preset", "b60x4"]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let text = String::from_utf8(output.stdout).unwrap();
    let variables: std::collections::HashMap<&str, &str> = text
        .lines()
        .map(|line| {
            let (name, value) = line
                .strip_prefix("export ")
                .expect("export lines")
                .split_once('=')
                .unwrap();
            (name, value.trim_matches('\''))
        })
        .collect();
    assert_eq!(variables["ZE_SIM_CONFIG"], "b60x4");
    assert_eq!(variables["ONEAPI_DEVICE_SELECTOR"], "level_zero:*");
    let library = std::path::Path::new(variables["ZE_SIM_LIBRARY"]);
    assert_eq!(library.file_name().unwrap(), "libze_loader.so.1");
    assert_eq!(
        library.parent().unwrap(),
        std::path::Path::new(variables["ZEL_LIBRARY_PATH"])
    );
    assert!(variables["LD_LIBRARY_PATH"].starts_with(variables["ZEL_LIBRARY_PATH"]));
    let target = std::fs::canonicalize(library).expect("the loader name resolves");
    assert_eq!(target.file_name().unwrap(), "libze_sim_loader.so");
    // The development name oneCCL opens is the same file (one simulator in a process).
    let development = library.with_file_name("libze_loader.so");
    assert_eq!(std::fs::canonicalize(development).unwrap(), target);
}

/// An installed package ships the stand-in's folder with a copy under the soname and may not
/// be written to: the command points programs at a private folder of links to that copy, both
/// names one file, and leaves the package as it was.
#[test]
fn an_installed_packages_stand_in_is_linked_under_both_names_from_a_private_folder() {
    use std::os::unix::fs::PermissionsExt;
    if !stand_in_built() {
        return;
    }
    let built =
        std::path::Path::new(env!("CARGO_BIN_EXE_lazy-usm")).with_file_name("libze_sim_loader.so");
    let package = tempfile::tempdir().unwrap();
    let bin = package.path().join("_bin");
    let folder = bin.join("ze-sim-loader");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::copy(&built, bin.join("libze_sim_loader.so")).unwrap();
    let shipped = folder.join("libze_loader.so.1");
    std::fs::copy(&built, &shipped).unwrap();
    std::fs::set_permissions(&folder, std::fs::Permissions::from_mode(0o555)).unwrap();
    // `sim-env` with these variables (the caller's own XDG_RUNTIME_DIR and TMPDIR left out).
    let sim_env = |variables: &[(&str, &std::path::Path)]| {
        Command::new(env!("CARGO_BIN_EXE_lazy-usm"))
            .args(["sim-env", "--preset", "b70x2"])
            .env("LAZY_USM_SIM_LOADER", bin.join("libze_sim_loader.so"))
            .env_remove("XDG_RUNTIME_DIR")
            .env_remove("TMPDIR")
            .envs(variables.iter().copied())
            .output()
            .unwrap()
    };
    let private_of = |output: &std::process::Output| {
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        let text = String::from_utf8_lossy(&output.stdout);
        text.lines()
            .find_map(|line| line.strip_prefix("export ZEL_LIBRARY_PATH="))
            .map(|value| std::path::PathBuf::from(value.trim_matches('\'')))
            .unwrap()
    };
    let temporary = tempfile::tempdir().unwrap();
    let output = sim_env(&[("TMPDIR", temporary.path())]);
    std::fs::set_permissions(&folder, std::fs::Permissions::from_mode(0o755)).unwrap();
    let private = private_of(&output);
    assert!(
        private.starts_with(temporary.path()),
        "{}",
        private.display()
    );
    for name in ["libze_loader.so.1", "libze_loader.so"] {
        assert_eq!(std::fs::read_link(private.join(name)).unwrap(), shipped);
    }
    let parent = std::fs::metadata(private.parent().unwrap()).unwrap();
    assert_eq!(parent.permissions().mode() & 0o777, 0o700);
    let entries: Vec<_> = std::fs::read_dir(&folder).unwrap().collect();
    assert_eq!(entries.len(), 1, "nothing written into the package");
    // A parent that is not this user's alone (readable by others here) is refused, not used.
    let parent = private.parent().unwrap();
    std::fs::set_permissions(parent, std::fs::Permissions::from_mode(0o755)).unwrap();
    let refused = sim_env(&[("TMPDIR", temporary.path())]);
    assert!(!refused.status.success());
    assert!(
        String::from_utf8_lossy(&refused.stderr).contains("of this user's alone"),
        "{}",
        String::from_utf8_lossy(&refused.stderr)
    );
    // The session's own runtime folder comes first where there is one.
    let runtime = tempfile::tempdir().unwrap();
    std::fs::set_permissions(runtime.path(), std::fs::Permissions::from_mode(0o700)).unwrap();
    let private = private_of(&sim_env(&[
        ("XDG_RUNTIME_DIR", runtime.path()),
        ("TMPDIR", temporary.path()),
    ]));
    assert!(
        private.starts_with(runtime.path().join("lazy-usm")),
        "{}",
        private.display()
    );
    // A temporary folder where others may rename what is in it (writable by all, not sticky)
    // is refused: the folder's path is what programs are pointed at.
    let open = tempfile::tempdir().unwrap();
    std::fs::set_permissions(open.path(), std::fs::Permissions::from_mode(0o777)).unwrap();
    let refused = sim_env(&[("TMPDIR", open.path())]);
    assert!(!refused.status.success());
    assert!(
        String::from_utf8_lossy(&refused.stderr).contains("other users may rename"),
        "{}",
        String::from_utf8_lossy(&refused.stderr)
    );
}

#[test]
fn run_reports_the_peaks_of_a_program_that_uses_level_zero() {
    if !stand_in_built() {
        return;
    }
    // lazy-usm itself is an unmodified Level Zero program: run through the stand-in, it finds
    // two "system" GPUs and replays seed 000 with the eager policy.
    let folder = tempfile::tempdir().unwrap();
    let saved = folder.path().join("report.json");
    let output = lazy_usm(&[
        "--preset",
        "b70x2",
        "run",
        "--report",
        saved.to_str().unwrap(),
        "--",
        env!("CARGO_BIN_EXE_lazy-usm"),
        "host-cost",
        "--workload",
        "seed000",
        "--policies",
        "eager",
    ]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    // The program's own output is untouched on stdout; the accounting goes to stderr.
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stdout.contains("Host cost of workload `seed000`"),
        "{stdout}"
    );
    assert!(stderr.contains("host pinned: peak 8.00 GiB"), "{stderr}");
    let report: Value = serde_json::from_str(&std::fs::read_to_string(&saved).unwrap()).unwrap();
    let gib = 1u64 << 30;
    assert_eq!(report["platform"], "b70x2");
    assert_eq!(report["host_pinned_bytes"]["peak"], 8 * gib);
    assert_eq!(
        report["host_pinned_bytes"]["current"], 0,
        "freed by the end"
    );
    for device in report["devices"].as_array().unwrap() {
        assert_eq!(device["gtt_bytes"]["peak"], 4 * gib);
        assert_eq!(device["vram_bytes"]["peak"], 4 * gib);
    }
    assert_eq!(report["counters"]["make_resident_calls"], 4);
    assert_eq!(report["counters"]["live_allocations"], 0);
}

#[test]
fn run_passes_the_exit_code_on_and_says_when_nothing_loaded_the_simulator() {
    if !stand_in_built() {
        return;
    }
    let output = lazy_usm(&["run", "--", "sh", "-c", "exit 3"]);
    assert_eq!(output.status.code(), Some(3));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("no accounting from sh"), "{stderr}");
    let output = lazy_usm(&["run", "--", "true"]);
    assert_eq!(
        output.status.code(),
        Some(0),
        "a program without Level Zero still succeeds"
    );
    let output = lazy_usm(&["run", "--", "sh", "-c", "kill -TERM $$"]);
    assert_eq!(
        output.status.code(),
        Some(128 + 15),
        "a signal's number, as a shell reports it"
    );
    let output = lazy_usm(&["--preset", "nope", "run", "--", "true"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("neither a preset"));
}

/// `doctor --json` on a preset (with the driver's debug keys in `env`): each check's verdict.
fn doctor(preset: &str, env: &[(&str, &str)]) -> std::collections::HashMap<String, String> {
    let report = json_of(
        Command::new(env!("CARGO_BIN_EXE_lazy-usm"))
            .args(["doctor", "--preset", preset, "--json"])
            .env_remove("ZE_ENABLE_ALT_DRIVERS")
            .env_remove("NEOReadDebugKeys")
            .envs(env.iter().copied()),
    );
    assert!(report["platform"].as_str().unwrap().contains(preset));
    report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|check| {
            (
                check["check"].as_str().unwrap().to_string(),
                check["verdict"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn doctor_tells_the_presets_apart_by_what_it_measures() {
    let cost = "peer residency costs";
    let import = "a peer's memory used without a residency call";
    let pinned = doctor("b70x2", &[]);
    assert_eq!(pinned[cost], "pinned host memory of the allocation's size");
    assert!(pinned["peer residency is per allocation"].starts_with("yes"));
    assert_eq!(pinned["eviction releases it at once"], "yes");
    assert!(
        pinned[import].starts_with("imported by the driver"),
        "{}",
        pinned[import]
    );
    // In checking mode the simulator refuses such a use instead.
    let checking = doctor("b70x2", &[("ZE_SIM_CHECKING", "1")]);
    assert!(
        checking[import].starts_with("refused"),
        "{}",
        checking[import]
    );
    assert!(pinned["P2P, after the self-test (row: the reading device)"].contains("atomics"));
    assert!(pinned["registered host memory (page-aligned, 1 MiB)"].starts_with("imported"));
    assert!(
        pinned["loader"].starts_with("none: "),
        "{}",
        pinned["loader"]
    );
    // compute-runtime's import rules below a page, as the simulator follows them.
    let rules = &pinned["host-pointer import below a page"];
    assert!(
        rules.starts_with("a range from 64 bytes into a page: imported; a second range on its page: imported; a page inside a live import: success with no import of its own, and releasing it released the outer import"),
        "{rules}"
    );
    // 26.05, and 26.09+ with EnableDeferBacking=0: registered only.
    let registered = "registered only (GTT, no pinned host memory, after a kernel on the peer)";
    assert_eq!(doctor("b70x2-26.05", &[])[cost], registered);
    let keys = [("NEOReadDebugKeys", "1"), ("EnableDeferBacking", "0")];
    assert_eq!(doctor("b70x2", &keys)[cost], registered);
    // Seed 003's B60s: the driver pins peer residency at the next kernel, not at the call;
    // measured after a kernel on the peer, it is the expensive case it is.
    // The newest release refuses to evict a peer's import: said so, not taken for a release.
    let refusing = doctor("b70x2-26.31", &[]);
    assert!(
        refusing["eviction releases it at once"].starts_with("no: the driver refused the eviction"),
        "{}",
        refusing["eviction releases it at once"]
    );
    let deferred = doctor("b60x4", &[]);
    assert_eq!(
        deferred[cost],
        "pinned host memory of the allocation's size"
    );
    assert_eq!(deferred["eviction releases it at once"], "yes");
    // The driver's own import, and what it costs.
    let faithful = doctor("b70x2-faithful", &[]);
    assert!(
        faithful[import].starts_with("imported by the driver"),
        "{}",
        faithful[import]
    );
    assert!(faithful[import].ends_with("pinned host memory of the allocation's size"));
    // A true P2P fabric: no host cost at all; refused pairs show as such.
    let fabric = doctor("xelink", &[]);
    assert_eq!(fabric[cost], "none");
    assert_eq!(fabric["eviction releases it at once"], "nothing to release");
    assert!(
        doctor("b60x4-refused", &[])["P2P, after the self-test (row: the reading device)"]
            .contains("refused")
    );
}

/// Runs `command` (a `lazy-usm ... --json` invocation), asserts it succeeded, and parses what it
/// printed.
fn json_of(command: &mut Command) -> Value {
    let output = command.output().expect("run lazy-usm");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).expect("JSON on stdout")
}

/// A driver without the import extension: the import checks say so rather than fail.
#[test]
fn doctor_says_when_the_driver_has_no_import_extension() {
    let mut config = lazy_usm::ze_sim::SimConfig::preset("b70x2").unwrap();
    config.zex_extension = false;
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("no-zex.toml");
    std::fs::write(&path, config.to_toml()).unwrap();
    let report = json_of(
        Command::new(env!("CARGO_BIN_EXE_lazy-usm"))
            .args(["doctor", "--json", "--sim-config"])
            .arg(&path)
            .env_remove("ZE_ENABLE_ALT_DRIVERS"),
    );
    let verdict = |name: &str| {
        report["checks"]
            .as_array()
            .unwrap()
            .iter()
            .find(|check| check["check"] == name)
            .map(|check| check["verdict"].as_str().unwrap().to_string())
            .unwrap_or_else(|| panic!("no check {name}"))
    };
    assert_eq!(
        verdict("host-pointer import below a page"),
        "not probed: the driver has no zexDriverImportExternalPointer"
    );
    assert!(
        verdict("registered host memory (page-aligned, 1 MiB)").starts_with("not imported"),
        "{}",
        verdict("registered host memory (page-aligned, 1 MiB)")
    );
}

#[test]
fn doctor_finds_the_sycl_runtime_and_whether_each_adapter_reads_the_restrict_variable() {
    let root = tempfile::tempdir().unwrap();
    let lib = root.path().join("lib");
    std::fs::create_dir(&lib).unwrap();
    std::fs::write(lib.join("libsycl.so.9.0.0"), b"\x7fELF").unwrap();
    std::os::unix::fs::symlink("libsycl.so.9.0.0", lib.join("libsycl.so.9")).unwrap();
    // An adapter from before 2026.2, and one that reads the variable.
    std::fs::write(
        lib.join("libur_adapter_level_zero.so.0.11.0"),
        b"\x7fELF UR_L0_USM_RESIDENT",
    )
    .unwrap();
    std::fs::write(
        lib.join("libur_adapter_level_zero_v2.so.0.12.0"),
        b"\x7fELF ... SYCL_UR_L0_RESTRICT_USM_RESIDENCY_TO_P2P ...",
    )
    .unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_lazy-usm"))
        .args(["doctor", "--preset", "b70x2", "--json"])
        .env("LAZY_USM_SYCL_ROOT", root.path())
        .env_remove("LD_LIBRARY_PATH")
        .env_remove("ZE_ENABLE_ALT_DRIVERS")
        .output()
        .expect("run lazy-usm");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    let sycl = report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|check| check["check"] == "SYCL runtime")
        .expect("the SYCL runtime check");
    assert_eq!(sycl["figures"]["libsycl"]["version"], "9.0.0");
    assert_eq!(sycl["figures"]["v1"]["version"], "0.11.0");
    assert_eq!(sycl["figures"]["v1"]["restrict_variable"], false);
    assert_eq!(sycl["figures"]["v2"]["version"], "0.12.0");
    assert_eq!(sycl["figures"]["v2"]["restrict_variable"], true);
    // Without any runtime where it looks, it says so (where oneAPI is not installed either).
    if std::path::Path::new("/opt/intel/oneapi").exists() {
        return;
    }
    let empty = tempfile::tempdir().unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_lazy-usm"))
        .args(["doctor", "--preset", "b70x2"])
        .env("LAZY_USM_SYCL_ROOT", empty.path())
        .env_remove("LD_LIBRARY_PATH")
        .output()
        .expect("run lazy-usm");
    assert!(String::from_utf8_lossy(&output.stdout).contains("SYCL runtime: not found"));
}

/// The command pip installed finds Intel's SYCL runtime in the Python environment it was
/// installed into (where `intel-sycl-rt` puts `libsycl`): through the prefix the Python
/// launcher passes, and from where its own file lies when run directly.
#[test]
fn doctor_finds_the_sycl_runtime_of_the_python_environment_it_is_installed_in() {
    let prefix = tempfile::tempdir().unwrap();
    let lib = prefix.path().join("lib");
    let bin = lib.join("python3.11/site-packages/lazy_usm/_bin");
    std::fs::create_dir_all(&bin).unwrap();
    std::fs::write(lib.join("libsycl.so.9.2.0"), b"\x7fELF").unwrap();
    let installed = bin.join("lazy-usm");
    std::fs::copy(env!("CARGO_BIN_EXE_lazy-usm"), &installed).unwrap();
    let sycl_version = |command: &std::path::Path, prefix: Option<&std::path::Path>| {
        let mut run = Command::new(command);
        run.args(["doctor", "--preset", "b70x2", "--json"])
            .env_remove("LAZY_USM_SYCL_ROOT")
            .env_remove("LAZY_USM_PYTHON_PREFIX")
            .env_remove("VIRTUAL_ENV")
            .env_remove("CONDA_PREFIX")
            .env_remove("LD_LIBRARY_PATH")
            .env_remove("ZE_ENABLE_ALT_DRIVERS");
        if let Some(prefix) = prefix {
            run.env("LAZY_USM_PYTHON_PREFIX", prefix);
        }
        // A copy just written may be busy while another test's fork still holds it open for
        // writing (ETXTBSY): tried again.
        let output = (0..20)
            .find_map(|_| match run.output() {
                Err(error) if error.raw_os_error() == Some(26) => {
                    std::thread::sleep(std::time::Duration::from_millis(50));
                    None
                }
                other => Some(other),
            })
            .expect("the copy stayed busy")
            .expect("run lazy-usm");
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        let report: Value = serde_json::from_slice(&output.stdout).unwrap();
        report["checks"]
            .as_array()
            .unwrap()
            .iter()
            .find(|check| check["check"] == "SYCL runtime")
            .expect("the SYCL runtime check")["figures"]["libsycl"]["version"]
            .clone()
    };
    // The launcher's prefix, for the command built here.
    let built = std::path::Path::new(env!("CARGO_BIN_EXE_lazy-usm"));
    assert_eq!(sycl_version(built, Some(prefix.path())), "9.2.0");
    // The installed command, run directly: its own place says which environment it is in.
    assert_eq!(sycl_version(&installed, None), "9.2.0");
    if !std::path::Path::new("/opt/intel/oneapi").exists() {
        assert_eq!(sycl_version(built, None), Value::Null, "nowhere else");
    }
}

/// `lazy-usm --help` lists each command in one line; the long text is the command's own help.
#[test]
fn help_lists_each_command_in_one_line() {
    let output = lazy_usm(&["--help"]);
    assert!(output.status.success());
    let text = String::from_utf8_lossy(&output.stdout);
    let commands: Vec<&str> = text
        .lines()
        .skip_while(|line| !line.starts_with("Commands:"))
        .skip(1)
        .take_while(|line| !line.trim().is_empty())
        .collect();
    assert!(commands.len() >= 8, "{text}");
    for line in &commands {
        assert!(line.chars().count() <= 100, "too long for one line: {line}");
    }
    let doctor = lazy_usm(&["doctor", "--help"]);
    assert!(
        String::from_utf8_lossy(&doctor.stdout).contains("LAZY_USM_SYCL_ROOT"),
        "the long text stays in the command's help"
    );
}

/// A program that fails shows its own error for the alternatives it failed under; when it
/// failed under every one, `compare` fails too (the table compares nothing).
#[test]
fn compare_shows_a_failing_programs_error_and_fails_when_it_failed_everywhere() {
    let everywhere = lazy_usm(&[
        "compare",
        "--preset",
        "b70x2",
        "--",
        "sh",
        "-c",
        "echo 'No module named dpctl' >&2; exit 3",
    ]);
    let text = String::from_utf8_lossy(&everywhere.stdout);
    assert_eq!(everywhere.status.code(), Some(1), "{text}");
    assert!(
        text.contains("exit 3 under every alternative that ran; the last of its standard error:\n    No module named dpctl"),
        "{text}"
    );
    assert!(
        text.contains("failed under every alternative that ran: the table compares nothing"),
        "{text}"
    );
    // Its standard error still reaches the terminal as it runs, as before.
    assert!(
        String::from_utf8_lossy(&everywhere.stderr).contains("No module named dpctl"),
        "{}",
        String::from_utf8_lossy(&everywhere.stderr)
    );
    // Failing under the v1 adapter only: those rows are named, and compare succeeds.
    let program = "if [ \"$SYCL_UR_USE_LEVEL_ZERO_V2\" = 0 ]; then echo 'v1 broke' >&2; exit 4; fi";
    let some = lazy_usm(&["compare", "--preset", "b70x2", "--", "sh", "-c", program]);
    let text = String::from_utf8_lossy(&some.stdout);
    assert!(some.status.success(), "{text}");
    let line = text
        .lines()
        .find(|line| line.starts_with("exit 4 under "))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(line.contains("runtime default, v1 adapter"), "{line}");
    assert!(!line.contains("v2 adapter"), "{line}");
    assert!(text.contains("    v1 broke"), "{text}");
    let json = lazy_usm(&[
        "--json", "compare", "--preset", "b70x2", "--", "sh", "-c", program,
    ]);
    let report: Value = serde_json::from_slice(&json.stdout).unwrap();
    let runs = report["runs"].as_array().unwrap();
    let v1 = runs
        .iter()
        .find(|run| run["alternative"] == "runtime default, v1 adapter")
        .unwrap();
    assert_eq!(v1["exit_code"], 4);
    assert_eq!(v1["stderr_tail"], serde_json::json!(["v1 broke"]));
    let v2 = runs
        .iter()
        .find(|run| run["alternative"] == "runtime default, v2 adapter")
        .unwrap();
    assert!(v2.get("stderr_tail").is_none(), "{v2}");
}

/// `compare --measured` runs the program once per alternative on the system's loader, probing
/// it while it runs: each alternative's variables reach it (the v1 rows print something else),
/// a program that runs for a while is probed many times, and no figure is claimed that a real
/// machine's probe did not give (no DRM device here: no GTT, no residency calls).
#[test]
fn compare_measured_probes_the_program_under_each_alternative() {
    let report = json_of(
        Command::new(env!("CARGO_BIN_EXE_lazy-usm"))
            .args(["--json", "compare", "--measured", "--", "sh", "-c"])
            .arg("echo adapter=${SYCL_UR_USE_LEVEL_ZERO_V2-unset}; sleep 0.2")
            .env_remove("ZE_ENABLE_ALT_DRIVERS"),
    );
    assert_eq!(report["modelled"], false);
    assert_eq!(report["platform"], "system");
    let runs = report["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 12);
    let (torch, runs) = runs.split_last().unwrap();
    assert_eq!(torch["applies"], false, "{torch}");
    assert_eq!(torch["why"], "not a `python SCRIPT.py [ARGS]` program");
    // No GPU here: nothing pinned to halve into a budget.
    let (budget, runs): (Vec<_>, Vec<_>) = runs.iter().partition(|run| {
        run["alternative"]
            .as_str()
            .unwrap()
            .contains("LAZY_USM_HOST_BUDGET")
    });
    assert_eq!(budget.len(), 1);
    assert_eq!(budget[0]["applies"], false, "{}", budget[0]);
    assert!(
        budget[0]["why"]
            .as_str()
            .unwrap()
            .contains("no figure of pinned memory"),
        "{}",
        budget[0]
    );
    for run in runs {
        let name = run["alternative"].as_str().unwrap();
        assert_eq!(run["applies"], true, "{name}");
        assert_eq!(run["exit_code"], 0, "{name}");
        assert!(run["probes"].as_u64().unwrap() >= 5, "{name}: {run}");
        assert!(run["seconds"].as_f64().unwrap() >= 0.2, "{name}");
        assert_eq!(run["residency_calls"], Value::Null, "{name}");
        assert_eq!(run["peak_gtt_bytes"], serde_json::json!([]), "{name}");
        assert_eq!(run["same_output"], !name.contains(", v1"), "{name}");
    }
    // A preset and --measured contradict each other.
    let refused = Command::new(env!("CARGO_BIN_EXE_lazy-usm"))
        .args(["--preset", "b70x2", "compare", "--measured", "--", "true"])
        .output()
        .expect("run lazy-usm");
    assert_eq!(refused.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("--measured"));
}

/// Behind a loader (the stand-in `sim-env` points at), doctor reads the loader's components.
#[test]
fn doctor_reads_the_loaders_version_behind_a_loader() {
    if !stand_in_built() {
        return;
    }
    let exports = lazy_usm(&["sim-env", "--preset", "b70x2"]);
    assert!(exports.status.success());
    let variables: Vec<(String, String)> = String::from_utf8(exports.stdout)
        .unwrap()
        .lines()
        .filter_map(|line| {
            let (name, value) = line.strip_prefix("export ")?.split_once('=')?;
            Some((name.to_string(), value.trim_matches('\'').to_string()))
        })
        .collect();
    let report = json_of(
        Command::new(env!("CARGO_BIN_EXE_lazy-usm"))
            .args(["doctor", "--json"])
            .envs(variables)
            .env_remove("ZE_ENABLE_ALT_DRIVERS"),
    );
    assert!(
        report["platform"].as_str().unwrap().contains("system"),
        "{report}"
    );
    let loader = report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|check| check["check"] == "loader")
        .expect("a loader check");
    let verdict = loader["verdict"].as_str().unwrap();
    assert!(verdict.starts_with("loader 1."), "{verdict}");
    assert_eq!(loader["figures"][0]["component"], "loader");
}

/// `sh -c SCRIPT` with lazy-usm itself as `$0`: a job whose processes are lazy-usm runs, each
/// an unmodified Level Zero program through the stand-in.
fn job(script: &str) -> Vec<String> {
    ["sh", "-c", script, env!("CARGO_BIN_EXE_lazy-usm")]
        .map(String::from)
        .to_vec()
}

#[test]
fn compare_reports_the_whole_jobs_figures_of_every_process() {
    if !stand_in_built() {
        return;
    }
    let two_ranks = job(
        r#""$0" host-cost --workload seed000 --policies eager >/dev/null &
           "$0" host-cost --workload seed000 --policies eager >/dev/null; wait"#,
    );
    let mut args = vec!["--preset", "b70x2", "--json", "compare", "--"];
    args.extend(two_ranks.iter().map(String::as_str));
    let value = json(&args);
    let runs = value["runs"].as_array().unwrap();
    let default = runs
        .iter()
        .find(|run| run["alternative"] == "runtime default, v2 adapter")
        .unwrap();
    assert_eq!(default["processes"], 2, "{default}");
    // Each process makes four residency calls: the job's are both processes'.
    assert_eq!(default["residency_calls"], 8, "{default}");
    // Each pinned 8 GiB: the machine's peak is at least one's, whoever exited last.
    assert!(default["peak_host_pinned_bytes"].as_u64().unwrap() >= 8 << 30);
    assert_eq!(default["failures"], serde_json::json!([]));
}

#[test]
fn run_waits_for_the_processes_its_program_left_running() {
    if !stand_in_built() {
        return;
    }
    // The program exits at once; the process it left makes its Level Zero calls later.
    let orphan = job(
        r#"(sleep 0.5; exec "$0" host-cost --workload seed000 --policies eager >/dev/null) & exit 0"#,
    );
    let mut args = vec!["--preset", "b70x2", "run", "--"];
    args.extend(orphan.iter().map(String::as_str));
    let output = lazy_usm(&args);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(
        stderr.contains("waiting for the processes it left running"),
        "{stderr}"
    );
    assert!(stderr.contains("host pinned: peak 8.00 GiB"), "{stderr}");
    assert!(
        !stderr.contains("no accounting") && !stderr.contains("still running"),
        "{stderr}"
    );
}

#[test]
fn run_prints_the_figures_of_a_program_killed_by_a_signal() {
    if !stand_in_built() {
        return;
    }
    // peer-bench runs for seconds; its own shell's subshell kills it meanwhile.
    let killed = job(r#"( sleep 1; kill -KILL $$ ) & exec "$0" peer-bench >/dev/null 2>&1"#);
    let mut args = vec!["--preset", "b70x2", "run", "--"];
    args.extend(killed.iter().map(String::as_str));
    let output = lazy_usm(&args);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(128 + 9), "{stderr}");
    assert!(
        stderr.contains("was killed (signal: 9 (SIGKILL))"),
        "{stderr}"
    );
    assert!(stderr.contains("vanished"), "{stderr}");
    assert!(stderr.contains("peak VRAM GiB"), "{stderr}");
    assert!(!stderr.contains("no accounting"), "{stderr}");
}

#[test]
fn run_does_not_wait_for_a_daemon_its_program_left_running() {
    if !stand_in_built() {
        return;
    }
    // A process that never uses Level Zero and outlives the job (a server, a cache).
    let daemon = job(
        r#"sleep 30 >/dev/null 2>&1 & "$0" host-cost --workload seed000 --policies eager >/dev/null"#,
    );
    let mut args = vec!["--preset", "b70x2", "run", "--"];
    args.extend(daemon.iter().map(String::as_str));
    let started = std::time::Instant::now();
    let output = lazy_usm(&args);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(
        started.elapsed() < std::time::Duration::from_secs(20),
        "{stderr}"
    );
    assert!(stderr.contains("not waiting for processes"), "{stderr}");
    assert!(stderr.contains("host pinned: peak 8.00 GiB"), "{stderr}");
}

/// Writes a skip's line to the process's standard error itself: the harness captures what
/// `eprintln!` prints in a test that passes.
fn skipped(line: String) {
    let _ = std::io::Write::write_all(&mut std::io::stderr(), line.as_bytes());
}
