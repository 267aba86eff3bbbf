//! PyTorch XPU's pluggable allocator: `lazy_usm_xpu_malloc` and `lazy_usm_xpu_free`, with the
//! signatures `torch.xpu.memory.XPUPluggableAllocator` expects.
//!
//! The first request on a SYCL context adopts the Level Zero context behind it (and the loader
//! the process already loaded); every device of that context gets a pool. A block is resident
//! on its device only, so a tensor costs no host memory until a peer really uses it. A freed
//! block is reused only after the work its queue had been given before the free has completed
//! (a barrier event on that queue), and the free never waits for it.

use crate::exports::LazyUsmPolicy;
use crate::manager::LazyUsmManager;
use crate::status::{Failure, LazyUsmStatus, guard};
use lazy_usm_core::{Context, ContextHandle, DeviceHandle, ResidencyConfig, Runtime, WorkFence};
use std::collections::HashMap;
use std::ffi::{c_char, c_int, c_void};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

unsafe extern "C" {
    fn lazy_usm_sycl_native(
        queue: *mut c_void,
        context: *mut *mut c_void,
        device: *mut *mut c_void,
        devices: *mut *mut c_void,
        device_count: *mut usize,
        message: *mut c_char,
        capacity: usize,
    ) -> c_int;
    fn lazy_usm_sycl_context_retain(queue: *mut c_void) -> *mut c_void;
    fn lazy_usm_sycl_context_release(context: *mut c_void);
    fn lazy_usm_sycl_queue_idle(queue: *mut c_void) -> c_int;
    fn lazy_usm_sycl_barrier(
        queue: *mut c_void,
        message: *mut c_char,
        capacity: usize,
    ) -> *mut c_void;
    fn lazy_usm_sycl_event_done(event: *mut c_void) -> c_int;
    fn lazy_usm_sycl_event_wait(event: *mut c_void) -> c_int;
    fn lazy_usm_sycl_event_release(event: *mut c_void);
}

/// A message buffer for the SYCL side's errors.
struct Message([c_char; 256]);

impl Message {
    fn new() -> Self {
        Self([0; 256])
    }

    fn text(&self) -> String {
        // SAFETY: the SYCL side always NUL-terminates within the buffer (or leaves it zeroed).
        unsafe { std::ffi::CStr::from_ptr(self.0.as_ptr()) }
            .to_string_lossy()
            .into_owned()
    }
}

/// The Level Zero objects behind a SYCL queue.
struct Native {
    context: usize,
    device: usize,
    devices: Vec<usize>,
}

fn native(queue: *mut c_void) -> Result<Native, Failure> {
    if queue.is_null() {
        return Err(Failure::null("the sycl::queue"));
    }
    let mut context = std::ptr::null_mut();
    let mut device = std::ptr::null_mut();
    let mut devices = vec![std::ptr::null_mut(); lazy_usm_core::MAX_DEVICES as usize];
    let mut count = devices.len();
    let mut message = Message::new();
    // SAFETY: PyTorch passes a live sycl::queue*; the outputs are valid, `devices` holds `count`.
    let result = unsafe {
        lazy_usm_sycl_native(
            queue,
            &mut context,
            &mut device,
            devices.as_mut_ptr(),
            &mut count,
            message.0.as_mut_ptr(),
            message.0.len(),
        )
    };
    if result != 0 {
        return Err(Failure::invalid(format!(
            "the SYCL queue: {}",
            message.text()
        )));
    }
    if count > devices.len() {
        return Err(Failure::invalid(format!(
            "the queue's context has {count} devices; lazy-usm handles up to {}",
            devices.len()
        )));
    }
    devices.truncate(count);
    Ok(Native {
        context: context as usize,
        device: device as usize,
        devices: devices.into_iter().map(|device| device as usize).collect(),
    })
}

/// One manager per adopted Level Zero context, until the process exits (PyTorch's allocator
/// is never torn down before).
fn managers() -> &'static Mutex<HashMap<usize, Arc<LazyUsmManager>>> {
    static MANAGERS: OnceLock<Mutex<HashMap<usize, Arc<LazyUsmManager>>>> = OnceLock::new();
    MANAGERS.get_or_init(|| {
        // Registered after the SYCL runtime loaded (it made the queue we were given), so it runs
        // before the runtime's own teardown: the pools go back to the driver while the context
        // they live in still exists.
        // SAFETY: registers a plain function that takes no arguments.
        unsafe { atexit(release_at_exit) };
        Mutex::new(HashMap::new())
    })
}

unsafe extern "C" {
    /// The C library's `atexit`.
    fn atexit(function: extern "C" fn()) -> c_int;
}

/// Set when the process exits: later calls (other threads, static destructors) get nothing.
static EXITING: AtomicBool = AtomicBool::new(false);

/// Frees every pool at process exit (what PyTorch never freed goes too).
extern "C" fn release_at_exit() {
    EXITING.store(true, Ordering::SeqCst);
    let _ = guard(|| {
        let released: Vec<_> = lock(managers()).drain().collect();
        drop(released);
        Ok(())
    });
}

/// A reference to a SYCL context: the adopted Level Zero context lives at least as long.
struct SyclContext(*mut c_void);

// SAFETY: a sycl::context may be copied and destroyed from any thread (SYCL 2020 4.3.2).
unsafe impl Send for SyclContext {}
// SAFETY: as above; it is never used, only held.
unsafe impl Sync for SyclContext {}

impl Drop for SyclContext {
    fn drop(&mut self) {
        // SAFETY: made by lazy_usm_sycl_context_retain, released once.
        unsafe { lazy_usm_sycl_context_release(self.0) };
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|poison| poison.into_inner())
}

