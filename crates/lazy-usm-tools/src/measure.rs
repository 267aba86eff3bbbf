//! Bandwidth measurements: peer copies (what level-zero-tests' `ze_peer` measures) and host
//! transfers, timed on the host around the copy and, where the driver gives them, by device
//! timestamps. On the simulator every figure is modelled, and says so.

use lazy_usm::Context;
use lazy_usm::Device;
use lazy_usm::Result;
use lazy_usm::Source;
use lazy_usm::{CopyPath, KernelTimestamp};
use lazy_usm::{HostMemory, PageAlignedBytes, PinnedHostBuffer};
use lazy_usm::{Policy, ResidencyConfig, ResidencyManager};
use std::time::Instant;

/// One timed transfer.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sample {
    /// Bytes moved (both directions for a bidirectional peer copy).
    pub bytes: u64,
    /// Seconds on the host around append + synchronize.
    pub host_seconds: f64,
    /// Seconds between the device timestamps, where the driver gives them.
    pub device_seconds: Option<f64>,
    /// Whether the figures come from the simulator's timing model rather than hardware.
    pub modelled: bool,
}

impl Sample {
    /// GB/s (1e9 bytes per second) by host time.
    ///
    /// ```
    /// let sample = lazy_usm_tools::measure::Sample { bytes: 2_000_000_000, host_seconds: 1.0, device_seconds: Some(0.5), modelled: true };
    /// assert_eq!(sample.host_gbps(), 2.0);
    /// ```
    pub fn host_gbps(&self) -> f64 {
        self.bytes as f64 / 1e9 / self.host_seconds
    }

    /// GB/s by device time.
    ///
    /// ```
    /// let sample = lazy_usm_tools::measure::Sample { bytes: 2_000_000_000, host_seconds: 1.0, device_seconds: Some(0.5), modelled: true };
    /// assert_eq!(sample.device_gbps(), Some(4.0));
    /// ```
    pub fn device_gbps(&self) -> Option<f64> {
        self.device_seconds
            .map(|seconds| self.bytes as f64 / 1e9 / seconds)
    }
}

/// How the source of a peer copy is made reachable.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PeerMode {
    /// `Lazy`, timing the first copy (which makes the source resident on the target).
    LazyFirstTouch,
    /// `Lazy`, timing a copy after the first.
    LazyWarm,
    /// `Eager`: resident everywhere from allocation.
    Eager,
    /// `Manual` without residency: staged through pinned host memory.
    Staged,
}

impl PeerMode {
    /// Every mode.
    pub const ALL: [PeerMode; 4] = [
        PeerMode::LazyFirstTouch,
        PeerMode::LazyWarm,
        PeerMode::Eager,
        PeerMode::Staged,
    ];

    /// Short name (`lazy-first`, `lazy-warm`, `eager`, `staged`).
    ///
    /// ```
    /// assert_eq!(lazy_usm_tools::measure::PeerMode::LazyFirstTouch.name(), "lazy-first");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            PeerMode::LazyFirstTouch => "lazy-first",
            PeerMode::LazyWarm => "lazy-warm",
            PeerMode::Eager => "eager",
            PeerMode::Staged => "staged",
        }
    }
}

/// A peer-copy measurement: the sample and the path the copy took.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PeerSample {
    /// Timing.
    pub sample: Sample,
    /// Path of the (last) copy.
    pub path: CopyPath,
    /// Whether `--validate` checked the bytes (and they were right).
    pub validated: bool,
}

fn seconds(stamp: Option<KernelTimestamp>, frequency: u64) -> Option<f64> {
    stamp
        .filter(|stamp| stamp.end > stamp.start && frequency > 0)
        .map(|stamp| (stamp.end - stamp.start) as f64 / frequency as f64)
}

fn modelled(context: &Context) -> bool {
    matches!(
        context.driver().runtime().source(),
        Source::Simulated { .. }
    )
}

/// What to measure: how much, how, and on which engines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PeerCopy {
    /// Bytes per direction.
    pub size: usize,
    /// How the source is made reachable.
    pub mode: PeerMode,
    /// Copy both ways at once.
    pub bidirectional: bool,
    /// Check the bytes that arrived.
    pub validate: bool,
    /// Copy or compute engines.
    pub engine: lazy_usm::EngineChoice,
}

