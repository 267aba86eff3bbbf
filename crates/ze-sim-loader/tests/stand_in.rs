//! The stand-in as a program sees it: loaded by path, answering to the loader's soname, with
//! every API function of the headers exported by name and the loader's entry points.

use level_zero_sys::*;
use libloading::Library;
use std::ffi::{CStr, c_void};
use std::path::PathBuf;

/// `libze_sim_loader.so` in the target folder this test binary was built into.
fn stand_in_path() -> PathBuf {
    let executable = std::env::current_exe().expect("test executable");
    let target = executable
        .parent()
        .and_then(|deps| deps.parent())
        .expect("a target folder");
    target.join("libze_sim_loader.so")
}

fn load() -> Library {
    let path = stand_in_path();
    assert!(
        path.is_file(),
        "{} is not built (cargo build --workspace)",
        path.display()
    );
    // SAFETY: the stand-in's initialisers only set up its own state.
    unsafe { Library::new(&path) }.expect("the stand-in loads")
}

fn symbol<T: Copy>(library: &Library, name: &str) -> T {
    // SAFETY: each caller names T as the headers declare the function.
    unsafe {
        *library
            .get::<T>(name.as_bytes())
            .unwrap_or_else(|error| panic!("{name}: {error}"))
    }
}

#[test]
fn a_reopen_by_the_loaders_soname_finds_the_stand_in() {
    let _by_path = load();
    // UMF reopens the loader by its bare name: the already-loaded stand-in answers to it.
    // SAFETY: as in `load`.
    let by_name = unsafe { Library::new("libze_loader.so.1") }.expect("found by soname");
    // SAFETY: only the simulator exports this name.
    let accounting =
        unsafe { by_name.get::<unsafe extern "C" fn() -> u64>(b"zesim_host_pinned_bytes") };
    assert!(
        accounting.is_ok(),
        "the system loader was opened instead of the stand-in"
    );
}

/// Every API function of every DDI table in the generated bindings, named as the headers name
/// it (`ze_pfnDeviceGetProperties_t` -> `zeDeviceGetProperties`).
fn api_function_names() -> Vec<String> {
    let bindings = include_str!("../../level-zero-sys/src/generated.rs");
    let mut names = Vec::new();
    for table in bindings.split("pub struct _").skip(1) {
        let (header, body) = table.split_once('{').unwrap_or_default();
        if !header.trim().ends_with("_dditable_t") {
            continue;
        }
        let body = body.split('}').next().unwrap_or_default();
        for field_type in body.split(',').filter_map(|field| field.split(':').nth(1)) {
            let field_type = field_type.trim();
            if let Some((prefix, rest)) = field_type.split_once("_pfn")
                && let Some(name) = rest.strip_suffix("_t")
            {
                names.push(format!("{}{name}", prefix.replace('_', "")));
            }
        }
    }
    names.sort();
    names.dedup();
    names
}

#[test]
fn every_api_function_of_the_headers_is_exported_by_name() {
    let library = load();
    let names = api_function_names();
    assert!(names.len() > 450, "only {} names found", names.len());
    let missing: Vec<&String> = names
        .iter()
        // SAFETY: only looked up, never called.
        .filter(|name| unsafe { library.get::<*const c_void>(name.as_bytes()) }.is_err())
        .collect();
    assert!(missing.is_empty(), "not exported: {missing:?}");
}

#[test]
fn the_loader_entry_points_answer_as_a_loader_that_has_zeinitdrivers() {
    let library = load();
    let init: unsafe extern "C" fn() -> ze_result_t = symbol(&library, "zeLoaderInit");
    let versions: unsafe extern "C" fn(*mut usize, *mut zel_component_version_t) -> ze_result_t =
        symbol(&library, "zelLoaderGetVersionsInternal");
    let tracing: unsafe extern "C" fn() -> *mut c_void =
        symbol(&library, "zeLoaderGetTracingHandle");
    let translate: unsafe extern "C" fn(
        zel_handle_type_t,
        *mut c_void,
        *mut *mut c_void,
    ) -> ze_result_t = symbol(&library, "zelLoaderTranslateHandleInternal");
    let mut count = 0usize;
    let mut component = zel_component_version_t::default();
    let handle = 0x1234usize as *mut c_void;
    let mut translated = std::ptr::null_mut();
    // SAFETY: the signatures above are the loader's; valid pointers throughout.
    unsafe {
        assert_eq!(init(), ze_result_t::ZE_RESULT_SUCCESS);
        assert_eq!(
            versions(&mut count, std::ptr::null_mut()),
            ze_result_t::ZE_RESULT_SUCCESS
        );
        assert_eq!(count, 1);
        assert_eq!(
            versions(&mut count, &mut component),
            ze_result_t::ZE_RESULT_SUCCESS
        );
        assert!(tracing().is_null());
        assert_eq!(
            translate(
                zel_handle_type_t::ZEL_HANDLE_DRIVER,
                handle,
                &mut translated
            ),
            ze_result_t::ZE_RESULT_SUCCESS
        );
        assert_eq!(
            translate(
                zel_handle_type_t::ZEL_HANDLE_DRIVER,
                handle,
                std::ptr::null_mut()
            ),
            ze_result_t::ZE_RESULT_ERROR_INVALID_NULL_POINTER
        );
        assert_eq!(
            versions(std::ptr::null_mut(), std::ptr::null_mut()),
            ze_result_t::ZE_RESULT_ERROR_INVALID_NULL_POINTER
        );
    }
    // SAFETY: the stand-in NUL-terminates the name.
    let name = unsafe { CStr::from_ptr(component.component_name.as_ptr()) };
    assert_eq!(name.to_str(), Ok("loader"));
    // Intel's front end skips zeInitDrivers below loader 1.18.
    let version = component.component_lib_version;
    assert!(version.major == 1 && version.minor >= 18, "{version:?}");
    assert_eq!(
        component.spec_version,
        ze_api_version_t::ZE_API_VERSION_CURRENT
    );
    assert_eq!(
        translated, handle,
        "the simulator's handles translate to themselves"
    );
}

