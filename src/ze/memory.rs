//! USM allocations as owned types: device, host and shared buffers.

use crate::error::{Error, Result, check};
use crate::ze::call::{ze_call, ze_name};
use crate::ze::context::Context;
use crate::ze::device::Device;
use crate::ze::uses::{CallUses, HeldUse, Tracked};
use level_zero_sys::*;
use std::ffi::c_void;

/// The kind of a USM allocation.
///
/// ```
/// use lazy_usm::{Context, Memory, MemoryKind, Runtime};
/// let devices = Runtime::simulated("b70x2")?.devices()?;
/// let context = Context::new(&devices)?;
/// assert_eq!(context.alloc_host(8, 0)?.kind(), MemoryKind::Host);
/// # Ok::<(), lazy_usm::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MemoryKind {
    /// Device memory: owned by one device, not host-accessible.
    Device,
    /// Host memory the driver pinned: reachable from every device of the context.
    Host,
    /// Shared memory that migrates between host and device.
    Shared,
}

/// How an allocation is freed when dropped.
///
/// ```
/// use lazy_usm::{Context, FreePolicy, Runtime};
/// let devices = Runtime::simulated("b70x2")?.devices()?;
/// let context = Context::new(&devices)?;
/// let mut buffer = context.alloc_device(&devices[0], 4096, 0)?;
/// buffer.set_free_policy(FreePolicy::Blocking); // waits for work using it when dropped
/// # Ok::<(), lazy_usm::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum FreePolicy {
    /// `zeMemFree`: at once.
    #[default]
    Immediate,
    /// `zeMemFreeExt` with `BLOCKING_FREE`: after work still using it completes (falls back to
    /// `zeMemFree` where the driver lacks `zeMemFreeExt`).
    Blocking,
    /// `zeMemFreeExt` with `DEFER_FREE`: the driver frees it once such work completes.
    Deferred,
}

/// One USM allocation; freed on drop.
struct Allocation {
    context: Context,
    address: usize,
    size: usize,
    alignment: usize,
    kind: MemoryKind,
    device: Option<Device>,
    free_policy: FreePolicy,
}

impl Drop for Allocation {
    fn drop(&mut self) {
        let api = self.context.api();
        let pointer = self.address as *mut c_void;
        let flag = match self.free_policy {
            FreePolicy::Immediate => None,
            FreePolicy::Blocking => Some(ze_driver_memory_free_policy_ext_flag_t::ZE_DRIVER_MEMORY_FREE_POLICY_EXT_FLAG_BLOCKING_FREE.0),
            FreePolicy::Deferred => Some(ze_driver_memory_free_policy_ext_flag_t::ZE_DRIVER_MEMORY_FREE_POLICY_EXT_FLAG_DEFER_FREE.0),
        };
        let handle = self.context.handle().0;
        // SAFETY: the allocation is live, of this context, and freed exactly once, here.
        let (call, result) = unsafe {
            match (flag, api.mem_free_ext) {
                (Some(policy), Some(free_ext)) => {
                    let desc = ze_memory_free_ext_desc_t {
                        stype: ze_structure_type_t::ZE_STRUCTURE_TYPE_MEMORY_FREE_EXT_DESC,
                        pNext: std::ptr::null(),
                        freePolicy: policy,
                    };
                    (ze_name!(mem_free_ext), free_ext(handle, &desc, pointer))
                }
                _ => (ze_name!(mem_free), (api.mem_free)(handle, pointer)),
            }
        };
        if let Err(error) = check(call, result) {
            self.context.record_drop_error(error);
        }
    }
}

pub(crate) mod sealed {
    pub trait Sealed {}
}

