//! Soundness under leaks, threads and failing drivers: each test pins down one way safe code
//! could once make the device touch freed memory, destroy what queued work uses, evict memory
//! under a copy, deadlock, or read what Level Zero never initialised.

use crate::common::{Harness, run_with_timeout};
use lazy_usm::*;
use std::sync::Arc;
use std::time::Duration;

/// Commands take this long on their engine, so host threads can race them.
const SLOW_US: u64 = 20_000;

fn slow_config(preset: &str) -> ze_sim::SimConfig {
    let mut config = ze_sim::SimConfig::preset(preset).unwrap();
    config.faults.command_delay_us = Some(SLOW_US);
    config
}

fn wait_idle(harness: &Harness) {
    let platform = harness.runtime.simulator().unwrap();
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    while !platform.is_idle() {
        assert!(
            std::time::Instant::now() < deadline,
            "the device never went idle"
        );
        std::thread::sleep(Duration::from_millis(1));
    }
}

/// Sets a flag when dropped, so a loop waiting on it ends even if the setter panicked.
struct SetOnDrop<'a>(&'a std::sync::atomic::AtomicBool);

impl Drop for SetOnDrop<'_> {
    fn drop(&mut self) {
        self.0.store(true, std::sync::atomic::Ordering::Release);
    }
}

/// `mem::forget` on a submission leaks the list, its buffers and the queue's share; it can no
/// longer free a buffer the device is still writing, nor destroy the list or queue under it.
#[test]
fn a_forgotten_submission_leaks_instead_of_freeing_under_the_device() {
    let harness = Harness::with_config(slow_config("b70x2"));
    let devices = harness.runtime.devices().unwrap();
    let context = Context::new(&devices).unwrap();
    let engine = devices[0].preferred_copy_engine().unwrap();
    let queue = CommandQueue::new(&context, &engine).unwrap();
    let mut list = RecordedList::new(&context, &engine).unwrap();
    let source = list.hold(context.alloc_host(4096, 0).unwrap()).unwrap();
    let target = list
        .hold(context.alloc_device(&devices[0], 4096, 0).unwrap())
        .unwrap();
    list.copy(target, 0, source, 0, 4096).unwrap();
    list.close().unwrap();
    std::mem::forget(queue.execute(list).unwrap());
    drop(queue);
    drop(context);
    wait_idle(&harness);
    assert_eq!(harness.counter("free_hazards"), 0);
    assert_eq!(harness.counter("destroy_hazards"), 0);
    assert_eq!(harness.counter("live_allocations"), 2, "leaked, not freed");
}

/// A submission that cannot be submitted hands its list back; nothing waits on a fence that
/// will never signal.
#[test]
fn a_failed_submission_returns_its_list_and_does_not_hang() {
    run_with_timeout(Duration::from_secs(60), || {
        let mut config = ze_sim::SimConfig::preset("b70x2").unwrap();
        config.faults.device_lost_after_submissions = Some(0);
        let harness = Harness::with_config(config);
        let devices = harness.runtime.devices().unwrap();
        let context = Context::new(&devices).unwrap();
        let engine = devices[0].compute_engine().unwrap();
        let queue = CommandQueue::new(&context, &engine).unwrap();
        let mut list = RecordedList::new(&context, &engine).unwrap();
        let held = list.hold(context.alloc_host(64, 0).unwrap()).unwrap();
        list.close().unwrap();
        let refused = queue.execute(list).unwrap_err();
        assert!(matches!(refused.error, Error::DeviceLost { .. }));
        assert_eq!(
            refused.list.get(held).unwrap().len(),
            64,
            "the list came back"
        );
        drop((refused, queue, context));
        assert_eq!(harness.counter("live_fences"), 0, "the unused fence went");
        harness.assert_clean();
    });
}

