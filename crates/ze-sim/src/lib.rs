//! ze-sim: a simulated multi-GPU Level Zero driver.
//!
//! No machine that builds lazy-usm has an Intel GPU, so this crate models one closely enough that
//! the library's real code path runs on it: devices with PCI addresses and copy engines, a P2P
//! matrix with refused and corrupting pairs, peer residency that costs GTT and pinned host memory
//! as compute-runtime 26.09+ does, strict residency checks, asynchronous engines, real bytes and
//! fault injection (see DESIGN.md, "The simulated platform").
//!
//! Two ways to use it:
//! - in-process: [`Platform::new`] makes an independent instance; [`Platform::resolve`] gives the
//!   Level Zero entry points that drive it, for `level_zero_sys::ZeApi::from_resolver`;
//! - behind the system loader: built as `libze_sim.so` and loaded with
//!   `ZE_ENABLE_ALT_DRIVERS=/abs/path/libze_sim.so`, configured by `ZE_SIM_CONFIG`; its
//!   accounting is read through `zesim_fdinfo`, `zesim_host_pinned_bytes`, `zesim_host_pinned_peak_bytes` and
//!   `zesim_counter`.
//!
//! ```
//! use level_zero_sys::ZeApi;
//! let platform = ze_sim::Platform::preset("b70x2").unwrap();
//! let resolver = platform.clone();
//! // SAFETY: the simulator's entry points have the signatures the headers declare.
//! let api = unsafe {
//!     ZeApi::from_resolver("ze-sim b70x2", Some(std::sync::Arc::new(platform.clone())),
//!                          move |name| resolver.resolve(name))
//! }.unwrap();
//! let mut count = 0;
//! // SAFETY: plain Level Zero calls with valid pointers.
//! unsafe {
//!     assert_eq!((api.init)(0), level_zero_sys::ze_result_t::ZE_RESULT_SUCCESS);
//!     assert_eq!((api.driver_get)(&mut count, std::ptr::null_mut()),
//!                level_zero_sys::ze_result_t::ZE_RESULT_SUCCESS);
//! }
//! assert_eq!(count, 1);
//! ```

#![warn(missing_docs)]

// The layers, bottom up; each imports only from those below it (`cargo xtask imports check`).
mod model;
mod objects;
mod engine;
mod abi;
pub mod loader_test;

pub use abi::ddi;
pub use objects::spirv;

pub use model::config::{
    ConfigError, DeviceConfig, Faults, LinkConfig, LinkKind, MirrorMode, PRESET_NAMES, SimConfig,
    TimingModel, compute_runtime_version, parse_pci_address,
};
pub use abi::exports::{
    CHECKING_ENV, CONFIG_ENV, KERNELS_ENV, WALL_CLOCK_ENV, global_platform,
    record_unsupported_call, unsupported_calls, zesim_counter, zesim_fdinfo,
    zesim_host_pinned_bytes, zesim_host_pinned_peak_bytes,
};
pub use model::machine::{
    MACHINE_ENV, MAX_PROCESSES, Machine, MachineDevice, MachineError, MachineFailure,
    MachineReport, ProcessReport, ProcessState,
};
pub use objects::opencl::kernel_runtime;
pub use engine::platform::{Counters, DeviceUsage, Platform};
pub use model::report::{DeviceReport, Figure, REPORT_ENV, Report};
pub use abi::slots::SLOT_COUNT;

use level_zero_sys::ze_command_queue_group_property_flag_t as GroupFlag;

/// Why a platform could not be made.
#[derive(Debug, thiserror::Error)]
pub enum SimError {
    /// The configuration is unreadable or inconsistent.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// No preset has this name.
    #[error("no simulator preset `{0}`; presets: {presets}", presets = PRESET_NAMES.join(", "))]
    UnknownPreset(String),
    /// Every in-process platform slot is taken.
    #[error("{0} in-process simulated platforms exist already; drop one first")]
    TooManyPlatforms(usize),
    /// The loader-driven platform could not be made.
    #[error("the loader-driven simulated platform is unavailable: {0}")]
    Global(String),
}

/// One command-queue group of a simulated device.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QueueGroup {
    /// `ze_command_queue_group_property_flags_t`.
    pub flags: u32,
    /// Number of queues (engines) in the group.
    pub queues: u32,
    /// Largest fill pattern its engines take (`maxMemoryFillPatternSize`).
    pub max_fill_pattern_size: usize,
}

/// The command-queue groups of a device, as compute-runtime reports Xe2's
/// (`Device::getCommandQueueGroupProperties`, and `getMaxFillPatternSizeForCopyEngine` for PVC
/// to Xe3P): ordinal 0 computes, copies and runs cooperative kernels, with fill patterns of any
/// size; then, each where the device has its engines, the main copy engine (BCS0) as a group
/// of its own and the linked copy engines as the next group (compute-runtime's `copy` and
/// `linkedCopy` engine groups), both only copying, with one-byte fill patterns. Engines are not
/// shared between groups, so two queues on index 0 of the two copy groups run on different
/// engines. Xe2 presets have BCS0 only; `xelink` has Xe-HPC's eight linked engines too.
///
/// ```
/// let config = ze_sim::SimConfig::preset("b70x2").unwrap();
/// let groups = ze_sim::queue_groups(&config.devices[0]);
/// assert_eq!(groups.len(), 2);
/// assert_eq!(groups[1].queues, 1);
/// assert_eq!((groups[0].max_fill_pattern_size, groups[1].max_fill_pattern_size), (usize::MAX, 1));
/// let xelink = ze_sim::SimConfig::preset("xelink").unwrap();
/// let groups = ze_sim::queue_groups(&xelink.devices[0]);
/// assert_eq!((groups.len(), groups[1].queues, groups[2].queues), (3, 1, 8));
/// ```
pub fn queue_groups(device: &DeviceConfig) -> Vec<QueueGroup> {
    let compute = GroupFlag::ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COMPUTE.0;
    let copy = GroupFlag::ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COPY.0;
    let cooperative = GroupFlag::ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COOPERATIVE_KERNELS.0;
    let mut groups = vec![QueueGroup {
        flags: compute | copy | cooperative,
        queues: device.compute_queues,
        max_fill_pattern_size: usize::MAX,
    }];
    for queues in [device.copy_queues, device.linked_copy_queues] {
        if queues > 0 {
            groups.push(QueueGroup {
                flags: copy,
                queues,
                max_fill_pattern_size: 1,
            });
        }
    }
    groups
}