#[test]
fn exports_drive_the_simulator_and_refuse_what_it_lacks() {
    let library = load();
    let init: unsafe extern "C" fn(ze_init_flags_t) -> ze_result_t = symbol(&library, "zeInit");
    let driver_get: unsafe extern "C" fn(*mut u32, *mut ze_driver_handle_t) -> ze_result_t =
        symbol(&library, "zeDriverGet");
    let device_get: unsafe extern "C" fn(
        ze_driver_handle_t,
        *mut u32,
        *mut ze_device_handle_t,
    ) -> ze_result_t = symbol(&library, "zeDeviceGet");
    let image_create: unsafe extern "C" fn(
        ze_context_handle_t,
        ze_device_handle_t,
        *const ze_image_desc_t,
        *mut ze_image_handle_t,
    ) -> ze_result_t = symbol(&library, "zeImageCreate");
    let mut drivers = 1;
    let mut driver = std::ptr::null_mut();
    let mut devices = 0;
    // SAFETY: the signatures are the headers'; valid pointers throughout.
    unsafe {
        assert_eq!(init(0), ze_result_t::ZE_RESULT_SUCCESS);
        assert_eq!(
            driver_get(&mut drivers, &mut driver),
            ze_result_t::ZE_RESULT_SUCCESS
        );
        assert_eq!(
            device_get(driver, &mut devices, std::ptr::null_mut()),
            ze_result_t::ZE_RESULT_SUCCESS
        );
        assert_eq!(
            image_create(
                std::ptr::null_mut(),
                std::ptr::null_mut(),
                std::ptr::null(),
                std::ptr::null_mut()
            ),
            ze_result_t::ZE_RESULT_ERROR_UNSUPPORTED_FEATURE
        );
    }
    assert_eq!(drivers, 1);
    // The process-wide platform is ZE_SIM_CONFIG's (b70x2 when unset).
    let configured = std::env::var("ZE_SIM_CONFIG").unwrap_or_else(|_| "b70x2".into());
    let expected = ze_sim::SimConfig::from_name_or_path(&configured).unwrap();
    assert_eq!(devices as usize, expected.devices.len());
}

/// The tracer's functions, its callback registrations among them (oneCCL looks up
/// `zelTracerMemFreeRegisterCallback` and stops without it), are exported and answer as the
/// loader without its tracing layer does: `ZE_RESULT_ERROR_UNINITIALIZED`.
#[test]
fn the_tracer_functions_answer_as_a_loader_without_its_tracing_layer() {
    let library = load();
    let header =
        include_str!("../../level-zero-sys/include/level_zero/layers/zel_tracing_register_cb.h");
    let registrations: Vec<&str> = header
        .lines()
        .filter_map(|line| line.strip_suffix('('))
        .filter(|name| name.starts_with("zelTracer") && name.ends_with("RegisterCallback"))
        .collect();
    assert!(registrations.len() > 200, "only {}", registrations.len());
    let missing: Vec<&&str> = registrations
        .iter()
        // SAFETY: only looked up, never called.
        .filter(|name| unsafe { library.get::<*const c_void>(name.as_bytes()) }.is_err())
        .collect();
    assert!(missing.is_empty(), "not exported: {missing:?}");
    type Register =
        unsafe extern "C" fn(zel_tracer_handle_t, zel_tracer_reg_t, *const c_void) -> ze_result_t;
    let register: Register = symbol(&library, "zelTracerMemFreeRegisterCallback");
    let create: unsafe extern "C" fn(
        *const zel_tracer_desc_t,
        *mut zel_tracer_handle_t,
    ) -> ze_result_t = symbol(&library, "zelTracerCreate");
    let user_data = 0u8;
    let desc = zel_tracer_desc_t {
        stype: zel_structure_type_t::ZEL_STRUCTURE_TYPE_TRACER_DESC,
        pNext: std::ptr::null(),
        pUserData: (&raw const user_data).cast_mut().cast(),
    };
    let mut tracer = std::ptr::null_mut();
    // SAFETY: the signatures are the headers'; valid pointers; a null tracer is refused.
    unsafe {
        assert_eq!(
            create(&desc, &mut tracer),
            ze_result_t::ZE_RESULT_ERROR_UNINITIALIZED
        );
        assert_eq!(
            register(
                tracer,
                zel_tracer_reg_t::ZEL_REGISTER_PROLOGUE,
                std::ptr::null()
            ),
            ze_result_t::ZE_RESULT_ERROR_UNINITIALIZED
        );
    }
}
