//! Handle values and what they stand for.
//!
//! Every Level Zero handle the simulator hands out is a unique, never-reused integer (aligned
//! like a pointer, never dereferenced) registered here with its platform, so that one set of
//! `extern "C"` functions serves any number of independent platform instances.

use crate::engine::exec::{CommandList, CommandQueue};
use crate::engine::platform::Inner;
use crate::objects::context::Context;
use crate::objects::event::{Event, EventPool, Fence};
use crate::objects::module::{BuildLog, Kernel, Module};
use crate::objects::sampler::Sampler;
use crate::objects::virtual_mem::PhysicalMemory;
use dashmap::DashMap;
use level_zero_sys::ze_result_t;
use rustc_hash::FxBuildHasher;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, LazyLock, Weak};

#[derive(Clone)]
pub(crate) enum Object {
    Driver,
    Device(u32),
    /// A device's fabric vertex, by the device's index.
    FabricVertex(u32),
    /// A device's Sysman memory module, by the device's index.
    MemoryModule(u32),
    Context(Arc<Context>),
    Queue(Arc<CommandQueue>),
    List(Arc<CommandList>),
    EventPool(Arc<EventPool>),
    Event(Arc<Event>),
    Fence(Arc<Fence>),
    Module(Arc<Module>),
    Kernel(Arc<Kernel>),
    BuildLog(Arc<BuildLog>),
    PhysicalMemory(Arc<PhysicalMemory>),
    Sampler(Arc<Sampler>),
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
typed_lookup!(fabric_vertex, FabricVertex, u32);
typed_lookup!(memory_module, MemoryModule, u32);
typed_lookup!(context, Context, Arc<Context>);
typed_lookup!(queue, Queue, Arc<CommandQueue>);
typed_lookup!(list, List, Arc<CommandList>);
typed_lookup!(event_pool, EventPool, Arc<EventPool>);
typed_lookup!(event, Event, Arc<Event>);
typed_lookup!(fence, Fence, Arc<Fence>);
typed_lookup!(module, Module, Arc<Module>);
typed_lookup!(kernel, Kernel, Arc<Kernel>);
typed_lookup!(build_log, BuildLog, Arc<BuildLog>);
typed_lookup!(sampler, Sampler, Arc<Sampler>);
typed_lookup!(physical_memory, PhysicalMemory, Arc<PhysicalMemory>);

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
