//! What a simulated platform looks like: devices, links, residency model, timing, faults.
//!
//! A configuration is a preset (named after the machines in the seed reports) or a TOML file
//! with the same fields; missing fields take the `b70x2` preset's values.

use serde::{Deserialize, Serialize};

/// `ZE_SIM_WALL_CLOCK=1`: the loader-driven platform's commands take their modelled time on the
/// wall clock too (`TimingModel::wall_clock`).
pub const WALL_CLOCK_ENV: &str = "ZE_SIM_WALL_CLOCK";

/// `ZE_SIM_CHECKING=1`: the loader-driven platform is in checking mode
/// ([`crate::SimConfig::checking`]): a peer's memory used without residency is refused.
pub const CHECKING_ENV: &str = "ZE_SIM_CHECKING";

/// `ZE_SIM_KERNELS=off`: the loader-driven platform runs no module's kernels for real
/// ([`crate::SimConfig::execute_kernels`]).
pub const KERNELS_ENV: &str = "ZE_SIM_KERNELS";

const GIB: u64 = 1 << 30;

/// What peer residency costs on the host (see DESIGN.md, "The problem, in numbers").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MirrorMode {
    /// compute-runtime 26.09+ on Battlemage: a peer residency grows the peer's GTT and pins the
    /// same number of host bytes (seed 000, seed 001 on 26.22).
    Pinned,
    /// compute-runtime 26.05: the GTT registration exists but host pages stay unpinned (seed 001).
    Registered,
    /// A true P2P fabric: peer residency costs neither GTT nor host memory.
    None,
}

/// What a device pair's peer-to-peer path does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LinkKind {
    /// Peer access and peer atomics.
    Atomics,
    /// Peer access without atomics.
    Access,
    /// No P2P: the kernel refuses P2PDMA across root ports, `zeDeviceCanAccessPeer` is false and
    /// a copy that reads or writes peer memory fails with `ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY`
    /// (0x70000003, the code quoted from GSD-12874 in seed 001).
    Refused,
    /// Reports peer access although the kernel refuses P2PDMA between the pair (across root
    /// ports): a peer's memory is reached through a pinned host copy, so data arrives intact
    /// at the staged rate, and peer residency always pins host memory (seed 003's B60s,
    /// compute-runtime #935 and #980; see the `b60x4` preset).
    #[serde(rename = "host-backed")]
    HostBacked,
    /// Claims access, but data crossing the link arrives as 0xFF bytes (B70 pair behind a
    /// switch with ACS redirect, DESIGN.md).
    Corrupt,
}

/// One simulated GPU.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DeviceConfig {
    /// Device name reported by `zeDeviceGetProperties`.
    pub name: String,
    /// PCI vendor id.
    pub vendor_id: u32,
    /// PCI device id.
    pub device_id: u32,
    /// PCI address, `DDDD:BB:DD.F`.
    pub pci_address: String,
    /// VRAM size in bytes.
    pub memory_bytes: u64,
    /// Largest single allocation (`maxMemAllocSize`); `None` means the VRAM size.
    #[serde(default)]
    pub max_mem_alloc_bytes: Option<u64>,
    /// Queues in command-queue group 0 (compute and copy).
    pub compute_queues: u32,
    /// Queues in the main copy group (compute-runtime's BCS0, the first copy-only ordinal):
    /// 0 or 1; 0 leaves the group out.
    pub copy_queues: u32,
    /// Queues in the linked copy group (compute-runtime's BCS1 to BCS8: 0 to 8), the next
    /// copy-only ordinal (after the main copy group, where there is one); 0 leaves it out.
    #[serde(default)]
    pub linked_copy_queues: u32,
    /// Core clock in MHz.
    pub core_clock_mhz: u32,
    /// The graphics IP version `ze_device_ip_version_ext_t` reports, packed as compute-runtime
    /// packs it: architecture << 22 | release << 14 | revision. Intel's SYCL runtime picks its
    /// newer Level Zero adapter (v2) by default from Xe2 (20.1.0, `0x0500_4000`) on.
    #[serde(default = "xe2_ip_version")]
    pub ip_version: u32,
}

/// Local memory a work-group may have (`maxSharedLocalMemory`): Battlemage's 128 KiB
/// (compute-runtime's `maxProgrammableSlmSize`, `shared/source/xe2_hpg_core/hw_info_bmg.cpp`,
/// made the device's `localMemSize` in `shared/source/device/device_caps.cpp`).
pub(crate) const MAX_SHARED_LOCAL_MEMORY: u32 = 128 << 10;

