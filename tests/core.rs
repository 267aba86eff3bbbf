//! The safe core on the simulator and behind the real loader: enumeration, properties, buffers,
//! copies of random sizes and offsets, bad input, lifetimes and threads.

use crate::common::{Harness, Random};
use lazy_usm::*;

fn devices(harness: &Harness) -> Vec<Device> {
    harness.runtime.devices().expect("devices")
}

/// Copies of random sizes (1 B to 64 MiB) and offsets keep every byte: host to device, device to
/// device on one device and across devices, device to host, through host and shared memory.
fn copies_preserve_bytes(harness: &Harness) {
    let devices = devices(harness);
    let context = Context::new(&devices).unwrap();
    let lists: Vec<_> = devices
        .iter()
        .map(|device| {
            context
                .immediate_list(&device.preferred_copy_engine().unwrap())
                .unwrap()
        })
        .collect();
    let mut random = Random::new(0x5eed);
    let mut sizes: Vec<usize> = (0..10).map(|_| random.size(1, 1 << 20)).collect();
    sizes.extend([1, 64 << 20]);
    for size in sizes {
        let (head, tail) = (random.between(0, 64), random.between(0, 64));
        let data = random.bytes(size);
        let span = head + size + tail;
        let mut first = context.alloc_device(&devices[0], span, 0).unwrap();
        let mut second = context.alloc_device(&devices[1], span, 0).unwrap();
        let mut same = context.alloc_device(&devices[0], span, 0).unwrap();
        lists[0].write(&mut first, head, &data).unwrap();
        lists[0].copy(&mut same, tail, &first, head, size).unwrap();
        // Device 1's engine reads device 0's memory: it must be resident there first.
        context.make_resident(&same, &devices[1]).unwrap();
        lists[1].copy(&mut second, head, &same, tail, size).unwrap();
        let mut back = vec![0u8; size];
        lists[1].read(&second, head, &mut back).unwrap();
        assert!(
            back == data,
            "device round trip of {size} bytes at offsets {head}/{tail}"
        );

        if size <= 1 << 20 {
            let mut host = context.alloc_host(span, 0).unwrap();
            let mut shared = context.alloc_shared(Some(&devices[1]), span, 0).unwrap();
            lists[1].copy(&mut host, tail, &second, head, size).unwrap();
            lists[0].copy(&mut shared, head, &host, tail, size).unwrap();
            assert!(&shared.as_slice()[head..head + size] == data.as_slice());
        }
    }
    drop(lists);
    drop(context);
    assert_eq!(harness.counter("residency_violations"), 0);
    harness.assert_clean();
}
on_both_paths!(copies_preserve_bytes, "b70x2");

