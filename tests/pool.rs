//! The caching pool: reuse, the three size paths, peer hints and collateral residency, reuse
//! after pending work, out of memory, trim, and the trace goals.

use crate::common::{Harness, Random};
use lazy_usm::trace::{TraceOp, ddp, serving};
use lazy_usm::*;
use std::collections::HashMap;

const MIB: usize = 1 << 20;

fn setup(harness: &Harness, policy: Policy) -> (ResidencyManager, Vec<Device>) {
    let devices = harness.runtime.devices().unwrap();
    let manager = ResidencyManager::new(
        Context::new(&devices).unwrap(),
        ResidencyConfig::new(policy),
    )
    .unwrap();
    (manager, devices)
}

#[test]
fn blocks_are_reused_and_stats_add_up() {
    let harness = Harness::simulated("b70x2");
    let (manager, devices) = setup(&harness, Policy::Lazy);
    let pool = DevicePool::new(&manager, &devices[0], PoolConfig::default()).unwrap();
    let sizes = [
        1usize,
        255,
        256,
        3000,
        70_000,
        MIB,
        MIB + 1,
        5 * MIB,
        70 * MIB,
    ];
    let blocks: Vec<_> = sizes
        .iter()
        .map(|&size| pool.allocate(size).unwrap())
        .collect();
    for (block, &size) in blocks.iter().zip(&sizes) {
        assert_eq!(block.len(), size);
        assert!(block.capacity() >= size);
        assert_eq!(block.address() % 256, 0, "256-byte aligned");
    }
    let stats = pool.stats();
    let capacities: u64 = blocks.iter().map(|block| block.capacity() as u64).sum();
    assert_eq!(stats.allocated_bytes, capacities);
    assert_eq!(
        stats.cached_bytes,
        stats.reserved_bytes - stats.allocated_bytes
    );
    assert!(stats.reserved_bytes >= stats.allocated_bytes);
    assert_eq!(
        harness.counter("live_allocations"),
        stats.segments,
        "one allocation per segment"
    );
    let addresses: Vec<usize> = blocks.iter().map(Memory::address).collect();
    drop(blocks);
    assert_eq!(pool.stats().allocated_bytes, 0);
    // The same sizes again: every block but the dedicated one is a hit at the same address.
    let again: Vec<_> = sizes
        .iter()
        .map(|&size| pool.allocate(size).unwrap())
        .collect();
    let mut reused: Vec<usize> = again[..3].iter().map(Memory::address).collect();
    let mut first: Vec<usize> = addresses[..3].to_vec();
    reused.sort();
    first.sort();
    assert_eq!(reused, first, "the small blocks come back");
    let stats = pool.stats();
    assert!(stats.hits >= 6, "{stats:?}");
    drop(again);
    assert!(pool.trim().unwrap() > 0);
    assert_eq!(
        pool.stats().reserved_bytes,
        0,
        "trim released every idle segment"
    );
    drop((pool, manager));
    harness.assert_clean();
}

/// Blocks above the size classes count in the statistics as every other block does: a model
/// whose tensors are all larger than 1 MiB reads its driver allocations, hits and misses.
#[test]
fn statistics_count_large_and_dedicated_blocks() {
    let harness = Harness::simulated("b70x2");
    let (manager, devices) = setup(&harness, Policy::Lazy);
    let pool = DevicePool::new(&manager, &devices[0], PoolConfig::default()).unwrap();
    let sizes = [2 * MIB, 5 * MIB, 70 * MIB];
    let first: Vec<_> = sizes
        .iter()
        .map(|&size| pool.allocate(size).unwrap())
        .collect();
    let stats = pool.stats();
    assert_eq!((stats.hits, stats.misses), (1, 2), "{stats:?}");
    assert_eq!(
        stats.driver_allocations,
        harness.counter("live_allocations")
    );
    assert_eq!(stats.driver_allocations, stats.segments);
    drop(first);
    let again: Vec<_> = sizes
        .iter()
        .map(|&size| pool.allocate(size).unwrap())
        .collect();
    let stats = pool.stats();
    // The large blocks come from the segment kept; the dedicated one is a new segment.
    assert_eq!((stats.hits, stats.misses), (3, 3), "{stats:?}");
    assert_eq!(
        stats.driver_frees, 1,
        "the dedicated segment went with its block"
    );
    assert_eq!(stats.driver_allocations, 3);
    drop(again);
    pool.trim().unwrap();
    let stats = pool.stats();
    assert_eq!(stats.driver_frees, stats.driver_allocations);
    assert_eq!(
        (stats.allocation_retries, stats.out_of_memory_errors),
        (0, 0)
    );
    drop((pool, manager));
    harness.assert_clean();
}

