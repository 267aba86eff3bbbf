//! What the simulated driver reports equals its configuration, field by field.

use crate::common::{Sim, ok};
use level_zero_sys::*;
use std::ffi::CStr;
use std::ptr::null_mut;
use ze_sim::{DeviceConfig, LinkConfig, LinkKind, MirrorMode, SimConfig, TimingModel};

fn custom() -> SimConfig {
    let device = |name: &str, id: u32, address: &str, gib: u64, copies: (u32, u32)| DeviceConfig {
        name: name.into(),
        vendor_id: 0x8086,
        device_id: id,
        pci_address: address.into(),
        memory_bytes: gib << 30,
        max_mem_alloc_bytes: Some(4 << 30),
        compute_queues: 2,
        copy_queues: copies.0,
        linked_copy_queues: copies.1,
        core_clock_mhz: 2100 + id,
        ip_version: 0x0300_0000 + id,
    };
    SimConfig {
        name: "custom".into(),
        driver_version: 12345,
        host_memory_bytes: 16 << 30,
        mirror: MirrorMode::Registered,
        strict_residency: true,
        implicit_peer_import: false,
        implicit_import_pins_host: false,
        ipc_import_pins_host: false,
        defer_peer_backing: false,
        async_execution: false,
        zex_extension: true,
        command_list_clone: false,
        peer_eviction_refused: false,
        peer_access_reported: true,
        execute_kernels: true,
        devices: vec![
            device("first", 0x1111, "0001:0a:00.0", 8, (1, 3)),
            device("second", 0x2222, "0001:0b:01.1", 12, (0, 0)),
            // Linked copy engines without the main one: the linked group takes ordinal 1.
            device("third", 0x3333, "0002:c0:1f.7", 16, (0, 2)),
        ],
        default_link: LinkKind::Access,
        links: vec![
            LinkConfig {
                devices: [0, 2],
                kind: LinkKind::Refused,
            },
            LinkConfig {
                devices: [1, 2],
                kind: LinkKind::Atomics,
            },
            LinkConfig {
                devices: [1, 0],
                kind: LinkKind::HostBacked,
            },
        ],
        timing: TimingModel {
            p2p_gbps: 40.0,
            ..TimingModel::default()
        },
        faults: Default::default(),
    }
}

fn name(chars: &[std::ffi::c_char]) -> String {
    // SAFETY: the simulator NUL-terminates names within the array.
    unsafe { CStr::from_ptr(chars.as_ptr()) }
        .to_string_lossy()
        .into_owned()
}

