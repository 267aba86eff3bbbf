//! A thin driver for the simulator's Level Zero entry points, shared by the tests, so that the
//! same test bodies run in-process and behind the system loader.

#![allow(dead_code)]

pub mod modules;

use level_zero_sys::*;
use std::collections::HashMap;
use std::ffi::c_void;
use std::ptr::null_mut;
use std::sync::Arc;
use ze_sim::{Platform, SimConfig};

pub const GIB: usize = 1 << 30;
pub const MIB: usize = 1 << 20;

/// Where the accounting comes from: the in-process platform, or `libze_sim.so`'s exports.
pub enum Accounting {
    InProcess(Platform),
    Loader(ze_sim::loader_test::DriverExports, libloading::Library),
}

pub struct Sim {
    pub api: ZeApi,
    pub accounting: Accounting,
    pub driver: ze_driver_handle_t,
    pub devices: Vec<ze_device_handle_t>,
}

/// Asserts a Level Zero call succeeded, naming the result otherwise.
#[track_caller]
pub fn ok(result: ze_result_t) {
    assert_eq!(
        result,
        ze_result_t::ZE_RESULT_SUCCESS,
        "{}",
        ze_result_name(result).unwrap_or("unknown result")
    );
}

impl Sim {
    pub fn in_process(config: SimConfig) -> Self {
        let platform = Platform::new(config).expect("platform");
        let resolver = platform.clone();
        // SAFETY: the simulator's entry points have the signatures the headers declare.
        let api = unsafe {
            ZeApi::from_resolver("ze-sim", Some(Arc::new(platform.clone())), move |name| {
                resolver.resolve(name)
            })
        }
        .expect("api");
        Self::start(api, Accounting::InProcess(platform))
    }

    /// The in-process simulator's function `name`, as `F` (its `ze_pfn*_t`), for calls
    /// `ZeApi` does not carry.
    ///
    /// # Safety
    /// `F` must be the headers' function-pointer type for `name`.
    #[allow(dead_code)]
    pub unsafe fn function<F: Copy>(&self, name: &str) -> F {
        let Accounting::InProcess(platform) = &self.accounting else {
            panic!("in-process only");
        };
        let address = platform.resolve(name).unwrap_or_else(|| panic!("{name}"));
        assert_eq!(size_of::<F>(), size_of::<*const c_void>());
        // SAFETY: the caller names the type of the simulator's function `name`.
        unsafe { std::mem::transmute_copy::<*const c_void, F>(&address) }
    }

    pub fn preset(name: &str) -> Self {
        Self::in_process(SimConfig::preset(name).expect("preset"))
    }

    /// A preset in checking mode (`SimConfig::checking`).
    pub fn checking(name: &str) -> Self {
        Self::in_process(SimConfig::preset(name).expect("preset").checking())
    }

    /// Inside a child started by [`run_in_loader_child`]: the system loader driving
    /// `libze_sim.so`.
    pub fn loader_child() -> Self {
        assert!(
            ze_sim::loader_test::is_child(),
            "this test runs only in a child process started by a loader_* test"
        );
        let api = ZeApi::load_system().expect("system loader");
        let path = std::env::var("ZE_ENABLE_ALT_DRIVERS").expect("ZE_ENABLE_ALT_DRIVERS");
        // SAFETY: the same library the loader already loaded; its initialisers are trivial.
        let library = unsafe { libloading::Library::new(path) }.expect("libze_sim.so");
        let exports = ze_sim::loader_test::DriverExports::open().expect("libze_sim.so");
        Self::start(api, Accounting::Loader(exports, library))
    }

    fn start(api: ZeApi, accounting: Accounting) -> Self {
        let mut count = 0;
        let mut driver = null_mut();
        // SAFETY: valid pointers for the two-call pattern.
        unsafe {
            ok((api.init)(ze_init_flag_t::ZE_INIT_FLAG_GPU_ONLY.0));
            ok((api.driver_get)(&mut count, null_mut()));
            assert_eq!(count, 1, "one simulated driver");
            ok((api.driver_get)(&mut count, &mut driver));
        }
        let mut sim = Self {
            api,
            accounting,
            driver,
            devices: Vec::new(),
        };
        sim.devices = sim.enumerate_devices();
        sim
    }

