//! Registered host memory: caller-owned host ranges imported into the driver (Intel's
//! `zexDriverImportExternalPointer`), so host<->device copies from them run as direct DMA rather
//! than through the driver's pageable staging. Where the extension is missing or refuses, the
//! memory stays usable unregistered, and the reason is logged once and returned.

use crate::error::{Error, Result, check};
use crate::ze::call::extension_name;
use crate::ze::context::Context;
use crate::ze::driver::Driver;
use crate::ze::memory::{HostBuffer, Memory, MemoryKind};
use level_zero_sys::extensions::{
    ZEX_DRIVER_GET_HOST_POINTER_BASE_ADDRESS, ZEX_DRIVER_IMPORT_EXTERNAL_POINTER,
    ZEX_DRIVER_RELEASE_IMPORTED_POINTER, zex_pfnDriverGetHostPointerBaseAddress_t,
    zex_pfnDriverImportExternalPointer_t, zex_pfnDriverReleaseImportedPointer_t,
};
use level_zero_sys::ze_result_t;
use std::collections::{BTreeMap, HashSet};
use std::ffi::c_void;
use std::sync::{LazyLock, Mutex};

/// Page size imports must be aligned to. compute-runtime takes any alignment but maps the whole
/// pages around a range (its DRM memory manager aligns the user pointer down to a page), so
/// page-aligned registrations never share a page.
pub const IMPORT_ALIGNMENT: usize = 4096;

/// Live imports by (driver key, start) -> length, to refuse overlaps before the driver sees
/// them. The key names the runtime too: two platforms may hand out equal raw handles.
type DriverKey = (usize, usize);
static IMPORTS: LazyLock<Mutex<BTreeMap<(DriverKey, usize), usize>>> =
    LazyLock::new(Default::default);
/// Why a range inside another import stays unregistered (logged once, whatever the range).
const NESTED_REASON: &str = "it lies inside a range another part of the program imported, \
    which the driver would not import again (and releasing it would release theirs)";
/// Reasons already logged, so each is logged once per process.
static LOGGED: LazyLock<Mutex<HashSet<String>>> = LazyLock::new(Default::default);

fn log_once(reason: &str) {
    let mut logged = LOGGED
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    if logged.insert(reason.to_string()) {
        log::warn!(
            "lazy-usm: host memory stays unregistered ({reason}); copies run at pageable speed"
        );
    }
}

/// Whether a host range was registered with the driver.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Registration {
    /// Imported: copies to and from it are direct DMA.
    Registered,
    /// Not imported, for this reason; copies work, staged by the driver.
    Unregistered(String),
}

/// How a host<->device copy of some host memory runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HostPath {
    /// Direct DMA: registered memory or a driver host allocation.
    Direct,
    /// Pageable memory, staged by the driver.
    Staged,
}

/// Caller-owned host memory registered with a driver for as long as this value lives.
///
/// ```
/// use lazy_usm::{HostMemory, Registration, Runtime};
/// let runtime = Runtime::simulated("b70x2")?;
/// let driver = &runtime.drivers()?[0];
/// let mut pages = lazy_usm::PageAlignedBytes::new(1 << 20);
/// let host = HostMemory::register(driver, pages.as_mut_slice())?;
/// assert_eq!(host.registration(), &Registration::Registered);
/// # Ok::<(), lazy_usm::Error>(())
/// ```
pub struct HostMemory<'a> {
    driver: Driver,
    /// The range, held as a pointer: a range registered through [`HostMemory::register_raw`]
    /// is written by others meanwhile, so no `&mut` to it may exist.
    start: std::ptr::NonNull<u8>,
    len: usize,
    /// For [`HostMemory::register`]: the range is borrowed, exclusively, for `'a`.
    borrow: std::marker::PhantomData<&'a mut [u8]>,
    registration: Registration,
    release: Option<zex_pfnDriverReleaseImportedPointer_t>,
}

