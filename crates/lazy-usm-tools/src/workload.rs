//! Workloads that show what a residency policy costs on the host: seed 000's allocations, seed
//! 001's data-parallel reproducer, and tensor-parallel serving. Each runs under one policy and
//! records host pinned memory and GTT after every step.

use lazy_usm::Runtime;
use lazy_usm::{Context, Device};
use lazy_usm::{DeviceAllocation, Policy, ResidencyConfig, ResidencyManager};
use lazy_usm::{Error, Result};

const GIB: usize = 1 << 30;

/// A named workload.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Workload {
    /// Seed 000: 4 GiB on each of two devices, nothing shared.
    Seed000,
    /// Seed 001's reproducer: per rank eight 1 GiB buffers and a 25,000,000-float gradient bucket
    /// exchanged with the peer 50 times.
    Ddp,
    /// Tensor-parallel serving: 8 GiB of weights per device, a 64 MiB activation exchanged each
    /// way per step, 20 steps.
    Tp,
}

impl Workload {
    /// Every workload.
    pub const ALL: [Workload; 3] = [Workload::Seed000, Workload::Ddp, Workload::Tp];

    /// Its name on the command line.
    ///
    /// ```
    /// assert_eq!(lazy_usm_tools::workload::Workload::Tp.name(), "tp");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            Workload::Seed000 => "seed000",
            Workload::Ddp => "ddp",
            Workload::Tp => "tp",
        }
    }
}

impl std::str::FromStr for Workload {
    type Err = Error;

    /// ```
    /// assert_eq!("ddp".parse::<lazy_usm_tools::workload::Workload>()?, lazy_usm_tools::workload::Workload::Ddp);
    /// assert!("sgd".parse::<lazy_usm_tools::workload::Workload>().is_err());
    /// # Ok::<(), lazy_usm::Error>(())
    /// ```
    fn from_str(text: &str) -> Result<Self> {
        Workload::ALL
            .into_iter()
            .find(|workload| workload.name() == text)
            .ok_or_else(|| {
                crate::invalid(format!(
                    "unknown workload `{text}`; workloads: seed000, ddp, tp"
                ))
            })
    }
}

/// What a workload cost under one policy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkloadReport {
    /// The policy.
    pub policy: Policy,
    /// The workload.
    pub workload: Workload,
    /// Host pinned bytes at the end of the workload, before it frees anything (`None` where the
    /// kernel does not report `nr_gpu_active`).
    pub host_pinned_bytes: Option<u64>,
    /// Most host pinned bytes after any step.
    pub host_pinned_peak_bytes: Option<u64>,
    /// GTT bytes per device at the end.
    pub gtt_bytes: Vec<u64>,
    /// `zeContextMakeMemoryResident` calls lazy-usm made.
    pub make_resident_calls: u64,
    /// Peer residency lazy-usm accounted for at the end.
    pub peer_resident_bytes: u64,
    /// Host pinned bytes after each step, for plotting.
    pub steps: Vec<u64>,
}

/// Host pinned bytes (`None` where the kernel does not say) and GTT per device now, from the
/// simulator or, on real hardware, this process's DRM fdinfo and `nr_gpu_active`.
///
/// ```
/// # use lazy_usm::*;
/// # use lazy_usm_tools::workload;
/// let runtime = Runtime::simulated("b70x2")?;
/// let devices = runtime.devices()?;
/// assert_eq!(workload::observe(&runtime, &devices)?, (Some(0), vec![0, 0]));
/// # Ok::<(), Error>(())
/// ```
pub fn observe(runtime: &Runtime, devices: &[Device]) -> Result<(Option<u64>, Vec<u64>)> {
    #[cfg(feature = "simulator")]
    if let Some(platform) = runtime.simulator() {
        let gtt = devices
            .iter()
            .map(|device| {
                platform
                    .device_usage(device.index())
                    .map_or(0, |usage| usage.gtt_bytes)
            })
            .collect();
        return Ok((Some(platform.host_pinned_bytes()), gtt));
    }
    let _ = runtime;
    let memory = crate::probe::probe_process(None)?;
    let mut gtt = Vec::new();
    for device in devices {
        let address = device
            .properties()?
            .pci_address
            .map(|address| address.to_string());
        gtt.push(
            memory
                .devices
                .iter()
                .find(|found| Some(&found.pdev) == address.as_ref())
                .map_or(0, |found| found.gtt_bytes),
        );
    }
    Ok((memory.gpu_active_bytes, gtt))
}

