//! The exported functions: null checks and pointer reads at the edge, then safe calls on the
//! manager inside `guard`.

use crate::manager::{Kind, LazyUsmManager};
use crate::status::{Failure, LazyUsmStatus, guard};
use lazy_usm_core::{Context, ContextHandle, DeviceHandle, Policy, ResidencyConfig, Runtime};
#[cfg(feature = "simulator")]
use std::ffi::CStr;
use std::ffi::{c_char, c_void};

/// When a peer gets residency of an allocation (see the lazy-usm documentation).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LazyUsmPolicy {
    /// Resident on its owner; on a peer when the peer first uses it through lazy-usm, or when
    /// asked (`lazy_usm_ensure_resident`).
    Lazy = 0,
    /// Resident on every device at once (what SYCL's `malloc_device` does).
    Eager = 1,
    /// Lazy, but only for device pairs enabled with `lazy_usm_enable_peer_access`.
    PeerEnabled = 2,
    /// Only where asked.
    Manual = 3,
}

impl From<LazyUsmPolicy> for Policy {
    fn from(policy: LazyUsmPolicy) -> Self {
        match policy {
            LazyUsmPolicy::Lazy => Policy::Lazy,
            LazyUsmPolicy::Eager => Policy::Eager,
            LazyUsmPolicy::PeerEnabled => Policy::PeerEnabled,
            LazyUsmPolicy::Manual => Policy::Manual,
        }
    }
}

/// A policy as C passes it: any integer, of which only the `LazyUsmPolicy` values are valid
/// (taking the enum itself would make any other value undefined behaviour on the Rust side).
fn policy(value: u32) -> Result<Policy, Failure> {
    let policy = match value {
        0 => LazyUsmPolicy::Lazy,
        1 => LazyUsmPolicy::Eager,
        2 => LazyUsmPolicy::PeerEnabled,
        3 => LazyUsmPolicy::Manual,
        other => {
            return Err(Failure::invalid(format!(
                "policy {other} does not exist (LAZY_USM_POLICY_LAZY 0 to LAZY_USM_POLICY_MANUAL 3)"
            )));
        }
    };
    Ok(policy.into())
}

/// What `lazy_usm_pointer_info` reports about a pointer.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct LazyUsmPointerInfo {
    /// Start of the allocation or pool block containing the pointer.
    pub base: *mut c_void,
    /// Its size in bytes (as asked for).
    pub size: usize,
    /// Index of the device that owns it.
    pub device: u32,
    /// 1 for a pool block (`lazy_usm_pool_alloc`), 0 for a dedicated allocation.
    pub pooled: u32,
    /// Bit i set: resident on device i (for a pool block, its pool segment's residency).
    pub resident_mask: u64,
}

/// What residency has cost the host (`lazy_usm_host_cost`).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct LazyUsmHostCost {
    /// Host memory pinned for peer residency now, in bytes.
    pub current_bytes: u64,
    /// The most it has been.
    pub peak_bytes: u64,
    /// `zeContextMakeMemoryResident` calls made.
    pub make_resident_calls: u64,
    /// `zeContextEvictMemory` calls made.
    pub evict_calls: u64,
}

/// A device pool's figures (`lazy_usm_pool_stats`).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct LazyUsmPoolStats {
    /// Bytes of live blocks.
    pub allocated_bytes: u64,
    /// Bytes of segments held from the driver.
    pub reserved_bytes: u64,
    /// Bytes of idle cached blocks.
    pub cached_bytes: u64,
    /// The most bytes reserved at once.
    pub peak_reserved_bytes: u64,
    /// Allocations served from the cache.
    pub hits: u64,
    /// Allocations that needed new memory.
    pub misses: u64,
}

/// A pool's dealings with the driver (`lazy_usm_pool_driver_counters`,
/// `lazy_usm_xpu_driver_counters`): a struct of its own, so that `LazyUsmPoolStats` keeps the
/// size callers built against.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct LazyUsmDriverCounters {
    /// Segments allocated from the driver (PyTorch's `num_device_alloc`).
    pub driver_allocations: u64,
    /// Segments released to the driver (`num_device_free`).
    pub driver_frees: u64,
    /// Driver allocations retried after the device ran out of memory (`num_alloc_retries`).
    pub allocation_retries: u64,
    /// Out-of-memory errors returned (`num_ooms`).
    pub out_of_memory_errors: u64,
    /// Live segments (`segment.all.current`).
    pub segments: u64,
}

