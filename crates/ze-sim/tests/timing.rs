//! Event timestamps report the modelled durations (seed 000's bandwidths), and platforms are
//! independent of each other.

use crate::common::{MIB, Sim, ok};
use level_zero_sys::*;

fn timed_copy(sim: &Sim, peer: bool, size: usize) -> u64 {
    let context = sim.context(&[0, 1]);
    let source = sim.alloc_device(context, 0, size);
    let target = sim.alloc_device(context, if peer { 1 } else { 0 }, size);
    ok(sim.make_resident(context, 1, source, size));
    let list = sim.immediate_list(context, if peer { 1 } else { 0 }, 1);
    let pool = sim.event_pool(context, 1);
    let done = sim.event(pool, 0);
    ok(sim.copy(list, target, source, size, done, &mut []));
    sim.wait(done);
    let mut stamp = ze_kernel_timestamp_result_t::default();
    // SAFETY: an event this test created and a valid output pointer.
    ok(unsafe { (sim.api.event_query_kernel_timestamp)(done, &mut stamp) });
    sim.destroy_events(pool, &[done]);
    sim.destroy_list(list);
    sim.free(context, source);
    sim.free(context, target);
    sim.destroy_context(context);
    stamp.global.kernelEnd - stamp.global.kernelStart
}

#[test]
fn timestamps_follow_the_timing_model() {
    let sim = Sim::preset("b70x2");
    let size = 64 * MIB;
    let latency = sim_latency();
    let peer = timed_copy(&sim, true, size);
    let local = timed_copy(&sim, false, size);
    // 1 GB/s is one byte per nanosecond.
    assert_eq!(peer, latency + (size as f64 / 28.6) as u64);
    assert_eq!(local, latency + (size as f64 / 588.0) as u64);
    sim.assert_clean();
}

fn sim_latency() -> u64 {
    ze_sim::TimingModel::default().latency_ns
}

#[test]
fn an_unsignaled_event_has_no_timestamp() {
    let sim = Sim::preset("b70x2");
    let context = sim.context(&[0]);
    let pool = sim.event_pool(context, 1);
    let event = sim.event(pool, 0);
    let mut stamp = ze_kernel_timestamp_result_t::default();
    // SAFETY: an event this test created and a valid output pointer.
    unsafe {
        assert_eq!(
            (sim.api.event_query_kernel_timestamp)(event, &mut stamp),
            ze_result_t::ZE_RESULT_NOT_READY
        );
        assert_eq!(
            (sim.api.event_host_synchronize)(event, 1_000_000),
            ze_result_t::ZE_RESULT_NOT_READY
        );
    }
    sim.destroy_events(pool, &[event]);
    sim.destroy_context(context);
    sim.assert_clean();
}

#[test]
fn platforms_are_independent() {
    let first = Sim::preset("b70x2");
    let second = Sim::preset("b70x2");
    let context = first.context(&[0, 1]);
    let pointer = first.alloc_device(context, 0, MIB);
    ok(first.make_resident(context, 1, pointer, MIB));
    assert_eq!(first.host_pinned(), MIB as u64);
    assert_eq!(second.host_pinned(), 0);
    assert_eq!(second.counter("live_allocations"), 0);
    // Entry points are shared; a handle carries its platform, so the second platform's table
    // still frees the first platform's allocation, and the second platform is untouched.
    // SAFETY: a live allocation of a live context, freed once.
    let foreign = unsafe { (second.api.mem_free)(context, pointer) };
    assert_eq!(
        foreign,
        ze_result_t::ZE_RESULT_SUCCESS,
        "handles carry their platform"
    );
    assert_eq!(first.counter("live_allocations"), 0);
    first.destroy_context(context);
    first.assert_clean();
    second.assert_clean();
}

/// `TimingModel::wall_clock`: a copy also takes its modelled time on the host's clock, so a
/// program timing copies with a host clock measures the model (never faster than it).
#[test]
fn on_the_wall_clock_a_copy_takes_its_modelled_time() {
    let mut config = ze_sim::SimConfig::preset("b70x2").unwrap();
    config.timing.wall_clock = true;
    let sim = Sim::in_process(config);
    let size = 64 * MIB;
    let modelled = sim_latency() + (size as f64 / 28.6) as u64;
    let began = std::time::Instant::now();
    let stamped = timed_copy(&sim, true, size);
    let elapsed = began.elapsed().as_nanos() as u64;
    assert_eq!(stamped, modelled, "timestamps stay the model's");
    assert!(
        elapsed >= modelled,
        "{elapsed} ns on the wall for a {modelled} ns copy"
    );
    sim.assert_clean();
}

/// A host wait with a timeout returns `NOT_READY` no earlier than the timeout, for timeouts
/// that end in its polled stretch (0.1 ms), its short sleeps (1 ms) and its condition-variable
/// wait (3 ms); a signal from another thread ends a long wait (one that missed it, or held
/// the event's lock while it slept, would fail here).
#[test]
fn a_timed_host_wait_lasts_its_timeout_and_ends_at_a_signal() {
    let sim = Sim::preset("b70x2");
    let context = sim.context(&[0]);
    let pool = sim.event_pool(context, 1);
    let event = sim.event(pool, 0);
    for timeout_ns in [100_000u64, 1_000_000, 3_000_000] {
        let began = std::time::Instant::now();
        // SAFETY: a live event.
        let result = unsafe { (sim.api.event_host_synchronize)(event, timeout_ns) };
        let elapsed = began.elapsed().as_nanos() as u64;
        assert_eq!(result, ze_result_t::ZE_RESULT_NOT_READY);
        assert!(
            elapsed >= timeout_ns,
            "{elapsed} ns for a {timeout_ns} ns timeout"
        );
    }
    // Signalled 50 ms into a 10 s wait (long after the wait began, on any host): the wait ends
    // then, long before the condition variable's own wake-up 2 ms before the timeout.
    let handle = event as usize;
    let api = &sim.api;
    let began = std::time::Instant::now();
    std::thread::scope(|scope| {
        scope.spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(50));
            // SAFETY: the live event, signalled once.
            ok(unsafe { (api.event_host_signal)(handle as ze_event_handle_t) });
        });
        // SAFETY: a live event.
        ok(unsafe { (sim.api.event_host_synchronize)(event, 10_000_000_000) });
    });
    let waited = began.elapsed();
    assert!(
        waited < std::time::Duration::from_secs(2),
        "the signal ended the wait after {waited:?}"
    );
    sim.destroy_events(pool, &[event]);
    sim.destroy_context(context);
    sim.assert_clean();
}
