//! The pointer registry against a plain model, from several threads, and the manager's
//! allocations found and made resident by raw pointer.

use crate::common::{Harness, run_with_timeout};
use lazy_usm::*;
use proptest::prelude::*;
use std::collections::BTreeMap;
use std::time::Duration;

#[derive(Debug, Clone)]
enum Operation {
    Insert { base: usize, size: usize },
    Remove { base: usize },
    Find { address: usize },
}

fn operation() -> impl Strategy<Value = Operation> {
    // Addresses in a 16 MiB space so that ranges collide, straddle the registry's windows and
    // neighbour.
    let address = 0usize..(16 << 20);
    let size = prop_oneof![1usize..64, 1usize..(4 << 20)];
    prop_oneof![
        (address.clone(), size).prop_map(|(base, size)| Operation::Insert { base, size }),
        address.clone().prop_map(|base| Operation::Remove { base }),
        address.prop_map(|address| Operation::Find { address }),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 200,
        failure_persistence: crate::common::regressions_beside_source(),
        ..ProptestConfig::default()
    })]
    #[test]
    fn the_registry_answers_as_a_list_of_ranges_would(operations in prop::collection::vec(operation(), 1..200)) {
        let registry = PointerRegistry::new();
        let mut model: BTreeMap<usize, usize> = BTreeMap::new();
        for (step, operation) in operations.into_iter().enumerate() {
            match operation {
                Operation::Insert { base, size } => {
                    let overlaps = model.iter().any(|(&other, &length)| other < base + size && base < other + length);
                    let result = registry.insert(base, size, step);
                    prop_assert_eq!(result.is_ok(), !overlaps, "insert {:#x}+{}", base, size);
                    if !overlaps {
                        model.insert(base, size);
                    }
                }
                Operation::Remove { base } => {
                    let removed = registry.remove(base).map(|entry| (entry.base, entry.size));
                    prop_assert_eq!(removed, model.remove(&base).map(|size| (base, size)));
                }
                Operation::Find { address } => {
                    let expected = model.range(..=address).next_back()
                        .filter(|&(&base, &size)| address - base < size)
                        .map(|(&base, &size)| (base, size));
                    let found = registry.find(address).map(|entry| (entry.base, entry.size));
                    prop_assert_eq!(found, expected, "find {:#x}", address);
                }
            }
            prop_assert_eq!(registry.len(), model.len());
        }
    }
}

#[test]
fn threads_registering_removing_and_finding_see_only_live_ranges() {
    run_with_timeout(Duration::from_secs(60), || {
        let registry = PointerRegistry::new();
        std::thread::scope(|scope| {
            for thread in 0..4usize {
                let registry = &registry;
                scope.spawn(move || {
                    // Each thread owns its own 1 GiB slice (its ranges reach 296 MiB into it);
                    // ranges straddle windows.
                    let start = (thread + 1) << 30;
                    for round in 0..2_000usize {
                        let base = start + (round % 97) * (3 << 20) + round % 13;
                        let size = 1 + (round * 7919) % (5 << 20);
                        if registry.insert(base, size, (thread, round)).is_ok() {
                            let found = registry.find(base + size / 2).expect("just registered");
                            assert_eq!(found.value, (thread, round));
                            assert_eq!(
                                registry.remove(base).map(|entry| entry.value),
                                Some((thread, round))
                            );
                            assert!(
                                registry
                                    .find(base)
                                    .is_none_or(|entry| entry.value.0 == thread)
                            );
                        }
                    }
                });
            }
        });
        assert!(registry.is_empty());
    });
}

/// Readers that keep copies of the registry's buckets (every lookup thread does) while one
/// writer grows the table and replaces ranges: every answer is a range that was live with its
/// own value, a reader never goes back to an older state of a range once it saw the newer one
/// (its copies only move forward), and once the writer is done every reader sees exactly its
/// final state.
#[test]
fn readers_copies_follow_a_writer_that_grows_the_table_and_replaces_ranges() {
    run_with_timeout(Duration::from_secs(60), || {
        const RANGES: usize = 3_000;
        const OLD: usize = 0x2_0000;
        const NEW: usize = 0x1_0000;
        let registry: PointerRegistry<(usize, usize, u8)> = PointerRegistry::new();
        let base = |index: usize| 0x5000_0000usize + index * 0x3_0000;
        // Present before the readers start, so each takes copies of the first table.
        registry
            .insert(base(RANGES), 16, (base(RANGES), 16, 0))
            .unwrap();
        let writing = std::sync::atomic::AtomicBool::new(true);
        let (started, done) = (std::sync::Barrier::new(4), std::sync::Barrier::new(4));
        std::thread::scope(|scope| {
            for reader in 0..3usize {
                let (registry, writing, started, done) = (&registry, &writing, &started, &done);
                scope.spawn(move || {
                    assert!(registry.find(base(RANGES) + 8).is_some());
                    started.wait();
                    let mut newest_seen = vec![false; RANGES];
                    let mut step = reader;
                    while writing.load(std::sync::atomic::Ordering::Acquire) {
                        step = step
                            .wrapping_mul(6364136223846793005)
                            .wrapping_add(1442695040888963407);
                        let index = (step >> 20) % RANGES;
                        let offset = (step >> 8) % OLD;
                        let found = registry.find(base(index) + offset);
                        if let Some(entry) = &found {
                            assert_eq!((entry.value.0, entry.value.1), (entry.base, entry.size));
                        }
                        let tag = found.as_ref().map(|entry| entry.value.2);
                        if newest_seen[index] {
                            // The newer range is never removed: once seen it is all there is.
                            assert_eq!(tag, (offset < NEW).then_some(1), "range {index}");
                        }
                        newest_seen[index] |= tag == Some(1);
                    }
                    done.wait();
                    for index in 0..RANGES {
                        let entry = registry.find(base(index) + 0x100).expect("final range");
                        assert_eq!(entry.value, (base(index), NEW, 1), "range {index}");
                        assert!(registry.find(base(index) + NEW).is_none(), "range {index}");
                    }
                });
            }
            started.wait();
            // First ranges of 0x2_0000 bytes (the table grows meanwhile), then each replaced by
            // one half its size at the same start.
            for index in 0..RANGES {
                registry
                    .insert(base(index), OLD, (base(index), OLD, 0))
                    .unwrap();
            }
            for index in 0..RANGES {
                registry.remove(base(index)).unwrap();
                registry
                    .insert(base(index), NEW, (base(index), NEW, 1))
                    .unwrap();
            }
            writing.store(false, std::sync::atomic::Ordering::Release);
            done.wait();
        });
        assert_eq!(registry.len(), RANGES + 1);
    });
}

