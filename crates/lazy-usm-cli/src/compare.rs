//! `lazy-usm compare`: one program run once per alternative a user hit by the host mirror can
//! try (Intel's runtime as it is, on either adapter; its restrict and residency variables; the
//! driver's debug keys; lazy-usm's shim, with and without a host budget), side by side in one
//! table: exit status, peak host pinned memory, peak GTT per device, residency calls,
//! evictions, refused uses, wall time, and whether the program printed what it printed under
//! the runtime's default.
//!
//! On the simulated platform the figures are the simulator's report (modelled). On a real
//! platform they are measured: the program runs against the system's loader and is probed while
//! it runs (every 10 ms) through its DRM fdinfo (VRAM and GTT per device) and the nodes'
//! `nr_gpu_active` (the pinned host memory no process counter shows; the whole machine's, so
//! read as the rise over its value before the program started). Only the program's own process
//! is probed, not processes it starts; residency calls and refused uses are not observable
//! there.

use crate::sim_env::{self, Target};
use crate::table::{Table, bytes_gib};
use lazy_usm::ze_sim::{MachineReport, ProcessReport, ProcessState};
use lazy_usm_tools::{MemoryPeaks, probe_process};
use serde_json::{Value, json};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Where `compare` runs the program.
pub enum Platform {
    /// The simulated platform of this preset or configuration file: figures modelled.
    Simulated(String),
    /// The system's loader and GPUs: figures measured by probing the program.
    Measured,
}

/// How often a measured run probes the program.
const PROBE_PERIOD: Duration = Duration::from_millis(10);

/// One way to run the program.
struct Alternative {
    name: &'static str,
    /// Through lazy-usm's shim.
    shim: bool,
    /// Variables it sets.
    env: &'static [(&'static str, &'static str)],
    /// With lazy-usm's pool as PyTorch's XPU allocator (`lazy_usm.torch.enable()` before the
    /// program's first line): for `python SCRIPT.py [ARGS]` programs whose interpreter has a
    /// PyTorch with XPU pluggable allocators and the `lazy_usm` package.
    torch_allocator: bool,
}

/// Whether the interpreter can take lazy-usm's pool as PyTorch's XPU allocator: exits 0, or
/// prints why not and exits 1.
const TORCH_CHECK: &str = r#"import sys
try:
    import torch
except Exception as error:
    print(f"torch is not importable ({type(error).__name__})"); sys.exit(1)
try:
    import lazy_usm.torch
except Exception as error:
    print(f"the lazy_usm package is not importable ({error})"); sys.exit(1)
memory = getattr(getattr(torch, "xpu", None), "memory", None)
if getattr(memory, "XPUPluggableAllocator", None) is None:
    print(f"torch {torch.__version__} has no XPU pluggable allocator"); sys.exit(1)
if not torch.xpu.is_available():
    print(f"torch {torch.__version__} sees no XPU device"); sys.exit(1)
"#;

/// Runs `SCRIPT [ARGS]` (after `-c` in `sys.argv`) as `python SCRIPT [ARGS]` would, with
/// lazy-usm's pool as PyTorch's XPU allocator from its first line.
///
/// As `python SCRIPT` would: `sys.argv` is `[SCRIPT, ARGS...]`, the script's own folder (its
/// real path) is first on `sys.path` unless the interpreter runs in safe-path mode, and the
/// script's `__file__` is absolute; `torch` and `lazy_usm` are imported with that path.
const TORCH_BOOTSTRAP: &str = r#"import os, runpy, sys
sys.argv = sys.argv[1:]
if not getattr(sys.flags, "safe_path", False):
    sys.path[0] = os.path.dirname(os.path.realpath(sys.argv[0]))
import lazy_usm.torch
lazy_usm.torch.enable()
runpy.run_path(os.path.abspath(sys.argv[0]), run_name="__main__")
"#;

/// Why the PyTorch allocator does not apply to `program`, checked by running its interpreter
/// as `check` (the alternative's environment); `None` when it does.
fn torch_allocator_unavailable(program: &[String], mut check: Command) -> Option<String> {
    let interpreter = std::path::Path::new(&program[0])
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default();
    let script = program.get(1).filter(|script| script.ends_with(".py"));
    if !interpreter.starts_with("python") || script.is_none() {
        return Some("not a `python SCRIPT.py [ARGS]` program".into());
    }
    let output = match check.arg("-c").arg(TORCH_CHECK).output() {
        Ok(output) => output,
        Err(error) => return Some(format!("cannot start {}: {error}", program[0])),
    };
    if output.status.success() {
        return None;
    }
    let why = String::from_utf8_lossy(&output.stdout).trim().to_string();
    Some(if why.is_empty() {
        format!("the interpreter's check failed ({})", output.status)
    } else {
        why
    })
}