struct Recorder<'a> {
    runtime: &'a Runtime,
    devices: &'a [Device],
    steps: Vec<u64>,
    peak: Option<u64>,
    progress: &'a mut dyn FnMut(usize),
}

impl Recorder<'_> {
    fn step(&mut self) -> Result<()> {
        let (pinned, _) = observe(self.runtime, self.devices)?;
        if let Some(pinned) = pinned {
            self.peak = Some(self.peak.map_or(pinned, |peak| peak.max(pinned)));
        }
        self.steps.push(pinned.unwrap_or(0));
        (self.progress)(self.steps.len());
        Ok(())
    }
}

/// Runs `workload` under `policy` on the first two devices of `runtime`, calling `progress` with
/// the number of steps done.
///
/// ```
/// use lazy_usm::{Policy, Runtime};
/// use lazy_usm_tools::workload::{Workload, run};
/// let runtime = Runtime::simulated("b70x2")?;
/// let eager = run(&runtime, Workload::Seed000, Policy::Eager, &mut |_| {})?;
/// let lazy = run(&runtime, Workload::Seed000, Policy::Lazy, &mut |_| {})?;
/// assert_eq!(eager.host_pinned_bytes, Some(8 << 30));
/// assert_eq!(lazy.host_pinned_bytes, Some(0));
/// # Ok::<(), lazy_usm::Error>(())
/// ```
pub fn run(
    runtime: &Runtime,
    workload: Workload,
    policy: Policy,
    progress: &mut dyn FnMut(usize),
) -> Result<WorkloadReport> {
    let all = runtime.devices()?;
    if all.len() < 2 {
        return Err(Error::NoDevice(format!(
            "workload {} needs two devices; found {}",
            workload.name(),
            all.len()
        )));
    }
    let devices = &all[..2];
    let manager = ResidencyManager::new(Context::new(devices)?, ResidencyConfig::new(policy))?;
    let mut recorder = Recorder {
        runtime,
        devices,
        steps: Vec::new(),
        peak: None,
        progress,
    };
    let mut held: Vec<DeviceAllocation> = Vec::new();
    match workload {
        Workload::Seed000 => {
            for device in devices {
                held.push(manager.allocate(device, 4 * GIB)?);
                recorder.step()?;
            }
        }
        Workload::Ddp => exchange(
            &manager,
            devices,
            &mut held,
            &mut recorder,
            8 * GIB,
            25_000_000 * 4,
            50,
        )?,
        Workload::Tp => exchange(
            &manager,
            devices,
            &mut held,
            &mut recorder,
            8 * GIB,
            64 << 20,
            20,
        )?,
    }
    let (pinned, gtt) = observe(runtime, devices)?;
    let cost = manager.host_cost();
    Ok(WorkloadReport {
        policy,
        workload,
        host_pinned_bytes: pinned,
        host_pinned_peak_bytes: recorder.peak,
        gtt_bytes: gtt,
        make_resident_calls: cost.make_resident_calls,
        peer_resident_bytes: cost.current_bytes,
        steps: recorder.steps,
    })
}

/// Per device: `resident` bytes in 1 GiB buffers, then a `message` buffer sent to the other
/// device `rounds` times (a ring all-reduce's traffic between two ranks).
fn exchange(
    manager: &ResidencyManager,
    devices: &[Device],
    held: &mut Vec<DeviceAllocation>,
    recorder: &mut Recorder<'_>,
    resident: usize,
    message: usize,
    rounds: usize,
) -> Result<()> {
    for device in devices {
        for _ in 0..resident / GIB {
            held.push(manager.allocate(device, GIB)?);
        }
        recorder.step()?;
    }
    // A program that shares these buffers on purpose says so under `PeerEnabled`.
    manager.enable_peer_access(&devices[1], &devices[0])?;
    manager.enable_peer_access(&devices[0], &devices[1])?;
    let mut send: Vec<DeviceAllocation> = Vec::new();
    let mut receive: Vec<DeviceAllocation> = Vec::new();
    for device in devices {
        let mut buffer = manager.allocate(device, message)?;
        manager.write(&mut buffer, 0, &vec![1u8; message.min(1 << 20)])?;
        send.push(buffer);
        receive.push(manager.allocate(device, message)?);
    }
    for _ in 0..rounds {
        let (first, second) = receive.split_at_mut(1);
        manager.copy(&mut second[0], 0, &send[0], 0, message)?;
        manager.copy(&mut first[0], 0, &send[1], 0, message)?;
        recorder.step()?;
    }
    held.extend(send);
    held.extend(receive);
    Ok(())
}
