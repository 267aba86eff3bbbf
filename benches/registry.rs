//! Finding an allocation by an interior pointer with 100,000 live allocations, with one thread
//! and with two threads looking up at once (target: <= 50 ns). Two access patterns: `hot`, a
//! working set of 64 allocations (a binding looking up the tensors of one step), and
//! `scattered`, every allocation in turn in a scattered order (each lookup misses the caches).
//! Side by side, in one run:
//! - `registry`: the pointer registry alone, holding an `Arc` per range as the residency
//!   manager does, each lookup answering the range;
//! - `btree`: the same ranges and values in a `BTreeMap` behind an `RwLock` (the obvious
//!   alternative), answering the same;
//! - `find`: `ResidencyManager::find`, the registry plus a read of the allocation's record
//!   (owner, residency), which a scattered lookup also misses the caches for.
//!
//! Then `registry_mixed_*`: the registry alone over 100,000 ranges of six sizes from 256 B to
//! 200 MiB (in three of its size levels, so a lookup probes the levels up to its range's),
//! answering hits at interior addresses and misses at addresses between ranges, which probe
//! every level in use.
//!
//! Results land in `target/criterion/registry/{registry,btree,find}_{hot,scattered}_{1t,2t}/`
//! and `target/criterion/registry/registry_mixed_{hit,miss}_1t/`.

mod common;

use common::slowest_of;
use criterion::{Criterion, criterion_group, criterion_main};
use lazy_usm::{
    Context, Memory, PointerRegistry, Policy, ResidencyConfig, ResidencyManager, Runtime,
};
use std::collections::BTreeMap;
use std::hint::black_box;
use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};

const LIVE: usize = 100_000;

/// Runs `lookup` `iterations` times on each of `threads` threads at once; the wall time of the
/// slowest, as each thread sees it. Each thread first looks up every address of the set once,
/// untimed: a program's threads live long, and a thread's first lookups in a part of the
/// registry take its copy of that part (and bring the memory into the caches).
fn on_threads(
    threads: usize,
    iterations: u64,
    set: usize,
    lookup: &(impl Fn(u64) + Sync),
) -> Duration {
    let barrier = std::sync::Barrier::new(threads);
    slowest_of(threads, |thread| {
        (0..set as u64).for_each(lookup);
        barrier.wait();
        let start = Instant::now();
        for iteration in 0..iterations {
            lookup(
                iteration
                    .wrapping_mul(7919)
                    .wrapping_add(thread as u64 * 104_729),
            );
        }
        start.elapsed()
    })
}

fn registry_benches(c: &mut Criterion) {
    let runtime = Runtime::simulated("b70x2").expect("simulated platform");
    let devices = runtime.devices().expect("devices");
    let context = Context::new(&devices).expect("context");
    let manager =
        ResidencyManager::new(context, ResidencyConfig::new(Policy::Lazy)).expect("manager");
    let allocations: Vec<_> = (0..LIVE)
        .map(|index| {
            manager
                .allocate(&devices[index % 2], 256 + (index % 7) * 64)
                .expect("allocation")
        })
        .collect();
    // An interior address of each allocation, visited in a scattered order.
    let interior: Vec<usize> = allocations
        .iter()
        .map(|allocation| allocation.address() + allocation.len() / 2)
        .collect();
    // The residency manager keeps an `Arc` of each allocation's record as its value.
    let registry = PointerRegistry::new();
    let tree: RwLock<BTreeMap<usize, (usize, Arc<usize>)>> = RwLock::new(BTreeMap::new());
    for (index, allocation) in allocations.iter().enumerate() {
        let value = Arc::new(index);
        registry
            .insert(allocation.address(), allocation.len(), Arc::clone(&value))
            .expect("disjoint");
        tree.write()
            .expect("lock")
            .insert(allocation.address(), (allocation.len(), value));
    }
    let find = |set: usize| {
        let interior = &interior;
        let manager = &manager;
        move |step: u64| {
            let address = interior[step as usize % set];
            black_box(manager.find(black_box(address)).expect("found"));
        }
    };
    let alone = |set: usize| {
        let interior = &interior;
        let registry = &registry;
        move |step: u64| {
            let address = interior[step as usize % set];
            let range = registry.find_map(black_box(address), |entry| (entry.base, entry.size));
            black_box(range.expect("found"));
        }
    };
    let btree = |set: usize| {
        let interior = &interior;
        let tree = &tree;
        move |step: u64| {
            let address = interior[step as usize % set];
            let map = tree.read().expect("lock");
            let (base, (size, _)) = map.range(..=address).next_back().expect("found");
            black_box(
                (address - base < *size)
                    .then_some((*base, *size))
                    .expect("found"),
            );
        }
    };
    let mut group = c.benchmark_group("registry");
    group.warm_up_time(Duration::from_millis(500));
    group.measurement_time(Duration::from_secs(2));
    for (pattern, set) in [("hot", 64), ("scattered", LIVE)] {
        for threads in [1, 2] {
            let lookup = alone(set);
            group.bench_function(format!("registry_{pattern}_{threads}t"), |bench| {
                bench.iter_custom(|iterations| on_threads(threads, iterations, set, &lookup))
            });
            let lookup = find(set);
            group.bench_function(format!("find_{pattern}_{threads}t"), |bench| {
                bench.iter_custom(|iterations| on_threads(threads, iterations, set, &lookup))
            });
            let lookup = btree(set);
            group.bench_function(format!("btree_{pattern}_{threads}t"), |bench| {
                bench.iter_custom(|iterations| on_threads(threads, iterations, set, &lookup))
            });
        }
    }
    // Ranges of mixed sizes in a synthetic address space (the registry needs no memory
    // behind them), page-aligned with a page between neighbours.
    const SIZES: [usize; 6] = [256, 3_000, 40_000, 700_000, 9 << 20, 200 << 20];
    let mixed = PointerRegistry::new();
    let mut hits = Vec::with_capacity(LIVE);
    let mut misses = Vec::with_capacity(LIVE);
    let mut base = 1usize << 40;
    for index in 0..LIVE {
        let size = SIZES[index % SIZES.len()];
        mixed.insert(base, size, Arc::new(index)).expect("disjoint");
        hits.push(base + size / 2);
        let end = base + size;
        misses.push(end + 2048);
        base = end.next_multiple_of(4096) + 4096;
    }
    // `on_threads` visits them in a scattered order.
    for (kind, addresses, expect_found) in [("hit", hits, true), ("miss", misses, false)] {
        let lookup = |step: u64| {
            let address = addresses[step as usize % LIVE];
            let range = mixed.find_map(black_box(address), |entry| (entry.base, entry.size));
            assert_eq!(black_box(range).is_some(), expect_found);
        };
        group.bench_function(format!("registry_mixed_{kind}_1t"), |bench| {
            bench.iter_custom(|iterations| on_threads(1, iterations, LIVE, &lookup))
        });
    }
    group.finish();
}

criterion_group!(benches, registry_benches);
criterion_main!(benches);
