//! `lazy-usm`: what residency policies cost on the host, how fast peers copy, and what a live
//! process really holds. Runs on the system's Level Zero GPUs, or on the simulated platform, and
//! always says which.

mod compare;
mod doctor;
mod plot;
mod sim_env;
mod table;

use clap::{Parser, Subcommand};
use lazy_usm::{Context, Device, Policy, ResidencyConfig, ResidencyManager, Runtime};
use lazy_usm_tools::measure::{Direction, HostKind, PeerCopy, PeerMode, host_copy, peer_copy};
use lazy_usm_tools::workload::{Workload, WorkloadReport, run};
use serde_json::{Value, json};
use std::process::ExitCode;
use table::{Table, bytes_gib};

#[derive(Parser, Debug)]
#[command(
    name = "lazy-usm",
    version,
    about = "Residency-aware USM for multi-GPU Level Zero: host cost, peer bandwidth, live probe"
)]
struct Cli {
    /// Use the simulated platform with this preset (b70x2, b70x2-26.05, b70x2-26.31, b60x4, b60x4-refused, b70x2-acs, xelink, b70x2-faithful).
    #[arg(long, global = true, conflicts_with = "sim_config")]
    preset: Option<String>,
    /// Use the simulated platform described by this TOML file.
    #[arg(long, global = true)]
    sim_config: Option<String>,
    /// Print machine-readable JSON instead of tables.
    #[arg(long, global = true)]
    json: bool,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Devices, the P2P matrix, copy engines, the host cost of each policy, peer bandwidth.
    Report,
    /// Run a workload under each policy and report the host memory it pins.
    HostCost {
        /// seed000, ddp or tp.
        #[arg(long)]
        workload: String,
        /// Draw host pinned bytes over the workload's steps, one line per policy, as SVG.
        #[arg(long)]
        plot: Option<String>,
        /// Policies to run (default: all).
        #[arg(long, value_delimiter = ',')]
        policies: Vec<String>,
    },
    /// Peer copy bandwidth (what level-zero-tests' ze_peer measures).
    PeerBench(PeerBenchArgs),
    /// VRAM, GTT and pinned host memory of a live process, from DRM fdinfo and nr_gpu_active.
    Probe {
        /// Process id (default: this process).
        #[arg(long)]
        pid: Option<u32>,
    },
    /// The environment that runs an unmodified program on the simulated platform.
    ///
    /// Prints, as `export NAME=value` lines, the environment that makes an unmodified Level Zero
    /// program (Intel's SYCL runtime included) run on the simulated platform, with no system
    /// loader: `eval "$(lazy-usm sim-env --preset b70x2)"`.
    SimEnv {
        /// Through lazy-usm's loader shim (lazy peer residency), forwarding to the simulator's
        /// stand-in, or to the system's loader when no preset is given.
        #[arg(long)]
        shim: bool,
    },
    /// Check this machine's driver and runtimes; a report to paste into an issue.
    ///
    /// Checks, on this platform, what the README lists as not verified on Intel hardware:
    /// versions, the P2P matrix with its self-test, what peer residency costs (measured), per
    /// allocation, whether eviction releases it, whether the driver imports a peer's memory used
    /// without a residency call, what the live probe reads, and Intel's SYCL runtime (found in
    /// the Python environment the command was installed into, `LAZY_USM_SYCL_ROOT`, or
    /// `LD_LIBRARY_PATH`) with the variables its adapters read.
    Doctor,
    /// Run a program under the runtime's residency options and lazy-usm's shim; one table.
    ///
    /// Runs a program once per alternative (the runtime's default on each adapter, its restrict
    /// variable, the v1 adapter's residency variable, the driver's debug keys, the shim, with
    /// and without a host budget) on the simulated platform, and prints one table: exit status,
    /// peak host pinned memory and GTT, residency calls, evictions, refused uses, wall time, and
    /// whether its output matched the default run's. A run that fails shows the last lines of
    /// its standard error; when the program fails under every alternative, `compare` fails.
    Compare {
        /// Measure on this machine's GPUs through the system's loader (DRM fdinfo and
        /// `nr_gpu_active`), even where no Level Zero GPU was found; without a preset or
        /// configuration file this is chosen when one is.
        #[arg(long)]
        measured: bool,
        /// The program and its arguments.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true, required = true)]
        program: Vec<String>,
    },
    /// Run a program on the simulated platform (or through the shim) and print its figures.
    ///
    /// Runs a program on the simulated platform and prints to stderr, when it exits, its peak
    /// host pinned memory, peak VRAM and GTT per device and residency calls:
    /// `lazy-usm run -- python3 x.py`. Every process it starts shares one simulated machine;
    /// for a job of several (DDP ranks), the machine-wide peaks and each process's figures and
    /// end. Exits with the program's exit code.
    Run {
        /// Through lazy-usm's loader shim (lazy peer residency), forwarding to the simulator's
        /// stand-in, or to the system's loader when no preset is given.
        #[arg(long)]
        shim: bool,
        /// Also write the simulator's whole report (of the last process to exit), as JSON, to
        /// this file.
        #[arg(long)]
        report: Option<std::path::PathBuf>,
        /// Also write the machine's report (machine-wide peaks, every process's figures and
        /// end), as JSON, to this file.
        #[arg(long)]
        machine_report: Option<std::path::PathBuf>,
        /// The program and its arguments.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true, required = true)]
        program: Vec<String>,
    },
}

