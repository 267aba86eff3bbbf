//! Immediate command lists: copies and fills on a chosen engine, synchronous or asynchronous.

use crate::error::{Error, Result};
use crate::ze::call::{ze_call, ze_name};
use crate::ze::context::Context;
use crate::ze::device::Engine;
use crate::ze::event::{Event, EventPool, KernelTimestamp};
use crate::ze::handles::CommandListHandle;
use crate::ze::memory::{Memory, held_uses, uses_for_call};
use crate::ze::uses::HeldUse;
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
    handle: Arc<ListHandle>,
    engine: Engine,
    done: Event,
    /// `done` holds the last synchronous command's completion (and timestamp): it is reset
    /// before the next one, not after, so a timestamp costs a query only when asked for.
    done_used: Cell<bool>,
    /// Its completion event could not be reset: it would read as done at once, so the list
    /// refuses further synchronous work.
    broken: Cell<bool>,
    _not_sync: PhantomData<Cell<()>>,
}

/// Owns a command-list handle: destroyed when the last holder goes, the list or work still
/// pending on it ([`Completion`]), so a list is never destroyed under its work.
pub(crate) struct ListHandle {
    context: Context,
    handle: CommandListHandle,
}

impl Drop for ListHandle {
    fn drop(&mut self) {
        // SAFETY: a live list, destroyed once, here; work appended to it holds this handle
        // until it has completed, so none is pending.
        let result = unsafe { (self.context.api().command_list_destroy)(self.handle.0) };
        self.context
            .check_drop(ze_name!(command_list_destroy), result);
    }
}

impl std::fmt::Debug for CommandList {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CommandList")
            .field("engine", &self.engine)
            .finish_non_exhaustive()
    }
}

/// The address of `[offset, offset + len)` inside `memory`, checked.
pub(crate) fn locate(
    memory: &dyn Memory,
    offset: usize,
    len: usize,
    role: &'static str,
) -> Result<usize> {
    locate_range(memory.address(), memory.len(), offset, len, role)
}