impl LazyUsmDriverCounters {
    pub(crate) fn add(&mut self, stats: &lazy_usm_core::PoolStats) {
        self.driver_allocations += stats.driver_allocations;
        self.driver_frees += stats.driver_frees;
        self.allocation_retries += stats.allocation_retries;
        self.out_of_memory_errors += stats.out_of_memory_errors;
        self.segments += stats.segments;
    }
}

/// The message of this thread's last failed call ("" if none failed yet). The text stays valid
/// until the thread's next failed call; copy it to keep it.
#[unsafe(no_mangle)]
pub extern "C" fn lazy_usm_last_error() -> *const c_char {
    crate::status::last_error()
}

fn manager<'a>(manager: *const LazyUsmManager) -> Result<&'a LazyUsmManager, Failure> {
    // SAFETY: a handle this library returned and the caller has not destroyed (the ABI's
    // contract); null is refused.
    unsafe { manager.as_ref() }.ok_or_else(|| Failure::null("the manager"))
}

fn write<T>(out: *mut T, value: T, what: &str) -> Result<(), Failure> {
    if out.is_null() {
        return Err(Failure::null(what));
    }
    // SAFETY: checked non-null; the caller's output location.
    unsafe { out.write(value) };
    Ok(())
}

fn publish(
    runtime: Runtime,
    context: Context,
    policy: Policy,
    out: *mut *mut LazyUsmManager,
) -> Result<(), Failure> {
    if out.is_null() {
        return Err(Failure::null("the output pointer"));
    }
    let manager = LazyUsmManager::new(runtime, context, ResidencyConfig::new(policy))?;
    write(out, Box::into_raw(Box::new(manager)), "the output pointer")
}

/// Makes a manager over a new context of every GPU of the system's Level Zero loader, under
/// `policy` (a `LazyUsmPolicy` value).
///
/// # Safety
/// `out` must be null or valid for a write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lazy_usm_manager_create(
    policy: u32,
    out: *mut *mut LazyUsmManager,
) -> LazyUsmStatus {
    guard(|| {
        let policy = self::policy(policy)?;
        let runtime = Runtime::system()?;
        let devices = runtime.devices()?;
        let context = Context::new(&devices)?;
        publish(runtime, context, policy, out)
    })
}

/// Makes a manager over a new in-process simulated platform (`preset`: b70x2, b60x4, ...).
///
/// # Safety
/// `preset` must be null or NUL-terminated; `out` null or valid for a write.
#[cfg(feature = "simulator")]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lazy_usm_manager_create_simulated(
    preset: *const c_char,
    policy: u32,
    out: *mut *mut LazyUsmManager,
) -> LazyUsmStatus {
    guard(|| {
        let policy = self::policy(policy)?;
        if preset.is_null() {
            return Err(Failure::null("the preset name"));
        }
        // SAFETY: checked non-null; the caller's NUL-terminated string.
        let preset = unsafe { CStr::from_ptr(preset) }
            .to_string_lossy()
            .into_owned();
        let runtime = Runtime::simulated(&preset)?;
        let devices = runtime.devices()?;
        let context = Context::new(&devices)?;
        publish(runtime, context, policy, out)
    })
}

/// Makes a manager over the host program's own Level Zero context (SYCL's `get_native`, say),
/// through the Level Zero loader the process has already loaded. The context is never
/// destroyed by lazy-usm.
///
/// # Safety
/// `context` must be a live Level Zero context spanning the `device_count` devices at
/// `devices` (null or valid for that many reads), and must outlive the manager; `out` must be
/// null or valid for a write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lazy_usm_manager_adopt(
    context: *mut c_void,
    devices: *const *mut c_void,
    device_count: usize,
    policy: u32,
    out: *mut *mut LazyUsmManager,
) -> LazyUsmStatus {
    guard(|| {
        let policy = self::policy(policy)?;
        if context.is_null() {
            return Err(Failure::null("the context"));
        }
        if devices.is_null() {
            return Err(Failure::null("the device array"));
        }
        if device_count == 0 || device_count > lazy_usm_core::MAX_DEVICES as usize {
            return Err(Failure::invalid(format!(
                "{device_count} devices; a context has 1 to {}",
                lazy_usm_core::MAX_DEVICES
            )));
        }
        // SAFETY: the caller's array of `device_count` handles.
        let handles = unsafe { std::slice::from_raw_parts(devices, device_count) };
        let runtime = Runtime::loaded()?;
        let devices = handles
            .iter()
            .map(|&handle| runtime.device_by_handle(DeviceHandle(handle as _)))
            .collect::<Result<Vec<_>, _>>()?;
        // SAFETY: the caller promises a live context over these devices that outlives the
        // manager.
        let context = unsafe { Context::adopt(ContextHandle(context as _), &devices) }?;
        publish(runtime, context, policy, out)
    })
}