/// Bad input is refused with the offending values, before any Level Zero call.
fn bad_input_is_refused_before_level_zero(harness: &Harness) {
    let devices = devices(harness);
    let context = Context::new(&devices[..1]).unwrap();
    let other = Context::new(&devices).unwrap();
    // Refused with a message that names the values (typed variants are matched below).
    let invalid = |result: Result<()>, needle: &str| match result {
        Err(Error::ZeError { .. }) | Ok(()) => {
            panic!("expected lazy-usm to refuse, mentioning `{needle}`, got {result:?}")
        }
        Err(error) => {
            let message = error.to_string();
            assert!(
                message.contains(needle),
                "`{message}` should mention `{needle}`"
            )
        }
    };
    let allocated = harness.counter("live_allocations");
    invalid(
        context.alloc_device(&devices[0], 0, 0).map(drop),
        "size is 0",
    );
    invalid(
        context.alloc_device(&devices[0], 64, 48).map(drop),
        "alignment 48",
    );
    invalid(context.alloc_host(64, 3).map(drop), "alignment 3");
    invalid(
        context.alloc_device(&devices[1], 64, 0).map(drop),
        "device 1 is not in this context",
    );
    invalid(
        context.alloc_shared(Some(&devices[1]), 64, 0).map(drop),
        "device 1",
    );
    assert!(matches!(
        context.alloc_host(64, 1 << 63),
        Err(Error::BadAlignment {
            alignment: 0x8000_0000_0000_0000,
            ..
        })
    ));
    assert!(matches!(
        context.alloc_host(usize::MAX - 64, 64),
        Err(Error::SizeOverflow { .. })
    ));
    assert!(matches!(
        context.alloc_device(&devices[1], 64, 0),
        Err(Error::DeviceNotInContext { device: 1, ref devices }) if devices == &[0]
    ));
    assert_eq!(
        harness.counter("live_allocations"),
        allocated,
        "nothing was allocated"
    );

    let list = context
        .immediate_list(&devices[0].preferred_copy_engine().unwrap())
        .unwrap();
    invalid(
        context
            .immediate_list(&devices[1].compute_engine().unwrap())
            .map(drop),
        "device 1",
    );
    let mut buffer = context.alloc_device(&devices[0], 4096, 0).unwrap();
    let foreign = other.alloc_device(&devices[0], 4096, 0).unwrap();
    let resident_calls = harness.counter("make_resident_calls");
    invalid(
        list.copy(&mut buffer, 0, &foreign, 0, 16),
        "another context",
    );
    invalid(
        context.make_resident(&foreign, &devices[0]),
        "another context",
    );
    invalid(list.write(&mut buffer, 4000, &[0u8; 100]), "4000..4100");
    assert!(matches!(
        list.write(&mut buffer, 4000, &[0u8; 100]),
        Err(Error::OutOfRange {
            role: "destination",
            offset: 4000,
            len: 100,
            size: 4096
        })
    ));
    assert!(matches!(
        list.copy(&mut buffer, 0, &foreign, 0, 16),
        Err(Error::ForeignMemory {
            owner: "another context",
            ..
        })
    ));
    invalid(
        list.read(&buffer, usize::MAX, &mut [0u8; 2]),
        "outside its 4096-byte buffer",
    );
    invalid(list.copy_within(&mut buffer, 0, 100, 200), "overlap");
    invalid(list.fill(&mut buffer, 0, 64, &[1, 2, 3]), "3 bytes");
    invalid(Context::new(&[]).map(drop), "at least one device");
    invalid(
        Context::new(&[devices[0].clone(), devices[0].clone()]).map(drop),
        "twice",
    );
    invalid(devices[0].engine(9, 0).map(drop), "ordinal 9");
    invalid(EventPool::new(&context, 0).map(drop), "at least one event");
    assert_eq!(harness.counter("make_resident_calls"), resident_calls);

    list.copy_within(&mut buffer, 0, 2048, 2048).unwrap();
    drop((list, buffer, foreign, context, other));
    harness.assert_clean();
}
on_both_paths!(bad_input_is_refused_before_level_zero, "b70x2");

