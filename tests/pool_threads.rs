//! The pool's per-thread caches: a thread reuses what it freed, stats add up over threads,
//! blocks freed on another thread come back, trim reaches what other threads cache (at their
//! next call, or when they exit), a pool dropped under a thread's cache leaves nothing behind,
//! and a cache of no bytes sends every block to the shared lists.

mod common;

use common::{Harness, run_with_timeout};
use lazy_usm::*;
use std::sync::{Arc, Barrier, mpsc};
use std::time::Duration;

fn setup(harness: &Harness) -> (ResidencyManager, Vec<Device>) {
    let devices = harness.runtime.devices().unwrap();
    let manager =
        ResidencyManager::new(Context::new(&devices).unwrap(), ResidencyConfig::default()).unwrap();
    (manager, devices)
}

#[test]
fn each_thread_reuses_its_own_frees_and_the_stats_add_up() {
    run_with_timeout(Duration::from_secs(60), || {
        let harness = Harness::simulated("b70x2");
        let (manager, devices) = setup(&harness);
        let pool = DevicePool::new(&manager, &devices[0], PoolConfig::default()).unwrap();
        let threads = 4;
        let rounds = 200;
        let held = Barrier::new(threads + 1);
        let checked = Barrier::new(threads + 1);
        std::thread::scope(|scope| {
            let workers: Vec<_> = (0..threads)
                .map(|thread| {
                    let (pool, held, checked) = (&pool, &held, &checked);
                    scope.spawn(move || {
                        let size = 1000 * (thread + 1);
                        let first = pool.allocate(size).unwrap();
                        let address = first.address();
                        drop(first);
                        for _ in 0..rounds {
                            let again = pool.allocate(size).unwrap();
                            assert_eq!(
                                again.address(),
                                address,
                                "thread {thread} reuses its block"
                            );
                        }
                        // Two live blocks each while the main thread reads the stats.
                        let live = (pool.allocate(size).unwrap(), pool.allocate(size).unwrap());
                        held.wait();
                        checked.wait();
                        drop(live);
                    })
                })
                .collect();
            held.wait();
            let stats = pool.stats();
            // 1000, 2000, 3000 and 4000 bytes round up to classes of 1, 2, 3 and 4 KiB.
            let expected = 2 * (1024 + 2048 + 3072 + 4096);
            assert_eq!(
                stats.allocated_bytes, expected,
                "live blocks of every thread"
            );
            assert_eq!(
                stats.hits + stats.misses,
                (threads * (rounds + 3)) as u64,
                "every allocation counted once: {stats:?}"
            );
            assert!(stats.hits >= (threads * rounds) as u64, "{stats:?}");
            checked.wait();
            for worker in workers {
                worker.join().unwrap();
            }
        });
        let stats = pool.stats();
        assert_eq!(stats.allocated_bytes, 0);
        // The workers exited: their caches went back, so trim releases every segment.
        pool.trim().unwrap();
        assert_eq!(pool.stats().reserved_bytes, 0, "{:?}", pool.stats());
        drop(pool);
        drop(manager);
        harness.assert_clean();
    });
}

#[test]
fn a_block_freed_on_another_thread_is_reused_there() {
    let harness = Harness::simulated("b70x2");
    let (manager, devices) = setup(&harness);
    let pool = DevicePool::new(&manager, &devices[0], PoolConfig::default()).unwrap();
    let block = pool.allocate(4096).unwrap();
    let address = block.address();
    std::thread::scope(|scope| {
        scope
            .spawn(|| {
                drop(block);
                let again = pool.allocate(4096).unwrap();
                assert_eq!(again.address(), address, "freed here, cached here");
                assert_eq!(pool.stats().allocated_bytes, 4096);
            })
            .join()
            .unwrap();
    });
    assert_eq!(pool.stats().allocated_bytes, 0);
    // The other thread exited: its cache is back in the shared list, where a thread with an
    // empty cache finds it.
    std::thread::scope(|scope| {
        scope
            .spawn(|| assert_eq!(pool.allocate(4096).unwrap().address(), address))
            .join()
            .unwrap();
    });
}

#[test]
fn trim_reaches_blocks_another_live_thread_caches_at_its_next_call() {
    run_with_timeout(Duration::from_secs(60), || {
        let harness = Harness::simulated("b70x2");
        let (manager, devices) = setup(&harness);
        let pool = DevicePool::new(&manager, &devices[0], PoolConfig::default()).unwrap();
        let (cached, cached_rx) = mpsc::channel();
        let (go, go_rx) = mpsc::channel::<()>();
        let (called, called_rx) = mpsc::channel();
        let (finish, finish_rx) = mpsc::channel::<()>();
        std::thread::scope(|scope| {
            let pool = &pool;
            let worker = scope.spawn(move || {
                drop(pool.allocate(8192).unwrap());
                cached.send(()).unwrap();
                go_rx.recv().unwrap();
                // Any call of the pool: this one, of another class, finds the flush asked for.
                drop(pool.allocate(300).unwrap());
                called.send(()).unwrap();
                finish_rx.recv().unwrap();
            });
            cached_rx.recv().unwrap();
            let before = pool.stats();
            pool.trim().unwrap();
            let kept = pool.stats().reserved_bytes;
            go.send(()).unwrap();
            called_rx.recv().unwrap();
            pool.trim().unwrap();
            let after = pool.stats().reserved_bytes;
            // Told to finish before anything is checked: a failed check must not leave the
            // worker waiting.
            finish.send(()).unwrap();
            worker.join().unwrap();
            assert!(before.reserved_bytes > 0 && before.allocated_bytes == 0);
            assert_eq!(
                kept, before.reserved_bytes,
                "the 8 KiB block sits in the worker's cache"
            );
            // Left: the segment of the worker's 300-byte block, which its cache holds.
            assert!(
                after < kept,
                "the worker's call returned its cache: {after} of {kept}"
            );
        });
        pool.trim().unwrap();
        assert_eq!(pool.stats().reserved_bytes, 0);
        drop(pool);
        drop(manager);
        harness.assert_clean();
    });
}

