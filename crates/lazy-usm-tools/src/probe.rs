//! The live probe: what GPU memory a process really uses, from Linux DRM fdinfo and the
//! `nr_gpu_active` node counter: VRAM, GTT, and the pinned host memory that no process counter
//! shows. The same parser reads the simulator's `zesim_fdinfo` text.

#![deny(unsafe_code)]

use lazy_usm::Result;
use std::collections::BTreeMap;
use std::path::Path;

/// Memory figures of one DRM file descriptor (one client of one device), in bytes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DrmClient {
    /// `drm-driver` (`xe`, `i915`, ...).
    pub driver: String,
    /// `drm-pdev`: the device's PCI address.
    pub pdev: String,
    /// `drm-total-vram0`.
    pub total_vram: Option<u64>,
    /// `drm-resident-vram0`.
    pub resident_vram: Option<u64>,
    /// `drm-total-gtt`.
    pub total_gtt: Option<u64>,
    /// `drm-resident-gtt`.
    pub resident_gtt: Option<u64>,
}

/// A device's memory summed over a process's file descriptors to it, in bytes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DeviceMemory {
    /// PCI address.
    pub pdev: String,
    /// DRM driver.
    pub driver: String,
    /// Resident VRAM.
    pub vram_bytes: u64,
    /// Resident GTT: system memory the GPU maps, the peer mirror among it.
    pub gtt_bytes: u64,
    /// How many file descriptors contributed.
    pub clients: usize,
}

/// What [`probe_process`] found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProcessMemory {
    /// One entry per device, by PCI address.
    pub devices: Vec<DeviceMemory>,
    /// `nr_gpu_active` summed over NUMA nodes, in bytes (4 KiB pages); `None` where the kernel
    /// has no such counter.
    pub gpu_active_bytes: Option<u64>,
}

/// A size field (`123 KiB`, `4 MiB`, `17`) in bytes.
fn parse_size(value: &str) -> Option<u64> {
    let mut parts = value.split_whitespace();
    let number: u64 = parts.next()?.parse().ok()?;
    let scale = match parts.next() {
        None => 1,
        Some("KiB") => 1 << 10,
        Some("MiB") => 1 << 20,
        Some("GiB") => 1 << 30,
        Some(_) => return None,
    };
    number.checked_mul(scale)
}

/// Parses one file descriptor's fdinfo text; `None` when it is not a DRM client.
///
/// ```
/// let text = "pos:\t0\ndrm-driver:\txe\ndrm-pdev:\t0000:0e:00.0\ndrm-resident-gtt:\t8913000 KiB\n";
/// let client = lazy_usm_tools::parse_fdinfo(text).unwrap();
/// assert_eq!(client.resident_gtt, Some(8_913_000 * 1024));
/// assert_eq!(client.resident_vram, None);
/// assert!(lazy_usm_tools::parse_fdinfo("pos:\t0\nflags:\t02\n").is_none());
/// ```
pub fn parse_fdinfo(text: &str) -> Option<DrmClient> {
    let mut client = DrmClient::default();
    let mut is_drm = false;
    for line in text.lines() {
        let Some((key, value)) = line.split_once(':') else {
            continue;
        };
        let value = value.trim();
        match key.trim() {
            "drm-driver" => {
                is_drm = true;
                client.driver = value.to_string();
            }
            "drm-pdev" => client.pdev = value.to_string(),
            "drm-total-vram0" => client.total_vram = parse_size(value),
            "drm-resident-vram0" => client.resident_vram = parse_size(value),
            "drm-total-gtt" => client.total_gtt = parse_size(value),
            "drm-resident-gtt" => client.resident_gtt = parse_size(value),
            _ => {}
        }
    }
    is_drm.then_some(client)
}

/// Sums clients per device (a process often holds several file descriptors per device).
///
/// ```
/// let a = lazy_usm_tools::parse_fdinfo("drm-driver: xe\ndrm-pdev: 0000:12:00.0\ndrm-resident-gtt: 4 KiB\n").unwrap();
/// let b = lazy_usm_tools::parse_fdinfo("drm-driver: xe\ndrm-pdev: 0000:12:00.0\ndrm-resident-gtt: 1 MiB\n").unwrap();
/// let devices = lazy_usm_tools::group_by_device([a, b]);
/// assert_eq!((devices.len(), devices[0].gtt_bytes, devices[0].clients), (1, 1024 * 1024 + 4096, 2));
/// ```
pub fn group_by_device(clients: impl IntoIterator<Item = DrmClient>) -> Vec<DeviceMemory> {
    let mut devices: BTreeMap<String, DeviceMemory> = BTreeMap::new();
    for client in clients {
        let entry = devices
            .entry(client.pdev.clone())
            .or_insert_with(|| DeviceMemory {
                pdev: client.pdev.clone(),
                driver: client.driver.clone(),
                ..DeviceMemory::default()
            });
        entry.vram_bytes += client.resident_vram.or(client.total_vram).unwrap_or(0);
        entry.gtt_bytes += client.resident_gtt.or(client.total_gtt).unwrap_or(0);
        entry.clients += 1;
    }
    devices.into_values().collect()
}