/// What every USM buffer offers: where it is, how big, whose.
///
/// ```
/// use lazy_usm::{Context, Memory, Runtime};
/// let devices = Runtime::simulated("b70x2")?.devices()?;
/// let context = Context::new(&devices)?;
/// let buffer = context.alloc_shared(None, 100, 0)?;
/// assert_eq!((buffer.len(), buffer.device()), (100, None));
/// assert_eq!(buffer.context(), &context);
/// # Ok::<(), lazy_usm::Error>(())
/// ```
pub trait Memory: sealed::Sealed {
    #[doc(hidden)]
    fn allocation(&self) -> &dyn AllocationView;

    /// Start address.
    fn address(&self) -> usize {
        self.allocation().address()
    }
    /// Size in bytes.
    fn len(&self) -> usize {
        self.allocation().size()
    }
    /// Whether the buffer is empty (never: zero-size allocations are refused).
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// The context it was allocated in.
    fn context(&self) -> &Context {
        self.allocation().context()
    }
    /// Device, host or shared.
    fn kind(&self) -> MemoryKind {
        self.allocation().kind()
    }
    /// The owning device (device memory) or associated device (shared memory).
    fn device(&self) -> Option<&Device> {
        self.allocation().device()
    }
    /// The alignment it was allocated with.
    fn alignment(&self) -> usize {
        self.allocation().alignment()
    }
    /// How work using managed memory (a `DeviceAllocation` or a pool block) tells its manager,
    /// which keeps it resident until the work completes; `None` for memory nothing tracks.
    #[doc(hidden)]
    fn use_tracking(&self) -> Option<Tracked<'_>> {
        None
    }
}

/// Counts one use of each tracked memory among `memories` for the length of a call.
pub(crate) fn uses_for_call<'a>(memories: &[&'a dyn Memory]) -> CallUses<'a> {
    CallUses::begin(
        memories
            .iter()
            .filter_map(|memory| memory.use_tracking())
            .map(Tracked::tracker),
    )
}

/// One held use of each tracked memory among `memories`: for work that outlives the call (an
/// asynchronous copy, a recorded list's held buffer).
pub(crate) fn held_uses(memories: &[&dyn Memory]) -> Vec<HeldUse> {
    memories
        .iter()
        .filter_map(|memory| memory.use_tracking())
        .map(|tracked| tracked.tracker().hold_use())
        .collect()
}

/// Memory no [`crate::ResidencyManager`] tracks: plain device, host and shared buffers. Only
/// these can be made resident or evicted directly through a [`Context`]; managed memory changes
/// residency through its manager alone, so its records and host cost stay true.
///
/// ```compile_fail
/// # use lazy_usm::*;
/// # let runtime = Runtime::simulated("b70x2")?;
/// # let devices = runtime.devices()?;
/// let manager = ResidencyManager::new(Context::new(&devices)?, ResidencyConfig::default())?;
/// let mut allocation = manager.allocate(&devices[0], 4096)?;
/// manager.context().make_resident(&allocation, &devices[1])?; // DeviceAllocation is not Unmanaged
/// # Ok::<(), Error>(())
/// ```
pub trait Unmanaged: Memory {}

#[doc(hidden)]
pub trait AllocationView {
    fn address(&self) -> usize;
    fn size(&self) -> usize;
    fn context(&self) -> &Context;
    fn kind(&self) -> MemoryKind;
    fn device(&self) -> Option<&Device>;
    fn alignment(&self) -> usize;
}

impl AllocationView for Allocation {
    fn address(&self) -> usize {
        self.address
    }
    fn size(&self) -> usize {
        self.size
    }
    fn context(&self) -> &Context {
        &self.context
    }
    fn kind(&self) -> MemoryKind {
        self.kind
    }
    fn device(&self) -> Option<&Device> {
        self.device.as_ref()
    }
    fn alignment(&self) -> usize {
        self.alignment
    }
}