const V2: (&str, &str) = ("SYCL_UR_USE_LEVEL_ZERO_V2", "1");
const V1: (&str, &str) = ("SYCL_UR_USE_LEVEL_ZERO_V2", "0");
const RESTRICT: (&str, &str) = ("SYCL_UR_L0_RESTRICT_USM_RESIDENCY_TO_P2P", "1");
const DEBUG_KEYS: (&str, &str) = ("NEOReadDebugKeys", "1");
/// The v1 adapter's residency variable (`0xHSD`: host, shared, device allocations; 1: resident
/// on the allocating device only); v2 does not read it.
const DEVICE_RESIDENT_ONLY: (&str, &str) = ("UR_L0_USM_RESIDENT", "0x1");
/// The shim's host budget: the budget row sets it, from the caller's value or half what the
/// shim's row pinned.
const HOST_BUDGET: &str = "LAZY_USM_HOST_BUDGET";
/// Variables of the alternatives' that no run inherits from the caller's environment (the
/// residency variable's older name among them).
const NOT_INHERITED: &[&str] = &["SYCL_PI_LEVEL_ZERO_USM_RESIDENT", HOST_BUDGET];
/// The shim's row whose peak sets the budget row's budget, and after which that row comes.
const SHIM_ROW: &str = "lazy-usm run --shim";
/// The alternatives, the runtime's default first (the others' output is compared with it).
const ALTERNATIVES: &[Alternative] = &[
    Alternative {
        name: "runtime default, v2 adapter",
        shim: false,
        env: &[V2],
        torch_allocator: false,
    },
    Alternative {
        name: "runtime default, v1 adapter",
        shim: false,
        env: &[V1],
        torch_allocator: false,
    },
    Alternative {
        name: "SYCL_UR_L0_RESTRICT_USM_RESIDENCY_TO_P2P=1, v2",
        shim: false,
        env: &[V2, RESTRICT],
        torch_allocator: false,
    },
    Alternative {
        name: "SYCL_UR_L0_RESTRICT_USM_RESIDENCY_TO_P2P=1, v1",
        shim: false,
        env: &[V1, RESTRICT],
        torch_allocator: false,
    },
    Alternative {
        name: "UR_L0_USM_RESIDENT=0x1, v1",
        shim: false,
        env: &[V1, DEVICE_RESIDENT_ONLY],
        torch_allocator: false,
    },
    Alternative {
        name: "UR_L0_USM_RESIDENT=0x1, v2",
        shim: false,
        env: &[V2, DEVICE_RESIDENT_ONLY],
        torch_allocator: false,
    },
    Alternative {
        name: "NEOReadDebugKeys=1 EnableDeferBacking=0",
        shim: false,
        env: &[V2, DEBUG_KEYS, ("EnableDeferBacking", "0")],
        torch_allocator: false,
    },
    Alternative {
        name: "NEOReadDebugKeys=1 ForceZeDeviceCanAccessPerReturnValue=0",
        shim: false,
        env: &[
            V2,
            DEBUG_KEYS,
            ("ForceZeDeviceCanAccessPerReturnValue", "0"),
        ],
        torch_allocator: false,
    },
    Alternative {
        name: SHIM_ROW,
        shim: true,
        env: &[V2, ("LAZY_USM_INDIRECT", "args")],
        torch_allocator: false,
    },
    Alternative {
        name: "lazy-usm run --shim, LAZY_USM_INDIRECT=all",
        shim: true,
        env: &[V2, ("LAZY_USM_INDIRECT", "all")],
        torch_allocator: false,
    },
    Alternative {
        name: "PyTorch pluggable allocator (lazy_usm.torch.enable())",
        shim: false,
        env: &[V2],
        torch_allocator: true,
    },
];

/// What one run gave.
struct Outcome {
    name: String,
    /// Why the alternative does not apply to this program (it was not run).
    unavailable: Option<String>,
    code: i32,
    stdout: Vec<u8>,
    /// Its standard error (what a failing run says of why).
    stderr: Vec<u8>,
    seconds: f64,
    figures: Figures,
}

/// How many of its last lines of standard error a failing run shows.
const ERROR_LINES: usize = 5;