/// Xe2 (Battlemage), architecture 20 release 1: the B60's and B70's IP version.
const fn xe2_ip_version() -> u32 {
    (20 << 22) | (1 << 14)
}

/// A per-pair override of [`SimConfig::default_link`] (symmetric).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkConfig {
    /// The two device indices.
    pub devices: [u32; 2],
    /// What the pair's link does.
    pub kind: LinkKind,
}

/// Modelled bandwidths (GB/s, 1e9 bytes per second) and latency; event timestamps report the
/// durations these give. Defaults from seed 000 (2x Arc Pro B70 on one PCIe switch).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct TimingModel {
    /// Device-to-device over P2P: 28.6 GB/s measured (seed 000).
    pub p2p_gbps: f64,
    /// Copy within one device's memory: 588 GB/s measured (seed 000).
    pub same_device_gbps: f64,
    /// A copy staged through pageable host memory: ~3 GB/s measured (seed 000).
    pub staged_gbps: f64,
    /// Host USM or registered host memory to or from a device. An assumption, not a
    /// measurement: a PCIe 5.0 x16 link's practical rate.
    pub host_link_gbps: f64,
    /// Fixed cost of every command, in nanoseconds (an assumption).
    pub latency_ns: u64,
    /// Copies, fills and kernels also take their modelled time on the wall clock (the engine
    /// waits out what the host's own work left of it), so a program timing them with a host
    /// clock (`ze_peer`, `lazy-usm peer-bench`) measures the model rather than the host's
    /// memcpy. Off by default, for fast tests; `ZE_SIM_WALL_CLOCK=1` turns it on for the
    /// loader-driven platform.
    pub wall_clock: bool,
}

impl Default for TimingModel {
    fn default() -> Self {
        Self {
            p2p_gbps: 28.6,
            same_device_gbps: 588.0,
            staged_gbps: 3.0,
            host_link_gbps: 24.0,
            latency_ns: 10_000,
            wall_clock: false,
        }
    }
}

/// Faults injected on demand.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Faults {
    /// Device allocations fail with `ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY` once a device's
    /// allocated bytes would exceed this (lower than the VRAM size).
    pub device_memory_limit_bytes: Option<u64>,
    /// Host allocations and pinned peer residency fail with `ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY`
    /// once host pinned bytes would exceed this (lower than [`SimConfig::host_memory_bytes`]).
    pub host_memory_limit_bytes: Option<u64>,
    /// After this many submissions every device is lost: later submissions and allocations
    /// fail with `ZE_RESULT_ERROR_DEVICE_LOST`.
    pub device_lost_after_submissions: Option<u64>,
    /// Each copy and fill takes at least this many real microseconds on its engine, so that
    /// races between host threads and in-flight work show in tests.
    pub command_delay_us: Option<u64>,
    /// The first this many `zeEventHostSynchronize` and `zeFenceHostSynchronize` calls return
    /// `ZE_RESULT_NOT_READY` at once, whatever their timeout (a driver may).
    pub not_ready_waits: Option<u64>,
    /// The first this many `zeEventHostSynchronize` and `zeFenceHostSynchronize` calls fail
    /// with `ZE_RESULT_ERROR_UNKNOWN` at once, while the work goes on.
    pub failed_waits: Option<u64>,
    /// New allocations hold 0xa5 bytes instead of zeros (Level Zero promises no initial
    /// contents), so tests can tell who initialised memory.
    pub dirty_allocations: bool,
}

