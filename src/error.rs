//! The one error type of lazy-usm.

use level_zero_sys::{LoadError, ze_result_name, ze_result_t};
use std::fmt;

/// A `ze_result_t` that is not success, printed by name.
///
/// ```
/// use lazy_usm::{ZeResult, sys::ze_result_t};
/// assert_eq!(ZeResult(ze_result_t::ZE_RESULT_NOT_READY).to_string(), "ZE_RESULT_NOT_READY");
/// assert_eq!(ZeResult(ze_result_t(7)).to_string(), "unknown result 0x7");
/// ```
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct ZeResult(pub ze_result_t);

impl fmt::Display for ZeResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match ze_result_name(self.0) {
            Some(name) => write!(f, "{name}"),
            None => write!(f, "unknown result {:#x}", self.0.0),
        }
    }
}

impl fmt::Debug for ZeResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{self} ({:#x})", self.0.0)
    }
}

/// Everything that can go wrong in lazy-usm.
///
/// ```
/// use lazy_usm::{Error, sys::ze_result_t};
/// let error = Error::from_result("zeMemAllocDevice", ze_result_t::ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY);
/// assert!(matches!(error, Error::OutOfDeviceMemory { .. }));
/// assert_eq!(error.to_string(), "zeMemAllocDevice: out of device memory (ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY)");
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A Level Zero call failed with a result that has no variant of its own.
    #[error("{call} failed: {result}")]
    ZeError {
        /// The Level Zero function.
        call: &'static str,
        /// What it returned.
        result: ZeResult,
    },
    /// The device is out of memory.
    #[error("{call}: out of device memory (ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY)")]
    OutOfDeviceMemory {
        /// The Level Zero function.
        call: &'static str,
    },
    /// The host is out of memory (for host USM, or the pinned mirror of peer residency).
    #[error("{call}: out of host memory (ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY)")]
    OutOfHostMemory {
        /// The Level Zero function.
        call: &'static str,
    },
    /// The device was lost (hung, reset or removed); its context is unusable.
    #[error("{call}: device lost (ZE_RESULT_ERROR_DEVICE_LOST)")]
    DeviceLost {
        /// The Level Zero function.
        call: &'static str,
    },
    /// The Level Zero loader could not be loaded or lacks core functions.
    #[error(transparent)]
    Loader(#[from] LoadError),
    /// No usable Level Zero driver or device.
    #[error("no Level Zero GPU: {0}")]
    NoDevice(String),
    /// The simulated platform could not be made.
    #[cfg(feature = "simulator")]
    #[error(transparent)]
    Simulator(#[from] ze_sim::SimError),
    /// Making memory resident on a peer would exceed the host-memory budget for peer residency,
    /// even after evicting every idle peer residency.
    #[error(
        "peer residency of {needed} bytes would exceed the host budget of {budget} bytes \
         ({in_use} in use by residencies that cannot be evicted now)"
    )]
    HostBudgetExceeded {
        /// Bytes the residency needs.
        needed: u64,
        /// The configured budget.
        budget: u64,
        /// Bytes held by peer residencies that could not be evicted.
        in_use: u64,
    },
    /// An offset and length that do not lie inside the memory they address.
    #[error("{role} range {offset}..{end} is outside its {size}-byte buffer", end = *offset as u128 + *len as u128)]
    OutOfRange {
        /// Which operand (`"source"`, `"destination"`, ...).
        role: &'static str,
        /// The offset asked for.
        offset: usize,
        /// The length asked for.
        len: usize,
        /// The size of the memory.
        size: usize,
    },
    /// An alignment that is not a power of two or is larger than any allocation can honour.
    #[error("alignment {alignment} is not a power of two no larger than {max}")]
    BadAlignment {
        /// The alignment asked for.
        alignment: usize,
        /// The largest alignment lazy-usm accepts ([`crate::MAX_ALIGNMENT`]).
        max: usize,
    },
    /// An address or size that must be a multiple of `required` and is not.
    #[error("{what} {value:#x} is not a multiple of {required}")]
    Misaligned {
        /// What was misaligned (`"host address"`, `"length"`, ...).
        what: &'static str,
        /// Its value.
        value: usize,
        /// The multiple it must be.
        required: usize,
    },
    /// A size whose rounding or sum overflows the address space.
    #[error("{what} of {size} bytes overflows the address space")]
    SizeOverflow {
        /// What was being sized.
        what: &'static str,
        /// The size asked for.
        size: usize,
    },
    /// A device that is not one of the context's (or manager's) devices.
    #[error("device {device} is not in this context (devices {devices:?})")]
    DeviceNotInContext {
        /// The device's index on its driver.
        device: u32,
        /// The context's devices, by index on their driver.
        devices: Vec<u32>,
    },
    /// A device index beyond what a [`crate::DeviceSet`] holds.
    #[error("device index {index} is beyond the {limit} devices residency tracking supports")]
    DeviceIndex {
        /// The index.
        index: u32,
        /// [`crate::MAX_DEVICES`].
        limit: u32,
    },
    /// Memory of another context, or of another residency manager or pool.
    #[error("memory at {address:#x} ({len} bytes) belongs to {owner}")]
    ForeignMemory {
        /// Its address.
        address: usize,
        /// Its size.
        len: usize,
        /// Whose it is (`"another context"`, `"another residency manager"`, ...).
        owner: &'static str,
    },
    /// Residency by pointer asked of pool memory, whose residency is its segment's and shared
    /// by the segment's other blocks: go through the block (`ensure_resident_on`), or free it.
    #[error(
        "{address:#x} is pool memory: its residency is its segment's, shared with the segment's \
         other blocks; make the block itself resident (ensure_resident_on), or free it"
    )]
    PoolMemory {
        /// The address asked about.
        address: usize,
    },
    /// No live allocation of this manager (or pool, or registry) contains the address.
    #[error("no live allocation contains {address:#x}")]
    UnknownPointer {
        /// The address asked about.
        address: usize,
    },
    /// An object (event, list, held buffer) of another context or list.
    #[error("{what}: {detail}")]
    ForeignObject {
        /// What kind of object.
        what: &'static str,
        /// Which, and whose.
        detail: String,
    },
    /// Work through lazy-usm still uses the memory, so its residency cannot change now.
    #[error("{pins} uses in flight hold the allocation; evict it once they complete")]
    InUse {
        /// Uses in flight.
        pins: u32,
    },
    /// A configuration field out of its range.
    #[error("config field {field}: {reason}")]
    BadConfig {
        /// The field.
        field: &'static str,
        /// What is wrong with it.
        reason: String,
    },
    /// An argument lazy-usm rejected before calling Level Zero; the message names the values.
    #[error("invalid argument: {0}")]
    InvalidArgument(String),
    /// A module failed to build; the driver's build log says why.
    #[error("module build failed:\n{log}")]
    BuildFailed {
        /// The build log.
        log: String,
    },
    /// The module declares no kernel of this name.
    #[error("the module has no kernel `{name}`")]
    NoSuchKernel {
        /// The name asked for.
        name: String,
    },
    /// A kernel argument the kernel does not take (index beyond its arguments, or wrong size).
    #[error("kernel `{kernel}` takes no {size}-byte argument {index}")]
    BadKernelArgument {
        /// The kernel.
        kernel: String,
        /// The argument's index.
        index: u32,
        /// Its size in bytes.
        size: usize,
    },
    /// `Manual` memory a kernel would read on a device it is not resident on.
    #[error(
        "the allocation of device {owner} is not resident on device {device} (policy Manual: call ensure_resident_on)"
    )]
    NotResident {
        /// The executing device.
        device: u32,
        /// The owning device.
        owner: u32,
    },
    /// `PeerEnabled` memory a kernel would read on a device whose access is not enabled.
    #[error("peer access of device {accessor} to device {owner}'s memory is not enabled")]
    PeerAccessDisabled {
        /// The device that would read.
        accessor: u32,
        /// The owning device.
        owner: u32,
    },
    /// A kernel on `executing` cannot reach `owner`'s memory: the pair has no sound P2P link.
    #[error("device {executing} has no P2P path to device {owner}'s memory (link {link})")]
    NoPeerPath {
        /// The executing device.
        executing: u32,
        /// The owning device.
        owner: u32,
        /// What the pair's link showed.
        link: String,
    },
    /// Device work did not complete within the time lazy-usm waits for it (a
    /// [`WorkFence`](crate::WorkFence) whose `settle` gave up).
    #[error("the work did not complete within {waited:?}")]
    WorkNotComplete {
        /// How long it was waited for.
        waited: std::time::Duration,
    },
    /// lazy-usm broke one of its own invariants: a bug, please report it.
    #[error("internal error (a lazy-usm bug): {0}")]
    Internal(String),
}

