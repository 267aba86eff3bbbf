//! The host memory behind simulated allocations. Host and shared USM are zeroed heap memory,
//! whole pages of it; device USM has pages of its own, so that exporting it (`zeMemGetIpcHandle`) can turn them
//! into a memory file that an opened handle maps elsewhere, with the bytes shared, as a
//! dma-buf shares a real allocation's.
//!
//! Device pages are carved out of large reserved regions rather than mapped one by one: the
//! kernel allows a process about 65,000 mappings, and a program with 100,000 live allocations
//! (the registry benchmark; a model's parameters) must not run out of them. Freed pages are
//! returned to the host (`MADV_DONTNEED`, which also zeroes them) and their range is reused by
//! the next allocation of the same length and alignment.

use std::alloc::Layout;
use std::ffi::c_void;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::ptr::NonNull;

/// The host's page size: carved ranges are whole pages, so that returning one to the host
/// (which acts on whole pages) never touches its neighbour.
fn page() -> usize {
    static PAGE: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *PAGE.get_or_init(|| {
        // SAFETY: a plain query.
        let size = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
        usize::try_from(size)
            .ok()
            .filter(|size| size.is_power_of_two())
            .unwrap_or(4096)
    })
}

pub(crate) enum Backing {
    /// Zeroed heap memory.
    Heap {
        raw: NonNull<u8>,
        layout: Layout,
        address: usize,
    },
    /// Pages of a reserved region for this allocation alone, private until shared through a
    /// memory file.
    Pages {
        address: usize,
        len: usize,
        alignment: usize,
        file: Option<OwnedFd>,
        /// False once a failed remap left the range in an unknown state: it is left alone when
        /// freed, never reused.
        reusable: bool,
    },
    /// Another allocation's memory file, mapped here (an opened IPC handle).
    Opened { address: usize, len: usize },
}

// SAFETY: the backing is memory owned by this value; access is synchronised by the platform
// lock and by the Level Zero contract on concurrent use.
unsafe impl Send for Backing {}

/// Maps `len` bytes of fresh, private, zeroed pages aligned to `alignment` (a power of two).
fn map_aligned(len: usize, alignment: usize) -> Option<usize> {
    let padded = len.checked_add(alignment)?;
    // SAFETY: asks for fresh anonymous memory.
    let raw = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            padded,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
            -1,
            0,
        )
    };
    if raw == libc::MAP_FAILED {
        return None;
    }
    let raw = raw as usize;
    let address = raw.next_multiple_of(alignment);
    // SAFETY: the head and tail of the range just mapped, outside the kept part.
    unsafe {
        if address > raw {
            libc::munmap(raw as *mut c_void, address - raw);
        }
        let end = address + len;
        if raw + padded > end {
            libc::munmap(end as *mut c_void, raw + padded - end);
        }
    }
    Some(address)
}

/// Smallest region reserved at once.
const REGION: usize = 1 << 30;

/// Reserved address space that device pages are carved from, and ranges freed for reuse.
struct Regions {
    next: usize,
    end: usize,
    /// Freed ranges by (length, alignment).
    free: std::collections::BTreeMap<(usize, usize), Vec<usize>>,
}

static REGIONS: std::sync::Mutex<Regions> = std::sync::Mutex::new(Regions {
    next: 0,
    end: 0,
    free: std::collections::BTreeMap::new(),
});

fn regions() -> std::sync::MutexGuard<'static, Regions> {
    REGIONS
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// `len` bytes of zeroed private pages aligned to `alignment` (a power of two, at least a page).
fn carve(len: usize, alignment: usize) -> Option<usize> {
    let mut regions = regions();
    if let Some(address) = regions.free.get_mut(&(len, alignment)).and_then(Vec::pop) {
        return Some(address);
    }
    let start = regions.next.checked_next_multiple_of(alignment)?;
    if regions.end > 0 && start.checked_add(len)? <= regions.end {
        regions.next = start + len;
        return Some(start);
    }
    // A new region; what is left of the current one stays reserved, unused.
    let size = len.checked_add(alignment)?.max(REGION);
    let base = map_aligned(size, alignment.max(2 << 20))?;
    regions.next = base + len;
    regions.end = base + size;
    Some(base)
}

/// Gives freed pages back to the host and their range to the next allocation of its kind.
fn release(address: usize, len: usize, alignment: usize, shared: bool) {
    // SAFETY: the range is this backing's own pages, which nothing uses any more. Shared pages
    // get fresh private ones in place of the memory file (an opened handle keeps the file);
    // private ones are dropped, reading as zero again.
    let restored = unsafe {
        if shared {
            libc::mmap(
                address as *mut c_void,
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE | libc::MAP_FIXED,
                -1,
                0,
            ) != libc::MAP_FAILED
        } else {
            libc::madvise(address as *mut c_void, len, libc::MADV_DONTNEED) == 0
        }
    };
    if restored {
        regions()
            .free
            .entry((len, alignment))
            .or_default()
            .push(address);
    } else {
        // SAFETY: as above; a range that could not be reset is not reused.
        unsafe { libc::munmap(address as *mut c_void, len) };
    }
}