    fn enumerate_devices(&self) -> Vec<ze_device_handle_t> {
        let mut count = 0;
        // SAFETY: valid pointers for the two-call pattern.
        unsafe {
            ok((self.api.device_get)(self.driver, &mut count, null_mut()));
            let mut devices = vec![null_mut(); count as usize];
            ok((self.api.device_get)(
                self.driver,
                &mut count,
                devices.as_mut_ptr(),
            ));
            devices
        }
    }

    pub fn fdinfo(&self, device: u32) -> HashMap<String, String> {
        let text = match &self.accounting {
            Accounting::InProcess(platform) => platform.fdinfo(device).expect("device"),
            // Read here rather than through `DriverExports::fdinfo`, to check the export's
            // length and NUL-termination contract.
            Accounting::Loader(_, library) => {
                // SAFETY: the export's documented signature.
                let fdinfo = unsafe {
                    library
                        .get::<unsafe extern "C" fn(u32, *mut i8, usize) -> usize>(b"zesim_fdinfo")
                }
                .expect("zesim_fdinfo");
                // SAFETY: a null buffer asks for the length only; then a buffer of that size + 1.
                let length = unsafe { fdinfo(device, null_mut(), 0) };
                let mut buffer = vec![0u8; length + 1];
                // SAFETY: as above.
                let written =
                    unsafe { fdinfo(device, buffer.as_mut_ptr() as *mut i8, buffer.len()) };
                assert_eq!(written, length);
                assert_eq!(buffer[length], 0, "NUL-terminated");
                String::from_utf8(buffer[..length].to_vec()).expect("utf-8")
            }
        };
        parse_fdinfo(&text)
    }

    /// `(vram, gtt)` of a device in bytes, read from its fdinfo text.
    pub fn vram_gtt(&self, device: u32) -> (u64, u64) {
        let fields = self.fdinfo(device);
        let kib = |key: &str| -> u64 {
            let value = &fields[key];
            value
                .strip_suffix(" KiB")
                .expect("KiB")
                .parse::<u64>()
                .expect("number")
                * 1024
        };
        assert_eq!(kib("drm-total-vram0"), kib("drm-resident-vram0"));
        (kib("drm-resident-vram0"), kib("drm-resident-gtt"))
    }

    pub fn host_pinned(&self) -> u64 {
        match &self.accounting {
            Accounting::InProcess(platform) => platform.host_pinned_bytes(),
            Accounting::Loader(exports, _) => exports.host_pinned_bytes(),
        }
    }

    pub fn counter(&self, name: &str) -> u64 {
        match &self.accounting {
            Accounting::InProcess(platform) => platform.counter(name).unwrap_or(u64::MAX),
            Accounting::Loader(exports, _) => exports.counter(name),
        }
    }

    /// Every live-object counter is back to zero and nothing is pinned.
    #[track_caller]
    pub fn assert_clean(&self) {
        let live = ze_sim::Counters::NAMES
            .iter()
            .filter(|name| name.starts_with("live_"));
        for &name in live {
            assert_eq!(self.counter(name), 0, "{name} after the test");
        }
        assert_eq!(self.host_pinned(), 0, "host pinned bytes after the test");
        for device in 0..self.devices.len() as u32 {
            assert_eq!(
                self.vram_gtt(device),
                (0, 0),
                "device {device} usage after the test"
            );
        }
    }

    pub fn context(&self, devices: &[u32]) -> ze_context_handle_t {
        let desc = ze_context_desc_t {
            stype: ze_structure_type_t::ZE_STRUCTURE_TYPE_CONTEXT_DESC,
            ..Default::default()
        };
        let mut handles: Vec<_> = devices.iter().map(|&d| self.devices[d as usize]).collect();
        let mut context = null_mut();
        let create = self.api.context_create_ex.expect("zeContextCreateEx");
        // SAFETY: valid descriptor, device array and output pointer.
        ok(unsafe {
            create(
                self.driver,
                &desc,
                handles.len() as u32,
                handles.as_mut_ptr(),
                &mut context,
            )
        });
        context
    }