/// Destroys a manager and frees everything it handed out that is still live. Its last call:
/// no other thread may use it during or after this. Null does nothing.
///
/// # Safety
/// `manager` must be null or a handle this library returned and not yet destroyed.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lazy_usm_manager_destroy(manager: *mut LazyUsmManager) {
    if !manager.is_null() {
        // SAFETY: the caller's handle, made by Box::into_raw in `publish`, destroyed once.
        let manager = unsafe { Box::from_raw(manager) };
        let _ = guard(move || {
            drop(manager);
            Ok(())
        });
    }
}

/// The number of devices the manager spans; device indices are 0 to this minus one.
///
/// # Safety
/// `manager` must be null or a live handle; `out` null or valid for a write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lazy_usm_manager_device_count(
    manager: *const LazyUsmManager,
    out: *mut u32,
) -> LazyUsmStatus {
    guard(|| {
        let count = self::manager(manager)?.device_count();
        write(out, count, "the output pointer")
    })
}

/// Runs an allocation on the manager and writes its address to `out` (checked first, so a
/// refused output pointer allocates nothing).
fn allocate(
    manager: *const LazyUsmManager,
    out: *mut *mut c_void,
    allocation: impl FnOnce(&LazyUsmManager) -> Result<usize, Failure>,
) -> LazyUsmStatus {
    guard(|| {
        if out.is_null() {
            return Err(Failure::null("the output pointer"));
        }
        let address = allocation(self::manager(manager)?)?;
        write(out, address as *mut c_void, "the output pointer")
    })
}

/// A dedicated device allocation of `size` bytes on `device`, under the manager's policy.
///
/// # Safety
/// `manager` must be null or a live handle; `out` null or valid for a write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lazy_usm_alloc_device(
    manager: *const LazyUsmManager,
    device: u32,
    size: usize,
    out: *mut *mut c_void,
) -> LazyUsmStatus {
    allocate(manager, out, |manager| manager.alloc_device(device, size))
}

/// `size` bytes of `device`'s memory from the manager's pool for that device.
///
/// # Safety
/// `manager` must be null or a live handle; `out` null or valid for a write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lazy_usm_pool_alloc(
    manager: *const LazyUsmManager,
    device: u32,
    size: usize,
    out: *mut *mut c_void,
) -> LazyUsmStatus {
    allocate(manager, out, |manager| manager.pool_alloc(device, size))
}

/// Frees what `lazy_usm_alloc_device` or `lazy_usm_pool_alloc` returned (its start exactly; an
/// interior pointer is refused). Device work must no longer use it.
///
/// # Safety
/// `manager` must be null or a live handle.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lazy_usm_free(
    manager: *const LazyUsmManager,
    pointer: *mut c_void,
) -> LazyUsmStatus {
    guard(|| {
        if pointer.is_null() {
            return Err(Failure::null("the pointer to free"));
        }
        self::manager(manager)?.free(pointer as usize)
    })
}

/// What `pointer` (any address inside an allocation or block of this manager) points into.
///
/// # Safety
/// `manager` must be null or a live handle; `out` null or valid for a write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lazy_usm_pointer_info(
    manager: *const LazyUsmManager,
    pointer: *const c_void,
    out: *mut LazyUsmPointerInfo,
) -> LazyUsmStatus {
    guard(|| {
        let found = self::manager(manager)?.find(pointer as usize)?;
        let info = LazyUsmPointerInfo {
            base: found.base as *mut c_void,
            size: found.size,
            device: found.owner,
            pooled: u32::from(found.kind == Kind::Block),
            resident_mask: found.resident.bits(),
        };
        write(out, info, "the output pointer")
    })
}