#[test]
fn a_pool_dropped_while_a_thread_caches_its_blocks_leaves_nothing_behind() {
    run_with_timeout(Duration::from_secs(60), || {
        let harness = Harness::simulated("b70x2");
        let (manager, devices) = setup(&harness);
        let first =
            Arc::new(DevicePool::new(&manager, &devices[0], PoolConfig::default()).unwrap());
        let (to_worker, worker_rx) = mpsc::channel::<Arc<DevicePool>>();
        let (to_main, main_rx) = mpsc::channel::<(usize, u64)>();
        // One thread keeps its cache of the first pool while that pool is dropped, then uses a
        // second: the stale cache must hand nothing of the first pool to the second.
        let worker = std::thread::spawn(move || {
            let first = worker_rx.recv().unwrap();
            let block = first.allocate(4096).unwrap();
            let address = block.address();
            drop(block);
            drop(first);
            to_main.send((address, 0)).unwrap();
            let second = worker_rx.recv().unwrap();
            let block = second.allocate(4096).unwrap();
            let misses = second.stats().misses;
            drop(block);
            to_main.send((0, misses)).unwrap();
        });
        to_worker.send(Arc::clone(&first)).unwrap();
        let (_, _) = main_rx.recv().unwrap();
        let first = Arc::try_unwrap(first).unwrap_or_else(|_| panic!("the worker let go"));
        drop(first);
        let second =
            Arc::new(DevicePool::new(&manager, &devices[0], PoolConfig::default()).unwrap());
        to_worker.send(Arc::clone(&second)).unwrap();
        let (_, misses) = main_rx.recv().unwrap();
        assert_eq!(misses, 1, "the second pool carved its own block");
        worker.join().unwrap();
        second.trim().unwrap();
        assert_eq!(second.stats().reserved_bytes, 0);
        drop(second);
        drop(manager);
        harness.assert_clean();
    });
}

#[test]
fn a_cache_of_no_bytes_returns_every_block_to_the_shared_lists() {
    let harness = Harness::simulated("b70x2");
    let (manager, devices) = setup(&harness);
    let config = PoolConfig {
        thread_cache_bytes: 0,
        ..PoolConfig::default()
    };
    let pool = DevicePool::new(&manager, &devices[0], config).unwrap();
    let address = std::thread::scope(|scope| {
        scope
            .spawn(|| {
                let block = pool.allocate(4096).unwrap();
                let address = block.address();
                drop(block);
                address
            })
            .join()
            .unwrap()
    });
    // Another thread (this one) finds it at once, and trim sees it free.
    let block = pool.allocate(4096).unwrap();
    assert_eq!(block.address(), address);
    drop(block);
    pool.trim().unwrap();
    assert_eq!(pool.stats().reserved_bytes, 0);
    let stats = pool.stats();
    assert_eq!((stats.hits, stats.misses), (1, 1));
}

#[test]
fn a_thread_cache_above_its_budget_spills_to_the_shared_list() {
    let harness = Harness::simulated("b70x2");
    let (manager, devices) = setup(&harness);
    // Room for four 64 KiB blocks in the cache (a list keeps a quarter of the budget: one).
    let config = PoolConfig {
        thread_cache_bytes: 256 << 10,
        ..PoolConfig::default()
    };
    let pool = DevicePool::new(&manager, &devices[0], config).unwrap();
    let blocks: Vec<_> = (0..8).map(|_| pool.allocate(64 << 10).unwrap()).collect();
    let addresses: Vec<usize> = blocks.iter().map(Block::address).collect();
    drop(blocks);
    // Another thread takes blocks this thread's cache could not keep, from the shared list.
    let taken: Vec<usize> = std::thread::scope(|scope| {
        scope
            .spawn(|| {
                let blocks: Vec<_> = (0..7).map(|_| pool.allocate(64 << 10).unwrap()).collect();
                blocks.iter().map(Block::address).collect()
            })
            .join()
            .unwrap()
    });
    let reused = taken
        .iter()
        .filter(|address| addresses.contains(address))
        .count();
    assert!(reused >= 6, "{reused} of 7 came from the blocks freed here");
}

#[test]
fn invalid_cache_budget_is_refused() {
    let harness = Harness::simulated("b70x2");
    let (manager, devices) = setup(&harness);
    let config = PoolConfig {
        thread_cache_bytes: usize::MAX,
        ..PoolConfig::default()
    };
    assert!(matches!(
        DevicePool::new(&manager, &devices[0], config),
        Err(Error::BadConfig {
            field: "thread_cache_bytes",
            ..
        })
    ));
}
