//! Event pools, events and fences.

use super::{guard, input, out};
use crate::abi::registry::{self, Object};
use crate::engine::platform::Inner;
use crate::objects::event::{Event, EventPool, Fence};
use level_zero_sys::*;
use std::ffi::c_void;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

/// The `failed_waits` and `not_ready_waits` faults: what the next host wait answers at once.
fn wait_fault(platform: &Inner) -> Option<ze_result_t> {
    let waits = platform.host_waits.fetch_add(1, Ordering::AcqRel) + 1;
    let faults = &platform.config.faults;
    let failed = faults.failed_waits.unwrap_or(0);
    if waits <= failed {
        return Some(ze_result_t::ZE_RESULT_ERROR_UNKNOWN);
    }
    (waits <= failed + faults.not_ready_waits.unwrap_or(0))
        .then_some(ze_result_t::ZE_RESULT_NOT_READY)
}

/// Blocks the host until `status` says signalled (or `timeout_ns` passes: `NOT_READY`), then
/// moves the host's modelled clock past the signal. For fences, whose state the platform keeps.
fn host_wait(
    platform: &Inner,
    timeout_ns: u64,
    mut status: impl FnMut(&crate::engine::platform::State) -> (bool, Option<u64>),
) -> Result<(), ze_result_t> {
    if let Some(answer) = wait_fault(platform) {
        return Err(answer);
    }
    let state = platform.lock();
    let mut seen = None;
    let signaled = platform.wait_until(state, timeout_ns, |state| {
        let (signaled, end) = status(state);
        if signaled {
            seen = end;
        }
        signaled
    });
    if let Some(end) = seen {
        platform.observe(end);
    }
    if signaled {
        Ok(())
    } else {
        Err(ze_result_t::ZE_RESULT_NOT_READY)
    }
}

pub(crate) unsafe extern "C" fn pool_create(
    context: ze_context_handle_t,
    desc: *const ze_event_pool_desc_t,
    _device_count: u32,
    _devices: *mut ze_device_handle_t,
    pool: *mut ze_event_pool_handle_t,
) -> ze_result_t {
    guard(|| {
        let (platform, _) = registry::context(context as usize)?;
        // SAFETY: the caller's descriptor.
        let desc = unsafe { input(desc) }?;
        // SAFETY: the caller's output pointer.
        let pool = unsafe { out(pool) }?;
        if desc.count == 0 {
            return Err(ze_result_t::ZE_RESULT_ERROR_INVALID_SIZE);
        }
        let mut counter_based = false;
        let mut next = desc.pNext as *mut c_void;
        while !next.is_null() {
            // SAFETY: every extension struct starts with stype and pNext (spec).
            let (stype, following) = unsafe { super::chain_link(next) };
            counter_based |=
                stype == ze_structure_type_t::ZE_STRUCTURE_TYPE_COUNTER_BASED_EVENT_POOL_EXP_DESC;
            next = following;
        }
        let object = EventPool {
            context: context as usize,
            count: desc.count,
            counter_based,
            ipc: desc.flags & ze_event_pool_flag_t::ZE_EVENT_POOL_FLAG_IPC.0 != 0,
        };
        {
            let mut state = platform.lock();
            state.counters.live_event_pools += 1;
            *state
                .uses
                .context_children
                .entry(context as usize)
                .or_default() += 1;
        }
        *pool = registry::register(&platform, Object::EventPool(Arc::new(object)))
            as ze_event_pool_handle_t;
        Ok(())
    })
}

/// The first bytes of the simulator's event pool IPC handles; the pool's handle and the
/// exporting process's id follow.
const EVENT_POOL_IPC_MAGIC: &[u8; 8] = b"ZESIMEVP";

