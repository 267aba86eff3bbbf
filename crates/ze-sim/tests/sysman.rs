//! The system-management interface (Sysman) as compute-runtime answers it: started by `zesInit`
//! (or by `zeInit` with `ZES_ENABLE_SYSMAN=1`), the devices with their core UUIDs and PCI
//! addresses, one memory module per device whose free bytes follow the allocations, and the
//! processes using a device with the device memory each holds.

use crate::common::{Sim, ok};
use level_zero_sys::*;
use std::ffi::CStr;
use std::ptr::null_mut;

const MIB: u64 = 1 << 20;

fn text(field: &[std::ffi::c_char]) -> String {
    // SAFETY: the simulator NUL-terminates every string it writes.
    unsafe { CStr::from_ptr(field.as_ptr()) }
        .to_string_lossy()
        .into_owned()
}

/// The Sysman functions the tests call, resolved from the in-process platform.
struct Sysman {
    init: zes_pfnInit_t,
    driver_get: zes_pfnDriverGet_t,
    device_get: zes_pfnDeviceGet_t,
    properties: zes_pfnDeviceGetProperties_t,
    by_uuid: zes_pfnDriverGetDeviceByUuidExp_t,
    pci: zes_pfnDevicePciGetProperties_t,
    memory_modules: zes_pfnDeviceEnumMemoryModules_t,
    memory_properties: zes_pfnMemoryGetProperties_t,
    memory_state: zes_pfnMemoryGetState_t,
    processes: zes_pfnDeviceProcessesGetState_t,
    power_domains: zes_pfnDeviceEnumPowerDomains_t,
}

impl Sysman {
    fn of(sim: &Sim) -> Self {
        // SAFETY: each name with its headers' type.
        unsafe {
            Self {
                init: sim.function("zesInit"),
                driver_get: sim.function("zesDriverGet"),
                device_get: sim.function("zesDeviceGet"),
                properties: sim.function("zesDeviceGetProperties"),
                by_uuid: sim.function("zesDriverGetDeviceByUuidExp"),
                pci: sim.function("zesDevicePciGetProperties"),
                memory_modules: sim.function("zesDeviceEnumMemoryModules"),
                memory_properties: sim.function("zesMemoryGetProperties"),
                memory_state: sim.function("zesMemoryGetState"),
                processes: sim.function("zesDeviceProcessesGetState"),
                power_domains: sim.function("zesDeviceEnumPowerDomains"),
            }
        }
    }

    /// The device's one memory module.
    fn memory_module(&self, device: zes_device_handle_t) -> zes_mem_handle_t {
        let mut count = 0;
        let mut module = null_mut();
        // SAFETY: the count/fill pattern with valid pointers.
        unsafe {
            ok(self.memory_modules.unwrap()(device, &mut count, null_mut()));
            assert_eq!(count, 1, "one memory module on a card without sub-devices");
            ok(self.memory_modules.unwrap()(
                device,
                &mut count,
                &mut module,
            ));
        }
        module
    }

    fn memory_state(&self, module: zes_mem_handle_t) -> zes_mem_state_t {
        let mut state = zes_mem_state_t {
            stype: zes_structure_type_t::ZES_STRUCTURE_TYPE_MEM_STATE,
            ..Default::default()
        };
        // SAFETY: a valid handle and output.
        ok(unsafe { self.memory_state.unwrap()(module, &mut state) });
        state
    }

    fn processes(&self, device: zes_device_handle_t) -> Vec<zes_process_state_t> {
        let mut count = 0;
        // SAFETY: the count/fill pattern with valid pointers.
        unsafe {
            ok(self.processes.unwrap()(device, &mut count, null_mut()));
            let mut processes = vec![zes_process_state_t::default(); count as usize];
            ok(self.processes.unwrap()(
                device,
                &mut count,
                processes.as_mut_ptr(),
            ));
            processes
        }
    }
}