#[test]
fn the_large_path_splits_and_coalesces() {
    let harness = Harness::simulated("b70x2");
    let (manager, devices) = setup(&harness, Policy::Lazy);
    let pool = DevicePool::new(&manager, &devices[0], PoolConfig::default()).unwrap();
    let a = pool.allocate(10 * MIB).unwrap();
    let b = pool.allocate(10 * MIB).unwrap();
    let c = pool.allocate(10 * MIB).unwrap();
    assert_eq!(
        pool.stats().reserved_bytes,
        32 * MIB as u64,
        "three fit one 32 MiB segment"
    );
    assert_eq!(b.address(), a.address() + 10 * MIB);
    drop(a);
    drop(b);
    // The two freed neighbours coalesced: 20 MiB fits where they were.
    let merged = pool.allocate(20 * MIB).unwrap();
    assert_eq!(merged.address(), c.address() - 20 * MIB);
    assert_eq!(pool.stats().segments, 1);
    drop((merged, c));
    drop((pool, manager));
    harness.assert_clean();
}

#[test]
fn hinted_blocks_share_without_new_residency_and_collateral_is_reported() {
    let harness = Harness::simulated("b70x2");
    let (manager, devices) = setup(&harness, Policy::Lazy);
    let pool = DevicePool::new(&manager, &devices[0], PoolConfig::default()).unwrap();
    let mut landing = manager.allocate(&devices[1], 64 * 1024).unwrap();

    // Unhinted: copying one 64 KiB block to the peer makes its whole segment (four blocks of
    // the class, the first time) resident.
    let plain = pool.allocate(64 * 1024).unwrap();
    let path = manager.copy(&mut landing, 0, &plain, 0, 64 * 1024).unwrap();
    assert_eq!(path, CopyPath::PeerToPeer);
    let peer = pool.stats().peers[0];
    assert_eq!(
        (peer.device, peer.resident_bytes, peer.shared_bytes),
        (1, 256 * 1024, 64 * 1024)
    );
    assert_eq!(peer.collateral_bytes, 192 * 1024);

    // Hinted: the segment is resident on the peer from the start; sharing costs no new call.
    let hinted = pool.allocate_for(64 * 1024, &[&devices[1]]).unwrap();
    let calls = harness.counter("make_resident_calls");
    manager
        .copy(&mut landing, 0, &hinted, 0, 64 * 1024)
        .unwrap();
    assert_eq!(harness.counter("make_resident_calls"), calls);
    let second = pool.allocate_for(64 * 1024, &[&devices[1]]).unwrap();
    manager
        .copy(&mut landing, 0, &second, 0, 64 * 1024)
        .unwrap();
    assert_eq!(
        harness.counter("make_resident_calls"),
        calls,
        "the same segment"
    );
    assert!(pool.report(5).contains("resident on device 1"));

    // Trim drops the residency no live shared block needs, but keeps the hinted arena's.
    drop(plain);
    pool.trim().unwrap();
    let peer = pool.stats().peers[0];
    assert_eq!(
        peer.resident_bytes,
        256 * 1024,
        "only the hinted segment remains resident"
    );
    drop((hinted, second, landing));
    drop((pool, manager));
    harness.assert_clean();
}

