//! Command queues, recorded command lists and fences: record once, submit, wait on a fence.
//!
//! Ordering rests on ownership, never on a borrow or a destructor: a recorded list owns the
//! buffers it records ([`Held`]), and a [`Submission`] owns the list and shares the queue until
//! the fence has signalled. Leaking a submission leaks all of that, which is safe.

use crate::error::{Error, Result, check};
use crate::ze::call::{ze_call, ze_name};
use crate::ze::context::Context;
use crate::ze::device::Engine;
use crate::ze::event::{Event, settle};
use crate::ze::memory::{Memory, held_uses};
use crate::ze::uses::HeldUse;
use level_zero_sys::*;
use std::any::Any;
use std::ffi::c_void;
use std::marker::PhantomData;
use std::ptr::null_mut;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// A command queue on one engine.
///
/// ```
/// use lazy_usm::{CommandQueue, Context, RecordedList, Runtime};
/// let devices = Runtime::simulated("b70x2")?.devices()?;
/// let context = Context::new(&devices)?;
/// let engine = devices[0].preferred_copy_engine()?;
/// let queue = CommandQueue::new(&context, &engine)?;
/// let mut source = context.alloc_host(256, 0)?;
/// source.as_mut_slice().fill(5);
/// let mut list = RecordedList::new(&context, &engine)?;
/// let source = list.hold(source)?;
/// let target = list.hold(context.alloc_host(256, 0)?)?;
/// list.copy(target, 0, source, 0, 256)?;
/// list.close()?;
/// let list = queue.execute(list)?.wait()?;
/// assert_eq!(list.get(target)?.as_slice(), &[5; 256]);
/// # Ok::<(), lazy_usm::Error>(())
/// ```
pub struct CommandQueue {
    inner: Arc<QueueInner>,
}

struct QueueInner {
    context: Context,
    engine: Engine,
    handle: ze_command_queue_handle_t,
}

// SAFETY: a queue handle may be used from any thread (Level Zero queues are thread-safe for
// submission); the wrapper adds no shared mutable state.
unsafe impl Send for QueueInner {}
// SAFETY: as above.
unsafe impl Sync for QueueInner {}

impl std::fmt::Debug for CommandQueue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CommandQueue")
            .field("engine", &self.inner.engine)
            .finish_non_exhaustive()
    }
}

impl Drop for QueueInner {
    fn drop(&mut self) {
        // Submissions share the queue until their work completes, so none is pending here.
        // SAFETY: a live queue, destroyed once, here.
        let result = unsafe { (self.context.api().command_queue_destroy)(self.handle) };
        self.context
            .check_drop(ze_name!(command_queue_destroy), result);
    }
}

impl CommandQueue {
    /// A queue on `engine`, a device of `context`.
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// let context = Context::new(&devices)?;
    /// let queue = CommandQueue::new(&context, &devices[0].compute_engine()?)?;
    /// let single = Context::new(&devices[..1])?;
    /// assert!(matches!(
    ///     CommandQueue::new(&single, &devices[1].compute_engine()?),
    ///     Err(Error::DeviceNotInContext { device: 1, .. })
    /// ));
    /// drop(queue);
    /// # Ok::<(), Error>(())
    /// ```
    pub fn new(context: &Context, engine: &Engine) -> Result<Self> {
        context.check_device(&engine.device)?;
        let desc = engine.queue_desc();
        let mut handle = null_mut();
        // SAFETY: a live context and device of it, a valid descriptor and output pointer.
        unsafe {
            ze_call!(
                context.api(),
                command_queue_create(
                    context.handle().0,
                    engine.device.handle().0,
                    &desc,
                    &mut handle,
                )
            )
        }?;
        Ok(Self {
            inner: Arc::new(QueueInner {
                context: context.clone(),
                engine: engine.clone(),
                handle,
            }),
        })
    }