    pub fn destroy_context(&self, context: ze_context_handle_t) {
        // SAFETY: a context this test created.
        ok(unsafe { (self.api.context_destroy)(context) });
    }

    pub fn try_alloc_device(
        &self,
        context: ze_context_handle_t,
        device: u32,
        size: usize,
    ) -> Result<*mut c_void, ze_result_t> {
        self.try_alloc_device_aligned(context, device, size, 64)
    }

    #[allow(dead_code)]
    pub fn try_alloc_device_aligned(
        &self,
        context: ze_context_handle_t,
        device: u32,
        size: usize,
        alignment: usize,
    ) -> Result<*mut c_void, ze_result_t> {
        let desc = ze_device_mem_alloc_desc_t {
            stype: ze_structure_type_t::ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC,
            ..Default::default()
        };
        let mut pointer = null_mut();
        // SAFETY: valid descriptor and output pointer.
        let result = unsafe {
            (self.api.mem_alloc_device)(
                context,
                &desc,
                size,
                alignment,
                self.devices[device as usize],
                &mut pointer,
            )
        };
        if result == ze_result_t::ZE_RESULT_SUCCESS {
            Ok(pointer)
        } else {
            Err(result)
        }
    }

    pub fn alloc_device(
        &self,
        context: ze_context_handle_t,
        device: u32,
        size: usize,
    ) -> *mut c_void {
        self.try_alloc_device(context, device, size)
            .expect("zeMemAllocDevice")
    }

    /// Shared USM of `size` bytes in `context`, tied to `device`.
    pub fn alloc_shared(
        &self,
        context: ze_context_handle_t,
        device: u32,
        size: usize,
    ) -> *mut c_void {
        let device_desc = ze_device_mem_alloc_desc_t {
            stype: ze_structure_type_t::ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC,
            ..Default::default()
        };
        let host_desc = ze_host_mem_alloc_desc_t {
            stype: ze_structure_type_t::ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC,
            ..Default::default()
        };
        let mut pointer = null_mut();
        // SAFETY: valid descriptors and output pointer.
        ok(unsafe {
            (self.api.mem_alloc_shared)(
                context,
                &device_desc,
                &host_desc,
                size,
                64,
                self.devices[device as usize],
                &mut pointer,
            )
        });
        pointer
    }

    pub fn alloc_host(&self, context: ze_context_handle_t, size: usize) -> *mut c_void {
        let desc = ze_host_mem_alloc_desc_t {
            stype: ze_structure_type_t::ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC,
            ..Default::default()
        };
        let mut pointer = null_mut();
        // SAFETY: valid descriptor and output pointer.
        ok(unsafe { (self.api.mem_alloc_host)(context, &desc, size, 64, &mut pointer) });
        pointer
    }

    pub fn free(&self, context: ze_context_handle_t, pointer: *mut c_void) {
        // SAFETY: an allocation this test made.
        ok(unsafe { (self.api.mem_free)(context, pointer) });
    }

    pub fn make_resident(
        &self,
        context: ze_context_handle_t,
        device: u32,
        pointer: *mut c_void,
        size: usize,
    ) -> ze_result_t {
        // SAFETY: plain call; the simulator checks the range.
        unsafe {
            (self.api.context_make_memory_resident)(
                context,
                self.devices[device as usize],
                pointer,
                size,
            )
        }
    }

    pub fn evict(
        &self,
        context: ze_context_handle_t,
        device: u32,
        pointer: *mut c_void,
        size: usize,
    ) -> ze_result_t {
        // SAFETY: plain call; the simulator checks the range.
        unsafe {
            (self.api.context_evict_memory)(context, self.devices[device as usize], pointer, size)
        }
    }

    /// An immediate list on `device`'s engine `(ordinal, 0)`, asynchronous.
    pub fn immediate_list(
        &self,
        context: ze_context_handle_t,
        device: u32,
        ordinal: u32,
    ) -> ze_command_list_handle_t {
        self.immediate_list_on(
            context,
            device,
            ordinal,
            0,
            ze_command_queue_priority_t::ZE_COMMAND_QUEUE_PRIORITY_NORMAL,
        )
    }

