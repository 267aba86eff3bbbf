//! lazy-usm: a residency-aware USM allocator for multi-GPU Level Zero programs.
//!
//! SYCL's `malloc_device` makes every allocation resident on every device of a multi-device
//! context; on recent Intel drivers each peer residency pins a same-sized host allocation. This
//! crate keeps an allocation resident on its owner, and on a peer only when the peer uses it.
//!
//! It has the safe Level Zero layer ([`Runtime`], drivers and devices, contexts, USM buffers,
//! command lists and queues, events, modules and kernels), the residency manager (policies,
//! host budget, host-cost accounting), a caching [`DevicePool`], and copies and kernel
//! launches through the manager that make memory resident where it is used. Without an Intel
//! GPU everything runs on the simulated platform (the `simulator` feature):
//!
//! ```
//! use lazy_usm::{Context, Memory, Runtime};
//! let (runtime, choice) = Runtime::auto("b70x2")?;
//! println!("{}", choice.reason);
//! let devices = runtime.devices()?;
//! let context = Context::new(&devices)?;
//! let mut source = context.alloc_device(&devices[0], 1 << 20, 0)?;
//! let list = context.immediate_list(&devices[0].preferred_copy_engine()?)?;
//! list.fill(&mut source, 0, 1 << 20, &[0xab])?;
//! let mut first = [0u8; 4];
//! list.read(&source, 0, &mut first)?;
//! assert_eq!(first, [0xab; 4]);
//! # Ok::<(), lazy_usm::Error>(())
//! ```

#![warn(missing_docs)]

// The layers:
// - `ze`: the safe Level Zero objects; the only layer that calls Level Zero (its `unsafe` is at
//   the FFI edges). It imports nothing above it: work it queues counts uses of tracked memory
//   through `ze::uses::UseTracking`, which `residency` and `pool` implement.
// - `residency`: which devices an allocation is resident on, by policy, and what it costs;
//   calls `ze` for allocations and residency calls (bookkeeping: no `unsafe`).
// - `pool`: caching allocation per device on top of `residency` (no `unsafe`).
// - `transfer`: copies and kernel launches through the manager, calling `residency` and `ze`
//   (copies are safe code; a launch is `unsafe` only as the caller's contract).
// Measurement, workloads and the fdinfo probe are the `lazy-usm-tools` crate's.
mod error;
mod os;
pub mod pool;
pub mod prelude;
pub mod residency;
pub mod transfer;
pub mod ze;

pub use error::{Error, Result, ZeResult};

// Every public name at the root too, as code written before the modules names them (all but
// the measurement tooling, now the `lazy-usm-tools` crate's); the documentation shows them in
// their modules.
#[doc(hidden)]
pub use lazy_usm_registry::{Entry as RegistryEntry, PointerRegistry, RegistryError};
#[doc(hidden)]
pub use pool::{
    Block, DetachedBlock, DevicePool, FENCE_SETTLE_WAIT, MAX_SEGMENT, PeerResidency, PoolConfig,
    PoolStats, WorkFence, trace,
};
#[doc(hidden)]
pub use residency::{
    DeviceAllocation, DeviceCost, DeviceSet, EngineChoice, HostCost, MAX_DEVICES,
    MAX_STAGING_CHUNK, PointerTarget, Policy, ResidencyConfig, ResidencyHandle, ResidencyManager,
    Resident, SelfTest,
};
#[doc(hidden)]
pub use transfer::{CopyPath, CopyReport, LaunchReport};
#[doc(hidden)]
pub use ze::*;

/// The pointer registry: which allocation an address lies in (shared with the loader shim).
pub use lazy_usm_registry as registry;
/// The generated Level Zero bindings and function table.
pub use level_zero_sys as sys;
/// The simulated platform.
#[cfg(feature = "simulator")]
pub use ze_sim;

#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

#[cfg(doctest)]
#[doc = include_str!("../docs/library.md")]
struct LibraryPageDoctests;

#[cfg(doctest)]
#[doc = include_str!("../docs/pool.md")]
struct PoolPageDoctests;
