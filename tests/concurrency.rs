//! Several threads against one residency manager and one pool, on 2 and 4 simulated devices
//! with asynchronous engines: copies (synchronous and asynchronous), explicit residency,
//! eviction, peer-access switches, trims and reclaims, with and without a host budget. After
//! every run the simulator saw no residency violation, no hazard, no leak, and the manager's
//! host cost equals the simulator's pinned bytes.

use crate::common::{Harness, Random, run_with_timeout};
use lazy_usm::*;
use std::sync::Arc;
use std::time::Duration;

const SIZE: usize = 64 << 10;
const THREADS: usize = 4;
const STEPS: usize = 150;

fn config(preset: &str) -> ze_sim::SimConfig {
    let mut config = ze_sim::SimConfig::preset(preset).unwrap();
    // Commands take real time, so evictions and switches land while copies are in flight.
    config.faults.command_delay_us = Some(150);
    config
}

fn pattern(index: usize) -> Vec<u8> {
    (0..SIZE)
        .map(|byte| (byte * 7 + index * 13) as u8)
        .collect()
}

/// One thread's work: copies from shared sources into its own targets (checking the bytes),
/// asynchronous copies of its own allocations on a raw list, and residency changes of the
/// shared sources.
fn worker(manager: &ResidencyManager, devices: &[Device], sources: &[DeviceAllocation], seed: u64) {
    let mut random = Random::new(seed);
    let count = devices.len();
    let mut targets: Vec<DeviceAllocation> = (0..count)
        .map(|device| manager.allocate(&devices[device], SIZE).unwrap())
        .collect();
    let lists: Vec<CommandList> = devices
        .iter()
        .map(|device| {
            manager
                .context()
                .immediate_list(&device.preferred_copy_engine().unwrap())
                .unwrap()
        })
        .collect();
    // Across devices where the pair has P2P, else within device 0 (a raw list has no staging).
    let far = if devices[0].can_access_peer(&devices[count - 1]).unwrap() {
        count - 1
    } else {
        0
    };
    let mut spare = Some((
        manager.allocate(&devices[0], SIZE).unwrap(),
        manager.allocate(&devices[far], SIZE).unwrap(),
    ));
    let mut back = vec![0u8; 256];
    for _ in 0..STEPS {
        let source = random.between(0, sources.len() - 1);
        let device = random.between(0, count - 1);
        match random.between(0, 9) {
            0..=3 => {
                let target = &mut targets[device];
                manager.copy(target, 0, &sources[source], 0, SIZE).unwrap();
                manager.read(target, 0, &mut back).unwrap();
                assert_eq!(back, pattern(source)[..256], "copy from source {source}");
            }
            4 => {
                let _ = manager.ensure_resident_on(&sources[source], &devices[device]);
            }
            5 => match manager.evict_from(&sources[source], &devices[device]) {
                Ok(()) | Err(Error::InUse { .. }) => {}
                // Owners cannot be evicted.
                Err(Error::InvalidArgument(_)) => {}
                Err(error) => panic!("evict: {error}"),
            },
            6 => {
                let owner = &devices[random.between(0, count - 1)];
                manager.enable_peer_access(&devices[device], owner).unwrap();
            }
            7 => {
                let owner = &devices[random.between(0, count - 1)];
                manager
                    .disable_peer_access(&devices[device], owner)
                    .unwrap();
            }
            _ => {
                // An asynchronous copy between the thread's own allocations, on the list of
                // the destination's device, after making the source resident there.
                let (dst, src) = spare.take().unwrap();
                let executing = dst.owner() as usize;
                // Under a budget full of explicit residency the request is refused: no copy.
                if manager
                    .ensure_resident_on(&src, &devices[executing])
                    .is_ok()
                {
                    let pending = lists[executing].copy_async(dst, src).unwrap();
                    let (dst, src) = pending.wait().unwrap();
                    manager.evict_from(&src, &devices[executing]).ok();
                    spare = Some((dst, src));
                    continue;
                }
                spare = Some((dst, src));
            }
        }
    }
}

fn race(preset: &str, policy: Policy, host_budget: Option<u64>) {
    let harness = Harness::with_config(config(preset));
    let devices = harness.runtime.devices().unwrap();
    let residency = ResidencyConfig {
        host_budget,
        ..ResidencyConfig::new(policy)
    };
    let manager = ResidencyManager::new(Context::new(&devices).unwrap(), residency).unwrap();
    let sources: Vec<DeviceAllocation> = (0..2 * devices.len())
        .map(|index| {
            let mut source = manager
                .allocate(&devices[index % devices.len()], SIZE)
                .unwrap();
            manager.write(&mut source, 0, &pattern(index)).unwrap();
            source
        })
        .collect();
    std::thread::scope(|scope| {
        for thread in 0..THREADS {
            let (manager, devices, sources) = (&manager, &devices, &sources);
            scope.spawn(move || worker(manager, devices, sources, 1 + thread as u64));
        }
    });
    let cost = manager.host_cost();
    let label = format!("{preset} {policy:?} budget {host_budget:?}");
    assert_eq!(harness.counter("residency_violations"), 0, "{label}");
    assert_eq!(harness.counter("free_hazards"), 0, "{label}");
    assert_eq!(harness.counter("destroy_hazards"), 0, "{label}");
    assert_eq!(
        cost.current_bytes,
        harness.host_pinned() - cost.staging_bytes,
        "{label}: the manager's host cost is what the driver pinned"
    );
    if let Some(budget) = host_budget {
        assert!(
            cost.peak_bytes <= budget,
            "{label}: peak {}",
            cost.peak_bytes
        );
    }
    drop((sources, manager));
    harness.assert_clean();
}