#[test]
fn a_block_freed_under_a_pending_copy_is_reused_only_after_it() {
    let harness = Harness::simulated("b70x2");
    let (manager, devices) = setup(&harness, Policy::Lazy);
    let pool = DevicePool::new(&manager, &devices[0], PoolConfig::default()).unwrap();
    let context = manager.context();
    let list = context
        .immediate_list(&devices[0].preferred_copy_engine().unwrap())
        .unwrap();
    let gate = std::sync::Arc::new(EventPool::new(context, 1).unwrap().event(0).unwrap());
    let target = pool.allocate(4096).unwrap();
    let source = pool.allocate(4096).unwrap();
    let busy = [target.address(), source.address()];
    let pending = list.copy_async_after(target, source, Some(&gate)).unwrap();
    pending.detach();
    // The copy waits on the gate: neither block may come back while it is pending.
    let held: Vec<_> = (0..64).map(|_| pool.allocate(4096).unwrap()).collect();
    assert!(held.iter().all(|block| !busy.contains(&block.address())));
    drop(held);
    gate.signal().unwrap();
    // Once the copy has completed, both blocks come back.
    let mut reclaimed = 0;
    for _ in 0..10_000 {
        reclaimed += pool.reclaim();
        if reclaimed == 2 {
            break;
        }
        std::thread::sleep(std::time::Duration::from_micros(100));
    }
    assert_eq!(reclaimed, 2, "the blocks came back after the copy");
    let again: Vec<_> = (0..66).map(|_| pool.allocate(4096).unwrap()).collect();
    assert!(
        busy.iter()
            .all(|address| again.iter().any(|block| block.address() == *address))
    );
    drop(again);
    assert_eq!(harness.counter("free_hazards"), 0);
    drop((list, gate, pool, manager));
    harness.assert_clean();
}

#[test]
fn out_of_memory_releases_cached_segments_then_fails_cleanly() {
    let mut config = ze_sim::SimConfig::preset("b70x2").unwrap();
    config.faults.device_memory_limit_bytes = Some(256 * MIB as u64);
    let harness = Harness::with_config(config);
    let (manager, devices) = setup(&harness, Policy::Lazy);
    let pool = DevicePool::new(&manager, &devices[0], PoolConfig::default()).unwrap();
    // Fill the device with cached large segments, then free everything.
    let blocks: Vec<_> = (0..7).map(|_| pool.allocate(30 * MIB).unwrap()).collect();
    drop(blocks);
    assert!(pool.stats().cached_bytes >= 7 * 30 * MIB as u64);
    // A dedicated 200 MiB request fits only once the cache is released: the pool does that.
    let big = pool.allocate(200 * MIB).unwrap();
    assert_eq!(big.len(), 200 * MIB);
    drop(big);
    // More than the device has: the typed error, nothing leaked.
    let error = pool.allocate(300 * MIB).unwrap_err();
    assert!(matches!(error, Error::OutOfDeviceMemory { .. }), "{error}");
    let stats = pool.stats();
    assert_eq!(stats.out_of_memory_errors, 1, "{stats:?}");
    assert!(stats.allocation_retries >= 2, "{stats:?}");
    pool.trim().unwrap();
    assert_eq!(pool.stats().reserved_bytes, 0);
    drop((pool, manager));
    harness.assert_clean();
}

#[test]
fn named_blocks_are_reported_largest_first() {
    let harness = Harness::simulated("b70x2");
    let (manager, devices) = setup(&harness, Policy::Lazy);
    let pool = DevicePool::new(&manager, &devices[1], PoolConfig::default()).unwrap();
    let small = pool.allocate_named(1000, "bias").unwrap();
    let large = pool.allocate_named(12 * MIB, "embedding").unwrap();
    let report = pool.report(10);
    let (embedding, bias) = (
        report.find("embedding").unwrap(),
        report.find("bias").unwrap(),
    );
    assert!(embedding < bias, "{report}");
    drop(large);
    assert!(!pool.report(10).contains("embedding"));
    drop(small);
    drop((pool, manager));
    harness.assert_clean();
}