/// Makes the allocation containing `pointer` resident on `device` now (before the program's
/// own kernels on `device` read it); counts against the host budget. For a pool block that is
/// the pool segment holding it (up to 32 MiB by default), which stays resident there while the
/// block lives.
///
/// # Safety
/// `manager` must be null or a live handle.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lazy_usm_ensure_resident(
    manager: *const LazyUsmManager,
    pointer: *const c_void,
    device: u32,
) -> LazyUsmStatus {
    guard(|| self::manager(manager)?.ensure_resident(pointer as usize, device))
}

/// Evicts the dedicated allocation containing `pointer` from peer `device`
/// (`LAZY_USM_STATUS_IN_USE` while work through lazy-usm uses it; refused for its owner, and for
/// pool blocks, whose segment's residency other blocks share).
///
/// # Safety
/// `manager` must be null or a live handle.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lazy_usm_evict(
    manager: *const LazyUsmManager,
    pointer: *const c_void,
    device: u32,
) -> LazyUsmStatus {
    guard(|| self::manager(manager)?.evict(pointer as usize, device))
}

/// Lets `accessor` become a residency target of `owner`'s memory under `PEER_ENABLED`.
///
/// # Safety
/// `manager` must be null or a live handle.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lazy_usm_enable_peer_access(
    manager: *const LazyUsmManager,
    accessor: u32,
    owner: u32,
) -> LazyUsmStatus {
    guard(|| self::manager(manager)?.set_peer_access(accessor, owner, true))
}

/// Undoes `lazy_usm_enable_peer_access`; residency it made automatically goes.
///
/// # Safety
/// `manager` must be null or a live handle.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lazy_usm_disable_peer_access(
    manager: *const LazyUsmManager,
    accessor: u32,
    owner: u32,
) -> LazyUsmStatus {
    guard(|| self::manager(manager)?.set_peer_access(accessor, owner, false))
}

/// What peer residency has cost the host.
///
/// # Safety
/// `manager` must be null or a live handle; `out` null or valid for a write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lazy_usm_host_cost(
    manager: *const LazyUsmManager,
    out: *mut LazyUsmHostCost,
) -> LazyUsmStatus {
    guard(|| {
        let cost = self::manager(manager)?.host_cost();
        let cost = LazyUsmHostCost {
            current_bytes: cost.current_bytes,
            peak_bytes: cost.peak_bytes,
            make_resident_calls: cost.make_resident_calls,
            evict_calls: cost.evict_calls,
        };
        write(out, cost, "the output pointer")
    })
}

/// The figures of `device`'s pool.
///
/// # Safety
/// `manager` must be null or a live handle; `out` null or valid for a write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lazy_usm_pool_stats(
    manager: *const LazyUsmManager,
    device: u32,
    out: *mut LazyUsmPoolStats,
) -> LazyUsmStatus {
    guard(|| {
        let stats = self::manager(manager)?.pool_stats(device)?;
        let stats = LazyUsmPoolStats {
            allocated_bytes: stats.allocated_bytes,
            reserved_bytes: stats.reserved_bytes,
            cached_bytes: stats.cached_bytes,
            peak_reserved_bytes: stats.peak_reserved_bytes,
            hits: stats.hits,
            misses: stats.misses,
        };
        write(out, stats, "the output pointer")
    })
}

/// The pool of `device`'s dealings with the driver: segments allocated and released,
/// allocations retried and out-of-memory errors.
///
/// # Safety
/// `manager` must be null or a live handle; `out` null or valid for a write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lazy_usm_pool_driver_counters(
    manager: *const LazyUsmManager,
    device: u32,
    out: *mut LazyUsmDriverCounters,
) -> LazyUsmStatus {
    guard(|| {
        let stats = self::manager(manager)?.pool_stats(device)?;
        let mut counters = LazyUsmDriverCounters::default();
        counters.add(&stats);
        write(out, counters, "the output pointer")
    })
}

/// Returns the pools' idle memory to the driver; `released` (may be null) gets the bytes.
///
/// # Safety
/// `manager` must be null or a live handle; `released` null or valid for a write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lazy_usm_trim(
    manager: *const LazyUsmManager,
    released: *mut u64,
) -> LazyUsmStatus {
    guard(|| {
        let bytes = self::manager(manager)?.trim()?;
        if !released.is_null() {
            write(released, bytes, "the output pointer")?;
        }
        Ok(())
    })
}