/// A gated copy shares its gate: dropping the program's handle early destroys nothing the
/// queued copy waits on.
#[test]
fn a_pending_copy_keeps_its_gate_alive() {
    let harness = Harness::simulated("b70x2");
    let devices = harness.runtime.devices().unwrap();
    let context = Context::new(&devices).unwrap();
    let list = context
        .immediate_list(&devices[0].preferred_copy_engine().unwrap())
        .unwrap();
    // A copy ahead, held back by `hold`, keeps the gated copy queued (its wait not yet taken)
    // until this test lets it go.
    let hold = Arc::new(EventPool::new(&context, 1).unwrap().event(0).unwrap());
    let ahead = list
        .copy_async_after(
            context.alloc_device(&devices[0], 4096, 0).unwrap(),
            context.alloc_device(&devices[0], 4096, 0).unwrap(),
            Some(&hold),
        )
        .unwrap();
    let gate = Arc::new(EventPool::new(&context, 1).unwrap().event(0).unwrap());
    let mut source = context.alloc_host(4096, 0).unwrap();
    source.as_mut_slice().fill(0x5c);
    let gated = list
        .copy_async_after(context.alloc_host(4096, 0).unwrap(), source, Some(&gate))
        .unwrap();
    gate.signal().unwrap();
    drop(gate);
    assert_eq!(
        harness.counter("destroy_hazards"),
        0,
        "the queued copy holds the gate"
    );
    hold.signal().unwrap();
    let (target, _) = gated.wait().unwrap();
    assert_eq!(target.as_slice(), &[0x5c; 4096]);
    ahead.wait().unwrap();
    drop((target, hold, list, context));
    harness.assert_clean();
}

/// A detached copy shares its command list: dropping the list while the copy runs destroys it
/// only once the copy is done.
#[test]
fn a_detached_copy_keeps_its_list_alive() {
    run_with_timeout(Duration::from_secs(60), || {
        let harness = Harness::with_config(slow_config("b70x2"));
        let devices = harness.runtime.devices().unwrap();
        let manager =
            ResidencyManager::new(Context::new(&devices).unwrap(), ResidencyConfig::default())
                .unwrap();
        let pool = DevicePool::new(&manager, &devices[0], PoolConfig::default()).unwrap();
        let list = manager
            .context()
            .immediate_list(&devices[0].preferred_copy_engine().unwrap())
            .unwrap();
        list.copy_async(pool.allocate(4096).unwrap(), pool.allocate(4096).unwrap())
            .unwrap()
            .detach();
        drop(list);
        assert_eq!(harness.counter("destroy_hazards"), 0);
        let mut returned = 0;
        while returned < 2 {
            returned += pool.reclaim();
            std::thread::yield_now();
        }
        drop((pool, manager));
        harness.assert_clean();
    });
}

/// Host and shared buffers read as zeros even when the driver hands out dirty memory.
#[test]
fn host_and_shared_buffers_start_zeroed() {
    let mut config = ze_sim::SimConfig::preset("b70x2").unwrap();
    config.faults.dirty_allocations = true;
    let harness = Harness::with_config(config);
    let devices = harness.runtime.devices().unwrap();
    let context = Context::new(&devices).unwrap();
    assert_eq!(context.alloc_host(4096, 0).unwrap().as_slice(), &[0; 4096]);
    let shared = context.alloc_shared(Some(&devices[1]), 4096, 0).unwrap();
    assert_eq!(shared.as_slice(), &[0; 4096]);
    drop((shared, context));
    harness.assert_clean();
}

/// A read of device memory holding 0xa5 (a dirty allocation) with a wait fault: the call
/// returns only once the bytes have arrived and the device has stopped.
fn read_with_wait_fault(fault: impl FnOnce(&mut ze_sim::Faults)) {
    let mut config = slow_config("b70x2");
    config.faults.dirty_allocations = true;
    fault(&mut config.faults);
    let harness = Harness::with_config(config);
    let devices = harness.runtime.devices().unwrap();
    let context = Context::new(&devices).unwrap();
    let list = context
        .immediate_list(&devices[0].preferred_copy_engine().unwrap())
        .unwrap();
    let buffer = context.alloc_device(&devices[0], 4096, 0).unwrap();
    let mut back = vec![0u8; 4096];
    list.read(&buffer, 0, &mut back).unwrap();
    assert!(
        harness.runtime.simulator().unwrap().is_idle(),
        "returned while the device could still write the slice"
    );
    assert_eq!(back, [0xa5; 4096]);
    drop((list, buffer, context));
    harness.assert_clean();
}

