//! The pool under work it does not see the end of: blocks freed behind fences keep their peer
//! sharing until the fence completes, out of memory waits (bounded) for pending frees, a pool
//! dropped under a fence that cannot settle leaks rather than frees, and by-pointer residency
//! never bypasses a segment's sharing.

use crate::common::{Harness, run_with_timeout};
use lazy_usm::*;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::time::Duration;

const MIB: usize = 1 << 20;

/// A platform whose devices have 256 MiB.
fn small_devices() -> Harness {
    let mut config = ze_sim::SimConfig::preset("b70x2").unwrap();
    config.faults.device_memory_limit_bytes = Some(256 * MIB as u64);
    Harness::with_config(config)
}

/// Completes `fence` from another thread after `delay`.
fn complete_after(fence: &Arc<Flag>, delay: Duration) -> std::thread::JoinHandle<()> {
    let fence = Arc::clone(fence);
    std::thread::spawn(move || {
        std::thread::sleep(delay);
        fence.0.store(true, Ordering::Release);
    })
}

fn setup(harness: &Harness) -> (ResidencyManager, Vec<Device>) {
    let devices = harness.runtime.devices().unwrap();
    let manager = ResidencyManager::new(
        Context::new(&devices).unwrap(),
        ResidencyConfig::new(Policy::Lazy),
    )
    .unwrap();
    (manager, devices)
}

/// A fence the test completes by hand.
struct Flag(AtomicBool);

impl WorkFence for Flag {
    fn is_complete(&self) -> bool {
        self.0.load(Ordering::Acquire)
    }
}

/// A fence whose runtime broke: it never completes and cannot be waited for.
struct Broken;

impl WorkFence for Broken {
    fn is_complete(&self) -> bool {
        false
    }

    fn settle(&self) -> Result<()> {
        Err(Error::Internal("the fence's runtime is gone".into()))
    }
}

/// Work lazy-usm does not see (a SYCL kernel, say): a copy of `size` bytes from `source` on an
/// immediate list of `device`, made straight through Level Zero, that starts once `gate`
/// signals, signalling `finished` when done (`events` = `[gate, finished]`). Returns the list,
/// to destroy once it has.
fn foreign_copy(
    runtime: &Runtime,
    context: &Context,
    device: &Device,
    target: usize,
    source: usize,
    size: usize,
    events: [&Event; 2],
) -> level_zero_sys::ze_command_list_handle_t {
    let [gate, finished] = events;
    use level_zero_sys::*;
    let api = runtime.api();
    let desc = ze_command_queue_desc_t {
        stype: ze_structure_type_t::ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC,
        mode: ze_command_queue_mode_t::ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS,
        ..Default::default()
    };
    let mut list = std::ptr::null_mut();
    let mut wait = gate.handle().0;
    // SAFETY: live handles of this runtime; the descriptor and outputs outlive the calls; the
    // copy's ranges are live allocations of `size` bytes that the caller keeps until it ends.
    unsafe {
        assert_eq!(
            (api.command_list_create_immediate)(
                context.handle().0,
                device.handle().0,
                &desc,
                &mut list
            ),
            ze_result_t::ZE_RESULT_SUCCESS
        );
        assert_eq!(
            (api.command_list_append_memory_copy)(
                list,
                target as *mut _,
                source as *const _,
                size,
                finished.handle().0,
                1,
                &mut wait
            ),
            ze_result_t::ZE_RESULT_SUCCESS
        );
    }
    list
}