/// `Result<T, lazy_usm::Error>`.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// Whether this is the driver refusing to evict a peer's import: `zeContextEvictMemory`
    /// answering `ZE_RESULT_ERROR_INVALID_ARGUMENT`, as every compute-runtime release up to 26.31
    /// does for an allocation another device owns (its `Context::evictMemory` finds a peer's
    /// import only since bfefe31a92). The residency then stays until the memory is freed.
    ///
    /// ```
    /// use lazy_usm::{Error, ZeResult, sys::ze_result_t};
    /// let refused = Error::ZeError {
    ///     call: "zeContextEvictMemory",
    ///     result: ZeResult(ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT),
    /// };
    /// assert!(refused.is_refused_eviction());
    /// assert!(!Error::InvalidArgument("something else".into()).is_refused_eviction());
    /// ```
    pub fn is_refused_eviction(&self) -> bool {
        matches!(
            self,
            Error::ZeError {
                call,
                result: ZeResult(ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT),
            } if *call == level_zero_sys::ZeApi::SYMBOLS.context_evict_memory
        )
    }

    /// The error for a failed Level Zero call.
    ///
    /// ```
    /// use lazy_usm::{Error, sys};
    /// let error = Error::from_result("zeEventHostSynchronize", sys::ze_result_t::ZE_RESULT_ERROR_DEVICE_LOST);
    /// assert!(matches!(error, Error::DeviceLost { .. }));
    /// ```
    pub fn from_result(call: &'static str, result: ze_result_t) -> Self {
        match result {
            ze_result_t::ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY => Self::OutOfDeviceMemory { call },
            ze_result_t::ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY => Self::OutOfHostMemory { call },
            ze_result_t::ZE_RESULT_ERROR_DEVICE_LOST => Self::DeviceLost { call },
            _ => Self::ZeError {
                call,
                result: ZeResult(result),
            },
        }
    }

    /// The `ze_result_t` behind this error, if it came from Level Zero.
    ///
    /// ```
    /// use lazy_usm::Error;
    /// assert_eq!(Error::InvalidArgument("x".into()).ze_result(), None);
    /// ```
    pub fn ze_result(&self) -> Option<ze_result_t> {
        match self {
            Self::ZeError { result, .. } => Some(result.0),
            Self::OutOfDeviceMemory { .. } => {
                Some(ze_result_t::ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY)
            }
            Self::OutOfHostMemory { .. } => Some(ze_result_t::ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY),
            Self::DeviceLost { .. } => Some(ze_result_t::ZE_RESULT_ERROR_DEVICE_LOST),
            _ => None,
        }
    }

    pub(crate) fn invalid(message: impl Into<String>) -> Self {
        Self::InvalidArgument(message.into())
    }
}

/// `Ok(())` for success, the matching [`Error`] otherwise.
pub(crate) fn check(call: &'static str, result: ze_result_t) -> Result<()> {
    if result == ze_result_t::ZE_RESULT_SUCCESS {
        Ok(())
    } else {
        Err(Error::from_result(call, result))
    }
}