/// What the driver reports equals the simulator's configuration.
fn properties_match_the_configuration(harness: &Harness) {
    let config = ze_sim::SimConfig::preset("b60x4-refused").unwrap();
    let devices = devices(harness);
    assert_eq!(devices.len(), config.devices.len());
    let driver = devices[0].driver();
    assert_eq!(driver.api_version().unwrap(), (1, 15));
    assert_eq!(
        driver.properties().unwrap().driver_version,
        config.driver_version
    );
    assert!(
        driver
            .extensions()
            .unwrap()
            .iter()
            .any(|(name, _)| name == "ZE_extension_pci_properties")
    );
    for (device, expected) in devices.iter().zip(&config.devices) {
        let properties = device.properties().unwrap();
        assert_eq!(properties.name, expected.name);
        assert_eq!(
            (properties.vendor_id, properties.device_id),
            (expected.vendor_id, expected.device_id)
        );
        assert_eq!(
            properties.pci_address.unwrap().to_string(),
            expected.pci_address
        );
        assert_eq!(properties.core_clock_mhz, expected.core_clock_mhz);
        assert_eq!(properties.max_mem_alloc_size, expected.memory_bytes);
        assert_eq!(properties.timestamp_frequency, 1_000_000_000);
        let memory = device.memory_properties().unwrap();
        assert_eq!(memory.len(), 1);
        assert_eq!(memory[0].total_size, expected.memory_bytes);
        let groups = device.queue_groups().unwrap();
        // Compute, then the main copy engine (BCS0) and the linked ones where there are any.
        let copy_groups: Vec<u32> = [expected.copy_queues, expected.linked_copy_queues]
            .into_iter()
            .filter(|&queues| queues > 0)
            .collect();
        assert_eq!(groups.len(), 1 + copy_groups.len());
        assert!(
            groups[0].is_compute()
                && groups[0].flags.contains(QueueGroupFlags::COPY)
                && groups[0].queues == expected.compute_queues
        );
        for (group, &queues) in groups[1..].iter().zip(&copy_groups) {
            assert!(group.is_copy_only() && group.queues == queues);
        }
        let engine = device.preferred_copy_engine().unwrap();
        assert_eq!(
            (engine.group.ordinal, engine.index),
            (1, 0),
            "the blitter is preferred"
        );
        for peer in &devices {
            let access = device.peer_access(peer).unwrap();
            let same = peer == device;
            assert_eq!(
                access.flags.contains(PeerAccessFlags::ACCESS),
                same,
                "b60x4 refuses P2P across root ports"
            );
            assert_eq!(device.can_access_peer(peer).unwrap(), same);
            let bandwidth = access
                .bandwidth
                .expect("the simulator has the bandwidth extension");
            let expected_rate = if same {
                config.timing.same_device_gbps as u32 as f64
            } else {
                0.0
            };
            assert_eq!(bandwidth.gigabytes_per_second, expected_rate);
        }
    }
    harness.assert_clean();
}
on_both_paths!(properties_match_the_configuration, "b60x4-refused");

/// Buffers keep their context alive: dropping the context first is safe, and everything is
/// released after the last buffer goes.
fn dropping_the_context_first_is_safe(harness: &Harness) {
    let devices = devices(harness);
    let context = Context::new(&devices).unwrap();
    let list = context
        .immediate_list(&devices[0].compute_engine().unwrap())
        .unwrap();
    let mut buffer = context.alloc_device(&devices[0], 256, 0).unwrap();
    drop(context);
    assert_eq!(
        harness.counter("live_contexts"),
        1,
        "still alive through the buffer"
    );
    list.fill(&mut buffer, 0, 256, &[9, 8, 7, 6]).unwrap();
    let mut back = [0u8; 8];
    list.read(&buffer, 248, &mut back).unwrap();
    assert_eq!(back, [9, 8, 7, 6, 9, 8, 7, 6]);
    drop(buffer);
    drop(list);
    harness.assert_clean();
}
on_both_paths!(dropping_the_context_first_is_safe, "b70x2");

/// Asynchronous copies own their buffers; dropping one unwaited blocks until it completes, so no
/// memory is freed under it.
fn pending_copies_keep_their_buffers(harness: &Harness) {
    let devices = devices(harness);
    let context = Context::new(&devices).unwrap();
    let list = context
        .immediate_list(&devices[0].preferred_copy_engine().unwrap())
        .unwrap();
    let mut host = context.alloc_host(1 << 20, 0).unwrap();
    host.as_mut_slice().fill(0x42);
    let device = context.alloc_device(&devices[0], 1 << 20, 0).unwrap();
    let pending = list.copy_async(device, host).unwrap();
    let (device, host, stamp) = pending.wait_timed().unwrap();
    let stamp = stamp.expect("a completed copy has a timestamp");
    assert!(stamp.end > stamp.start);
    let mut back = vec![0; 1 << 20];
    list.read(&device, 0, &mut back).unwrap();
    assert!(back == host.as_slice());
    let again = list.copy_async(device, host).unwrap();
    drop(again); // waits, then frees both buffers
    assert!(matches!(
        list.copy_async(
            context.alloc_device(&devices[0], 8, 0).unwrap(),
            context.alloc_device(&devices[0], 16, 0).unwrap(),
        ),
        Err(Error::InvalidArgument(_))
    ));
    drop(list);
    drop(context);
    harness.assert_clean();
}
on_both_paths!(pending_copies_keep_their_buffers, "b70x2");