impl PeerCopy {
    /// `size` bytes one way in `mode` on copy engines, unvalidated.
    ///
    /// ```
    /// let what = lazy_usm_tools::measure::PeerCopy::new(4096, lazy_usm_tools::measure::PeerMode::Eager);
    /// assert!(!what.bidirectional && !what.validate);
    /// ```
    pub fn new(size: usize, mode: PeerMode) -> Self {
        Self {
            size,
            mode,
            bidirectional: false,
            validate: false,
            engine: lazy_usm::EngineChoice::Copy,
        }
    }
}

/// Copies from `source` to `target` (and back at the same time if bidirectional) as `what`
/// says, and times it.
///
/// ```
/// use lazy_usm::{Context, Runtime};
/// use lazy_usm_tools::measure::{PeerCopy, PeerMode, peer_copy};
/// let devices = Runtime::simulated("b70x2")?.devices()?;
/// let context = Context::new(&devices)?;
/// let what = PeerCopy { validate: true, ..PeerCopy::new(64 << 20, PeerMode::LazyWarm) };
/// let result = peer_copy(&context, &devices[0], &devices[1], what)?;
/// assert!(result.sample.modelled && result.validated);
/// let gbps = result.sample.device_gbps().unwrap();
/// assert!((gbps - 28.6).abs() < 0.5, "seed 000's P2P rate, modelled: {gbps}");
/// # Ok::<(), lazy_usm::Error>(())
/// ```
pub fn peer_copy(
    context: &Context,
    source: &Device,
    target: &Device,
    what: PeerCopy,
) -> Result<PeerSample> {
    let PeerCopy {
        size,
        mode,
        bidirectional,
        validate,
        engine,
    } = what;
    if size == 0 {
        return Err(crate::invalid("copy size is 0"));
    }
    let policy = match mode {
        PeerMode::LazyFirstTouch | PeerMode::LazyWarm => Policy::Lazy,
        PeerMode::Eager => Policy::Eager,
        PeerMode::Staged => Policy::Manual,
    };
    let config = ResidencyConfig {
        engine,
        ..ResidencyConfig::new(policy)
    };
    let manager = ResidencyManager::new(context.clone(), config)?;
    let pattern: Vec<u8> = (0..size.min(1 << 20)).map(|i| (i * 13 + 5) as u8).collect();
    let mut a = manager.allocate(source, size)?;
    let mut b = manager.allocate(target, size)?;
    let mut a_back = manager.allocate(source, size)?;
    let mut b_back = manager.allocate(target, size)?;
    manager.write(&mut a, 0, &pattern)?;
    manager.write(&mut b, 0, &pattern)?;
    if source != target && source.can_access_peer(target)? && target.can_access_peer(source)? {
        // The link self-test is part of setting up, not of the copy being timed.
        manager.self_test(target, source)?;
        manager.self_test(source, target)?;
    }
    if mode == PeerMode::LazyWarm {
        manager.copy(&mut b_back, 0, &a, 0, size)?;
        manager.copy(&mut a_back, 0, &b, 0, size)?;
    }
    let frequency = target.properties()?.timestamp_frequency;
    let start = Instant::now();
    let (forward, backward) = if bidirectional {
        std::thread::scope(|scope| {
            let reverse = scope.spawn(|| manager.copy_timed(&mut a_back, 0, &b, 0, size));
            let forward = manager.copy_timed(&mut b_back, 0, &a, 0, size);
            let backward = reverse
                .join()
                .unwrap_or_else(|_| Err(crate::invalid("copy thread panicked")));
            (forward, Some(backward))
        })
    } else {
        (manager.copy_timed(&mut b_back, 0, &a, 0, size), None)
    };
    let host_seconds = start.elapsed().as_secs_f64();
    let forward = forward?;
    let backward = backward.transpose()?;
    let device_seconds = match backward {
        None => seconds(forward.device_time, frequency),
        Some(backward) => forward
            .device_time
            .zip(backward.device_time)
            .and_then(|(f, b)| {
                seconds(
                    Some(KernelTimestamp {
                        start: f.start.min(b.start),
                        end: f.end.max(b.end),
                    }),
                    frequency,
                )
            }),
    };
    let mut validated = false;
    if validate {
        let mut arrived = vec![0u8; pattern.len()];
        manager.read(&b_back, 0, &mut arrived)?;
        if arrived != pattern {
            return Err(crate::invalid(format!(
                "validation failed: device {} -> {} delivered wrong bytes on the {:?} path",
                source.index(),
                target.index(),
                forward.path
            )));
        }
        validated = true;
    }
    Ok(PeerSample {
        sample: Sample {
            bytes: size as u64 * if bidirectional { 2 } else { 1 },
            host_seconds,
            device_seconds,
            modelled: modelled(context),
        },
        path: forward.path,
        validated,
    })
}