/// What `sim-env` and `run` point a program at: `--preset` or `--sim-config`; else `b70x2`,
/// or with `--shim` the system's loader.
fn target(cli: &Cli, shim: bool) -> sim_env::Target {
    let given = cli.preset.clone().or_else(|| cli.sim_config.clone());
    sim_env::Target {
        platform: if shim {
            given
        } else {
            Some(given.unwrap_or_else(|| "b70x2".into()))
        },
        shim,
    }
}

/// Options of `peer-bench`.
#[derive(clap::Args, Debug)]
struct PeerBenchArgs {
    /// Source and target device, as `0:1` (default: every pair).
    #[arg(long)]
    pair: Option<String>,
    /// Smallest size in bytes (default 8).
    #[arg(long, default_value_t = 8)]
    min: usize,
    /// Largest size in bytes (default 256 MiB).
    #[arg(long, default_value_t = 256 << 20)]
    max: usize,
    /// Copy both ways at once.
    #[arg(long)]
    bidirectional: bool,
    /// Check the bytes that arrived.
    #[arg(long)]
    validate: bool,
    /// Modes: lazy-first, lazy-warm, eager, staged (default: all).
    #[arg(long, value_delimiter = ',')]
    modes: Vec<String>,
    /// Host<->device bandwidth of pageable, registered and driver-host memory instead.
    #[arg(long)]
    host: bool,
    /// Engines that run the copies: copy (blitters, where the device has them) or compute.
    #[arg(long, default_value = "copy")]
    engine: String,
}

fn fail(message: impl std::fmt::Display) -> String {
    message.to_string()
}

/// The runtime the options ask for, and a line saying which it is.
fn runtime(cli: &Cli) -> Result<(Runtime, String), String> {
    // The simulated driver reads compute-runtime's debug keys from the environment, as the
    // real one does.
    let keys = |name: &str| std::env::var(name).ok();
    if let Some(preset) = &cli.preset {
        let config = lazy_usm::ze_sim::SimConfig::preset(preset)
            .ok_or_else(|| format!("no simulator preset `{preset}`"))?
            .with_driver_debug_keys(keys)
            .with_wall_clock_variable(keys)
            .with_kernels_variable(keys)
            .with_checking_variable(keys);
        let runtime = Runtime::simulated_with(config).map_err(fail)?;
        return Ok((
            runtime,
            format!("platform: simulated preset `{preset}` (figures are modelled)"),
        ));
    }
    if let Some(path) = &cli.sim_config {
        let config = lazy_usm::ze_sim::SimConfig::from_name_or_path(path)
            .map_err(fail)?
            .with_driver_debug_keys(keys)
            .with_wall_clock_variable(keys)
            .with_kernels_variable(keys)
            .with_checking_variable(keys);
        let runtime = Runtime::simulated_with(config).map_err(fail)?;
        return Ok((
            runtime,
            format!("platform: simulated from {path} (figures are modelled)"),
        ));
    }
    let (runtime, choice) = Runtime::auto("b70x2").map_err(fail)?;
    let note = match choice.source {
        lazy_usm::Source::System { .. } => {
            format!("platform: {} ({})", choice.source, choice.reason)
        }
        lazy_usm::Source::Simulated { .. } => {
            format!("platform: {} (figures are modelled)", choice.reason)
        }
    };
    Ok((runtime, note))
}