macro_rules! buffer {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        pub struct $name {
            allocation: Allocation,
        }

        impl sealed::Sealed for $name {}

        impl Unmanaged for $name {}

        impl Memory for $name {
            fn allocation(&self) -> &dyn AllocationView {
                &self.allocation
            }
        }

        impl std::fmt::Debug for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.debug_struct(stringify!($name))
                    .field("address", &format_args!("{:#x}", self.allocation.address))
                    .field("size", &self.allocation.size)
                    .field("device", &self.allocation.device.as_ref().map(Device::index))
                    .finish()
            }
        }

        impl $name {
            /// How the buffer is freed when dropped.
            ///
            /// ```
            /// # use lazy_usm::*;
            /// # let runtime = Runtime::simulated("b70x2")?;
            /// # let devices = runtime.devices()?;
            /// let context = Context::new(&devices)?;
            /// let mut buffer = context.alloc_host(64, 0)?;
            /// buffer.set_free_policy(FreePolicy::Deferred);
            /// # Ok::<(), Error>(())
            /// ```
            pub fn set_free_policy(&mut self, policy: FreePolicy) {
                self.allocation.free_policy = policy;
            }
        }
    };
}

buffer!(
    /// Device memory (`zeMemAllocDevice`), owned by one device of its context.
    ///
    /// ```
    /// use lazy_usm::{Context, Memory, Runtime};
    /// let devices = Runtime::simulated("b70x2")?.devices()?;
    /// let context = Context::new(&devices)?;
    /// let buffer = context.alloc_device(&devices[0], 4096, 256)?;
    /// assert_eq!((buffer.len(), buffer.address() % 256), (4096, 0));
    /// assert_eq!(buffer.device(), Some(&devices[0]));
    /// # Ok::<(), lazy_usm::Error>(())
    /// ```
    DeviceBuffer
);
buffer!(
    /// Host memory (`zeMemAllocHost`): pinned, reachable from every device of its context,
    /// readable and writable from the host.
    ///
    /// ```
    /// let devices = lazy_usm::Runtime::simulated("b70x2")?.devices()?;
    /// let context = lazy_usm::Context::new(&devices)?;
    /// let mut buffer = context.alloc_host(16, 64)?;
    /// buffer.as_mut_slice().fill(7);
    /// assert_eq!(buffer.as_slice(), &[7; 16]);
    /// # Ok::<(), lazy_usm::Error>(())
    /// ```
    HostBuffer
);
buffer!(
    /// Shared memory (`zeMemAllocShared`): host-accessible, migrating to its device on use.
    ///
    /// ```
    /// let devices = lazy_usm::Runtime::simulated("b70x2")?.devices()?;
    /// let context = lazy_usm::Context::new(&devices)?;
    /// let mut buffer = context.alloc_shared(Some(&devices[0]), 16, 64)?;
    /// buffer.as_mut_slice()[0] = 1;
    /// assert_eq!(buffer.as_slice()[0], 1);
    /// # Ok::<(), lazy_usm::Error>(())
    /// ```
    SharedBuffer
);

macro_rules! host_view {
    ($name:ident) => {
        impl $name {
            /// The bytes, read from the host: zeros at allocation (lazy-usm writes them; Level
            /// Zero promises no initial contents). No device work can be writing them:
            /// asynchronous work owns its buffers until it completes.
            ///
            /// ```
            /// # use lazy_usm::*;
            /// # let runtime = Runtime::simulated("b70x2")?;
            /// # let devices = runtime.devices()?;
            /// let context = Context::new(&devices)?;
            /// assert_eq!(context.alloc_host(4, 0)?.as_slice(), &[0; 4]);
            /// # Ok::<(), Error>(())
            /// ```
            pub fn as_slice(&self) -> &[u8] {
                // SAFETY: a live host-accessible allocation of `size` bytes, zeroed at
                // allocation or written since; `&self` rules out a concurrent `as_mut_slice`, and
                // device work that could write it owns the buffer.
                unsafe {
                    std::slice::from_raw_parts(
                        self.allocation.address as *const u8,
                        self.allocation.size,
                    )
                }
            }

            /// The bytes, for writing from the host.
            ///
            /// ```
            /// # use lazy_usm::*;
            /// # let runtime = Runtime::simulated("b70x2")?;
            /// # let devices = runtime.devices()?;
            /// let context = Context::new(&devices)?;
            /// let mut buffer = context.alloc_shared(None, 4, 0)?;
            /// buffer.as_mut_slice().copy_from_slice(&[1, 2, 3, 4]);
            /// assert_eq!(buffer.as_slice(), &[1, 2, 3, 4]);
            /// # Ok::<(), Error>(())
            /// ```
            pub fn as_mut_slice(&mut self) -> &mut [u8] {
                // SAFETY: as above; `&mut self` makes this the only view.
                unsafe {
                    std::slice::from_raw_parts_mut(
                        self.allocation.address as *mut u8,
                        self.allocation.size,
                    )
                }
            }
        }
    };
}