#[test]
fn a_removal_racing_a_registration_of_the_same_start_leaves_no_half_entry() {
    run_with_timeout(Duration::from_secs(60), || {
        let registry = PointerRegistry::new();
        // 9 MiB, starting 1 MiB before a 256 MiB boundary (the window of its size): it lies in
        // two windows, so a removal could land between them.
        let base = 0x4000_0000usize - (1 << 20);
        let size = 9 << 20;
        for _ in 0..2_000 {
            std::thread::scope(|scope| {
                scope.spawn(|| {
                    let _ = registry.insert(base, size, 1u8);
                });
                scope.spawn(|| {
                    registry.remove(base);
                });
            });
            // Either the whole range is registered or none of it is.
            let registered = registry.len() == 1;
            for offset in (0..size).step_by(2 << 20) {
                assert_eq!(registry.find(base + offset).is_some(), registered);
            }
            registry.remove(base);
            assert!(registry.is_empty() && registry.find(base).is_none());
        }
    });
}

#[test]
fn manager_allocations_are_found_made_resident_and_evicted_by_pointer() {
    let harness = Harness::simulated("b70x2");
    let runtime = harness.runtime.clone();
    let devices = runtime.devices().unwrap();
    let manager = ResidencyManager::new(
        Context::new(&devices).unwrap(),
        ResidencyConfig::new(Policy::Lazy),
    )
    .unwrap();
    let allocation = manager.allocate(&devices[0], 3 << 20).unwrap();
    let pool = DevicePool::new(&manager, &devices[1], PoolConfig::default()).unwrap();
    let block = pool.allocate(1000).unwrap();
    let target = manager.find(allocation.address() + (2 << 20) + 5).unwrap();
    assert_eq!(
        (target.base, target.size, target.owner),
        (allocation.address(), 3 << 20, 0)
    );
    assert_eq!(target.resident, DeviceSet::single(0).unwrap());
    // A pool block resolves to the segment holding it, owned by the pool's device.
    let segment = manager.find(block.address() + 999).unwrap();
    assert_eq!(segment.owner, 1);
    assert!(
        segment.base <= block.address() && block.address() + 1000 <= segment.base + segment.size
    );
    manager
        .ensure_resident_at(allocation.address() + 17, &devices[1])
        .unwrap();
    assert!(allocation.resident().contains(1));
    assert_eq!(runtime.simulator().unwrap().host_pinned_bytes(), 3 << 20);
    manager.evict_at(allocation.address(), &devices[1]).unwrap();
    assert_eq!(runtime.simulator().unwrap().host_pinned_bytes(), 0);
    let address = allocation.address();
    drop(allocation);
    assert!(
        manager.find(address).is_none(),
        "a freed allocation is forgotten"
    );
    assert!(matches!(
        manager.ensure_resident_at(address, &devices[1]),
        Err(Error::UnknownPointer { .. })
    ));
    drop(block);
    drop(pool);
    drop(manager);
    harness.assert_clean();
}

#[test]
fn residency_by_pointer_racing_frees_never_touches_freed_memory() {
    run_with_timeout(Duration::from_secs(60), || {
        let harness = Harness::simulated("b70x2");
        let runtime = harness.runtime.clone();
        let devices = runtime.devices().unwrap();
        let manager = ResidencyManager::new(
            Context::new(&devices).unwrap(),
            ResidencyConfig::new(Policy::Lazy),
        )
        .unwrap();
        for _ in 0..300 {
            let allocation = manager.allocate(&devices[0], 64 << 10).unwrap();
            let address = allocation.address();
            let start = std::sync::Barrier::new(2);
            std::thread::scope(|scope| {
                let (start, manager, devices) = (&start, &manager, &devices);
                let ensure = scope.spawn(move || {
                    start.wait();
                    for offset in 0..20 {
                        match manager.ensure_resident_at(address + offset, &devices[1]) {
                            Ok(()) | Err(Error::UnknownPointer { .. }) => {}
                            Err(error) => panic!("{error}"),
                        }
                    }
                });
                start.wait();
                drop(allocation);
                ensure.join().unwrap();
            });
        }
        assert_eq!(manager.host_cost().current_bytes, 0);
        assert_eq!(runtime.simulator().unwrap().host_pinned_bytes(), 0);
        drop(manager);
        harness.assert_clean();
    });
}
