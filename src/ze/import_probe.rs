//! What the driver's host-pointer import (`zexDriverImportExternalPointer`) does below a page
//! and between imports, probed on host memory of the probe's own: `lazy-usm doctor` reports it,
//! since these rules are nowhere documented. compute-runtime's answers, read in its source
//! (`HostPointerManager::createHostPointerMultiAllocation`, `DrmMemoryManager::
//! allocateGraphicsMemoryForNonSvmHostPtr`): any alignment (it maps the whole pages around a
//! range), a range inside a live import succeeds without an import of its own, and a release
//! through any address inside an import releases it.

use crate::error::ZeResult;
use crate::ze::driver::Driver;
use crate::ze::host::PageAlignedBytes;
use level_zero_sys::extensions::{
    ZEX_DRIVER_GET_HOST_POINTER_BASE_ADDRESS, ZEX_DRIVER_IMPORT_EXTERNAL_POINTER,
    ZEX_DRIVER_RELEASE_IMPORTED_POINTER, zex_pfnDriverGetHostPointerBaseAddress_t,
    zex_pfnDriverImportExternalPointer_t, zex_pfnDriverReleaseImportedPointer_t,
};
use level_zero_sys::{ze_driver_handle_t, ze_result_t};
use std::ffi::c_void;

/// How the driver answered importing a range inside a live import.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NestedImport {
    /// Refused, with this result.
    Refused(ZeResult),
    /// Imported as a range of its own: releasing it leaves the outer import.
    OwnImport,
    /// Answered success with no import of its own (its base is the outer range's);
    /// `release_releases_outer` says whether releasing it released the outer import.
    NoImportOfItsOwn {
        /// Releasing the inner pointer released the outer import.
        release_releases_outer: bool,
    },
    /// The driver has no `zexDriverGetHostPointerBaseAddress`, so which it was is unknown.
    Unknown,
}

/// What [`probe_import_rules`] found. A check that needs an import the driver refused
/// first is `None`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImportRules {
    /// Importing 1,000 bytes from 64 bytes into a page: `Ok`, or the driver's refusal.
    pub sub_page_range: std::result::Result<(), ZeResult>,
    /// Importing a second range on the page a first one (256 bytes, 512 before the page's
    /// end) ends in, neither overlapping the other; `None` when the first was refused.
    pub shared_page: Option<std::result::Result<(), ZeResult>>,
    /// Importing a page inside a live four-page import; `None` when the four pages were
    /// refused.
    pub nested: Option<NestedImport>,
    /// Whether releasing through an address 100 bytes into a two-page import released it;
    /// `None` when the two pages were refused.
    pub interior_release: Option<bool>,
}

/// The three `zex` calls, as the driver returned them.
struct Calls {
    driver: ze_driver_handle_t,
    import: zex_pfnDriverImportExternalPointer_t,
    release: zex_pfnDriverReleaseImportedPointer_t,
    base_of: Option<zex_pfnDriverGetHostPointerBaseAddress_t>,
}

impl Calls {
    fn import(&self, start: *mut u8, len: usize) -> std::result::Result<(), ZeResult> {
        // SAFETY: every range the probe imports lies inside its own buffer, which outlives
        // every import (`probe_import_rules` releases them all before the buffer goes).
        let result = unsafe { (self.import)(self.driver, start.cast(), len) };
        ok(result)
    }

    fn release(&self, pointer: *mut u8) -> bool {
        // SAFETY: a release names an address; the driver answers for one it does not know.
        unsafe { (self.release)(self.driver, pointer.cast()) == ze_result_t::ZE_RESULT_SUCCESS }
    }

    /// The base of the import containing `pointer`, if the driver says.
    fn base_of(&self, pointer: *mut u8) -> Option<usize> {
        let base_of = self.base_of?;
        let mut base: *mut c_void = std::ptr::null_mut();
        // SAFETY: an address and an output slot of this frame.
        let result = unsafe { base_of(self.driver, pointer.cast(), &mut base) };
        (result == ze_result_t::ZE_RESULT_SUCCESS).then_some(base as usize)
    }

