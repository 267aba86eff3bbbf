//! Registered host memory on the simulator: round trip, release on drop, errors, the hidden
//! extension (logged once, copies still correct), and which copies run direct.

use crate::common::Harness;
use lazy_usm::*;
use std::sync::Mutex;

static WARNINGS: Mutex<Vec<String>> = Mutex::new(Vec::new());

struct Capture;

impl log::Log for Capture {
    fn enabled(&self, _: &log::Metadata<'_>) -> bool {
        true
    }
    fn log(&self, record: &log::Record<'_>) {
        if record.level() <= log::Level::Warn {
            WARNINGS.lock().unwrap().push(record.args().to_string());
        }
    }
    fn flush(&self) {}
}

static LOGGER: Capture = Capture;

fn capture_logs() {
    let _ = log::set_logger(&LOGGER);
    log::set_max_level(log::LevelFilter::Warn);
}

#[test]
fn registration_round_trip_and_release_on_drop() {
    let harness = Harness::simulated("b70x2");
    let driver = &harness.runtime.drivers().unwrap()[0];
    let mut pages = PageAlignedBytes::new(64 * 1024);
    {
        let host = HostMemory::register(driver, pages.as_mut_slice()).unwrap();
        assert!(host.is_registered());
        assert_eq!(harness.counter("live_imports"), 1);
    }
    assert_eq!(
        harness.counter("live_imports"),
        0,
        "released exactly once, on drop"
    );
    // Registering the same range again works once the first registration is gone.
    let again = HostMemory::register(driver, pages.as_mut_slice()).unwrap();
    assert!(again.is_registered());
    drop(again);
    harness.assert_clean();
}

#[test]
fn empty_and_unaligned_ranges_are_typed_errors() {
    let harness = Harness::simulated("b70x2");
    let driver = &harness.runtime.drivers().unwrap()[0];
    let mut pages = PageAlignedBytes::new(4 * 4096);
    let (first, rest) = pages.as_mut_slice().split_at_mut(2 * 4096);
    let first_start = first.as_ptr() as usize;
    let registered = HostMemory::register(driver, first).unwrap();
    assert!(matches!(
        HostMemory::register(driver, &mut []),
        Err(Error::InvalidArgument(message)) if message.contains("empty")
    ));
    let (odd, _) = rest.split_at_mut(4096 + 100);
    assert!(matches!(
        HostMemory::register(driver, odd),
        Err(Error::Misaligned {
            what: "host range length",
            value: 4196,
            required: 4096
        })
    ));
    let mut other_pages = PageAlignedBytes::new(4096);
    let unaligned = &mut other_pages.as_mut_slice()[8..];
    let address = unaligned.as_ptr() as usize;
    assert!(matches!(
        HostMemory::register(driver, unaligned),
        Err(Error::Misaligned { what: "host address", value, required: 4096 }) if value == address
    ));
    assert_eq!(
        harness.counter("live_imports"),
        1,
        "nothing reached the driver"
    );
    assert_eq!(registered.as_slice().as_ptr() as usize, first_start);
    drop(registered);
    harness.assert_clean();
}

#[test]
fn overlapping_registrations_are_refused() {
    let harness = Harness::simulated("b70x2");
    let driver = &harness.runtime.drivers().unwrap()[0];
    let mut pages = PageAlignedBytes::new(3 * 4096);
    let start = pages.as_mut_slice().as_mut_ptr();
    let whole = HostMemory::register(driver, pages.as_mut_slice()).unwrap();
    // A second, overlapping view of the same pages, as a caller with raw pointers could make.
    // SAFETY: the view is only registered and dropped; no byte is read or written through it.
    let overlapping = unsafe { std::slice::from_raw_parts_mut(start.add(4096), 4096) };
    match HostMemory::register(driver, overlapping) {
        Err(Error::InvalidArgument(message)) => assert!(message.contains("overlaps"), "{message}"),
        other => panic!("expected an overlap error, got {other:?}"),
    }
    drop(whole);
    harness.assert_clean();
}