/// The address of `[offset, offset + len)` inside `size` bytes at `address`, checked.
pub(crate) fn locate_range(
    address: usize,
    size: usize,
    offset: usize,
    len: usize,
    role: &'static str,
) -> Result<usize> {
    match offset.checked_add(len) {
        Some(end) if end <= size => Ok(address + offset),
        _ => Err(Error::OutOfRange {
            role,
            offset,
            len,
            size,
        }),
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
        unsafe {
            ze_call!(
                self.api(),
                command_list_create_immediate(
                    self.handle().0,
                    engine.device.handle().0,
                    &desc,
                    &mut handle,
                )
            )
        }?;
        Ok(CommandList {
            handle: Arc::new(ListHandle {
                context: self.clone(),
                handle: CommandListHandle(handle),
            }),
            engine: engine.clone(),
            done,
            done_used: Cell::new(false),
            broken: Cell::new(false),
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
        &self.handle.context
    }

    fn api(&self) -> &ZeApi {
        self.handle.context.api()
    }

    pub(crate) fn raw(&self) -> ze_command_list_handle_t {
        self.handle.handle.0
    }

    /// Appends a copy signalling `signal`.
    fn append_copy(&self, dst: usize, src: usize, len: usize, signal: &Event) -> Result<()> {
        self.prepare_done()?;
        // SAFETY: both ranges were checked to lie in live buffers (or a caller's slice), and
        // the synchronous caller waits for `signal` before they can go.
        unsafe { self.append_with_events(dst, src, len, signal, None) }
    }

    /// Waits for the list's completion event. Never returns while the command may still touch
    /// the caller's memory ([`Event::wait_settled`]).
    pub(crate) fn finish(&self) -> Result<()> {
        self.done_used.set(true);
        self.done.wait_settled()
    }

    /// Readies the completion event for the next synchronous command: resets it if the last
    /// one used it. A list whose event cannot be reset refuses further synchronous work (the
    /// event would read as done at once).
    fn prepare_done(&self) -> Result<()> {
        if self.broken.get() {
            return Err(Error::invalid(
                "this list's completion event could not be reset after an earlier command; \
                 make a new list",
            ));
        }
        if self.done_used.get() {
            // The event is private to this list, which is not `Sync`, and the command that
            // used it has completed: nothing else uses it now.
            if let Err(error) = self.done.host_reset() {
                self.broken.set(true);
                return Err(error);
            }
            self.done_used.set(false);
        }
        Ok(())
    }

    /// Readies the completion event for a synchronous command and returns it, to signal.
    pub(crate) fn prepare_for_sync(&self) -> Result<ze_event_handle_t> {
        self.prepare_done()?;
        Ok(self.done.handle().0)
    }

    /// Whether an earlier failure left the list unable to run synchronous work.
    pub(crate) fn is_broken(&self) -> bool {
        self.broken.get()
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
        if self.done_used.get() {
            self.done.kernel_timestamp().ok().flatten()
        } else {
            None
        }
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
        self.context().check_memory(dst)?;
        self.context().check_memory(src)?;
        let to = locate(dst, dst_offset, len, "destination")?;
        let from = locate(src, src_offset, len, "source")?;
        let _pins = uses_for_call(&[&*dst, src]);
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
        self.context().check_memory(buffer)?;
        let to = locate(buffer, dst_offset, len, "destination")?;
        let from = locate(buffer, src_offset, len, "source")?;
        if len > 0 && to < from + len && from < to + len {
            return Err(Error::invalid(format!(
                "ranges {src_offset}..{} and {dst_offset}..{} overlap",
                src_offset + len,
                dst_offset + len
            )));
        }
        let _pins = uses_for_call(&[&*buffer]);
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
        self.context().check_memory(dst)?;
        let to = locate(dst, dst_offset, data.len(), "destination")?;
        let _pins = uses_for_call(&[&*dst]);
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
        self.context().check_memory(src)?;
        let from = locate(src, src_offset, out.len(), "source")?;
        let _pins = uses_for_call(&[src]);
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
    /// let list = context.immediate_list(&devices[0].compute_engine()?)?;
    /// let mut buffer = context.alloc_host(8, 0)?;
    /// list.fill(&mut buffer, 0, 8, &[1, 2])?;
    /// assert_eq!(buffer.as_slice(), &[1, 2, 1, 2, 1, 2, 1, 2]);
    /// assert!(list.fill(&mut buffer, 0, 8, &[1, 2, 3]).is_err(), "not a power of two");
    /// // Copy engines take one-byte patterns (Xe2's, as compute-runtime reports them).
    /// let copy = context.immediate_list(&devices[0].preferred_copy_engine()?)?;
    /// assert!(copy.fill(&mut buffer, 0, 8, &[1, 2]).is_err());
    /// copy.fill(&mut buffer, 0, 8, &[3])?;
    /// assert_eq!(buffer.as_slice(), &[3; 8]);
    /// # Ok::<(), Error>(())
    /// ```
    pub fn fill(
        &self,
        dst: &mut impl Memory,
        offset: usize,
        len: usize,
        pattern: &[u8],
    ) -> Result<()> {
        self.context().check_memory(dst)?;
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
        let _pins = uses_for_call(&[&*dst]);
        self.prepare_done()?;
        // SAFETY: the range lies in a live buffer; the pattern is copied at append.
        unsafe {
            ze_call!(
                self.api(),
                command_list_append_memory_fill(
                    self.raw(),
                    to as *mut c_void,
                    pattern.as_ptr() as *const c_void,
                    pattern.len(),
                    len,
                    self.done.handle().0,
                    0,
                    null_mut(),
                )
            )
        }?;
        self.finish()
    }

    /// Starts copying all of `src` into `dst` (equal sizes) and returns at once. The returned
    /// handle owns both buffers, and shares the list, until the copy completes: nothing the
    /// copy uses can go away under it, even if the handle is leaked with `mem::forget` (then
    /// they are leaked too).
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
    pub fn copy_async<D: Memory, S: Memory>(&self, dst: D, src: S) -> Result<PendingCopy<D, S>> {
        self.copy_async_after(dst, src, None)
    }

    /// [`CommandList::copy_async`] that starts only once `gate` has signalled. The copy shares
    /// the gate until it completes, so dropping your handle to it early is harmless.
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # use std::sync::Arc;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// let context = Context::new(&devices)?;
    /// let list = context.immediate_list(&devices[0].preferred_copy_engine()?)?;
    /// let gate = Arc::new(EventPool::new(&context, 1)?.event(0)?);
    /// let pending = list.copy_async_after(context.alloc_host(64, 0)?, context.alloc_device(&devices[0], 64, 0)?, Some(&gate))?;
    /// assert!(!pending.is_complete()?, "waits for the gate");
    /// gate.signal()?;
    /// drop(gate); // the copy still holds it
    /// pending.wait()?;
    /// # Ok::<(), Error>(())
    /// ```
    pub fn copy_async_after<D: Memory, S: Memory>(
        &self,
        dst: D,
        src: S,
        gate: Option<&Arc<Event>>,
    ) -> Result<PendingCopy<D, S>> {
        self.context().check_memory(&dst)?;
        self.context().check_memory(&src)?;
        if let Some(gate) = gate {
            gate.check_context(self.context())?;
        }
        if dst.len() != src.len() {
            return Err(Error::invalid(format!(
                "asynchronous copy between buffers of {} and {} bytes",
                dst.len(),
                src.len()
            )));
        }
        let event = EventPool::new(self.context(), 1)?.event(0)?;
        let pins = held_uses(&[&dst, &src]);
        let gate = gate.map(Arc::clone);
        // SAFETY: the returned handle owns both buffers until the event has signalled (or
        // leaks them); the completion holds the list and the gate as long.
        unsafe {
            self.append_with_events(
                dst.address(),
                src.address(),
                dst.len(),
                &event,
                gate.as_deref(),
            )
        }?;
        Ok(PendingCopy {
            completion: Arc::new(Completion {
                event,
                list: Arc::clone(&self.handle),
                _gate: gate,
                _uses: pins,
            }),
            buffers: Some((dst, src)),
        })
    }
}

/// Device work in flight and everything it needs besides memory: the event it signals, the
/// command list it was appended to, the event it waits for, and the residency pins of the
/// managed memory it uses. All of it is released only once the work has completed (dropping a
/// `Completion` waits); leaking it leaks them, which is safe.
pub struct Completion {
    event: Event,
    list: Arc<ListHandle>,
    _gate: Option<Arc<Event>>,
    _uses: Vec<HeldUse>,
}

impl std::fmt::Debug for Completion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Completion")
            .field("event", &self.event.handle())
            .finish_non_exhaustive()
    }
}

impl Completion {
    /// Whether the work has completed.
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// let context = Context::new(&devices)?;
    /// let list = context.immediate_list(&devices[0].preferred_copy_engine()?)?;
    /// let pending = list.copy_async(context.alloc_host(64, 0)?, context.alloc_host(64, 0)?)?;
    /// let completion = pending.completion();
    /// pending.wait()?;
    /// assert!(completion.is_complete()?);
    /// # Ok::<(), Error>(())
    /// ```
    pub fn is_complete(&self) -> Result<bool> {
        self.event.is_signaled()
    }

    /// Blocks until the work has completed.
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// let context = Context::new(&devices)?;
    /// let list = context.immediate_list(&devices[0].preferred_copy_engine()?)?;
    /// let pending = list.copy_async(context.alloc_host(64, 0)?, context.alloc_host(64, 0)?)?;
    /// pending.completion().wait()?;
    /// assert!(pending.is_complete()?);
    /// # Ok::<(), Error>(())
    /// ```
    pub fn wait(&self) -> Result<()> {
        self.event.wait()
    }

    /// When the work ran on the device, once it has completed.
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// let context = Context::new(&devices)?;
    /// let list = context.immediate_list(&devices[0].preferred_copy_engine()?)?;
    /// let pending = list.copy_async(context.alloc_host(64, 0)?, context.alloc_host(64, 0)?)?;
    /// let completion = pending.completion();
    /// pending.wait()?;
    /// assert!(completion.timestamp()?.is_some());
    /// # Ok::<(), Error>(())
    /// ```
    pub fn timestamp(&self) -> Result<Option<KernelTimestamp>> {
        self.event.kernel_timestamp()
    }

    /// Waits until the work can no longer touch memory ([`Event::wait_settled`]).
    pub(crate) fn settle(&self) -> Result<()> {
        self.event.wait_settled()
    }
}

impl Drop for Completion {
    fn drop(&mut self) {
        // The list, the gate and the pins go after this: not before the work is done.
        if let Err(error) = self.settle() {
            self.list.context.record_drop_error(error);
        }
    }
}

/// Memory that can be handed back to its owner (a pool) together with the work still using it,
/// to be reused only once that work has completed.
pub trait Deferrable: Memory {
    /// Gives the memory back; it is reused once `work` has completed.
    fn defer(self, work: Arc<Completion>);
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
/// drop(list); // the copy shares the list: it is destroyed once the copy is done
/// drop(pending); // waits for the copy, then frees both buffers
/// let simulator = runtime.simulator().unwrap();
/// assert_eq!(simulator.counter("free_hazards"), Some(0), "nothing freed under the copy");
/// assert_eq!(simulator.counter("destroy_hazards"), Some(0), "no list destroyed under it");
/// assert_eq!(simulator.counter("live_allocations"), Some(0));
/// # Ok::<(), lazy_usm::Error>(())
/// ```
///
/// Dropping it without [`PendingCopy::wait`] blocks until the copy completes, then frees the
/// buffers.
pub struct PendingCopy<D: Memory, S: Memory> {
    completion: Arc<Completion>,
    buffers: Option<(D, S)>,
}

impl<D: Memory, S: Memory> PendingCopy<D, S> {
    /// Whether the copy has completed.
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # use std::sync::Arc;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// let context = Context::new(&devices)?;
    /// let list = context.immediate_list(&devices[0].preferred_copy_engine()?)?;
    /// let gate = Arc::new(EventPool::new(&context, 1)?.event(0)?);
    /// let pending = list.copy_async_after(context.alloc_host(64, 0)?, context.alloc_device(&devices[0], 64, 0)?, Some(&gate))?;
    /// assert!(!pending.is_complete()?, "held back by the gate");
    /// gate.signal()?;
    /// let (host, _) = pending.wait()?;
    /// assert_eq!(host.as_slice(), &[0; 64]);
    /// # Ok::<(), Error>(())
    /// ```
    pub fn is_complete(&self) -> Result<bool> {
        self.completion.is_complete()
    }

    /// The work, shared: to wait on it or query it elsewhere.
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// let context = Context::new(&devices)?;
    /// let list = context.immediate_list(&devices[0].preferred_copy_engine()?)?;
    /// let pending = list.copy_async(context.alloc_host(64, 0)?, context.alloc_host(64, 0)?)?;
    /// let completion = pending.completion();
    /// drop(pending);
    /// assert!(completion.is_complete()?);
    /// # Ok::<(), Error>(())
    /// ```
    pub fn completion(&self) -> Arc<Completion> {
        Arc::clone(&self.completion)
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
    pub fn wait(self) -> Result<(D, S)> {
        self.wait_timed().map(|(dst, src, _)| (dst, src))
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
        // On failure the buffers stay here, and `Drop` settles before freeing them.
        self.completion.settle()?;
        let stamp = self.completion.timestamp()?;
        match self.buffers.take() {
            Some((dst, src)) => Ok((dst, src, stamp)),
            None => Err(Error::Internal("a pending copy lost its buffers".into())),
        }
    }
}

impl<D: Deferrable, S: Deferrable> PendingCopy<D, S> {
    /// Returns at once, handing both buffers back to their pool, which reuses them only after
    /// the copy completes (the pool holds the copy's [`Completion`] until then).
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// let manager = ResidencyManager::new(Context::new(&devices)?, ResidencyConfig::default())?;
    /// let pool = DevicePool::new(&manager, &devices[0], PoolConfig::default())?;
    /// let list = manager.context().immediate_list(&devices[0].preferred_copy_engine()?)?;
    /// list.copy_async(pool.allocate(256)?, pool.allocate(256)?)?.detach(); // back to the pool once done
    /// drop(list); // the pool's record of the copy keeps the list until the copy is done
    /// let mut returned = 0;
    /// while returned < 2 {
    ///     returned += pool.reclaim(); // the copy completes on its engine soon after
    /// }
    /// assert_eq!(pool.stats().allocated_bytes, 0);
    /// # Ok::<(), Error>(())
    /// ```
    pub fn detach(mut self) {
        if let Some((dst, src)) = self.buffers.take() {
            dst.defer(Arc::clone(&self.completion));
            src.defer(Arc::clone(&self.completion));
        }
    }
}

impl<D: Memory, S: Memory> Drop for PendingCopy<D, S> {
    fn drop(&mut self) {
        if self.buffers.is_some()
            && let Err(error) = self.completion.settle()
        {
            self.completion.list.context.record_drop_error(error);
        }
    }
}

/// Most chunks of one staged copy: two events each (65,536 chunks of the default 8 MiB move
/// 512 GiB).
const MAX_STAGED_CHUNKS: usize = 1 << 16;

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
    bounce: &mut crate::ze::memory::HostBuffer,
) -> Result<Option<KernelTimestamp>> {
    let context = src_list.context();
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
    if chunks > MAX_STAGED_CHUNKS {
        return Err(Error::invalid(format!(
            "a staged copy of {len} bytes in {half}-byte chunks needs {chunks} chunks, more \
             events than lazy-usm makes for one copy ({MAX_STAGED_CHUNKS} chunks): use a larger \
             staging_chunk"
        )));
    }
    // At most 2 * MAX_STAGED_CHUNKS, which fits a u32.
    let events = 2 * chunks as u32;
    let pool = EventPool::new(context, events)?;
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
        let waited = event.wait_settled();
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
        unsafe {
            ze_call!(
                self.api(),
                command_list_append_memory_copy(
                    self.raw(),
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
            )
        }
    }
}
