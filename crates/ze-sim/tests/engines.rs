//! Engines: every queue and immediate list of one engine (ordinal, index) runs its submissions
//! on that engine in submission order, as compute-runtime's one command stream receiver per
//! engine does, while other engines, and a device's low-priority compute context, run beside
//! it. Every wait here has a timeout: a test that could hang fails instead.

use crate::common::{Sim, ok};
use level_zero_sys::*;
use std::ffi::c_void;
use std::ptr::null_mut;
use std::time::{Duration, Instant};

const NORMAL: ze_command_queue_priority_t =
    ze_command_queue_priority_t::ZE_COMMAND_QUEUE_PRIORITY_NORMAL;
const LOW: ze_command_queue_priority_t =
    ze_command_queue_priority_t::ZE_COMMAND_QUEUE_PRIORITY_PRIORITY_LOW;
const COMPUTE: u32 = 0;
/// The main copy group (BCS0, one engine) and, on `xelink`, the linked copy group (eight).
const COPY: u32 = 1;
const LINKED_COPY: u32 = 2;
const BYTES: usize = 4096;
/// How long a submission that could run is given to run (it needs microseconds).
const SETTLE: Duration = Duration::from_millis(200);
/// Longer than any wait here should take: past it, the test fails rather than hangs.
const LIMIT_NS: u64 = 10_000_000_000;

/// Where a list runs: group ordinal, queue index, priority.
type Place = (u32, u32, ze_command_queue_priority_t);

struct Rig {
    sim: Sim,
    context: ze_context_handle_t,
    pool: ze_event_pool_handle_t,
    events: Vec<ze_event_handle_t>,
    buffer: *mut c_void,
}

impl Rig {
    fn new() -> Self {
        Self::on("b70x2")
    }

    fn on(preset: &str) -> Self {
        let sim = Sim::preset(preset);
        let context = sim.context(&[0, 1]);
        let pool = sim.event_pool(context, 3);
        let events = (0..3).map(|index| sim.event(pool, index)).collect();
        let buffer = sim.alloc_host(context, BYTES);
        Rig {
            sim,
            context,
            pool,
            events,
            buffer,
        }
    }

    fn list(&self, (ordinal, index, priority): Place) -> ze_command_list_handle_t {
        self.sim
            .immediate_list_on(self.context, 0, ordinal, index, priority)
    }

    fn wait_on(&self, list: ze_command_list_handle_t, event: ze_event_handle_t) {
        let mut waits = [event];
        // SAFETY: live handles, an array of one event.
        ok(unsafe {
            (self.sim.api.command_list_append_wait_on_events)(list, 1, waits.as_mut_ptr())
        });
    }

    fn signal(&self, list: ze_command_list_handle_t, event: ze_event_handle_t) {
        // SAFETY: live handles.
        ok(unsafe { (self.sim.api.command_list_append_signal_event)(list, event) });
    }

    /// Fills the host buffer with `value` on `list`, signalling `done`.
    fn fill(&self, list: ze_command_list_handle_t, value: u8, done: ze_event_handle_t) {
        let pattern = [value];
        // SAFETY: the rig's host allocation; a one-byte pattern.
        ok(unsafe {
            (self.sim.api.command_list_append_memory_fill)(
                list,
                self.buffer,
                pattern.as_ptr().cast(),
                1,
                BYTES,
                done,
                0,
                null_mut(),
            )
        });
    }

    /// `event`'s status after waiting up to `timeout_ns`.
    fn status_within(&self, event: ze_event_handle_t, timeout_ns: u64) -> ze_result_t {
        // SAFETY: a live event.
        unsafe { (self.sim.api.event_host_synchronize)(event, timeout_ns) }
    }

    fn host_signal(&self, event: ze_event_handle_t) {
        // SAFETY: a live event.
        ok(unsafe { (self.sim.api.event_host_signal)(event) });
    }