/// A range inside one another part of the program imported: compute-runtime answers the
/// import with success and makes none, so the registration must not release on drop (it would
/// release the other part's import).
#[test]
fn a_range_inside_a_foreign_import_is_left_to_its_owner() {
    use level_zero_sys::extensions::{
        ZEX_DRIVER_IMPORT_EXTERNAL_POINTER, ZEX_DRIVER_RELEASE_IMPORTED_POINTER,
        zex_pfnDriverImportExternalPointer_t, zex_pfnDriverReleaseImportedPointer_t,
    };
    let harness = Harness::simulated("b70x2");
    let driver = &harness.runtime.drivers().unwrap()[0];
    let import = driver
        .extension_function(ZEX_DRIVER_IMPORT_EXTERNAL_POINTER)
        .unwrap();
    let release = driver
        .extension_function(ZEX_DRIVER_RELEASE_IMPORTED_POINTER)
        .unwrap();
    // SAFETY: the driver's addresses for these names, with the signatures zex_driver.h declares.
    let (import, release) = unsafe {
        (
            std::mem::transmute::<*const std::ffi::c_void, zex_pfnDriverImportExternalPointer_t>(
                import,
            ),
            std::mem::transmute::<*const std::ffi::c_void, zex_pfnDriverReleaseImportedPointer_t>(
                release,
            ),
        )
    };
    let mut pages = PageAlignedBytes::new(64 * 1024);
    let outer = pages.as_mut_slice().as_mut_ptr();
    // SAFETY: `pages` outlives the import, released below.
    let result = unsafe { import(driver.handle().0, outer.cast(), 64 * 1024) };
    assert_eq!(result, level_zero_sys::ze_result_t::ZE_RESULT_SUCCESS);
    {
        let (head, tail) = pages.as_mut_slice().split_at_mut(8192);
        let inner = HostMemory::register(driver, &mut tail[..4096]).unwrap();
        match inner.registration() {
            Registration::Unregistered(why) => assert!(why.contains("another part"), "{why}"),
            Registration::Registered => panic!("the foreign import taken for this one's own"),
        }
        // One starting where the foreign import starts: not imported either.
        let same_start = HostMemory::register(driver, &mut head[..4096]).unwrap();
        assert!(!same_start.is_registered());
        // Neither asked the driver: its import is left exactly as it was.
        assert_eq!(harness.counter("nested_imports"), 0);
    }
    assert_eq!(
        harness.counter("live_imports"),
        1,
        "the foreign import outlives the registration inside it"
    );
    // SAFETY: the import made above, released once.
    let result = unsafe { release(driver.handle().0, outer.cast()) };
    assert_eq!(result, level_zero_sys::ze_result_t::ZE_RESULT_SUCCESS);
    harness.assert_clean();
}

/// The import-rule probe reads the simulator's (compute-runtime's) rules and leaves nothing
/// imported; without the extension it says so.
#[test]
fn the_import_rule_probe_reads_the_drivers_rules_and_leaves_nothing_imported() {
    let harness = Harness::simulated("b70x2");
    let driver = &harness.runtime.drivers().unwrap()[0];
    let rules = probe_import_rules(driver).expect("the extension");
    assert_eq!(rules.sub_page_range, Ok(()));
    assert_eq!(rules.shared_page, Some(Ok(())));
    assert_eq!(
        rules.nested,
        Some(NestedImport::NoImportOfItsOwn {
            release_releases_outer: true
        })
    );
    assert_eq!(rules.interior_release, Some(true));
    assert_eq!(harness.counter("nested_imports"), 1);
    assert_eq!(harness.counter("live_imports"), 0, "nothing left imported");
    harness.assert_clean();

    let mut config = ze_sim::SimConfig::preset("b70x2").unwrap();
    config.zex_extension = false;
    let hidden = Harness::with_config(config);
    assert_eq!(
        probe_import_rules(&hidden.runtime.drivers().unwrap()[0]),
        None
    );
}

#[test]
fn a_hidden_extension_leaves_memory_unregistered_logs_once_and_copies_still_work() {
    capture_logs();
    let mut config = ze_sim::SimConfig::preset("b70x2").unwrap();
    config.zex_extension = false;
    let harness = Harness::with_config(config);
    let devices = harness.runtime.devices().unwrap();
    let driver = devices[0].driver();
    let context = Context::new(&devices).unwrap();
    let mut pages = PageAlignedBytes::new(8192);
    let mut second_pages = PageAlignedBytes::new(4096);
    let mut host = HostMemory::register(driver, pages.as_mut_slice()).unwrap();
    let second = HostMemory::register(driver, second_pages.as_mut_slice()).unwrap();
    for memory in [&host, &second] {
        match memory.registration() {
            Registration::Unregistered(reason) => {
                assert!(reason.contains("zexDriverImportExternalPointer"))
            }
            Registration::Registered => panic!("the extension is hidden"),
        }
    }
    let logged = WARNINGS
        .lock()
        .unwrap()
        .iter()
        .filter(|message| message.contains("no zexDriverImportExternalPointer"))
        .count();
    assert_eq!(logged, 1, "logged once, not per registration");
    host.as_mut_slice()
        .iter_mut()
        .enumerate()
        .for_each(|(i, byte)| *byte = i as u8);
    let list = context
        .immediate_list(&devices[0].preferred_copy_engine().unwrap())
        .unwrap();
    let mut device = context.alloc_device(&devices[0], 8192, 0).unwrap();
    assert_eq!(
        host_path(&context, host.as_slice()).unwrap(),
        HostPath::Staged
    );
    list.write(&mut device, 0, host.as_slice()).unwrap();
    let mut back = vec![0; 8192];
    list.read(&device, 0, &mut back).unwrap();
    assert!(back == host.as_slice(), "copies are still correct");
    assert_eq!(harness.counter("host_staged_copies"), 2);
    drop((list, device, context, host, second));
    harness.assert_clean();
}

