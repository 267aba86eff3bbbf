//! Command queues, command lists and the commands appended to them.

use super::{guard, handles, input, out};
use crate::abi::registry::{self, Object};
use crate::engine::commands::{Command, Engine, Recording, Submitter};
use crate::engine::exec::{self, CommandList, CommandQueue};
use crate::engine::platform::Inner;
use level_zero_sys::*;
use std::ffi::c_void;
use std::sync::{Arc, Mutex};

/// The engine a queue descriptor names on `device`, checked against its queue groups.
fn engine(platform: &Inner, device: u32, ordinal: u32, index: u32) -> Result<Engine, ze_result_t> {
    let groups =
        crate::model::queue_groups::queue_groups(&platform.config.devices[device as usize]);
    let group = groups
        .get(ordinal as usize)
        .ok_or(ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT)?;
    if index >= group.queues {
        return Err(ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT);
    }
    Ok(Engine {
        device,
        ordinal,
        index,
    })
}

fn adopt(platform: &Arc<Inner>, context: usize, object: Object) -> usize {
    let mut state = platform.lock();
    match object {
        Object::Queue(_) => state.counters.live_command_queues += 1,
        _ => state.counters.live_command_lists += 1,
    }
    *state.uses.context_children.entry(context).or_default() += 1;
    drop(state);
    registry::register(platform, object)
}

fn release(platform: &Inner, context: usize, queue: bool) {
    let mut state = platform.lock();
    if queue {
        state.counters.live_command_queues -= 1;
    } else {
        state.counters.live_command_lists -= 1;
    }
    if let Some(children) = state.uses.context_children.get_mut(&context) {
        *children = children.saturating_sub(1);
    }
}

/// A queue on the engine a queue descriptor names, for `zeCommandQueueCreate` and immediate
/// lists alike.
///
/// # Safety
/// `desc` must be null or point to a valid descriptor.
unsafe fn queue_for(
    context: ze_context_handle_t,
    device: ze_device_handle_t,
    desc: *const ze_command_queue_desc_t,
) -> Result<(Arc<Inner>, CommandQueue), ze_result_t> {
    let (platform, index) = super::context::context_device(context, device)?;
    // SAFETY: the caller's descriptor.
    let desc = unsafe { input(desc) }?;
    let engine = engine(&platform, index, desc.ordinal, desc.index)?;
    let synchronous = desc.mode == ze_command_queue_mode_t::ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS;
    let low_priority =
        desc.priority == ze_command_queue_priority_t::ZE_COMMAND_QUEUE_PRIORITY_PRIORITY_LOW;
    let queue = CommandQueue::new(
        &platform,
        context as usize,
        engine,
        synchronous,
        low_priority,
    )?;
    Ok((platform, queue))
}

pub(crate) unsafe extern "C" fn queue_create(
    context: ze_context_handle_t,
    device: ze_device_handle_t,
    desc: *const ze_command_queue_desc_t,
    queue: *mut ze_command_queue_handle_t,
) -> ze_result_t {
    guard(|| {
        // SAFETY: the caller's output pointer.
        let queue = unsafe { out(queue) }?;
        // SAFETY: the caller's descriptor.
        let (platform, object) = unsafe { queue_for(context, device, desc) }?;
        *queue = adopt(&platform, context as usize, Object::Queue(Arc::new(object)))
            as ze_command_queue_handle_t;
        Ok(())
    })
}

/// Refuses (and counts) destroying a queue or list that queued work still uses.
fn refuse_if_busy(platform: &Inner, worker: Option<usize>, list: usize) -> Result<(), ze_result_t> {
    let mut state = platform.lock();
    // A lost device runs nothing more that could use them. A queued job with no commands (a
    // barrier, an empty list) counts too: it may wait behind another queue's on the engine.
    let busy = !state.lost
        && (worker.is_some_and(|worker| {
            state.work.worker_ops.contains_key(&worker)
                || state
                    .work
                    .outstanding
                    .get(&worker)
                    .is_some_and(|&jobs| jobs > 0)
        }) || state.uses.list_uses.contains_key(&list));
    if busy {
        state.counters.destroy_hazards += 1;
        return Err(ze_result_t::ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE);
    }
    Ok(())
}

pub(crate) unsafe extern "C" fn queue_destroy(queue: ze_command_queue_handle_t) -> ze_result_t {
    guard(|| {
        let (platform, object) = registry::queue(queue as usize)?;
        refuse_if_busy(&platform, Some(object.worker.id), queue as usize)?;
        registry::unregister(queue as usize);
        object.worker.stop(&platform);
        {
            let mut state = platform.lock();
            platform.observe_worker(&state, object.worker.id);
            state.forget_worker(object.worker.id);
        }
        release(&platform, object.context, true);
        Ok(())
    })
}

