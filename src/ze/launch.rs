//! Kernel launches on an immediate list (synchronous) and recorded in a [`RecordedList`]; the
//! residency manager's launches (`transfer::launch`) build on these.
//!
//! Launching is `unsafe`: lazy-usm cannot see what a kernel does, so the caller promises that it
//! touches memory only through its arguments (writing only those passed as [`Arg::Write`]) and
//! through the memory it declares with `reaches`.

use crate::error::{Error, Result};
use crate::ze::call::ze_call;
use crate::ze::command::CommandList;
use crate::ze::memory::{Memory, uses_for_call};
use crate::ze::module::{ArgumentBytes, Kernel};
use crate::ze::queue::{Held, RecordedList};
use level_zero_sys::*;
use std::ptr::null_mut;

/// How many work items a launch runs: group counts and the group size, per dimension.
///
/// ```
/// use lazy_usm::Dims;
/// let dims = Dims::linear(1024, 64)?;
/// assert_eq!((dims.groups, dims.group_size), ([16, 1, 1], [64, 1, 1]));
/// assert!(Dims::linear(1000, 64).is_err(), "not a whole number of groups");
/// assert!(Dims::linear(64, 0).is_err());
/// # Ok::<(), lazy_usm::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Dims {
    /// Work groups per dimension.
    pub groups: [u32; 3],
    /// Work items per group per dimension.
    pub group_size: [u32; 3],
}

impl Dims {
    /// `items` work items in x, in groups of `group`.
    pub fn linear(items: u32, group: u32) -> Result<Self> {
        if group == 0 || !items.is_multiple_of(group) {
            return Err(Error::invalid(format!(
                "{items} work items are not a whole number of groups of {group}"
            )));
        }
        Ok(Self {
            groups: [items / group, 1, 1],
            group_size: [group, 1, 1],
        })
    }
}

