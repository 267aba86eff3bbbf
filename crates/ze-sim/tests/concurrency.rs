//! Several threads allocating, copying and freeing on one context, on separate engines.

use crate::common::{Sim, ok};
use level_zero_sys::{
    ze_command_list_handle_t, ze_context_handle_t, ze_device_handle_t, ze_result_t,
};
use std::ffi::c_void;

#[test]
fn threads_share_one_context() {
    let sim = Sim::preset("b70x2");
    let context = sim.context(&[0, 1]);
    std::thread::scope(|scope| {
        for thread in 0..4u32 {
            let sim = &sim;
            let context_address = context as usize;
            scope.spawn(move || {
                let context = context_address as level_zero_sys::ze_context_handle_t;
                let device = thread % 2;
                let list = sim.immediate_list(context, device, 0);
                let pool = sim.event_pool(context, 1);
                let done = sim.event(pool, 0);
                for round in 0..25usize {
                    let size = 1 + (round * 997 + thread as usize * 131) % 65_536;
                    let bytes: Vec<u8> = (0..size)
                        .map(|i| (i + round + thread as usize) as u8)
                        .collect();
                    let pointer = sim.alloc_device(context, device, size);
                    let mut back = vec![0u8; size];
                    ok(sim.copy(
                        list,
                        pointer,
                        bytes.as_ptr() as *const c_void,
                        size,
                        std::ptr::null_mut(),
                        &mut [],
                    ));
                    ok(sim.copy(
                        list,
                        back.as_mut_ptr() as *mut c_void,
                        pointer,
                        size,
                        done,
                        &mut [],
                    ));
                    sim.wait(done);
                    // SAFETY: an event this thread created.
                    ok(unsafe { (sim.api.event_host_reset)(done) });
                    assert_eq!(back, bytes, "thread {thread} round {round}");
                    sim.free(context, pointer);
                }
                sim.destroy_events(pool, &[done]);
                sim.destroy_list(list);
            });
        }
    });
    assert_eq!(sim.counter("free_hazards"), 0);
    sim.destroy_context(context);
    sim.assert_clean();
}

#[test]
fn global_exports_answer_for_the_process_platform() {
    // The process-wide platform (the loader path's) is `b70x2` when ZE_SIM_CONFIG is unset.
    assert_eq!(ze_sim::zesim_host_pinned_bytes(), 0);
    // SAFETY: NUL-terminated names.
    unsafe {
        assert_eq!(ze_sim::zesim_counter(c"live_allocations".as_ptr()), 0);
        assert_eq!(ze_sim::zesim_counter(c"no_such_counter".as_ptr()), u64::MAX);
        assert_eq!(ze_sim::zesim_counter(std::ptr::null()), u64::MAX);
    }
    let mut small = [0i8; 8];
    // SAFETY: a buffer of the given length.
    let needed = unsafe { ze_sim::zesim_fdinfo(0, small.as_mut_ptr(), small.len()) };
    assert!(needed > small.len(), "the length it needs");
    assert_eq!(small, [0; 8], "nothing written when it does not fit");
    let mut buffer = vec![0i8; needed + 1];
    // SAFETY: as above.
    assert_eq!(
        unsafe { ze_sim::zesim_fdinfo(0, buffer.as_mut_ptr(), buffer.len()) },
        needed
    );
    let text: Vec<u8> = buffer[..needed].iter().map(|&c| c as u8).collect();
    let text = String::from_utf8(text).unwrap();
    assert!(
        text.starts_with("drm-driver:\txe\ndrm-pdev:\t0000:0e:00.0\n"),
        "{text}"
    );
    assert_eq!(buffer[needed], 0);
    // SAFETY: no buffer: only the length.
    assert_eq!(
        unsafe { ze_sim::zesim_fdinfo(9, std::ptr::null_mut(), 0) },
        0,
        "no device 9"
    );
}