/// The commands of closed regular `lists`, in order, for a queue or immediate list of
/// `context` on `engine`'s device and group: any other list is refused.
fn recorded_commands(
    lists: &[ze_command_list_handle_t],
    context: usize,
    engine: Engine,
) -> Result<Vec<Command>, ze_result_t> {
    let mut commands = Vec::new();
    for &list in lists {
        let (_, list) = registry::list(list as usize)?;
        if list.immediate.is_some()
            || list.context != context
            || list.engine.device != engine.device
            || list.engine.ordinal != engine.ordinal
        {
            return Err(ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT);
        }
        let recording = list
            .recording
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if !recording.closed {
            return Err(ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT);
        }
        commands.extend(recording.commands.iter().cloned());
    }
    Ok(commands)
}

pub(crate) unsafe extern "C" fn queue_execute_command_lists(
    queue: ze_command_queue_handle_t,
    count: u32,
    lists: *mut ze_command_list_handle_t,
    fence: ze_fence_handle_t,
) -> ze_result_t {
    guard(|| {
        let (platform, object) = registry::queue(queue as usize)?;
        if count == 0 {
            return Err(ze_result_t::ZE_RESULT_ERROR_INVALID_SIZE);
        }
        // SAFETY: the caller's array of `count` handles.
        let lists = unsafe { handles(count, lists) }?;
        let commands = recorded_commands(&lists, object.context, object.engine)?;
        let fence = if fence.is_null() {
            None
        } else {
            let (_, found) = registry::fence(fence as usize)?;
            if found.queue != queue as usize {
                return Err(ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT);
            }
            Some(fence as usize)
        };
        let executed: Vec<usize> = lists.iter().map(|&list| list as usize).collect();
        exec::submit(
            &platform,
            &object,
            &commands,
            &executed,
            fence,
            Submitter::Queue,
        )
    })
}

/// `zeCommandListImmediateAppendCommandListsExp`: closed regular lists of the immediate list's
/// context, device and engine group run on it, in order, between its waits and its signal.
pub(crate) unsafe extern "C" fn immediate_append_command_lists(
    list: ze_command_list_handle_t,
    count: u32,
    lists: *mut ze_command_list_handle_t,
    signal: ze_event_handle_t,
    wait_count: u32,
    waits: *mut ze_event_handle_t,
) -> ze_result_t {
    guard(|| {
        let (platform, object) = registry::list(list as usize)?;
        let Some(queue) = &object.immediate else {
            return Err(ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT);
        };
        if count == 0 {
            return Err(ze_result_t::ZE_RESULT_ERROR_INVALID_SIZE);
        }
        // SAFETY: the caller's array of `count` handles.
        let handles = unsafe { handles(count, lists) }?;
        let recorded = recorded_commands(&handles, object.context, object.engine)?;
        // SAFETY: the caller's wait list.
        let mut commands = unsafe { with_events(None, signal, wait_count, waits) }?;
        let at = usize::from(matches!(commands.first(), Some(Command::Wait(_))));
        commands.splice(at..at, recorded);
        let executed: Vec<usize> = handles.iter().map(|&handle| handle as usize).collect();
        exec::submit(
            &platform,
            queue,
            &commands,
            &executed,
            None,
            Submitter::ImmediateList,
        )
    })
}

pub(crate) unsafe extern "C" fn queue_synchronize(
    queue: ze_command_queue_handle_t,
    timeout: u64,
) -> ze_result_t {
    guard(|| {
        let (platform, object) = registry::queue(queue as usize)?;
        let worker = object.worker.id;
        let state = platform.lock();
        let done = platform.wait_until(state, timeout, |state| {
            let done = state.work.outstanding.get(&worker).copied().unwrap_or(0) == 0;
            if done {
                platform.observe_worker(state, worker);
            }
            done
        });
        if done {
            Ok(())
        } else {
            Err(ze_result_t::ZE_RESULT_NOT_READY)
        }
    })
}

pub(crate) unsafe extern "C" fn list_host_synchronize(
    list: ze_command_list_handle_t,
    timeout: u64,
) -> ze_result_t {
    guard(|| {
        let (platform, object) = registry::list(list as usize)?;
        // Only an immediate list runs work of its own to wait for (spec).
        let worker = object
            .immediate
            .as_ref()
            .ok_or(ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT)?
            .worker
            .id;
        let mut state = platform.lock();
        if object
            .appends_in_progress
            .load(std::sync::atomic::Ordering::Acquire)
            > 0
        {
            state.counters.list_call_overlaps += 1;
        }
        let done = platform.wait_until(state, timeout, |state| {
            let done = state.work.outstanding.get(&worker).copied().unwrap_or(0) == 0;
            if done {
                platform.observe_worker(state, worker);
            }
            done
        });
        if done {
            Ok(())
        } else {
            Err(ze_result_t::ZE_RESULT_NOT_READY)
        }
    })
}