#[test]
fn every_configured_field_reads_back() {
    let config = custom();
    let sim = Sim::in_process(config.clone());
    assert_eq!(sim.devices.len(), 3);

    let mut driver = ze_driver_properties_t {
        stype: ze_structure_type_t::ZE_STRUCTURE_TYPE_DRIVER_PROPERTIES,
        ..Default::default()
    };
    let mut version = ze_api_version_t(0);
    // SAFETY: valid handles and output pointers throughout this test.
    unsafe {
        ok((sim.api.driver_get_properties)(sim.driver, &mut driver));
        ok((sim.api.driver_get_api_version)(sim.driver, &mut version));
    }
    assert_eq!(driver.driverVersion, 12345);
    assert_eq!(version, ze_api_version_t::ZE_API_VERSION_1_15);

    for (index, (&handle, expected)) in sim.devices.iter().zip(&config.devices).enumerate() {
        let mut ip_version = ze_device_ip_version_ext_t {
            stype: ze_structure_type_t::ZE_STRUCTURE_TYPE_DEVICE_IP_VERSION_EXT,
            ..Default::default()
        };
        let mut properties = ze_device_properties_t {
            stype: ze_structure_type_t::ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES,
            pNext: &mut ip_version as *mut ze_device_ip_version_ext_t as *mut std::ffi::c_void,
            ..Default::default()
        };
        let mut pci = ze_pci_ext_properties_t {
            stype: ze_structure_type_t::ZE_STRUCTURE_TYPE_PCI_EXT_PROPERTIES,
            ..Default::default()
        };
        let mut memory_count = 0;
        let mut memory = ze_device_memory_properties_t {
            stype: ze_structure_type_t::ZE_STRUCTURE_TYPE_DEVICE_MEMORY_PROPERTIES,
            ..Default::default()
        };
        let mut group_count = 0;
        // SAFETY: as above.
        unsafe {
            ok((sim.api.device_get_properties)(handle, &mut properties));
            ok((sim.api.device_pci_get_properties_ext.unwrap())(
                handle, &mut pci,
            ));
            ok((sim.api.device_get_memory_properties)(
                handle,
                &mut memory_count,
                null_mut(),
            ));
            ok((sim.api.device_get_memory_properties)(
                handle,
                &mut memory_count,
                &mut memory,
            ));
            ok((sim.api.device_get_command_queue_group_properties)(
                handle,
                &mut group_count,
                null_mut(),
            ));
        }
        assert_eq!(name(&properties.name), expected.name);
        assert_eq!(properties.type_, ze_device_type_t::ZE_DEVICE_TYPE_GPU);
        assert_eq!(properties.vendorId, expected.vendor_id);
        assert_eq!(properties.deviceId, expected.device_id);
        assert_eq!(properties.coreClockRate, expected.core_clock_mhz);
        assert_eq!(
            ip_version.ipVersion, expected.ip_version,
            "through the pNext chain"
        );
        assert_eq!(properties.maxMemAllocSize, 4 << 30);
        assert_eq!(
            properties.timerResolution, 1,
            "nanoseconds per tick in the 1.0 struct"
        );
        let (domain, bus, slot, function) =
            ze_sim::parse_pci_address(&expected.pci_address).unwrap();
        assert_eq!(
            (
                pci.address.domain,
                pci.address.bus,
                pci.address.device,
                pci.address.function
            ),
            (domain, bus, slot, function)
        );
        assert_eq!(
            properties.uuid.id[6], bus as u8,
            "the UUID carries the PCI address"
        );
        assert_eq!(memory_count, 1);
        assert_eq!(memory.totalSize, expected.memory_bytes);

        // The compute group, then each copy group that has engines, main before linked.
        let expected_copy_groups: Vec<u32> = [expected.copy_queues, expected.linked_copy_queues]
            .into_iter()
            .filter(|&queues| queues > 0)
            .collect();
        assert_eq!(group_count as usize, 1 + expected_copy_groups.len());
        let mut groups = vec![
            ze_command_queue_group_properties_t {
                stype: ze_structure_type_t::ZE_STRUCTURE_TYPE_COMMAND_QUEUE_GROUP_PROPERTIES,
                ..Default::default()
            };
            group_count as usize
        ];
        // SAFETY: as above.
        ok(unsafe {
            (sim.api.device_get_command_queue_group_properties)(
                handle,
                &mut group_count,
                groups.as_mut_ptr(),
            )
        });
        let compute =
            ze_command_queue_group_property_flag_t::ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COMPUTE.0;
        let copy =
            ze_command_queue_group_property_flag_t::ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COPY.0;
        let cooperative =
            ze_command_queue_group_property_flag_t::ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COOPERATIVE_KERNELS.0;
        assert_eq!(
            (groups[0].flags, groups[0].numQueues),
            (compute | copy | cooperative, 2)
        );
        for (group, &queues) in groups[1..].iter().zip(&expected_copy_groups) {
            assert_eq!((group.flags, group.numQueues), (copy, queues));
            assert_eq!(group.maxMemoryFillPatternSize, 1);
        }

        for (peer_index, &peer) in sim.devices.iter().enumerate() {
            let mut bandwidth = ze_device_p2p_bandwidth_exp_properties_t {
                stype: ze_structure_type_t::ZE_STRUCTURE_TYPE_DEVICE_P2P_BANDWIDTH_EXP_PROPERTIES,
                ..Default::default()
            };
            let mut p2p = ze_device_p2p_properties_t {
                stype: ze_structure_type_t::ZE_STRUCTURE_TYPE_DEVICE_P2P_PROPERTIES,
                pNext: &mut bandwidth as *mut _ as *mut std::ffi::c_void,
                ..Default::default()
            };
            let mut access = 0;
            // SAFETY: as above.
            unsafe {
                ok((sim.api.device_get_p2p_properties)(handle, peer, &mut p2p));
                ok((sim.api.device_can_access_peer)(handle, peer, &mut access));
            }
            let link = if index == peer_index {
                LinkKind::Atomics
            } else {
                config.link(index as u32, peer_index as u32)
            };
            let access_flag = ze_device_p2p_property_flag_t::ZE_DEVICE_P2P_PROPERTY_FLAG_ACCESS.0;
            let atomics_flag = ze_device_p2p_property_flag_t::ZE_DEVICE_P2P_PROPERTY_FLAG_ATOMICS.0;
            let (flags, can, rate) = match link {
                LinkKind::Refused => (0, 0, 0),
                LinkKind::Atomics if index == peer_index => (access_flag | atomics_flag, 1, 588),
                LinkKind::Atomics => (access_flag | atomics_flag, 1, 40),
                LinkKind::Access | LinkKind::Corrupt => (access_flag, 1, 40),
                // Claimed, through host memory: the staged rate.
                LinkKind::HostBacked => (access_flag, 1, config.timing.staged_gbps as u32),
            };
            assert_eq!((p2p.flags, access), (flags, can), "{index} -> {peer_index}");
            assert_eq!(bandwidth.logicalBandwidth, rate, "{index} -> {peer_index}");
            assert_eq!(
                bandwidth.bandwidthUnit,
                ze_bandwidth_unit_t::ZE_BANDWIDTH_UNIT_BYTES_PER_NANOSEC
            );
        }
    }

    // The third device's two linked copy engines are ordinal 1 (it has no main copy engine):
    // both indices take a list, and no ordinal 2 exists.
    let context = sim.context(&[2]);
    let normal = ze_command_queue_priority_t::ZE_COMMAND_QUEUE_PRIORITY_NORMAL;
    let linked = sim.immediate_list_on(context, 2, 1, 1, normal);
    sim.destroy_list(linked);
    let desc = ze_command_queue_desc_t {
        stype: ze_structure_type_t::ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC,
        ordinal: 2,
        ..Default::default()
    };
    let mut list = null_mut();
    // SAFETY: valid descriptor and output pointer.
    let refused = unsafe {
        (sim.api.command_list_create_immediate)(context, sim.devices[2], &desc, &mut list)
    };
    assert_eq!(refused, ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT);
    assert!(list.is_null());
    sim.destroy_context(context);
    sim.assert_clean();
}