/// Where `compare` runs: the preset or file given; else this machine's GPUs when asked
/// (`--measured`) or when the system's loader finds one; else the simulated `b70x2`. With a
/// line saying which, and why.
fn compare_platform(cli: &Cli, measured: bool) -> Result<(compare::Platform, String), String> {
    let given = cli.preset.clone().or_else(|| cli.sim_config.clone());
    match (given, measured) {
        (Some(_), true) => Err(
            "--measured runs on this machine's GPUs: leave out --preset and --sim-config".into(),
        ),
        (Some(platform), false) => Ok((
            compare::Platform::Simulated(platform.clone()),
            format!("platform: simulated `{platform}` (figures are modelled)"),
        )),
        (None, true) => Ok((
            compare::Platform::Measured,
            "platform: this machine, through the system's loader (--measured)".into(),
        )),
        (None, false) => {
            let (_, choice) = Runtime::auto("b70x2").map_err(fail)?;
            Ok(match choice.source {
                lazy_usm::Source::System { .. } => (
                    compare::Platform::Measured,
                    format!(
                        "platform: {} ({}); figures are measured",
                        choice.source, choice.reason
                    ),
                ),
                lazy_usm::Source::Simulated { .. } => (
                    compare::Platform::Simulated("b70x2".into()),
                    format!("platform: {} (figures are modelled)", choice.reason),
                ),
            })
        }
    }
}

fn parse_policies(names: &[String]) -> Result<Vec<Policy>, String> {
    if names.is_empty() {
        return Ok(Policy::ALL.to_vec());
    }
    names
        .iter()
        .map(|name| name.parse::<Policy>().map_err(fail))
        .collect()
}

fn parse_modes(names: &[String]) -> Result<Vec<PeerMode>, String> {
    if names.is_empty() {
        return Ok(PeerMode::ALL.to_vec());
    }
    names
        .iter()
        .map(|name| {
            PeerMode::ALL
                .into_iter()
                .find(|mode| mode.name() == name)
                .ok_or_else(|| {
                    format!("unknown mode `{name}`; modes: lazy-first, lazy-warm, eager, staged")
                })
        })
        .collect()
}

fn report_json(report: &WorkloadReport) -> Value {
    json!({
        "policy": report.policy.name(),
        "workload": report.workload.name(),
        "host_pinned_bytes": report.host_pinned_bytes,
        "host_pinned_peak_bytes": report.host_pinned_peak_bytes,
        "gtt_bytes": report.gtt_bytes,
        "make_resident_calls": report.make_resident_calls,
        "peer_resident_bytes": report.peer_resident_bytes,
    })
}

fn host_cost_table(reports: &[WorkloadReport]) -> Table {
    let devices = reports.first().map_or(0, |report| report.gtt_bytes.len());
    let mut header = vec!["policy".to_string(), "pinned GiB".into(), "peak GiB".into()];
    header.extend((0..devices).map(|index| format!("GTT{index} GiB")));
    header.push("resident calls".into());
    let mut table = Table::new(header);
    for report in reports {
        let mut row = vec![
            report.policy.name().to_string(),
            report.host_pinned_bytes.map_or("n/a".into(), bytes_gib),
            report
                .host_pinned_peak_bytes
                .map_or("n/a".into(), bytes_gib),
        ];
        row.extend(report.gtt_bytes.iter().map(|&bytes| bytes_gib(bytes)));
        row.push(report.make_resident_calls.to_string());
        table.row(row);
    }
    table
}