// SAFETY: it owns a registration and points at a range that is borrowed exclusively (`register`)
// or that the caller keeps valid (`register_raw`); the pointer is read only for the release
// call and for slices whose borrow rules `as_slice`/`as_mut_slice` state, as `&mut [u8]` is Send.
unsafe impl Send for HostMemory<'_> {}
// SAFETY: `&self` gives out only shared slices, as `&mut [u8]` is Sync.
unsafe impl Sync for HostMemory<'_> {}

impl std::fmt::Debug for HostMemory<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HostMemory")
            .field(
                "address",
                &format_args!("{:#x}", self.start.as_ptr() as usize),
            )
            .field("len", &self.len)
            .field("registration", &self.registration)
            .finish()
    }
}

impl<'a> HostMemory<'a> {
    /// Registers `bytes` with `driver`. The range must be non-empty, start and end on
    /// [`IMPORT_ALIGNMENT`], and overlap no other live registration with this driver: otherwise
    /// a typed error. A driver without the extension, or one that refuses, leaves it
    /// unregistered (logged once; see [`HostMemory::registration`]).
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// let mut pages = PageAlignedBytes::new(4096);
    /// let host = HostMemory::register(devices[0].driver(), pages.as_mut_slice())?;
    /// assert!(host.is_registered());
    /// # Ok::<(), Error>(())
    /// ```
    pub fn register(driver: &Driver, bytes: &'a mut [u8]) -> Result<Self> {
        // SAFETY: the range is borrowed, exclusively, for the value's life.
        unsafe { Self::register_range(driver, bytes.as_mut_ptr(), bytes.len()) }
    }

