//! Kernels through lazy-usm: first kernel use makes a peer's memory resident by policy (once per
//! allocation and device), declared reach covers reads through pointers, launches race
//! evictions and the budget without a violation, and bad launches are typed errors. The data is
//! checked with the simulator's built-in kernels.

use crate::common::{Harness, run_with_timeout};
use lazy_usm::*;
use std::time::Duration;

const ITEMS: u32 = 1024;
const BYTES: usize = ITEMS as usize * 4;

fn builtins(context: &Context, device: &Device) -> (Kernel, Kernel, Kernel) {
    let spirv = ze_sim::spirv::module_with_kernels(&[
        ("lazy_usm_sim_fill_u32", 2),
        ("lazy_usm_sim_copy_u32", 2),
        ("lazy_usm_sim_gather_u32", 2),
    ]);
    let module = Module::from_spirv(context, device, &spirv, "").unwrap();
    (
        module.kernel("lazy_usm_sim_fill_u32").unwrap(),
        module.kernel("lazy_usm_sim_copy_u32").unwrap(),
        module.kernel("lazy_usm_sim_gather_u32").unwrap(),
    )
}

fn read_u32(manager: &ResidencyManager, memory: &impl Resident, items: usize) -> Vec<u32> {
    let mut bytes = vec![0u8; items * 4];
    manager.read(memory, 0, &mut bytes).unwrap();
    bytes
        .chunks_exact(4)
        .map(|word| u32::from_le_bytes(word.try_into().unwrap()))
        .collect()
}

/// A kernel on device 1 reads device 0's allocation, 20 times, under each policy.
fn first_kernel_use_per_policy(harness: &Harness) {
    let devices = harness.runtime.devices().unwrap();
    for policy in Policy::ALL {
        let manager = ResidencyManager::new(
            Context::new(&devices).unwrap(),
            ResidencyConfig::new(policy),
        )
        .unwrap();
        let (fill, _, _) = builtins(manager.context(), &devices[0]);
        let (_, copy, _) = builtins(manager.context(), &devices[1]);
        let mut source = manager.allocate(&devices[0], BYTES).unwrap();
        let mut target = manager.allocate(&devices[1], BYTES).unwrap();
        let dims = Dims::linear(ITEMS, 64).unwrap();
        // SAFETY: the built-in fill writes ITEMS u32s through its first argument only.
        unsafe {
            manager
                .launch(
                    &fill,
                    dims,
                    &mut [Arg::Write(&mut source), Arg::scalar(0xbeef_u32)],
                    &[],
                )
                .unwrap();
        }
        let launch = |target: &mut DeviceAllocation| {
            // SAFETY: the built-in copy reads ITEMS u32s of its second argument and writes its
            // first.
            unsafe {
                manager.launch(
                    &copy,
                    dims,
                    &mut [Arg::Write(target), Arg::Read(&source)],
                    &[],
                )
            }
        };
        match policy {
            Policy::Manual => {
                assert!(matches!(
                    launch(&mut target),
                    Err(Error::NotResident {
                        device: 1,
                        owner: 0
                    })
                ));
                manager.ensure_resident_on(&source, &devices[1]).unwrap();
            }
            Policy::PeerEnabled => {
                assert!(matches!(
                    launch(&mut target),
                    Err(Error::PeerAccessDisabled {
                        accessor: 1,
                        owner: 0
                    })
                ));
                manager
                    .enable_peer_access(&devices[1], &devices[0])
                    .unwrap();
            }
            Policy::Eager | Policy::Lazy => {}
        }
        // The first launch makes the source resident on device 1 (Lazy, PeerEnabled), after
        // the pair's P2P self-test; the next 19 make nothing.
        let first = launch(&mut target).unwrap();
        let expected = u32::from(policy == Policy::Lazy || policy == Policy::PeerEnabled);
        assert_eq!(first.made_resident, expected, "{policy:?}: first launch");
        let before = harness.counter("make_resident_calls");
        for _ in 0..19 {
            assert_eq!(launch(&mut target).unwrap().made_resident, 0);
        }
        assert_eq!(
            harness.counter("make_resident_calls"),
            before,
            "{policy:?}: no residency call after the first launch"
        );
        assert_eq!(
            read_u32(&manager, &target, ITEMS as usize),
            vec![0xbeef; ITEMS as usize]
        );
        assert!(source.resident().contains(1), "{policy:?}");
        assert_eq!(
            manager.host_cost().current_bytes,
            harness.host_pinned(),
            "{policy:?}: the host cost is what was pinned"
        );
        drop((fill, copy, source, target, manager));
    }
    harness.assert_clean();
}
on_both_paths!(first_kernel_use_per_policy, "b70x2");