fn run_policies(
    runtime: &Runtime,
    workload: Workload,
    policies: &[Policy],
    quiet: bool,
) -> Result<Vec<WorkloadReport>, String> {
    let mut reports = Vec::new();
    for &policy in policies {
        let mut progress = |step: usize| {
            if !quiet {
                eprint!("\r{} / {}: step {step}", workload.name(), policy.name());
            }
        };
        reports.push(run(runtime, workload, policy, &mut progress).map_err(fail)?);
        if !quiet {
            eprintln!();
        }
    }
    Ok(reports)
}

fn report(cli: &Cli, runtime: &Runtime, note: &str) -> Result<(), String> {
    let devices = runtime.devices().map_err(fail)?;
    let context = Context::new(&devices).map_err(fail)?;
    let manager =
        ResidencyManager::new(context.clone(), ResidencyConfig::new(Policy::Lazy)).map_err(fail)?;
    let mut device_rows = Vec::new();
    for device in &devices {
        let properties = device.properties().map_err(fail)?;
        let memory: u64 = device
            .memory_properties()
            .map_err(fail)?
            .iter()
            .map(|m| m.total_size)
            .sum();
        let groups = device.queue_groups().map_err(fail)?;
        let copy_engines: u32 = groups
            .iter()
            .filter(|g| g.is_copy_only())
            .map(|g| g.queues)
            .sum();
        let compute_engines: u32 = groups
            .iter()
            .filter(|g| g.is_compute())
            .map(|g| g.queues)
            .sum();
        device_rows.push((
            device.index(),
            properties,
            memory,
            copy_engines,
            compute_engines,
        ));
    }
    let matrix = p2p_matrix(&manager, &devices).map_err(fail)?;
    let policies: Vec<WorkloadReport> = if devices.len() >= 2 {
        run_policies(runtime, Workload::Seed000, &Policy::ALL, true)?
    } else {
        Vec::new()
    };
    let bandwidth = if devices.len() >= 2 {
        [PeerMode::LazyWarm, PeerMode::Staged]
            .into_iter()
            .map(|mode| {
                let what = PeerCopy {
                    validate: true,
                    ..PeerCopy::new(64 << 20, mode)
                };
                peer_copy(&context, &devices[0], &devices[1], what).map(|s| (mode, s))
            })
            .collect::<lazy_usm::Result<Vec<_>>>()
            .map_err(fail)?
    } else {
        Vec::new()
    };
    if cli.json {
        let value = json!({
            "platform": note,
            "devices": device_rows.iter().map(|(index, p, memory, copy, compute)| json!({
                "index": index, "name": p.name, "vendor_id": p.vendor_id, "device_id": p.device_id,
                "pci_address": p.pci_address.map(|a| a.to_string()), "memory_bytes": memory,
                "copy_engines": copy, "compute_engines": compute,
            })).collect::<Vec<_>>(),
            "p2p": matrix,
            "host_cost": policies.iter().map(report_json).collect::<Vec<_>>(),
            "peer_bandwidth": bandwidth.iter().map(|(mode, s)| json!({
                "mode": mode.name(), "source": 0, "target": 1, "bytes": s.sample.bytes,
                "path": format!("{:?}", s.path), "device_gbps": s.sample.device_gbps(),
                "modelled": s.sample.modelled,
            })).collect::<Vec<_>>(),
        });
        println!("{}", serde_json::to_string_pretty(&value).map_err(fail)?);
        return Ok(());
    }
    println!("{note}\n");
    let mut table = Table::new(vec![
        "device".into(),
        "name".into(),
        "PCI".into(),
        "VRAM GiB".into(),
        "copy engines".into(),
        "compute engines".into(),
    ]);
    for (index, properties, memory, copy, compute) in &device_rows {
        table.row(vec![
            index.to_string(),
            properties.name.clone(),
            properties
                .pci_address
                .map_or("n/a".into(), |a| a.to_string()),
            bytes_gib(*memory),
            copy.to_string(),
            compute.to_string(),
        ]);
    }
    println!("{}", table.render());
    println!(
        "P2P: row reads column's memory (access, atomics, refused, corrupt after the self-test)"
    );
    let mut header = vec!["".to_string()];
    header.extend(devices.iter().map(|d| d.index().to_string()));
    let mut table = Table::new(header);
    for (target, row) in devices.iter().zip(&matrix) {
        let mut cells = vec![target.index().to_string()];
        cells.extend(row.iter().cloned());
        table.row(cells);
    }
    println!("{}", table.render());
    if !policies.is_empty() {
        println!("Host cost: seed 000, 4 GiB on each of devices 0 and 1, nothing shared");
        println!("{}", host_cost_table(&policies).render());
    }
    if !bandwidth.is_empty() {
        let label = if bandwidth[0].1.sample.modelled {
            "GB/s (modelled)"
        } else {
            "GB/s (device time)"
        };
        let mut table = Table::new(vec![
            "peer copy 0 -> 1, 64 MiB".into(),
            "path".into(),
            label.into(),
        ]);
        for (mode, sample) in &bandwidth {
            table.row(vec![
                mode.name().into(),
                format!("{:?}", sample.path),
                sample
                    .sample
                    .device_gbps()
                    .map_or("n/a".into(), |g| format!("{g:.1}")),
            ]);
        }
        println!("{}", table.render());
    }
    Ok(())
}