impl Outcome {
    /// Whether the program ran under this alternative and failed.
    fn failed(&self) -> bool {
        self.unavailable.is_none() && self.code != 0
    }

    /// The last lines the program wrote to standard error (each at most 300 characters).
    fn error_tail(&self) -> Vec<String> {
        let text = String::from_utf8_lossy(&self.stderr);
        let lines: Vec<&str> = text
            .lines()
            .filter(|line| !line.trim().is_empty())
            .collect();
        lines[lines.len().saturating_sub(ERROR_LINES)..]
            .iter()
            .map(|line| line.chars().take(300).collect())
            .collect()
    }
}

/// A run's memory figures: the simulated machine's (every process of the job, machine-wide),
/// or what probing the program measured.
enum Figures {
    /// `None` when no process of the job used Level Zero (or the run did not apply).
    Modelled(Option<MachineReport>),
    Measured {
        peaks: MemoryPeaks,
        /// `nr_gpu_active` before the program started, in bytes.
        gpu_active_before: Option<u64>,
    },
}

impl Figures {
    /// Peak host pinned bytes: the report's, or the rise of `nr_gpu_active`.
    fn peak_pinned(&self) -> Option<u64> {
        match self {
            Figures::Modelled(machine) => machine.as_ref().map(|m| m.host_pinned_bytes.peak),
            Figures::Measured {
                peaks,
                gpu_active_before,
            } => {
                // Without the figure from before the program, the rise is unknown.
                let before = (*gpu_active_before)?;
                peaks
                    .gpu_active_bytes
                    .map(|peak| peak.saturating_sub(before))
            }
        }
    }

    /// Peak GTT bytes per device, in the platform's device order (measured: by PCI address).
    fn peak_gtt(&self) -> Option<Vec<u64>> {
        self.peak_gtt_by_device()
            .map(|devices| devices.into_iter().map(|(_, bytes)| bytes).collect())
    }

    /// Peak GTT bytes per device, each named as the table's column names it: by index in the
    /// platform's order (modelled), by PCI address (measured: a run may open other devices).
    fn peak_gtt_by_device(&self) -> Option<Vec<(String, u64)>> {
        match self {
            Figures::Modelled(machine) => machine.as_ref().map(|m| {
                m.devices
                    .iter()
                    .enumerate()
                    .map(|(index, d)| (format!("GTT{index}"), d.gtt_bytes.peak))
                    .collect()
            }),
            Figures::Measured { peaks, .. } => Some(
                peaks
                    .devices
                    .iter()
                    .map(|d| (format!("GTT {}", d.pdev), d.gtt_bytes))
                    .collect(),
            ),
        }
    }

    /// A counter summed over the job's processes; `None` when measured (not observable),
    /// absent, or when a process vanished before it published its counters (at exit).
    fn counter(&self, figure: fn(&ProcessReport) -> u64) -> Option<u64> {
        match self {
            Figures::Modelled(Some(machine)) => {
                let vanished = machine
                    .processes
                    .iter()
                    .any(|process| process.state == ProcessState::Vanished);
                (!vanished).then(|| machine.processes.iter().map(figure).sum())
            }
            _ => None,
        }
    }

    /// The job's processes (modelled).
    fn processes(&self) -> Option<usize> {
        match self {
            Figures::Modelled(Some(machine)) => Some(machine.processes.len()),
            _ => None,
        }
    }

    /// Lines naming each call a process was refused for lack of memory (modelled).
    fn failures(&self) -> Vec<String> {
        match self {
            Figures::Modelled(Some(machine)) => sim_env::failures(machine)
                .lines()
                .map(|line| line.trim().to_string())
                .collect(),
            _ => Vec::new(),
        }
    }
}

/// The program's command under `alternative`, on `target`.
fn command_for(
    target: &Target,
    alternative: &Alternative,
    program: &[String],
    host_budget: Option<&str>,
) -> Result<Command, String> {
    let (name, args) = program
        .split_first()
        .ok_or("no program given (lazy-usm compare [--preset NAME] -- PROGRAM [ARGS])")?;
    let mut command = Command::new(name);
    if alternative.torch_allocator {
        command.arg("-c").arg(TORCH_BOOTSTRAP);
    }
    command.args(args);
    if target.platform.is_some() || target.shim {
        command.envs(sim_env::environment(target)?);
    } else {
        // Measured without the shim, the program runs on the system's loader, selecting
        // devices as the shim's runs do (through Level Zero), so the runs compare.
        command.env("ONEAPI_DEVICE_SELECTOR", "level_zero:*");
    }
    // The shim's own exit line would differ from the other runs' output.
    command.env_remove("LAZY_USM_REPORT");
    // Each alternative starts from none of the others' settings.
    for other in ALTERNATIVES.iter().flat_map(|other| other.env) {
        command.env_remove(other.0);
    }
    for name in NOT_INHERITED {
        command.env_remove(name);
    }
    command.envs(alternative.env.iter().copied());
    if let Some(budget) = host_budget {
        command.env(HOST_BUDGET, budget);
    }
    Ok(command)
}