/// Replays a trace through a pool; returns peak reserved / peak live, and collateral residency
/// over shared bytes summed across the trace's steps (a time average).
fn replay(trace: &[TraceOp]) -> (f64, f64) {
    let harness = Harness::simulated("b70x2");
    let (manager, devices) = setup(&harness, Policy::Lazy);
    let pool = DevicePool::new(&manager, &devices[0], PoolConfig::default()).unwrap();
    let mut live = HashMap::new();
    let (mut live_bytes, mut peak_live) = (0usize, 0usize);
    let (mut collateral_sum, mut shared_sum) = (0u64, 0u64);
    for op in trace {
        match *op {
            TraceOp::Allocate { id, size, shared } => {
                let block = if shared {
                    pool.allocate_for(size, &[&devices[1]]).unwrap()
                } else {
                    pool.allocate(size).unwrap()
                };
                if shared {
                    manager.ensure_resident_on(&block, &devices[1]).unwrap();
                }
                live_bytes += size;
                peak_live = peak_live.max(live_bytes);
                live.insert(id, (block, size));
            }
            TraceOp::Free { id } => {
                let (_, size) = live.remove(&id).unwrap();
                live_bytes -= size;
            }
        }
        let peer = pool.stats().peers[0];
        collateral_sum += peer.collateral_bytes;
        shared_sum += peer.shared_bytes;
    }
    let ratio = pool.stats().peak_reserved_bytes as f64 / peak_live as f64;
    drop(live);
    drop((pool, manager));
    harness.assert_clean();
    (ratio, collateral_sum as f64 / shared_sum.max(1) as f64)
}

#[test]
fn traces_meet_the_fragmentation_and_collateral_goals() {
    for (name, trace) in [("ddp", ddp(4, 11)), ("serving", serving(200, 5))] {
        let (fragmentation, collateral) = replay(&trace);
        println!(
            "{name}: peak reserved / peak live = {fragmentation:.3}, collateral / shared = {collateral:.3}"
        );
        assert!(
            fragmentation <= 1.15,
            "{name}: peak reserved / peak live = {fragmentation:.3}"
        );
        assert!(
            collateral <= 0.10,
            "{name}: collateral / shared = {collateral:.3}"
        );
    }
}

