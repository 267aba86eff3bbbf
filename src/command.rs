//! Immediate command lists: copies and fills on a chosen engine, synchronous or asynchronous.

use crate::context::Context;
use crate::device::Engine;
use crate::error::{Error, Result, check};
use crate::event::{Event, EventPool, KernelTimestamp};
use crate::handles::CommandListHandle;
use crate::memory::Memory;
use level_zero_sys::*;
use std::cell::Cell;
use std::ffi::c_void;
use std::marker::PhantomData;
use std::ptr::null_mut;
use std::sync::Arc;

/// An immediate command list: commands run as they are appended, on one engine.
///
/// Not `Sync`: Level Zero command lists are not thread-safe; make one per thread.
///
/// ```
/// use lazy_usm::{Context, Runtime};
/// let devices = Runtime::simulated("b70x2")?.devices()?;
/// let context = Context::new(&devices)?;
/// let list = context.immediate_list(&devices[0].preferred_copy_engine()?)?;
/// let mut buffer = context.alloc_device(&devices[0], 4, 0)?;
/// list.write(&mut buffer, 0, &[1, 2, 3, 4])?;
/// let mut back = [0u8; 4];
/// list.read(&buffer, 0, &mut back)?;
/// assert_eq!(back, [1, 2, 3, 4]);
/// # Ok::<(), lazy_usm::Error>(())
/// ```
pub struct CommandList {
    context: Context,
    engine: Engine,
    handle: CommandListHandle,
    done: Event,
    /// When the last synchronous command ran, in device ticks.
    last_timestamp: Cell<Option<KernelTimestamp>>,
    _not_sync: PhantomData<Cell<()>>,
}

impl std::fmt::Debug for CommandList {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CommandList")
            .field("engine", &self.engine)
            .finish_non_exhaustive()
    }
}

impl Drop for CommandList {
    fn drop(&mut self) {
        // Synchronous commands have completed; asynchronous ones borrow the list, so none is
        // pending here.
        // SAFETY: a live list, destroyed once, here.
        let result = unsafe { (self.context.api().command_list_destroy)(self.handle.0) };
        if let Err(error) = check("zeCommandListDestroy", result) {
            self.context.record_drop_error(error);
        }
    }
}

/// The address of `[offset, offset + len)` inside `memory`, checked.
pub(crate) fn locate(memory: &dyn Memory, offset: usize, len: usize, role: &str) -> Result<usize> {
    match offset.checked_add(len) {
        Some(end) if end <= memory.len() => Ok(memory.address() + offset),
        _ => Err(Error::invalid(format!(
            "{role} range {offset}..{} is outside its {}-byte buffer",
            offset as u128 + len as u128,
            memory.len()
        ))),
    }
}

impl Context {
    /// An immediate command list on `engine`, which must be a device of this context.
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// let context = Context::new(&devices[..1])?;
    /// let list = context.immediate_list(&devices[0].compute_engine()?)?;
    /// assert_eq!(list.engine().group.ordinal, 0);
    /// assert!(context.immediate_list(&devices[1].compute_engine()?).is_err(), "device 1 is not in the context");
    /// # Ok::<(), Error>(())
    /// ```
    pub fn immediate_list(&self, engine: &Engine) -> Result<CommandList> {
        self.check_device(&engine.device)?;
        let desc = engine.queue_desc();
        let done = EventPool::new(self, 1)?.event(0)?;
        let mut handle = null_mut();
        // SAFETY: a live context and device of it, a valid descriptor and output pointer.
        check("zeCommandListCreateImmediate", unsafe {
            (self.api().command_list_create_immediate)(
                self.handle().0,
                engine.device.handle().0,
                &desc,
                &mut handle,
            )
        })?;
        Ok(CommandList {
            context: self.clone(),
            engine: engine.clone(),
            handle: CommandListHandle(handle),
            done,
            last_timestamp: Cell::new(None),
            _not_sync: PhantomData,
        })
    }
}

