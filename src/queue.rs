//! Command queues, recorded command lists and fences: record once, submit, wait on a fence.

use crate::context::Context;
use crate::device::Engine;
use crate::error::{Error, Result, check};
use crate::memory::Memory;
use level_zero_sys::*;
use std::ffi::c_void;
use std::marker::PhantomData;
use std::ptr::null_mut;

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
/// let mut target = context.alloc_host(256, 0)?;
/// let mut list = RecordedList::new(&context, &engine)?;
/// list.copy(&mut target, 0, &source, 0, 256)?;
/// list.close()?;
/// queue.execute(&list)?.wait()?;
/// drop(list);
/// assert_eq!(target.as_slice(), &[5; 256]);
/// # Ok::<(), lazy_usm::Error>(())
/// ```
pub struct CommandQueue {
    context: Context,
    engine: Engine,
    handle: ze_command_queue_handle_t,
}

// SAFETY: a queue handle may be used from any thread; submissions are serialised by `&self`
// methods taking the fence they signal.
unsafe impl Send for CommandQueue {}

impl std::fmt::Debug for CommandQueue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CommandQueue")
            .field("engine", &self.engine)
            .finish_non_exhaustive()
    }
}

impl Drop for CommandQueue {
    fn drop(&mut self) {
        // Submissions borrow the queue and wait when dropped, so none is pending here.
        // SAFETY: a live queue, destroyed once, here.
        let result = unsafe { (self.context.api().command_queue_destroy)(self.handle) };
        if let Err(error) = check("zeCommandQueueDestroy", result) {
            self.context.record_drop_error(error);
        }
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
    /// assert!(CommandQueue::new(&single, &devices[1].compute_engine()?).is_err(), "device 1 is not in it");
    /// drop(queue);
    /// # Ok::<(), Error>(())
    /// ```
    pub fn new(context: &Context, engine: &Engine) -> Result<Self> {
        context.check_device(&engine.device)?;
        let desc = engine.queue_desc();
        let mut handle = null_mut();
        // SAFETY: a live context and device of it, a valid descriptor and output pointer.
        check("zeCommandQueueCreate", unsafe {
            (context.api().command_queue_create)(
                context.handle().0,
                engine.device.handle().0,
                &desc,
                &mut handle,
            )
        })?;
        Ok(Self {
            context: context.clone(),
            engine: engine.clone(),
            handle,
        })
    }

    /// Runs a closed list; the returned submission waits for it (on a fence) before the list or
    /// its buffers can be touched again.
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// let context = Context::new(&devices)?;
    /// let engine = devices[0].compute_engine()?;
    /// let queue = CommandQueue::new(&context, &engine)?;
    /// let mut list = RecordedList::new(&context, &engine)?;
    /// assert!(queue.execute(&list).is_err(), "not closed yet");
    /// list.close()?;
    /// queue.execute(&list)?.wait()?;
    /// # Ok::<(), Error>(())
    /// ```
    pub fn execute<'queue, 'list>(
        &'queue self,
        list: &'list RecordedList<'_>,
    ) -> Result<Submission<'queue, 'list>> {
        if !list.closed {
            return Err(Error::invalid(
                "a recorded list must be closed before it is executed",
            ));
        }
        if list.context != self.context
            || list.engine.device != self.engine.device
            || list.engine.group.ordinal != self.engine.group.ordinal
        {
            return Err(Error::invalid(format!(
                "the list was recorded for queue group {} of device {}, not this queue's group {} of device {}",
                list.engine.group.ordinal,
                list.engine.device.index(),
                self.engine.group.ordinal,
                self.engine.device.index()
            )));
        }
        let desc = ze_fence_desc_t {
            stype: ze_structure_type_t::ZE_STRUCTURE_TYPE_FENCE_DESC,
            ..Default::default()
        };
        let mut fence = null_mut();
        let api = self.context.api();
        // SAFETY: a live queue, a valid descriptor and output pointer.
        check("zeFenceCreate", unsafe {
            (api.fence_create)(self.handle, &desc, &mut fence)
        })?;
        let submission = Submission {
            queue: self,
            fence,
            _list: PhantomData,
        };
        let mut handles = [list.handle];
        // SAFETY: a live queue, a closed list of the same context and group, a live fence.
        check("zeCommandQueueExecuteCommandLists", unsafe {
            (api.command_queue_execute_command_lists)(self.handle, 1, handles.as_mut_ptr(), fence)
        })?;
        Ok(submission)
    }
}

/// A list submitted to a [`CommandQueue`], tracked by a fence. Dropping it waits.
pub struct Submission<'queue, 'list> {
    queue: &'queue CommandQueue,
    fence: ze_fence_handle_t,
    _list: PhantomData<&'list ()>,
}

impl Submission<'_, '_> {
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
    /// let submission = queue.execute(&list)?;
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
            other => Err(Error::from_result("zeFenceQueryStatus", other)),
        }
    }

    /// Waits for the work to complete.
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
    /// queue.execute(&list)?.wait()?;
    /// # Ok::<(), Error>(())
    /// ```
    pub fn wait(self) -> Result<()> {
        self.synchronize()
    }

    fn synchronize(&self) -> Result<()> {
        // SAFETY: a live fence.
        check("zeFenceHostSynchronize", unsafe {
            (self.queue.context.api().fence_host_synchronize)(self.fence, u64::MAX)
        })
    }
}