#[test]
fn trim_keeps_a_blocks_peer_residency_while_fenced_work_still_reads_it_there() {
    run_with_timeout(Duration::from_secs(60), || {
        let harness = Harness::simulated("b70x2");
        let (manager, devices) = setup(&harness);
        let pool = DevicePool::new(&manager, &devices[0], PoolConfig::default()).unwrap();
        let context = manager.context().clone();
        let block = pool.allocate(4096).unwrap();
        // Device 1 uses the block through lazy-usm: its segment becomes resident there.
        let mut replica = manager.allocate(&devices[1], 4096).unwrap();
        manager.copy(&mut replica, 0, &block, 0, 4096).unwrap();
        let pinned = harness.host_pinned();
        assert!(pinned > 0);
        // Then work lazy-usm does not see reads it on device 1, behind a gate, and the block is
        // freed behind that work.
        let events = EventPool::new(&context, 2).unwrap();
        let (gate, finished) = (events.event(0).unwrap(), events.event(1).unwrap());
        let list = foreign_copy(
            &harness.runtime,
            &context,
            &devices[1],
            replica.address(),
            block.address(),
            4096,
            [&gate, &finished],
        );
        let done = Arc::new(Flag(AtomicBool::new(false)));
        block.free_after(done.clone());
        // Nothing live shares the segment, but the fenced work still reads it on device 1.
        pool.trim().unwrap();
        assert_eq!(
            harness.host_pinned(),
            pinned,
            "kept while the fence is pending"
        );
        gate.signal().unwrap();
        finished.wait().unwrap();
        // SAFETY: the list made above, idle now.
        assert_eq!(
            unsafe { (harness.runtime.api().command_list_destroy)(list) }.0,
            0
        );
        done.0.store(true, Ordering::Release);
        assert_eq!(harness.counter("residency_violations"), 0);
        // Once the fence completed, trim takes the residency back.
        assert_eq!(pool.reclaim(), 1);
        pool.trim().unwrap();
        assert_eq!(pool.stats().peers[0].resident_bytes, 0);
        drop((gate, finished, events, replica, pool, manager, context));
        harness.assert_clean();
    });
}

#[test]
fn out_of_memory_waits_for_blocks_freed_behind_running_work_before_failing() {
    run_with_timeout(Duration::from_secs(60), || {
        let harness = small_devices();
        let (manager, devices) = setup(&harness);
        let pool = DevicePool::new(&manager, &devices[0], PoolConfig::default()).unwrap();
        let block = pool.allocate(200 * MIB).unwrap();
        let fence = Arc::new(Flag(AtomicBool::new(false)));
        block.free_after(fence.clone());
        let completes = complete_after(&fence, Duration::from_millis(50));
        // Fits only once the freed block's work completed: the pool waits for it.
        let again = pool.allocate(200 * MIB).unwrap();
        assert!(fence.is_complete());
        completes.join().unwrap();
        drop(again);

        // Behind a fence that does not complete within the bound, the typed error, and the
        // block still waits (it is not reused under the work).
        let bounded = DevicePool::new(
            &manager,
            &devices[0],
            PoolConfig {
                out_of_memory_wait: Duration::from_millis(20),
                ..PoolConfig::default()
            },
        )
        .unwrap();
        drop(pool);
        let stuck = bounded.allocate(200 * MIB).unwrap();
        let never = Arc::new(Flag(AtomicBool::new(false)));
        stuck.free_after(never.clone());
        let error = bounded.allocate(200 * MIB).unwrap_err();
        assert!(matches!(error, Error::OutOfDeviceMemory { .. }), "{error}");
        never.0.store(true, Ordering::Release);
        assert_eq!(bounded.reclaim(), 1);
        drop((bounded, manager));
        harness.assert_clean();
    });
}

#[test]
fn a_pool_dropped_under_a_fence_that_cannot_settle_leaks_the_segment_instead_of_freeing_it() {
    let harness = Harness::simulated("b70x2");
    let (manager, devices) = setup(&harness);
    let pool = DevicePool::new(&manager, &devices[0], PoolConfig::default()).unwrap();
    let block = pool.allocate(10 * MIB).unwrap();
    let address = block.address();
    block.free_after(Arc::new(Broken));
    let live = harness.counter("live_allocations");
    drop(pool);
    // The device may still write it: the segment stays allocated, and the error is kept.
    assert_eq!(harness.counter("live_allocations"), live);
    assert!(
        manager.find(address).is_some(),
        "still a live allocation of the manager"
    );
    let errors = manager.context().take_drop_errors();
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert_eq!(harness.counter("free_hazards"), 0);
}