/// A driver's `NOT_READY` from an infinite wait is "not yet", never completion.
#[test]
fn not_ready_from_a_wait_is_not_completion() {
    read_with_wait_fault(|faults| faults.not_ready_waits = Some(1));
}

/// When the wait itself fails, a synchronous read still does not return while the device may
/// write the caller's slice: it polls until the work is done.
#[test]
fn a_failed_wait_does_not_return_under_the_device() {
    read_with_wait_fault(|faults| faults.failed_waits = Some(1));
}

/// One thread evicts, one copies: a copy pins before it reads the resident bit and an evictor
/// clears the bit before it reads the pins, so no copy ever runs on evicted memory.
#[test]
fn eviction_never_races_a_copy() {
    run_with_timeout(Duration::from_secs(120), || {
        let harness = Harness::simulated("b70x2");
        let devices = harness.runtime.devices().unwrap();
        let manager = ResidencyManager::new(
            Context::new(&devices).unwrap(),
            ResidencyConfig::new(Policy::Lazy),
        )
        .unwrap();
        let source = manager.allocate(&devices[0], 4096).unwrap();
        let mut target = manager.allocate(&devices[1], 4096).unwrap();
        let copies = 20_000;
        let done = std::sync::atomic::AtomicBool::new(false);
        let (mut evicted, mut refused) = (0u32, 0u32);
        std::thread::scope(|scope| {
            scope.spawn(|| {
                let _done = SetOnDrop(&done);
                for _ in 0..copies {
                    let path = manager.copy(&mut target, 0, &source, 0, 4096).unwrap();
                    assert_eq!(path, CopyPath::PeerToPeer);
                }
            });
            while !done.load(std::sync::atomic::Ordering::Acquire) {
                match manager.evict_from(&source, &devices[1]) {
                    Ok(()) => evicted += 1,
                    Err(Error::InUse { .. }) => refused += 1,
                    Err(error) => panic!("{error}"),
                }
            }
        });
        println!("{copies} copies: {evicted} evictions, {refused} refused while a copy ran");
        assert_eq!(harness.counter("residency_violations"), 0);
        assert!(evicted > 0, "the race was exercised");
        assert_eq!(manager.host_cost().current_bytes, harness.host_pinned());
        drop((source, target, manager));
        harness.assert_clean();
    });
}

/// The budget never evicts residency an asynchronous copy in flight uses: the copy pins it.
#[test]
fn the_budget_does_not_evict_under_an_asynchronous_copy() {
    const SIZE: usize = 1 << 20;
    let harness = Harness::with_config(slow_config("b70x2"));
    let devices = harness.runtime.devices().unwrap();
    let config = ResidencyConfig {
        host_budget: Some(SIZE as u64 + 4096),
        self_test: SelfTest::Off,
        ..ResidencyConfig::new(Policy::Lazy)
    };
    let manager = ResidencyManager::new(Context::new(&devices).unwrap(), config).unwrap();
    let busy = manager.allocate(&devices[0], SIZE).unwrap();
    let other = manager.allocate(&devices[0], SIZE).unwrap();
    let mut target = manager.allocate(&devices[1], SIZE).unwrap();
    // `busy` becomes resident on device 1 through a copy (automatic: the budget's to evict)...
    manager.copy(&mut target, 0, &busy, 0, SIZE).unwrap();
    let list = manager
        .context()
        .immediate_list(&devices[1].preferred_copy_engine().unwrap())
        .unwrap();
    // ...then an asynchronous copy on device 1 reads it, slowly.
    let pending = list.copy_async(target, busy).unwrap();
    // `other` needs the budget `busy` holds: `busy` is pinned, so this copy is staged.
    let mut landing = manager.allocate(&devices[1], SIZE).unwrap();
    assert_eq!(
        manager.copy(&mut landing, 0, &other, 0, SIZE).unwrap(),
        CopyPath::Staged
    );
    let (target, busy) = pending.wait().unwrap();
    assert!(busy.resident().contains(1));
    assert_eq!(harness.counter("residency_violations"), 0);
    drop((target, busy, other, landing, list, manager));
    harness.assert_clean();
}

