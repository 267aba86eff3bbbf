//! Residency policies against the simulator's accounting: seed 000's workload, lazy first use,
//! mirror modes, refused and corrupting links, peer-access switches, the host budget.

use crate::common::{Harness, Random};
use lazy_usm::*;

const MIB: usize = 1 << 20;
const GIB: usize = 1 << 30;

fn manager(harness: &Harness, config: ResidencyConfig) -> (ResidencyManager, Vec<Device>) {
    let devices = harness.runtime.devices().unwrap();
    let manager = ResidencyManager::new(Context::new(&devices).unwrap(), config).unwrap();
    (manager, devices)
}

/// Seed 000: 4 GiB on each of two devices, nothing shared. Eager pays 8 GiB of pinned host
/// memory and 4 GiB of GTT per device; the other policies pay nothing.
fn seed000_workload_per_policy(harness: &Harness) {
    for policy in Policy::ALL {
        let (manager, devices) = manager(harness, ResidencyConfig::new(policy));
        let held: Vec<_> = devices
            .iter()
            .map(|device| manager.allocate(device, 4 * GIB).unwrap())
            .collect();
        let cost = manager.host_cost();
        let (expected_total, expected_gtt) = if policy == Policy::Eager {
            (8 * GIB as u64, 4 * GIB as u64)
        } else {
            (0, 0)
        };
        assert_eq!(cost.current_bytes, expected_total, "{policy:?}");
        assert_eq!(
            harness.host_pinned(),
            expected_total,
            "{policy:?}: pinned mirror"
        );
        for (index, device_cost) in cost.devices.iter().enumerate() {
            assert_eq!(
                device_cost.current_bytes, expected_gtt,
                "{policy:?} device {index}"
            );
            assert_eq!(
                harness.gtt(index as u32),
                expected_gtt,
                "{policy:?} device {index} GTT"
            );
        }
        drop(held);
        assert_eq!(manager.host_cost().current_bytes, 0);
        assert_eq!(harness.host_pinned(), 0);
    }
    harness.assert_clean();
}
on_both_paths!(seed000_workload_per_policy, "b70x2");

/// compute-runtime 26.05: the same workload grows GTT but pins nothing.
fn registered_mirror_pins_nothing(harness: &Harness) {
    let (manager, devices) = manager(harness, ResidencyConfig::new(Policy::Eager));
    let held: Vec<_> = devices
        .iter()
        .map(|device| manager.allocate(device, GIB).unwrap())
        .collect();
    assert_eq!(manager.host_cost().current_bytes, 2 * GIB as u64);
    assert_eq!(harness.gtt(0), GIB as u64);
    assert_eq!(harness.host_pinned(), 0);
    drop((held, manager));
    harness.assert_clean();
}
on_both_paths!(registered_mirror_pins_nothing, "b70x2-26.05");

/// A driver that refuses to evict a peer's import (every release up to 26.31): the eviction
/// fails with the driver's error, and the manager still counts the residency, so nothing is
/// lost track of; freeing the memory releases it.
fn a_refused_eviction_keeps_the_residency_counted(harness: &Harness) {
    let (manager, devices) = manager(harness, ResidencyConfig::new(Policy::Manual));
    let allocation = manager.allocate(&devices[0], 64 * MIB).unwrap();
    manager
        .ensure_resident_on(&allocation, &devices[1])
        .unwrap();
    let pinned = harness.host_pinned();
    assert_eq!(pinned, 64 * MIB as u64);
    let cost = manager.host_cost();
    let error = manager.evict_from(&allocation, &devices[1]).unwrap_err();
    assert!(
        error
            .to_string()
            .contains("ZE_RESULT_ERROR_INVALID_ARGUMENT"),
        "{error}"
    );
    assert!(
        allocation.resident().contains(1),
        "still resident on device 1"
    );
    assert_eq!(manager.host_cost().current_bytes, cost.current_bytes);
    assert_eq!(harness.host_pinned(), pinned, "the driver released nothing");
    drop(allocation);
    assert_eq!(harness.host_pinned(), 0, "freeing the memory released it");
    drop(manager);
    harness.assert_clean();
}
on_both_paths!(
    a_refused_eviction_keeps_the_residency_counted,
    "b70x2-26.31"
);