#[test]
fn threads_hammering_one_pool_never_overlap() {
    let harness = Harness::simulated("b70x2");
    let (manager, devices) = setup(&harness, Policy::Lazy);
    let pool = DevicePool::new(&manager, &devices[0], PoolConfig::default()).unwrap();
    std::thread::scope(|scope| {
        for thread in 0..4u64 {
            let (pool, manager) = (&pool, &manager);
            scope.spawn(move || {
                let mut random = Random::new(thread + 100);
                let mut live: Vec<(Block<'_>, u8)> = Vec::new();
                for step in 0..200 {
                    if live.len() < 16 && !random.next().is_multiple_of(3) {
                        let size = random.size(1, 3 * MIB);
                        let mut block = pool.allocate(size).unwrap();
                        let tag = (step as u8) ^ (thread as u8 * 37);
                        manager
                            .write(&mut block, 0, &vec![tag; size.min(4096)])
                            .unwrap();
                        live.push((block, tag));
                    } else if !live.is_empty() {
                        let (block, tag) = live.swap_remove(random.between(0, live.len() - 1));
                        let mut back = vec![0; block.len().min(4096)];
                        manager.read(&block, 0, &mut back).unwrap();
                        assert!(
                            back.iter().all(|&byte| byte == tag),
                            "thread {thread} lost its bytes"
                        );
                    }
                }
            });
        }
    });
    assert_eq!(pool.stats().allocated_bytes, 0);
    drop((pool, manager));
    harness.assert_clean();
}

mod model {
    use super::*;
    use proptest::prelude::*;

    #[derive(Debug, Clone)]
    enum Op {
        Allocate(usize),
        Free(usize),
        Copy(usize, usize),
        Trim,
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            4 => prop_oneof![1..4096usize, 4096..(2 * MIB), (2 * MIB)..(40 * MIB)].prop_map(Op::Allocate),
            3 => any::<usize>().prop_map(Op::Free),
            2 => (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Op::Copy(a, b)),
            1 => Just(Op::Trim),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 24, failure_persistence: crate::common::regressions_beside_source(), ..ProptestConfig::default() })]

        /// Random allocate / free / copy / trim sequences agree with a reference model: live
        /// blocks never overlap, their bytes survive, the statistics add up, and everything is
        /// returned at the end.
        #[test]
        fn the_pool_agrees_with_a_reference_model(ops in prop::collection::vec(op(), 1..40)) {
            let harness = Harness::simulated("b70x2");
            let (manager, devices) = setup(&harness, Policy::Lazy);
            let pool = DevicePool::new(&manager, &devices[0], PoolConfig::default()).unwrap();
            let mut live: Vec<(Block<'_>, u8)> = Vec::new();
            let mut tag = 0u8;
            for op in ops {
                match op {
                    Op::Allocate(size) => {
                        let mut block = pool.allocate(size).unwrap();
                        tag = tag.wrapping_add(1);
                        let probe = size.min(512);
                        manager.write(&mut block, 0, &vec![tag; probe]).unwrap();
                        manager.write(&mut block, size - probe, &vec![tag; probe]).unwrap();
                        live.push((block, tag));
                    }
                    Op::Free(index) if !live.is_empty() => {
                        let (block, tag) = live.swap_remove(index % live.len());
                        let probe = block.len().min(512);
                        let mut back = vec![0; probe];
                        manager.read(&block, block.len() - probe, &mut back).unwrap();
                        prop_assert!(back.iter().all(|&byte| byte == tag), "bytes survived");
                    }
                    Op::Copy(a, b) if live.len() >= 2 => {
                        let (a, b) = (a % live.len(), b % live.len());
                        if a != b {
                            let len = live[a].0.len().min(live[b].0.len()).min(512);
                            let (dst, src) = if a < b {
                                let (left, right) = live.split_at_mut(b);
                                (&mut left[a], &right[0])
                            } else {
                                let (left, right) = live.split_at_mut(a);
                                (&mut right[0], &left[b])
                            };
                            manager.copy(&mut dst.0, 0, &src.0, 0, len).unwrap();
                            // The destination's head now holds the source's tag; rewrite it so
                            // the whole block carries one tag again.
                            let tag = dst.1;
                            manager.write(&mut dst.0, 0, &vec![tag; len]).unwrap();
                        }
                    }
                    Op::Trim => {
                        pool.trim().unwrap();
                    }
                    _ => {}
                }
                let mut ranges: Vec<(usize, usize)> = live.iter().map(|(b, _)| (b.address(), b.capacity())).collect();
                ranges.sort();
                for pair in ranges.windows(2) {
                    prop_assert!(pair[0].0 + pair[0].1 <= pair[1].0, "live blocks overlap: {pair:?}");
                }
                let stats = pool.stats();
                let capacities: u64 = live.iter().map(|(b, _)| b.capacity() as u64).sum();
                prop_assert_eq!(stats.allocated_bytes, capacities);
                prop_assert_eq!(stats.cached_bytes, stats.reserved_bytes - stats.allocated_bytes);
            }
            drop(live);
            pool.trim().unwrap();
            prop_assert_eq!(pool.stats().reserved_bytes, 0);
            drop(pool);
            drop(manager);
            harness.assert_clean();
        }
    }
}

mod threaded_model {
    use super::*;
    use proptest::prelude::*;
    use std::collections::BTreeMap;
    use std::sync::Mutex;

    /// Live blocks of every thread, by address: (end, thread).
    type Registry = Mutex<BTreeMap<usize, (usize, usize)>>;