    /// An asynchronous immediate list on `device`'s engine `(ordinal, index)`, at `priority`.
    pub fn immediate_list_on(
        &self,
        context: ze_context_handle_t,
        device: u32,
        ordinal: u32,
        index: u32,
        priority: ze_command_queue_priority_t,
    ) -> ze_command_list_handle_t {
        let desc = ze_command_queue_desc_t {
            stype: ze_structure_type_t::ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC,
            ordinal,
            index,
            mode: ze_command_queue_mode_t::ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS,
            priority,
            ..Default::default()
        };
        let mut list = null_mut();
        // SAFETY: valid descriptor and output pointer.
        ok(unsafe {
            (self.api.command_list_create_immediate)(
                context,
                self.devices[device as usize],
                &desc,
                &mut list,
            )
        });
        list
    }

    /// Records `record` into a regular list on `device`'s compute engine, closes it, destroys
    /// what `after_close` names to destroy, and executes the list on a synchronous queue; the
    /// execution's result. The list and queue are destroyed after.
    pub fn execute_recorded(
        &self,
        context: ze_context_handle_t,
        device: u32,
        record: impl FnOnce(ze_command_list_handle_t),
        after_close: impl FnOnce(),
    ) -> ze_result_t {
        let list_desc = ze_command_list_desc_t {
            stype: ze_structure_type_t::ZE_STRUCTURE_TYPE_COMMAND_LIST_DESC,
            ..Default::default()
        };
        let queue_desc = ze_command_queue_desc_t {
            stype: ze_structure_type_t::ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC,
            mode: ze_command_queue_mode_t::ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS,
            ..Default::default()
        };
        let (mut list, mut queue) = (null_mut(), null_mut());
        let device = self.devices[device as usize];
        // SAFETY: the caller's context and device, valid descriptors and output pointers; the
        // list and queue are this function's.
        unsafe {
            ok((self.api.command_list_create)(
                context, device, &list_desc, &mut list,
            ));
            ok((self.api.command_queue_create)(
                context,
                device,
                &queue_desc,
                &mut queue,
            ));
            record(list);
            ok((self.api.command_list_close)(list));
            after_close();
            let result =
                (self.api.command_queue_execute_command_lists)(queue, 1, &mut list, null_mut());
            ok((self.api.command_list_destroy)(list));
            ok((self.api.command_queue_destroy)(queue));
            result
        }
    }

    pub fn destroy_list(&self, list: ze_command_list_handle_t) {
        // SAFETY: a list this test created.
        ok(unsafe { (self.api.command_list_destroy)(list) });
    }

    pub fn copy(
        &self,
        list: ze_command_list_handle_t,
        dst: *mut c_void,
        src: *const c_void,
        size: usize,
        signal: ze_event_handle_t,
        waits: &mut [ze_event_handle_t],
    ) -> ze_result_t {
        // SAFETY: the simulator checks the ranges; `waits` is a valid array.
        unsafe {
            (self.api.command_list_append_memory_copy)(
                list,
                dst,
                src,
                size,
                signal,
                waits.len() as u32,
                if waits.is_empty() {
                    null_mut()
                } else {
                    waits.as_mut_ptr()
                },
            )
        }
    }

    pub fn event_pool(&self, context: ze_context_handle_t, count: u32) -> ze_event_pool_handle_t {
        let desc = ze_event_pool_desc_t {
            stype: ze_structure_type_t::ZE_STRUCTURE_TYPE_EVENT_POOL_DESC,
            flags: ze_event_pool_flag_t::ZE_EVENT_POOL_FLAG_HOST_VISIBLE.0
                | ze_event_pool_flag_t::ZE_EVENT_POOL_FLAG_KERNEL_TIMESTAMP.0,
            count,
            ..Default::default()
        };
        let mut pool = null_mut();
        // SAFETY: valid descriptor and output pointer.
        ok(unsafe { (self.api.event_pool_create)(context, &desc, 0, null_mut(), &mut pool) });
        pool
    }