    /// [`HostMemory::register`] of a range given by address (memory another owner, such as a
    /// Python buffer, keeps and writes): registered until the value is dropped.
    ///
    /// # Safety
    /// `len` bytes at `start` must stay allocated for the value's life, and must not be written
    /// while a slice from [`HostMemory::as_slice`] or [`HostMemory::as_mut_slice`] is alive.
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// let mut pages = PageAlignedBytes::new(8192);
    /// let start = pages.as_mut_slice().as_mut_ptr();
    /// // SAFETY: `pages` outlives the registration and nothing writes it meanwhile.
    /// let host = unsafe { HostMemory::register_raw(devices[0].driver(), start, 8192) }?;
    /// assert!(host.is_registered());
    /// // SAFETY: as above.
    /// let overlap = unsafe { HostMemory::register_raw(devices[0].driver(), start.wrapping_add(4096), 4096) };
    /// assert!(overlap.is_err(), "an overlapping range is refused");
    /// # Ok::<(), Error>(())
    /// ```
    pub unsafe fn register_raw(
        driver: &Driver,
        start: *mut u8,
        len: usize,
    ) -> Result<HostMemory<'static>> {
        // SAFETY: the caller's promise.
        unsafe { HostMemory::register_range(driver, start, len) }
    }

    /// # Safety
    /// As [`HostMemory::register_raw`], for `'a`.
    unsafe fn register_range(driver: &Driver, pointer: *mut u8, len: usize) -> Result<Self> {
        let start = pointer as usize;
        if len > isize::MAX as usize || start.checked_add(len).is_none() {
            return Err(Error::invalid(format!(
                "{len} bytes at {start:#x} are no range of this address space"
            )));
        }
        let Some(pointer) = std::ptr::NonNull::new(pointer) else {
            return Err(Error::invalid("cannot register a null host address"));
        };
        if len == 0 {
            return Err(Error::invalid("cannot register an empty host range"));
        }
        if !start.is_multiple_of(IMPORT_ALIGNMENT) {
            return Err(Error::Misaligned {
                what: "host address",
                value: start,
                required: IMPORT_ALIGNMENT,
            });
        }
        if !len.is_multiple_of(IMPORT_ALIGNMENT) {
            return Err(Error::Misaligned {
                what: "host range length",
                value: len,
                required: IMPORT_ALIGNMENT,
            });
        }
        let key = driver.key();
        let mut imports = IMPORTS
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let overlap = imports
            .range((key, 0)..(key, start + len))
            .next_back()
            .filter(|&(&(_, base), &length)| base + length > start);
        if let Some((&(_, base), &length)) = overlap {
            return Err(Error::invalid(format!(
                "host range {start:#x}+{len} overlaps the registered range {base:#x}+{length}"
            )));
        }
        let functions = driver
            .extension_function(ZEX_DRIVER_IMPORT_EXTERNAL_POINTER)
            .zip(driver.extension_function(ZEX_DRIVER_RELEASE_IMPORTED_POINTER));
        let Some((import, release)) = functions else {
            let reason = "the driver has no zexDriverImportExternalPointer".to_string();
            log_once(&reason);
            return Ok(Self {
                driver: driver.clone(),
                start: pointer,
                len,
                borrow: std::marker::PhantomData,
                registration: Registration::Unregistered(reason),
                release: None,
            });
        };
        // SAFETY: the driver returned these addresses for these names, whose signatures Intel's
        // zex_driver.h declares.
        let (import, release) = unsafe {
            (
                std::mem::transmute::<*const c_void, zex_pfnDriverImportExternalPointer_t>(import),
                std::mem::transmute::<*const c_void, zex_pfnDriverReleaseImportedPointer_t>(
                    release,
                ),
            )
        };
        // compute-runtime answers success for a range inside a live import without making
        // one (`HostPointerManager::createHostPointerMultiAllocation`), and a release through
        // it would release that import: another part of the program's (or another runtime's
        // over the same driver). So a range whose start some import holds already is not
        // imported, and one whose import turns out to begin elsewhere is not released.
        let inside_another = Self::import_base(driver, start).is_some();
        let result = if inside_another {
            ze_result_t::ZE_RESULT_SUCCESS
        } else {
            // SAFETY: a live driver and a caller-owned range borrowed for this value's life.
            unsafe { import(driver.handle().0, start as *mut c_void, len) }
        };
        match check(extension_name(ZEX_DRIVER_IMPORT_EXTERNAL_POINTER), result) {
            Ok(())
                if inside_another
                    || Self::import_base(driver, start).is_some_and(|base| base != start) =>
            {
                log_once(NESTED_REASON);
                Ok(Self {
                    driver: driver.clone(),
                    start: pointer,
                    len,
                    borrow: std::marker::PhantomData,
                    registration: Registration::Unregistered(format!(
                        "host range {start:#x}+{len}: {NESTED_REASON}"
                    )),
                    release: None,
                })
            }
            Ok(()) => {
                imports.insert((key, start), len);
                Ok(Self {
                    driver: driver.clone(),
                    start: pointer,
                    len,
                    borrow: std::marker::PhantomData,
                    registration: Registration::Registered,
                    release: Some(release),
                })
            }
            Err(error) => {
                let reason = error.to_string();
                log_once(&reason);
                Ok(Self {
                    driver: driver.clone(),
                    start: pointer,
                    len,
                    borrow: std::marker::PhantomData,
                    registration: Registration::Unregistered(reason),
                    release: None,
                })
            }
        }
    }

    /// The base of the driver's import containing `start`, if the driver has one and says.
    fn import_base(driver: &Driver, start: usize) -> Option<usize> {
        let base_of = driver.extension_function(ZEX_DRIVER_GET_HOST_POINTER_BASE_ADDRESS)?;
        // SAFETY: the driver returned this address for this name, whose signature Intel's
        // zex_driver.h declares.
        let base_of = unsafe {
            std::mem::transmute::<*const c_void, zex_pfnDriverGetHostPointerBaseAddress_t>(base_of)
        };
        let mut base = std::ptr::null_mut();
        // SAFETY: a live driver, an address, and an output slot of this frame.
        let result = unsafe { base_of(driver.handle().0, start as *mut c_void, &mut base) };
        (result == ze_result_t::ZE_RESULT_SUCCESS).then_some(base as usize)
    }

    /// Whether it was registered, and why not if not.
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// let mut pages = PageAlignedBytes::new(4096);
    /// let host = HostMemory::register(devices[0].driver(), pages.as_mut_slice())?;
    /// assert_eq!(host.registration(), &Registration::Registered);
    /// # Ok::<(), Error>(())
    /// ```
    pub fn registration(&self) -> &Registration {
        &self.registration
    }

    /// Whether copies to and from it are direct.
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// let mut pages = PageAlignedBytes::new(8192);
    /// assert!(HostMemory::register(devices[0].driver(), pages.as_mut_slice())?.is_registered());
    /// # Ok::<(), Error>(())
    /// ```
    pub fn is_registered(&self) -> bool {
        self.registration == Registration::Registered
    }

    /// The bytes.
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// let mut pages = PageAlignedBytes::new(4096);
    /// let host = HostMemory::register(devices[0].driver(), pages.as_mut_slice())?;
    /// assert_eq!(host.as_slice().len(), 4096);
    /// # Ok::<(), Error>(())
    /// ```
    pub fn as_slice(&self) -> &[u8] {
        // SAFETY: the range is valid for `len` bytes while the value lives, and not written
        // meanwhile (borrowed exclusively, or the `register_raw` caller's promise).
        unsafe { std::slice::from_raw_parts(self.start.as_ptr(), self.len) }
    }

    /// The bytes, for writing.
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// let mut pages = PageAlignedBytes::new(4096);
    /// let mut host = HostMemory::register(devices[0].driver(), pages.as_mut_slice())?;
    /// host.as_mut_slice()[0] = 7;
    /// assert_eq!(host.as_slice()[0], 7);
    /// # Ok::<(), Error>(())
    /// ```
    pub fn as_mut_slice(&mut self) -> &mut [u8] {
        // SAFETY: as for `as_slice`; `&mut self` makes this the only slice of it.
        unsafe { std::slice::from_raw_parts_mut(self.start.as_ptr(), self.len) }
    }
}