#[test]
fn nothing_answers_before_sysman_is_started_and_zes_init_refuses_unknown_flags() {
    let sim = Sim::preset("b70x2");
    let sysman = Sysman::of(&sim);
    let mut count = 0;
    let mut properties = zes_device_properties_t::default();
    // A shell that exports ZES_ENABLE_SYSMAN=1 started Sysman with zeInit already.
    let started_by_core = std::env::var("ZES_ENABLE_SYSMAN").is_ok_and(|value| value == "1");
    // SAFETY (whole block): valid pointers; the handles are the simulator's.
    unsafe {
        assert_eq!(
            sysman.driver_get.unwrap()(&mut count, null_mut()),
            ze_result_t::ZE_RESULT_ERROR_UNINITIALIZED
        );
        assert_eq!(
            sysman.properties.unwrap()(sim.devices[0], &mut properties),
            if started_by_core {
                ze_result_t::ZE_RESULT_SUCCESS
            } else {
                ze_result_t::ZE_RESULT_ERROR_UNINITIALIZED
            },
            "zeInit without ZES_ENABLE_SYSMAN=1 does not start Sysman"
        );
        assert_eq!(
            sysman.init.unwrap()(1 << 3),
            ze_result_t::ZE_RESULT_ERROR_UNINITIALIZED,
            "compute-runtime answers an unknown flag so"
        );
        assert_eq!(
            sysman.driver_get.unwrap()(&mut count, null_mut()),
            ze_result_t::ZE_RESULT_ERROR_UNINITIALIZED,
            "a refused zesInit starts nothing"
        );
        ok(sysman.init.unwrap()(0));
        ok(sysman.init.unwrap()(0));
        ok(sysman.driver_get.unwrap()(&mut count, null_mut()));
        assert_eq!(count, 1);
    }
}