/// Runs `program` once under `alternative` (with the shim's `host_budget`, if given).
fn run_once(
    platform: &Platform,
    alternative: &Alternative,
    program: &[String],
    host_budget: Option<&str>,
) -> Result<Outcome, String> {
    let name = match host_budget {
        Some(budget) => format!("{}, {HOST_BUDGET}={budget}", alternative.name),
        None => alternative.name.to_string(),
    };
    let target = Target {
        platform: match platform {
            Platform::Simulated(preset) => Some(preset.clone()),
            Platform::Measured => None,
        },
        shim: alternative.shim,
    };
    if alternative.torch_allocator {
        let plain = Alternative {
            torch_allocator: false,
            ..*alternative
        };
        let check = command_for(&target, &plain, &program[..1], None)?;
        if let Some(why) = torch_allocator_unavailable(program, check) {
            return Ok(Outcome {
                name,
                unavailable: Some(why),
                code: 0,
                stdout: Vec::new(),
                stderr: Vec::new(),
                seconds: 0.0,
                figures: Figures::Modelled(None),
            });
        }
    }
    let mut command = command_for(&target, alternative, program, host_budget)?;
    let program_name = &program[0];
    match platform {
        Platform::Simulated(preset) => {
            // A machine of its own per alternative, shared by every process of the job, as
            // `run` makes one: machine-wide figures and host limit, whoever exits last.
            let started = Instant::now();
            let end = sim_env::run_job(command, Some(preset), true)?;
            let machine = end.machine.filter(|machine| !machine.processes.is_empty());
            Ok(Outcome {
                name,
                unavailable: None,
                code: sim_env::exit_code(&end.status),
                stdout: end.stdout,
                stderr: end.stderr,
                seconds: started.elapsed().as_secs_f64(),
                figures: Figures::Modelled(machine),
            })
        }
        Platform::Measured => {
            let gpu_active_before = probe_process(None)
                .ok()
                .and_then(|memory| memory.gpu_active_bytes);
            let started = Instant::now();
            // No input, as the simulated runs have none: one run must not eat another's.
            let mut child = command
                .stdin(Stdio::null())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .map_err(|error| format!("cannot start {program_name}: {error}"))?;
            // Read its output beside the probing, so a full pipe never stalls it; its standard
            // error is passed on as it comes, and its end kept.
            let stdout = child.stdout.take().map(sim_env::Collected::start);
            let stderr = child.stderr.take().map(sim_env::Collected::tee_to_stderr);
            let mut peaks = MemoryPeaks::default();
            let status = loop {
                // A probe that finds the process gone (it exited meanwhile) adds nothing.
                if let Ok(memory) = probe_process(Some(child.id())) {
                    peaks.add(&memory);
                }
                match child.try_wait() {
                    Ok(Some(status)) => break status,
                    Ok(None) => std::thread::sleep(PROBE_PERIOD),
                    Err(error) => {
                        // Not left running unwatched.
                        let _ = child.kill();
                        let _ = child.wait();
                        return Err(format!("waiting for {program_name}: {error}"));
                    }
                }
            };
            let seconds = started.elapsed().as_secs_f64();
            // A process it left running may keep the pipes open: what was read is taken.
            let deadline = Instant::now() + Duration::from_secs(1);
            let stdout = stdout.map_or_else(Vec::new, |collected| collected.take(deadline));
            let stderr = stderr.map_or_else(Vec::new, |collected| collected.take(deadline));
            Ok(Outcome {
                name,
                unavailable: None,
                code: sim_env::exit_code(&status),
                stdout,
                stderr,
                seconds,
                figures: Figures::Measured {
                    peaks,
                    gpu_active_before,
                },
            })
        }
    }
}