    fn claim(
        registry: &Registry,
        start: usize,
        capacity: usize,
        thread: usize,
    ) -> Result<(), String> {
        let mut live = registry.lock().unwrap();
        if let Some((&other, &(end, owner))) = live.range(..start + capacity).next_back()
            && end > start
        {
            return Err(format!(
                "thread {thread}'s block {start:#x}+{capacity} overlaps thread {owner}'s {other:#x}..{end:#x}"
            ));
        }
        live.insert(start, (start + capacity, thread));
        Ok(())
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 16, failure_persistence: crate::common::regressions_beside_source(), ..ProptestConfig::default() })]

        /// Two threads run their own random allocate / free sequences on one pool at once: no
        /// block is ever handed to both, bytes survive, and everything is returned.
        #[test]
        fn threads_agree_with_a_shared_reference_model(
            sequences in prop::collection::vec(prop::collection::vec((any::<bool>(), 1..(3 * MIB)), 1..40), 2..=2),
        ) {
            let harness = Harness::simulated("b70x2");
            let (manager, devices) = setup(&harness, Policy::Lazy);
            let pool = DevicePool::new(&manager, &devices[0], PoolConfig::default()).unwrap();
            let registry: Registry = Mutex::new(BTreeMap::new());
            let outcome: Result<(), String> = std::thread::scope(|scope| {
                let workers: Vec<_> = sequences.iter().enumerate().map(|(thread, ops)| {
                    let (pool, manager, registry) = (&pool, &manager, &registry);
                    scope.spawn(move || -> Result<(), String> {
                        let mut live: Vec<(Block<'_>, u8)> = Vec::new();
                        for (step, &(allocate, size)) in ops.iter().enumerate() {
                            if allocate || live.is_empty() {
                                let mut block = pool.allocate(size).map_err(|e| e.to_string())?;
                                claim(registry, block.address(), block.capacity(), thread)?;
                                let tag = (step as u8).wrapping_mul(31) ^ thread as u8;
                                manager.write(&mut block, 0, &vec![tag; size.min(256)]).map_err(|e| e.to_string())?;
                                live.push((block, tag));
                            } else {
                                let (block, tag) = live.swap_remove(size % live.len());
                                let mut back = vec![0; block.len().min(256)];
                                manager.read(&block, 0, &mut back).map_err(|e| e.to_string())?;
                                if back.iter().any(|&byte| byte != tag) {
                                    return Err(format!("thread {thread} lost the bytes of {:#x}", block.address()));
                                }
                                registry.lock().unwrap().remove(&block.address());
                                drop(block);
                            }
                        }
                        for (block, _) in live {
                            registry.lock().unwrap().remove(&block.address());
                        }
                        Ok(())
                    })
                }).collect();
                workers.into_iter().try_for_each(|worker| worker.join().unwrap())
            });
            prop_assert!(outcome.is_ok(), "{:?}", outcome);
            prop_assert_eq!(pool.stats().allocated_bytes, 0);
            pool.trim().unwrap();
            prop_assert_eq!(pool.stats().reserved_bytes, 0);
            drop(pool);
            drop(manager);
            harness.assert_clean();
        }
    }
}

/// The first, middle and last bytes of every kind of block find that block, free or handed out:
/// carved class blocks, best-fit large ranges beside each other, and a dedicated segment;
/// nothing is found once trim released the segments.
#[test]
fn block_containing_finds_each_block_from_its_ends_and_middle() {
    let harness = Harness::simulated("b70x2");
    let (manager, devices) = setup(&harness, Policy::Lazy);
    let pool = DevicePool::new(&manager, &devices[0], PoolConfig::default()).unwrap();
    let blocks: Vec<_> = [100usize, 3000, 3000, 70_000, 3 * MIB, 5 * MIB, 70 * MIB]
        .into_iter()
        .map(|size| pool.allocate(size).unwrap())
        .collect();
    for block in &blocks {
        let (start, capacity) = (block.address(), block.capacity());
        for address in [start, start + capacity / 2, start + capacity - 1] {
            assert_eq!(pool.block_containing(address), Some((start, capacity)));
        }
    }
    // The two large blocks share a segment, back to back.
    assert_eq!(
        blocks[4].address() + blocks[4].capacity(),
        blocks[5].address()
    );
    let (freed, capacity) = (blocks[1].address(), blocks[1].capacity());
    let (large_start, large_capacity) = (blocks[4].address(), blocks[4].capacity());
    drop(blocks);
    assert_eq!(
        pool.block_containing(freed + 1),
        Some((freed, capacity)),
        "a free block is still the pool's"
    );
    let merged = pool.block_containing(large_start + 1).unwrap();
    assert_eq!(merged.0, large_start);
    assert!(merged.1 > large_capacity, "freed large ranges coalesce");
    pool.trim().unwrap();
    assert_eq!(pool.block_containing(freed + 1), None);
    assert_eq!(pool.block_containing(large_start + 1), None);
    assert_eq!(pool.block_containing(0x10), None);
    drop((pool, manager));
    harness.assert_clean();
}