#[test]
fn sysman_devices_are_the_core_devices_with_their_uuids_names_and_addresses() {
    let sim = Sim::preset("b70x2");
    let sysman = Sysman::of(&sim);
    // SAFETY (whole block): valid pointers; the handles are the simulator's.
    unsafe {
        ok(sysman.init.unwrap()(0));
        let mut count = 1;
        let mut driver = null_mut();
        ok(sysman.driver_get.unwrap()(&mut count, &mut driver));
        let mut count = 0;
        ok(sysman.device_get.unwrap()(driver, &mut count, null_mut()));
        assert_eq!(count as usize, sim.devices.len());
        let mut devices = vec![null_mut(); count as usize];
        ok(sysman.device_get.unwrap()(
            driver,
            &mut count,
            devices.as_mut_ptr(),
        ));
        for (index, &device) in devices.iter().enumerate() {
            let mut core = ze_device_properties_t::default();
            ok((sim.api.device_get_properties)(
                sim.devices[index],
                &mut core,
            ));
            let mut extension = zes_device_ext_properties_t {
                stype: zes_structure_type_t::ZES_STRUCTURE_TYPE_DEVICE_EXT_PROPERTIES,
                ..Default::default()
            };
            let mut properties = zes_device_properties_t {
                stype: zes_structure_type_t::ZES_STRUCTURE_TYPE_DEVICE_PROPERTIES,
                pNext: &mut extension as *mut _ as *mut std::ffi::c_void,
                ..Default::default()
            };
            // compute-runtime leaves these alone and never follows the core struct's chain.
            properties.core.maxMemAllocSize = 77;
            properties.core.pNext = 0x10 as *mut std::ffi::c_void;
            ok(sysman.properties.unwrap()(device, &mut properties));
            assert_eq!(properties.core.uuid.id, core.uuid.id);
            assert_eq!(properties.core.maxMemAllocSize, 77);
            assert_eq!(properties.core.name, core.name);
            assert_eq!(properties.core.deviceId, core.deviceId);
            assert_eq!(
                extension.uuid.id, core.uuid.id,
                "the chained struct is filled"
            );
            assert_eq!(extension.type_, zes_device_type_t::ZES_DEVICE_TYPE_GPU);
            assert_eq!(properties.numSubdevices, 0);
            assert_eq!(text(&properties.modelName), text(&core.name));
            assert_eq!(text(&properties.vendorName), "Intel(R) Corporation");
            assert_eq!(text(&properties.serialNumber), "unknown");

            let mut found = null_mut();
            let (mut on_subdevice, mut subdevice) = (1, 7);
            let uuid = zes_uuid_t { id: core.uuid.id };
            ok(sysman.by_uuid.unwrap()(
                driver,
                uuid,
                &mut found,
                &mut on_subdevice,
                &mut subdevice,
            ));
            assert_eq!((found, on_subdevice, subdevice), (device, 0, 0));

            let mut core_pci = ze_pci_ext_properties_t::default();
            ok((sim.api.device_pci_get_properties_ext.unwrap())(
                sim.devices[index],
                &mut core_pci,
            ));
            let mut pci = zes_pci_properties_t::default();
            ok(sysman.pci.unwrap()(device, &mut pci));
            let address = |a: &zes_pci_address_t| (a.domain, a.bus, a.device, a.function);
            let core_address = &core_pci.address;
            assert_eq!(
                address(&pci.address),
                (
                    core_address.domain,
                    core_address.bus,
                    core_address.device,
                    core_address.function
                )
            );
            assert_eq!(
                (
                    pci.maxSpeed.gen_,
                    pci.maxSpeed.width,
                    pci.maxSpeed.maxBandwidth
                ),
                (
                    core_pci.maxSpeed.genVersion,
                    core_pci.maxSpeed.width,
                    core_pci.maxSpeed.maxBandwidth
                )
            );
            // Chained: a link-speed downgrade struct is filled; anything else alone is refused.
            let mut downgrade = zes_pci_link_speed_downgrade_ext_properties_t {
                stype:
                    zes_structure_type_t::ZES_STRUCTURE_TYPE_PCI_LINK_SPEED_DOWNGRADE_EXT_PROPERTIES,
                pciLinkSpeedUpdateCapable: 1,
                maxPciGenSupported: 9,
                ..Default::default()
            };
            let mut chained = zes_pci_properties_t {
                pNext: &mut downgrade as *mut _ as *mut std::ffi::c_void,
                ..Default::default()
            };
            ok(sysman.pci.unwrap()(device, &mut chained));
            assert_eq!(
                (
                    downgrade.pciLinkSpeedUpdateCapable,
                    downgrade.maxPciGenSupported
                ),
                (0, -1)
            );
            let mut other = zes_device_ext_properties_t {
                stype: zes_structure_type_t::ZES_STRUCTURE_TYPE_DEVICE_EXT_PROPERTIES,
                ..Default::default()
            };
            let mut refused = zes_pci_properties_t {
                pNext: &mut other as *mut _ as *mut std::ffi::c_void,
                ..Default::default()
            };
            assert_eq!(
                sysman.pci.unwrap()(device, &mut refused),
                ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT
            );
        }
        let mut found = null_mut();
        let (mut on_subdevice, mut subdevice) = (0, 0);
        assert_eq!(
            sysman.by_uuid.unwrap()(
                driver,
                zes_uuid_t { id: [0xee; 16] },
                &mut found,
                &mut on_subdevice,
                &mut subdevice
            ),
            ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT
        );
        assert!(found.is_null(), "no match leaves the output alone");
        let mut two = 2;
        assert_eq!(
            sysman.driver_get.unwrap()(&mut two, null_mut()),
            ze_result_t::ZE_RESULT_ERROR_INVALID_NULL_POINTER,
            "a count without an array"
        );
        assert_eq!(
            sysman.device_get.unwrap()(driver, &mut two, null_mut()),
            ze_result_t::ZE_RESULT_ERROR_INVALID_NULL_HANDLE,
            "a count without an array"
        );
        let mut none = 5;
        ok(sysman.power_domains.unwrap()(
            devices[0],
            &mut none,
            null_mut(),
        ));
        assert_eq!(none, 0, "no power domain is modelled");
    }
}