/// `zeEventPoolGetIpcHandle`: a handle naming the pool and this process, for a pool created
/// with `ZE_EVENT_POOL_FLAG_IPC` (others are refused as compute-runtime refuses a pool whose
/// events are not shareable). Opening one is not implemented (see `pool_open_ipc_handle`).
pub(crate) unsafe extern "C" fn pool_get_ipc_handle(
    pool: ze_event_pool_handle_t,
    handle: *mut ze_ipc_event_pool_handle_t,
) -> ze_result_t {
    guard(|| {
        let (_, object) = registry::event_pool(pool as usize)?;
        // SAFETY: the caller's output pointer.
        let handle = unsafe { out(handle) }?;
        if !object.ipc {
            return Err(ze_result_t::ZE_RESULT_ERROR_UNSUPPORTED_FEATURE);
        }
        let mut data = [0u8; ZE_MAX_IPC_HANDLE_SIZE as usize];
        data[..8].copy_from_slice(EVENT_POOL_IPC_MAGIC);
        data[8..16].copy_from_slice(&(pool as u64).to_le_bytes());
        data[16..20].copy_from_slice(&std::process::id().to_le_bytes());
        for (slot, byte) in handle.data.iter_mut().zip(data) {
            *slot = byte as std::ffi::c_char;
        }
        Ok(())
    })
}

/// `zeEventPoolPutIpcHandle`: nothing to release (the handle holds no resource); success for
/// any handle, as compute-runtime's `ContextImp::putIpcHandle` answers.
pub(crate) unsafe extern "C" fn pool_put_ipc_handle(
    context: ze_context_handle_t,
    _handle: ze_ipc_event_pool_handle_t,
) -> ze_result_t {
    guard(|| {
        registry::context(context as usize)?;
        Ok(())
    })
}

/// `zeEventPoolOpenIpcHandle`: not implemented. Events live in one process's simulator, so
/// another process cannot share them; a handle not of the simulator's is refused as such.
pub(crate) unsafe extern "C" fn pool_open_ipc_handle(
    context: ze_context_handle_t,
    handle: ze_ipc_event_pool_handle_t,
    pool: *mut ze_event_pool_handle_t,
) -> ze_result_t {
    guard(|| {
        registry::context(context as usize)?;
        // SAFETY: the caller's output pointer.
        unsafe { out(pool) }?;
        let bytes: Vec<u8> = handle.data.iter().map(|&byte| byte as u8).collect();
        if !bytes.starts_with(EVENT_POOL_IPC_MAGIC) {
            return Err(ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT);
        }
        Err(ze_result_t::ZE_RESULT_ERROR_UNSUPPORTED_FEATURE)
    })
}