pub(crate) unsafe extern "C" fn list_create(
    context: ze_context_handle_t,
    device: ze_device_handle_t,
    desc: *const ze_command_list_desc_t,
    list: *mut ze_command_list_handle_t,
) -> ze_result_t {
    guard(|| {
        let (platform, index) = super::context::context_device(context, device)?;
        // SAFETY: the caller's descriptor.
        let desc = unsafe { input(desc) }?;
        // SAFETY: the caller's output pointer.
        let list = unsafe { out(list) }?;
        let engine = engine(&platform, index, desc.commandQueueGroupOrdinal, 0)?;
        let cloneable =
            desc.flags & ze_command_list_flag_t::ZE_COMMAND_LIST_FLAG_EXP_CLONEABLE.0 != 0;
        let object = CommandList {
            context: context as usize,
            engine,
            cloneable,
            recording: Mutex::new(Recording::default()),
            immediate: None,
            appends_in_progress: Default::default(),
        };
        *list = adopt(&platform, context as usize, Object::List(Arc::new(object)))
            as ze_command_list_handle_t;
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn list_create_immediate(
    context: ze_context_handle_t,
    device: ze_device_handle_t,
    desc: *const ze_command_queue_desc_t,
    list: *mut ze_command_list_handle_t,
) -> ze_result_t {
    guard(|| {
        // SAFETY: the caller's output pointer.
        let list = unsafe { out(list) }?;
        // SAFETY: the caller's descriptor.
        let (platform, queue) = unsafe { queue_for(context, device, desc) }?;
        let object = CommandList {
            context: context as usize,
            engine: queue.engine,
            cloneable: false,
            recording: Mutex::new(Recording::default()),
            immediate: Some(queue),
            appends_in_progress: Default::default(),
        };
        *list = adopt(&platform, context as usize, Object::List(Arc::new(object)))
            as ze_command_list_handle_t;
        Ok(())
    })
}

/// `zeCommandListCreateCloneExp`: `ZE_RESULT_ERROR_UNSUPPORTED_FEATURE`, as compute-runtime
/// answers, unless the configuration models a driver that implements it
/// (`SimConfig::command_list_clone`); then a copy of a closed, cloneable list's commands (the
/// events and kernels they name are shared, as on a device), on the same context and engine.
pub(crate) unsafe extern "C" fn list_create_clone(
    list: ze_command_list_handle_t,
    clone: *mut ze_command_list_handle_t,
) -> ze_result_t {
    guard(|| {
        let (platform, source) = registry::list(list as usize)?;
        if !platform.config.command_list_clone {
            return Err(ze_result_t::ZE_RESULT_ERROR_UNSUPPORTED_FEATURE);
        }
        // SAFETY: the caller's output pointer.
        let clone = unsafe { out(clone) }?;
        if source.immediate.is_some() || !source.cloneable {
            return Err(ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT);
        }
        let commands = {
            let recording = source
                .recording
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner());
            if !recording.closed {
                return Err(ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT);
            }
            recording.commands.clone()
        };
        let object = CommandList {
            context: source.context,
            engine: source.engine,
            cloneable: true,
            recording: Mutex::new(Recording {
                commands,
                closed: true,
            }),
            immediate: None,
            appends_in_progress: Default::default(),
        };
        *clone = adopt(&platform, source.context, Object::List(Arc::new(object)))
            as ze_command_list_handle_t;
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn list_destroy(list: ze_command_list_handle_t) -> ze_result_t {
    guard(|| {
        let (platform, object) = registry::list(list as usize)?;
        let worker = object.immediate.as_ref().map(|queue| queue.worker.id);
        refuse_if_busy(&platform, worker, list as usize)?;
        registry::unregister(list as usize);
        if let Some(queue) = &object.immediate {
            queue.worker.stop(&platform);
            let mut state = platform.lock();
            platform.observe_worker(&state, queue.worker.id);
            state.forget_worker(queue.worker.id);
        }
        release(&platform, object.context, false);
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn list_close(list: ze_command_list_handle_t) -> ze_result_t {
    guard(|| {
        let (_, object) = registry::list(list as usize)?;
        if object.immediate.is_some() {
            // Nothing to close: compute-runtime answers success (its immediate list's `close`).
            return Ok(());
        }
        object
            .recording
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .closed = true;
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn list_reset(list: ze_command_list_handle_t) -> ze_result_t {
    guard(|| {
        let (_, object) = registry::list(list as usize)?;
        let mut recording = object
            .recording
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        recording.commands.clear();
        recording.closed = false;
        Ok(())
    })
}

/// Checks event handles and turns a signal event and wait list around `command`.
///
/// # Safety
/// `waits` must be valid for `wait_count` reads when `wait_count > 0`.
pub(crate) unsafe fn with_events(
    command: Option<Command>,
    signal: ze_event_handle_t,
    wait_count: u32,
    waits: *mut ze_event_handle_t,
) -> Result<Vec<Command>, ze_result_t> {
    // SAFETY: the caller's promise.
    let waits = unsafe { handles(wait_count, waits) }?;
    let mut commands = Vec::with_capacity(3);
    if !waits.is_empty() {
        let events = waits
            .into_iter()
            .map(|event| registry::event(event as usize).map(|(_, event)| event))
            .collect::<Result<Vec<_>, _>>()?;
        commands.push(Command::Wait(events));
    }
    commands.extend(command);
    if !signal.is_null() {
        let (_, event) = registry::event(signal as usize)?;
        commands.push(Command::Signal(event));
    }
    Ok(commands)
}

/// Appends to a regular list, or submits at once on an immediate one.
pub(crate) fn append(
    list: ze_command_list_handle_t,
    commands: Vec<Command>,
) -> Result<(), ze_result_t> {
    let (platform, object) = registry::list(list as usize)?;
    /// Counts the append as in progress while it lives.
    struct InProgress<'a>(&'a std::sync::atomic::AtomicU32);
    impl Drop for InProgress<'_> {
        fn drop(&mut self) {
            self.0.fetch_sub(1, std::sync::atomic::Ordering::AcqRel);
        }
    }
    object
        .appends_in_progress
        .fetch_add(1, std::sync::atomic::Ordering::AcqRel);
    let _in_progress = InProgress(&object.appends_in_progress);
    match &object.immediate {
        Some(queue) => exec::submit(
            &platform,
            queue,
            &commands,
            &[],
            None,
            Submitter::ImmediateList,
        ),
        None => {
            let mut recording = object
                .recording
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner());
            if recording.closed {
                // compute-runtime answers success and the command never runs (it lands past the
                // list's end; level-zero-tests' close-then-append tests rest on both), so the
                // simulator drops it and counts it; checking mode refuses it.
                if !platform.config.implicit_peer_import {
                    return Err(ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT);
                }
                drop(recording);
                platform.lock().counters.appends_after_close += 1;
                return Ok(());
            }
            recording.commands.extend(commands);
            Ok(())
        }
    }
}

pub(crate) unsafe extern "C" fn append_barrier(
    list: ze_command_list_handle_t,
    signal: ze_event_handle_t,
    wait_count: u32,
    waits: *mut ze_event_handle_t,
) -> ze_result_t {
    guard(|| {
        // SAFETY: the caller's wait list.
        let commands = unsafe { with_events(Some(Command::Barrier), signal, wait_count, waits) }?;
        append(list, commands)
    })
}

/// `zeCommandListAppendMemoryRangesBarrier`: a barrier (the ranges narrow nothing here).
pub(crate) unsafe extern "C" fn append_memory_ranges_barrier(
    list: ze_command_list_handle_t,
    count: u32,
    sizes: *const usize,
    ranges: *mut *const c_void,
    signal: ze_event_handle_t,
    wait_count: u32,
    waits: *mut ze_event_handle_t,
) -> ze_result_t {
    if count > 0 && (sizes.is_null() || ranges.is_null()) {
        return ze_result_t::ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    }
    // SAFETY: the caller's list, events and wait list.
    unsafe { append_barrier(list, signal, wait_count, waits) }
}

/// `zeCommandListAppendMemoryCopyWithParameters`: a copy whose extension chain changes nothing
/// here.
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe extern "C" fn append_memory_copy_with_parameters(
    list: ze_command_list_handle_t,
    dst: *mut c_void,
    src: *const c_void,
    size: usize,
    _parameters: *const c_void,
    signal: ze_event_handle_t,
    wait_count: u32,
    waits: *mut ze_event_handle_t,
) -> ze_result_t {
    // SAFETY: the caller's arguments.
    unsafe { append_memory_copy(list, dst, src, size, signal, wait_count, waits) }
}

/// `zeCommandListAppendMemoryFillWithParameters`: a fill whose extension chain changes nothing
/// here.
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe extern "C" fn append_memory_fill_with_parameters(
    list: ze_command_list_handle_t,
    dst: *mut c_void,
    pattern: *const c_void,
    pattern_size: usize,
    size: usize,
    _parameters: *const c_void,
    signal: ze_event_handle_t,
    wait_count: u32,
    waits: *mut ze_event_handle_t,
) -> ze_result_t {
    // SAFETY: the caller's arguments.
    unsafe {
        append_memory_fill(
            list,
            dst,
            pattern,
            pattern_size,
            size,
            signal,
            wait_count,
            waits,
        )
    }
}

/// An append the simulator does not implement (images, external semaphores): answered as
/// unsupported and counted by name, but
/// its signal event is still signalled, after its waits and the list's earlier work, so that a
/// caller waiting on it does not wait forever.
///
/// # Safety
/// `waits` must be valid for `wait_count` reads when `wait_count > 0`.
unsafe fn unsupported_append(
    name: &'static str,
    list: ze_command_list_handle_t,
    signal: ze_event_handle_t,
    wait_count: u32,
    waits: *mut ze_event_handle_t,
) -> ze_result_t {
    crate::model::unsupported::record_unsupported_call(name);
    if signal.is_null() {
        return ze_result_t::ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
    }
    let signalled = guard(|| {
        // SAFETY: the caller's wait list.
        let commands = unsafe { with_events(None, signal, wait_count, waits) }?;
        append(list, commands)
    });
    if signalled == ze_result_t::ZE_RESULT_SUCCESS {
        ze_result_t::ZE_RESULT_ERROR_UNSUPPORTED_FEATURE
    } else {
        signalled
    }
}

pub(crate) unsafe extern "C" fn append_image_copy(
    list: ze_command_list_handle_t,
    _dst: ze_image_handle_t,
    _src: ze_image_handle_t,
    signal: ze_event_handle_t,
    wait_count: u32,
    waits: *mut ze_event_handle_t,
) -> ze_result_t {
    // SAFETY: the caller's wait list.
    unsafe {
        unsupported_append(
            "zeCommandListAppendImageCopy",
            list,
            signal,
            wait_count,
            waits,
        )
    }
}

#[allow(clippy::too_many_arguments)]
pub(crate) unsafe extern "C" fn append_image_copy_region(
    list: ze_command_list_handle_t,
    _dst: ze_image_handle_t,
    _src: ze_image_handle_t,
    _dst_region: *const ze_image_region_t,
    _src_region: *const ze_image_region_t,
    signal: ze_event_handle_t,
    wait_count: u32,
    waits: *mut ze_event_handle_t,
) -> ze_result_t {
    // SAFETY: the caller's wait list.
    unsafe {
        unsupported_append(
            "zeCommandListAppendImageCopyRegion",
            list,
            signal,
            wait_count,
            waits,
        )
    }
}

pub(crate) unsafe extern "C" fn append_image_copy_to_memory(
    list: ze_command_list_handle_t,
    _dst: *mut c_void,
    _src: ze_image_handle_t,
    _region: *const ze_image_region_t,
    signal: ze_event_handle_t,
    wait_count: u32,
    waits: *mut ze_event_handle_t,
) -> ze_result_t {
    // SAFETY: the caller's wait list.
    unsafe {
        unsupported_append(
            "zeCommandListAppendImageCopyToMemory",
            list,
            signal,
            wait_count,
            waits,
        )
    }
}

pub(crate) unsafe extern "C" fn append_image_copy_from_memory(
    list: ze_command_list_handle_t,
    _dst: ze_image_handle_t,
    _src: *const c_void,
    _region: *const ze_image_region_t,
    signal: ze_event_handle_t,
    wait_count: u32,
    waits: *mut ze_event_handle_t,
) -> ze_result_t {
    // SAFETY: the caller's wait list.
    unsafe {
        unsupported_append(
            "zeCommandListAppendImageCopyFromMemory",
            list,
            signal,
            wait_count,
            waits,
        )
    }
}

pub(crate) unsafe extern "C" fn append_memory_copy(
    list: ze_command_list_handle_t,
    dst: *mut c_void,
    src: *const c_void,
    size: usize,
    signal: ze_event_handle_t,
    wait_count: u32,
    waits: *mut ze_event_handle_t,
) -> ze_result_t {
    // SAFETY: the caller's arguments.
    unsafe { copy_between(list, dst, None, src, size, signal, wait_count, waits) }
}

/// A copy whose source lies in `src_context` (`None`: the list's).
///
/// # Safety
/// `waits` must be valid for `wait_count` reads when `wait_count > 0`.
#[allow(clippy::too_many_arguments)]
unsafe fn copy_between(
    list: ze_command_list_handle_t,
    dst: *mut c_void,
    src_context: Option<ze_context_handle_t>,
    src: *const c_void,
    size: usize,
    signal: ze_event_handle_t,
    wait_count: u32,
    waits: *mut ze_event_handle_t,
) -> ze_result_t {
    guard(|| {
        let src_context = match src_context {
            Some(context) => Some(registry::context(context as usize).map(|_| context as usize)?),
            None => None,
        };
        if dst.is_null() || src.is_null() {
            return Err(ze_result_t::ZE_RESULT_ERROR_INVALID_NULL_POINTER);
        }
        let (dst, src) = (dst as usize, src as usize);
        let overlap = dst < src.saturating_add(size) && src < dst.saturating_add(size);
        if size > 0 && overlap {
            return Err(ze_result_t::ZE_RESULT_ERROR_OVERLAPPING_REGIONS);
        }
        let copy = Command::Copy {
            dst,
            src,
            size,
            src_context,
        };
        // SAFETY: the caller's wait list.
        let commands = unsafe { with_events(Some(copy), signal, wait_count, waits) }?;
        append(list, commands)
    })
}

/// Most rows one region copy may have (height times depth): each becomes a command of its own
/// unless contiguous with the one before on both sides, so this bounds the memory an append
/// takes (about 64 MiB of commands).
const MAX_REGION_ROWS: usize = 1 << 20;

/// A region of `region` at `base` with row pitch `pitch` and slice pitch `slice_pitch`: each
/// row's (address, width), rows of a slice first.
fn region_rows(
    base: usize,
    region: &ze_copy_region_t,
    pitch: u32,
    slice_pitch: u32,
) -> Result<Vec<(usize, usize)>, ze_result_t> {
    let invalid = ze_result_t::ZE_RESULT_ERROR_INVALID_SIZE;
    let width = region.width as usize;
    if region.height > 1 && region.width > pitch {
        // Rows would overlap each other.
        return Err(invalid);
    }
    // A slice's last row ends within the slice pitch, or slices would overlap.
    let slice_extent =
        u64::from(pitch) * u64::from(region.height.saturating_sub(1)) + u64::from(region.width);
    if region.depth > 1 && slice_extent > u64::from(slice_pitch) {
        return Err(invalid);
    }
    // A depth of 0 is a 2D region, one slice (compute-runtime copies depths up to 1 in 2D).
    let depth = region.depth.max(1);
    let rows = (region.height as usize)
        .checked_mul(depth as usize)
        .ok_or(invalid)?;
    if rows > MAX_REGION_ROWS {
        return Err(ze_result_t::ZE_RESULT_ERROR_UNSUPPORTED_SIZE);
    }
    let mut out = Vec::with_capacity(rows);
    for z in 0..u64::from(depth) {
        for y in 0..u64::from(region.height) {
            let offset = (u64::from(region.originZ) + z)
                .checked_mul(u64::from(slice_pitch))
                .and_then(|slice| {
                    (u64::from(region.originY) + y)
                        .checked_mul(u64::from(pitch))
                        .and_then(|row| slice.checked_add(row))
                })
                .and_then(|offset| offset.checked_add(u64::from(region.originX)))
                .and_then(|offset| usize::try_from(offset).ok())
                .ok_or(invalid)?;
            let address = base.checked_add(offset).ok_or(invalid)?;
            address.checked_add(width).ok_or(invalid)?;
            out.push((address, width));
        }
    }
    Ok(out)
}

/// Copies a 2D or 3D region (`zeCommandListAppendMemoryCopyRegion`): one copy per row, rows
/// contiguous on both sides merged, every row checked like a copy; overlapping source and
/// destination bytes are refused.
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe extern "C" fn append_memory_copy_region(
    list: ze_command_list_handle_t,
    dst: *mut c_void,
    dst_region: *const ze_copy_region_t,
    dst_pitch: u32,
    dst_slice_pitch: u32,
    src: *const c_void,
    src_region: *const ze_copy_region_t,
    src_pitch: u32,
    src_slice_pitch: u32,
    signal: ze_event_handle_t,
    wait_count: u32,
    waits: *mut ze_event_handle_t,
) -> ze_result_t {
    guard(|| {
        if dst.is_null() || src.is_null() {
            return Err(ze_result_t::ZE_RESULT_ERROR_INVALID_NULL_POINTER);
        }
        // SAFETY: the caller's regions.
        let (dst_region, src_region) = unsafe { (input(dst_region)?, input(src_region)?) };
        // Depths of 0 and 1 are both one slice.
        let same_shape = (dst_region.width, dst_region.height, dst_region.depth.max(1))
            == (src_region.width, src_region.height, src_region.depth.max(1));
        if !same_shape {
            return Err(ze_result_t::ZE_RESULT_ERROR_INVALID_SIZE);
        }
        let dst_rows = region_rows(dst as usize, dst_region, dst_pitch, dst_slice_pitch)?;
        let src_rows = region_rows(src as usize, src_region, src_pitch, src_slice_pitch)?;
        // Overlap of any source row with any destination row. Destination rows are of one
        // width and do not overlap each other, so sorted by start their ends are sorted too:
        // the last one starting before a source row ends is the only one that can reach it.
        let mut sorted = dst_rows.clone();
        sorted.sort_unstable();
        let overlaps = src_rows.iter().any(|&(start, width)| {
            let before_end = sorted.partition_point(|&(row, _)| row < start + width);
            width > 0
                && sorted[..before_end]
                    .last()
                    .is_some_and(|&(row, row_width)| row + row_width > start)
        });
        if overlaps {
            return Err(ze_result_t::ZE_RESULT_ERROR_OVERLAPPING_REGIONS);
        }
        // Rows contiguous with the one before on both sides become one copy, unless that copy
        // would span two allocations (each row alone may lie in one).
        let (platform, _) = registry::list(list as usize)?;
        let state = platform.lock();
        // Both ends in the same allocation, or both in none, and nothing of one between.
        let within_one = |start: usize, size: usize| {
            let find =
                |address| crate::engine::platform::Inner::find_allocation(&state, address, 1);
            crate::engine::platform::Inner::find_allocation(&state, start, size).is_ok()
                && find(start).ok() == find(start + size - 1).ok()
                && (find(start).ok().flatten().is_some()
                    || state
                        .memory
                        .allocations
                        .range(start..start + size)
                        .next()
                        .is_none())
        };
        let mut copies: Vec<(usize, usize, usize)> = Vec::with_capacity(dst_rows.len());
        for (&(dst, size), &(src, _)) in dst_rows.iter().zip(&src_rows) {
            if size == 0 {
                continue;
            }
            match copies.last_mut() {
                Some((last_dst, last_src, last_size))
                    if *last_dst + *last_size == dst
                        && *last_src + *last_size == src
                        && within_one(*last_dst, *last_size + size)
                        && within_one(*last_src, *last_size + size) =>
                {
                    *last_size += size;
                }
                _ => copies.push((dst, src, size)),
            }
        }
        drop(state);
        // SAFETY: the caller's wait list.
        let mut commands = unsafe { with_events(None, signal, wait_count, waits) }?;
        let at = usize::from(matches!(commands.first(), Some(Command::Wait(_))));
        commands.splice(
            at..at,
            copies.into_iter().map(|(dst, src, size)| Command::Copy {
                dst,
                src,
                size,
                src_context: None,
            }),
        );
        append(list, commands)
    })
}

pub(crate) unsafe extern "C" fn append_memory_fill(
    list: ze_command_list_handle_t,
    dst: *mut c_void,
    pattern: *const c_void,
    pattern_size: usize,
    size: usize,
    signal: ze_event_handle_t,
    wait_count: u32,
    waits: *mut ze_event_handle_t,
) -> ze_result_t {
    guard(|| {
        if dst.is_null() || pattern.is_null() {
            return Err(ze_result_t::ZE_RESULT_ERROR_INVALID_NULL_POINTER);
        }
        let (platform, object) = registry::list(list as usize)?;
        let groups = crate::model::queue_groups::queue_groups(
            &platform.config.devices[object.engine.device as usize],
        );
        let limit = groups
            .get(object.engine.ordinal as usize)
            .map_or(1, |group| group.max_fill_pattern_size);
        if !pattern_size.is_power_of_two() || pattern_size > limit {
            return Err(ze_result_t::ZE_RESULT_ERROR_INVALID_SIZE);
        }
        // Only the bytes a fill of `size` reaches: a pattern may be longer than the fill.
        let used = pattern_size.min(size);
        // SAFETY: the caller's pattern of `pattern_size` bytes, of which the first `used`.
        let pattern = unsafe { std::slice::from_raw_parts(pattern as *const u8, used) };
        let fill = Command::Fill {
            dst: dst as usize,
            pattern: pattern.to_vec(),
            size,
        };
        // SAFETY: the caller's wait list.
        let commands = unsafe { with_events(Some(fill), signal, wait_count, waits) }?;
        append(list, commands)
    })
}

pub(crate) unsafe extern "C" fn append_signal_event(
    list: ze_command_list_handle_t,
    event: ze_event_handle_t,
) -> ze_result_t {
    guard(|| {
        if event.is_null() {
            return Err(ze_result_t::ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
        }
        // SAFETY: no wait list.
        let commands = unsafe { with_events(None, event, 0, std::ptr::null_mut()) }?;
        append(list, commands)
    })
}

pub(crate) unsafe extern "C" fn append_wait_on_events(
    list: ze_command_list_handle_t,
    count: u32,
    events: *mut ze_event_handle_t,
) -> ze_result_t {
    guard(|| {
        // SAFETY: the caller's array of `count` events.
        let commands = unsafe { with_events(None, std::ptr::null_mut(), count, events) }?;
        append(list, commands)
    })
}

pub(crate) unsafe extern "C" fn append_event_reset(
    list: ze_command_list_handle_t,
    event: ze_event_handle_t,
) -> ze_result_t {
    guard(|| {
        let (_, event) = registry::event(event as usize)?;
        append(list, vec![Command::Reset(event)])
    })
}

/// A copy whose source belongs to another context of the same driver (its operands'
/// residency checked on the list's device, the source's in its own context).
pub(crate) unsafe extern "C" fn append_memory_copy_from_context(
    list: ze_command_list_handle_t,
    dst: *mut c_void,
    source_context: ze_context_handle_t,
    src: *const c_void,
    size: usize,
    signal: ze_event_handle_t,
    wait_count: u32,
    waits: *mut ze_event_handle_t,
) -> ze_result_t {
    if source_context.is_null() {
        return ze_result_t::ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    }
    // SAFETY: the caller's arguments.
    unsafe {
        copy_between(
            list,
            dst,
            Some(source_context),
            src,
            size,
            signal,
            wait_count,
            waits,
        )
    }
}

/// Writes the device's timestamp (the simulator's clock at append, in nanoseconds) to `dst`, an
/// 8-byte write whose residency is checked like a fill's.
pub(crate) unsafe extern "C" fn append_write_global_timestamp(
    list: ze_command_list_handle_t,
    dst: *mut u64,
    signal: ze_event_handle_t,
    wait_count: u32,
    waits: *mut ze_event_handle_t,
) -> ze_result_t {
    guard(|| {
        if dst.is_null() {
            return Err(ze_result_t::ZE_RESULT_ERROR_INVALID_NULL_POINTER);
        }
        let (platform, _) = registry::list(list as usize)?;
        let write = Command::Fill {
            dst: dst as usize,
            pattern: platform.now_ns().to_ne_bytes().to_vec(),
            size: size_of::<u64>(),
        };
        // SAFETY: the caller's wait list.
        let commands = unsafe { with_events(Some(write), signal, wait_count, waits) }?;
        append(list, commands)
    })
}

/// Writes one `ze_kernel_timestamp_result_t` per event to `dst` (at `offsets` when given): the
/// event's kernel timestamps when the write runs (after the waits), zeros for an event that has
/// none; the writes' residency is checked like a fill's.
pub(crate) unsafe extern "C" fn append_query_kernel_timestamps(
    list: ze_command_list_handle_t,
    count: u32,
    events: *mut ze_event_handle_t,
    dst: *mut c_void,
    offsets: *const usize,
    signal: ze_event_handle_t,
    wait_count: u32,
    waits: *mut ze_event_handle_t,
) -> ze_result_t {
    guard(|| {
        if dst.is_null() {
            return Err(ze_result_t::ZE_RESULT_ERROR_INVALID_NULL_POINTER);
        }
        // SAFETY: the caller's array of `count` events.
        let events = unsafe { handles(count, events) }?;
        let events = events
            .iter()
            .map(|&event| registry::event(event as usize).map(|(_, event)| event))
            .collect::<Result<Vec<_>, _>>()?;
        let record = size_of::<ze_kernel_timestamp_result_t>();
        let mut writes = Vec::with_capacity(events.len());
        for (index, event) in events.into_iter().enumerate() {
            let offset = if offsets.is_null() {
                index
                    .checked_mul(record)
                    .ok_or(ze_result_t::ZE_RESULT_ERROR_INVALID_SIZE)?
            } else {
                // SAFETY: the caller's array of `count` offsets.
                unsafe { *offsets.add(index) }
            };
            let at = (dst as usize)
                .checked_add(offset)
                .ok_or(ze_result_t::ZE_RESULT_ERROR_INVALID_SIZE)?;
            writes.push(Command::KernelTimestamp { dst: at, event });
        }
        let mut commands = Vec::new();
        // SAFETY: the caller's wait list.
        commands.extend(unsafe { with_events(None, std::ptr::null_mut(), wait_count, waits) }?);
        commands.extend(writes);
        // SAFETY: no wait list.
        commands.extend(unsafe { with_events(None, signal, 0, std::ptr::null_mut()) }?);
        append(list, commands)
    })
}

/// The range of a prefetch or memory advice: inside one allocation of the list's context, or
/// `ZE_RESULT_ERROR_INVALID_ARGUMENT`.
fn hinted_range(
    list: ze_command_list_handle_t,
    pointer: *const c_void,
    size: usize,
) -> Result<(), ze_result_t> {
    let (platform, object) = registry::list(list as usize)?;
    if pointer.is_null() {
        return Err(ze_result_t::ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    }
    let state = platform.lock();
    let base =
        crate::engine::platform::Inner::find_allocation(&state, pointer as usize, size.max(1))?
            .ok_or(ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT)?;
    if state.memory.allocations[&base].context != object.context {
        return Err(ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT);
    }
    Ok(())
}

/// `zeCommandListAppendMemoryPrefetch`: a hint, checked and then without effect (the simulated
/// devices' memory is the host's, already where every engine reads it).
pub(crate) unsafe extern "C" fn append_memory_prefetch(
    list: ze_command_list_handle_t,
    pointer: *const c_void,
    size: usize,
) -> ze_result_t {
    guard(|| hinted_range(list, pointer, size))
}

/// `zeCommandListAppendMemAdvise`: as a prefetch, a hint checked and then without effect.
pub(crate) unsafe extern "C" fn append_mem_advise(
    list: ze_command_list_handle_t,
    device: ze_device_handle_t,
    pointer: *const c_void,
    size: usize,
    _advice: ze_memory_advice_t,
) -> ze_result_t {
    guard(|| {
        let (device_platform, _) = registry::device(device as usize)?;
        let (platform, _) = registry::list(list as usize)?;
        if !std::sync::Arc::ptr_eq(&platform, &device_platform) {
            return Err(ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT);
        }
        hinted_range(list, pointer, size)
    })
}