#[test]
fn extensions_are_listed_with_the_two_call_pattern() {
    let sim = Sim::preset("b70x2");
    let mut count = 0;
    // SAFETY: valid handles and output pointers.
    ok(unsafe { (sim.api.driver_get_extension_properties)(sim.driver, &mut count, null_mut()) });
    assert_eq!(count, 8);
    let mut all = vec![ze_driver_extension_properties_t::default(); count as usize];
    // SAFETY: an array of `count` elements.
    ok(unsafe {
        (sim.api.driver_get_extension_properties)(sim.driver, &mut count, all.as_mut_ptr())
    });
    let names: Vec<String> = all
        .iter()
        .map(|property| name(&property.name).to_string())
        .collect();
    for expected in [
        "ZE_experimental_global_offset",
        "ZE_extension_float_atomics",
        "ZE_experimental_event_pool_counter_based",
        "ZE_extension_event_query_kernel_timestamps",
        "ZE_experimental_fabric",
    ] {
        assert!(names.iter().any(|name| name == expected), "{names:?}");
    }
    let mut properties = vec![ze_driver_extension_properties_t::default(); 2];
    let mut asked = 2;
    // SAFETY: an array of `asked` elements.
    ok(unsafe {
        (sim.api.driver_get_extension_properties)(sim.driver, &mut asked, properties.as_mut_ptr())
    });
    assert_eq!(asked, 2, "no more than asked for");
    assert_eq!(name(&properties[0].name), "ZE_extension_pci_properties");
}

#[test]
fn presets_round_trip_through_toml_and_bad_files_are_typed_errors() {
    for preset in ze_sim::PRESET_NAMES {
        let config = SimConfig::preset(preset).unwrap();
        assert_eq!(
            SimConfig::from_toml(&config.to_toml()).unwrap(),
            config,
            "{preset}"
        );
    }
    let custom = custom();
    assert_eq!(SimConfig::from_toml(&custom.to_toml()).unwrap(), custom);
    let error = SimConfig::from_toml("devices = []").unwrap_err();
    assert!(error.to_string().contains("0 devices"), "{error}");
    let error = SimConfig::from_toml("mirror = \"sometimes\"").unwrap_err();
    assert!(error.to_string().contains("sometimes"), "{error}");
    // The main copy group is one engine (BCS0); more is a configuration mistake, named.
    let mut two_main_copy_engines = custom.clone();
    two_main_copy_engines.devices[0].copy_queues = 2;
    let error = SimConfig::from_toml(&two_main_copy_engines.to_toml()).unwrap_err();
    assert!(
        error.to_string().contains("device 0: copy_queues is 2")
            && error.to_string().contains("linked_copy_queues"),
        "{error}"
    );
    let mut nine_linked_copy_engines = custom.clone();
    nine_linked_copy_engines.devices[1].linked_copy_queues = 9;
    let error = SimConfig::from_toml(&nine_linked_copy_engines.to_toml()).unwrap_err();
    assert!(
        error
            .to_string()
            .contains("device 1: linked_copy_queues is 9"),
        "{error}"
    );
    let error = SimConfig::from_name_or_path("/nonexistent/sim.toml").unwrap_err();
    assert!(
        error.to_string().contains("b70x2"),
        "lists the presets: {error}"
    );
    let mut bad_link = SimConfig::default();
    bad_link.links.push(LinkConfig {
        devices: [0, 5],
        kind: LinkKind::Refused,
    });
    assert!(ze_sim::Platform::new(bad_link).is_err());
}

