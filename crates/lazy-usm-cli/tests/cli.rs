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
    let b60 = json(&["--preset", "b60x4", "--json", "report"]);
    assert_eq!(
        b60["p2p"][0],
        serde_json::json!(["self", "refused", "refused", "refused"])
    );
    assert_eq!(b60["devices"].as_array().unwrap().len(), 4);
    assert!(
        b60["platform"]
            .as_str()
            .unwrap()
            .contains("simulated preset `b60x4`")
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