impl CommandList {
    /// The engine the list runs on.
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// let context = Context::new(&devices)?;
    /// let list = context.immediate_list(&devices[1].preferred_copy_engine()?)?;
    /// assert_eq!(list.engine().device, devices[1]);
    /// # Ok::<(), Error>(())
    /// ```
    pub fn engine(&self) -> &Engine {
        &self.engine
    }

    /// The context.
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// let context = Context::new(&devices)?;
    /// let list = context.immediate_list(&devices[0].compute_engine()?)?;
    /// assert_eq!(list.context(), &context);
    /// # Ok::<(), Error>(())
    /// ```
    pub fn context(&self) -> &Context {
        &self.context
    }

    fn api(&self) -> &ZeApi {
        self.context.api()
    }

    /// Appends a copy signalling `signal`.
    fn append_copy(&self, dst: usize, src: usize, len: usize, signal: &Event) -> Result<()> {
        // SAFETY: both ranges were checked to lie in live buffers (or a caller's slice) that
        // outlive the command: synchronous callers wait, asynchronous ones own the buffers.
        check("zeCommandListAppendMemoryCopy", unsafe {
            (self.api().command_list_append_memory_copy)(
                self.handle.0,
                dst as *mut c_void,
                src as *const c_void,
                len,
                signal.handle().0,
                0,
                null_mut(),
            )
        })
    }

    /// Waits for the list's completion event, keeps its timestamp and resets it.
    fn finish(&self) -> Result<()> {
        let waited = self.done.wait();
        if waited.is_ok() {
            self.last_timestamp
                .set(self.done.kernel_timestamp().ok().flatten());
        }
        let reset = self.done.reset();
        waited.and(reset)
    }

    /// When the last synchronous copy or fill of this list ran on the device, in ticks of the
    /// device's timestamp clock (`DeviceProperties::timestamp_frequency` per second).
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// let context = Context::new(&devices)?;
    /// let list = context.immediate_list(&devices[0].preferred_copy_engine()?)?;
    /// assert_eq!(list.last_timestamp(), None);
    /// let mut buffer = context.alloc_device(&devices[0], 1 << 20, 0)?;
    /// list.fill(&mut buffer, 0, 1 << 20, &[0])?;
    /// let stamp = list.last_timestamp().unwrap();
    /// assert!(stamp.end > stamp.start);
    /// # Ok::<(), Error>(())
    /// ```
    pub fn last_timestamp(&self) -> Option<KernelTimestamp> {
        self.last_timestamp.get()
    }

    fn copy_and_wait(&self, dst: usize, src: usize, len: usize) -> Result<()> {
        if len == 0 {
            return Ok(());
        }
        self.append_copy(dst, src, len, &self.done)?;
        self.finish()
    }

    /// Copies `len` bytes from `src[src_offset..]` to `dst[dst_offset..]` and waits.
    ///
    /// Device memory of another device must be resident on this list's device
    /// ([`Context::make_resident`]); lazy-usm's residency layer does that for you.
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// let context = Context::new(&devices)?;
    /// let list = context.immediate_list(&devices[0].preferred_copy_engine()?)?;
    /// let mut a = context.alloc_device(&devices[0], 64, 0)?;
    /// let mut b = context.alloc_device(&devices[0], 64, 0)?;
    /// list.write(&mut a, 0, &[9; 64])?;
    /// list.copy(&mut b, 32, &a, 0, 32)?;
    /// let mut back = [0; 32];
    /// list.read(&b, 32, &mut back)?;
    /// assert_eq!(back, [9; 32]);
    /// assert!(list.copy(&mut b, 40, &a, 0, 32).is_err(), "out of bounds");
    /// # Ok::<(), Error>(())
    /// ```
    pub fn copy(
        &self,
        dst: &mut impl Memory,
        dst_offset: usize,
        src: &impl Memory,
        src_offset: usize,
        len: usize,
    ) -> Result<()> {
        self.context.check_memory(dst)?;
        self.context.check_memory(src)?;
        let to = locate(dst, dst_offset, len, "destination")?;
        let from = locate(src, src_offset, len, "source")?;
        self.copy_and_wait(to, from, len)
    }