/// [`link_state`] for every pair: a row per reading device.
pub(crate) fn p2p_matrix(
    manager: &ResidencyManager,
    devices: &[Device],
) -> lazy_usm::Result<Vec<Vec<String>>> {
    devices
        .iter()
        .map(|target| {
            devices
                .iter()
                .map(|source| link_state(manager, target, source))
                .collect()
        })
        .collect()
}

/// What device `target` reading `source`'s memory gives: `self`, `atomics`, `access`,
/// `refused` or `corrupt` (after the self-test).
fn link_state(
    manager: &ResidencyManager,
    target: &Device,
    source: &Device,
) -> lazy_usm::Result<String> {
    if target == source {
        return Ok("self".into());
    }
    let access = target.peer_access(source)?;
    if !access.flags.contains(lazy_usm::PeerAccessFlags::ACCESS) {
        return Ok("refused".into());
    }
    if !manager.self_test(target, source)? {
        return Ok("corrupt".into());
    }
    Ok(
        if access.flags.contains(lazy_usm::PeerAccessFlags::ATOMICS) {
            "atomics"
        } else {
            "access"
        }
        .into(),
    )
}

fn host_cost(
    cli: &Cli,
    runtime: &Runtime,
    note: &str,
    workload: &str,
    plot_path: Option<&str>,
    policies: &[String],
) -> Result<(), String> {
    let workload: Workload = workload.parse().map_err(fail)?;
    let policies = parse_policies(policies)?;
    eprintln!("{note}");
    let reports = run_policies(runtime, workload, &policies, false)?;
    if let Some(path) = plot_path {
        let series: Vec<(String, Vec<u64>)> = reports
            .iter()
            .map(|r| (r.policy.name().to_string(), r.steps.clone()))
            .collect();
        let title = format!(
            "lazy-usm host-cost --workload {}: host pinned memory per step",
            workload.name()
        );
        std::fs::write(path, plot::svg(&title, &series))
            .map_err(|error| format!("cannot write {path}: {error}"))?;
        eprintln!("wrote {path}");
    }
    if cli.json {
        let value = Value::Array(reports.iter().map(report_json).collect());
        println!("{}", serde_json::to_string_pretty(&value).map_err(fail)?);
    } else {
        println!("{note}\n");
        println!("Host cost of workload `{}`", workload.name());
        println!("{}", host_cost_table(&reports).render());
    }
    Ok(())
}

fn sizes(min: usize, max: usize) -> Result<Vec<usize>, String> {
    if min == 0 || min > max {
        return Err(format!(
            "sizes must satisfy 0 < --min <= --max; got {min} and {max}"
        ));
    }
    let mut sizes = Vec::new();
    let mut size = min;
    while size <= max {
        sizes.push(size);
        size = size.checked_mul(2).ok_or("size overflow")?;
    }
    if sizes.last() != Some(&max) {
        sizes.push(max);
    }
    Ok(sizes)
}