/// Several threads allocating and copying on one context, each with its own list.
fn threads_share_a_context(harness: &Harness) {
    let devices = devices(harness);
    let context = Context::new(&devices).unwrap();
    std::thread::scope(|scope| {
        for thread in 0..4u64 {
            let (context, device) = (&context, &devices[thread as usize % devices.len()]);
            scope.spawn(move || {
                let list = context
                    .immediate_list(&device.preferred_copy_engine().unwrap())
                    .unwrap();
                let mut random = Random::new(thread + 1);
                for _ in 0..20 {
                    let size = random.size(1, 256 << 10);
                    let data = random.bytes(size);
                    let mut buffer = context.alloc_device(device, size, 0).unwrap();
                    list.write(&mut buffer, 0, &data).unwrap();
                    let mut back = vec![0; size];
                    list.read(&buffer, 0, &mut back).unwrap();
                    assert!(back == data);
                }
            });
        }
    });
    drop(context);
    harness.assert_clean();
}
on_both_paths!(threads_share_a_context, "b70x2");

#[test]
fn out_of_memory_and_device_lost_have_their_own_variants() {
    let mut config = ze_sim::SimConfig::preset("b70x2").unwrap();
    config.faults.device_memory_limit_bytes = Some(1 << 30);
    config.faults.device_lost_after_submissions = Some(1);
    let harness = Harness::with_config(config);
    let devices = devices(&harness);
    let context = Context::new(&devices).unwrap();
    let error = context.alloc_device(&devices[0], 2 << 30, 0).unwrap_err();
    assert!(
        matches!(
            error,
            Error::OutOfDeviceMemory {
                call: "zeMemAllocDevice"
            }
        ),
        "{error}"
    );
    let list = context
        .immediate_list(&devices[0].compute_engine().unwrap())
        .unwrap();
    let mut buffer = context.alloc_device(&devices[0], 64, 0).unwrap();
    list.write(&mut buffer, 0, &[1; 64]).unwrap();
    let error = list.write(&mut buffer, 0, &[1; 64]).unwrap_err();
    assert!(matches!(error, Error::DeviceLost { .. }), "{error}");
    assert_eq!(
        error.ze_result(),
        Some(lazy_usm::sys::ze_result_t::ZE_RESULT_ERROR_DEVICE_LOST)
    );
    drop((buffer, list, context));
    harness.assert_clean();
}

#[test]
fn free_policies_free() {
    let harness = Harness::simulated("b70x2");
    let devices = devices(&harness);
    let context = Context::new(&devices).unwrap();
    for policy in [
        FreePolicy::Immediate,
        FreePolicy::Blocking,
        FreePolicy::Deferred,
    ] {
        let mut buffer = context.alloc_device(&devices[1], 4096, 0).unwrap();
        buffer.set_free_policy(policy);
        drop(buffer);
        assert_eq!(harness.counter("live_allocations"), 0, "{policy:?}");
    }
    assert!(context.take_drop_errors().is_empty());
    drop(context);
    harness.assert_clean();
}

#[test]
fn auto_falls_back_to_the_simulator_and_says_why() {
    // In this process no loader environment points at a GPU driver.
    if std::env::var_os("ZE_ENABLE_ALT_DRIVERS").is_some() {
        return;
    }
    let (runtime, choice) = Runtime::auto("b60x4-refused").unwrap();
    assert_eq!(
        choice.source,
        Source::Simulated {
            name: "b60x4-refused".into()
        }
    );
    assert!(
        choice.reason.contains("no usable Level Zero GPU"),
        "{}",
        choice.reason
    );
    assert_eq!(runtime.devices().unwrap().len(), 4);
    assert!(matches!(
        Runtime::system_at("/nonexistent/libze_loader.so.1"),
        Err(Error::Loader(_))
    ));
    assert!(matches!(
        Runtime::simulated("nonesuch"),
        Err(Error::Simulator(_))
    ));
}