/// A held buffer swapped out through `get_mut` makes the list refuse to run: its commands use
/// the memory the list held, which the program may have freed.
#[test]
fn a_list_whose_held_buffer_was_replaced_refuses_to_run() {
    let harness = Harness::simulated("b70x2");
    let devices = harness.runtime.devices().unwrap();
    let context = Context::new(&devices).unwrap();
    let engine = devices[0].preferred_copy_engine().unwrap();
    let queue = CommandQueue::new(&context, &engine).unwrap();
    let mut list = RecordedList::new(&context, &engine).unwrap();
    let source = list.hold(context.alloc_host(4096, 0).unwrap()).unwrap();
    let target = list.hold(context.alloc_host(4096, 0).unwrap()).unwrap();
    list.copy(target, 0, source, 0, 4096).unwrap();
    list.close().unwrap();
    let replacement = context.alloc_host(4096, 0).unwrap();
    let old = std::mem::replace(list.get_mut(target).unwrap(), replacement);
    drop(old);
    let refused = queue.execute(list).unwrap_err();
    assert!(
        refused.error.to_string().contains("replaced"),
        "{}",
        refused.error
    );
    assert_eq!(harness.counter("host_direct_copies"), 0, "nothing ran");
    drop((refused, queue, context));
    harness.assert_clean();
}

/// A completion that outlives the memory its copy used releases its pin without touching the
/// residency of whatever was allocated there since.
#[test]
fn a_pin_outliving_its_allocation_evicts_nothing() {
    let harness = Harness::simulated("b70x2");
    let devices = harness.runtime.devices().unwrap();
    let config = ResidencyConfig {
        self_test: SelfTest::Off,
        ..ResidencyConfig::new(Policy::PeerEnabled)
    };
    let manager = ResidencyManager::new(Context::new(&devices).unwrap(), config).unwrap();
    manager
        .enable_peer_access(&devices[1], &devices[0])
        .unwrap();
    let source = manager.allocate(&devices[0], 4096).unwrap();
    let mut target = manager.allocate(&devices[1], 4096).unwrap();
    manager.copy(&mut target, 0, &source, 0, 4096).unwrap();
    let list = manager
        .context()
        .immediate_list(&devices[1].preferred_copy_engine().unwrap())
        .unwrap();
    let pending = list.copy_async(target, source).unwrap();
    let completion = pending.completion();
    // Disabled while pinned: the eviction waits for the pin.
    manager
        .disable_peer_access(&devices[1], &devices[0])
        .unwrap();
    drop(pending); // frees both allocations; the completion (and its pins) lives on
    let reused = manager.allocate(&devices[0], 4096).unwrap();
    manager.ensure_resident_on(&reused, &devices[1]).unwrap();
    drop(completion);
    assert!(reused.resident().contains(1));
    assert_eq!(manager.host_cost().current_bytes, harness.host_pinned());
    let mut landing = manager.allocate(&devices[1], 4096).unwrap();
    manager.copy(&mut landing, 0, &reused, 0, 4096).unwrap();
    assert_eq!(harness.counter("residency_violations"), 0);
    drop((reused, landing, list, manager));
    harness.assert_clean();
}