/// An argument of a launch on an immediate list or through the manager.
pub enum Arg<'a> {
    /// Memory the kernel reads (a pointer argument).
    Read(&'a dyn Memory),
    /// Memory the kernel may write (a pointer argument).
    Write(&'a mut dyn Memory),
    /// A plain value, by its bytes.
    Scalar(Vec<u8>),
}

impl<'a> Arg<'a> {
    /// A plain-old-data value.
    ///
    /// ```
    /// assert!(matches!(lazy_usm::Arg::scalar(7u32), lazy_usm::Arg::Scalar(bytes) if bytes == [7, 0, 0, 0]));
    /// ```
    pub fn scalar<T: bytemuck::NoUninit>(value: T) -> Self {
        Self::Scalar(bytemuck::bytes_of(&value).to_vec())
    }

    pub(crate) fn memory(&self) -> Option<&dyn Memory> {
        match self {
            Self::Read(memory) => Some(*memory),
            Self::Write(memory) => Some(&**memory),
            Self::Scalar(_) => None,
        }
    }

    fn bytes(&self) -> ArgumentBytes {
        match self {
            Self::Read(memory) => ArgumentBytes::Pointer(memory.address()),
            Self::Write(memory) => ArgumentBytes::Pointer(memory.address()),
            Self::Scalar(bytes) => ArgumentBytes::Scalar(bytes.clone()),
        }
    }
}

/// An argument of a launch recorded in a [`RecordedList`]: a buffer the list holds, or a value.
#[derive(Debug, Clone)]
pub enum ListArg {
    /// A held buffer (a pointer argument), by its index in the list.
    Held(usize, u64),
    /// A plain value, by its bytes.
    Scalar(Vec<u8>),
}

impl ListArg {
    /// A buffer the list holds.
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// # let context = Context::new(&devices)?;
    /// let mut list = RecordedList::new(&context, &devices[0].compute_engine()?)?;
    /// let held = list.hold(context.alloc_device(&devices[0], 64, 0)?)?;
    /// assert!(matches!(ListArg::held(held), ListArg::Held(0, _)));
    /// # Ok::<(), Error>(())
    /// ```
    pub fn held<T>(held: Held<T>) -> Self {
        Self::Held(held.index(), held.list())
    }

    /// A plain-old-data value.
    ///
    /// ```
    /// assert!(matches!(lazy_usm::ListArg::scalar(1u8), lazy_usm::ListArg::Scalar(bytes) if bytes == [1]));
    /// ```
    pub fn scalar<T: bytemuck::NoUninit>(value: T) -> Self {
        Self::Scalar(bytemuck::bytes_of(&value).to_vec())
    }
}

/// Checks that a launch of `kernel` belongs on `list`.
pub(crate) fn check_launch(
    context: &crate::ze::context::Context,
    engine: &crate::ze::device::Engine,
    kernel: &Kernel,
    dims: Dims,
    arguments: usize,
) -> Result<()> {
    let list_device = &engine.device;
    if kernel.context() != context {
        return Err(Error::ForeignObject {
            what: "kernel",
            detail: format!("`{}` was built in another context", kernel.name()),
        });
    }
    if !engine.group.is_compute() {
        return Err(Error::invalid(format!(
            "kernels run on compute engines; queue group {} of device {} only copies",
            engine.group.ordinal,
            list_device.index()
        )));
    }
    if arguments != kernel.arguments() as usize {
        return Err(Error::invalid(format!(
            "kernel `{}` takes {} arguments, the launch passes {arguments}",
            kernel.name(),
            kernel.arguments()
        )));
    }
    if kernel.device() != list_device {
        return Err(Error::invalid(format!(
            "kernel `{}` was built for device {}, the list runs on device {}",
            kernel.name(),
            kernel.device().index(),
            list_device.index()
        )));
    }
    if dims.group_size.contains(&0) {
        return Err(Error::invalid(format!(
            "group size {:?} has a zero side",
            dims.group_size
        )));
    }
    Ok(())
}

/// Appends a launch of `kernel` with `arguments` (set under the kernel's lock) to `list`.
///
/// # Safety
/// Every pointer argument must stay valid until the launch has completed.
unsafe fn append_launch(
    list: ze_command_list_handle_t,
    api: &ZeApi,
    kernel: &Kernel,
    dims: Dims,
    arguments: &[ArgumentBytes],
    signal: ze_event_handle_t,
    waits: &mut [ze_event_handle_t],
) -> Result<()> {
    let _calls = kernel.lock();
    kernel.prepare(dims.group_size, arguments)?;
    let groups = ze_group_count_t {
        groupCountX: dims.groups[0],
        groupCountY: dims.groups[1],
        groupCountZ: dims.groups[2],
    };
    // SAFETY: a live list and kernel (its arguments set just above, under its lock); the
    // caller keeps the memory valid until the launch completes; live events.
    unsafe {
        ze_call!(
            api,
            command_list_append_launch_kernel(
                list,
                kernel.handle(),
                &groups,
                signal,
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

impl CommandList {
    /// Launches `kernel` over `dims` with `args` and waits for it. The list's engine must be a
    /// compute engine of the kernel's device; memory arguments must belong to the list's
    /// context. Managed memory is pinned while the kernel runs (not made resident: launch
    /// through [`ResidencyManager::launch`](crate::ResidencyManager::launch) for that).
    ///
    /// # Safety
    /// The kernel touches memory only through its pointer arguments, writing only those passed
    /// as [`Arg::Write`], within their sizes.
    ///
    /// ```
    /// use lazy_usm::{Arg, Context, Dims, Module, Runtime};
    /// let devices = Runtime::simulated("b70x2")?.devices()?;
    /// let context = Context::new(&devices)?;
    /// let spirv = lazy_usm::ze_sim::spirv::module_with_kernels(&[("lazy_usm_sim_fill_u32", 2)]);
    /// let fill = Module::from_spirv(&context, &devices[0], &spirv, "")?.kernel("lazy_usm_sim_fill_u32")?;
    /// let list = context.immediate_list(&devices[0].compute_engine()?)?;
    /// let mut buffer = context.alloc_host(256 * 4, 0)?;
    /// // SAFETY: the built-in fill writes 256 u32s through its first argument only.
    /// unsafe { list.launch(&fill, Dims::linear(256, 64)?, &mut [Arg::Write(&mut buffer), Arg::scalar(7u32)])? };
    /// assert!(buffer.as_slice().chunks(4).all(|word| word == [7, 0, 0, 0]));
    /// assert!(list.last_timestamp().is_some());
    /// # Ok::<(), lazy_usm::Error>(())
    /// ```
    pub unsafe fn launch(&self, kernel: &Kernel, dims: Dims, args: &mut [Arg<'_>]) -> Result<()> {
        check_launch(self.context(), self.engine(), kernel, dims, args.len())?;
        let memories: Vec<&dyn Memory> = args.iter().filter_map(Arg::memory).collect();
        let _pins = uses_for_call(&memories);
        // SAFETY: the caller's promise.
        unsafe { self.launch_pinned(kernel, dims, args) }
    }

    /// [`CommandList::launch`] for a caller that pinned the managed memory itself.
    ///
    /// # Safety
    /// As [`CommandList::launch`].
    pub(crate) unsafe fn launch_pinned(
        &self,
        kernel: &Kernel,
        dims: Dims,
        args: &[Arg<'_>],
    ) -> Result<()> {
        check_launch(self.context(), self.engine(), kernel, dims, args.len())?;
        for memory in args.iter().filter_map(Arg::memory) {
            self.context().check_memory(memory)?;
        }
        let arguments: Vec<ArgumentBytes> = args.iter().map(Arg::bytes).collect();
        let done = self.prepare_for_sync()?;
        // SAFETY: the call waits (below) before the borrowed memory can go.
        unsafe {
            append_launch(
                self.raw(),
                self.context().api(),
                kernel,
                dims,
                &arguments,
                done,
                &mut [],
            )
        }?;
        self.finish()
    }
}

impl RecordedList {
    /// Records a launch of `kernel` over `dims` with `args` (buffers the list holds, or
    /// values). The list keeps the kernel until it is dropped.
    ///
    /// # Safety
    /// The kernel touches memory only through its pointer arguments, within their sizes.
    ///
    /// ```
    /// use lazy_usm::{CommandQueue, Context, Dims, ListArg, Module, RecordedList, Runtime};
    /// let devices = Runtime::simulated("b70x2")?.devices()?;
    /// let context = Context::new(&devices)?;
    /// let spirv = lazy_usm::ze_sim::spirv::module_with_kernels(&[("lazy_usm_sim_fill_u32", 2)]);
    /// let fill = Module::from_spirv(&context, &devices[1], &spirv, "")?.kernel("lazy_usm_sim_fill_u32")?;
    /// let engine = devices[1].compute_engine()?;
    /// let mut list = RecordedList::new(&context, &engine)?;
    /// let host = list.hold(context.alloc_host(64 * 4, 0)?)?;
    /// // SAFETY: the built-in fill writes 64 u32s through its first argument only.
    /// unsafe { list.launch(&fill, Dims::linear(64, 16)?, &[ListArg::held(host), ListArg::scalar(9u32)])? };
    /// list.close()?;
    /// let list = CommandQueue::new(&context, &engine)?.execute(list)?.wait()?;
    /// assert_eq!(&list.get(host)?.as_slice()[..4], &[9, 0, 0, 0]);
    /// # Ok::<(), lazy_usm::Error>(())
    /// ```
    pub unsafe fn launch(&mut self, kernel: &Kernel, dims: Dims, args: &[ListArg]) -> Result<()> {
        if self.is_closed() {
            return Err(Error::invalid("the list is closed"));
        }
        check_launch(self.context(), self.engine(), kernel, dims, args.len())?;
        let mut arguments = Vec::with_capacity(args.len());
        for arg in args {
            arguments.push(match arg {
                ListArg::Held(index, list) => {
                    let (address, _) = self.held_range(*index, *list)?;
                    ArgumentBytes::Pointer(address)
                }
                ListArg::Scalar(bytes) => ArgumentBytes::Scalar(bytes.clone()),
            });
        }
        // SAFETY: pointer arguments are buffers the list owns; a submission owns the list while
        // the device runs it.
        unsafe {
            append_launch(
                self.raw(),
                self.context().api(),
                kernel,
                dims,
                &arguments,
                null_mut(),
                &mut [],
            )
        }?;
        self.keep_kernel(kernel.clone());
        Ok(())
    }
}
