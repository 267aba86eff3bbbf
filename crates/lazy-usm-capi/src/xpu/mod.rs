//! PyTorch XPU's pluggable allocator: `lazy_usm_xpu_malloc` and `lazy_usm_xpu_free`, with the
//! signatures `torch.xpu.memory.XPUPluggableAllocator` expects.
//!
//! The first request on a SYCL context adopts the Level Zero context behind it (and the loader
//! the process already loaded); every device of that context gets a pool. A block is resident
//! on its device only, so a tensor costs no host memory until a peer really uses it. A freed
//! block is reused only after the work its queue had been given before the free has completed
//! (a barrier event on that queue), and the free never waits for it; on an in-order queue, the
//! queue's next allocation of the same size takes it at once (stream order), as PyTorch's own
//! caching allocator reuses a block on its stream.

use crate::exports::{LazyUsmDriverCounters, LazyUsmPolicy};
use crate::manager::{Kept, LazyUsmManager};
use crate::status::{Failure, LazyUsmStatus, guard};
use lazy_usm_core::{Context, ContextHandle, DeviceHandle, ResidencyConfig, Runtime, WorkFence};
use std::collections::HashMap;
use std::ffi::{c_char, c_int, c_void};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
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
    fn lazy_usm_sycl_queue_watch(queue: *mut c_void) -> *mut c_void;
    fn lazy_usm_sycl_queue_watched(queue: *mut c_void, watch: *const c_void) -> c_int;
    fn lazy_usm_sycl_queue_unwatch(watch: *mut c_void);
    fn lazy_usm_sycl_context_retain(queue: *mut c_void) -> *mut c_void;
    fn lazy_usm_sycl_context_release(context: *mut c_void);
    fn lazy_usm_sycl_queue_idle(queue: *mut c_void) -> c_int;
    fn lazy_usm_sycl_queue_in_order(queue: *mut c_void) -> c_int;
    fn lazy_usm_sycl_queue_retain(queue: *mut c_void) -> *mut c_void;
    fn lazy_usm_sycl_queue_release(queue: *mut c_void);
    fn lazy_usm_sycl_queue_same(held: *mut c_void, queue: *mut c_void) -> c_int;
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

/// One manager per adopted Level Zero context, until the process exits (PyTorch's allocator is
/// never torn down before).
type Managers = HashMap<usize, Arc<LazyUsmManager>>;

fn managers() -> &'static Mutex<Managers> {
    static MANAGERS: OnceLock<Mutex<Managers>> = OnceLock::new();
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

/// Bytes handed to PyTorch and not yet freed, by device (the queue's place in its context), and
/// the most there have been: PyTorch's `memory_allocated`, which drops at its free even when the
/// block waits for its queue before it is reused.
static IN_USE: [AtomicU64; lazy_usm_core::MAX_DEVICES as usize] =
    [const { AtomicU64::new(0) }; lazy_usm_core::MAX_DEVICES as usize];
static PEAK_IN_USE: [AtomicU64; lazy_usm_core::MAX_DEVICES as usize] =
    [const { AtomicU64::new(0) }; lazy_usm_core::MAX_DEVICES as usize];

fn handed_out(device: u32, size: usize) {
    if let (Some(now), Some(peak)) = (
        IN_USE.get(device as usize),
        PEAK_IN_USE.get(device as usize),
    ) {
        let after = now.fetch_add(size as u64, Ordering::AcqRel) + size as u64;
        // Written only for a new peak: most allocations are not one.
        if after > peak.load(Ordering::Acquire) {
            peak.fetch_max(after, Ordering::AcqRel);
        }
    }
}

fn given_back(device: u32, size: usize) {
    if let Some(now) = IN_USE.get(device as usize) {
        let _ = now.fetch_update(Ordering::AcqRel, Ordering::Acquire, |bytes| {
            Some(bytes.saturating_sub(size as u64))
        });
    }
}

/// Set when the process exits: later calls (other threads, static destructors) get nothing.
static EXITING: AtomicBool = AtomicBool::new(false);