/// What the program asked to be resident is never the budget's to evict; when only that is
/// left, the budget refuses an explicit request and stages a copy.
#[test]
fn the_budget_evicts_only_what_lazy_usm_made_resident_itself() {
    const SIZE: usize = 1 << 20;
    let harness = Harness::simulated("b70x2");
    let devices = harness.runtime.devices().unwrap();
    let config = ResidencyConfig {
        host_budget: Some(2 * SIZE as u64 + 4096),
        self_test: SelfTest::Off,
        ..ResidencyConfig::new(Policy::Lazy)
    };
    let manager = ResidencyManager::new(Context::new(&devices).unwrap(), config).unwrap();
    let asked = manager.allocate(&devices[0], SIZE).unwrap();
    let used = manager.allocate(&devices[0], SIZE).unwrap();
    let later = manager.allocate(&devices[0], SIZE).unwrap();
    let mut target = manager.allocate(&devices[1], SIZE).unwrap();
    manager.ensure_resident_on(&asked, &devices[1]).unwrap();
    assert_eq!(
        manager.copy(&mut target, 0, &used, 0, SIZE).unwrap(),
        CopyPath::PeerToPeer
    );
    // `asked` is the least recently used, but the program asked for it: `used` goes.
    assert_eq!(
        manager.copy(&mut target, 0, &later, 0, SIZE).unwrap(),
        CopyPath::PeerToPeer
    );
    assert!(asked.resident().contains(1), "explicit residency kept");
    assert!(!used.resident().contains(1), "automatic residency evicted");
    // Asking for `used` now: only explicit residency and `later` (just used) could go.
    manager.ensure_resident_on(&later, &devices[1]).unwrap();
    assert!(matches!(
        manager.ensure_resident_on(&used, &devices[1]),
        Err(Error::HostBudgetExceeded { .. })
    ));
    assert_eq!(
        manager.copy(&mut target, 0, &used, 0, SIZE).unwrap(),
        CopyPath::Staged
    );
    let cost = manager.host_cost();
    assert!(
        cost.peak_bytes <= 2 * SIZE as u64 + 4096,
        "never over budget"
    );
    assert_eq!(
        cost.current_bytes,
        harness.host_pinned() - cost.staging_bytes
    );
    drop((asked, used, later, target, manager));
    harness.assert_clean();
}

/// The self-test's probe residency counts against the budget, and a zero-length copy makes
/// nothing resident and tests nothing.
#[test]
fn the_self_test_probe_stays_within_the_budget_and_empty_copies_do_nothing() {
    let harness = Harness::simulated("b70x2");
    let devices = harness.runtime.devices().unwrap();
    let config = ResidencyConfig {
        host_budget: Some(1024),
        ..ResidencyConfig::new(Policy::Lazy)
    };
    let manager = ResidencyManager::new(Context::new(&devices).unwrap(), config).unwrap();
    let source = manager.allocate(&devices[0], 512).unwrap();
    let mut target = manager.allocate(&devices[1], 512).unwrap();
    let calls = harness.counter("make_resident_calls");
    assert_eq!(
        manager.copy(&mut target, 0, &source, 0, 0).unwrap(),
        CopyPath::Empty
    );
    assert_eq!(
        harness.counter("make_resident_calls"),
        calls,
        "nothing made resident"
    );
    assert_eq!(harness.counter("p2p_copies"), 0, "no self-test");
    // The 4 KiB probe does not fit a 1 KiB budget: the copy is staged, the budget kept.
    assert_eq!(
        manager.copy(&mut target, 0, &source, 0, 512).unwrap(),
        CopyPath::Staged
    );
    assert!(manager.host_cost().peak_bytes <= 1024);
    drop((source, target, manager));
    harness.assert_clean();
}

