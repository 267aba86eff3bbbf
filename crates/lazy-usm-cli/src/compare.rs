//! `lazy-usm compare`: one program run once per alternative a user hit by the host mirror can
//! try (Intel's runtime as it is, on either adapter; its restrict variable; the driver's debug
//! keys; lazy-usm's shim), side by side in one table: exit status, peak host pinned memory,
//! peak GTT per device, residency calls, refused uses, wall time, and whether the program
//! printed what it printed under the runtime's default.

use crate::sim_env::{self, ReportFile, Target};
use crate::table::{Table, bytes_gib};
use lazy_usm::ze_sim::{REPORT_ENV, Report};
use serde_json::{Value, json};
use std::process::Command;
use std::time::Instant;

/// One way to run the program.
struct Alternative {
    name: &'static str,
    /// Through lazy-usm's shim.
    shim: bool,
    /// Variables it sets.
    env: &'static [(&'static str, &'static str)],
}

const V2: (&str, &str) = ("SYCL_UR_USE_LEVEL_ZERO_V2", "1");
const V1: (&str, &str) = ("SYCL_UR_USE_LEVEL_ZERO_V2", "0");
const RESTRICT: (&str, &str) = ("SYCL_UR_L0_RESTRICT_USM_RESIDENCY_TO_P2P", "1");
const DEBUG_KEYS: (&str, &str) = ("NEOReadDebugKeys", "1");

/// The alternatives, the runtime's default first (the others' output is compared with it).
const ALTERNATIVES: &[Alternative] = &[
    Alternative {
        name: "runtime default, v2 adapter",
        shim: false,
        env: &[V2],
    },
    Alternative {
        name: "runtime default, v1 adapter",
        shim: false,
        env: &[V1],
    },
    Alternative {
        name: "SYCL_UR_L0_RESTRICT_USM_RESIDENCY_TO_P2P=1, v2",
        shim: false,
        env: &[V2, RESTRICT],
    },
    Alternative {
        name: "SYCL_UR_L0_RESTRICT_USM_RESIDENCY_TO_P2P=1, v1",
        shim: false,
        env: &[V1, RESTRICT],
    },
    Alternative {
        name: "NEOReadDebugKeys=1 EnableDeferBacking=0",
        shim: false,
        env: &[V2, DEBUG_KEYS, ("EnableDeferBacking", "0")],
    },
    Alternative {
        name: "NEOReadDebugKeys=1 ForceZeDeviceCanAccessPerReturnValue=0",
        shim: false,
        env: &[
            V2,
            DEBUG_KEYS,
            ("ForceZeDeviceCanAccessPerReturnValue", "0"),
        ],
    },
    Alternative {
        name: "lazy-usm run --shim",
        shim: true,
        env: &[V2, ("LAZY_USM_INDIRECT", "args")],
    },
    Alternative {
        name: "lazy-usm run --shim, LAZY_USM_INDIRECT=all",
        shim: true,
        env: &[V2, ("LAZY_USM_INDIRECT", "all")],
    },
];

/// What one run gave.
struct Outcome {
    name: &'static str,
    code: i32,
    stdout: Vec<u8>,
    seconds: f64,
    report: Option<Report>,
}

fn run_once(
    preset: &str,
    alternative: &Alternative,
    program: &[String],
) -> Result<Outcome, String> {
    let (name, args) = program
        .split_first()
        .ok_or("no program given (lazy-usm compare --preset NAME -- PROGRAM [ARGS])")?;
    let target = Target {
        platform: Some(preset.to_string()),
        shim: alternative.shim,
    };
    let report_file = ReportFile::new("lazy-usm-compare-")?;
    let mut command = Command::new(name);
    command
        .args(args)
        .envs(sim_env::environment(&target)?)
        .env(REPORT_ENV, report_file.path())
        // The shim's own exit line would differ from the other runs' output.
        .env_remove("LAZY_USM_REPORT");
    // Each alternative starts from none of the others' settings.
    for other in ALTERNATIVES.iter().flat_map(|other| other.env) {
        command.env_remove(other.0);
    }
    command.envs(alternative.env.iter().copied());
    let started = Instant::now();
    let output = command
        .output()
        .map_err(|error| format!("cannot start {name}: {error}"))?;
    let seconds = started.elapsed().as_secs_f64();
    let code = sim_env::exit_code(&output.status);
    let report = report_file.read().ok();
    Ok(Outcome {
        name: alternative.name,
        code,
        stdout: output.stdout,
        seconds,
        report,
    })
}