/// One 256 MiB allocation copied to the peer: `Lazy` pays exactly 256 MiB, once, however many
/// copies follow.
fn lazy_pays_once_on_first_use(harness: &Harness) {
    let (manager, devices) = manager(harness, ResidencyConfig::new(Policy::Lazy));
    let mut source = manager.allocate(&devices[0], 256 * MIB).unwrap();
    let mut target = manager.allocate(&devices[1], 256 * MIB).unwrap();
    let data = Random::new(1).bytes(MIB);
    manager.write(&mut source, 5 * MIB, &data).unwrap();
    assert_eq!(manager.host_cost().current_bytes, 0);
    assert_eq!(
        manager.copy(&mut target, 0, &source, 0, 256 * MIB).unwrap(),
        CopyPath::PeerToPeer
    );
    let calls = harness.counter("make_resident_calls");
    assert_eq!(manager.host_cost().current_bytes, 256 * MIB as u64);
    assert_eq!(harness.host_pinned(), 256 * MIB as u64);
    assert_eq!(
        source.resident(),
        DeviceSet::single(0).unwrap().with(1).unwrap()
    );
    for round in 0..5 {
        let path = manager
            .copy(&mut target, round * MIB, &source, 5 * MIB, MIB)
            .unwrap();
        assert_eq!(path, CopyPath::PeerToPeer);
    }
    assert_eq!(
        harness.counter("make_resident_calls"),
        calls,
        "no further residency calls"
    );
    assert_eq!(manager.host_cost().current_bytes, 256 * MIB as u64);
    let mut back = vec![0; MIB];
    manager.read(&target, 4 * MIB, &mut back).unwrap();
    assert!(back == data);
    // The pull direction: copying back makes the target resident on device 0.
    manager.copy(&mut source, 0, &target, 0, MIB).unwrap();
    assert_eq!(manager.host_cost().current_bytes, 512 * MIB as u64);
    assert_eq!(
        manager.host_cost().devices[0].current_bytes,
        256 * MIB as u64
    );
    manager.evict_from(&source, &devices[1]).unwrap();
    assert_eq!(manager.host_cost().current_bytes, 256 * MIB as u64);
    assert!(
        manager.evict_from(&source, &devices[0]).is_err(),
        "the owner cannot be evicted"
    );
    drop((source, target, manager));
    harness.assert_clean();
}
on_both_paths!(lazy_pays_once_on_first_use, "b70x2");

/// `b60x4-refused`: no P2P between separate root ports; every pair copies correctly, staged, at no
/// residency cost.
fn refused_pairs_are_staged_and_correct(harness: &Harness) {
    let mut config = ResidencyConfig::new(Policy::Lazy);
    config.staging_chunk = 64 * 1024;
    let (manager, devices) = manager(harness, config);
    let size = 300 * 1024 + 17; // several chunks, the last one short
    let mut random = Random::new(4);
    let mut allocations: Vec<_> = devices
        .iter()
        .map(|device| manager.allocate(device, size).unwrap())
        .collect();
    let contents: Vec<Vec<u8>> = (0..devices.len()).map(|_| random.bytes(size)).collect();
    for (allocation, data) in allocations.iter_mut().zip(&contents) {
        manager.write(allocation, 0, data).unwrap();
    }
    for from in 0..devices.len() {
        for (to, device) in devices.iter().enumerate() {
            if from == to {
                continue;
            }
            let mut target = manager.allocate(device, size).unwrap();
            let path = manager
                .copy(&mut target, 0, &allocations[from], 0, size)
                .unwrap();
            assert_eq!(path, CopyPath::Staged, "{from} -> {to}");
            let mut back = vec![0; size];
            manager.read(&target, 0, &mut back).unwrap();
            assert!(back == contents[from], "{from} -> {to}");
        }
    }
    let cost = manager.host_cost();
    assert_eq!(cost.current_bytes, 0);
    assert_eq!(cost.staging_bytes, 128 * 1024);
    assert_eq!(
        harness.host_pinned(),
        128 * 1024,
        "only the bounce buffer is pinned"
    );
    drop((allocations, manager));
    harness.assert_clean();
}
on_both_paths!(refused_pairs_are_staged_and_correct, "b60x4-refused");