fn peer_bench(
    cli: &Cli,
    runtime: &Runtime,
    note: &str,
    args: &PeerBenchArgs,
) -> Result<(), String> {
    let devices = runtime.devices().map_err(fail)?;
    let context = Context::new(&devices).map_err(fail)?;
    let sizes = sizes(args.min, args.max)?;
    let (bidirectional, validate) = (args.bidirectional, args.validate);
    let engine = match args.engine.as_str() {
        "copy" => lazy_usm::EngineChoice::Copy,
        "compute" => lazy_usm::EngineChoice::Compute,
        other => return Err(format!("unknown engine `{other}`; engines: copy, compute")),
    };
    eprintln!("{note}");
    let mut results = Vec::new();
    let mut rows = Vec::new();
    if args.host {
        let total = sizes.len() * 2 * HostKind::ALL.len();
        for direction in [Direction::HostToDevice, Direction::DeviceToHost] {
            for kind in HostKind::ALL {
                for &size in &sizes {
                    eprint!("\rhost bench {}/{total}", results.len() + 1);
                    let sample =
                        host_copy(&context, &devices[0], kind, direction, size).map_err(fail)?;
                    let name = if direction == Direction::HostToDevice {
                        "h2d"
                    } else {
                        "d2h"
                    };
                    results.push(json!({"direction": name, "memory": kind.name(), "bytes": size,
                        "host_gbps": sample.host_gbps(), "device_gbps": sample.device_gbps(), "modelled": sample.modelled}));
                    rows.push((format!("{name} {}", kind.name()), size, sample));
                }
            }
        }
        eprintln!();
    } else {
        let modes = parse_modes(&args.modes)?;
        let pairs: Vec<(usize, usize)> = match args.pair.as_deref() {
            Some(text) => {
                let (a, b) = text
                    .split_once(':')
                    .ok_or_else(|| format!("--pair takes `SOURCE:TARGET`, not `{text}`"))?;
                let parse = |s: &str| {
                    s.parse::<usize>()
                        .map_err(|_| format!("--pair: `{s}` is not a device index"))
                };
                let (a, b) = (parse(a)?, parse(b)?);
                if a >= devices.len() || b >= devices.len() || a == b {
                    return Err(format!(
                        "--pair {a}:{b}: need two different devices below {}",
                        devices.len()
                    ));
                }
                vec![(a, b)]
            }
            None => (0..devices.len())
                .flat_map(|a| {
                    (0..devices.len())
                        .filter(move |&b| b != a)
                        .map(move |b| (a, b))
                })
                .collect(),
        };
        let total = pairs.len() * modes.len() * sizes.len();
        for &(a, b) in &pairs {
            for &mode in &modes {
                for &size in &sizes {
                    eprint!("\rpeer bench {}/{total}", results.len() + 1);
                    let what = PeerCopy {
                        bidirectional,
                        validate,
                        engine,
                        ..PeerCopy::new(size, mode)
                    };
                    let result =
                        peer_copy(&context, &devices[a], &devices[b], what).map_err(fail)?;
                    results.push(json!({"source": a, "target": b, "mode": mode.name(), "bytes": size,
                        "bidirectional": bidirectional, "path": format!("{:?}", result.path),
                        "host_gbps": result.sample.host_gbps(), "device_gbps": result.sample.device_gbps(),
                        "validated": result.validated, "modelled": result.sample.modelled}));
                    rows.push((format!("{a}->{b} {}", mode.name()), size, result.sample));
                }
            }
        }
        eprintln!();
    }
    if cli.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&Value::Array(results)).map_err(fail)?
        );
        return Ok(());
    }
    println!("{note}\n");
    let modelled = rows.first().is_some_and(|row| row.2.modelled);
    let device_label = if modelled {
        "device GB/s (modelled)"
    } else {
        "device GB/s"
    };
    let mut table = Table::new(vec![
        "copy".into(),
        "bytes".into(),
        "host GB/s".into(),
        device_label.into(),
    ]);
    for (name, size, sample) in rows {
        table.row(vec![
            name,
            size.to_string(),
            format!("{:.3}", sample.host_gbps()),
            sample
                .device_gbps()
                .map_or("n/a".into(), |g| format!("{g:.3}")),
        ]);
    }
    println!("{}", table.render());
    if modelled {
        println!(
            "host GB/s times the simulator's memcpy on this machine (never faster than the model \
             with ZE_SIM_WALL_CLOCK=1); device GB/s is its timing model."
        );
    }
    Ok(())
}

