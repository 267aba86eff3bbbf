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
//! - `floor`: the ranges in a flat array, each read at an index the caller already has (no
//!   search), timed the same way: what independent reads of the answers cost when a core can
//!   overlap them.
//!
//! Then `registry_mixed_*`: the registry alone over 100,000 ranges of six sizes from 256 B to
//! 200 MiB (in three of its size levels, so a lookup probes the levels up to its range's),
//! answering hits at interior addresses and misses at addresses between ranges, which probe
//! every level in use.
//!
//! Results land in
//! `target/criterion/registry/{floor,registry,btree,find}_{hot,scattered}_{1t,2t}/`
//! and `target/criterion/registry/registry_mixed_{hit,miss}_1t/`.

use criterion::{Criterion, criterion_group, criterion_main};
use lazy_usm::{
    Context, Memory, PointerRegistry, Policy, ResidencyConfig, ResidencyManager, Runtime,
};
use std::collections::BTreeMap;
use std::hint::black_box;
use std::sync::{Arc, Barrier, RwLock, mpsc};
use std::time::{Duration, Instant};

// Its lookup threads live across criterion's calls, so it takes the abort guard, not
// `slowest_of`.
#[allow(dead_code)]
mod common;
#[path = "common/registry_set.rs"]
mod registry_set;

use common::AbortOnPanic;

use registry_set::LIVE;

/// Runs `bench` with a way to time `lookup` on `threads` threads at once that live across
/// criterion's calls, as a program's threads do: each thread first looks up every address of
/// `addresses` once, untimed (a thread's first lookups in a part of the registry take its copy
/// of that part, and bring the memory into the caches), then, for each call, makes `iterations`
/// lookups, visiting `addresses` in a scattered order of its own; a call answers the wall time
/// of the slowest thread, as it saw it. Threads made anew per call would pay their first lookups
/// (a copy of each bucket they look in) in every call, and criterion, seeing each call take that
/// long, would time a handful of cold lookups. Each thread lays its visits out in order before
/// it starts, so the timed loop reads the next address from memory it walks in sequence, as a
/// program has its pointer in hand: picking it by an index into `addresses` took a division and
/// a cache miss of its own per lookup. A panic in a lookup thread aborts the bench: the others
/// would wait for it.
fn with_threads(
    threads: usize,
    addresses: &[usize],
    lookup: &(impl Fn(usize) + Sync),
    bench: impl FnOnce(&dyn Fn(u64) -> Duration),
) {
    let barrier = Barrier::new(threads);
    std::thread::scope(|scope| {
        let (report, reports) = mpsc::channel();
        let orders: Vec<_> = (0..threads)
            .map(|thread| {
                let (order, orders) = mpsc::channel::<u64>();
                let (report, barrier) = (report.clone(), &barrier);
                scope.spawn(move || {
                    let _abort_on_panic = AbortOnPanic;
                    let visits = registry_set::scattered(addresses, thread);
                    addresses.iter().copied().for_each(lookup);
                    for iterations in orders {
                        let iterations = usize::try_from(iterations).unwrap_or(usize::MAX);
                        barrier.wait();
                        let start = Instant::now();
                        for &address in visits.iter().cycle().take(iterations) {
                            lookup(address);
                        }
                        report.send(start.elapsed()).expect("the bench waits");
                    }
                });
                order
            })
            .collect();
        // Only the threads' clones report: a thread gone is then an error, not a wait.
        drop(report);
        bench(&|iterations| {
            for order in &orders {
                order.send(iterations).expect("a lookup thread");
            }
            (0..threads)
                .map(|_| reports.recv().expect("a lookup thread"))
                .max()
                .unwrap_or_default()
        });
        // The threads end when their orders do.
        drop(orders);
    });
}

fn registry_benches(c: &mut Criterion) {
    let runtime = Runtime::simulated("b70x2").expect("simulated platform");
    let devices = runtime.devices().expect("devices");
    let context = Context::new(&devices).expect("context");
    let manager =
        ResidencyManager::new(context, ResidencyConfig::new(Policy::Lazy)).expect("manager");
    let allocations = registry_set::allocations(&manager, &devices);
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
    // The floor: each lookup reads its range from a flat array of every range (16 bytes each,
    // 1.6 MB) at an index the caller already has, with no search: the one read of memory the
    // answer lives in, which a scattered lookup in any structure makes, in the same order.
    let ranges: Vec<(usize, usize)> = allocations
        .iter()
        .map(|allocation| (allocation.address(), allocation.len()))
        .collect();
    let indices: Vec<usize> = (0..LIVE).collect();
    let floor = |index: usize| {
        let (base, size) = ranges[black_box(index)];
        black_box((base, size));
    };
    let find = |address: usize| {
        black_box(manager.find(black_box(address)).expect("found"));
    };
    let alone = |address: usize| {
        let range = registry.find_map(black_box(address), |entry| (entry.base, entry.size));
        black_box(range.expect("found"));
    };
    let btree = |address: usize| {
        let map = tree.read().expect("lock");
        let (base, (size, _)) = map.range(..=address).next_back().expect("found");
        black_box(
            (address - base < *size)
                .then_some((*base, *size))
                .expect("found"),
        );
    };
    let mut group = c.benchmark_group("registry");
    group.warm_up_time(Duration::from_millis(500));
    group.measurement_time(Duration::from_secs(2));
    for (pattern, set) in [("hot", 64), ("scattered", LIVE)] {
        for threads in [1, 2] {
            with_threads(threads, &indices[..set], &floor, |run| {
                group.bench_function(format!("floor_{pattern}_{threads}t"), |bench| {
                    bench.iter_custom(run)
                });
            });
            let addresses = &interior[..set];
            with_threads(threads, addresses, &alone, |run| {
                group.bench_function(format!("registry_{pattern}_{threads}t"), |bench| {
                    bench.iter_custom(run)
                });
            });
            with_threads(threads, addresses, &find, |run| {
                group.bench_function(format!("find_{pattern}_{threads}t"), |bench| {
                    bench.iter_custom(run)
                });
            });
            with_threads(threads, addresses, &btree, |run| {
                group.bench_function(format!("btree_{pattern}_{threads}t"), |bench| {
                    bench.iter_custom(run)
                });
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
    // `with_threads` visits them in a scattered order.
    for (kind, addresses, expect_found) in [("hit", hits, true), ("miss", misses, false)] {
        let lookup = |address: usize| {
            let range = mixed.find_map(black_box(address), |entry| (entry.base, entry.size));
            assert_eq!(black_box(range).is_some(), expect_found);
        };
        with_threads(1, &addresses, &lookup, |run| {
            group.bench_function(format!("registry_mixed_{kind}_1t"), |bench| {
                bench.iter_custom(run)
            });
        });
    }
    group.finish();
}

criterion_group!(benches, registry_benches);
criterion_main!(benches);