    /// Runs a closed list. The returned submission owns the list (and through it the buffers it
    /// holds) and shares the queue until the work completes; [`Submission::wait`] hands the
    /// list back. If the list cannot be submitted, the error carries it back unharmed.
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// let context = Context::new(&devices)?;
    /// let engine = devices[0].compute_engine()?;
    /// let queue = CommandQueue::new(&context, &engine)?;
    /// let list = RecordedList::new(&context, &engine)?;
    /// let mut list = match queue.execute(list) {
    ///     Err(refused) => *refused.list, // not closed yet
    ///     Ok(_) => unreachable!(),
    /// };
    /// list.close()?;
    /// let list = queue.execute(list)?.wait()?;
    /// queue.execute(list)?.wait()?; // again
    /// # Ok::<(), Error>(())
    /// ```
    pub fn execute(&self, list: RecordedList) -> Result<Submission, Unsubmitted> {
        let refuse = |error: Error, list: RecordedList| {
            Err(Unsubmitted {
                error,
                list: Box::new(list),
            })
        };
        if !list.closed {
            return refuse(
                Error::invalid("a recorded list must be closed before it is executed"),
                list,
            );
        }
        // Every held buffer must still be the memory the commands were recorded with: taken
        // out, or swapped through `get_mut`, the commands would reach memory the list no
        // longer owns.
        let moved = list.held.iter().position(|held| {
            let range = held
                .memory
                .as_deref()
                .and_then(|memory| (held.range)(memory as &dyn Any));
            range != Some((held.address, held.len))
        });
        if let Some(index) = moved {
            return refuse(
                Error::invalid(format!(
                    "held buffer {index} was taken out or replaced, and the list's commands \
                     still use the memory it held"
                )),
                list,
            );
        }
        let queue = &self.inner;
        if list.context != queue.context
            || list.engine.device != queue.engine.device
            || list.engine.group.ordinal != queue.engine.group.ordinal
        {
            let error = Error::invalid(format!(
                "the list was recorded for queue group {} of device {}, not this queue's group {} of device {}",
                list.engine.group.ordinal,
                list.engine.device.index(),
                queue.engine.group.ordinal,
                queue.engine.device.index()
            ));
            return refuse(error, list);
        }
        let desc = ze_fence_desc_t {
            stype: ze_structure_type_t::ZE_STRUCTURE_TYPE_FENCE_DESC,
            ..Default::default()
        };
        let mut fence = null_mut();
        let api = queue.context.api();
        // SAFETY: a live queue, a valid descriptor and output pointer.
        let created = unsafe { ze_call!(api, fence_create(queue.handle, &desc, &mut fence)) };
        if let Err(error) = created {
            return refuse(error, list);
        }
        let mut handles = [list.handle];
        // SAFETY: a live queue, a closed list of the same context and group, a live fence.
        let executed = unsafe {
            ze_call!(
                api,
                command_queue_execute_command_lists(queue.handle, 1, handles.as_mut_ptr(), fence)
            )
        };
        if let Err(error) = executed {
            // Nothing was submitted: the fence will never signal, so it goes now, and no
            // submission exists whose drop would wait on it.
            // SAFETY: a live fence no work refers to, destroyed once, here.
            let result = unsafe { (api.fence_destroy)(fence) };
            queue.context.check_drop(ze_name!(fence_destroy), result);
            return refuse(error, list);
        }
        Ok(Submission {
            queue: Arc::clone(queue),
            fence,
            list: Some(list),
        })
    }
}

/// A list [`CommandQueue::execute`] refused, with why; converts into [`Error`] for `?`.
#[derive(Debug)]
pub struct Unsubmitted {
    /// Why it was refused.
    pub error: Error,
    /// The list, unchanged (boxed: it keeps the error small).
    pub list: Box<RecordedList>,
}

impl std::fmt::Display for Unsubmitted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "the list was not submitted: {}", self.error)
    }
}

impl std::error::Error for Unsubmitted {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.error)
    }
}

impl From<Unsubmitted> for Error {
    fn from(refused: Unsubmitted) -> Self {
        refused.error
    }
}

/// A list submitted to a [`CommandQueue`], tracked by a fence. Owns the list and shares the
/// queue until the work completes. Dropping it waits, then drops the list.
pub struct Submission {
    queue: Arc<QueueInner>,
    fence: ze_fence_handle_t,
    list: Option<RecordedList>,
}

// SAFETY: the fence handle may be waited on and destroyed from any thread; the rest is `Send`.
unsafe impl Send for Submission {}

impl std::fmt::Debug for Submission {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Submission")
            .field("engine", &self.queue.engine)
            .finish_non_exhaustive()
    }
}