fn probe(cli: &Cli, pid: Option<u32>) -> Result<(), String> {
    let memory = lazy_usm_tools::probe_process(pid).map_err(fail)?;
    let who = pid.map_or("this process".to_string(), |pid| format!("process {pid}"));
    if cli.json {
        let value = json!({
            "pid": pid,
            "devices": memory.devices.iter().map(|d| json!({"pdev": d.pdev, "driver": d.driver,
                "vram_bytes": d.vram_bytes, "gtt_bytes": d.gtt_bytes, "clients": d.clients})).collect::<Vec<_>>(),
            "gpu_active_bytes": memory.gpu_active_bytes,
        });
        println!("{}", serde_json::to_string_pretty(&value).map_err(fail)?);
        return Ok(());
    }
    println!("DRM memory of {who} (from /proc/<pid>/fdinfo):");
    if memory.devices.is_empty() {
        println!("  no DRM device open");
    }
    let mut table = Table::new(vec![
        "device".into(),
        "driver".into(),
        "VRAM GiB".into(),
        "GTT GiB".into(),
        "fds".into(),
    ]);
    for device in &memory.devices {
        table.row(vec![
            device.pdev.clone(),
            device.driver.clone(),
            bytes_gib(device.vram_bytes),
            bytes_gib(device.gtt_bytes),
            device.clients.to_string(),
        ]);
    }
    println!("{}", table.render());
    match memory.gpu_active_bytes {
        Some(bytes) => println!(
            "pinned by GPU drivers, whole machine (nr_gpu_active): {} GiB",
            bytes_gib(bytes)
        ),
        None => println!("this kernel reports no nr_gpu_active"),
    }
    Ok(())
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let outcome = match &cli.command {
        Command::Probe { pid } => probe(&cli, *pid),
        Command::SimEnv { shim } => sim_env::print_environment(&target(&cli, *shim)),
        Command::Run {
            program,
            report,
            machine_report,
            shim,
        } => {
            let target = target(&cli, *shim);
            let run = sim_env::run(
                &target,
                program,
                cli.json,
                report.as_deref(),
                machine_report.as_deref(),
            );
            return match run {
                Ok(code) => ExitCode::from(code.clamp(0, 255) as u8),
                Err(message) => {
                    eprintln!("lazy-usm: {message}");
                    ExitCode::from(2)
                }
            };
        }
        Command::Compare { measured, program } => {
            let compared = compare_platform(&cli, *measured).and_then(|(platform, note)| {
                if !cli.json {
                    println!("{note}");
                }
                compare::compare(&platform, program, cli.json)
            });
            // 1: the program failed under every alternative; 2: compare itself could not run.
            return match compared {
                Ok(true) => ExitCode::SUCCESS,
                Ok(false) => ExitCode::from(1),
                Err(message) => {
                    eprintln!("lazy-usm: {message}");
                    ExitCode::from(2)
                }
            };
        }
        command => runtime(&cli).and_then(|(runtime, note)| match command {
            Command::Report => report(&cli, &runtime, &note),
            Command::Doctor => doctor::doctor(&runtime, &note, cli.json),
            Command::HostCost {
                workload,
                plot,
                policies,
            } => host_cost(&cli, &runtime, &note, workload, plot.as_deref(), policies),
            Command::PeerBench(args) => peer_bench(&cli, &runtime, &note, args),
            Command::Probe { .. }
            | Command::SimEnv { .. }
            | Command::Run { .. }
            | Command::Compare { .. } => {
                unreachable!("handled above")
            }
        }),
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("lazy-usm: {message}");
            ExitCode::from(2)
        }
    }
}
