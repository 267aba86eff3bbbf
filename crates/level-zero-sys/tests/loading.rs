//! Building a `ZeApi`: errors instead of panics when a library or a symbol is missing.

use level_zero_sys::{LoadError, ZeApi};
use std::ffi::c_void;

#[test]
fn a_missing_library_is_a_typed_error_naming_what_was_tried() {
    let error = ZeApi::load_from_path("/nonexistent/libze_loader.so.1").unwrap_err();
    match &error {
        LoadError::LibraryNotFound { tried } => {
            assert_eq!(tried.len(), 1);
            assert!(
                tried[0].starts_with("/nonexistent/libze_loader.so.1: "),
                "{tried:?}"
            );
        }
        other => panic!("expected LibraryNotFound, got {other:?}"),
    }
    assert!(error.to_string().contains("/nonexistent/libze_loader.so.1"));
}

#[test]
fn a_library_without_level_zero_lists_every_missing_core_symbol() {
    // libc is present on every Linux machine and exports no Level Zero function.
    let error = ZeApi::load_from_path("libc.so.6").unwrap_err();
    match error {
        LoadError::MissingSymbols { origin, missing } => {
            assert_eq!(origin, "libc.so.6");
            assert_eq!(missing, ZeApi::CORE_SYMBOLS);
        }
        other => panic!("expected MissingSymbols, got {other:?}"),
    }
}

unsafe extern "C" fn stand_in() {}

#[test]
fn optional_symbols_may_be_absent_and_core_ones_may_not() {
    let all_core = |name: &str| {
        ZeApi::CORE_SYMBOLS
            .contains(&name)
            .then_some(stand_in as *const c_void)
    };
    // SAFETY: nothing is called; the table is only inspected.
    let api = unsafe { ZeApi::from_resolver("stand-in", None, all_core) }.unwrap();
    assert!(api.mem_free_ext.is_none());
    assert!(api.context_create_ex.is_none());
    assert!(api.init_drivers.is_none());
    assert_eq!(api.origin(), "stand-in");

    let without_free = |name: &str| (name != "zeMemFree").then(|| all_core(name)).flatten();
    // SAFETY: as above.
    let error = unsafe { ZeApi::from_resolver("stand-in", None, without_free) }.unwrap_err();
    assert!(
        matches!(error, LoadError::MissingSymbols { ref missing, .. } if missing == &["zeMemFree"])
    );
}

#[test]
fn the_loader_path_override_is_honoured() {
    // A child process keeps the environment change away from the other tests.
    if std::env::var_os("LOADING_TEST_CHILD").is_some() {
        let error = ZeApi::load_system().unwrap_err();
        assert!(
            error.to_string().contains("/nonexistent/override.so"),
            "{error}"
        );
        return;
    }
    // This test's name as the harness gives it: its module path without the binary's crate.
    let path = module_path!().split_once("::").map_or("", |(_, path)| path);
    let name = format!("{path}::the_loader_path_override_is_honoured");
    let name = name.trim_start_matches("::");
    let output = std::process::Command::new(std::env::current_exe().unwrap())
        .args([name, "--exact", "--nocapture", "--test-threads=1"])
        .env("LOADING_TEST_CHILD", "1")
        .env(level_zero_sys::LOADER_PATH_ENV, "/nonexistent/override.so")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success() && stdout.contains("1 passed"),
        "the child ran {name}: {stdout}"
    );
}

/// Each entry point's name agrees with the function-pointer type the table declares for it
/// (`ze_pfnMemAllocDevice_t` for `zeMemAllocDevice`): a name typed wrong would name every
/// failure of that call wrongly.
#[test]
fn each_entry_points_name_agrees_with_its_function_pointer_type() {
    assert!(ZeApi::SYMBOL_TYPES.len() >= ZeApi::CORE_SYMBOLS.len());
    for (symbol, pfn) in ZeApi::SYMBOL_TYPES {
        let pfn = pfn.rsplit("::").next().unwrap_or(pfn).trim();
        let (prefix, rest) = pfn
            .split_once("_pfn")
            .unwrap_or_else(|| panic!("{pfn} is no function-pointer type"));
        let expected = format!("{prefix}{}", rest.trim_end_matches("_t"));
        assert_eq!(*symbol, expected, "{pfn}");
    }
    assert_eq!(
        ZeApi::SYMBOLS.context_make_memory_resident,
        "zeContextMakeMemoryResident"
    );
}