/// `zeEventPoolDestroy`: the pool goes whatever events of it still live, as compute-runtime's
/// `EventPool::destroy` deletes it (the spec leaves it to the application to destroy them
/// first). Such a destroy is counted as a hazard; its events stay live until destroyed, and
/// each host use of one after (whose memory the driver has freed) is counted as a hazard too.
pub(crate) unsafe extern "C" fn pool_destroy(pool: ze_event_pool_handle_t) -> ze_result_t {
    guard(|| {
        let (platform, object) = registry::event_pool(pool as usize)?;
        let mut state = platform.lock();
        if state
            .uses
            .used_event_slots
            .iter()
            .any(|&(owner, _)| owner == pool as usize)
        {
            state.counters.destroy_hazards += 1;
        }
        state.counters.live_event_pools -= 1;
        if let Some(children) = state.uses.context_children.get_mut(&object.context) {
            *children = children.saturating_sub(1);
        }
        drop(state);
        registry::unregister(pool as usize);
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn create(
    pool: ze_event_pool_handle_t,
    desc: *const ze_event_desc_t,
    event: *mut ze_event_handle_t,
) -> ze_result_t {
    guard(|| {
        let (platform, object) = registry::event_pool(pool as usize)?;
        // SAFETY: the caller's descriptor.
        let desc = unsafe { input(desc) }?;
        // SAFETY: the caller's output pointer.
        let event = unsafe { out(event) }?;
        if desc.index >= object.count {
            return Err(ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT);
        }
        let slot = (pool as usize, desc.index);
        if !platform.lock().uses.used_event_slots.insert(slot) {
            return Err(ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT);
        }
        let handle = registry::register(
            &platform,
            Object::Event(Arc::new(Event::new(
                pool as usize,
                desc.index,
                object.counter_based,
            ))),
        );
        platform.lock().counters.live_events += 1;
        *event = handle as ze_event_handle_t;
        Ok(())
    })
}

/// Index of the next counter-based event made without a pool: with its context, the slot it
/// holds.
static NEXT_POOLLESS_EVENT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);

/// A counter-based event of its own (`zeEventCounterBasedCreate`), a child of `context`: re-armed
/// by each append that signals it, as a counter-based pool's events are. IPC sharing of it is not
/// modelled (answered as unsupported).
pub(crate) unsafe extern "C" fn counter_based_create(
    context: ze_context_handle_t,
    device: ze_device_handle_t,
    desc: *const ze_event_counter_based_desc_t,
    event: *mut ze_event_handle_t,
) -> ze_result_t {
    guard(|| {
        let (platform, _) = super::context::context_device(context, device)?;
        // SAFETY: the caller's descriptor.
        let desc = unsafe { input(desc) }?;
        // SAFETY: the caller's output pointer.
        let event = unsafe { out(event) }?;
        type Flag = ze_event_counter_based_flag_t;
        let known = Flag::ZE_EVENT_COUNTER_BASED_FLAG_IMMEDIATE.0
            | Flag::ZE_EVENT_COUNTER_BASED_FLAG_NON_IMMEDIATE.0
            | Flag::ZE_EVENT_COUNTER_BASED_FLAG_HOST_VISIBLE.0
            | Flag::ZE_EVENT_COUNTER_BASED_FLAG_IPC.0
            | Flag::ZE_EVENT_COUNTER_BASED_FLAG_DEVICE_TIMESTAMP.0
            | Flag::ZE_EVENT_COUNTER_BASED_FLAG_HOST_TIMESTAMP.0;
        if desc.flags & !known != 0 {
            return Err(ze_result_t::ZE_RESULT_ERROR_INVALID_ENUMERATION);
        }
        if desc.flags & Flag::ZE_EVENT_COUNTER_BASED_FLAG_IPC.0 != 0 {
            return Err(ze_result_t::ZE_RESULT_ERROR_UNSUPPORTED_FEATURE);
        }
        let index = NEXT_POOLLESS_EVENT.fetch_add(1, Ordering::Relaxed);
        let mut object = Event::new(context as usize, index, true);
        object.context = Some(context as usize);
        {
            let mut state = platform.lock();
            state
                .uses
                .used_event_slots
                .insert((context as usize, index));
            state.counters.live_events += 1;
            *state
                .uses
                .context_children
                .entry(context as usize)
                .or_default() += 1;
        }
        *event =
            registry::register(&platform, Object::Event(Arc::new(object))) as ze_event_handle_t;
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn destroy(event: ze_event_handle_t) -> ze_result_t {
    guard(|| {
        let (platform, object) = registry::event(event as usize)?;
        let mut state = platform.lock();
        if object.uses.load(Ordering::Acquire) > 0 {
            // Queued work waits on it or will signal it.
            state.counters.destroy_hazards += 1;
            return Err(ze_result_t::ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE);
        }
        registry::unregister(event as usize);
        state
            .uses
            .used_event_slots
            .remove(&(object.pool, object.index));
        state.counters.live_events -= 1;
        if let Some(context) = object.context
            && let Some(children) = state.uses.context_children.get_mut(&context)
        {
            *children = children.saturating_sub(1);
        }
        Ok(())
    })
}

/// Counts a host use of an event whose pool was destroyed before it as a destroy hazard (on
/// hardware the event's memory went with the pool). Events made without a pool have none.
fn note_orphan_use(platform: &Inner, object: &Event) {
    if object.context.is_none() && registry::event_pool(object.pool).is_err() {
        platform.lock().counters.destroy_hazards += 1;
    }
}

pub(crate) unsafe extern "C" fn host_signal(event: ze_event_handle_t) -> ze_result_t {
    guard(|| {
        let (platform, object) = registry::event(event as usize)?;
        note_orphan_use(&platform, &object);
        let now = platform.host_clock.load(Ordering::Acquire);
        object.signal((now, now), false);
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn host_synchronize(
    event: ze_event_handle_t,
    timeout: u64,
) -> ze_result_t {
    guard(|| {
        let (platform, object) = registry::event(event as usize)?;
        note_orphan_use(&platform, &object);
        if let Some(answer) = wait_fault(&platform) {
            return Err(answer);
        }
        let deadline = (timeout != u64::MAX)
            .then(|| Instant::now().checked_add(Duration::from_nanos(timeout)))
            .flatten();
        let mut state = object.state.lock();
        while !state.signaled {
            match deadline {
                None => object.changed.wait(&mut state),
                Some(deadline) => {
                    if !crate::engine::platform::wait_step(&object.changed, &mut state, deadline) {
                        return Err(ze_result_t::ZE_RESULT_NOT_READY);
                    }
                }
            }
        }
        if let Some((_, end)) = state.timestamp {
            platform.observe(end);
        }
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn query_status(event: ze_event_handle_t) -> ze_result_t {
    guard(|| {
        let (platform, object) = registry::event(event as usize)?;
        note_orphan_use(&platform, &object);
        let signaled = object.state.lock().signaled;
        if signaled {
            Ok(())
        } else {
            Err(ze_result_t::ZE_RESULT_NOT_READY)
        }
    })
}

pub(crate) unsafe extern "C" fn host_reset(event: ze_event_handle_t) -> ze_result_t {
    guard(|| {
        let (platform, object) = registry::event(event as usize)?;
        note_orphan_use(&platform, &object);
        object.reset(false);
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn query_kernel_timestamp(
    event: ze_event_handle_t,
    result: *mut ze_kernel_timestamp_result_t,
) -> ze_result_t {
    guard(|| {
        let (platform, object) = registry::event(event as usize)?;
        note_orphan_use(&platform, &object);
        // SAFETY: the caller's output pointer.
        let result = unsafe { out(result) }?;
        let event = *object.state.lock();
        let (start, end) = match (event.signaled, event.timestamp) {
            (true, Some(interval)) => interval,
            _ => return Err(ze_result_t::ZE_RESULT_NOT_READY),
        };
        let data = ze_kernel_timestamp_data_t {
            kernelStart: start,
            kernelEnd: end,
        };
        result.global = data;
        result.context = data;
        Ok(())
    })
}

/// `zeEventQueryKernelTimestampsExt`: one packet per event (the simulator runs a launch as one
/// piece), its kernel timestamps and the same as host-synchronized ones (the simulated device's
/// clock is the host's, in nanoseconds); with `results` null, only the count.
pub(crate) unsafe extern "C" fn query_kernel_timestamps_ext(
    event: ze_event_handle_t,
    device: ze_device_handle_t,
    count: *mut u32,
    results: *mut ze_event_query_kernel_timestamps_results_ext_properties_t,
) -> ze_result_t {
    guard(|| {
        let (_, object) = registry::event(event as usize)?;
        registry::device(device as usize)?;
        // SAFETY: the caller's count pointer.
        let count = unsafe { out(count) }?;
        if results.is_null() {
            *count = 1;
            return Ok(());
        }
        if *count == 0 {
            // The packet count first, ready or not (as with `results` null).
            *count = 1;
            return Ok(());
        }
        // SAFETY: the caller's results struct, not null here.
        let results = unsafe { &mut *results };
        let event = *object.state.lock();
        let (start, end) = match (event.signaled, event.timestamp) {
            (true, Some(interval)) => interval,
            _ => return Err(ze_result_t::ZE_RESULT_NOT_READY),
        };
        *count = 1;
        let kernel = ze_kernel_timestamp_data_t {
            kernelStart: start,
            kernelEnd: end,
        };
        if !results.pKernelTimestampsBuffer.is_null() {
            // SAFETY: the caller's buffer of at least `*count` (here 1) results.
            unsafe {
                results
                    .pKernelTimestampsBuffer
                    .write(ze_kernel_timestamp_result_t {
                        global: kernel,
                        context: kernel,
                    })
            };
        }
        if !results.pSynchronizedTimestampsBuffer.is_null() {
            let synchronized = ze_synchronized_timestamp_data_ext_t {
                kernelStart: start,
                kernelEnd: end,
            };
            // SAFETY: as above.
            unsafe {
                results.pSynchronizedTimestampsBuffer.write(
                    ze_synchronized_timestamp_result_ext_t {
                        global: synchronized,
                        context: synchronized,
                    },
                )
            };
        }
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn fence_create(
    queue: ze_command_queue_handle_t,
    desc: *const ze_fence_desc_t,
    fence: *mut ze_fence_handle_t,
) -> ze_result_t {
    guard(|| {
        let (platform, object) = registry::queue(queue as usize)?;
        // SAFETY: the caller's descriptor.
        let desc = unsafe { input(desc) }?;
        // SAFETY: the caller's output pointer.
        let fence = unsafe { out(fence) }?;
        let signaled = desc.flags & ze_fence_flag_t::ZE_FENCE_FLAG_SIGNALED.0 != 0;
        let handle = registry::register(
            &platform,
            Object::Fence(Arc::new(Fence {
                queue: queue as usize,
            })),
        );
        let mut state = platform.lock();
        state.work.fences.insert(handle, signaled);
        state.counters.live_fences += 1;
        *state
            .uses
            .context_children
            .entry(object.context)
            .or_default() += 1;
        *fence = handle as ze_fence_handle_t;
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn fence_destroy(fence: ze_fence_handle_t) -> ze_result_t {
    guard(|| {
        let (platform, object) = registry::fence(fence as usize)?;
        let context = registry::queue(object.queue).map(|(_, queue)| queue.context);
        registry::unregister(fence as usize);
        let mut state = platform.lock();
        state.work.fences.remove(&(fence as usize));
        state.work.fence_end.remove(&(fence as usize));
        state.counters.live_fences -= 1;
        if let Ok(context) = context
            && let Some(children) = state.uses.context_children.get_mut(&context)
        {
            *children = children.saturating_sub(1);
        }
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn fence_host_synchronize(
    fence: ze_fence_handle_t,
    timeout: u64,
) -> ze_result_t {
    guard(|| {
        let (platform, _) = registry::fence(fence as usize)?;
        let key = fence as usize;
        host_wait(&platform, timeout, |state| {
            let signaled = state.work.fences.get(&key).copied().unwrap_or(true);
            (signaled, state.work.fence_end.get(&key).copied())
        })
    })
}

pub(crate) unsafe extern "C" fn fence_query_status(fence: ze_fence_handle_t) -> ze_result_t {
    guard(|| {
        let (platform, _) = registry::fence(fence as usize)?;
        if platform
            .lock()
            .work
            .fences
            .get(&(fence as usize))
            .copied()
            .unwrap_or(false)
        {
            Ok(())
        } else {
            Err(ze_result_t::ZE_RESULT_NOT_READY)
        }
    })
}

pub(crate) unsafe extern "C" fn fence_reset(fence: ze_fence_handle_t) -> ze_result_t {
    guard(|| {
        let (platform, _) = registry::fence(fence as usize)?;
        platform.lock().work.fences.insert(fence as usize, false);
        Ok(())
    })
}