    /// Releases whatever import still contains `pointer`, a few times over (imports may
    /// nest); a driver that answers success for a release of nothing stops it after four.
    fn release_all(&self, pointer: *mut u8) {
        for _ in 0..4 {
            if !self.release(pointer) {
                break;
            }
        }
    }
}

fn ok(result: ze_result_t) -> std::result::Result<(), ZeResult> {
    if result == ze_result_t::ZE_RESULT_SUCCESS {
        Ok(())
    } else {
        Err(ZeResult(result))
    }
}

/// Probes the import rules of `driver` on four pages of its own, leaving nothing imported;
/// `None` when the driver has no import extension. What it cannot tell (the driver has no
/// `zexDriverGetHostPointerBaseAddress`) it says so.
///
/// ```
/// # use lazy_usm::*;
/// # let runtime = Runtime::simulated("b70x2")?;
/// let rules = probe_import_rules(&runtime.drivers()?[0]).expect("the simulator has the extension");
/// assert_eq!(rules.sub_page_range, Ok(()), "any alignment, as compute-runtime");
/// assert_eq!(rules.nested, Some(NestedImport::NoImportOfItsOwn { release_releases_outer: true }));
/// assert_eq!(rules.interior_release, Some(true));
/// # Ok::<(), Error>(())
/// ```
pub fn probe_import_rules(driver: &Driver) -> Option<ImportRules> {
    let functions = driver
        .extension_function(ZEX_DRIVER_IMPORT_EXTERNAL_POINTER)
        .zip(driver.extension_function(ZEX_DRIVER_RELEASE_IMPORTED_POINTER));
    let (import, release) = functions?;
    // SAFETY: the driver returned these addresses for these names, whose signatures Intel's
    // zex_driver.h declares.
    let calls = unsafe {
        Calls {
            driver: driver.handle().0,
            import: std::mem::transmute::<*const c_void, zex_pfnDriverImportExternalPointer_t>(
                import,
            ),
            release: std::mem::transmute::<*const c_void, zex_pfnDriverReleaseImportedPointer_t>(
                release,
            ),
            base_of: driver
                .extension_function(ZEX_DRIVER_GET_HOST_POINTER_BASE_ADDRESS)
                .map(|base_of| {
                    std::mem::transmute::<*const c_void, zex_pfnDriverGetHostPointerBaseAddress_t>(
                        base_of,
                    )
                }),
        }
    };
    const PAGE: usize = 4096;
    let mut pages = PageAlignedBytes::new(4 * PAGE);
    let start = pages.as_mut_slice().as_mut_ptr();
    let at = |offset: usize| start.wrapping_add(offset);

    let sub_page_range = calls.import(at(64), 1000);
    if sub_page_range.is_ok() {
        calls.release_all(at(64));
    }

    let shared_page = calls.import(at(PAGE - 512), 256).ok().map(|()| {
        let second = calls.import(at(PAGE - 128), 64);
        calls.release_all(at(PAGE - 128));
        calls.release_all(at(PAGE - 512));
        second
    });

    let nested = calls.import(start, 4 * PAGE).ok().map(|()| {
        let nested = match calls.import(at(PAGE), PAGE) {
            Err(refused) => NestedImport::Refused(refused),
            Ok(()) => match calls.base_of(at(PAGE)) {
                None => NestedImport::Unknown,
                Some(base) if base == at(PAGE) as usize => NestedImport::OwnImport,
                Some(_) => {
                    calls.release(at(PAGE));
                    NestedImport::NoImportOfItsOwn {
                        release_releases_outer: calls.base_of(start).is_none(),
                    }
                }
            },
        };
        // Whatever is left, inner first (an import of its own, or one the driver cannot
        // describe), then the outer one: nothing stays imported when the buffer goes.
        calls.release_all(at(PAGE));
        calls.release_all(start);
        nested
    });

    let interior_release = calls.import(start, 2 * PAGE).ok().map(|()| {
        let released = calls.release(at(100));
        calls.release_all(start);
        released
    });
    drop(pages);
    Some(ImportRules {
        sub_page_range,
        shared_page,
        nested,
        interior_release,
    })
}