/// A whole simulated platform.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SimConfig {
    /// Preset or platform name, shown in messages.
    pub name: String,
    /// Driver version reported by `zeDriverGetProperties`.
    pub driver_version: u32,
    /// Host RAM, the ceiling for pinned host memory.
    pub host_memory_bytes: u64,
    /// What peer residency costs on the host.
    pub mirror: MirrorMode,
    /// Without `implicit_peer_import`: a copy or kernel argument that touches device memory
    /// not resident on the executing device is refused (and always counted as a violation);
    /// otherwise it is counted and goes ahead.
    pub strict_residency: bool,
    /// The driver imports a peer's allocation by itself when a copy operand or a kernel's
    /// pointer argument needs it, as compute-runtime does (its `getPeerAllocation`): on in
    /// every preset. A kernel's read through a pointer is not imported (the driver's
    /// indirect-access residency covers only the device's own allocations) and stays a
    /// violation. The import is counted (`implicit_imports`), costs what the import's mirror
    /// costs (see `implicit_import_pins_host`), and lasts until the memory is evicted or freed.
    /// Off in [`SimConfig::checking`], lazy-usm's own tests' mode, where a use the library
    /// forgot to make resident is refused instead. On, a command may also use another
    /// context's memory or kernel, as compute-runtime allows (`cross_context_uses`); off, that
    /// is refused too.
    pub implicit_peer_import: bool,
    /// Whether an implicit import also builds the pinned host mirror (under
    /// `MirrorMode::Pinned`; GTT grows either way). Unknown on real hardware: a parameter.
    pub implicit_import_pins_host: bool,
    /// Peer residency is registered at the residency call (GTT grows) and its pinned host
    /// backing waits for the next kernel launch of the process, which backs every waiting
    /// residency at once and fails when host memory runs out (the launch returns
    /// `ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY`). See the `b60x4` preset for what this rests on.
    pub defer_peer_backing: bool,
    /// Whether opening another allocation's IPC handle on a device other than its owner (an
    /// import, as collectives between ranks do) also pins host memory, under
    /// `MirrorMode::Pinned`; GTT grows either way. Not known publicly for Battlemage: a
    /// parameter.
    pub ipc_import_pins_host: bool,
    /// Commands run on worker threads and complete later; otherwise a submission returns only
    /// once it has completed.
    pub async_execution: bool,
    /// Whether `zeDriverGetExtensionFunctionAddress` offers Intel's `zex` host-pointer import.
    pub zex_extension: bool,
    /// Whether `zeCommandListCreateCloneExp` clones a closed list made with
    /// `ZE_COMMAND_LIST_FLAG_EXP_CLONEABLE` (the experimental extension, advertised then).
    /// compute-runtime answers `ZE_RESULT_ERROR_UNSUPPORTED_FEATURE`
    /// (`level_zero/api/core/ze_cmdlist_api_entrypoints.h`), and so does every preset; on, it
    /// models a driver that implements the specification.
    #[serde(default)]
    pub command_list_clone: bool,
    /// Whether `zeContextEvictMemory` refuses to evict a peer's import of another device's
    /// allocation (`ZE_RESULT_ERROR_INVALID_ARGUMENT`, nothing released; the import goes when the
    /// memory is freed), as every compute-runtime release up to 26.31 does:
    /// `Context::evictMemory` (`level_zero/core/source/context/context.cpp`) looks the pointer up
    /// only among the device's own allocations until bfefe31a92 (2026-08-11, on master, in no
    /// release up to 26.31). Off, eviction releases it, as that commit's driver does. Every
    /// preset but `b70x2-26.31` leaves it off, although their driver versions (26.22 for
    /// `b70x2`) would refuse: so that lazy-usm's eviction paths stay exercised by the tests
    /// that use them. `b70x2-26.31` is the released behaviour.
    #[serde(default)]
    pub peer_eviction_refused: bool,
    /// Whether `zeDeviceCanAccessPeer` and the P2P properties report peer access where the link
    /// has it. Off models compute-runtime's debug key `ForceZeDeviceCanAccessPerReturnValue=0`
    /// (see [`SimConfig::with_driver_debug_keys`]): a copy that reads or writes a peer's memory
    /// not resident on its device then goes through host memory at the staged rate, and a kernel
    /// that reads it is a residency violation.
    pub peer_access_reported: bool,
    /// Whether a module's kernels run for real, built and run by an OpenCL CPU runtime (see
    /// [`crate::kernel_runtime`]); otherwise, or when there is none, a launch of a kernel that
    /// is not a built-in checks its arguments and runs as a no-op, counted in
    /// `kernels_not_executed`. `ZE_SIM_KERNELS=off` turns it off on the loader path.
    pub execute_kernels: bool,
    /// The devices, in enumeration order.
    pub devices: Vec<DeviceConfig>,
    /// Link of every pair not listed in `links`.
    pub default_link: LinkKind,
    /// Per-pair link overrides.
    pub links: Vec<LinkConfig>,
    /// Modelled bandwidths and latency.
    pub timing: TimingModel,
    /// Faults to inject.
    pub faults: Faults,
}

/// Names accepted by [`SimConfig::preset`].
pub const PRESET_NAMES: &[&str] = &[
    "b70x2",
    "b70x2-26.05",
    "b70x2-26.31",
    "b60x4",
    "b60x4-refused",
    "b70x2-acs",
    "xelink",
    "b70x2-faithful",
];