/// A gather through a table of pointers into device 0's memory: the table is an argument, the
/// memory it points to is not, so only the declared reach makes it resident. Without it the
/// simulator catches every read; with it, none.
#[test]
fn reads_through_pointers_need_their_reach_declared() {
    let mut config = ze_sim::SimConfig::preset("b70x2").unwrap();
    config.strict_residency = false; // let the undeclared launch run, so its reads are counted
    let harness = Harness::with_config(config);
    let devices = harness.runtime.devices().unwrap();
    let manager =
        ResidencyManager::new(Context::new(&devices).unwrap(), ResidencyConfig::default()).unwrap();
    let (_, _, gather) = builtins(manager.context(), &devices[1]);
    let mut rows = manager.allocate(&devices[0], BYTES).unwrap();
    let values: Vec<u8> = (0..ITEMS)
        .flat_map(|index| (index * 7).to_le_bytes())
        .collect();
    manager.write(&mut rows, 0, &values).unwrap();
    let pointers: Vec<u8> = (0..ITEMS as usize)
        .flat_map(|index| ((rows.address() + 4 * index) as u64).to_le_bytes())
        .collect();
    let mut table = manager.allocate(&devices[1], ITEMS as usize * 8).unwrap();
    manager.write(&mut table, 0, &pointers).unwrap();
    let mut out = manager.allocate(&devices[1], BYTES).unwrap();
    let dims = Dims::linear(ITEMS, 64).unwrap();
    // SAFETY: the built-in gather writes its first argument and reads through the table.
    unsafe {
        manager
            .launch(
                &gather,
                dims,
                &mut [Arg::Write(&mut out), Arg::Read(&table)],
                &[],
            )
            .unwrap();
    }
    assert_eq!(
        harness.counter("residency_violations"),
        u64::from(ITEMS),
        "every undeclared read through a pointer"
    );
    let before = harness.counter("residency_violations");
    // SAFETY: as above, with the rows it reads declared.
    let report = unsafe {
        manager
            .launch(
                &gather,
                dims,
                &mut [Arg::Write(&mut out), Arg::Read(&table)],
                &[&rows],
            )
            .unwrap()
    };
    assert_eq!(report.made_resident, 1);
    assert_eq!(
        harness.counter("residency_violations"),
        before,
        "none once declared"
    );
    let expected: Vec<u32> = (0..ITEMS).map(|index| index * 7).collect();
    assert_eq!(read_u32(&manager, &out, ITEMS as usize), expected);
    drop((gather, rows, table, out, manager));
    // The first launch's violations were the point of this test.
    assert_eq!(harness.counter("free_hazards"), 0);
    assert_eq!(harness.counter("live_allocations"), 0);
}