impl Submission {
    /// Whether the work has completed.
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// let context = Context::new(&devices)?;
    /// let engine = devices[0].compute_engine()?;
    /// let queue = CommandQueue::new(&context, &engine)?;
    /// let mut list = RecordedList::new(&context, &engine)?;
    /// list.close()?;
    /// let submission = queue.execute(list)?;
    /// while !submission.is_complete()? {
    ///     std::thread::yield_now();
    /// }
    /// assert!(submission.is_complete()?, "stays complete");
    /// # Ok::<(), Error>(())
    /// ```
    pub fn is_complete(&self) -> Result<bool> {
        // SAFETY: a live fence.
        match unsafe { (self.queue.context.api().fence_query_status)(self.fence) } {
            ze_result_t::ZE_RESULT_SUCCESS => Ok(true),
            ze_result_t::ZE_RESULT_NOT_READY => Ok(false),
            other => Err(Error::from_result(ze_name!(fence_query_status), other)),
        }
    }

    /// Waits for the work to complete and hands the list back, to read its buffers or run it
    /// again.
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// let context = Context::new(&devices)?;
    /// let engine = devices[0].compute_engine()?;
    /// let queue = CommandQueue::new(&context, &engine)?;
    /// let mut list = RecordedList::new(&context, &engine)?;
    /// list.close()?;
    /// let list = queue.execute(list)?.wait()?;
    /// assert!(list.is_closed());
    /// # Ok::<(), Error>(())
    /// ```
    pub fn wait(mut self) -> Result<RecordedList> {
        // On failure the list stays here, and `Drop` settles before releasing it.
        self.settle()?;
        self.list
            .take()
            .ok_or_else(|| Error::Internal("a submission lost its list".into()))
    }

    fn synchronize(&self) -> Result<()> {
        loop {
            // SAFETY: a live fence.
            match unsafe { (self.queue.context.api().fence_host_synchronize)(self.fence, u64::MAX) }
            {
                ze_result_t::ZE_RESULT_SUCCESS => return Ok(()),
                // "Not yet", even from an infinite wait: wait again.
                ze_result_t::ZE_RESULT_NOT_READY => std::thread::yield_now(),
                other => return Err(Error::from_result(ze_name!(fence_host_synchronize), other)),
            }
        }
    }

    /// Waits until the work can no longer touch the list's buffers.
    fn settle(&self) -> Result<()> {
        settle(|| self.synchronize(), || self.is_complete())
    }
}

impl Drop for Submission {
    fn drop(&mut self) {
        let context = &self.queue.context;
        if let Err(error) = self.settle() {
            context.record_drop_error(error);
        }
        // SAFETY: a live fence whose work has completed, destroyed once, here.
        let result = unsafe { (context.api().fence_destroy)(self.fence) };
        context.check_drop(ze_name!(fence_destroy), result);
        // The list, and the buffers it holds, go after the work is done.
        drop(self.list.take());
    }
}

/// A buffer a [`RecordedList`] holds: a typed index, valid for that list only.
pub struct Held<T> {
    list: u64,
    index: usize,
    _type: PhantomData<fn() -> T>,
}

impl<T> Held<T> {
    pub(crate) fn index(&self) -> usize {
        self.index
    }

    pub(crate) fn list(&self) -> u64 {
        self.list
    }
}

impl<T> Clone for Held<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for Held<T> {}

impl<T> std::fmt::Debug for Held<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Held")
            .field("list", &self.list)
            .field("index", &self.index)
            .finish()
    }
}

struct HeldEntry {
    /// Managed memory stays pinned against eviction while the list holds it (declared first:
    /// it goes before the memory).
    _pin: Option<HeldUse>,
    /// `None` once taken back out.
    memory: Option<Box<dyn Any + Send>>,
    /// Where the commands recorded it; `execute` checks the held memory is still there.
    address: usize,
    len: usize,
    /// Reads the held memory's range back (the memory's type is known only here).
    range: fn(&dyn Any) -> Option<(usize, usize)>,
}

fn range_of<T: Memory + 'static>(memory: &dyn Any) -> Option<(usize, usize)> {
    memory
        .downcast_ref::<T>()
        .map(|memory| (memory.address(), memory.len()))
}

static NEXT_LIST: AtomicU64 = AtomicU64::new(1);