/// Behind the loader with a GPU driver present, `auto` picks the system.
#[test]
#[ignore = "runs in a child process started by auto_prefers_a_system_gpu"]
fn auto_child() {
    let (runtime, choice) = Runtime::auto("b60x4-refused").unwrap();
    assert!(matches!(choice.source, Source::System { .. }), "{choice:?}");
    assert!(
        choice.reason.contains("2 Level Zero GPU"),
        "{}",
        choice.reason
    );
    assert_eq!(runtime.devices().unwrap().len(), 2);
}

#[test]
fn auto_prefers_a_system_gpu() {
    crate::common::run_in_loader_child(
        &crate::common::test_named(module_path!(), "auto_child"),
        "b70x2",
    );
}

/// A recorded list runs on a queue, twice, each submission tracked by a fence; the list owns
/// its buffers and the submission owns the list.
fn recorded_lists_run_on_queues(harness: &Harness) {
    let devices = devices(harness);
    let context = Context::new(&devices).unwrap();
    let engine = devices[1].preferred_copy_engine().unwrap();
    let queue = CommandQueue::new(&context, &engine).unwrap();
    let bytes = Random::new(9).bytes(4096);
    let mut list = RecordedList::new(&context, &engine).unwrap();
    let source = list.hold(context.alloc_host(4096, 0).unwrap()).unwrap();
    list.get_mut(source)
        .unwrap()
        .as_mut_slice()
        .copy_from_slice(&bytes);
    let middle = list
        .hold(context.alloc_device(&devices[1], 4096, 0).unwrap())
        .unwrap();
    let target = list.hold(context.alloc_host(4096, 0).unwrap()).unwrap();
    list.copy(middle, 0, source, 0, 4096).unwrap();
    list.copy(target, 0, middle, 0, 4096).unwrap();
    let refused = queue.execute(list).unwrap_err();
    assert!(
        matches!(refused.error, Error::InvalidArgument(_)),
        "not closed"
    );
    let mut list = *refused.list;
    list.close().unwrap();
    let list = queue.execute(list).unwrap().wait().unwrap();
    assert_eq!(list.get(target).unwrap().as_slice(), &bytes[..]);
    let list = queue.execute(list).unwrap().wait().unwrap();
    let compute = CommandQueue::new(&context, &devices[1].compute_engine().unwrap()).unwrap();
    let refused = compute.execute(list).unwrap_err();
    assert!(
        matches!(refused.error, Error::InvalidArgument(_)),
        "other group"
    );
    let submission = queue.execute(*refused.list).unwrap();
    drop(queue); // the submission shares the queue until its work completes
    drop(submission); // waits, then frees the list and its buffers
    drop((compute, context));
    harness.assert_clean();
}
on_both_paths!(recorded_lists_run_on_queues, "b70x2");

/// Behind a loader, its components and versions are read (`zelLoaderGetVersions`).
#[test]
#[ignore = "runs in a child process started by the_loaders_versions_are_read"]
fn loader_versions_child() {
    let runtime = Runtime::system().unwrap();
    let components = runtime.loader_versions().unwrap().expect("a loader");
    let loader = components
        .iter()
        .find(|component| component.name == "loader")
        .unwrap_or_else(|| panic!("no `loader` component in {components:?}"));
    assert!(loader.version.0 >= 1, "{loader:?}");
    assert_eq!(loader.spec.0, 1, "{loader:?}");
}

#[test]
fn the_loaders_versions_are_read() {
    crate::common::run_in_loader_child(
        &crate::common::test_named(module_path!(), "loader_versions_child"),
        "b70x2",
    );
}