#[test]
fn a_toml_file_configures_the_platform() {
    let path = std::env::temp_dir().join(format!("ze-sim-{}.toml", std::process::id()));
    std::fs::write(
        &path,
        "name = \"file\"\nmirror = \"none\"\nhost_memory_bytes = 1024\n",
    )
    .unwrap();
    let config = SimConfig::from_name_or_path(path.to_str().unwrap()).unwrap();
    std::fs::remove_file(&path).unwrap();
    assert_eq!(
        (
            config.name.as_str(),
            config.mirror,
            config.host_memory_bytes
        ),
        ("file", MirrorMode::None, 1024)
    );
}

/// The fabric topology compute-runtime reports for PCIe-only devices: one vertex per device,
/// with the device's UUID and PCI address, leading back to the device; no sub-vertices; no
/// edge between any two; no handle is an edge.
#[test]
fn each_device_is_a_fabric_vertex_and_no_edge_joins_them() {
    let sim = Sim::preset("b70x2");
    // SAFETY (whole test): the names with their headers' types; valid handles and outputs.
    unsafe {
        let device_vertex = sim
            .function::<ze_pfnDeviceGetFabricVertexExp_t>("zeDeviceGetFabricVertexExp")
            .unwrap();
        let vertices_of = sim
            .function::<ze_pfnFabricVertexGetExp_t>("zeFabricVertexGetExp")
            .unwrap();
        let sub_vertices = sim
            .function::<ze_pfnFabricVertexGetSubVerticesExp_t>("zeFabricVertexGetSubVerticesExp")
            .unwrap();
        let properties_of = sim
            .function::<ze_pfnFabricVertexGetPropertiesExp_t>("zeFabricVertexGetPropertiesExp")
            .unwrap();
        let device_of = sim
            .function::<ze_pfnFabricVertexGetDeviceExp_t>("zeFabricVertexGetDeviceExp")
            .unwrap();
        let edges_between = sim
            .function::<ze_pfnFabricEdgeGetExp_t>("zeFabricEdgeGetExp")
            .unwrap();
        let edge_properties = sim
            .function::<ze_pfnFabricEdgeGetPropertiesExp_t>("zeFabricEdgeGetPropertiesExp")
            .unwrap();
        let mut count = 0;
        ok(vertices_of(sim.driver, &mut count, null_mut()));
        assert_eq!(count, 2);
        let mut vertices = vec![null_mut(); 2];
        ok(vertices_of(sim.driver, &mut count, vertices.as_mut_ptr()));
        for (index, &device) in sim.devices.iter().enumerate() {
            let mut vertex = null_mut();
            ok(device_vertex(device, &mut vertex));
            assert_eq!(
                vertex, vertices[index],
                "the driver's list, in the devices' order"
            );
            let mut back = null_mut();
            ok(device_of(vertex, &mut back));
            assert_eq!(back, device);
            let mut properties = ze_fabric_vertex_exp_properties_t::default();
            ok(properties_of(vertex, &mut properties));
            let mut device_properties = ze_device_properties_t::default();
            ok((sim.api.device_get_properties)(
                device,
                &mut device_properties,
            ));
            assert_eq!(properties.uuid.id, device_properties.uuid.id);
            assert_eq!(
                properties.type_,
                ze_fabric_vertex_exp_type_t::ZE_FABRIC_VERTEX_EXP_TYPE_DEVICE
            );
            assert_eq!(properties.remote, 0);
            let mut pci = ze_pci_ext_properties_t::default();
            ok((sim.api.device_pci_get_properties_ext.unwrap())(
                device, &mut pci,
            ));
            assert_eq!(
                (properties.address.bus, properties.address.device),
                (pci.address.bus, pci.address.device)
            );
            let mut none = 5;
            ok(sub_vertices(vertex, &mut none, null_mut()));
            assert_eq!(none, 0);
        }
        let mut edges = 7;
        ok(edges_between(
            vertices[0],
            vertices[1],
            &mut edges,
            null_mut(),
        ));
        assert_eq!(edges, 0, "PCIe only: no Xe Link");
        assert_eq!(
            device_vertex(vertices[0].cast(), &mut null_mut()),
            ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT,
            "a vertex is no device"
        );
        let mut edge_props = ze_fabric_edge_exp_properties_t::default();
        assert_eq!(
            edge_properties(vertices[0].cast(), &mut edge_props),
            ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT
        );
    }
}