#[test]
fn residency_by_pointer_refuses_pool_memory_whose_segment_other_blocks_share() {
    let harness = Harness::simulated("b70x2");
    let (manager, devices) = setup(&harness);
    let pool = DevicePool::new(&manager, &devices[0], PoolConfig::default()).unwrap();
    let shared = pool.allocate(4096).unwrap();
    let neighbour = pool.allocate(4096).unwrap();
    let mut replica = manager.allocate(&devices[1], 4096).unwrap();
    manager.copy(&mut replica, 0, &shared, 0, 4096).unwrap();
    let pinned = harness.host_pinned();
    assert!(pinned > 0);
    // Evicting the neighbour would evict the segment `shared` still needs on device 1.
    let error = manager
        .evict_at(neighbour.address(), &devices[1])
        .unwrap_err();
    assert!(matches!(error, Error::PoolMemory { .. }), "{error}");
    assert_eq!(harness.host_pinned(), pinned, "still resident");
    // Residency asked by pointer would be taken back by trim behind the caller's back.
    let error = manager
        .ensure_resident_at(neighbour.address() + 8, &devices[1])
        .unwrap_err();
    assert!(matches!(error, Error::PoolMemory { .. }), "{error}");
    // Through the block itself it works, and trim keeps it while the block lives.
    manager.ensure_resident_on(&neighbour, &devices[1]).unwrap();
    drop(shared);
    pool.trim().unwrap();
    assert_eq!(harness.host_pinned(), pinned);
    assert!(manager.find(neighbour.address()).is_some());
    drop((neighbour, replica));
    pool.trim().unwrap();
    assert_eq!(harness.host_pinned(), 0);
    drop((pool, manager));
    harness.assert_clean();
}

/// Fills the small device with sixteen 16 MiB blocks (two to a 32 MiB segment), frees the last
/// one behind `fence`, and asks for 16 MiB again: its segment stays (its other block lives), so
/// the request must be served from that block once the work completes, not from a new
/// segment (none fits) nor with out of memory. `during` runs while the fence is pending.
fn fill_defer_one_and_allocate_again(fence: Arc<dyn WorkFence>, during: impl FnOnce()) {
    let harness = small_devices();
    let (manager, devices) = setup(&harness);
    let pool = DevicePool::new(&manager, &devices[0], PoolConfig::default()).unwrap();
    let mut blocks: Vec<_> = (0..16).map(|_| pool.allocate(16 * MIB).unwrap()).collect();
    let freed = blocks.pop().unwrap();
    let address = freed.address();
    freed.free_after(fence);
    during();
    let again = pool.allocate(16 * MIB).unwrap();
    assert_eq!(again.address(), address);
    drop((again, blocks));
    drop((pool, manager));
    harness.assert_clean();
}

#[test]
fn out_of_memory_takes_a_block_that_comes_back_into_a_segment_still_in_use() {
    run_with_timeout(Duration::from_secs(60), || {
        let fence = Arc::new(Flag(AtomicBool::new(false)));
        let mut completes = None;
        fill_defer_one_and_allocate_again(fence.clone(), || {
            completes = Some(complete_after(&fence, Duration::from_millis(20)));
        });
        completes.unwrap().join().unwrap();
    });
}

/// Work that completes while an allocation is failing: the block comes back inside the failed
/// attempt (the out-of-memory path reclaims before it asks the driver again), after which
/// nothing is left waiting; the allocation must still get it rather than report out of memory.
/// The fence completes at its second query, which falls inside the first attempt.
#[test]
fn work_completing_during_a_failing_attempt_still_serves_the_allocation() {
    struct SecondQuery(AtomicU32);
    impl WorkFence for SecondQuery {
        fn is_complete(&self) -> bool {
            self.0.fetch_add(1, Ordering::AcqRel) >= 1
        }
    }
    run_with_timeout(Duration::from_secs(60), || {
        let fence = Arc::new(SecondQuery(AtomicU32::new(0)));
        fill_defer_one_and_allocate_again(fence.clone(), || {});
        assert!(fence.0.load(Ordering::Acquire) >= 2, "asked while failing");
    });
}

/// The first allocation after a fence completes that finds this thread's cache empty gets the
/// block freed behind it, with no `reclaim` in between (as PyTorch allocates again after its
/// queue's work ran), before anything new is carved. 1 MiB blocks come one at a time, so the
/// cache holds no other.
#[test]
fn the_next_allocation_after_the_work_completes_reuses_the_block() {
    struct Flag(AtomicBool);
    impl WorkFence for Flag {
        fn is_complete(&self) -> bool {
            self.0.load(Ordering::Acquire)
        }
    }
    let harness = Harness::simulated("b70x2");
    let devices = harness.runtime.devices().unwrap();
    let manager =
        ResidencyManager::new(Context::new(&devices).unwrap(), ResidencyConfig::default()).unwrap();
    let pool = DevicePool::new(&manager, &devices[0], PoolConfig::default()).unwrap();
    for size in [1 << 20, (1 << 20) - 4096] {
        let block = pool.allocate(size).unwrap();
        let address = block.address();
        let work = Arc::new(Flag(AtomicBool::new(false)));
        block.free_after(work.clone());
        let during = pool.allocate(size).unwrap();
        assert_ne!(
            during.address(),
            address,
            "{size} B: not under running work"
        );
        work.0.store(true, Ordering::Release);
        let after = pool.allocate(size).unwrap();
        assert_eq!(
            after.address(),
            address,
            "{size} B: back once the work completed"
        );
    }
}