/// Why a configuration could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// Neither a preset name nor a readable file.
    #[error("`{name}` is neither a preset ({presets}) nor a readable file: {source}", presets = PRESET_NAMES.join(", "))]
    Unreadable {
        /// What was given.
        name: String,
        /// Why reading it as a file failed.
        source: std::io::Error,
    },
    /// The TOML does not describe a configuration.
    #[error("invalid simulator configuration: {0}")]
    Parse(#[from] toml::de::Error),
    /// The configuration is inconsistent.
    #[error("invalid simulator configuration: {0}")]
    Invalid(String),
}

/// A compute-runtime release (`26.22.38646`) packed into `driverVersion` as
/// `major << 24 | minor << 16 | build` (the simulator's choice; readers should not decode it).
pub const fn compute_runtime_version(major: u32, minor: u32, build: u32) -> u32 {
    (major << 24) | (minor << 16) | (build & 0xffff)
}

fn b70(pci_address: &str) -> DeviceConfig {
    DeviceConfig {
        name: "Intel(R) Arc(TM) Pro B70 Graphics (simulated)".into(),
        vendor_id: 0x8086,
        // 8086:e223, as seed 001 lists the B70.
        device_id: 0xe223,
        pci_address: pci_address.into(),
        memory_bytes: 32 * GIB,
        max_mem_alloc_bytes: None,
        // The clock is illustrative, not read off a B70. One copy engine, BCS0: Xe2 has a
        // second (BCS8), but the xe kernel driver keeps the highest copy engine for its own
        // page-fault migrations on hardware with USM, as Xe2 is (Linux's xe_pci.c and
        // xe_hw_engine.c), so compute-runtime reports one copy group of one queue.
        compute_queues: 1,
        copy_queues: 1,
        linked_copy_queues: 0,
        core_clock_mhz: 2800,
        ip_version: xe2_ip_version(),
    }
}

/// Four B60s on separate root ports, 60 GiB host (seed 003), joined by `link`.
fn b60x4(name: &str, link: LinkKind, defer_peer_backing: bool, base: &SimConfig) -> SimConfig {
    SimConfig {
        name: name.into(),
        host_memory_bytes: 60 * GIB,
        devices: [
            "0000:03:00.0",
            "0000:23:00.0",
            "0000:43:00.0",
            "0000:63:00.0",
        ]
        .iter()
        .map(|address| DeviceConfig {
            name: "Intel(R) Arc(TM) Pro B60 Graphics (simulated)".into(),
            // Illustrative: no seed gives the B60's device id or PCI addresses.
            device_id: 0xe211,
            memory_bytes: 24 * GIB,
            ..b70(address)
        })
        .collect(),
        default_link: link,
        defer_peer_backing,
        // Through host memory, peer copies move at the staged rate.
        timing: TimingModel {
            p2p_gbps: 0.0,
            ..TimingModel::default()
        },
        ..base.clone()
    }
}

impl Default for SimConfig {
    fn default() -> Self {
        Self::preset("b70x2").expect("b70x2 is a preset")
    }
}

