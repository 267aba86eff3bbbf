//! Model-based property test: random sequences of allocate / write / copy / ensure / evict /
//! free / enable / disable over 2-4 devices and every policy. After every step the library's
//! residency view and host cost equal the simulator's accounting, copied bytes arrive intact,
//! and at the end everything returns to zero.

use crate::common::Harness;
use lazy_usm::*;
use proptest::prelude::*;

#[derive(Debug, Clone)]
enum Op {
    Allocate {
        device: usize,
        kib: usize,
        policy: usize,
    },
    Write {
        target: usize,
        seed: u8,
    },
    Copy {
        dst: usize,
        src: usize,
        offset: usize,
    },
    Ensure {
        target: usize,
        device: usize,
    },
    Evict {
        target: usize,
        device: usize,
    },
    Free {
        target: usize,
    },
    Enable {
        accessor: usize,
        owner: usize,
    },
    Disable {
        accessor: usize,
        owner: usize,
    },
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => (0..4usize, 1..96usize, 0..5usize).prop_map(|(device, kib, policy)| Op::Allocate { device, kib, policy }),
        2 => (any::<usize>(), any::<u8>()).prop_map(|(target, seed)| Op::Write { target, seed }),
        4 => (any::<usize>(), any::<usize>(), 0..4096usize).prop_map(|(dst, src, offset)| Op::Copy { dst, src, offset }),
        1 => (any::<usize>(), 0..4usize).prop_map(|(target, device)| Op::Ensure { target, device }),
        1 => (any::<usize>(), 0..4usize).prop_map(|(target, device)| Op::Evict { target, device }),
        1 => any::<usize>().prop_map(|target| Op::Free { target }),
        1 => (0..4usize, 0..4usize).prop_map(|(accessor, owner)| Op::Enable { accessor, owner }),
        1 => (0..4usize, 0..4usize).prop_map(|(accessor, owner)| Op::Disable { accessor, owner }),
    ]
}

/// Three B70s, one pair of them behind a corrupting switch: a 3-device case with every link kind.
fn three_devices() -> ze_sim::SimConfig {
    let mut config = ze_sim::SimConfig::preset("b70x2").unwrap();
    let mut third = config.devices[1].clone();
    third.pci_address = "0000:16:00.0".into();
    config.devices.push(third);
    config.links = vec![
        ze_sim::LinkConfig {
            devices: [0, 2],
            kind: ze_sim::LinkKind::Refused,
        },
        ze_sim::LinkConfig {
            devices: [1, 2],
            kind: ze_sim::LinkKind::Corrupt,
        },
    ];
    config.name = "three".into();
    config
}

fn platform(choice: usize) -> (Harness, bool) {
    match choice {
        0 => (Harness::simulated("b70x2"), true),
        1 => (Harness::simulated("b70x2-26.05"), false),
        2 => (Harness::simulated("b60x4-refused"), true),
        _ => (Harness::with_config(three_devices()), true),
    }
}

/// The library's view equals the simulator's accounting.
fn check_accounting(
    harness: &Harness,
    manager: &ResidencyManager,
    pinned_mirror: bool,
    live: &[(DeviceAllocation, Vec<u8>)],
) {
    let cost = manager.host_cost();
    for (index, device) in cost.devices.iter().enumerate() {
        assert_eq!(
            harness.gtt(index as u32),
            device.current_bytes,
            "GTT of device {index}"
        );
    }
    let expected_pinned = cost.staging_bytes + if pinned_mirror { cost.current_bytes } else { 0 };
    assert_eq!(harness.host_pinned(), expected_pinned, "host pinned");
    let from_allocations: u64 = live
        .iter()
        .map(|(allocation, _)| {
            allocation.resident().without(allocation.owner()).len() as u64 * allocation.len() as u64
        })
        .sum();
    assert_eq!(
        cost.current_bytes, from_allocations,
        "host cost = sum of peer residencies"
    );
    for (allocation, _) in live {
        assert!(
            allocation.resident().contains(allocation.owner()),
            "resident on its owner"
        );
    }
    assert_eq!(harness.counter("residency_violations"), 0);
    assert!(cost.peak_bytes >= cost.current_bytes);
}