    pub fn event(&self, pool: ze_event_pool_handle_t, index: u32) -> ze_event_handle_t {
        let desc = ze_event_desc_t {
            stype: ze_structure_type_t::ZE_STRUCTURE_TYPE_EVENT_DESC,
            index,
            signal: ze_event_scope_flag_t::ZE_EVENT_SCOPE_FLAG_HOST.0,
            wait: ze_event_scope_flag_t::ZE_EVENT_SCOPE_FLAG_HOST.0,
            ..Default::default()
        };
        let mut event = null_mut();
        // SAFETY: valid descriptor and output pointer.
        ok(unsafe { (self.api.event_create)(pool, &desc, &mut event) });
        event
    }

    pub fn wait(&self, event: ze_event_handle_t) {
        // SAFETY: an event this test created.
        ok(unsafe { (self.api.event_host_synchronize)(event, u64::MAX) });
    }

    pub fn destroy_events(&self, pool: ze_event_pool_handle_t, events: &[ze_event_handle_t]) {
        for &event in events {
            // SAFETY: events this test created.
            ok(unsafe { (self.api.event_destroy)(event) });
        }
        // SAFETY: a pool this test created.
        ok(unsafe { (self.api.event_pool_destroy)(pool) });
    }
}

/// `key: value` lines of DRM fdinfo text.
pub fn parse_fdinfo(text: &str) -> HashMap<String, String> {
    text.lines()
        .filter_map(|line| line.split_once(':'))
        .map(|(key, value)| (key.trim().to_string(), value.trim().to_string()))
        .collect()
}

/// Runs the `#[ignore]`d test `name` in a child process behind the real loader.
pub fn run_in_loader_child(name: &str, preset: &str, validation: bool) {
    ze_sim::loader_test::run_in_loader_child(name, preset, validation);
}

/// The name the test harness gives the `child` test beside the caller, from the caller's
/// `module_path!()` (whose first segment is the test binary's crate, which names leave out).
pub fn child_test(module_path: &str) -> String {
    let path = module_path
        .split_once("::")
        .map_or(module_path, |(_, rest)| rest);
    format!("{path}::child")
}

/// [`run_in_loader_child`] with the child's platform in checking mode.
pub fn run_in_loader_child_checking(name: &str, preset: &str, validation: bool) {
    ze_sim::loader_test::run_in_loader_child_with(
        name,
        preset,
        validation,
        &[(ze_sim::CHECKING_ENV, "1")],
    );
}

// SAFETY: driver, device and context handles may be used from any thread (the spec makes those
// calls thread-safe); tests give each thread its own command lists and events.
unsafe impl Sync for Sim {}
// SAFETY: as above.
unsafe impl Send for Sim {}

/// Runs a body in-process on a preset, and as a child behind the real loader, both plainly and
/// with `ZE_ENABLE_VALIDATION_LAYER=1 ZE_ENABLE_PARAMETER_VALIDATION=1`.
#[macro_export]
macro_rules! on_both_paths {
    // In checking mode (`SimConfig::checking`): a peer's memory used without residency is
    // refused, where the driver's default imports it.
    ($body:ident, $preset:literal, checking) => {
        mod $body {
            use super::*;

            #[test]
            fn in_process() {
                super::$body(&Sim::checking($preset));
            }

            #[test]
            #[ignore = "runs in a child process started by the loader tests"]
            fn child() {
                super::$body(&Sim::loader_child());
            }

            #[test]
            fn loader() {
                $crate::common::run_in_loader_child_checking(
                    &$crate::common::child_test(module_path!()),
                    $preset,
                    false,
                );
            }

            #[test]
            fn loader_validated() {
                $crate::common::run_in_loader_child_checking(
                    &$crate::common::child_test(module_path!()),
                    $preset,
                    true,
                );
            }
        }
    };
    ($body:ident, $preset:literal) => {
        mod $body {
            use super::*;

            #[test]
            fn in_process() {
                super::$body(&Sim::preset($preset));
            }

            #[test]
            #[ignore = "runs in a child process started by the loader tests"]
            fn child() {
                super::$body(&Sim::loader_child());
            }

            #[test]
            fn loader() {
                $crate::common::run_in_loader_child(
                    &$crate::common::child_test(module_path!()),
                    $preset,
                    false,
                );
            }

            #[test]
            fn loader_validated() {
                $crate::common::run_in_loader_child(
                    &$crate::common::child_test(module_path!()),
                    $preset,
                    true,
                );
            }
        }
    };
}