    /// Copies within one buffer; the ranges must not overlap.
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// let context = Context::new(&devices)?;
    /// let list = context.immediate_list(&devices[0].preferred_copy_engine()?)?;
    /// let mut buffer = context.alloc_device(&devices[0], 64, 0)?;
    /// list.write(&mut buffer, 0, &[5; 16])?;
    /// list.copy_within(&mut buffer, 0, 32, 16)?;
    /// assert!(list.copy_within(&mut buffer, 0, 8, 16).is_err(), "overlap");
    /// # Ok::<(), Error>(())
    /// ```
    pub fn copy_within(
        &self,
        buffer: &mut impl Memory,
        src_offset: usize,
        dst_offset: usize,
        len: usize,
    ) -> Result<()> {
        self.context.check_memory(buffer)?;
        let to = locate(buffer, dst_offset, len, "destination")?;
        let from = locate(buffer, src_offset, len, "source")?;
        if len > 0 && to < from + len && from < to + len {
            return Err(Error::invalid(format!(
                "ranges {src_offset}..{} and {dst_offset}..{} overlap",
                src_offset + len,
                dst_offset + len
            )));
        }
        self.copy_and_wait(to, from, len)
    }

    /// Copies host bytes into `dst[dst_offset..]` and waits.
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// let context = Context::new(&devices)?;
    /// let list = context.immediate_list(&devices[0].preferred_copy_engine()?)?;
    /// let mut buffer = context.alloc_device(&devices[0], 8, 0)?;
    /// list.write(&mut buffer, 4, &[1, 2, 3, 4])?;
    /// assert!(list.write(&mut buffer, 6, &[1, 2, 3, 4]).is_err());
    /// # Ok::<(), Error>(())
    /// ```
    pub fn write(&self, dst: &mut impl Memory, dst_offset: usize, data: &[u8]) -> Result<()> {
        self.context.check_memory(dst)?;
        let to = locate(dst, dst_offset, data.len(), "destination")?;
        self.copy_and_wait(to, data.as_ptr() as usize, data.len())
    }

    /// Copies `src[src_offset..]` into host bytes and waits.
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// let context = Context::new(&devices)?;
    /// let list = context.immediate_list(&devices[0].preferred_copy_engine()?)?;
    /// let buffer = context.alloc_device(&devices[0], 8, 0)?;
    /// let mut out = [1u8; 8];
    /// list.read(&buffer, 0, &mut out)?;
    /// assert_eq!(out, [0; 8], "fresh device memory reads as zero on the simulator");
    /// # Ok::<(), Error>(())
    /// ```
    pub fn read(&self, src: &impl Memory, src_offset: usize, out: &mut [u8]) -> Result<()> {
        self.context.check_memory(src)?;
        let from = locate(src, src_offset, out.len(), "source")?;
        self.copy_and_wait(out.as_mut_ptr() as usize, from, out.len())
    }

    /// Fills `dst[offset..offset + len]` with `pattern` repeated, and waits. The pattern's size
    /// must be a power of two no larger than the engine's limit.
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// let context = Context::new(&devices)?;
    /// let list = context.immediate_list(&devices[0].preferred_copy_engine()?)?;
    /// let mut buffer = context.alloc_host(8, 0)?;
    /// list.fill(&mut buffer, 0, 8, &[1, 2])?;
    /// assert_eq!(buffer.as_slice(), &[1, 2, 1, 2, 1, 2, 1, 2]);
    /// assert!(list.fill(&mut buffer, 0, 8, &[1, 2, 3]).is_err(), "not a power of two");
    /// # Ok::<(), Error>(())
    /// ```
    pub fn fill(
        &self,
        dst: &mut impl Memory,
        offset: usize,
        len: usize,
        pattern: &[u8],
    ) -> Result<()> {
        self.context.check_memory(dst)?;
        let limit = self.engine.group.max_fill_pattern_size;
        if !pattern.len().is_power_of_two() || pattern.len() > limit {
            return Err(Error::invalid(format!(
                "fill pattern of {} bytes: must be a power of two up to {limit}",
                pattern.len()
            )));
        }
        let to = locate(dst, offset, len, "destination")?;
        if len == 0 {
            return Ok(());
        }
        // SAFETY: the range lies in a live buffer; the pattern is copied at append.
        check("zeCommandListAppendMemoryFill", unsafe {
            (self.api().command_list_append_memory_fill)(
                self.handle.0,
                to as *mut c_void,
                pattern.as_ptr() as *const c_void,
                pattern.len(),
                len,
                self.done.handle().0,
                0,
                null_mut(),
            )
        })?;
        self.finish()
    }