    fn buffer_holds(&self, value: u8) -> bool {
        // SAFETY: the rig's host allocation of `BYTES`, no command in flight on it.
        let bytes = unsafe { std::slice::from_raw_parts(self.buffer.cast::<u8>(), BYTES) };
        bytes.iter().all(|&byte| byte == value)
    }

    fn finish(self, lists: &[ze_command_list_handle_t]) {
        for &list in lists {
            self.sim.destroy_list(list);
        }
        self.sim.free(self.context, self.buffer);
        self.sim.destroy_events(self.pool, &self.events);
        self.sim.destroy_context(self.context);
        for name in ["residency_violations", "free_hazards", "destroy_hazards"] {
            assert_eq!(self.sim.counter(name), 0, "{name}");
        }
        self.sim.assert_clean();
    }
}

/// A list at `first` waits on a gate the host opens later; a list at `second` then fills the
/// buffer. Returns whether the fill ran while the gate was closed, after checking that both
/// complete once it opens.
fn fill_runs_behind_a_closed_gate(first: Place, second: Place) -> bool {
    fill_runs_behind_a_closed_gate_on("b70x2", first, second)
}

fn fill_runs_behind_a_closed_gate_on(preset: &str, first: Place, second: Place) -> bool {
    let rig = Rig::on(preset);
    let [gate, waited, filled] = rig.events[..] else {
        unreachable!()
    };
    let waiting = rig.list(first);
    let filling = rig.list(second);
    rig.wait_on(waiting, gate);
    rig.signal(waiting, waited);
    rig.fill(filling, 0xab, filled);
    let ran_behind = rig.status_within(filled, SETTLE.as_nanos() as u64);
    assert!(
        matches!(
            ran_behind,
            ze_result_t::ZE_RESULT_SUCCESS | ze_result_t::ZE_RESULT_NOT_READY
        ),
        "{ran_behind:?}"
    );
    assert_eq!(
        rig.status_within(waited, 0),
        ze_result_t::ZE_RESULT_NOT_READY,
        "the gate is closed"
    );
    rig.host_signal(gate);
    ok(rig.status_within(waited, LIMIT_NS));
    ok(rig.status_within(filled, LIMIT_NS));
    assert!(rig.buffer_holds(0xab), "the fill ran");
    assert_eq!(rig.sim.counter("engine_deadlocks"), 0);
    rig.finish(&[waiting, filling]);
    ran_behind == ze_result_t::ZE_RESULT_SUCCESS
}

#[test]
fn lists_on_one_engine_run_in_submission_order() {
    assert!(
        !fill_runs_behind_a_closed_gate((COMPUTE, 0, NORMAL), (COMPUTE, 0, NORMAL)),
        "a later submission on the same compute engine waits for the earlier one's wait"
    );
    assert!(
        !fill_runs_behind_a_closed_gate((COPY, 0, NORMAL), (COPY, 0, NORMAL)),
        "and on the same copy engine"
    );
    assert!(
        !fill_runs_behind_a_closed_gate_on(
            "xelink",
            (LINKED_COPY, 3, NORMAL),
            (LINKED_COPY, 3, NORMAL)
        ),
        "and on the same linked copy engine"
    );
}

#[test]
fn other_engines_and_the_low_priority_context_run_beside_a_waiting_engine() {
    assert!(
        fill_runs_behind_a_closed_gate((COMPUTE, 0, NORMAL), (COPY, 0, NORMAL)),
        "the copy engine runs while the compute engine waits"
    );
    assert!(
        fill_runs_behind_a_closed_gate_on("xelink", (COPY, 0, NORMAL), (LINKED_COPY, 0, NORMAL)),
        "index 0 of the linked copy group is another engine than the main copy engine \
         (level-zero-tests' interdependent pipelining puts its two copy queues there)"
    );
    assert!(
        fill_runs_behind_a_closed_gate_on(
            "xelink",
            (LINKED_COPY, 0, NORMAL),
            (LINKED_COPY, 1, NORMAL)
        ),
        "two linked copy engines are two engines"
    );
    assert!(
        fill_runs_behind_a_closed_gate((COMPUTE, 0, NORMAL), (COMPUTE, 0, LOW)),
        "the low-priority compute context runs beside the regular one"
    );
    assert!(
        !fill_runs_behind_a_closed_gate((COPY, 0, NORMAL), (COPY, 0, LOW)),
        "without context groups a low-priority copy queue gets the regular copy engine"
    );
}