/// A regular command list: commands are recorded, then executed on a [`CommandQueue`].
///
/// The list owns every buffer its commands use ([`RecordedList::hold`]); while it runs, the
/// [`Submission`] owns the list, so no buffer can be read, freed or touched under the device.
///
/// ```
/// # use lazy_usm::*;
/// # let runtime = Runtime::simulated("b70x2")?;
/// # let devices = runtime.devices()?;
/// let context = Context::new(&devices)?;
/// let engine = devices[1].preferred_copy_engine()?;
/// let queue = CommandQueue::new(&context, &engine)?;
/// let mut list = RecordedList::new(&context, &engine)?;
/// let device = list.hold(context.alloc_device(&devices[1], 64, 0)?)?;
/// let host = list.hold(context.alloc_host(64, 0)?)?;
/// list.get_mut(host)?.as_mut_slice().fill(9);
/// list.copy(device, 0, host, 0, 64)?;
/// list.close()?;
/// let submission = queue.execute(list)?;
/// std::mem::forget(submission); // leaks the list and its buffers: nothing is freed under the copy
/// # Ok::<(), Error>(())
/// ```
pub struct RecordedList {
    id: u64,
    context: Context,
    engine: Engine,
    handle: ze_command_list_handle_t,
    closed: bool,
    held: Vec<HeldEntry>,
    /// Kernels its launches use: kept as long as the list.
    kernels: Vec<crate::ze::module::Kernel>,
    /// Events its commands signal or wait on: kept as long as the list.
    events: Vec<Arc<Event>>,
}

// SAFETY: the list handle may be used from any thread as long as calls on it are not
// concurrent, which `&mut self` on every recording method guarantees; held buffers are `Send`.
unsafe impl Send for RecordedList {}

impl std::fmt::Debug for RecordedList {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RecordedList")
            .field("engine", &self.engine)
            .field("closed", &self.closed)
            .field("held", &self.held.len())
            .finish_non_exhaustive()
    }
}

impl Drop for RecordedList {
    fn drop(&mut self) {
        // SAFETY: a live list; a submission owns it while it runs, so none is pending here.
        let result = unsafe { (self.context.api().command_list_destroy)(self.handle) };
        self.context
            .check_drop(ze_name!(command_list_destroy), result);
    }
}

impl RecordedList {
    /// An empty list for the queue group of `engine`.
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// let context = Context::new(&devices)?;
    /// let list = RecordedList::new(&context, &devices[1].preferred_copy_engine()?)?;
    /// drop(list);
    /// # Ok::<(), Error>(())
    /// ```
    pub fn new(context: &Context, engine: &Engine) -> Result<Self> {
        context.check_device(&engine.device)?;
        let desc = ze_command_list_desc_t {
            stype: ze_structure_type_t::ZE_STRUCTURE_TYPE_COMMAND_LIST_DESC,
            commandQueueGroupOrdinal: engine.group.ordinal,
            ..Default::default()
        };
        let mut handle = null_mut();
        // SAFETY: a live context and device of it, a valid descriptor and output pointer.
        unsafe {
            ze_call!(
                context.api(),
                command_list_create(
                    context.handle().0,
                    engine.device.handle().0,
                    &desc,
                    &mut handle,
                )
            )
        }?;
        Ok(Self {
            id: NEXT_LIST.fetch_add(1, Ordering::Relaxed),
            context: context.clone(),
            engine: engine.clone(),
            handle,
            closed: false,
            held: Vec::new(),
            kernels: Vec::new(),
            events: Vec::new(),
        })
    }