fn run(platform_choice: usize, manager_policy: usize, budget: Option<u64>, ops: Vec<Op>) {
    let (harness, pinned_mirror) = platform(platform_choice);
    let devices = harness.runtime.devices().unwrap();
    let count = devices.len();
    let config = ResidencyConfig {
        host_budget: budget,
        staging_chunk: 16 * 1024,
        ..ResidencyConfig::new(Policy::ALL[manager_policy])
    };
    let manager = ResidencyManager::new(Context::new(&devices).unwrap(), config).unwrap();
    let mut live: Vec<(DeviceAllocation, Vec<u8>)> = Vec::new();
    for op in ops {
        match op {
            Op::Allocate {
                device,
                kib,
                policy,
            } => {
                let device = &devices[device % count];
                let allocation = if policy < 4 {
                    manager.allocate_with(device, kib * 1024, Policy::ALL[policy])
                } else {
                    manager.allocate(device, kib * 1024)
                };
                match allocation {
                    Ok(allocation) => {
                        let size = allocation.len();
                        live.push((allocation, vec![0; size]));
                    }
                    Err(Error::HostBudgetExceeded { .. }) => assert!(budget.is_some()),
                    Err(error) => panic!("allocate: {error}"),
                }
            }
            Op::Write { target, seed } if !live.is_empty() => {
                let index = target % live.len();
                let (allocation, model) = &mut live[index];
                let data: Vec<u8> = (0..model.len())
                    .map(|i| (i as u8).wrapping_mul(seed) ^ seed)
                    .collect();
                manager.write(allocation, 0, &data).unwrap();
                *model = data;
            }
            Op::Copy { dst, src, offset } if live.len() >= 2 => {
                let (dst, src) = (dst % live.len(), src % live.len());
                if dst == src {
                    continue;
                }
                let len = live[dst].1.len().min(live[src].1.len());
                let offset = offset % len;
                let len = len - offset;
                let (target, source) = if dst < src {
                    let (left, right) = live.split_at_mut(src);
                    (&mut left[dst], &right[0])
                } else {
                    let (left, right) = live.split_at_mut(dst);
                    (&mut right[0], &left[src])
                };
                manager
                    .copy(&mut target.0, offset, &source.0, offset, len)
                    .unwrap();
                target.1[offset..offset + len].copy_from_slice(&source.1[offset..offset + len]);
                let mut back = vec![0; target.1.len()];
                manager.read(&target.0, 0, &mut back).unwrap();
                assert!(back == target.1, "copied bytes arrive intact");
            }
            Op::Ensure { target, device } if !live.is_empty() => {
                let allocation = &live[target % live.len()].0;
                match manager.ensure_resident_on(allocation, &devices[device % count]) {
                    Ok(()) => assert!(allocation.resident().contains((device % count) as u32)),
                    Err(Error::HostBudgetExceeded { .. }) => assert!(budget.is_some()),
                    Err(error) => panic!("ensure: {error}"),
                }
            }
            Op::Evict { target, device } if !live.is_empty() => {
                let allocation = &live[target % live.len()].0;
                let device = (device % count) as u32;
                let result = manager.evict_from(allocation, &devices[device as usize]);
                if device == allocation.owner() {
                    assert!(result.is_err());
                } else {
                    result.unwrap();
                    assert!(!allocation.resident().contains(device));
                }
            }
            Op::Free { target } if !live.is_empty() => {
                let index = target % live.len();
                live.swap_remove(index);
            }
            Op::Enable { accessor, owner } => {
                manager
                    .enable_peer_access(&devices[accessor % count], &devices[owner % count])
                    .unwrap();
            }
            Op::Disable { accessor, owner } => {
                manager
                    .disable_peer_access(&devices[accessor % count], &devices[owner % count])
                    .unwrap();
            }
            _ => continue,
        }
        check_accounting(&harness, &manager, pinned_mirror, &live);
        if let Some(budget) = budget {
            assert!(
                manager.host_cost().current_bytes <= budget,
                "within the budget"
            );
        }
    }
    drop(live);
    assert_eq!(manager.host_cost().current_bytes, 0);
    drop(manager);
    harness.assert_clean();
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, failure_persistence: crate::common::regressions_beside_source(), ..ProptestConfig::default() })]

    #[test]
    fn residency_matches_the_simulator(
        platform_choice in 0..4usize,
        manager_policy in 0..4usize,
        budget in prop_oneof![Just(None), (64..512u64).prop_map(|kib| Some(kib * 1024))],
        ops in prop::collection::vec(op(), 1..32),
    ) {
        run(platform_choice, manager_policy, budget, ops);
    }
}