/// The shim's row again with a host budget: the caller's `LAZY_USM_HOST_BUDGET`, else half of
/// what the shim's row pinned at its peak (what a budget costs this program, in evictions and
/// re-imports, when it binds).
fn with_host_budget(
    platform: &Platform,
    program: &[String],
    outcomes: &[Outcome],
) -> Result<Outcome, String> {
    let from_caller = std::env::var(HOST_BUDGET)
        .ok()
        .filter(|value| !value.is_empty());
    let half_of_the_shims = || {
        let peak = outcomes
            .iter()
            .find(|outcome| outcome.name == SHIM_ROW && outcome.unavailable.is_none())
            .and_then(|outcome| outcome.figures.peak_pinned())
            .ok_or("the shim's run has no figure of pinned memory to halve")?;
        let half_mib = (peak / 2) >> 20;
        if half_mib == 0 {
            return Err("the shim's run pinned under 2 MiB: no budget binds");
        }
        Ok(format!("{half_mib}MiB"))
    };
    match from_caller.map_or_else(half_of_the_shims, Ok) {
        Ok(budget) => {
            let shim = ALTERNATIVES
                .iter()
                .find(|alternative| alternative.name == SHIM_ROW)
                .ok_or("no shim row to give a budget")?;
            run_once(platform, shim, program, Some(&budget))
        }
        Err(why) => Ok(Outcome {
            name: format!("{SHIM_ROW}, {HOST_BUDGET}"),
            unavailable: Some(format!("{why} (set {HOST_BUDGET} to choose one)")),
            code: 0,
            stdout: Vec::new(),
            stderr: Vec::new(),
            seconds: 0.0,
            figures: Figures::Modelled(None),
        }),
    }
}