/// Launches race `evict_from` and a budget's evictions: a launch pins what it uses, so nothing
/// is evicted under a running kernel.
#[test]
fn launches_race_eviction_and_the_budget_without_violations() {
    run_with_timeout(Duration::from_secs(120), || {
        let mut config = ze_sim::SimConfig::preset("b70x2").unwrap();
        config.faults.command_delay_us = Some(100);
        let harness = Harness::with_config(config);
        let devices = harness.runtime.devices().unwrap();
        let residency = ResidencyConfig {
            host_budget: Some(2 * BYTES as u64),
            ..ResidencyConfig::new(Policy::Lazy)
        };
        let manager = ResidencyManager::new(Context::new(&devices).unwrap(), residency).unwrap();
        let (_, copy, _) = builtins(manager.context(), &devices[1]);
        let sources: Vec<DeviceAllocation> = (0..3)
            .map(|_| manager.allocate(&devices[0], BYTES).unwrap())
            .collect();
        let done = std::sync::atomic::AtomicBool::new(false);
        let dims = Dims::linear(ITEMS, 64).unwrap();
        std::thread::scope(|scope| {
            let (manager, sources, copy, done, devices) =
                (&manager, &sources, &copy, &done, &devices);
            let launcher = scope.spawn(move || {
                let mut target = manager.allocate(&devices[1], BYTES).unwrap();
                for step in 0..300 {
                    let source = &sources[step % sources.len()];
                    // SAFETY: the built-in copy reads its second argument, writes its first.
                    let launched = unsafe {
                        manager.launch(
                            copy,
                            dims,
                            &mut [Arg::Write(&mut target), Arg::Read(source)],
                            &[],
                        )
                    };
                    launched.unwrap();
                }
                done.store(true, std::sync::atomic::Ordering::Release);
            });
            let mut evicted = 0;
            while !done.load(std::sync::atomic::Ordering::Acquire) && !launcher.is_finished() {
                for source in sources {
                    if manager.evict_from(source, &devices[1]).is_ok() {
                        evicted += 1;
                    }
                }
            }
            launcher.join().unwrap();
            println!("{evicted} evictions raced 300 launches");
            assert!(evicted > 0, "the race was exercised");
        });
        assert_eq!(harness.counter("residency_violations"), 0);
        assert!(manager.host_cost().peak_bytes <= 2 * BYTES as u64);
        assert_eq!(manager.host_cost().current_bytes, harness.host_pinned());
        drop((copy, sources, manager));
        harness.assert_clean();
    });
}

/// Bad launches are typed errors: a pair without P2P, a kernel of another device, a missing
/// kernel, a bad argument, a failed build.
#[test]
fn bad_launches_are_typed_errors() {
    let harness = Harness::simulated("b60x4-refused");
    let devices = harness.runtime.devices().unwrap();
    let manager =
        ResidencyManager::new(Context::new(&devices).unwrap(), ResidencyConfig::default()).unwrap();
    let (fill, copy, _) = builtins(manager.context(), &devices[1]);
    let remote = manager.allocate(&devices[0], BYTES).unwrap();
    let mut local = manager.allocate(&devices[1], BYTES).unwrap();
    let dims = Dims::linear(ITEMS, 64).unwrap();
    // SAFETY (each launch below): the built-ins touch only their arguments, within ITEMS u32s.
    unsafe {
        // B60s on separate root ports: no P2P, so a kernel cannot read a peer's memory.
        assert!(matches!(
            manager.launch(
                &copy,
                dims,
                &mut [Arg::Write(&mut local), Arg::Read(&remote)],
                &[]
            ),
            Err(Error::NoPeerPath {
                executing: 1,
                owner: 0,
                ..
            })
        ));
        assert!(matches!(
            manager.launch(
                &fill,
                dims,
                &mut [Arg::Write(&mut local), Arg::scalar(1u64)],
                &[]
            ),
            Err(Error::BadKernelArgument {
                index: 1,
                size: 8,
                ..
            })
        ));
        let list = manager
            .context()
            .immediate_list(&devices[2].compute_engine().unwrap())
            .unwrap();
        assert!(matches!(
            list.launch(&fill, dims, &mut [Arg::Write(&mut local), Arg::scalar(1u32)]),
            Err(Error::InvalidArgument(message)) if message.contains("device 1")
        ));
        let too_wide = Dims {
            groups: [1, 1, 1],
            group_size: [4096, 1, 1],
        };
        assert!(matches!(
            manager.launch(&fill, too_wide, &mut [Arg::Write(&mut local), Arg::scalar(1u32)], &[]),
            Err(Error::InvalidArgument(message)) if message.contains("limits")
        ));
    }
    let module = Module::from_spirv(
        manager.context(),
        &devices[1],
        &ze_sim::spirv::module_with_kernels(&[("k", 0)]),
        "",
    )
    .unwrap();
    assert!(matches!(
        module.kernel("absent"),
        Err(Error::NoSuchKernel { .. })
    ));
    assert!(matches!(
        Module::from_spirv(manager.context(), &devices[1], &[7; 24], ""),
        Err(Error::BuildFailed { log }) if log.contains("magic")
    ));
    assert_eq!(
        harness.counter("residency_violations"),
        0,
        "the no-P2P launch was refused before it reached the driver"
    );
    assert_eq!(
        harness.counter("launches"),
        0,
        "and so was every other bad launch"
    );
    drop((fill, copy, module, remote, local, manager));
    assert_eq!(harness.counter("live_kernels"), 0);
    assert_eq!(harness.counter("live_modules"), 0);
}