/// Frees every pool at process exit (what PyTorch never freed goes too).
extern "C" fn release_at_exit() {
    EXITING.store(true, Ordering::SeqCst);
    let _ = guard(|| {
        // The queues' kept blocks go with their managers (which free what they handed out).
        let caches: Vec<_> = {
            let mut caches = lock(stream_caches());
            let drained = caches.drain().collect();
            publish(&caches);
            drained
        };
        drop(caches);
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

/// Maps keyed by addresses and sizes, with a hasher for integers (SipHash cost about 100
/// instructions a lookup on PyTorch's path).
type FastMap<K, V> = HashMap<K, V, rustc_hash::FxBuildHasher>;

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|poison| poison.into_inner())
}

/// A queue this thread used, with what it was found to run on.
struct KnownQueue {
    queue: usize,
    /// The SYCL side's watch on the queue's object (`lazy_usm_sycl_queue_watch`), owned.
    watch: *mut c_void,
    /// Weak: the managers are freed at exit whatever threads remember them.
    manager: std::sync::Weak<LazyUsmManager>,
    index: u32,
}

impl KnownQueue {
    /// Whether `queue` is the very queue this entry was made for (not another one made at its
    /// address since).
    fn is(&self, queue: *mut c_void) -> bool {
        // SAFETY: the caller's live queue, and this entry's own watch.
        self.queue == queue as usize
            && unsafe { lazy_usm_sycl_queue_watched(queue, self.watch) } == 1
    }
}

impl Drop for KnownQueue {
    fn drop(&mut self) {
        // SAFETY: the watch this entry owns, released once.
        unsafe { lazy_usm_sycl_queue_unwatch(self.watch) };
    }
}

/// How many queues each thread remembers (PyTorch keeps a few streams per device).
const KNOWN_QUEUES: usize = 16;

thread_local! {
    static KNOWN: std::cell::RefCell<Vec<KnownQueue>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// The manager of the queue's context (adopting it on first use) and the queue device's index.
/// Remembered per thread by the queue's address and a watch on its SYCL object, so a call on a
/// known queue costs no reference count of SYCL's and no walk of the native handles; a queue
/// freed and another made at its address does not match (see `lazy_usm_sycl_queue_watch`). An
/// entry whose manager is gone matches nothing.
fn manager_for(queue: *mut c_void) -> Result<(Arc<LazyUsmManager>, u32), Failure> {
    if queue.is_null() {
        return Err(Failure::null("the sycl::queue"));
    }
    let found = KNOWN
        .try_with(|known| {
            let known = known.try_borrow().ok()?;
            let entry = known.iter().find(|entry| entry.is(queue))?;
            Some((entry.manager.upgrade()?, entry.index))
        })
        .ok()
        .flatten();
    if let Some(found) = found {
        return Ok(found);
    }
    let (manager, index) = manager_from_native(queue)?;
    // SAFETY: the caller's live queue.
    let watch = unsafe { lazy_usm_sycl_queue_watch(queue) };
    if !watch.is_null() {
        let entry = KnownQueue {
            queue: queue as usize,
            watch,
            manager: Arc::downgrade(&manager),
            index,
        };
        let _ = KNOWN.try_with(|known| {
            if let Ok(mut known) = known.try_borrow_mut() {
                known.retain(|entry| entry.queue != queue as usize);
                if known.len() >= KNOWN_QUEUES {
                    known.remove(0);
                }
                known.push(entry);
            }
        });
    }
    Ok((manager, index))
}

/// [`manager_for`] the long way: the queue's native handles.
fn manager_from_native(queue: *mut c_void) -> Result<(Arc<LazyUsmManager>, u32), Failure> {
    let native = native(queue)?;
    let mut managers = lock(managers());
    // Checked under the lock release_at_exit empties: no manager is made after it ran.
    if EXITING.load(Ordering::SeqCst) {
        return Err(Failure::invalid("the process is exiting"));
    }
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

/// Barrier events made for frees, and allocations served by a block its in-order queue freed
/// (each a barrier event saved), for `lazy_usm_xpu_counters`.
static BARRIERS: AtomicU64 = AtomicU64::new(0);
static SAME_QUEUE_REUSES: AtomicU64 = AtomicU64::new(0);

/// The most a queue keeps for its own reuse: beyond it, frees take the barrier path.
const STREAM_CACHE_BLOCKS: usize = 256;
const STREAM_CACHE_BYTES: usize = 1 << 30;

/// A reference to a SYCL queue, which keeps it alive (a cached block's work ran on it).
struct HeldQueue(*mut c_void);

// SAFETY: a sycl::queue may be copied, used and destroyed from any thread (SYCL 2020, 4.3.2).
unsafe impl Send for HeldQueue {}

impl Drop for HeldQueue {
    fn drop(&mut self) {
        // SAFETY: made by lazy_usm_sycl_queue_retain, released once.
        unsafe { lazy_usm_sycl_queue_release(self.0) };
    }
}

/// Blocks an in-order queue freed while it had work: work submitted to that queue later runs
/// after the work that used them, so the queue's next allocation of the same size may take one
/// at once. They stay handed out by the manager until reused or given back.
struct StreamCache {
    queue: HeldQueue,
    manager: Arc<LazyUsmManager>,
    by_size: FastMap<usize, Vec<usize>>,
    blocks: usize,
    bytes: usize,
}

impl StreamCache {
    /// Gives every block back: at once if the queue is idle, else behind one barrier event.
    fn give_back(mut self) -> Result<(), Failure> {
        let blocks: Vec<usize> = self
            .by_size
            .drain()
            .flat_map(|(_, blocks)| blocks)
            .collect();
        if blocks.is_empty() {
            return Ok(());
        }
        // Every block is given back even if one fails (the first failure is reported).
        let first_failure =
            |results: Vec<Result<(), Failure>>| results.into_iter().find(Result::is_err);
        // SAFETY: the queue this cache holds.
        let failure = if unsafe { lazy_usm_sycl_queue_idle(self.queue.0) } == 1 {
            first_failure(
                blocks
                    .into_iter()
                    .map(|block| self.manager.free(block))
                    .collect(),
            )
        } else {
            let fence: Arc<dyn WorkFence> = Arc::new(barrier(self.queue.0)?);
            first_failure(
                blocks
                    .into_iter()
                    .map(|block| {
                        self.manager
                            .free_after(block, Arc::clone(&fence), Kept::Take)
                            .map(|_| ())
                    })
                    .collect(),
            )
        };
        failure.unwrap_or(Ok(()))
    }
}

/// How many blocks the queues' caches hold, stored under their lock after every change (see
/// [`publish`]): with none, an allocation and an idle queue's free skip the lock.
static STREAM_CACHED_BLOCKS: AtomicUsize = AtomicUsize::new(0);

/// Stores how many blocks `caches` hold, for lookups that skip the lock when none.
fn publish(caches: &FastMap<usize, StreamCache>) {
    let blocks = caches.values().map(|cache| cache.blocks).sum();
    STREAM_CACHED_BLOCKS.store(blocks, Ordering::Release);
}

/// Each in-order queue's cache, by the queue pointer PyTorch passes.
fn stream_caches() -> &'static Mutex<FastMap<usize, StreamCache>> {
    static CACHES: OnceLock<Mutex<FastMap<usize, StreamCache>>> = OnceLock::new();
    CACHES.get_or_init(|| Mutex::new(FastMap::default()))
}

/// `queue`'s cache entry, if it has one and it is this very queue (a queue made where a
/// destroyed one lived is another queue: the old entry goes back).
fn cache_of(
    caches: &mut FastMap<usize, StreamCache>,
    queue: *mut c_void,
) -> Result<Option<&mut StreamCache>, Failure> {
    let key = queue as usize;
    // SAFETY: the held queue and the caller's live queue.
    let stale = caches
        .get(&key)
        .is_some_and(|cache| unsafe { lazy_usm_sycl_queue_same(cache.queue.0, queue) } != 1);
    if stale && let Some(cache) = caches.remove(&key) {
        publish(caches);
        cache.give_back()?;
    }
    Ok(caches.get_mut(&key))
}

/// A barrier event on `queue`, as a fence.
fn barrier(queue: *mut c_void) -> Result<QueueBarrier, Failure> {
    let mut message = Message::new();
    // SAFETY: a live queue (the caller's, or one a cache holds).
    let event = unsafe { lazy_usm_sycl_barrier(queue, message.0.as_mut_ptr(), message.0.len()) };
    if event.is_null() {
        return Err(Failure(
            LazyUsmStatus::LevelZero,
            format!("a barrier on the queue failed: {}", message.text()),
        ));
    }
    BARRIERS.fetch_add(1, Ordering::Relaxed);
    Ok(QueueBarrier(event))
}

/// Gives back the blocks every queue kept (before reporting out of memory).
fn give_back_every_cache() -> Result<(), Failure> {
    let caches: Vec<StreamCache> = {
        let mut caches = lock(stream_caches());
        let drained = caches.drain().map(|(_, cache)| cache).collect();
        publish(&caches);
        drained
    };
    let results: Vec<_> = caches.into_iter().map(StreamCache::give_back).collect();
    results.into_iter().find(Result::is_err).unwrap_or(Ok(()))
}

/// `lazy_usm_xpu_counters`: barrier events made for frees (`barriers`), and allocations served
/// by a block their own in-order queue freed (`same_queue_reuses`, each a barrier saved).
///
/// # Safety
/// Each pointer must be null or valid for a write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lazy_usm_xpu_counters(
    barriers: *mut u64,
    same_queue_reuses: *mut u64,
) -> LazyUsmStatus {
    guard(|| {
        // SAFETY: the caller's optional outputs.
        unsafe {
            if let Some(barriers) = barriers.as_mut() {
                *barriers = BARRIERS.load(Ordering::Relaxed);
            }
            if let Some(reuses) = same_queue_reuses.as_mut() {
                *reuses = SAME_QUEUE_REUSES.load(Ordering::Relaxed);
            }
        }
        Ok(())
    })
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
        let size = size.max(1);
        // A block this in-order queue freed: the work that used it ran before anything this
        // queue runs from now on. (With no block cached anywhere, the lock is skipped: a
        // block cached meanwhile by another thread is only not reused this time.)
        if STREAM_CACHED_BLOCKS.load(Ordering::Acquire) != 0 {
            let mut caches = lock(stream_caches());
            if let Some(cache) = cache_of(&mut caches, queue)?
                && let Some(block) = cache.by_size.get_mut(&size).and_then(Vec::pop)
            {
                cache.blocks -= 1;
                cache.bytes -= size;
                manager.unkeep(block);
                publish(&caches);
                SAME_QUEUE_REUSES.fetch_add(1, Ordering::Relaxed);
                address = block;
                handed_out(index, size);
                return Ok(());
            }
        }
        address = match manager.pool_alloc(index, size) {
            Err(failure) if failure.0 == LazyUsmStatus::OutOfDeviceMemory => {
                give_back_every_cache()?;
                manager.pool_alloc(index, size)?
            }
            other => other?,
        };
        handed_out(index, size);
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
        let address = pointer as usize;
        // SAFETY: the caller's live queue.
        let idle = unsafe { lazy_usm_sycl_queue_idle(queue) } == 1;
        if idle && STREAM_CACHED_BLOCKS.load(Ordering::Acquire) == 0 {
            // Nothing submitted before this free is still running and no queue keeps a block:
            // back to the pool under one lock (`free_start` still refuses a block a queue keeps,
            // for a second free racing the first).
            let (owner, size) = manager.free_start(address)?;
            given_back(owner, size);
            return Ok(());
        }
        // Its size as handed out: a cached block is reused only for that size.
        // A block a queue keeps is still handed out: freeing it again is the caller's error
        // (two later allocations would share it otherwise), which the manager refuses under
        // its lock (`free_start`, `keep`, `Kept::Refuse`), whatever thread frees it. Each of
        // those answers the block's device and size as its record has them, under that lock.
        let mut caches = lock(stream_caches());
        if idle {
            // Nothing submitted before this free is still running: no fence needed, and what
            // the queue kept can go back too.
            let (owner, size) = manager.free_start(address)?;
            let kept = caches.remove(&(queue as usize));
            publish(&caches);
            drop(caches);
            // PyTorch's figure drops at its free, whatever the block waits for before reuse.
            given_back(owner, size);
            return kept.map_or(Ok(()), StreamCache::give_back);
        }
        // SAFETY: the caller's live queue.
        if unsafe { lazy_usm_sycl_queue_in_order(queue) } == 1 {
            let known = cache_of(&mut caches, queue)?.is_some();
            let (owner, size) = manager.keep(address)?;
            let fits = caches
                .get(&(queue as usize))
                .map_or(size <= STREAM_CACHE_BYTES, |cache| {
                    cache.blocks < STREAM_CACHE_BLOCKS
                        && cache.bytes.saturating_add(size) <= STREAM_CACHE_BYTES
                });
            // SAFETY: the caller's live queue (a cache is made only for a block it takes).
            let held = (fits && !known).then(|| unsafe { lazy_usm_sycl_queue_retain(queue) });
            if let Some(held) = held
                && !held.is_null()
            {
                caches.insert(
                    queue as usize,
                    StreamCache {
                        queue: HeldQueue(held),
                        manager: Arc::clone(&manager),
                        by_size: FastMap::default(),
                        blocks: 0,
                        bytes: 0,
                    },
                );
            }
            if fits && let Some(cache) = caches.get_mut(&(queue as usize)) {
                cache.by_size.entry(size).or_default().push(address);
                cache.blocks += 1;
                cache.bytes += size;
                publish(&caches);
                given_back(owner, size);
                return Ok(());
            }
            // Not kept after all: it goes behind a barrier below.
            manager.unkeep(address);
        }
        drop(caches);
        let (owner, size) = manager.free_after(address, Arc::new(barrier(queue)?), Kept::Refuse)?;
        given_back(owner, size);
        Ok(())
    });
}