host_view!(HostBuffer);
host_view!(SharedBuffer);

/// Writes zeros over a fresh host-accessible allocation, so that reading it is defined.
fn zero(allocation: &Allocation) {
    // SAFETY: a live host-accessible allocation of `size` bytes that nothing else uses yet.
    unsafe { std::ptr::write_bytes(allocation.address as *mut u8, 0, allocation.size) }
}

/// The largest alignment an allocation may ask for (1 GiB, the largest page size).
pub const MAX_ALIGNMENT: usize = 1 << 30;

/// Checks a request: a size, and an alignment that is 0 (the driver's choice) or a power of two
/// up to [`MAX_ALIGNMENT`].
pub(crate) fn check_layout(size: usize, alignment: usize) -> Result<()> {
    if size == 0 {
        return Err(Error::invalid("allocation size is 0"));
    }
    if alignment != 0 && (!alignment.is_power_of_two() || alignment > MAX_ALIGNMENT) {
        return Err(Error::BadAlignment {
            alignment,
            max: MAX_ALIGNMENT,
        });
    }
    if size
        .checked_add(alignment)
        .is_none_or(|total| total > isize::MAX as usize)
    {
        return Err(Error::SizeOverflow {
            what: "an allocation",
            size,
        });
    }
    Ok(())
}

impl Context {
    fn take_allocation(
        &self,
        call: &'static str,
        result: ze_result_t,
        address: *mut c_void,
        (size, alignment): (usize, usize),
        kind: MemoryKind,
        device: Option<&Device>,
    ) -> Result<Allocation> {
        check(call, result)?;
        Ok(Allocation {
            context: self.clone(),
            address: address as usize,
            size,
            alignment,
            kind,
            device: device.cloned(),
            free_policy: FreePolicy::default(),
        })
    }

    /// Device memory on `device` (`alignment` 0 lets the driver choose).
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// let context = Context::new(&devices)?;
    /// let buffer = context.alloc_device(&devices[1], 4096, 4096)?;
    /// assert_eq!(buffer.address() % 4096, 0);
    /// assert!(context.alloc_device(&devices[1], 0, 0).is_err());
    /// # Ok::<(), Error>(())
    /// ```
    pub fn alloc_device(
        &self,
        device: &Device,
        size: usize,
        alignment: usize,
    ) -> Result<DeviceBuffer> {
        check_layout(size, alignment)?;
        self.check_device(device)?;
        let desc = ze_device_mem_alloc_desc_t {
            stype: ze_structure_type_t::ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC,
            ..Default::default()
        };
        let mut pointer = std::ptr::null_mut();
        // SAFETY: a live context and device of it, a valid descriptor and output pointer.
        let result = unsafe {
            (self.api().mem_alloc_device)(
                self.handle().0,
                &desc,
                size,
                alignment,
                device.handle().0,
                &mut pointer,
            )
        };
        let allocation = self.take_allocation(
            ze_name!(mem_alloc_device),
            result,
            pointer,
            (size, alignment),
            MemoryKind::Device,
            Some(device),
        )?;
        Ok(DeviceBuffer { allocation })
    }