impl Drop for HostMemory<'_> {
    fn drop(&mut self) {
        let Some(release) = self.release.take() else {
            return;
        };
        let start = self.start.as_ptr() as usize;
        IMPORTS
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .remove(&(self.driver.key(), start));
        // SAFETY: the range this value imported, released once, here.
        let result = unsafe { release(self.driver.handle().0, start as *mut c_void) };
        if let Err(error) = check(extension_name(ZEX_DRIVER_RELEASE_IMPORTED_POINTER), result) {
            log::error!("lazy-usm: {error}");
        }
    }
}

/// Page-aligned, zeroed host bytes owned by Rust: what [`HostMemory::register`] wants.
///
/// ```
/// let mut bytes = lazy_usm::PageAlignedBytes::new(5000);
/// assert_eq!(bytes.as_slice().len(), 8192, "rounded up to whole pages");
/// assert_eq!(bytes.as_mut_slice().as_ptr() as usize % 4096, 0);
/// ```
pub struct PageAlignedBytes {
    pages: Vec<Page>,
}

#[repr(C, align(4096))]
#[derive(Clone, Copy)]
struct Page([u8; IMPORT_ALIGNMENT]);

impl PageAlignedBytes {
    /// `len` bytes rounded up to whole pages.
    ///
    /// ```
    /// assert_eq!(lazy_usm::PageAlignedBytes::new(1).as_slice().len(), 4096);
    /// ```
    pub fn new(len: usize) -> Self {
        Self {
            pages: vec![Page([0; IMPORT_ALIGNMENT]); len.div_ceil(IMPORT_ALIGNMENT)],
        }
    }

    /// The bytes.
    ///
    /// ```
    /// assert!(lazy_usm::PageAlignedBytes::new(10).as_slice().iter().all(|&b| b == 0));
    /// ```
    pub fn as_slice(&self) -> &[u8] {
        let len = self.pages.len() * IMPORT_ALIGNMENT;
        // SAFETY: `Page` is plain bytes with no padding; the vector holds `len` of them.
        unsafe { std::slice::from_raw_parts(self.pages.as_ptr() as *const u8, len) }
    }

    /// The bytes, for writing.
    ///
    /// ```
    /// let mut bytes = lazy_usm::PageAlignedBytes::new(10);
    /// bytes.as_mut_slice()[9] = 1;
    /// assert_eq!(bytes.as_slice()[9], 1);
    /// ```
    pub fn as_mut_slice(&mut self) -> &mut [u8] {
        let len = self.pages.len() * IMPORT_ALIGNMENT;
        // SAFETY: as above, and `&mut self` makes this the only view.
        unsafe { std::slice::from_raw_parts_mut(self.pages.as_mut_ptr() as *mut u8, len) }
    }
}