impl Drop for Submission<'_, '_> {
    fn drop(&mut self) {
        let context = &self.queue.context;
        if let Err(error) = self.synchronize() {
            context.record_drop_error(error);
        }
        // SAFETY: a live fence whose work has completed, destroyed once, here.
        let result = unsafe { (context.api().fence_destroy)(self.fence) };
        if let Err(error) = check("zeFenceDestroy", result) {
            context.record_drop_error(error);
        }
    }
}

/// A regular command list: commands are recorded, then executed on a [`CommandQueue`].
///
/// The list borrows every buffer it records (`'buffers`), so none can be freed or touched while
/// the list exists.
pub struct RecordedList<'buffers> {
    context: Context,
    engine: Engine,
    handle: ze_command_list_handle_t,
    closed: bool,
    _buffers: PhantomData<&'buffers mut ()>,
}

impl Drop for RecordedList<'_> {
    fn drop(&mut self) {
        // SAFETY: a live list; its submissions borrowed it and have completed.
        let result = unsafe { (self.context.api().command_list_destroy)(self.handle) };
        if let Err(error) = check("zeCommandListDestroy", result) {
            self.context.record_drop_error(error);
        }
    }
}

impl<'buffers> RecordedList<'buffers> {
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
        check("zeCommandListCreate", unsafe {
            (context.api().command_list_create)(
                context.handle().0,
                engine.device.handle().0,
                &desc,
                &mut handle,
            )
        })?;
        Ok(Self {
            context: context.clone(),
            engine: engine.clone(),
            handle,
            closed: false,
            _buffers: PhantomData,
        })
    }

    /// Records a copy of `len` bytes from `src[src_offset..]` to `dst[dst_offset..]`.
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// let context = Context::new(&devices)?;
    /// let engine = devices[0].preferred_copy_engine()?;
    /// let (source, mut target) = (context.alloc_host(16, 0)?, context.alloc_host(16, 0)?);
    /// let mut late = context.alloc_host(16, 0)?;
    /// let mut list = RecordedList::new(&context, &engine)?;
    /// list.copy(&mut target, 0, &source, 0, 16)?;
    /// list.close()?;
    /// assert!(list.copy(&mut late, 0, &source, 0, 16).is_err(), "closed");
    /// # Ok::<(), Error>(())
    /// ```
    pub fn copy(
        &mut self,
        dst: &'buffers mut impl Memory,
        dst_offset: usize,
        src: &'buffers impl Memory,
        src_offset: usize,
        len: usize,
    ) -> Result<()> {
        if self.closed {
            return Err(Error::invalid("the list is closed"));
        }
        self.context.check_memory(dst)?;
        self.context.check_memory(src)?;
        let to = crate::command::locate(dst, dst_offset, len, "destination")?;
        let from = crate::command::locate(src, src_offset, len, "source")?;
        // SAFETY: both ranges lie in buffers the list borrows for its whole life.
        check("zeCommandListAppendMemoryCopy", unsafe {
            (self.context.api().command_list_append_memory_copy)(
                self.handle,
                to as *mut c_void,
                from as *const c_void,
                len,
                null_mut(),
                0,
                null_mut(),
            )
        })
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
    /// # Ok::<(), Error>(())
    /// ```
    pub fn close(&mut self) -> Result<()> {
        // SAFETY: a live list.
        check("zeCommandListClose", unsafe {
            (self.context.api().command_list_close)(self.handle)
        })?;
        self.closed = true;
        Ok(())
    }
}