    /// Host memory (`alignment` 0 lets the driver choose).
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// let context = Context::new(&devices)?;
    /// assert_eq!(context.alloc_host(100, 0)?.len(), 100);
    /// assert!(matches!(context.alloc_host(100, 3), Err(Error::BadAlignment { alignment: 3, .. })));
    /// assert!(matches!(context.alloc_host(100, 1 << 63), Err(Error::BadAlignment { .. })));
    /// # Ok::<(), Error>(())
    /// ```
    pub fn alloc_host(&self, size: usize, alignment: usize) -> Result<HostBuffer> {
        check_layout(size, alignment)?;
        let desc = ze_host_mem_alloc_desc_t {
            stype: ze_structure_type_t::ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC,
            ..Default::default()
        };
        let mut pointer = std::ptr::null_mut();
        // SAFETY: a live context, a valid descriptor and output pointer.
        let result = unsafe {
            (self.api().mem_alloc_host)(self.handle().0, &desc, size, alignment, &mut pointer)
        };
        let allocation = self.take_allocation(
            ze_name!(mem_alloc_host),
            result,
            pointer,
            (size, alignment),
            MemoryKind::Host,
            None,
        )?;
        zero(&allocation);
        Ok(HostBuffer { allocation })
    }

    /// Shared memory, associated with `device` if given.
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// let context = Context::new(&devices)?;
    /// assert_eq!(context.alloc_shared(Some(&devices[1]), 100, 0)?.device(), Some(&devices[1]));
    /// # Ok::<(), Error>(())
    /// ```
    pub fn alloc_shared(
        &self,
        device: Option<&Device>,
        size: usize,
        alignment: usize,
    ) -> Result<SharedBuffer> {
        check_layout(size, alignment)?;
        if let Some(device) = device {
            self.check_device(device)?;
        }
        let device_desc = ze_device_mem_alloc_desc_t {
            stype: ze_structure_type_t::ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC,
            ..Default::default()
        };
        let host_desc = ze_host_mem_alloc_desc_t {
            stype: ze_structure_type_t::ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC,
            ..Default::default()
        };
        let mut pointer = std::ptr::null_mut();
        let device_handle = device.map_or(std::ptr::null_mut(), |device| device.handle().0);
        // SAFETY: a live context, an optional device of it, valid descriptors and output pointer.
        let result = unsafe {
            (self.api().mem_alloc_shared)(
                self.handle().0,
                &device_desc,
                &host_desc,
                size,
                alignment,
                device_handle,
                &mut pointer,
            )
        };
        let allocation = self.take_allocation(
            ze_name!(mem_alloc_shared),
            result,
            pointer,
            (size, alignment),
            MemoryKind::Shared,
            device,
        )?;
        zero(&allocation);
        Ok(SharedBuffer { allocation })
    }
}

/// What Level Zero knows about an arbitrary pointer in a context.
#[derive(Debug, Clone, PartialEq)]
pub struct PointerInfo {
    /// The kind of allocation, or `None` for memory this context did not allocate.
    pub kind: Option<MemoryKind>,
    /// The device of a device or shared allocation.
    pub device: Option<Device>,
    /// Base address and size of the allocation containing the pointer.
    pub range: Option<(usize, usize)>,
}

impl Context {
    pub(crate) fn check_memory(&self, memory: &dyn Memory) -> Result<()> {
        if memory.context() == self {
            Ok(())
        } else {
            Err(Error::ForeignMemory {
                address: memory.address(),
                len: memory.len(),
                owner: "another context",
            })
        }
    }