    /// Starts copying all of `src` into `dst` (equal sizes) and returns at once. The returned
    /// handle owns both buffers until the copy completes, and borrows the list, so neither can
    /// go away under the copy.
    ///
    /// ```
    /// use lazy_usm::{Context, Runtime};
    /// let devices = Runtime::simulated("b70x2")?.devices()?;
    /// let context = Context::new(&devices)?;
    /// let list = context.immediate_list(&devices[0].preferred_copy_engine()?)?;
    /// let mut host = context.alloc_host(1024, 0)?;
    /// host.as_mut_slice().fill(3);
    /// let device = context.alloc_device(&devices[0], 1024, 0)?;
    /// let pending = list.copy_async(device, host)?;
    /// let (device, host) = pending.wait()?;
    /// let mut back = vec![0; 1024];
    /// list.read(&device, 0, &mut back)?;
    /// assert_eq!(back, host.as_slice());
    /// # Ok::<(), lazy_usm::Error>(())
    /// ```
    pub fn copy_async<D: Memory, S: Memory>(
        &self,
        dst: D,
        src: S,
    ) -> Result<PendingCopy<'_, D, S>> {
        self.copy_async_after(dst, src, None)
    }

    /// [`CommandList::copy_async`] that starts only once `wait` has signalled.
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// let context = Context::new(&devices)?;
    /// let list = context.immediate_list(&devices[0].preferred_copy_engine()?)?;
    /// let gate = EventPool::new(&context, 1)?.event(0)?;
    /// let pending = list.copy_async_after(context.alloc_host(64, 0)?, context.alloc_device(&devices[0], 64, 0)?, Some(&gate))?;
    /// assert!(!pending.is_complete()?, "waits for the gate");
    /// gate.signal()?;
    /// pending.wait()?;
    /// # Ok::<(), Error>(())
    /// ```
    pub fn copy_async_after<D: Memory, S: Memory>(
        &self,
        dst: D,
        src: S,
        wait: Option<&Event>,
    ) -> Result<PendingCopy<'_, D, S>> {
        self.context.check_memory(&dst)?;
        self.context.check_memory(&src)?;
        if dst.len() != src.len() {
            return Err(Error::invalid(format!(
                "asynchronous copy between buffers of {} and {} bytes",
                dst.len(),
                src.len()
            )));
        }
        let event = EventPool::new(&self.context, 1)?.event(0)?;
        // SAFETY: the returned handle owns both buffers until the event has signalled.
        unsafe { self.append_with_events(dst.address(), src.address(), dst.len(), &event, wait) }?;
        Ok(PendingCopy {
            list: self,
            event: Arc::new(event),
            buffers: Some((dst, src)),
        })
    }
}

/// Memory that can be handed back to its owner (a pool) together with the event of the work
/// still using it, to be reused only once that event signals.
pub trait Deferrable: Memory {
    /// Gives the memory back; it is reused once `event` has signalled.
    fn defer(self, event: Arc<Event>);
}

/// An asynchronous copy in flight; owns its buffers until it completes.
///
/// ```
/// use lazy_usm::{Context, Runtime};
/// let runtime = Runtime::simulated("b70x2")?;
/// let devices = runtime.devices()?;
/// let context = Context::new(&devices)?;
/// let list = context.immediate_list(&devices[0].compute_engine()?)?;
/// let pending = list.copy_async(context.alloc_host(64, 0)?, context.alloc_device(&devices[0], 64, 0)?)?;
/// drop(pending); // waits for the copy, then frees both buffers
/// let simulator = runtime.simulator().unwrap();
/// assert_eq!(simulator.counter("free_hazards"), Some(0), "nothing freed under the copy");
/// assert_eq!(simulator.counter("live_allocations"), Some(0));
/// # Ok::<(), lazy_usm::Error>(())
/// ```
///
/// Dropping it without [`PendingCopy::wait`] blocks until the copy completes, then frees the
/// buffers.
pub struct PendingCopy<'list, D: Memory, S: Memory> {
    list: &'list CommandList,
    event: Arc<Event>,
    buffers: Option<(D, S)>,
}