fn counter(report: &Report, name: &str) -> u64 {
    report.counters.get(name).copied().unwrap_or(0)
}

/// Runs `program` under every alternative on the simulated platform `preset` and prints the
/// table (or, with `json`, the figures as JSON).
pub fn compare(preset: &str, program: &[String], json: bool) -> Result<(), String> {
    let outcomes = ALTERNATIVES
        .iter()
        .map(|alternative| run_once(preset, alternative, program))
        .collect::<Result<Vec<_>, _>>()?;
    let default_output = outcomes.first().map(|outcome| outcome.stdout.clone());
    let same = |outcome: &Outcome| Some(&outcome.stdout) == default_output.as_ref();
    if json {
        let rows: Vec<Value> = outcomes
            .iter()
            .map(|outcome| {
                let report = outcome.report.as_ref();
                json!({
                    "alternative": outcome.name,
                    "exit_code": outcome.code,
                    "seconds": outcome.seconds,
                    "same_output": same(outcome),
                    "peak_host_pinned_bytes": report.map(|r| r.host_pinned_bytes.peak),
                    "peak_gtt_bytes": report.map(|r| r.devices.iter().map(|d| d.gtt_bytes.peak).collect::<Vec<_>>()),
                    "residency_calls": report.map(|r| counter(r, "make_resident_calls")),
                    "implicit_imports": report.map(|r| counter(r, "implicit_imports")),
                    "refused_uses": report.map(|r| counter(r, "residency_violations")),
                })
            })
            .collect();
        println!(
            "{}",
            json!({"platform": preset, "modelled": true, "runs": rows})
        );
        return Ok(());
    }
    println!(
        "{} under each alternative on the simulated platform `{preset}` (figures are modelled; on \
         an Intel GPU they would be measured):",
        program.join(" ")
    );
    let devices = outcomes
        .iter()
        .filter_map(|outcome| outcome.report.as_ref())
        .map(|report| report.devices.len())
        .max()
        .unwrap_or(0);
    let mut header = vec![
        "alternative".to_string(),
        "exit".into(),
        "peak pinned GiB".into(),
    ];
    header.extend((0..devices).map(|device| format!("peak GTT{device} GiB")));
    header.extend([
        "residency calls".into(),
        "refused uses".into(),
        "seconds".into(),
        "same output".into(),
    ]);
    let mut table = Table::new(header);
    for outcome in &outcomes {
        let mut row = vec![outcome.name.to_string(), outcome.code.to_string()];
        match &outcome.report {
            Some(report) => {
                row.push(bytes_gib(report.host_pinned_bytes.peak));
                row.extend((0..devices).map(|device| {
                    report
                        .devices
                        .get(device)
                        .map_or("n/a".into(), |d| bytes_gib(d.gtt_bytes.peak))
                }));
                row.push(counter(report, "make_resident_calls").to_string());
                row.push(counter(report, "residency_violations").to_string());
            }
            None => {
                row.extend(std::iter::repeat_n("n/a".to_string(), devices + 3));
            }
        }
        row.push(format!("{:.2}", outcome.seconds));
        row.push(if same(outcome) { "yes" } else { "no" }.into());
        table.row(row);
    }
    print!("{}", table.render());
    Ok(())
}