#[test]
fn threads_race_the_manager_on_two_devices() {
    run_with_timeout(Duration::from_secs(240), || {
        for policy in [Policy::Lazy, Policy::PeerEnabled] {
            race("b70x2", policy, None);
            race("b70x2", policy, Some(3 * SIZE as u64));
        }
    });
}

#[test]
fn threads_race_the_manager_on_four_devices() {
    run_with_timeout(Duration::from_secs(240), || {
        race("b60x4-refused", Policy::Lazy, None);
        race("b60x4-refused", Policy::Lazy, Some(5 * SIZE as u64));
    });
}

/// Threads allocate, free and detach copies of pool blocks while another trims and reclaims,
/// on a device small enough to run out of memory: no deadlock, no hazard, nothing leaked.
#[test]
fn threads_race_the_pool_with_trim_reclaim_and_out_of_memory() {
    run_with_timeout(Duration::from_secs(240), || {
        let mut sim = config("b70x2");
        sim.faults.device_memory_limit_bytes = Some(48 << 20);
        let harness = Harness::with_config(sim);
        let devices = harness.runtime.devices().unwrap();
        let manager =
            ResidencyManager::new(Context::new(&devices).unwrap(), ResidencyConfig::default())
                .unwrap();
        let pool_config = PoolConfig {
            max_cached_bytes: Some(4 << 20),
            ..PoolConfig::default()
        };
        let pool = DevicePool::new(&manager, &devices[0], pool_config).unwrap();
        let done = std::sync::atomic::AtomicBool::new(false);
        let out_of_memory = std::sync::atomic::AtomicU32::new(0);
        std::thread::scope(|scope| {
            let workers: Vec<_> = (0..3u64)
                .map(|thread| {
                    let (pool, manager, devices, out_of_memory) =
                        (&pool, &manager, &devices, &out_of_memory);
                    scope.spawn(move || {
                        let mut random = Random::new(100 + thread);
                        let list = manager
                            .context()
                            .immediate_list(&devices[0].preferred_copy_engine().unwrap())
                            .unwrap();
                        let mut held = Vec::new();
                        for _ in 0..200 {
                            let size = random.size(256, 24 << 20);
                            let copy = random.between(0, 2) == 0;
                            let blocks = pool.allocate(size).and_then(|first| {
                                let second = if copy {
                                    Some(pool.allocate(size)?)
                                } else {
                                    None
                                };
                                Ok((first, second))
                            });
                            match blocks {
                                Ok((first, Some(second))) => {
                                    list.copy_async(first, second).unwrap().detach();
                                }
                                Ok((first, None)) => {
                                    // Some blocks are shared with device 1, so trim has peer
                                    // residency to weigh.
                                    if random.between(0, 3) == 0 {
                                        manager.ensure_resident_on(&first, &devices[1]).unwrap();
                                    }
                                    held.push(first);
                                }
                                Err(Error::OutOfDeviceMemory { .. }) => {
                                    out_of_memory
                                        .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                                    held.clear();
                                }
                                Err(error) => panic!("allocate {size}: {error}"),
                            }
                            if held.len() > 6 {
                                held.remove(random.between(0, held.len() - 1));
                            }
                        }
                    })
                })
                .collect();
            let (pool, done) = (&pool, &done);
            scope.spawn(move || {
                while !done.load(std::sync::atomic::Ordering::Acquire) {
                    pool.trim().unwrap();
                    pool.reclaim();
                    std::thread::sleep(Duration::from_micros(200));
                }
            });
            // Joined before the trimmer is told to stop, and only then checked: a panicking
            // worker must not leave the trimmer spinning.
            let joined: Vec<_> = workers.into_iter().map(|worker| worker.join()).collect();
            done.store(true, std::sync::atomic::Ordering::Release);
            for result in joined {
                if let Err(panic) = result {
                    std::panic::resume_unwind(panic);
                }
            }
        });
        println!(
            "pool race: {} out-of-memory errors, stats {:?}",
            out_of_memory.load(std::sync::atomic::Ordering::Relaxed),
            pool.stats()
        );
        while pool.reclaim() > 0 {}
        assert_eq!(harness.counter("residency_violations"), 0);
        assert_eq!(harness.counter("free_hazards"), 0);
        assert_eq!(harness.counter("destroy_hazards"), 0);
        drop((pool, manager));
        harness.assert_clean();
    });
}

/// Completions are shared across threads: one thread waits on a copy another started.
#[test]
fn a_completion_is_waited_on_from_another_thread() {
    let harness = Harness::with_config(config("b70x2"));
    let devices = harness.runtime.devices().unwrap();
    let context = Context::new(&devices).unwrap();
    let list = context
        .immediate_list(&devices[0].preferred_copy_engine().unwrap())
        .unwrap();
    let pending = list
        .copy_async(
            context.alloc_host(SIZE, 0).unwrap(),
            context.alloc_device(&devices[0], SIZE, 0).unwrap(),
        )
        .unwrap();
    let completion: Arc<Completion> = pending.completion();
    std::thread::spawn(move || completion.wait().unwrap())
        .join()
        .unwrap();
    assert!(pending.is_complete().unwrap());
    drop((pending, list, context));
    harness.assert_clean();
}