/// Pool blocks are kernel arguments like allocations: their segment becomes resident, and the
/// block counts as shared with the device that read it.
#[test]
fn pool_blocks_as_kernel_arguments() {
    let harness = Harness::simulated("b70x2");
    let devices = harness.runtime.devices().unwrap();
    let manager =
        ResidencyManager::new(Context::new(&devices).unwrap(), ResidencyConfig::default()).unwrap();
    let pool = DevicePool::new(&manager, &devices[0], PoolConfig::default()).unwrap();
    let (_, copy, _) = builtins(manager.context(), &devices[1]);
    let block = pool.allocate(BYTES).unwrap();
    let mut target = manager.allocate(&devices[1], BYTES).unwrap();
    // SAFETY: the built-in copy reads its second argument and writes its first.
    unsafe {
        manager
            .launch(
                &copy,
                Dims::linear(ITEMS, 64).unwrap(),
                &mut [Arg::Write(&mut target), Arg::Read(&block)],
                &[],
            )
            .unwrap();
    }
    assert_eq!(pool.stats().peers[0].shared_bytes, BYTES as u64);
    assert_eq!(harness.counter("residency_violations"), 0);
    drop((copy, block, target));
    drop((pool, manager));
    harness.assert_clean();
}

/// One kernel, launched from four threads at once with different arguments: each launch sets
/// and captures its own arguments (the kernel's lock), so every thread gets its own data.
#[test]
fn one_kernel_launched_from_several_threads() {
    run_with_timeout(Duration::from_secs(120), || {
        let harness = Harness::simulated("b70x2");
        let devices = harness.runtime.devices().unwrap();
        let manager =
            ResidencyManager::new(Context::new(&devices).unwrap(), ResidencyConfig::default())
                .unwrap();
        let (fill, _, _) = builtins(manager.context(), &devices[1]);
        let dims = Dims::linear(ITEMS, 64).unwrap();
        std::thread::scope(|scope| {
            for thread in 0..4u32 {
                let (manager, fill, devices) = (&manager, &fill, &devices);
                scope.spawn(move || {
                    let mut target = manager.allocate(&devices[1], BYTES).unwrap();
                    for step in 0..50 {
                        let value = thread * 1000 + step;
                        // SAFETY: the built-in fill writes ITEMS u32s of its first argument.
                        unsafe {
                            manager
                                .launch(
                                    fill,
                                    dims,
                                    &mut [Arg::Write(&mut target), Arg::scalar(value)],
                                    &[],
                                )
                                .unwrap();
                        }
                        assert_eq!(
                            read_u32(manager, &target, ITEMS as usize),
                            vec![value; ITEMS as usize]
                        );
                    }
                });
            }
        });
        assert_eq!(harness.counter("launches"), 200);
        drop((fill, manager));
        harness.assert_clean();
    });
}

/// A launch recorded in a list: held buffers as arguments, an event signalled after it (with
/// the launch's device timestamps), run on a queue.
#[test]
fn recorded_launches_with_events() {
    let harness = Harness::simulated("b70x2");
    let devices = harness.runtime.devices().unwrap();
    let context = Context::new(&devices).unwrap();
    let (fill, _, _) = builtins(&context, &devices[1]);
    let engine = devices[1].compute_engine().unwrap();
    let done = std::sync::Arc::new(EventPool::new(&context, 1).unwrap().event(0).unwrap());
    let mut list = RecordedList::new(&context, &engine).unwrap();
    let target = list.hold(context.alloc_host(BYTES, 0).unwrap()).unwrap();
    let dims = Dims::linear(ITEMS, 64).unwrap();
    // SAFETY: the built-in fill writes ITEMS u32s of its first argument.
    unsafe {
        list.launch(&fill, dims, &[ListArg::held(target), ListArg::scalar(5u32)])
            .unwrap();
        assert!(
            list.launch(&fill, dims, &[ListArg::held(target)]).is_err(),
            "every argument must be given"
        );
    }
    list.signal(std::sync::Arc::clone(&done)).unwrap();
    list.close().unwrap();
    drop(fill); // the list keeps the kernel
    let queue = CommandQueue::new(&context, &engine).unwrap();
    let list = queue.execute(list).unwrap().wait().unwrap();
    let stamp = done.kernel_timestamp().unwrap().unwrap();
    assert!(stamp.end > stamp.start);
    assert!(
        list.get(target)
            .unwrap()
            .as_slice()
            .chunks(4)
            .all(|word| word == [5, 0, 0, 0])
    );
    drop((list, queue, done, context));
    harness.assert_clean();
}

