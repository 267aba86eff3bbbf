//! Several threads allocating, copying and freeing on one context, on separate engines.

mod common;

use common::{Sim, ok};
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