/// A pool block whose copy was detached stays pinned: `trim` cannot evict its segment's peer
/// residency while the copy runs.
#[test]
fn trim_does_not_evict_under_a_detached_copy() {
    let harness = Harness::with_config(slow_config("b70x2"));
    let devices = harness.runtime.devices().unwrap();
    let manager =
        ResidencyManager::new(Context::new(&devices).unwrap(), ResidencyConfig::default()).unwrap();
    let pool = DevicePool::new(&manager, &devices[0], PoolConfig::default()).unwrap();
    let landing_pool = DevicePool::new(&manager, &devices[1], PoolConfig::default()).unwrap();
    let block = pool.allocate(4096).unwrap();
    manager.ensure_resident_on(&block, &devices[1]).unwrap();
    let list = manager
        .context()
        .immediate_list(&devices[1].preferred_copy_engine().unwrap())
        .unwrap();
    list.copy_async(landing_pool.allocate(4096).unwrap(), block)
        .unwrap()
        .detach();
    pool.trim().unwrap();
    landing_pool.trim().unwrap();
    drop(list);
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    while pool.reclaim() + landing_pool.reclaim() == 0 {
        assert!(
            std::time::Instant::now() < deadline,
            "the copy never completed"
        );
        std::thread::yield_now();
    }
    wait_idle(&harness);
    assert_eq!(harness.counter("residency_violations"), 0);
    pool.trim().unwrap();
    assert_eq!(pool.stats().peers[0].resident_bytes, 0, "evicted once idle");
    drop((pool, landing_pool, manager));
    harness.assert_clean();
}

/// Two peers noting the same block at once: the block counts as shared exactly once, so
/// `trim` keeps the segment resident while the block lives and releases it after.
#[test]
fn concurrent_peer_uses_of_one_block_count_it_shared_once() {
    let harness = Harness::simulated("b60x4-refused");
    let devices = harness.runtime.devices().unwrap();
    let manager =
        ResidencyManager::new(Context::new(&devices).unwrap(), ResidencyConfig::default()).unwrap();
    let pool = DevicePool::new(&manager, &devices[0], PoolConfig::default()).unwrap();
    for _ in 0..300 {
        let block = pool.allocate(4096).unwrap();
        let barrier = std::sync::Barrier::new(2);
        std::thread::scope(|scope| {
            for peer in [1, 2] {
                let (manager, block, barrier, devices) = (&manager, &block, &barrier, &devices);
                scope.spawn(move || {
                    barrier.wait();
                    manager.ensure_resident_on(block, &devices[peer]).unwrap();
                });
            }
        });
        pool.trim().unwrap();
        let stats = pool.stats();
        for peer in [0, 1] {
            assert!(
                stats.peers[peer].resident_bytes > 0,
                "a shared block's segment"
            );
            assert_eq!(stats.peers[peer].shared_bytes, 4096);
        }
        drop(block);
        pool.trim().unwrap();
        let stats = pool.stats();
        assert!(stats.peers.iter().all(|peer| peer.resident_bytes == 0));
        assert!(stats.peers.iter().all(|peer| peer.shared_bytes == 0));
    }
    drop((pool, manager));
    harness.assert_clean();
}

/// The pool's small-class miss may release idle segments (cache cap, out-of-memory retry)
/// while it grows a class: it must not hold a lock that releasing takes.
#[test]
fn small_class_misses_that_release_segments_do_not_deadlock() {
    run_with_timeout(Duration::from_secs(60), || {
        let harness = Harness::simulated("b70x2");
        let devices = harness.runtime.devices().unwrap();
        let manager =
            ResidencyManager::new(Context::new(&devices).unwrap(), ResidencyConfig::default())
                .unwrap();
        let config = PoolConfig {
            max_cached_bytes: Some(0),
            ..PoolConfig::default()
        };
        let pool = DevicePool::new(&manager, &devices[0], config).unwrap();
        // A cached idle segment, then a miss in the same class.
        let blocks: Vec<_> = (0..8).map(|_| pool.allocate(256).unwrap()).collect();
        drop(blocks);
        drop(pool.allocate(1 << 20).unwrap());
        let held: Vec<_> = (0..64).map(|_| pool.allocate(256).unwrap()).collect();
        drop(held);
        drop((pool, manager));
        harness.assert_clean();
    });
    run_with_timeout(Duration::from_secs(60), || {
        let mut config = ze_sim::SimConfig::preset("b70x2").unwrap();
        config.faults.device_memory_limit_bytes = Some(32 << 20);
        let harness = Harness::with_config(config);
        let devices = harness.runtime.devices().unwrap();
        let manager =
            ResidencyManager::new(Context::new(&devices).unwrap(), ResidencyConfig::default())
                .unwrap();
        let pool = DevicePool::new(&manager, &devices[0], PoolConfig::default()).unwrap();
        // Fill the device with a 32 MiB large segment, free its block (cached), then miss a class:
        // out of memory, release idle segments, retry.
        drop(pool.allocate(6 << 20).unwrap());
        let small = pool.allocate(4096).unwrap();
        assert_eq!(small.len(), 4096);
        drop(small);
        drop((pool, manager));
        harness.assert_clean();
    });
}