/// `zeDeviceSynchronize` and `zeCommandListHostSynchronize` while other threads keep submitting
/// to the same device: each returns (it waits for the work given before it, not for an idle
/// moment that may never come), and nothing is left over. Under a timeout: a hang fails.
#[test]
fn synchronizing_returns_while_other_threads_keep_submitting() {
    let (finished, done) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut config = ze_sim::SimConfig::preset("b70x2").unwrap();
        config.async_execution = true;
        config.faults.command_delay_us = Some(100);
        let sim = Sim::in_process(config);
        let crate::common::Accounting::InProcess(platform) = &sim.accounting else {
            unreachable!("in process")
        };
        type DeviceSync = unsafe extern "C" fn(ze_device_handle_t) -> ze_result_t;
        type ListSync = unsafe extern "C" fn(ze_command_list_handle_t, u64) -> ze_result_t;
        // SAFETY: the simulator's entry points of these names have these signatures.
        let (device_sync, list_sync) = unsafe {
            (
                std::mem::transmute::<*const c_void, DeviceSync>(
                    platform.resolve("zeDeviceSynchronize").unwrap(),
                ),
                std::mem::transmute::<*const c_void, ListSync>(
                    platform.resolve("zeCommandListHostSynchronize").unwrap(),
                ),
            )
        };
        let context = sim.context(&[0, 1]);
        let source = sim.alloc_host(context, 4096);
        let stop = std::sync::atomic::AtomicBool::new(false);
        std::thread::scope(|scope| {
            for _ in 0..2 {
                let (sim, stop, context, source) = (&sim, &stop, context as usize, source as usize);
                scope.spawn(move || {
                    let context = context as ze_context_handle_t;
                    let list = sim.immediate_list(context, 0, 1);
                    let target = sim.alloc_device(context, 0, 4096);
                    let mut copies = 0;
                    while !stop.load(std::sync::atomic::Ordering::Relaxed) || copies < 20 {
                        ok(sim.copy(
                            list,
                            target,
                            source as *const c_void,
                            4096,
                            std::ptr::null_mut(),
                            &mut [],
                        ));
                        copies += 1;
                        // A bounded backlog (the engine takes 100 us a command): the other
                        // thread's synchronizations still always find work queued.
                        if copies % 8 == 0 {
                            // SAFETY: this thread's list.
                            ok(unsafe { list_sync(list, u64::MAX) });
                        }
                    }
                    // SAFETY: this thread's list.
                    ok(unsafe { list_sync(list, u64::MAX) });
                    sim.free(context, target);
                    sim.destroy_list(list);
                });
            }
            // Stops the submitters however this thread leaves the scope (a failed check too).
            struct Stop<'a>(&'a std::sync::atomic::AtomicBool);
            impl Drop for Stop<'_> {
                fn drop(&mut self) {
                    self.0.store(true, std::sync::atomic::Ordering::Relaxed);
                }
            }
            let _stop = Stop(&stop);
            let list = sim.immediate_list(context, 0, 0);
            let target = sim.alloc_device(context, 0, 4096);
            for _ in 0..20 {
                ok(sim.copy(list, target, source, 4096, std::ptr::null_mut(), &mut []));
                // SAFETY: a live device and this thread's list.
                unsafe {
                    ok(device_sync(sim.devices[0]));
                    // Nothing of this list is pending after the device was synchronized.
                    ok(list_sync(list, 0));
                }
            }
            sim.free(context, target);
            sim.destroy_list(list);
        });
        // SAFETY: a live device.
        ok(unsafe { device_sync(sim.devices[0]) });
        sim.free(context, source);
        assert_eq!(sim.counter("free_hazards"), 0);
        assert_eq!(sim.counter("destroy_hazards"), 0);
        sim.destroy_context(context);
        sim.assert_clean();
        finished.send(()).unwrap();
    });
    done.recv_timeout(std::time::Duration::from_secs(120))
        .expect("synchronizing hung (or the test body panicked)");
}