/// A regular list executed on a queue and an immediate list of the same engine share it too
/// (level-zero-tests' in-order immediate and regular list case reads a kernel's result once
/// the queue's later copy signalled).
#[test]
fn a_queue_and_an_immediate_list_of_one_engine_share_it() {
    let rig = Rig::new();
    let [gate, _, filled] = rig.events[..] else {
        unreachable!()
    };
    let desc = ze_command_queue_desc_t {
        stype: ze_structure_type_t::ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC,
        ordinal: COMPUTE,
        ..Default::default()
    };
    let mut queue = null_mut();
    let list_desc = ze_command_list_desc_t {
        stype: ze_structure_type_t::ZE_STRUCTURE_TYPE_COMMAND_LIST_DESC,
        commandQueueGroupOrdinal: COMPUTE,
        ..Default::default()
    };
    let mut regular = null_mut();
    // SAFETY: valid handles, descriptors and output pointers.
    unsafe {
        ok((rig.sim.api.command_queue_create)(
            rig.context,
            rig.sim.devices[0],
            &desc,
            &mut queue,
        ));
        ok((rig.sim.api.command_list_create)(
            rig.context,
            rig.sim.devices[0],
            &list_desc,
            &mut regular,
        ));
    }
    rig.wait_on(regular, gate);
    // SAFETY: live handles.
    unsafe {
        ok((rig.sim.api.command_list_close)(regular));
        ok((rig.sim.api.command_queue_execute_command_lists)(
            queue,
            1,
            &mut regular,
            null_mut(),
        ));
    }
    let immediate = rig.list((COMPUTE, 0, NORMAL));
    rig.fill(immediate, 0x5a, filled);
    assert_eq!(
        rig.status_within(filled, SETTLE.as_nanos() as u64),
        ze_result_t::ZE_RESULT_NOT_READY,
        "the immediate list's fill waits behind the queue's wait"
    );
    rig.host_signal(gate);
    ok(rig.status_within(filled, LIMIT_NS));
    // SAFETY: live handles.
    unsafe {
        ok((rig.sim.api.command_queue_synchronize)(queue, LIMIT_NS));
        ok((rig.sim.api.command_list_destroy)(regular));
        ok((rig.sim.api.command_queue_destroy)(queue));
    }
    assert!(rig.buffer_holds(0x5a));
    rig.finish(&[immediate]);
}

/// A wait whose event only a later submission on the same engine signals hangs the engine, as
/// on hardware: counted, and released when the host signals the event.
#[test]
fn a_wait_on_a_signal_queued_behind_it_is_counted_as_a_deadlock() {
    for (signaller, deadlock) in [((COMPUTE, 0, NORMAL), true), ((COPY, 0, NORMAL), false)] {
        let rig = Rig::new();
        let [gate, waited, signalled] = rig.events[..] else {
            unreachable!()
        };
        let waiting = rig.list((COMPUTE, 0, NORMAL));
        let signalling = rig.list(signaller);
        rig.wait_on(waiting, gate);
        rig.signal(waiting, waited);
        rig.signal(signalling, gate);
        rig.signal(signalling, signalled);
        if deadlock {
            let deadline = Instant::now() + Duration::from_nanos(LIMIT_NS);
            while rig.sim.counter("engine_deadlocks") == 0 {
                assert!(Instant::now() < deadline, "the deadlock was not counted");
                std::thread::sleep(Duration::from_millis(1));
            }
            assert_eq!(
                rig.status_within(waited, SETTLE.as_nanos() as u64),
                ze_result_t::ZE_RESULT_NOT_READY,
                "the engine hangs on its own later signal"
            );
            rig.host_signal(gate);
        }
        ok(rig.status_within(waited, LIMIT_NS));
        // The signalling list's own work is done too before it goes.
        ok(rig.status_within(signalled, LIMIT_NS));
        assert_eq!(
            rig.sim.counter("engine_deadlocks"),
            u64::from(deadlock),
            "signalled from {signaller:?}"
        );
        rig.finish(&[waiting, signalling]);
    }
}

