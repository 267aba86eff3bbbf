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
mod abi;
mod engine;
pub mod loader_test;
mod model;
mod objects;

pub use abi::ddi;
pub use objects::spirv;
pub use objects::zebin;

pub use abi::exports::{
    CONFIG_ENV, global_platform, zesim_counter, zesim_fdinfo, zesim_host_pinned_bytes,
    zesim_host_pinned_peak_bytes,
};
pub use abi::slots::SLOT_COUNT;
pub use engine::platform::Platform;
pub use model::config::{CHECKING_ENV, KERNELS_ENV, WALL_CLOCK_ENV};
pub use model::config::{
    ConfigError, DeviceConfig, Faults, LinkConfig, LinkKind, MirrorMode, PRESET_NAMES, SimConfig,
    TimingModel, compute_runtime_version, parse_pci_address,
};
pub use model::counters::{Counters, DeviceUsage};
pub use model::error::SimError;
pub use model::machine::{
    MACHINE_ENV, MAX_PROCESSES, Machine, MachineDevice, MachineError, MachineFailure,
    MachineReport, ProcessReport, ProcessState,
};
pub use model::queue_groups::{QueueGroup, queue_groups};
pub use model::report::{DeviceReport, Figure, REPORT_ENV, Report};
pub use model::unsupported::{record_unsupported_call, unsupported_calls};
pub use objects::opencl::kernel_runtime;