/// `b70x2-acs`: the pair claims P2P but corrupts data; the self-test catches it and copies are
/// staged and correct.
fn corrupt_links_are_caught_by_the_self_test(harness: &Harness) {
    let (manager, devices) = manager(harness, ResidencyConfig::new(Policy::Lazy));
    let size = 3 * MIB;
    let data = Random::new(5).bytes(size);
    let mut source = manager.allocate(&devices[0], size).unwrap();
    let mut target = manager.allocate(&devices[1], size).unwrap();
    manager.write(&mut source, 0, &data).unwrap();
    assert_eq!(
        manager.copy(&mut target, 0, &source, 0, size).unwrap(),
        CopyPath::Staged
    );
    let mut back = vec![0; size];
    manager.read(&target, 0, &mut back).unwrap();
    assert!(back == data, "the bytes are right despite the link");
    assert_eq!(
        harness.counter("corrupt_copies"),
        1,
        "only the self-test crossed the link"
    );
    assert_eq!(
        manager.host_cost().current_bytes,
        0,
        "no residency kept for a corrupt link"
    );
    assert!(!manager.self_test(&devices[1], &devices[0]).unwrap());
    drop((source, target, manager));
    harness.assert_clean();
}
on_both_paths!(corrupt_links_are_caught_by_the_self_test, "b70x2-acs");

#[test]
fn without_the_self_test_a_corrupt_link_is_trusted() {
    let harness = Harness::simulated("b70x2-acs");
    let config = ResidencyConfig {
        self_test: SelfTest::Off,
        ..ResidencyConfig::new(Policy::Lazy)
    };
    let (manager, devices) = manager(&harness, config);
    let mut source = manager.allocate(&devices[0], 4096).unwrap();
    let mut target = manager.allocate(&devices[1], 4096).unwrap();
    manager.write(&mut source, 0, &[1; 4096]).unwrap();
    assert_eq!(
        manager.copy(&mut target, 0, &source, 0, 4096).unwrap(),
        CopyPath::PeerToPeer
    );
    let mut back = vec![0; 4096];
    manager.read(&target, 0, &mut back).unwrap();
    assert_eq!(
        back,
        vec![0xff; 4096],
        "what the self-test exists to prevent"
    );
    drop((source, target, manager));
    harness.assert_clean();
}

#[test]
fn peer_enabled_stages_until_enabled_and_evicts_when_disabled() {
    let harness = Harness::simulated("b70x2");
    let (manager, devices) = manager(&harness, ResidencyConfig::new(Policy::PeerEnabled));
    let source = manager.allocate(&devices[0], 8 * MIB).unwrap();
    let mut target = manager.allocate(&devices[1], 8 * MIB).unwrap();
    assert_eq!(
        manager.copy(&mut target, 0, &source, 0, 8 * MIB).unwrap(),
        CopyPath::Staged
    );
    assert_eq!(manager.host_cost().current_bytes, 0);
    manager
        .enable_peer_access(&devices[1], &devices[0])
        .unwrap();
    assert!(
        manager
            .peer_access_enabled(&devices[1], &devices[0])
            .unwrap()
    );
    assert!(
        !manager
            .peer_access_enabled(&devices[0], &devices[1])
            .unwrap(),
        "one direction"
    );
    assert_eq!(
        manager.copy(&mut target, 0, &source, 0, 8 * MIB).unwrap(),
        CopyPath::PeerToPeer
    );
    assert_eq!(manager.host_cost().current_bytes, 8 * MIB as u64);
    manager
        .disable_peer_access(&devices[1], &devices[0])
        .unwrap();
    assert_eq!(manager.host_cost().current_bytes, 0);
    assert_eq!(source.resident(), DeviceSet::single(0).unwrap());
    assert_eq!(
        manager.copy(&mut target, 0, &source, 0, 8 * MIB).unwrap(),
        CopyPath::Staged
    );
    drop((source, target, manager));
    harness.assert_clean();
}