#[test]
fn copies_from_registered_and_driver_host_memory_run_direct() {
    let harness = Harness::simulated("b70x2");
    let devices = harness.runtime.devices().unwrap();
    let context = Context::new(&devices).unwrap();
    let list = context
        .immediate_list(&devices[1].preferred_copy_engine().unwrap())
        .unwrap();
    let mut device = context.alloc_device(&devices[1], 16 * 1024, 0).unwrap();
    let mut pages = PageAlignedBytes::new(16 * 1024);
    pages.as_mut_slice().fill(3);
    let host = HostMemory::register(devices[1].driver(), pages.as_mut_slice()).unwrap();
    assert_eq!(
        host_path(&context, host.as_slice()).unwrap(),
        HostPath::Direct
    );
    assert_eq!(
        host_path(&context, &host.as_slice()[4096..8192]).unwrap(),
        HostPath::Direct
    );
    list.write(&mut device, 0, host.as_slice()).unwrap();
    let mut pinned = PinnedHostBuffer::new(&context, 16 * 1024).unwrap();
    assert_eq!(
        host_path(&context, pinned.as_slice()).unwrap(),
        HostPath::Direct
    );
    list.read(&device, 0, pinned.as_mut_slice()).unwrap();
    assert_eq!(pinned.as_slice(), host.as_slice());
    let pageable = vec![0u8; 16 * 1024];
    assert_eq!(host_path(&context, &pageable).unwrap(), HostPath::Staged);
    list.write(&mut device, 0, &pageable).unwrap();
    assert_eq!(
        harness.counter("host_direct_copies"),
        2,
        "registered write, pinned read"
    );
    assert_eq!(
        harness.counter("host_staged_copies"),
        1,
        "the pageable write"
    );
    drop((list, device, host, pinned, context));
    harness.assert_clean();
}

/// Registrations are `Send` and `Sync`: threads register their own ranges of one buffer at once,
/// move them to another thread to drop, while raw registrations of ranges already registered
/// are refused; the driver holds every import exactly while its value lives.
#[test]
fn threads_register_and_release_ranges_at_once() {
    let harness = Harness::simulated("b70x2");
    let driver = &harness.runtime.drivers().unwrap()[0];
    const THREADS: usize = 8;
    const CHUNK: usize = 4 * 4096;
    let mut pages = PageAlignedBytes::new(THREADS * CHUNK);
    let start = pages.as_mut_slice().as_mut_ptr() as usize;
    let registered: Vec<HostMemory<'_>> = std::thread::scope(|scope| {
        let workers: Vec<_> = pages
            .as_mut_slice()
            .chunks_mut(CHUNK)
            .map(|chunk| scope.spawn(move || HostMemory::register(driver, chunk).unwrap()))
            .collect();
        workers
            .into_iter()
            .map(|worker| worker.join().unwrap())
            .collect()
    });
    assert!(registered.iter().all(HostMemory::is_registered));
    assert_eq!(harness.counter("live_imports"), THREADS as u64);
    std::thread::scope(|scope| {
        for thread in 0..THREADS {
            scope.spawn(move || {
                // SAFETY: inside `pages`, which outlives this scope; refused before any use.
                let again = unsafe {
                    HostMemory::register_raw(
                        driver,
                        (start + thread * CHUNK + 4096) as *mut u8,
                        4096,
                    )
                };
                assert!(again.is_err(), "range {thread} is registered already");
            });
        }
    });
    // Dropped on other threads than the ones that made them.
    std::thread::scope(|scope| {
        for host in registered {
            scope.spawn(move || drop(host));
        }
    });
    assert_eq!(harness.counter("live_imports"), 0);
    harness.assert_clean();
}