    /// Makes `memory` resident on `device` (`zeContextMakeMemoryResident`). On a peer of the
    /// owner this costs host memory on recent drivers: lazy-usm's residency layer decides when.
    /// Memory a residency manager tracks goes through its manager instead ([`Unmanaged`]).
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// let context = Context::new(&devices)?;
    /// let buffer = context.alloc_device(&devices[0], 1 << 20, 0)?;
    /// context.make_resident(&buffer, &devices[1])?;
    /// assert_eq!(runtime.simulator().unwrap().host_pinned_bytes(), 1 << 20, "the peer mirror");
    /// # Ok::<(), Error>(())
    /// ```
    pub fn make_resident(&self, memory: &impl Unmanaged, device: &Device) -> Result<()> {
        self.residency(memory, device, false)
    }

    /// Evicts `memory` from `device` (`zeContextEvictMemory`). Takes `&mut`: no copy through
    /// a shared reference can be using the memory meanwhile.
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// let context = Context::new(&devices)?;
    /// let mut buffer = context.alloc_device(&devices[0], 1 << 20, 0)?;
    /// context.make_resident(&buffer, &devices[1])?;
    /// context.evict(&mut buffer, &devices[1])?;
    /// assert_eq!(runtime.simulator().unwrap().host_pinned_bytes(), 0);
    /// # Ok::<(), Error>(())
    /// ```
    pub fn evict(&self, memory: &mut impl Unmanaged, device: &Device) -> Result<()> {
        self.residency(memory, device, true)
    }

    fn residency(&self, memory: &dyn Memory, device: &Device, evict: bool) -> Result<()> {
        self.check_memory(memory)?;
        self.residency_range(memory.address(), memory.len(), device, evict)
    }

    /// What the driver knows about the memory at `address`: a lookup of foreign pointers.
    ///
    /// ```
    /// use lazy_usm::{Context, Memory, MemoryKind, Runtime};
    /// let devices = Runtime::simulated("b70x2")?.devices()?;
    /// let context = Context::new(&devices)?;
    /// let buffer = context.alloc_device(&devices[1], 4096, 0)?;
    /// let info = context.pointer_info(buffer.address() + 100)?;
    /// assert_eq!(info.kind, Some(MemoryKind::Device));
    /// assert_eq!(info.device.as_ref(), Some(&devices[1]));
    /// assert_eq!(info.range, Some((buffer.address(), 4096)));
    /// let stack = 0u8;
    /// assert_eq!(context.pointer_info(&stack as *const u8 as usize)?.kind, None);
    /// # Ok::<(), lazy_usm::Error>(())
    /// ```
    pub fn pointer_info(&self, address: usize) -> Result<PointerInfo> {
        let pointer = address as *const c_void;
        let mut properties = ze_memory_allocation_properties_t {
            stype: ze_structure_type_t::ZE_STRUCTURE_TYPE_MEMORY_ALLOCATION_PROPERTIES,
            ..Default::default()
        };
        let mut device = std::ptr::null_mut();
        // SAFETY: the driver only looks the address up; valid output pointers.
        unsafe {
            ze_call!(
                self.api(),
                mem_get_alloc_properties(self.handle().0, pointer, &mut properties, &mut device,)
            )
        }?;
        let kind = match properties.type_ {
            ze_memory_type_t::ZE_MEMORY_TYPE_DEVICE => Some(MemoryKind::Device),
            ze_memory_type_t::ZE_MEMORY_TYPE_HOST => Some(MemoryKind::Host),
            ze_memory_type_t::ZE_MEMORY_TYPE_SHARED => Some(MemoryKind::Shared),
            _ => None,
        };
        let device = self
            .devices()
            .iter()
            .find(|candidate| candidate.handle().0 == device)
            .cloned();
        let range = if kind.is_some() {
            let (mut base, mut size) = (std::ptr::null_mut(), 0usize);
            // SAFETY: as above.
            unsafe {
                ze_call!(
                    self.api(),
                    mem_get_address_range(self.handle().0, pointer, &mut base, &mut size)
                )
            }?;
            Some((base as usize, size))
        } else {
            None
        };
        Ok(PointerInfo {
            kind,
            device,
            range,
        })
    }
}