#[test]
fn manual_uses_p2p_only_where_the_program_made_memory_resident() {
    let harness = Harness::simulated("b70x2");
    let (manager, devices) = manager(&harness, ResidencyConfig::new(Policy::Manual));
    let source = manager.allocate(&devices[0], MIB).unwrap();
    let mut target = manager.allocate(&devices[1], MIB).unwrap();
    assert_eq!(
        manager.copy(&mut target, 0, &source, 0, MIB).unwrap(),
        CopyPath::Staged
    );
    manager
        .ensure_resident_batch(&[&source], &devices[1])
        .unwrap();
    assert_eq!(
        manager.copy(&mut target, 0, &source, 0, MIB).unwrap(),
        CopyPath::PeerToPeer
    );
    // A per-allocation override: this one is lazy under a manual manager.
    let lazy = manager
        .allocate_with(&devices[0], MIB, Policy::Lazy)
        .unwrap();
    assert_eq!(
        manager.copy(&mut target, 0, &lazy, 0, MIB).unwrap(),
        CopyPath::PeerToPeer
    );
    assert_eq!(manager.host_cost().current_bytes, 2 * MIB as u64);
    drop((source, target, lazy, manager));
    harness.assert_clean();
}

/// A workload that would exceed the budget stays within it (least recently used residencies are
/// evicted, then copies stage) and stays correct.
#[test]
fn the_host_budget_is_never_exceeded() {
    let harness = Harness::simulated("b70x2");
    let budget = 512 * MIB as u64;
    let config = ResidencyConfig {
        host_budget: Some(budget),
        ..ResidencyConfig::new(Policy::Lazy)
    };
    let (manager, devices) = manager(&harness, config);
    let mut random = Random::new(7);
    let mut sources = Vec::new();
    let mut contents = Vec::new();
    for _ in 0..3 {
        let mut source = manager.allocate(&devices[0], 256 * MIB).unwrap();
        let data = random.bytes(MIB);
        manager.write(&mut source, 0, &data).unwrap();
        sources.push(source);
        contents.push(data);
    }
    let mut target = manager.allocate(&devices[1], MIB).unwrap();
    for round in 0..2 {
        for (source, data) in sources.iter().zip(&contents) {
            manager.copy(&mut target, 0, source, 0, MIB).unwrap();
            let mut back = vec![0; MIB];
            manager.read(&target, 0, &mut back).unwrap();
            assert!(back == *data, "round {round}");
            assert!(manager.host_cost().current_bytes <= budget);
        }
    }
    let cost = manager.host_cost();
    assert!(
        cost.peak_bytes <= budget,
        "peak {} over budget {budget}",
        cost.peak_bytes
    );
    assert!(harness.host_pinned() <= budget);
    assert!(
        cost.evict_calls > 0,
        "least recently used residencies were evicted"
    );
    // An explicit request that cannot fit is an error, not a silent overrun.
    let big = manager.allocate(&devices[0], 600 * MIB).unwrap();
    let error = manager.ensure_resident_on(&big, &devices[1]).unwrap_err();
    assert!(
        matches!(error, Error::HostBudgetExceeded { needed, .. } if needed == 600 * MIB as u64),
        "{error}"
    );
    // And an automatic one stages instead.
    let mut landing = manager.allocate(&devices[1], 600 * MIB).unwrap();
    assert_eq!(
        manager.copy(&mut landing, 0, &big, 0, MIB).unwrap(),
        CopyPath::Staged
    );
    drop((sources, target, big, landing, manager));
    harness.assert_clean();
}

#[test]
fn allocations_of_another_manager_or_device_are_refused() {
    let harness = Harness::simulated("b70x2");
    let (first, devices) = manager(&harness, ResidencyConfig::default());
    let second = ResidencyManager::new(
        Context::new(&devices[..1]).unwrap(),
        ResidencyConfig::default(),
    )
    .unwrap();
    let mine = first.allocate(&devices[0], 4096).unwrap();
    assert!(matches!(
        second.ensure_resident_on(&mine, &devices[0]),
        Err(Error::ForeignMemory {
            owner: "another residency manager",
            ..
        })
    ));
    assert!(matches!(
        second.allocate(&devices[1], 4096),
        Err(Error::DeviceNotInContext { device: 1, .. })
    ));
    let mut other = second.allocate(&devices[0], 4096).unwrap();
    assert!(matches!(
        first.copy(&mut other, 0, &mine, 0, 16),
        Err(Error::ForeignMemory { .. })
    ));
    let mut target = first.allocate(&devices[1], 4096).unwrap();
    assert!(matches!(
        first.copy(&mut target, 4000, &mine, 0, 100),
        Err(Error::OutOfRange {
            role: "destination",
            offset: 4000,
            len: 100,
            size: 4096
        })
    ));
    drop((mine, other, target, first, second));
    harness.assert_clean();
}