/// Bad sizes and configurations are typed errors, never panics.
#[test]
fn overflowing_sizes_and_configs_are_typed_errors() {
    let harness = Harness::simulated("b60x4-refused");
    let devices = harness.runtime.devices().unwrap();
    let context = Context::new(&devices).unwrap();
    let manager = ResidencyManager::new(context.clone(), ResidencyConfig::default()).unwrap();
    let pool = DevicePool::new(&manager, &devices[0], PoolConfig::default()).unwrap();
    assert!(matches!(
        pool.allocate(usize::MAX),
        Err(Error::SizeOverflow { .. })
    ));
    let huge = PoolConfig {
        dedicated_threshold: MAX_SEGMENT,
        ..PoolConfig::default()
    };
    let wide = DevicePool::new(&manager, &devices[0], huge).unwrap();
    assert!(matches!(
        wide.allocate(usize::MAX - 1),
        Err(Error::SizeOverflow { .. })
    ));
    let too_wide = PoolConfig {
        dedicated_threshold: usize::MAX,
        ..PoolConfig::default()
    };
    assert!(matches!(
        DevicePool::new(&manager, &devices[0], too_wide),
        Err(Error::BadConfig {
            field: "dedicated_threshold",
            ..
        })
    ));
    let chunk = ResidencyConfig {
        staging_chunk: usize::MAX,
        ..ResidencyConfig::default()
    };
    assert!(matches!(
        ResidencyManager::new(context.clone(), chunk),
        Err(Error::BadConfig {
            field: "staging_chunk",
            ..
        })
    ));
    // One-byte chunks: a staged copy of 4 GiB would need more events than a pool holds.
    let tiny = ResidencyConfig {
        staging_chunk: 1,
        ..ResidencyConfig::default()
    };
    let staged = ResidencyManager::new(context.clone(), tiny).unwrap();
    let source = staged.allocate(&devices[0], 4 << 30).unwrap();
    let mut target = staged.allocate(&devices[3], 4 << 30).unwrap();
    assert!(matches!(
        staged.copy(&mut target, 0, &source, 0, 4 << 30),
        Err(Error::InvalidArgument(message)) if message.contains("larger staging_chunk")
    ));
    assert!(matches!(
        DeviceSet::single(64),
        Err(Error::DeviceIndex { index: 64, .. })
    ));
    assert!(matches!(
        DeviceSet::EMPTY.with(70),
        Err(Error::DeviceIndex { index: 70, .. })
    ));
    drop((source, target, staged, wide, pool, manager, context));
    harness.assert_clean();
}

/// Devices of two platforms never compare equal, even where their raw handles could.
#[test]
fn devices_of_two_runtimes_are_never_equal() {
    let first = Runtime::simulated("b70x2").unwrap();
    let second = Runtime::simulated("b70x2").unwrap();
    let (a, b) = (first.devices().unwrap(), second.devices().unwrap());
    assert_ne!(a[0], b[0]);
    assert_ne!(a[0].driver(), b[0].driver());
    assert_eq!(
        a[0],
        first.devices().unwrap()[0],
        "the same device is equal"
    );
    assert!(Context::new(&[a[0].clone(), b[1].clone()]).is_err());
}