/// Every manager the allocator has made, taken out of the map's lock (their calls may take
/// their own locks).
fn every_manager() -> Vec<Arc<LazyUsmManager>> {
    lock(managers()).values().map(Arc::clone).collect()
}

/// PyTorch's device statistics for the allocator (`lazy_usm_xpu_stats`): the pool figures of
/// one device summed over every SYCL context the allocator has served.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct LazyUsmXpuStats {
    /// Bytes handed to PyTorch and not yet freed (`allocated_bytes.all.current`).
    pub allocated_bytes: u64,
    /// The most there have been (`allocated_bytes.all.peak`).
    pub peak_allocated_bytes: u64,
    /// Bytes of pool segments held from the driver (`reserved_bytes.all.current`).
    pub reserved_bytes: u64,
    /// The most bytes reserved at once (`reserved_bytes.all.peak`; with several SYCL contexts,
    /// the sum of each one's peak, an upper bound).
    pub peak_reserved_bytes: u64,
    /// Bytes of idle cached blocks (`inactive_split_bytes.all.current`'s nearest analogue).
    pub cached_bytes: u64,
    /// Allocations served from memory the pools held.
    pub hits: u64,
    /// Allocations that needed new blocks or segments.
    pub misses: u64,
}

/// `device`'s figures (PyTorch's device index: its place in the queue's context).
///
/// # Safety
/// `out` must be null or valid for a write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lazy_usm_xpu_stats(
    device: c_int,
    out: *mut LazyUsmXpuStats,
) -> LazyUsmStatus {
    guard(|| {
        let device = u32::try_from(device)
            .map_err(|_| Failure::invalid(format!("device {device} is negative")))?;
        if out.is_null() {
            return Err(Failure::null("the output pointer"));
        }
        let managers = every_manager();
        if device >= lazy_usm_core::MAX_DEVICES {
            return Err(Failure::invalid(format!(
                "device {device}: lazy-usm handles up to {} devices",
                lazy_usm_core::MAX_DEVICES
            )));
        }
        let mut total = LazyUsmXpuStats {
            allocated_bytes: IN_USE[device as usize].load(Ordering::Acquire),
            peak_allocated_bytes: PEAK_IN_USE[device as usize].load(Ordering::Acquire),
            ..LazyUsmXpuStats::default()
        };
        for manager in &managers {
            let Some(stats) = manager.existing_pool_stats(device) else {
                continue;
            };
            total.reserved_bytes += stats.reserved_bytes;
            total.peak_reserved_bytes += stats.peak_reserved_bytes;
            total.cached_bytes += stats.cached_bytes;
            total.hits += stats.hits;
            total.misses += stats.misses;
        }
        // SAFETY: checked non-null; the caller's promise of a writable struct.
        unsafe { out.write(total) };
        Ok(())
    })
}

