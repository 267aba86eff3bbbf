//! Handle values and what they stand for.
//!
//! Every Level Zero handle the simulator hands out is a unique, never-reused integer (aligned
//! like a pointer, never dereferenced) registered here with its platform, so that one set of
//! `extern "C"` functions serves any number of independent platform instances.

use crate::abi::entry::module::{BuildLog, Kernel, Module};
use crate::engine::exec::{CommandList, CommandQueue};
use crate::engine::platform::Inner;
use dashmap::DashMap;
use level_zero_sys::ze_result_t;
use rustc_hash::FxBuildHasher;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, LazyLock, Weak};

/// A context: the devices it spans, as a bit set of device indices.
#[derive(Debug)]
pub(crate) struct Context {
    pub devices: u64,
}

/// An event pool: its size and whether its events record timestamps.
#[derive(Debug)]
pub(crate) struct EventPool {
    pub context: usize,
    pub count: u32,
    /// Counter-based (`ze_event_pool_counter_based_exp_desc_t`): its events are re-armed by
    /// each append that signals them, never reset (Intel's v2 adapter uses them).
    pub counter_based: bool,
    /// Created shareable (`ZE_EVENT_POOL_FLAG_IPC`): it hands out an IPC handle.
    pub ipc: bool,
}

/// An event: its pool and index, and its state under a lock of its own, so that host waits and
/// queries on one event contend with nothing else.
#[derive(Debug)]
pub(crate) struct Event {
    pub pool: usize,
    pub index: u32,
    pub state: parking_lot::Mutex<crate::engine::platform::EventState>,
    pub changed: parking_lot::Condvar,
    /// Queued commands that wait on it or will signal or reset it (it cannot be destroyed then).
    pub uses: std::sync::atomic::AtomicU32,
    /// Of a counter-based pool: unsignaled again from the moment work that signals it is
    /// submitted, until that work completes.
    pub counter_based: bool,
    /// How many times a counter-based event was armed: only the latest arming's work signals
    /// it (an earlier append that completes later does not).
    pub armings: std::sync::atomic::AtomicU64,
    /// The context of a counter-based event made without a pool (`zeEventCounterBasedCreate`),
    /// whose child it is.
    pub context: Option<usize>,
}

impl Event {
    pub(crate) fn new(pool: usize, index: u32, counter_based: bool) -> Self {
        Self {
            pool,
            index,
            counter_based,
            armings: Default::default(),
            state: Default::default(),
            changed: Default::default(),
            uses: Default::default(),
            context: None,
        }
    }

    /// Signals it with the interval of the work before it: from queued work (`by_device`, which
    /// ends that use of it, under its lock, so a host that sees the signal sees the use gone),
    /// or from the host (which keeps an earlier interval).
    pub(crate) fn signal(&self, interval: (u64, u64), by_device: bool) {
        let mut state = self.state.lock();
        state.signaled = true;
        if by_device {
            state.timestamp = Some(interval);
            self.uses.fetch_sub(1, std::sync::atomic::Ordering::AcqRel);
        } else {
            state.timestamp.get_or_insert(interval);
        }
        self.changed.notify_all();
    }

    /// A counter-based event's re-arming, when work that will signal it is submitted; the
    /// arming that work completes (0 for a regular event).
    pub(crate) fn rearm(&self) -> u64 {
        if !self.counter_based {
            return 0;
        }
        let mut state = self.state.lock();
        state.signaled = false;
        state.timestamp = None;
        self.armings
            .fetch_add(1, std::sync::atomic::Ordering::AcqRel)
            .wrapping_add(1)
    }

    /// Queued work's signal: a counter-based event is signalled only by the work of its latest
    /// arming; the work's use of the event ends either way.
    pub(crate) fn signal_arming(&self, interval: (u64, u64), arming: u64) {
        if self.counter_based {
            let mut state = self.state.lock();
            if arming > state.completed_arming {
                state.completed_arming = arming;
                state.completed_end = interval.1;
            }
            let latest = self.armings.load(std::sync::atomic::Ordering::Acquire);
            if arming != latest {
                self.uses.fetch_sub(1, std::sync::atomic::Ordering::AcqRel);
                // Work waiting on this arming may go on.
                self.changed.notify_all();
                return;
            }
        }
        self.signal(interval, true);
    }