/// A class segment too short for a whole number of blocks answers `None` in its tail, and the
/// byte past a dedicated segment is not that segment's.
#[test]
fn block_containing_answers_none_past_the_blocks() {
    let harness = Harness::simulated("b70x2");
    let (manager, devices) = setup(&harness, Policy::Lazy);
    let config = PoolConfig {
        small_segment: 13_000,
        ..PoolConfig::default()
    };
    let pool = DevicePool::new(&manager, &devices[0], config).unwrap();
    // Class 3072: a first segment of four blocks, then one of 13,056 bytes (13,000 rounded to
    // the granule), which holds four blocks and 768 bytes of tail.
    let blocks: Vec<_> = (0..5).map(|_| pool.allocate(3000).unwrap()).collect();
    let second_segment = blocks[4].address();
    assert_eq!(blocks[4].capacity(), 3072);
    assert_eq!(
        pool.block_containing(second_segment + 3 * 3072 + 3071),
        Some((second_segment + 3 * 3072, 3072)),
        "the last block, not carved yet"
    );
    assert_eq!(pool.block_containing(second_segment + 4 * 3072), None);
    assert_eq!(pool.block_containing(second_segment + 13_055), None);
    let dedicated = pool.allocate(70 * MIB).unwrap();
    let (start, capacity) = (dedicated.address(), dedicated.capacity());
    assert_eq!(
        pool.block_containing(start + capacity - 1),
        Some((start, capacity))
    );
    assert!(
        pool.block_containing(start + capacity)
            .is_none_or(|(other, _)| other != start)
    );
    drop((blocks, dedicated));
    drop((pool, manager));
    harness.assert_clean();
}

/// A released segment's old bytes find nothing once its slot in the segment table holds a
/// segment elsewhere, and the new segment is found.
#[test]
fn a_released_segment_is_found_no_more_when_its_slot_is_reused() {
    let harness = Harness::simulated("b70x2");
    let (manager, devices) = setup(&harness, Policy::Lazy);
    let pool = DevicePool::new(&manager, &devices[0], PoolConfig::default()).unwrap();
    let first = pool.allocate(70 * MIB).unwrap();
    let old = first.address();
    drop(first);
    pool.trim().unwrap();
    // Another pool's segment, made the same way, takes the freed range, so this pool's next
    // segment (in the same slot of its table) goes elsewhere.
    let other = DevicePool::new(&manager, &devices[0], PoolConfig::default()).unwrap();
    let elsewhere = other.allocate(70 * MIB).unwrap();
    let second = pool.allocate(70 * MIB).unwrap();
    assert_eq!(elsewhere.address(), old, "the freed range is reused");
    assert_ne!(second.address(), old);
    assert_eq!(pool.block_containing(old + 1), None);
    assert_eq!(
        pool.block_containing(second.address() + 1),
        Some((second.address(), second.capacity()))
    );
    drop((second, elsewhere));
    drop((pool, other, manager));
    harness.assert_clean();
}