/// `device`'s pools' dealings with the driver, summed over every SYCL context: PyTorch's
/// `num_device_alloc`, `num_device_free`, `num_alloc_retries`, `num_ooms` and
/// `segment.all.current`.
///
/// # Safety
/// `out` must be null or valid for a write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lazy_usm_xpu_driver_counters(
    device: c_int,
    out: *mut LazyUsmDriverCounters,
) -> LazyUsmStatus {
    guard(|| {
        let device = u32::try_from(device)
            .ok()
            .filter(|&device| device < lazy_usm_core::MAX_DEVICES)
            .ok_or_else(|| {
                Failure::invalid(format!(
                    "device {device}: lazy-usm handles devices 0 to {}",
                    lazy_usm_core::MAX_DEVICES - 1
                ))
            })?;
        if out.is_null() {
            return Err(Failure::null("the output pointer"));
        }
        let mut total = LazyUsmDriverCounters::default();
        for manager in &every_manager() {
            if let Some(stats) = manager.existing_pool_stats(device) {
                total.add(&stats);
            }
        }
        // SAFETY: checked non-null; the caller's promise of a writable struct.
        unsafe { out.write(total) };
        Ok(())
    })
}

/// PyTorch's `empty_cache`: the blocks every queue kept and every pool's idle segments go back
/// to the driver once the work that used them completed; `released` (may be null) gets the
/// bytes.
///
/// # Safety
/// `released` must be null or valid for a write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lazy_usm_xpu_empty_cache(released: *mut u64) -> LazyUsmStatus {
    guard(|| {
        give_back_every_cache()?;
        let managers = every_manager();
        let mut bytes = 0u64;
        for manager in &managers {
            bytes = bytes.saturating_add(manager.trim()?);
        }
        // SAFETY: the caller's optional output.
        if let Some(released) = unsafe { released.as_mut() } {
            *released = bytes;
        }
        Ok(())
    })
}