/// Threads making, using and destroying their own lists on one shared engine at once: every
/// fill lands, and nothing is left (the engine's thread is shared and handed on between them).
#[test]
fn threads_sharing_one_engine_each_get_their_work_done() {
    let sim = Sim::preset("b70x2");
    let context = sim.context(&[0]);
    let threads = 4;
    let rounds = 40;
    std::thread::scope(|scope| {
        for thread in 0..threads {
            let sim = &sim;
            let context_address = context as usize;
            scope.spawn(move || {
                let context = context_address as ze_context_handle_t;
                let pool = sim.event_pool(context, 1);
                let done = sim.event(pool, 0);
                let buffer = sim.alloc_host(context, BYTES);
                for round in 0..rounds {
                    let list = sim.immediate_list_on(context, 0, COMPUTE, 0, NORMAL);
                    let value = (thread * rounds + round) as u8;
                    let pattern = [value];
                    // SAFETY: this thread's host allocation; a one-byte pattern.
                    unsafe {
                        ok((sim.api.command_list_append_memory_fill)(
                            list,
                            buffer,
                            pattern.as_ptr().cast(),
                            1,
                            BYTES,
                            done,
                            0,
                            null_mut(),
                        ));
                        ok((sim.api.event_host_synchronize)(done, LIMIT_NS));
                        ok((sim.api.event_host_reset)(done));
                    }
                    // SAFETY: the fill completed.
                    let bytes = unsafe { std::slice::from_raw_parts(buffer.cast::<u8>(), BYTES) };
                    assert!(bytes.iter().all(|&byte| byte == value), "round {round}");
                    sim.destroy_list(list);
                }
                sim.free(context, buffer);
                sim.destroy_events(pool, &[done]);
            });
        }
    });
    sim.destroy_context(context);
    for name in [
        "residency_violations",
        "free_hazards",
        "destroy_hazards",
        "engine_deadlocks",
    ] {
        assert_eq!(sim.counter(name), 0, "{name}");
    }
    sim.assert_clean();
}

/// The device's low-priority context yields to the regular one, so in modelled time its work
/// never delays the regular context's (level-zero-tests' priority case: a high-priority
/// queue's fill, released with several low-priority ones, ends before them).
#[test]
fn low_priority_work_does_not_delay_the_regular_context_in_modelled_time() {
    let sim = Sim::preset("b70x2");
    let context = sim.context(&[0]);
    let lows = 6;
    let pool = sim.event_pool(context, lows + 2);
    let events: Vec<_> = (0..lows + 2).map(|index| sim.event(pool, index)).collect();
    let (gate, high_done, low_done) = (events[0], events[1], &events[2..]);
    let low_bytes = 1 << 20;
    let buffers: Vec<_> = (0..lows)
        .map(|_| sim.alloc_device(context, 0, low_bytes))
        .collect();
    let small = sim.alloc_device(context, 0, 1024);
    let fill = |list, pointer, size, done| {
        let mut waits = [gate];
        let pattern = [0x22u8];
        // SAFETY: a live list and device allocation of `size`; a one-byte pattern.
        ok(unsafe {
            (sim.api.command_list_append_memory_fill)(
                list,
                pointer,
                pattern.as_ptr().cast(),
                1,
                size,
                done,
                1,
                waits.as_mut_ptr(),
            )
        });
    };
    let low_lists: Vec<_> = (0..lows as usize)
        .map(|index| {
            let list = sim.immediate_list_on(context, 0, COMPUTE, 0, LOW);
            fill(list, buffers[index], low_bytes, low_done[index]);
            list
        })
        .collect();
    let high = sim.immediate_list_on(
        context,
        0,
        COMPUTE,
        0,
        ze_command_queue_priority_t::ZE_COMMAND_QUEUE_PRIORITY_PRIORITY_HIGH,
    );
    fill(high, small, 1024, high_done);
    // SAFETY: a live event.
    ok(unsafe { (sim.api.event_host_signal)(gate) });
    let end = |event| {
        let mut result = ze_kernel_timestamp_result_t::default();
        // SAFETY: a live, signalled timestamp event and an output struct.
        unsafe {
            ok((sim.api.event_host_synchronize)(event, LIMIT_NS));
            ok((sim.api.event_query_kernel_timestamp)(event, &mut result));
        }
        result.global.kernelEnd
    };
    let high_end = end(high_done);
    for (index, &done) in low_done.iter().enumerate() {
        assert!(
            end(done) > high_end,
            "low-priority fill {index} ended before the regular context's"
        );
    }
    for list in low_lists.into_iter().chain([high]) {
        sim.destroy_list(list);
    }
    for pointer in buffers.into_iter().chain([small]) {
        sim.free(context, pointer);
    }
    sim.destroy_events(pool, &events);
    sim.destroy_context(context);
    assert_eq!(sim.counter("residency_violations"), 0);
    sim.assert_clean();
}