/// Free memory follows what is allocated on the device (and only that device); the process
/// list holds this process with the device memory it holds there.
#[test]
fn a_devices_free_memory_and_its_processes_follow_the_allocations() {
    let sim = Sim::preset("b70x2");
    let sysman = Sysman::of(&sim);
    // SAFETY: no flags.
    ok(unsafe { sysman.init.unwrap()(0) });
    let modules = [
        sysman.memory_module(sim.devices[0]),
        sysman.memory_module(sim.devices[1]),
    ];
    let mut properties = zes_mem_properties_t::default();
    // SAFETY: a valid handle and output.
    ok(unsafe { sysman.memory_properties.unwrap()(modules[0], &mut properties) });
    assert_eq!(properties.location, zes_mem_loc_t::ZES_MEM_LOC_DEVICE);
    assert_eq!(properties.type_, zes_mem_type_t::ZES_MEM_TYPE_GDDR6);
    assert_eq!(
        (properties.busWidth, properties.numChannels),
        (-1, -1),
        "unknown"
    );
    let before = modules.map(|module| sysman.memory_state(module));
    assert_eq!(before[0].size, properties.physicalSize);
    assert!(before[0].free <= before[0].size);
    let held_before = sysman.processes(sim.devices[0]);
    let held_before_on_1 = sysman.processes(sim.devices[1]);
    assert_eq!(held_before.len(), 1, "{held_before:?}");
    assert_eq!(held_before[0].processId, std::process::id());

    // Allocated and never touched: the memory is the device's and the process's all the same
    // (compute-runtime's free bytes are the region's unallocated ones, a process's memory the
    // objects it owns).
    let context = sim.context(&[0, 1]);
    let buffer = sim.alloc_device(context, 0, 256 * MIB as usize);
    let after = modules.map(|module| sysman.memory_state(module));
    assert_eq!(
        before[0].free - after[0].free,
        256 * MIB,
        "device 0 lost 256 MiB"
    );
    assert_eq!(after[1].free, before[1].free, "device 1 is untouched");
    let held = sysman.processes(sim.devices[0]);
    assert_eq!(held.len(), 1);
    assert_eq!(held[0].memSize, held_before[0].memSize + 256 * MIB);
    assert_eq!(
        sysman.processes(sim.devices[1])[0].memSize,
        held_before_on_1[0].memSize
    );

    // A count of zero asks only for the count (INVALID_SIZE for a short array needs a second
    // process: the pyzes client test and this crate's machine test ask so).
    let mut one_short = 0;
    let mut entry = zes_process_state_t::default();
    // SAFETY: valid pointers; a zero count asks only for the count.
    unsafe {
        ok(sysman.processes.unwrap()(
            sim.devices[0],
            &mut one_short,
            &mut entry,
        ));
        assert_eq!(one_short, 1);
    }

    sim.free(context, buffer);
    let freed = sysman.memory_state(modules[0]);
    assert_eq!(freed.free, before[0].free, "the free bytes come back");
    sim.destroy_context(context);
}

/// Behind Debian's loader (1.8, older than `zesInit`), Sysman is started by `zeInit` with
/// `ZES_ENABLE_SYSMAN=1` and takes core device handles, through the simulator's DDI tables.
#[test]
fn loader_sysman_with_core_handles() {
    ze_sim::loader_test::run_in_loader_child_with(
        "sysman::loader_sysman_child",
        "b70x2",
        false,
        &[("ZES_ENABLE_SYSMAN", "1")],
    );
}