impl Backing {
    /// `size` zeroed bytes aligned to `alignment` on the heap (host and shared USM).
    pub(crate) fn heap(size: usize, alignment: usize) -> Option<Self> {
        let alignment = alignment.max(64);
        // Whole pages, as a driver backs USM: a kernel that overruns a small allocation writes
        // into the rest of its page, as on hardware, not into this process's heap (level-zero-
        // tests' multiple-indirect test runs 256 items over 16-int buffers).
        let len = size.max(1).checked_next_multiple_of(page())?;
        let layout = Layout::from_size_align(len.checked_add(alignment)?, 16).ok()?;
        // SAFETY: `layout` has a non-zero size.
        let raw = NonNull::new(unsafe { std::alloc::alloc_zeroed(layout) })?;
        let address = (raw.as_ptr() as usize).next_multiple_of(alignment);
        Some(Self::Heap {
            raw,
            layout,
            address,
        })
    }

    /// `size` zeroed bytes aligned to `alignment` in pages of their own (device USM). The host
    /// commits them only when touched.
    pub(crate) fn pages(size: usize, alignment: usize) -> Option<Self> {
        let len = size.max(1).checked_next_multiple_of(page())?;
        let alignment = alignment.max(page()).checked_next_power_of_two()?;
        let address = carve(len, alignment)?;
        Some(Self::Pages {
            address,
            len,
            alignment,
            file: None,
            reusable: true,
        })
    }

    pub(crate) fn address(&self) -> usize {
        match self {
            Self::Heap { address, .. }
            | Self::Pages { address, .. }
            | Self::Opened { address, .. } => *address,
        }
    }

    /// The memory file behind device pages, made on the first call: the pages' bytes move into
    /// it and it is mapped in their place. The caller must make sure nothing reads or writes
    /// the pages meanwhile (no work pending on them). `None` for heap memory, or if the host
    /// refuses.
    pub(crate) fn share(&mut self) -> Option<RawFd> {
        let Self::Pages {
            address,
            len,
            file,
            reusable,
            ..
        } = self
        else {
            return None;
        };
        if let Some(file) = file {
            return Some(file.as_raw_fd());
        }
        // SAFETY: a name and flags; the result is a new descriptor or -1.
        let fd = unsafe {
            libc::memfd_create(
                c"ze-sim device memory".as_ptr(),
                libc::MFD_CLOEXEC | libc::MFD_ALLOW_SEALING,
            )
        };
        if fd < 0 {
            return None;
        }
        // SAFETY: a descriptor just made, owned by nothing else.
        let owned = unsafe { OwnedFd::from_raw_fd(fd) };
        let mut written = 0;
        // SAFETY: sizes the file, then writes the pages' own `len` bytes into it.
        unsafe {
            if libc::ftruncate(fd, *len as libc::off_t) != 0 {
                return None;
            }
            while written < *len {
                let count = libc::pwrite(
                    fd,
                    (*address + written) as *const c_void,
                    *len - written,
                    written as libc::off_t,
                );
                if count <= 0 {
                    return None;
                }
                written += count as usize;
            }
            // Another process maps it too: it must never shrink under a mapping (or grow).
            if libc::fcntl(
                fd,
                libc::F_ADD_SEALS,
                libc::F_SEAL_SHRINK | libc::F_SEAL_GROW,
            ) != 0
            {
                return None;
            }
        }
        // SAFETY: replaces this backing's own pages with the file holding the same bytes.
        let mapped = unsafe {
            libc::mmap(
                *address as *mut c_void,
                *len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED | libc::MAP_FIXED,
                fd,
                0,
            )
        };
        if mapped == libc::MAP_FAILED {
            // The kernel may have unmapped the range already; whatever is there now is not
            // this backing's to reuse.
            *reusable = false;
            return None;
        }
        *file = Some(owned);
        Some(fd)
    }

    /// Maps the memory file `fd` (of `len` bytes) of another backing at a new address.
    pub(crate) fn open(fd: RawFd, len: usize) -> Option<Self> {
        // SAFETY: maps a memory file this simulator made, of at least `len` bytes.
        let mapped = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED,
                fd,
                0,
            )
        };
        (mapped != libc::MAP_FAILED).then(|| Self::Opened {
            address: mapped as usize,
            len,
        })
    }

    /// The length of the pages (for device memory) or `None` (heap).
    pub(crate) fn pages_len(&self) -> Option<usize> {
        match self {
            Self::Pages { len, .. } | Self::Opened { len, .. } => Some(*len),
            Self::Heap { .. } => None,
        }
    }
}

impl Drop for Backing {
    fn drop(&mut self) {
        match self {
            // SAFETY: allocated in `heap` with this layout, freed once.
            Self::Heap { raw, layout, .. } => unsafe { std::alloc::dealloc(raw.as_ptr(), *layout) },
            Self::Pages {
                address,
                len,
                alignment,
                file,
                reusable: true,
            } => release(*address, *len, *alignment, file.is_some()),
            // Left as it is: after a failed remap the range may hold another mapping now,
            // which unmapping would tear down.
            Self::Pages { .. } => {}
            // SAFETY: a memory file this backing mapped, unmapped once (the file lives on while
            // another backing maps it).
            Self::Opened { address, len } => unsafe {
                libc::munmap(*address as *mut c_void, *len);
            },
        }
    }
}