impl<D: Memory, S: Memory> PendingCopy<'_, D, S> {
    /// Whether the copy has completed.
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// let context = Context::new(&devices)?;
    /// let list = context.immediate_list(&devices[0].preferred_copy_engine()?)?;
    /// let gate = EventPool::new(&context, 1)?.event(0)?;
    /// let pending = list.copy_async_after(context.alloc_host(64, 0)?, context.alloc_device(&devices[0], 64, 0)?, Some(&gate))?;
    /// assert!(!pending.is_complete()?, "held back by the gate");
    /// gate.signal()?;
    /// let (host, _) = pending.wait()?;
    /// assert_eq!(host.as_slice(), &[0; 64]);
    /// # Ok::<(), Error>(())
    /// ```
    pub fn is_complete(&self) -> Result<bool> {
        self.event.is_signaled()
    }

    /// Waits for completion and hands the buffers back.
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// let context = Context::new(&devices)?;
    /// let list = context.immediate_list(&devices[0].preferred_copy_engine()?)?;
    /// let (_, _) = list.copy_async(context.alloc_host(64, 0)?, context.alloc_host(64, 0)?)?.wait()?;
    /// # Ok::<(), Error>(())
    /// ```
    pub fn wait(mut self) -> Result<(D, S)> {
        self.event.wait()?;
        Ok(self
            .buffers
            .take()
            .expect("buffers are held until wait or drop"))
    }

    /// Waits for completion and returns when the copy ran, in device ticks, with the buffers.
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// let context = Context::new(&devices)?;
    /// let list = context.immediate_list(&devices[0].preferred_copy_engine()?)?;
    /// let (_, _, stamp) = list.copy_async(context.alloc_host(64, 0)?, context.alloc_host(64, 0)?)?.wait_timed()?;
    /// assert!(stamp.is_some());
    /// # Ok::<(), Error>(())
    /// ```
    pub fn wait_timed(mut self) -> Result<(D, S, Option<KernelTimestamp>)> {
        self.event.wait()?;
        let stamp = self.event.kernel_timestamp()?;
        let (dst, src) = self
            .buffers
            .take()
            .expect("buffers are held until wait or drop");
        Ok((dst, src, stamp))
    }
}

impl<D: Deferrable, S: Deferrable> PendingCopy<'_, D, S> {
    /// Returns at once, handing both buffers back to their pool, which reuses them only after
    /// the copy completes.
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// let manager = ResidencyManager::new(Context::new(&devices)?, ResidencyConfig::default())?;
    /// let pool = DevicePool::new(&manager, &devices[0], PoolConfig::default())?;
    /// let list = manager.context().immediate_list(&devices[0].preferred_copy_engine()?)?;
    /// list.copy_async(pool.allocate(256)?, pool.allocate(256)?)?.detach(); // back to the pool once done
    /// let mut returned = 0;
    /// while returned < 2 {
    ///     returned += pool.reclaim(); // the copy completes on its engine soon after
    /// }
    /// assert_eq!(pool.stats().allocated_bytes, 0);
    /// # Ok::<(), Error>(())
    /// ```
    pub fn detach(mut self) {
        if let Some((dst, src)) = self.buffers.take() {
            dst.defer(Arc::clone(&self.event));
            src.defer(Arc::clone(&self.event));
        }
    }
}

impl<D: Memory, S: Memory> Drop for PendingCopy<'_, D, S> {
    fn drop(&mut self) {
        if self.buffers.is_some()
            && let Err(error) = self.event.wait()
        {
            self.list.context.record_drop_error(error);
        }
    }
}