impl SimConfig {
    /// A preset by name (see [`PRESET_NAMES`]).
    ///
    /// ```
    /// let config = ze_sim::SimConfig::preset("b60x4").unwrap();
    /// assert_eq!(config.devices.len(), 4);
    /// assert!(ze_sim::SimConfig::preset("nonesuch").is_none());
    /// ```
    pub fn preset(name: &str) -> Option<Self> {
        // Two B70s on one PCIe switch, 123 GiB host, compute-runtime 26.09+ (seed 000).
        let b70x2 = SimConfig {
            name: "b70x2".into(),
            driver_version: compute_runtime_version(26, 22, 38646),
            host_memory_bytes: 123 * GIB,
            mirror: MirrorMode::Pinned,
            strict_residency: true,
            // Faithful: compute-runtime imports a peer's memory that a command uses.
            implicit_peer_import: true,
            // Assumed, as no public measurement says: the driver's import makes the peer's
            // memory resident the way explicit residency does, which pins host memory of the
            // allocation's size since 26.09 (seed 000). Every preset inherits it; where the
            // mirror pins nothing (26.05's registered mirror, xelink's none) the import pins
            // nothing either, and b60x4 reaches a peer only through pinned host memory anyway.
            implicit_import_pins_host: true,
            // Assumed like the driver's import on use.
            ipc_import_pins_host: true,
            // Seed 000 measured the mirror right after allocation, before any kernel.
            defer_peer_backing: false,
            async_execution: true,
            zex_extension: true,
            command_list_clone: false,
            peer_eviction_refused: false,
            peer_access_reported: true,
            execute_kernels: true,
            devices: vec![b70("0000:0e:00.0"), b70("0000:12:00.0")],
            default_link: LinkKind::Atomics,
            links: Vec::new(),
            timing: TimingModel::default(),
            faults: Faults::default(),
        };
        Some(match name {
            "b70x2" => b70x2,
            // The same pair on compute-runtime 26.05, 64 GiB host (seed 001).
            "b70x2-26.05" => SimConfig {
                name: name.into(),
                driver_version: compute_runtime_version(26, 5, 37020),
                host_memory_bytes: 64 * GIB,
                mirror: MirrorMode::Registered,
                ..b70x2
            },
            // The same pair on the newest release, 26.31: the pinned mirror, and an eviction of
            // a peer's import refused (no release has bfefe31a92 yet).
            "b70x2-26.31" => SimConfig {
                name: name.into(),
                driver_version: compute_runtime_version(26, 31, 39395),
                peer_eviction_refused: true,
                ..b70x2
            },
            // Four B60s on separate root ports, 60 GiB host (seed 003), as the public threads
            // have it:
            // - the kernel refuses P2PDMA across root ports (compute-runtime #935, GSD-12874:
            //   forced P2P there made copies "succeed" with every element wrong), so a peer's
            //   memory is reached through pinned host memory: link `host-backed`;
            // - yet the driver reports peer access there: forcing `zeDeviceCanAccessPeer` to
            //   false removes the host cost on B60s (#980, a 2 x B60 comment on 26.31), so
            //   Intel's runtime makes every allocation resident on every peer;
            // - seed 003: allocation succeeds, the weight broadcast (copies) completes, and
            //   the job dies at its first large kernel with UR_RESULT_ERROR_OUT_OF_RESOURCES.
            //   Modelled: the mirror's pinned backing waits for the first kernel (assumed from
            //   that order: Intel's runtime sets the indirect-access flags on every kernel, so
            //   the kernel's submission makes every allocation of the context resident, while a
            //   copy binds only its operands), and that launch fails when host RAM runs out.
            "b60x4" => b60x4(name, LinkKind::HostBacked, true, &b70x2),
            // The same machine as first modelled: P2P refused and not claimed (peer access
            // reported absent, copies between the pair fail), so no peer residency at all.
            "b60x4-refused" => SimConfig {
                timing: TimingModel {
                    p2p_gbps: 0.0,
                    ..TimingModel::default()
                },
                ..b60x4(name, LinkKind::Refused, false, &b70x2)
            },
            // A B70 pair whose P2P claims access but corrupts data (ACS redirect, DESIGN.md).
            "b70x2-acs" => SimConfig {
                name: name.into(),
                default_link: LinkKind::Corrupt,
                timing: TimingModel {
                    p2p_gbps: 10.9,
                    ..TimingModel::default()
                },
                ..b70x2
            },
            // The name `b70x2` had when only it imported a peer's memory on use, as every
            // preset does now: kept for the scripts and reports that name it.
            "b70x2-faithful" => SimConfig {
                name: name.into(),
                ..b70x2
            },
            // A true P2P fabric: no host mirror at all.
            "xelink" => SimConfig {
                name: name.into(),
                mirror: MirrorMode::None,
                devices: ["0000:3a:00.0", "0000:9a:00.0"]
                    .iter()
                    .map(|address| DeviceConfig {
                        name: "Intel(R) Xe Link GPU (simulated)".into(),
                        // Illustrative: a generic fabric-connected pair, not a measured part.
                        device_id: 0x0bd5,
                        memory_bytes: 64 * GIB,
                        // Xe-HPC's copy engines: BCS0 and eight linked ones (BCS1 to BCS8).
                        linked_copy_queues: 8,
                        // Xe-HPC (12.60): the runtime's older adapter (v1) is its default.
                        ip_version: (12 << 22) | (60 << 14),
                        ..b70(address)
                    })
                    .collect(),
                timing: TimingModel {
                    p2p_gbps: 100.0,
                    ..TimingModel::default()
                },
                ..b70x2
            },
            _ => return None,
        })
    }