    /// Resets it; likewise for a queued reset.
    pub(crate) fn reset(&self, ends_use: bool) {
        let mut state = self.state.lock();
        // What completed stays: work waiting on an earlier arming still sees it.
        state.signaled = false;
        state.timestamp = None;
        if ends_use {
            self.uses.fetch_sub(1, std::sync::atomic::Ordering::AcqRel);
        }
    }
}

/// A fence on a command queue.
#[derive(Debug)]
pub(crate) struct Fence {
    pub queue: usize,
}

#[derive(Clone)]
pub(crate) enum Object {
    Driver,
    Device(u32),
    Context(Arc<Context>),
    Queue(Arc<CommandQueue>),
    List(Arc<CommandList>),
    EventPool(Arc<EventPool>),
    Event(Arc<Event>),
    Fence(Arc<Fence>),
    Module(Arc<Module>),
    Kernel(Arc<Kernel>),
    BuildLog(Arc<BuildLog>),
    PhysicalMemory(Arc<crate::abi::entry::virtual_mem::PhysicalMemory>),
    Sampler(Arc<crate::abi::entry::sampler::Sampler>),
}

struct Entry {
    platform: Weak<Inner>,
    object: Object,
}

static NEXT_HANDLE: AtomicUsize = AtomicUsize::new(0x5a5a_0000);
static OBJECTS: LazyLock<DashMap<usize, Entry, FxBuildHasher>> = LazyLock::new(Default::default);

/// A fresh handle value, for [`insert`].
pub(crate) fn reserve() -> usize {
    NEXT_HANDLE.fetch_add(16, Ordering::Relaxed)
}

/// Registers an object and returns its new handle value.
pub(crate) fn register(platform: &Arc<Inner>, object: Object) -> usize {
    let handle = reserve();
    insert(handle, platform, object);
    handle
}

/// Registers an object under a handle from [`reserve`].
pub(crate) fn insert(handle: usize, platform: &Arc<Inner>, object: Object) {
    let entry = Entry {
        platform: Arc::downgrade(platform),
        object,
    };
    OBJECTS.insert(handle, entry);
}

/// Forgets a handle; later lookups of it fail.
pub(crate) fn unregister(handle: usize) {
    OBJECTS.remove(&handle);
}

/// The platform and object behind a handle, or `ZE_RESULT_ERROR_INVALID_NULL_HANDLE` for null
/// and `ZE_RESULT_ERROR_INVALID_ARGUMENT` for a value that is not (or no longer) a handle.
pub(crate) fn lookup(handle: usize) -> Result<(Arc<Inner>, Object), ze_result_t> {
    if handle == 0 {
        return Err(ze_result_t::ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    }
    let entry = OBJECTS
        .get(&handle)
        .ok_or(ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT)?;
    let platform = entry
        .platform
        .upgrade()
        .ok_or(ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT)?;
    Ok((platform, entry.object.clone()))
}

macro_rules! typed_lookup {
    ($name:ident, $variant:ident, $ty:ty) => {
        pub(crate) fn $name(handle: usize) -> Result<(Arc<Inner>, $ty), ze_result_t> {
            match lookup(handle)? {
                (platform, Object::$variant(object)) => Ok((platform, object)),
                _ => Err(ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT),
            }
        }
    };
}

typed_lookup!(device, Device, u32);
typed_lookup!(context, Context, Arc<Context>);
typed_lookup!(queue, Queue, Arc<CommandQueue>);
typed_lookup!(list, List, Arc<CommandList>);
typed_lookup!(event_pool, EventPool, Arc<EventPool>);
typed_lookup!(event, Event, Arc<Event>);
typed_lookup!(fence, Fence, Arc<Fence>);
typed_lookup!(module, Module, Arc<Module>);
typed_lookup!(kernel, Kernel, Arc<Kernel>);
typed_lookup!(build_log, BuildLog, Arc<BuildLog>);
typed_lookup!(sampler, Sampler, Arc<crate::abi::entry::sampler::Sampler>);
typed_lookup!(
    physical_memory,
    PhysicalMemory,
    Arc<crate::abi::entry::virtual_mem::PhysicalMemory>
);

/// Whether a live kernel was made from `module`.
pub(crate) fn any_kernel_of(module: usize) -> bool {
    OBJECTS
        .iter()
        .any(|entry| matches!(&entry.object, Object::Kernel(kernel) if kernel.module == module))
}

pub(crate) fn driver(handle: usize) -> Result<Arc<Inner>, ze_result_t> {
    match lookup(handle)? {
        (platform, Object::Driver) => Ok(platform),
        _ => Err(ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT),
    }
}