/// A list whose only queued job has no commands (a barrier) waits behind another list's wait
/// on the engine: destroying it then is refused as busy (counted), never a hang, and succeeds
/// once the engine got past the wait. Every engine thread ends with its last list.
#[test]
fn destroying_a_list_queued_behind_a_wait_is_refused_not_hung() {
    let rig = Rig::new();
    let [gate, waited, _] = rig.events[..] else {
        unreachable!()
    };
    let waiting = rig.list((COMPUTE, 0, NORMAL));
    let behind = rig.list((COMPUTE, 0, NORMAL));
    assert_eq!(
        rig.sim.counter("live_engine_threads"),
        1,
        "one engine, one thread"
    );
    rig.wait_on(waiting, gate);
    rig.signal(waiting, waited);
    // SAFETY: a live list; a barrier with no events.
    ok(unsafe { (rig.sim.api.command_list_append_barrier)(behind, null_mut(), 0, null_mut()) });
    // On a thread of its own, so that a destroy that hangs fails the test instead.
    let (answered, answer) = std::sync::mpsc::channel();
    let destroy = rig.sim.api.command_list_destroy;
    let handle = behind as usize;
    std::thread::spawn(move || {
        // SAFETY: a live list.
        let _ = answered.send(unsafe { destroy(handle as ze_command_list_handle_t) });
    });
    assert_eq!(
        answer
            .recv_timeout(Duration::from_secs(10))
            .expect("the destroy hung behind the other list's wait"),
        ze_result_t::ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE
    );
    assert_eq!(rig.sim.counter("destroy_hazards"), 1);
    rig.host_signal(gate);
    ok(rig.status_within(waited, LIMIT_NS));
    let deadline = Instant::now() + Duration::from_nanos(LIMIT_NS);
    loop {
        // SAFETY: a live list until this call succeeds.
        match unsafe { (rig.sim.api.command_list_destroy)(behind) } {
            ze_result_t::ZE_RESULT_SUCCESS => break,
            ze_result_t::ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE => {
                assert!(Instant::now() < deadline, "the barrier never ran");
                std::thread::sleep(Duration::from_millis(1));
            }
            other => panic!("{other:?}"),
        }
    }
    rig.sim.destroy_list(waiting);
    assert_eq!(
        rig.sim.counter("live_engine_threads"),
        0,
        "ended with its last list"
    );
    // The refusal above is this test's one deliberate hazard.
    let hazards = rig.sim.counter("destroy_hazards");
    assert!(hazards >= 1);
    rig.sim.free(rig.context, rig.buffer);
    rig.sim.destroy_events(rig.pool, &rig.events);
    rig.sim.destroy_context(rig.context);
    rig.sim.assert_clean();
}