    /// Parses a TOML configuration; fields it leaves out take the `b70x2` values.
    ///
    /// ```
    /// let config = ze_sim::SimConfig::from_toml("name = \"mine\"\nmirror = \"registered\"\n").unwrap();
    /// assert_eq!(config.mirror, ze_sim::MirrorMode::Registered);
    /// assert_eq!(config.devices.len(), 2);
    /// ```
    pub fn from_toml(text: &str) -> Result<Self, ConfigError> {
        let config: SimConfig = toml::from_str(text)?;
        config.validate()?;
        Ok(config)
    }

    /// The configuration as TOML (accepted back by [`SimConfig::from_toml`]).
    ///
    /// ```
    /// let config = ze_sim::SimConfig::preset("xelink").unwrap();
    /// assert_eq!(ze_sim::SimConfig::from_toml(&config.to_toml()).unwrap(), config);
    /// ```
    pub fn to_toml(&self) -> String {
        toml::to_string(self).unwrap_or_default()
    }

    /// This configuration under compute-runtime's debug keys, as the driver reads them: only
    /// with `NEOReadDebugKeys=1`, then each key by name (`lookup` gives a variable's value; the
    /// loader path passes the process environment).
    ///
    /// - `EnableDeferBacking=0`: peer residency is registered, never backed by pinned host
    ///   memory (as on 26.05). Rests on compute-runtime #953: the pinned mirror came with "defer
    ///   backing" enabled for Battlemage in 26.09, and the key removes it. Assumed: the driver's
    ///   own import on use pins nothing then either.
    /// - `ForceZeDeviceCanAccessPerReturnValue=0`: `zeDeviceCanAccessPeer` answers false, so
    ///   Intel's runtime makes nothing resident on a peer. Rests on compute-runtime #980 (the key
    ///   removes the host cost) and users' reports that peer copies then go through host memory;
    ///   assumed: the driver stages such copies itself, needing no residency.
    ///
    /// ```
    /// use ze_sim::{MirrorMode, SimConfig};
    /// let keys = |name: &str| match name {
    ///     "NEOReadDebugKeys" => Some("1".to_string()),
    ///     "EnableDeferBacking" => Some("0".to_string()),
    ///     _ => None,
    /// };
    /// let config = SimConfig::preset("b70x2").unwrap().with_driver_debug_keys(keys);
    /// assert_eq!(config.mirror, MirrorMode::Registered);
    /// // Without NEOReadDebugKeys=1 the driver reads no key.
    /// let ignored = SimConfig::preset("b70x2").unwrap()
    ///     .with_driver_debug_keys(|name| (name == "EnableDeferBacking").then(|| "0".to_string()));
    /// assert_eq!(ignored.mirror, MirrorMode::Pinned);
    /// ```
    pub fn with_driver_debug_keys(mut self, lookup: impl Fn(&str) -> Option<String>) -> Self {
        let key = |name: &str| lookup(name).map(|value| value.trim().to_string());
        if key("NEOReadDebugKeys").as_deref() != Some("1") {
            return self;
        }
        if key("EnableDeferBacking").as_deref() == Some("0") {
            if self.mirror == MirrorMode::Pinned {
                self.mirror = MirrorMode::Registered;
            }
            self.implicit_import_pins_host = false;
            self.ipc_import_pins_host = false;
        }
        if key("ForceZeDeviceCanAccessPerReturnValue").as_deref() == Some("0") {
            self.peer_access_reported = false;
        }
        self
    }

    /// This configuration with `ZE_SIM_WALL_CLOCK` (`lookup` gives a variable's value): `1`
    /// makes commands take their modelled time on the wall clock too
    /// ([`TimingModel::wall_clock`]).
    ///
    /// ```
    /// let config = ze_sim::SimConfig::preset("b70x2").unwrap()
    ///     .with_wall_clock_variable(|name| (name == "ZE_SIM_WALL_CLOCK").then(|| "1".to_string()));
    /// assert!(config.timing.wall_clock);
    /// assert!(!ze_sim::SimConfig::preset("b70x2").unwrap().with_wall_clock_variable(|_| None).timing.wall_clock);
    /// ```
    pub fn with_wall_clock_variable(mut self, lookup: impl Fn(&str) -> Option<String>) -> Self {
        if lookup(WALL_CLOCK_ENV).as_deref().map(str::trim) == Some("1") {
            self.timing.wall_clock = true;
        }
        self
    }