/// Host memory for a transfer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum HostKind {
    /// Ordinary pageable memory (a `Vec`): the driver stages it.
    Pageable,
    /// Page-aligned memory registered with the driver (`zexDriverImportExternalPointer`).
    Registered,
    /// The driver's own pinned host allocation.
    DriverHost,
}

impl HostKind {
    /// Every kind.
    pub const ALL: [HostKind; 3] = [
        HostKind::Pageable,
        HostKind::Registered,
        HostKind::DriverHost,
    ];

    /// Short name.
    ///
    /// ```
    /// assert_eq!(lazy_usm_tools::measure::HostKind::DriverHost.name(), "driver-host");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            HostKind::Pageable => "pageable",
            HostKind::Registered => "registered",
            HostKind::DriverHost => "driver-host",
        }
    }
}

/// Direction of a host transfer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Direction {
    /// Host to device.
    HostToDevice,
    /// Device to host.
    DeviceToHost,
}

/// Times one host<->device transfer of `size` bytes with `kind` host memory on `device`'s copy
/// engine.
///
/// ```
/// use lazy_usm::{Context, Runtime};
/// use lazy_usm_tools::measure::{Direction, HostKind, host_copy};
/// let devices = Runtime::simulated("b70x2")?.devices()?;
/// let context = Context::new(&devices)?;
/// let pageable = host_copy(&context, &devices[0], HostKind::Pageable, Direction::HostToDevice, 16 << 20)?;
/// let registered = host_copy(&context, &devices[0], HostKind::Registered, Direction::HostToDevice, 16 << 20)?;
/// assert!(registered.device_gbps().unwrap() > 5.0 * pageable.device_gbps().unwrap());
/// # Ok::<(), lazy_usm::Error>(())
/// ```
pub fn host_copy(
    context: &Context,
    device: &Device,
    kind: HostKind,
    direction: Direction,
    size: usize,
) -> Result<Sample> {
    if size == 0 {
        return Err(crate::invalid("copy size is 0"));
    }
    let list = context.immediate_list(&device.preferred_copy_engine()?)?;
    let mut buffer = context.alloc_device(device, size, 0)?;
    let mut pageable = None;
    let mut pages = None;
    let mut pinned = None;
    // Declared after `pages`, so the registration is released before the pages are freed.
    let mut registration = None;
    let host: &mut [u8] = match kind {
        HostKind::Pageable => pageable.insert(vec![1u8; size]).as_mut_slice(),
        HostKind::Registered => {
            let bytes = pages.insert(PageAlignedBytes::new(size)).as_mut_slice();
            let memory = HostMemory::register(device.driver(), bytes)?;
            registration.insert(memory).as_mut_slice()
        }
        HostKind::DriverHost => pinned
            .insert(PinnedHostBuffer::new(context, size)?)
            .as_mut_slice(),
    };
    let host = &mut host[..size];
    let start = Instant::now();
    match direction {
        Direction::HostToDevice => list.write(&mut buffer, 0, host)?,
        Direction::DeviceToHost => list.read(&buffer, 0, host)?,
    }
    let host_seconds = start.elapsed().as_secs_f64();
    let device_seconds = seconds(
        list.last_timestamp(),
        device.properties()?.timestamp_frequency,
    );
    Ok(Sample {
        bytes: size as u64,
        host_seconds,
        device_seconds,
        modelled: modelled(context),
    })
}