/// `block_containing` from several threads while they allocate and free blocks of every path
/// and another trims: each thread's live blocks are found from their interior at every step,
/// and the simulator's counters are clean after.
#[test]
fn block_containing_answers_from_threads_while_blocks_come_and_go() {
    let harness = Harness::simulated("b70x2");
    let (manager, devices) = setup(&harness, Policy::Lazy);
    let pool =
        std::sync::Arc::new(DevicePool::new(&manager, &devices[0], PoolConfig::default()).unwrap());
    let shared = std::sync::Arc::clone(&pool);
    crate::common::run_with_timeout(std::time::Duration::from_secs(120), move || {
        let pool = &shared;
        let trimming = std::sync::atomic::AtomicBool::new(true);
        std::thread::scope(|scope| {
            scope.spawn(|| {
                while trimming.load(std::sync::atomic::Ordering::Acquire) {
                    pool.trim().unwrap();
                    std::thread::yield_now();
                }
            });
            let workers: Vec<_> = (0..4u64)
                .map(|thread| {
                    scope.spawn(move || {
                        let mut random = Random::new(thread + 300);
                        let mut live = Vec::new();
                        for _ in 0..300 {
                            if live.len() < 12 && !random.next().is_multiple_of(3) {
                                let size = match random.between(0, 9) {
                                    0 => 70 * MIB,
                                    1..=3 => random.size(MIB + 1, 8 * MIB),
                                    _ => random.size(1, MIB),
                                };
                                live.push(pool.allocate(size).unwrap());
                            } else if !live.is_empty() {
                                drop(live.swap_remove(random.between(0, live.len() - 1)));
                            }
                            for block in &live {
                                let (start, capacity) = (block.address(), block.capacity());
                                assert_eq!(
                                    pool.block_containing(start + capacity / 2),
                                    Some((start, capacity)),
                                    "thread {thread}"
                                );
                            }
                        }
                    })
                })
                .collect();
            for worker in workers {
                worker.join().unwrap();
            }
            trimming.store(false, std::sync::atomic::Ordering::Release);
        });
    });
    assert_eq!(pool.stats().allocated_bytes, 0);
    pool.trim().unwrap();
    drop((pool, manager));
    harness.assert_clean();
}

/// On a driver that refuses to evict a peer's import, trim still releases what it can and
/// fails on nothing: the segment's peer residency stays, counted, until the segment goes.
#[test]
fn trim_goes_on_when_the_driver_refuses_to_evict_a_peers_import() {
    let harness = Harness::simulated("b70x2-26.31");
    let (manager, devices) = setup(&harness, Policy::Lazy);
    let pool = DevicePool::new(&manager, &devices[0], PoolConfig::default()).unwrap();
    // Two blocks of one segment: one read by device 1, one that keeps the segment live.
    let shared = pool.allocate(4096).unwrap();
    let neighbour = pool.allocate(4096).unwrap();
    drop(pool.allocate(10 * MIB).unwrap());
    let mut replica = manager.allocate(&devices[1], 4096).unwrap();
    manager.copy(&mut replica, 0, &shared, 0, 4096).unwrap();
    let pinned = harness.host_pinned();
    assert!(pinned > 0, "the blocks' segment is resident on device 1");
    // No block of the segment is shared any more: trim evicts its peer residency, which this
    // driver refuses.
    drop(shared);
    let evictions = harness.counter("evict_calls");
    let released = pool
        .trim()
        .expect("a refused eviction is no failure of trim");
    assert_eq!(
        harness.counter("evict_calls"),
        evictions + 1,
        "the eviction was asked"
    );
    assert!(released > 0, "the idle large segment went");
    assert_eq!(harness.host_pinned(), pinned, "the driver kept the import");
    let peers = pool.stats().peers;
    let peer = peers.iter().find(|peer| peer.device == 1).unwrap();
    assert_eq!(peer.resident_bytes, pinned, "and it is still counted");
    drop((neighbour, replica));
    pool.trim().unwrap();
    assert_eq!(harness.host_pinned(), 0, "gone with its segment");
    drop((pool, manager));
    harness.assert_clean();
}