#[test]
#[ignore = "runs only as a child of loader_sysman_with_core_handles"]
fn loader_sysman_child() {
    let sim = Sim::loader_child();
    // SAFETY: the loader `Sim::loader_child` already loaded; its initialisers ran then.
    let loader = unsafe { libloading::Library::new(level_zero_sys::SYSTEM_LOADER_NAMES[0]) }
        .expect("the system loader");
    // SAFETY (whole block): the loader's functions with their headers' types; valid handles.
    unsafe {
        let properties_of = *loader
            .get::<zes_pfnDeviceGetProperties_t>(b"zesDeviceGetProperties")
            .expect("zesDeviceGetProperties");
        let modules_of = *loader
            .get::<zes_pfnDeviceEnumMemoryModules_t>(b"zesDeviceEnumMemoryModules")
            .expect("zesDeviceEnumMemoryModules");
        let state_of = *loader
            .get::<zes_pfnMemoryGetState_t>(b"zesMemoryGetState")
            .expect("zesMemoryGetState");
        let mut core = ze_device_properties_t::default();
        ok((sim.api.device_get_properties)(sim.devices[1], &mut core));
        let mut properties = zes_device_properties_t {
            stype: zes_structure_type_t::ZES_STRUCTURE_TYPE_DEVICE_PROPERTIES,
            ..Default::default()
        };
        ok(properties_of.unwrap()(sim.devices[1], &mut properties));
        assert_eq!(properties.core.uuid.id, core.uuid.id);
        assert_eq!(text(&properties.modelName), text(&core.name));
        let mut count = 0;
        ok(modules_of.unwrap()(sim.devices[1], &mut count, null_mut()));
        assert_eq!(count, 1);
        let mut module = null_mut();
        ok(modules_of.unwrap()(sim.devices[1], &mut count, &mut module));
        let mut state = zes_mem_state_t::default();
        ok(state_of.unwrap()(module, &mut state));
        assert!(state.size > 0 && state.free <= state.size, "{state:?}");
    }
    // Started so (ZES_ENABLE_SYSMAN=1 is this child's), compute-runtime serves core handles but
    // not the zesInit-only calls, until zesInit takes over; checked on an in-process platform,
    // whose zeInit read the same variable.
    let local = Sim::preset("b70x2");
    let sysman = Sysman::of(&local);
    let mut count = 0;
    let mut properties = zes_device_properties_t::default();
    let (mut found, mut on_subdevice, mut subdevice) = (null_mut(), 0, 0);
    // SAFETY (whole block): valid pointers; the handles are the simulator's.
    unsafe {
        ok(sysman.properties.unwrap()(
            local.devices[0],
            &mut properties,
        ));
        assert_eq!(
            sysman.driver_get.unwrap()(&mut count, null_mut()),
            ze_result_t::ZE_RESULT_ERROR_UNINITIALIZED
        );
        assert_eq!(
            sysman.device_get.unwrap()(local.driver, &mut count, null_mut()),
            ze_result_t::ZE_RESULT_ERROR_UNINITIALIZED
        );
        assert_eq!(
            sysman.by_uuid.unwrap()(
                local.driver,
                zes_uuid_t {
                    id: properties.core.uuid.id
                },
                &mut found,
                &mut on_subdevice,
                &mut subdevice
            ),
            ze_result_t::ZE_RESULT_ERROR_UNSUPPORTED_FEATURE
        );
        ok(sysman.init.unwrap()(0));
        ok(sysman.driver_get.unwrap()(&mut count, null_mut()));
        assert_eq!(count, 1);
        count = 0;
        ok(sysman.device_get.unwrap()(
            local.driver,
            &mut count,
            null_mut(),
        ));
        assert_eq!(count, 2);
    }
}

/// Sysman's queries from several threads while others allocate and free: every answer is a
/// state some moment had (free bytes a multiple of the threads' allocations, never more than
/// the size), and all is back where it started.
#[test]
fn sysman_answers_from_several_threads_while_memory_comes_and_goes() {
    const THREADS: u64 = 4;
    const ROUNDS: usize = 50;
    let sim = Sim::preset("b70x2");
    let sysman = Sysman::of(&sim);
    // SAFETY: no flags.
    ok(unsafe { sysman.init.unwrap()(0) });
    let module = sysman.memory_module(sim.devices[0]);
    let start = sysman.memory_state(module);
    let context = sim.context(&[0, 1]);
    // Handles cross threads as addresses (the spec makes these calls thread-safe).
    let (context_address, module_address) = (context as usize, module as usize);
    std::thread::scope(|scope| {
        for _ in 0..THREADS {
            scope.spawn(|| {
                let context = context_address as ze_context_handle_t;
                let module = module_address as zes_mem_handle_t;
                for _ in 0..ROUNDS {
                    let buffer = sim.alloc_device(context, 0, 16 * MIB as usize);
                    let state = sysman.memory_state(module);
                    let taken = start.free - state.free;
                    assert!(
                        taken.is_multiple_of(16 * MIB)
                            && (16 * MIB..=THREADS * 16 * MIB).contains(&taken),
                        "{taken}"
                    );
                    let held = sysman.processes(sim.devices[0])[0].memSize;
                    assert!(held <= THREADS * 16 * MIB, "{held}");
                    sim.free(context, buffer);
                }
            });
        }
    });
    assert_eq!(sysman.memory_state(module).free, start.free);
    assert_eq!(sysman.processes(sim.devices[0])[0].memSize, 0);
    sim.destroy_context(context);
    sim.assert_clean();
}