    /// Takes ownership of `memory` (a buffer of the list's context) for the list's commands.
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// let context = Context::new(&devices)?;
    /// let mut list = RecordedList::new(&context, &devices[0].compute_engine()?)?;
    /// let held = list.hold(context.alloc_host(16, 0)?)?;
    /// assert_eq!(list.get(held)?.len(), 16);
    /// let other = Context::new(&devices)?;
    /// assert!(matches!(list.hold(other.alloc_host(16, 0)?), Err(Error::ForeignMemory { .. })));
    /// # Ok::<(), Error>(())
    /// ```
    pub fn hold<T: Memory + Send + 'static>(&mut self, memory: T) -> Result<Held<T>> {
        self.context.check_memory(&memory)?;
        let (address, len) = (memory.address(), memory.len());
        let pin = held_uses(&[&memory]).pop();
        self.held.push(HeldEntry {
            _pin: pin,
            memory: Some(Box::new(memory)),
            address,
            len,
            range: range_of::<T>,
        });
        Ok(Held {
            list: self.id,
            index: self.held.len() - 1,
            _type: PhantomData,
        })
    }

    fn entry<T>(&self, held: Held<T>) -> Result<&HeldEntry> {
        if held.list != self.id {
            return Err(Error::ForeignObject {
                what: "held buffer",
                detail: format!("it belongs to list {}, not list {}", held.list, self.id),
            });
        }
        self.held
            .get(held.index)
            .filter(|entry| entry.memory.is_some())
            .ok_or_else(|| Error::invalid(format!("held buffer {} was taken out", held.index)))
    }

    /// A held buffer, to read. Nothing runs on the list while you hold `&self`.
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// let context = Context::new(&devices)?;
    /// let mut list = RecordedList::new(&context, &devices[0].compute_engine()?)?;
    /// let held = list.hold(context.alloc_host(4, 0)?)?;
    /// assert_eq!(list.get(held)?.as_slice(), &[0; 4]);
    /// # Ok::<(), Error>(())
    /// ```
    pub fn get<T: 'static>(&self, held: Held<T>) -> Result<&T> {
        self.entry(held)?
            .memory
            .as_ref()
            .and_then(|memory| memory.downcast_ref())
            .ok_or_else(|| Error::Internal("a held buffer changed type".into()))
    }

    /// A held buffer, to write. Replacing it (`mem::replace`, `mem::swap`) makes the list
    /// refuse to execute: its commands use the memory it held.
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// let context = Context::new(&devices)?;
    /// let mut list = RecordedList::new(&context, &devices[0].compute_engine()?)?;
    /// let held = list.hold(context.alloc_host(4, 0)?)?;
    /// list.get_mut(held)?.as_mut_slice().fill(1);
    /// assert_eq!(list.get(held)?.as_slice(), &[1; 4]);
    /// # Ok::<(), Error>(())
    /// ```
    pub fn get_mut<T: 'static>(&mut self, held: Held<T>) -> Result<&mut T> {
        self.entry(held)?;
        self.held[held.index]
            .memory
            .as_mut()
            .and_then(|memory| memory.downcast_mut())
            .ok_or_else(|| Error::Internal("a held buffer changed type".into()))
    }

    /// Takes a held buffer back out. The list's commands may use it, so the list can no longer
    /// be executed.
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// let context = Context::new(&devices)?;
    /// let engine = devices[0].compute_engine()?;
    /// let mut list = RecordedList::new(&context, &engine)?;
    /// let held = list.hold(context.alloc_host(4, 0)?)?;
    /// list.close()?;
    /// let buffer = list.take(held)?;
    /// assert_eq!(buffer.len(), 4);
    /// assert!(CommandQueue::new(&context, &engine)?.execute(list).is_err(), "its buffer is gone");
    /// # Ok::<(), Error>(())
    /// ```
    pub fn take<T: 'static>(&mut self, held: Held<T>) -> Result<T> {
        self.get::<T>(held)?;
        let entry = &mut self.held[held.index];
        let memory = entry
            .memory
            .take()
            .ok_or_else(|| Error::Internal("a held buffer vanished".into()))?;
        entry._pin = None;
        memory
            .downcast()
            .map(|boxed| *boxed)
            .map_err(|_| Error::Internal("a held buffer changed type".into()))
    }

    /// Records a copy of `len` bytes from `src[src_offset..]` to `dst[dst_offset..]`, both
    /// buffers the list holds.
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// let context = Context::new(&devices)?;
    /// let engine = devices[0].preferred_copy_engine()?;
    /// let mut list = RecordedList::new(&context, &engine)?;
    /// let source = list.hold(context.alloc_host(16, 0)?)?;
    /// let target = list.hold(context.alloc_host(16, 0)?)?;
    /// assert!(matches!(list.copy(target, 8, source, 0, 16), Err(Error::OutOfRange { offset: 8, len: 16, size: 16, .. })));
    /// list.copy(target, 0, source, 0, 16)?;
    /// list.close()?;
    /// assert!(list.copy(target, 0, source, 0, 16).is_err(), "closed");
    /// # Ok::<(), Error>(())
    /// ```
    pub fn copy<D, S>(
        &mut self,
        dst: Held<D>,
        dst_offset: usize,
        src: Held<S>,
        src_offset: usize,
        len: usize,
    ) -> Result<()> {
        if self.closed {
            return Err(Error::invalid("the list is closed"));
        }
        let range = |entry: &HeldEntry, offset: usize, role: &'static str| {
            crate::ze::command::locate_range(entry.address, entry.len, offset, len, role)
        };
        let to = range(self.entry(dst)?, dst_offset, "destination")?;
        let from = range(self.entry(src)?, src_offset, "source")?;
        if len > 0 && to < from + len && from < to + len {
            return Err(Error::invalid(format!(
                "source {from:#x} and destination {to:#x} of {len} bytes overlap"
            )));
        }
        // SAFETY: both ranges lie in buffers the list owns; a submission owns the list while
        // the device runs it.
        unsafe {
            ze_call!(
                self.context.api(),
                command_list_append_memory_copy(
                    self.handle,
                    to as *mut c_void,
                    from as *const c_void,
                    len,
                    null_mut(),
                    0,
                    null_mut(),
                )
            )
        }
    }

    /// Ends recording; the list can then be executed, any number of times.
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// let context = Context::new(&devices)?;
    /// let mut list = RecordedList::new(&context, &devices[0].compute_engine()?)?;
    /// list.close()?;
    /// assert!(list.is_closed());
    /// # Ok::<(), Error>(())
    /// ```
    pub fn close(&mut self) -> Result<()> {
        // SAFETY: a live list.
        unsafe { ze_call!(self.context.api(), command_list_close(self.handle)) }?;
        self.closed = true;
        Ok(())
    }

    pub(crate) fn engine(&self) -> &crate::ze::device::Engine {
        &self.engine
    }

    pub(crate) fn context(&self) -> &Context {
        &self.context
    }

    pub(crate) fn raw(&self) -> ze_command_list_handle_t {
        self.handle
    }

    /// Where held buffer `index` of list `list` lies.
    pub(crate) fn held_range(&self, index: usize, list: u64) -> Result<(usize, usize)> {
        let entry = self.entry(Held::<()> {
            list,
            index,
            _type: PhantomData,
        })?;
        Ok((entry.address, entry.len))
    }

    pub(crate) fn keep_kernel(&mut self, kernel: crate::ze::module::Kernel) {
        self.kernels.push(kernel);
    }

    /// Records a signal of `event` once the commands recorded before it have completed (with
    /// their device timestamps). The list keeps the event as long as it lives.
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # use std::sync::Arc;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// let context = Context::new(&devices)?;
    /// let engine = devices[0].compute_engine()?;
    /// let done = Arc::new(EventPool::new(&context, 1)?.event(0)?);
    /// let mut list = RecordedList::new(&context, &engine)?;
    /// let (a, b) = (list.hold(context.alloc_host(64, 0)?)?, list.hold(context.alloc_host(64, 0)?)?);
    /// list.copy(a, 0, b, 0, 64)?;
    /// list.signal(Arc::clone(&done))?;
    /// list.close()?;
    /// let submission = CommandQueue::new(&context, &engine)?.execute(list)?;
    /// done.wait()?;
    /// assert!(done.kernel_timestamp()?.is_some());
    /// drop(submission);
    /// # Ok::<(), Error>(())
    /// ```
    pub fn signal(&mut self, event: Arc<Event>) -> Result<()> {
        self.record_event(event, true)
    }

    /// Records a wait: the commands recorded after it start once `event` has signalled. The
    /// list keeps the event as long as it lives.
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # use std::sync::Arc;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// let context = Context::new(&devices)?;
    /// let engine = devices[0].compute_engine()?;
    /// let gate = Arc::new(EventPool::new(&context, 1)?.event(0)?);
    /// let mut list = RecordedList::new(&context, &engine)?;
    /// list.wait_for(Arc::clone(&gate))?;
    /// list.close()?;
    /// let submission = CommandQueue::new(&context, &engine)?.execute(list)?;
    /// assert!(!submission.is_complete()?, "held back by the gate");
    /// gate.signal()?;
    /// submission.wait()?;
    /// # Ok::<(), Error>(())
    /// ```
    pub fn wait_for(&mut self, event: Arc<Event>) -> Result<()> {
        self.record_event(event, false)
    }

    fn record_event(&mut self, event: Arc<Event>, signal: bool) -> Result<()> {
        if self.closed {
            return Err(Error::invalid("the list is closed"));
        }
        event.check_context(&self.context)?;
        let api = self.context.api();
        let mut handle = event.handle().0;
        // SAFETY: a live list and event; the list keeps the event while it lives (below).
        let result = unsafe {
            if signal {
                check(
                    ze_name!(command_list_append_signal_event),
                    (api.command_list_append_signal_event)(self.handle, handle),
                )
            } else {
                check(
                    ze_name!(command_list_append_wait_on_events),
                    (api.command_list_append_wait_on_events)(self.handle, 1, &mut handle),
                )
            }
        };
        result?;
        self.events.push(event);
        Ok(())
    }

    /// Whether recording has ended.
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// let context = Context::new(&devices)?;
    /// assert!(!RecordedList::new(&context, &devices[0].compute_engine()?)?.is_closed());
    /// # Ok::<(), Error>(())
    /// ```
    pub fn is_closed(&self) -> bool {
        self.closed
    }
}