/// Threads free blocks behind fences while others allocate and reclaim at once (a reclaim
/// skips the deferred list's lock when it looks empty): no block is handed out while the work
/// it was freed behind runs, and once every fence has completed every block comes back and
/// nothing is left behind.
#[test]
fn blocks_deferred_and_reclaimed_from_several_threads_all_come_back() {
    run_with_timeout(Duration::from_secs(60), || {
        let harness = Harness::simulated("b70x2");
        let (manager, devices) = setup(&harness);
        let pool = DevicePool::new(&manager, &devices[0], PoolConfig::default()).unwrap();
        let fences: Vec<Arc<Flag>> = (0..4)
            .map(|_| Arc::new(Flag(AtomicBool::new(false))))
            .collect();
        // Each deferred block's address, with the fence it was freed behind.
        let deferred = std::sync::Mutex::new(std::collections::HashMap::new());
        std::thread::scope(|scope| {
            for thread in 0..4usize {
                let (pool, fences, deferred) = (&pool, &fences, &deferred);
                scope.spawn(move || {
                    for round in 0..200usize {
                        let block = pool.allocate(4096 << (round % 3)).unwrap();
                        let behind: Option<usize> =
                            deferred.lock().unwrap().get(&block.address()).copied();
                        assert!(
                            behind.is_none_or(|fence| fences[fence].is_complete()),
                            "thread {thread}: a block handed out under its running work"
                        );
                        if round % 2 == 0 {
                            deferred.lock().unwrap().insert(block.address(), thread);
                            block.free_after(Arc::clone(&fences[thread]) as Arc<dyn WorkFence>);
                        } else {
                            drop(block);
                        }
                        pool.reclaim();
                    }
                });
            }
            // Each thread's work completes while the others still defer and reclaim.
            for fence in &fences {
                std::thread::sleep(Duration::from_millis(5));
                fence.0.store(true, Ordering::Release);
            }
        });
        pool.reclaim();
        assert_eq!(pool.stats().allocated_bytes, 0, "{:?}", pool.stats());
        pool.trim().unwrap();
        assert_eq!(pool.stats().reserved_bytes, 0, "{:?}", pool.stats());
        drop(pool);
        drop(manager);
        harness.assert_clean();
    });
}

/// A fence that follows `WorkFence`'s own advice (`false` when it cannot tell) and never
/// completes: dropping the pool ends, leaks the segments its blocks are in, and says so once.
#[test]
fn a_pool_dropped_under_a_fence_that_never_completes_ends_and_leaks_once() {
    run_with_timeout(Duration::from_secs(60), || {
        let harness = Harness::simulated("b70x2");
        let (manager, devices) = setup(&harness);
        let pool = DevicePool::new(&manager, &devices[0], PoolConfig::default()).unwrap();
        let never = Arc::new(Flag(AtomicBool::new(false)));
        let addresses: Vec<usize> = (0..3)
            .map(|_| {
                let block = pool.allocate(10 * MIB).unwrap();
                let address = block.address();
                block.free_after(Arc::clone(&never) as Arc<dyn WorkFence>);
                address
            })
            .collect();
        let other = pool.allocate(4096).unwrap();
        other.free_after(Arc::new(Flag(AtomicBool::new(false))));
        let live = harness.counter("live_allocations");
        let started = std::time::Instant::now();
        drop(pool);
        assert!(
            started.elapsed() < FENCE_SETTLE_WAIT * 2,
            "one wait for the whole drop, not one per fence: {:?}",
            started.elapsed()
        );
        assert_eq!(harness.counter("live_allocations"), live, "nothing freed");
        for address in addresses {
            assert!(manager.find(address).is_some());
        }
        let errors = manager.context().take_drop_errors();
        assert_eq!(errors.len(), 1, "said once: {errors:?}");
        assert!(
            matches!(errors[0], Error::WorkNotComplete { .. }),
            "{errors:?}"
        );
        assert_eq!(harness.counter("free_hazards"), 0);
    });
}