/// Copies `len` bytes from `src[src_offset..]`, read by `src_list`'s engine, to
/// `dst[dst_offset..]`, written by `dst_list`'s engine, through the pinned host buffer `bounce`:
/// chunk by chunk, each half of `bounce` in turn, so that one engine fills a half while the other
/// drains the previous one. Needs no peer residency. Returns once every chunk has arrived.
pub(crate) fn staged_copy(
    src_list: &CommandList,
    dst_list: &CommandList,
    (dst, dst_offset): (&mut dyn Memory, usize),
    (src, src_offset): (&dyn Memory, usize),
    len: usize,
    bounce: &mut crate::memory::HostBuffer,
) -> Result<Option<KernelTimestamp>> {
    let context = &src_list.context;
    context.check_memory(dst)?;
    context.check_memory(src)?;
    context.check_memory(bounce)?;
    let to = locate(dst, dst_offset, len, "destination")?;
    let from = locate(src, src_offset, len, "source")?;
    let half = bounce.len() / 2;
    if half == 0 {
        return Err(Error::invalid(
            "the staging buffer is smaller than two bytes",
        ));
    }
    if len == 0 {
        return Ok(None);
    }
    let chunks = len.div_ceil(half);
    let pool = EventPool::new(context, 2 * chunks as u32)?;
    let mut drained: Vec<Event> = Vec::with_capacity(chunks);
    let mut filled: Vec<Event> = Vec::with_capacity(chunks);
    let mut outcome = Ok(());
    for chunk in 0..chunks {
        let offset = chunk * half;
        let size = half.min(len - offset);
        let slot = bounce.address() + (chunk % 2) * half;
        let step = (|| {
            let fill = pool.event(2 * chunk as u32)?;
            let drain = pool.event(2 * chunk as u32 + 1)?;
            // The half is free once the chunk two steps back has been drained from it.
            let free = chunk.checked_sub(2).map(|earlier| &drained[earlier]);
            // SAFETY: all ranges lie in buffers borrowed for this whole call, and the call does
            // not return before every appended command has completed (below).
            unsafe { src_list.append_with_events(slot, from + offset, size, &fill, free) }?;
            filled.push(fill);
            // SAFETY: as above.
            unsafe { dst_list.append_with_events(to + offset, slot, size, &drain, filled.last()) }?;
            drained.push(drain);
            Ok(())
        })();
        if let Err(error) = step {
            outcome = Err(error);
            break;
        }
    }
    // Whatever happened, nothing may still be reading or writing the borrowed buffers.
    for event in filled.last().into_iter().chain(drained.last()) {
        let waited = event.wait();
        if outcome.is_ok() {
            outcome = waited;
        }
    }
    outcome?;
    // From the first chunk leaving the source to the last arriving (one clock per platform).
    let start = filled
        .first()
        .map(Event::kernel_timestamp)
        .transpose()?
        .flatten();
    let end = drained
        .last()
        .map(Event::kernel_timestamp)
        .transpose()?
        .flatten();
    Ok(start.zip(end).map(|(start, end)| KernelTimestamp {
        start: start.start,
        end: end.end,
    }))
}

impl CommandList {
    /// Appends a copy that waits for `wait` (if any) and signals `signal`.
    ///
    /// # Safety
    /// Both ranges must stay valid until `signal` has been waited for.
    unsafe fn append_with_events(
        &self,
        dst: usize,
        src: usize,
        len: usize,
        signal: &Event,
        wait: Option<&Event>,
    ) -> Result<()> {
        let mut waits: Vec<_> = wait.map(|event| event.handle().0).into_iter().collect();
        // SAFETY: the caller keeps the ranges valid; events are live.
        check("zeCommandListAppendMemoryCopy", unsafe {
            (self.api().command_list_append_memory_copy)(
                self.handle.0,
                dst as *mut c_void,
                src as *const c_void,
                len,
                signal.handle().0,
                waits.len() as u32,
                if waits.is_empty() {
                    null_mut()
                } else {
                    waits.as_mut_ptr()
                },
            )
        })
    }
}