/// Host ranges registered through `lazy_usm_register_host_memory`, by start address.
fn registered_host_memory()
-> &'static std::sync::Mutex<std::collections::HashMap<usize, lazy_usm_core::HostMemory<'static>>> {
    static REGISTERED: std::sync::OnceLock<
        std::sync::Mutex<std::collections::HashMap<usize, lazy_usm_core::HostMemory<'static>>>,
    > = std::sync::OnceLock::new();
    REGISTERED.get_or_init(Default::default)
}

/// The driver registrations go to: the first of the loader already in the process, or, in a
/// process that has loaded none yet (a Python program before dpctl or torch), the one it would
/// load (`libze_loader.so.1` by the dynamic linker's search, which `lazy-usm sim-env` points
/// at the simulator; loaded by that name, it is the copy a SYCL runtime loaded later shares);
/// found once (one runtime, so overlapping ranges are seen as such across calls).
fn registration_driver() -> Result<lazy_usm_core::Driver, Failure> {
    static DRIVER: std::sync::OnceLock<lazy_usm_core::Driver> = std::sync::OnceLock::new();
    if let Some(driver) = DRIVER.get() {
        return Ok(driver.clone());
    }
    let runtime = match Runtime::loaded() {
        Err(lazy_usm_core::Error::Loader(not_loaded)) => {
            Runtime::system().map_err(|error| match error {
                lazy_usm_core::Error::Loader(cannot_load) => Failure::invalid(format!(
                    "no Level Zero loader: {not_loaded}, and loading one failed: {cannot_load}. \
                     Install one (Debian: apt-get install libze1), set LAZY_USM_ZE_LOADER to its \
                     path, or start the program under `lazy-usm run` or after \
                     `eval \"$(lazy-usm sim-env --preset b70x2)\"` for the simulated platform"
                )),
                other => other.into(),
            })
        }
        other => other.map_err(Failure::from),
    }?;
    let driver = runtime
        .drivers()?
        .into_iter()
        .next()
        .ok_or_else(|| Failure::invalid("the Level Zero loader has no driver"))?;
    Ok(DRIVER.get_or_init(|| driver).clone())
}

/// Registers `size` bytes of host memory at `address` (both multiples of 4096) with the Level
/// Zero driver already loaded in this process (the one Intel's SYCL runtime uses), through
/// Intel's host-pointer import, so copies to and from it are direct DMA instead of staged
/// (DeepSpeed's pinned buffers on XPU: seed 004). `LAZY_USM_STATUS_LEVEL_ZERO` with the driver's
/// reason (`lazy_usm_last_error`) when it cannot; the memory stays usable either way.
///
/// # Safety
/// The range must be memory of this process that stays allocated until
/// `lazy_usm_unregister_host_memory(address)`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lazy_usm_register_host_memory(
    address: *mut c_void,
    size: usize,
) -> LazyUsmStatus {
    guard(|| {
        if address.is_null() {
            return Err(Failure::null("the host address"));
        }
        let mut registered = registered_host_memory()
            .lock()
            .unwrap_or_else(|poison| poison.into_inner());
        if registered.contains_key(&(address as usize)) {
            return Err(Failure::invalid(format!(
                "{address:p} is registered already"
            )));
        }
        let driver = registration_driver()?;
        // SAFETY: the caller's range, allocated until it is unregistered (the promise above);
        // this library never reads or writes it.
        let host =
            unsafe { lazy_usm_core::HostMemory::register_raw(&driver, address as *mut u8, size) }?;
        if let lazy_usm_core::Registration::Unregistered(reason) = host.registration() {
            return Err(Failure(LazyUsmStatus::LevelZero, reason.clone()));
        }
        registered.insert(address as usize, host);
        Ok(())
    })
}

/// Undoes `lazy_usm_register_host_memory` for the range at `address`; an error when it is not
/// registered.
///
/// # Safety
/// No device work may still be using the range.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lazy_usm_unregister_host_memory(address: *mut c_void) -> LazyUsmStatus {
    guard(|| {
        let host = registered_host_memory()
            .lock()
            .unwrap_or_else(|poison| poison.into_inner())
            .remove(&(address as usize));
        match host {
            Some(host) => {
                drop(host);
                Ok(())
            }
            None => Err(Failure::invalid(format!("{address:p} is not registered"))),
        }
    })
}