/// The manager of the queue's context (adopting it on first use) and the queue device's index.
fn manager_for(queue: *mut c_void) -> Result<(Arc<LazyUsmManager>, u32), Failure> {
    let native = native(queue)?;
    let mut managers = lock(managers());
    let manager = match managers.get(&native.context) {
        Some(manager) => Arc::clone(manager),
        None => {
            let runtime = Runtime::loaded()?;
            let devices = native
                .devices
                .iter()
                .map(|&handle| runtime.device_by_handle(DeviceHandle(handle as _)))
                .collect::<Result<Vec<_>, _>>()?;
            // SAFETY: the caller's live queue.
            let held = unsafe { lazy_usm_sycl_context_retain(queue) };
            if held.is_null() {
                return Err(Failure::invalid("cannot hold the queue's SYCL context"));
            }
            let held = SyclContext(held);
            // SAFETY: the handle spans these devices, and `held` (kept by the manager, dropped
            // after everything it made) keeps the context alive as long as the manager.
            let context = unsafe { Context::adopt(ContextHandle(native.context as _), &devices) }?;
            let config = ResidencyConfig::new(LazyUsmPolicy::Lazy.into());
            let manager = LazyUsmManager::new(runtime, context, config)?.holding(Box::new(held));
            let manager = Arc::new(manager);
            managers.insert(native.context, Arc::clone(&manager));
            manager
        }
    };
    drop(managers);
    let index = native
        .devices
        .iter()
        .position(|&device| device == native.device)
        .ok_or_else(|| Failure::invalid("the queue's device is not in its own context"))?;
    Ok((manager, index as u32))
}

/// A barrier event on a SYCL queue, as a fence for a freed block.
struct QueueBarrier(*mut c_void);

// SAFETY: a sycl::event may be queried, waited on and destroyed from any thread (SYCL 2020,
// 4.3.2: SYCL objects are thread-safe to share).
unsafe impl Send for QueueBarrier {}
// SAFETY: as above.
unsafe impl Sync for QueueBarrier {}

impl WorkFence for QueueBarrier {
    fn is_complete(&self) -> bool {
        // SAFETY: a live event this fence owns.
        unsafe { lazy_usm_sycl_event_done(self.0) == 1 }
    }

    fn settle(&self) -> lazy_usm_core::Result<()> {
        // SAFETY: as above.
        if unsafe { lazy_usm_sycl_event_wait(self.0) } == 0 {
            Ok(())
        } else {
            Err(lazy_usm_core::Error::Internal(
                "waiting on a SYCL event failed".into(),
            ))
        }
    }
}

impl Drop for QueueBarrier {
    fn drop(&mut self) {
        // SAFETY: made by lazy_usm_sycl_barrier, released once.
        unsafe { lazy_usm_sycl_event_release(self.0) };
    }
}

/// PyTorch's `alloc(size, device, queue)`: `size` bytes on the queue's device from lazy-usm's
/// pool, resident there only. Null on failure (PyTorch reports out of memory);
/// `lazy_usm_last_error()` says why.
///
/// # Safety
/// `queue` must be null or a live `sycl::queue*` of the Level Zero backend.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lazy_usm_xpu_malloc(
    size: usize,
    device: c_int,
    queue: *mut c_void,
) -> *mut c_void {
    let mut address = 0;
    let status = guard(|| {
        if EXITING.load(Ordering::SeqCst) {
            return Err(Failure::invalid("the process is exiting"));
        }
        let (manager, index) = manager_for(queue)?;
        // PyTorch's device index counts the GPUs it sees, which may differ from the context's
        // order; the queue's own device is the one that counts.
        let _ = device;
        address = manager.pool_alloc(index, size.max(1))?;
        Ok(())
    });
    if status == LazyUsmStatus::Ok {
        address as *mut c_void
    } else {
        std::ptr::null_mut()
    }
}

/// PyTorch's `free(ptr, size, device, queue)`: the block goes back to its pool, to be reused
/// once the work submitted to `queue` before this call has completed. Never waits. Errors are
/// only recorded (`lazy_usm_last_error()`): PyTorch's free returns nothing.
///
/// # Safety
/// `queue` must be the live `sycl::queue*` the block was allocated on (a null queue is refused
/// and the block stays allocated); `pointer` one `lazy_usm_xpu_malloc` returned.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lazy_usm_xpu_free(
    pointer: *mut c_void,
    size: usize,
    device: c_int,
    queue: *mut c_void,
) {
    let _ = guard(|| {
        let _ = (size, device);
        if pointer.is_null() || EXITING.load(Ordering::SeqCst) {
            // At exit everything was freed already.
            return Ok(());
        }
        let (manager, _) = manager_for(queue)?;
        // Blocks freed earlier whose work has completed go back now, releasing their events
        // (a held SYCL event keeps its context alive).
        manager.reclaim();
        // SAFETY: the caller's live queue.
        if unsafe { lazy_usm_sycl_queue_idle(queue) } == 1 {
            // Nothing submitted before this free is still running: no fence needed.
            return manager.free(pointer as usize);
        }
        let mut message = Message::new();
        // SAFETY: the caller's live queue.
        let event =
            unsafe { lazy_usm_sycl_barrier(queue, message.0.as_mut_ptr(), message.0.len()) };
        if event.is_null() {
            return Err(Failure(
                LazyUsmStatus::LevelZero,
                format!("a barrier on the queue failed: {}", message.text()),
            ));
        }
        manager.free_after(pointer as usize, Arc::new(QueueBarrier(event)))
    });
}