    /// This configuration in checking mode: a copy or kernel argument reaching a peer's memory
    /// that is not resident on the executing device is refused and counted as a residency
    /// violation, instead of imported as the driver imports it. lazy-usm's own tests run in
    /// it, so that a use the library forgot fails where the driver would hide it.
    ///
    /// ```
    /// let faithful = ze_sim::SimConfig::preset("b70x2").unwrap();
    /// assert!(faithful.implicit_peer_import);
    /// let checking = faithful.checking();
    /// assert!(!checking.implicit_peer_import && checking.strict_residency);
    /// ```
    pub fn checking(mut self) -> Self {
        self.implicit_peer_import = false;
        self.strict_residency = true;
        self
    }

    /// This configuration with `ZE_SIM_CHECKING` (`lookup` gives a variable's value): `1` puts
    /// it in checking mode ([`SimConfig::checking`]).
    ///
    /// ```
    /// let config = ze_sim::SimConfig::preset("b70x2").unwrap()
    ///     .with_checking_variable(|name| (name == "ZE_SIM_CHECKING").then(|| "1".to_string()));
    /// assert!(!config.implicit_peer_import);
    /// ```
    pub fn with_checking_variable(self, lookup: impl Fn(&str) -> Option<String>) -> Self {
        if lookup(CHECKING_ENV).as_deref().map(str::trim) == Some("1") {
            self.checking()
        } else {
            self
        }
    }

    /// This configuration with `ZE_SIM_KERNELS` (`lookup` gives a variable's value): `off`
    /// runs every kernel but the built-ins as a no-op ([`SimConfig::execute_kernels`]).
    ///
    /// ```
    /// let config = ze_sim::SimConfig::preset("b70x2").unwrap()
    ///     .with_kernels_variable(|name| (name == "ZE_SIM_KERNELS").then(|| "off".to_string()));
    /// assert!(!config.execute_kernels);
    /// assert!(ze_sim::SimConfig::preset("b70x2").unwrap().with_kernels_variable(|_| None).execute_kernels);
    /// ```
    pub fn with_kernels_variable(mut self, lookup: impl Fn(&str) -> Option<String>) -> Self {
        if lookup(KERNELS_ENV).as_deref().map(str::trim) == Some("off") {
            self.execute_kernels = false;
        }
        self
    }

    /// The devices a process sees under `ZE_AFFINITY_MASK` (`mask`: comma-separated device
    /// indices, as the driver reads it; `N.0` is device N's only sub-device, and `N.M` for a
    /// larger M names nothing, as the simulated devices have no others), in the machine's
    /// order, with the
    /// links between them; and each one's index in the whole machine. Indices beyond the
    /// machine are ignored, as the driver ignores them; a mask that leaves no device is refused.
    ///
    /// ```
    /// let config = ze_sim::SimConfig::preset("b60x4").unwrap();
    /// let (masked, machine) = config.with_affinity_mask("3,1").unwrap();
    /// assert_eq!(machine, [1, 3]);
    /// assert_eq!(masked.devices[0].pci_address, config.devices[1].pci_address);
    /// assert!(config.with_affinity_mask("7").is_err());
    /// ```
    pub fn with_affinity_mask(&self, mask: &str) -> Result<(SimConfig, Vec<u32>), ConfigError> {
        let mut chosen: Vec<u32> = mask
            .split(',')
            .filter_map(|entry| {
                // Sub-device 0 is the device itself; the simulated devices have no others.
                let (device, sub) = entry.trim().split_once('.').unwrap_or((entry.trim(), "0"));
                (sub == "0").then(|| device.parse::<u32>().ok()).flatten()
            })
            .filter(|&index| (index as usize) < self.devices.len())
            .collect();
        chosen.sort_unstable();
        chosen.dedup();
        if chosen.is_empty() {
            return Err(ConfigError::Invalid(format!(
                "ZE_AFFINITY_MASK `{mask}` names none of the {} devices",
                self.devices.len()
            )));
        }
        let position = |index: u32| chosen.iter().position(|&kept| kept == index);
        let mut masked = self.clone();
        masked.devices = chosen
            .iter()
            .map(|&index| self.devices[index as usize].clone())
            .collect();
        masked.links = self
            .links
            .iter()
            .filter_map(|link| {
                let a = position(link.devices[0])? as u32;
                let b = position(link.devices[1])? as u32;
                Some(LinkConfig {
                    devices: [a, b],
                    kind: link.kind,
                })
            })
            .collect();
        Ok((masked, chosen))
    }