/// What peer residency has cost the host under the allocator, and what eager residency would
/// have (`lazy_usm_xpu_host_cost`).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct LazyUsmXpuHostCost {
    /// Host memory pinned for peer residency now, in bytes.
    pub current_bytes: u64,
    /// The most it has been (with several SYCL contexts, the sum of their peaks).
    pub peak_bytes: u64,
    /// `zeContextMakeMemoryResident` calls made.
    pub make_resident_calls: u64,
    /// `zeContextEvictMemory` calls made.
    pub evict_calls: u64,
    /// What making the memory held now resident on every peer of its context would pin (what
    /// SYCL's `malloc_device` does): each device's reserved bytes times its peers.
    pub eager_bytes: u64,
}

/// What peer residency has cost the host, summed over the allocator's contexts.
///
/// # Safety
/// `out` must be null or valid for a write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lazy_usm_xpu_host_cost(out: *mut LazyUsmXpuHostCost) -> LazyUsmStatus {
    guard(|| {
        if out.is_null() {
            return Err(Failure::null("the output pointer"));
        }
        let managers = every_manager();
        let mut total = LazyUsmXpuHostCost::default();
        for manager in &managers {
            let peers = u64::from(manager.device_count().saturating_sub(1));
            for device in 0..manager.device_count() {
                if let Some(stats) = manager.existing_pool_stats(device) {
                    total.eager_bytes = total
                        .eager_bytes
                        .saturating_add(stats.reserved_bytes.saturating_mul(peers));
                }
            }
            let cost = manager.host_cost();
            total.current_bytes += cost.current_bytes;
            total.peak_bytes += cost.peak_bytes;
            total.make_resident_calls += cost.make_resident_calls;
            total.evict_calls += cost.evict_calls;
        }
        // SAFETY: checked non-null; the caller's promise of a writable struct.
        unsafe { out.write(total) };
        Ok(())
    })
}