/// Pinned host memory for transfers: the driver's own host allocation (pinned at allocation,
/// direct on every driver, no import needed), which is why the staged peer-copy path uses one.
///
/// ```
/// use lazy_usm::{Context, HostPath, PinnedHostBuffer, Runtime};
/// let devices = Runtime::simulated("b70x2")?.devices()?;
/// let context = Context::new(&devices)?;
/// let mut pinned = PinnedHostBuffer::new(&context, 4096)?;
/// pinned.as_mut_slice().fill(1);
/// assert_eq!(lazy_usm::host_path(&context, pinned.as_slice())?, HostPath::Direct);
/// # Ok::<(), lazy_usm::Error>(())
/// ```
#[derive(Debug)]
pub struct PinnedHostBuffer {
    buffer: HostBuffer,
}

impl PinnedHostBuffer {
    /// `len` bytes of page-aligned pinned host memory.
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// let context = Context::new(&devices)?;
    /// let pinned = PinnedHostBuffer::new(&context, 100)?;
    /// assert_eq!(pinned.as_slice().len(), 100);
    /// # Ok::<(), Error>(())
    /// ```
    pub fn new(context: &Context, len: usize) -> Result<Self> {
        Ok(Self {
            buffer: context.alloc_host(len, IMPORT_ALIGNMENT)?,
        })
    }

    /// The bytes.
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// let context = Context::new(&devices)?;
    /// assert_eq!(PinnedHostBuffer::new(&context, 8)?.as_slice(), &[0; 8]);
    /// # Ok::<(), Error>(())
    /// ```
    pub fn as_slice(&self) -> &[u8] {
        self.buffer.as_slice()
    }

    /// The bytes, for writing.
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// let context = Context::new(&devices)?;
    /// let mut pinned = PinnedHostBuffer::new(&context, 8)?;
    /// pinned.as_mut_slice().fill(3);
    /// assert_eq!(pinned.as_slice(), &[3; 8]);
    /// # Ok::<(), Error>(())
    /// ```
    pub fn as_mut_slice(&mut self) -> &mut [u8] {
        self.buffer.as_mut_slice()
    }

    /// The underlying host allocation.
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// let context = Context::new(&devices)?;
    /// let pinned = PinnedHostBuffer::new(&context, 8)?;
    /// assert_eq!(pinned.buffer().kind(), MemoryKind::Host);
    /// # Ok::<(), Error>(())
    /// ```
    pub fn buffer(&self) -> &HostBuffer {
        &self.buffer
    }
}

/// How a host<->device copy of `bytes` will run in `context`: direct for memory registered with
/// its driver or allocated by it as host memory, staged for pageable memory.
///
/// ```
/// # use lazy_usm::*;
/// # let runtime = Runtime::simulated("b70x2")?;
/// # let devices = runtime.devices()?;
/// let context = Context::new(&devices)?;
/// assert_eq!(host_path(&context, &vec![0u8; 64])?, HostPath::Staged);
/// # Ok::<(), Error>(())
/// ```
pub fn host_path(context: &Context, bytes: &[u8]) -> Result<HostPath> {
    let (start, len) = (bytes.as_ptr() as usize, bytes.len());
    let key = context.driver().key();
    let registered = IMPORTS
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
        .range((key, 0)..=(key, start))
        .next_back()
        .is_some_and(|(&(_, base), &length)| start + len <= base + length);
    if registered {
        return Ok(HostPath::Direct);
    }
    let info = context.pointer_info(start)?;
    let inside = info
        .range
        .is_some_and(|(base, size)| start + len <= base + size);
    Ok(match info.kind {
        Some(MemoryKind::Host | MemoryKind::Shared) if inside => HostPath::Direct,
        _ => HostPath::Staged,
    })
}

impl Memory for PinnedHostBuffer {
    fn allocation(&self) -> &dyn crate::ze::memory::AllocationView {
        self.buffer.allocation()
    }
}

impl crate::ze::memory::sealed::Sealed for PinnedHostBuffer {}