    /// A preset name, or else a path to a TOML file (the form `ZE_SIM_CONFIG` takes).
    ///
    /// ```
    /// assert_eq!(ze_sim::SimConfig::from_name_or_path("xelink").unwrap().mirror, ze_sim::MirrorMode::None);
    /// assert!(ze_sim::SimConfig::from_name_or_path("/nonexistent.toml").is_err());
    /// ```
    pub fn from_name_or_path(value: &str) -> Result<Self, ConfigError> {
        if let Some(config) = Self::preset(value) {
            return Ok(config);
        }
        let text = std::fs::read_to_string(value).map_err(|source| ConfigError::Unreadable {
            name: value.to_string(),
            source,
        })?;
        Self::from_toml(&text)
    }

    /// Checks what serde cannot: device count, link indices, addresses, positive rates.
    ///
    /// ```
    /// let mut config = ze_sim::SimConfig::default();
    /// config.devices[0].pci_address = "bogus".into();
    /// assert!(config.validate().is_err());
    /// ```
    pub fn validate(&self) -> Result<(), ConfigError> {
        let invalid = |message: String| Err(ConfigError::Invalid(message));
        if self.devices.is_empty() || self.devices.len() > 64 {
            return invalid(format!("{} devices; 1 to 64 supported", self.devices.len()));
        }
        for (index, device) in self.devices.iter().enumerate() {
            if parse_pci_address(&device.pci_address).is_none() {
                return invalid(format!(
                    "device {index}: PCI address `{}` is not DDDD:BB:DD.F",
                    device.pci_address
                ));
            }
            if device.memory_bytes == 0 || device.compute_queues == 0 {
                return invalid(format!(
                    "device {index}: memory_bytes and compute_queues must be positive"
                ));
            }
            if device.linked_copy_queues > 8 {
                return invalid(format!(
                    "device {index}: linked_copy_queues is {}, but there are eight linked copy \
                     engines (BCS1 to BCS8) at most",
                    device.linked_copy_queues
                ));
            }
            if device.copy_queues > 1 {
                return invalid(format!(
                    "device {index}: copy_queues is {}, but the main copy group has one engine \
                     (BCS0) at most; give the others as linked_copy_queues",
                    device.copy_queues
                ));
            }
        }
        for link in &self.links {
            let count = self.devices.len() as u32;
            if link.devices[0] >= count || link.devices[1] >= count {
                return invalid(format!(
                    "link {:?} names a device beyond the {count} configured",
                    link.devices
                ));
            }
        }
        let timing = &self.timing;
        for (name, rate) in [
            ("same_device_gbps", timing.same_device_gbps),
            ("staged_gbps", timing.staged_gbps),
            ("host_link_gbps", timing.host_link_gbps),
        ] {
            if rate.is_nan() || rate <= 0.0 {
                return invalid(format!("timing.{name} must be positive, not {rate}"));
            }
        }
        Ok(())
    }

    /// The link between two distinct devices.
    ///
    /// ```
    /// let config = ze_sim::SimConfig::preset("b70x2-acs").unwrap();
    /// assert_eq!(config.link(0, 1), ze_sim::LinkKind::Corrupt);
    /// ```
    pub fn link(&self, a: u32, b: u32) -> LinkKind {
        self.links
            .iter()
            .find(|link| link.devices == [a, b] || link.devices == [b, a])
            .map_or(self.default_link, |link| link.kind)
    }
}

/// Parses `DDDD:BB:DD.F` into (domain, bus, device, function).
///
/// ```
/// assert_eq!(ze_sim::parse_pci_address("0000:0e:00.0"), Some((0, 0x0e, 0, 0)));
/// assert_eq!(ze_sim::parse_pci_address("0e:00.0"), None);
/// ```
pub fn parse_pci_address(address: &str) -> Option<(u32, u32, u32, u32)> {
    let (domain, rest) = address.split_once(':')?;
    let (bus, rest) = rest.split_once(':')?;
    let (device, function) = rest.split_once('.')?;
    let hex = |text: &str, digits: usize| {
        (text.len() == digits)
            .then(|| u32::from_str_radix(text, 16).ok())
            .flatten()
    };
    Some((
        hex(domain, 4)?,
        hex(bus, 2)?,
        hex(device, 2)?,
        hex(function, 1)?,
    ))
}