/// The `nr_gpu_active` page count of one node's `vmstat` text.
///
/// ```
/// assert_eq!(lazy_usm_tools::parse_gpu_active_pages("nr_free_pages 10\nnr_gpu_active 2048\n"), Some(2048));
/// assert_eq!(lazy_usm_tools::parse_gpu_active_pages("nr_free_pages 10\n"), None);
/// ```
pub fn parse_gpu_active_pages(vmstat: &str) -> Option<u64> {
    vmstat.lines().find_map(|line| {
        let (key, value) = line.split_once(' ')?;
        (key == "nr_gpu_active")
            .then(|| value.trim().parse().ok())
            .flatten()
    })
}

const PAGE_BYTES: u64 = 4096;

/// Reads the DRM fdinfo of a process (`None`: this one) and the nodes' `nr_gpu_active`.
///
/// ```
/// let memory = lazy_usm_tools::probe_process(None)?;
/// // Each device listed is one the process holds a DRM file descriptor to.
/// assert!(memory.devices.iter().all(|device| device.clients > 0));
/// // No such process: a typed error naming what could not be read.
/// let error = lazy_usm_tools::probe_process(Some(u32::MAX)).unwrap_err();
/// assert!(error.to_string().contains("4294967295"), "{error}");
/// # Ok::<(), lazy_usm::Error>(())
/// ```
pub fn probe_process(pid: Option<u32>) -> Result<ProcessMemory> {
    let process = pid.map_or_else(|| "self".to_string(), |pid| pid.to_string());
    probe_paths(
        &Path::new("/proc").join(process).join("fdinfo"),
        Path::new("/sys/devices/system/node"),
    )
}

/// [`probe_process`] on explicit directories (for tests and unusual mounts).
///
/// ```
/// let missing = std::path::Path::new("/nonexistent/fdinfo");
/// assert!(lazy_usm_tools::probe_paths(missing, std::path::Path::new("/nonexistent")).is_err());
/// ```
pub fn probe_paths(fdinfo_dir: &Path, node_dir: &Path) -> Result<ProcessMemory> {
    let entries = std::fs::read_dir(fdinfo_dir).map_err(|error| {
        crate::invalid(format!("cannot read {}: {error}", fdinfo_dir.display()))
    })?;
    let clients = entries
        .filter_map(|entry| entry.ok())
        // A descriptor may close between listing and reading: skip it.
        .filter_map(|entry| std::fs::read_to_string(entry.path()).ok())
        .filter_map(|text| parse_fdinfo(&text));
    let devices = group_by_device(clients);
    let gpu_active_pages = std::fs::read_dir(node_dir).ok().map(|nodes| {
        nodes
            .filter_map(|node| node.ok())
            .filter(|node| node.file_name().to_string_lossy().starts_with("node"))
            .filter_map(|node| std::fs::read_to_string(node.path().join("vmstat")).ok())
            .filter_map(|vmstat| parse_gpu_active_pages(&vmstat))
            .collect::<Vec<_>>()
    });
    Ok(ProcessMemory {
        devices,
        gpu_active_bytes: gpu_active_pages
            .filter(|pages| !pages.is_empty())
            .map(|pages| pages.iter().sum::<u64>() * PAGE_BYTES),
    })
}

/// The peaks of a process's GPU memory over repeated probes (`lazy-usm compare` samples a
/// program while it runs): per device the highest VRAM and GTT seen, and the highest
/// `nr_gpu_active`, which is the whole machine's (so a caller subtracts what it read before the
/// program started).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MemoryPeaks {
    /// One entry per device seen, by PCI address: its peak VRAM and GTT bytes, and the most
    /// file descriptors to it at once.
    pub devices: Vec<DeviceMemory>,
    /// The highest `nr_gpu_active` read, in bytes; `None` where the kernel never reported it.
    pub gpu_active_bytes: Option<u64>,
    /// How many probes were added.
    pub samples: usize,
}

impl MemoryPeaks {
    /// Takes one probe's figures into the peaks.
    ///
    /// ```
    /// use lazy_usm_tools::{DeviceMemory, MemoryPeaks, ProcessMemory};
    /// let device = |gtt_bytes| DeviceMemory { pdev: "0000:03:00.0".into(), gtt_bytes, clients: 1, ..Default::default() };
    /// let mut peaks = MemoryPeaks::default();
    /// peaks.add(&ProcessMemory { devices: vec![device(4096)], gpu_active_bytes: Some(8192) });
    /// peaks.add(&ProcessMemory { devices: vec![device(1024)], gpu_active_bytes: None });
    /// assert_eq!((peaks.devices[0].gtt_bytes, peaks.gpu_active_bytes, peaks.samples), (4096, Some(8192), 2));
    /// ```
    pub fn add(&mut self, sample: &ProcessMemory) {
        self.samples += 1;
        for device in &sample.devices {
            match self
                .devices
                .iter_mut()
                .find(|peak| peak.pdev == device.pdev)
            {
                Some(peak) => {
                    peak.vram_bytes = peak.vram_bytes.max(device.vram_bytes);
                    peak.gtt_bytes = peak.gtt_bytes.max(device.gtt_bytes);
                    peak.clients = peak.clients.max(device.clients);
                }
                None => self.devices.push(device.clone()),
            }
        }
        self.devices.sort_by(|a, b| a.pdev.cmp(&b.pdev));
        if let Some(bytes) = sample.gpu_active_bytes {
            self.gpu_active_bytes =
                Some(self.gpu_active_bytes.map_or(bytes, |peak| peak.max(bytes)));
        }
    }
}