/// Runs `program` under every alternative on `platform` and prints the table (or, with `json`,
/// the figures as JSON).
///
/// `Ok(false)` when the program failed under every alternative that ran (its errors printed).
pub fn compare(platform: &Platform, program: &[String], json: bool) -> Result<bool, String> {
    let mut outcomes = ALTERNATIVES
        .iter()
        .map(|alternative| run_once(platform, alternative, program, None))
        .collect::<Result<Vec<_>, _>>()?;
    let budget_row = with_host_budget(platform, program, &outcomes)?;
    let after_shim = outcomes
        .iter()
        .rposition(|outcome| outcome.name.starts_with(SHIM_ROW))
        .map_or(outcomes.len(), |index| index + 1);
    outcomes.insert(after_shim, budget_row);
    let default_output = outcomes.first().map(|outcome| outcome.stdout.clone());
    let same = |outcome: &Outcome| Some(&outcome.stdout) == default_output.as_ref();
    let (platform_name, modelled) = match platform {
        Platform::Simulated(preset) => (preset.as_str(), true),
        Platform::Measured => ("system", false),
    };
    if json {
        let rows: Vec<Value> =
            outcomes
                .iter()
                .map(|outcome| {
                    if let Some(why) = &outcome.unavailable {
                        return json!({"alternative": outcome.name, "applies": false, "why": why});
                    }
                    let figures = &outcome.figures;
                    let mut row = json!({
                        "applies": true,
                        "alternative": outcome.name,
                        "exit_code": outcome.code,
                        "seconds": outcome.seconds,
                        "same_output": same(outcome),
                        "peak_host_pinned_bytes": figures.peak_pinned(),
                        "peak_gtt_bytes": figures.peak_gtt(),
                        "residency_calls": figures.counter(|p| p.make_resident_calls),
                        "evict_calls": figures.counter(|p| p.evict_calls),
                        "implicit_imports": figures.counter(|p| p.implicit_imports),
                        "refused_uses": figures.counter(|p| p.residency_violations),
                        "processes": figures.processes(),
                        "failures": figures.failures(),
                    });
                    if outcome.failed() {
                        row["stderr_tail"] = json!(outcome.error_tail());
                    }
                    if let Figures::Measured { peaks, .. } = figures {
                        row["probes"] = json!(peaks.samples);
                        row["devices"] =
                            json!(peaks.devices.iter().map(|d| json!({
                        "pdev": d.pdev, "driver": d.driver,
                        "peak_vram_bytes": d.vram_bytes, "peak_gtt_bytes": d.gtt_bytes,
                    })).collect::<Vec<_>>());
                    }
                    row
                })
                .collect();
        println!(
            "{}",
            json!({"platform": platform_name, "modelled": modelled, "runs": rows})
        );
        return Ok(!failed_everywhere(&outcomes));
    }
    match platform {
        Platform::Simulated(preset) => println!(
            "{} under each alternative on the simulated platform `{preset}` (figures are modelled; \
             on an Intel GPU they would be measured):",
            program.join(" ")
        ),
        Platform::Measured => println!(
            "{} under each alternative on this machine's GPUs (measured: the program's DRM fdinfo \
             and the rise of nr_gpu_active, probed every {} ms; residency calls and refused uses \
             are not observable here):",
            program.join(" "),
            PROBE_PERIOD.as_millis()
        ),
    }
    // Every device any run saw, in the order first seen.
    let mut devices: Vec<String> = Vec::new();
    for outcome in &outcomes {
        for (label, _) in outcome.figures.peak_gtt_by_device().unwrap_or_default() {
            if !devices.contains(&label) {
                devices.push(label);
            }
        }
    }
    let mut header = vec![
        "alternative".to_string(),
        "exit".into(),
        "peak pinned GiB".into(),
    ];
    header.extend(devices.iter().map(|device| format!("peak {device} GiB")));
    header.extend([
        "residency calls".into(),
        "evictions".into(),
        "refused uses".into(),
    ]);
    if modelled {
        header.push("processes".into());
    }
    header.extend(["seconds".into(), "same output".into()]);
    let mut table = Table::new(header);
    let or_na = |value: Option<u64>, text: fn(u64) -> String| value.map_or("n/a".into(), text);
    let mut unavailable = Vec::new();
    let mut refused = Vec::new();
    for outcome in &outcomes {
        if let Some(why) = &outcome.unavailable {
            unavailable.push(format!("{}: does not apply: {why}", outcome.name));
            continue;
        }
        let figures = &outcome.figures;
        let mut row = vec![outcome.name.to_string(), outcome.code.to_string()];
        row.push(or_na(figures.peak_pinned(), bytes_gib));
        let gtt = figures.peak_gtt_by_device().unwrap_or_default();
        row.extend(devices.iter().map(|device| {
            let bytes = gtt
                .iter()
                .find(|(label, _)| label == device)
                .map(|&(_, b)| b);
            or_na(bytes, bytes_gib)
        }));
        row.push(or_na(figures.counter(|p| p.make_resident_calls), |n| {
            n.to_string()
        }));
        row.push(or_na(figures.counter(|p| p.evict_calls), |n| n.to_string()));
        row.push(or_na(figures.counter(|p| p.residency_violations), |n| {
            n.to_string()
        }));
        if modelled {
            row.push(or_na(figures.processes().map(|n| n as u64), |n| {
                n.to_string()
            }));
        }
        for failure in figures.failures() {
            refused.push(format!("{}: {failure}", outcome.name));
        }
        row.push(format!("{:.2}", outcome.seconds));
        row.push(if same(outcome) { "yes" } else { "no" }.into());
        table.row(row);
    }
    print!("{}", table.render());
    for line in refused.iter().chain(&unavailable) {
        println!("{line}");
    }
    // Each distinct failure once, with the alternatives it happened under.
    let ran = outcomes
        .iter()
        .filter(|outcome| outcome.unavailable.is_none())
        .count();
    // (exit code, last lines of standard error) -> the alternatives that ended so.
    type Ending = (i32, Vec<String>);
    let mut failures: Vec<(Ending, Vec<&str>)> = Vec::new();
    for outcome in outcomes.iter().filter(|outcome| outcome.failed()) {
        let key = (outcome.code, outcome.error_tail());
        match failures.iter_mut().find(|(seen, _)| *seen == key) {
            Some((_, names)) => names.push(&outcome.name),
            None => failures.push((key, vec![&outcome.name])),
        }
    }
    for ((code, tail), names) in failures {
        let under = if names.len() == ran {
            "every alternative that ran".to_string()
        } else {
            names.join("; ")
        };
        if tail.is_empty() {
            println!("exit {code} under {under}, with nothing on standard error");
        } else {
            println!("exit {code} under {under}; the last of its standard error:");
            for line in tail {
                println!("    {line}");
            }
        }
    }
    if failed_everywhere(&outcomes) {
        println!(
            "{} failed under every alternative that ran: the table compares nothing",
            program.join(" ")
        );
    }
    Ok(!failed_everywhere(&outcomes))
}

/// Whether the program failed under every alternative that applied to it: then the table
/// compares nothing, and a script running `compare` must see that (its exit status is 1).
fn failed_everywhere(outcomes: &[Outcome]) -> bool {
    let mut ran = outcomes
        .iter()
        .filter(|outcome| outcome.unavailable.is_none())
        .peekable();
    ran.peek().is_some() && ran.all(Outcome::failed)
}