/// Launches that do not belong on their list, or run nothing.
#[test]
fn misplaced_and_empty_launches() {
    let harness = Harness::simulated("b70x2");
    let devices = harness.runtime.devices().unwrap();
    let context = Context::new(&devices).unwrap();
    let other = Context::new(&devices).unwrap();
    let (fill, _, _) = builtins(&context, &devices[0]);
    let (foreign, _, _) = builtins(&other, &devices[0]);
    let compute = context
        .immediate_list(&devices[0].compute_engine().unwrap())
        .unwrap();
    let copy = context
        .immediate_list(&devices[0].preferred_copy_engine().unwrap())
        .unwrap();
    let mut buffer = context.alloc_device(&devices[0], BYTES, 0).unwrap();
    let dims = Dims::linear(ITEMS, 64).unwrap();
    // SAFETY (each launch): the built-in fill writes at most ITEMS u32s of its first argument.
    unsafe {
        assert!(matches!(
            copy.launch(&fill, dims, &mut [Arg::Write(&mut buffer), Arg::scalar(1u32)]),
            Err(Error::InvalidArgument(message)) if message.contains("compute")
        ));
        assert!(matches!(
            compute.launch(
                &foreign,
                dims,
                &mut [Arg::Write(&mut buffer), Arg::scalar(1u32)]
            ),
            Err(Error::ForeignObject { what: "kernel", .. })
        ));
        assert!(matches!(
            compute.launch(&fill, dims, &mut [Arg::Write(&mut buffer)]),
            Err(Error::InvalidArgument(message)) if message.contains("takes 2 arguments")
        ));
        let nothing = Dims {
            groups: [0, 1, 1],
            group_size: [64, 1, 1],
        };
        compute
            .launch(
                &fill,
                nothing,
                &mut [Arg::Write(&mut buffer), Arg::scalar(1u32)],
            )
            .unwrap();
    }
    assert_eq!(
        harness.counter("launches"),
        1,
        "only the empty launch reached the driver"
    );
    drop((fill, foreign, compute, copy, buffer, context, other));
    harness.assert_clean();
}

/// Two blocks of one pool segment read by a kernel on a peer: one residency covers both.
#[test]
fn blocks_of_one_segment_share_one_residency() {
    let harness = Harness::simulated("b70x2");
    let devices = harness.runtime.devices().unwrap();
    let manager =
        ResidencyManager::new(Context::new(&devices).unwrap(), ResidencyConfig::default()).unwrap();
    let pool = DevicePool::new(&manager, &devices[0], PoolConfig::default()).unwrap();
    let (_, copy, _) = builtins(manager.context(), &devices[1]);
    let (first, second) = (pool.allocate(BYTES).unwrap(), pool.allocate(BYTES).unwrap());
    let mut target = manager.allocate(&devices[1], BYTES).unwrap();
    let dims = Dims::linear(ITEMS, 64).unwrap();
    let mut made = 0;
    for block in [&first, &second] {
        // SAFETY: the built-in copy reads its second argument and writes its first.
        made += unsafe {
            manager
                .launch(
                    &copy,
                    dims,
                    &mut [Arg::Write(&mut target), Arg::Read(block)],
                    &[],
                )
                .unwrap()
                .made_resident
        };
    }
    assert_eq!(made, 1, "the second block's segment was resident already");
    assert_eq!(pool.stats().peers[0].shared_bytes, 2 * BYTES as u64);
    drop((copy, first, second, target));
    drop((pool, manager));
    harness.assert_clean();
}
