//! The shim's host budget (`LAZY_USM_HOST_BUDGET`), each a C scenario (`tests/c/budget.c`) run
//! through the shim over the simulator: strict residency (a use of memory not resident on the
//! executing device is a counted violation), and an eviction of memory that queued work still
//! uses is counted as one too.

use std::collections::HashMap;

/// Runs `scenario` with allocations of `mib` MiB: its figures, its stderr, and whether it ended
/// well.
fn scenario(
    name: &str,
    mib: u64,
    env: &[(&str, &str)],
) -> Option<(HashMap<String, u64>, String, std::process::ExitStatus)> {
    let program = crate::common::build("budget")?;
    let mib = mib.to_string();
    let output = program.output(
        &[name.as_ref(), mib.as_ref(), program.module.as_os_str()],
        env,
    );
    Some((
        crate::common::figures(&output),
        String::from_utf8_lossy(&output.stderr).into_owned(),
        output.status,
    ))
}

/// [`scenario`], which must end well.
fn run(name: &str, mib: u64, env: &[(&str, &str)]) -> Option<(HashMap<String, u64>, String)> {
    let (figures, stderr, status) = scenario(name, mib, env)?;
    assert!(
        status.success(),
        "{name} failed ({status:?}): {figures:?}\n{stderr}"
    );
    assert_eq!(figures["wrong_bytes"], 0, "every byte read is right");
    assert_eq!(figures["violations"], 0, "nothing used while not resident");
    assert_eq!(figures["hazards"], 0);
    assert_eq!(
        figures["overlaps"], 0,
        "the budget never asked a list whether it was done beside an append to it"
    );
    Some((figures, stderr))
}

/// The pinned MiB after each of `steps`.
fn pinned(figures: &HashMap<String, u64>, steps: &[&str]) -> Vec<u64> {
    steps
        .iter()
        .map(|step| figures[&format!("{step}.pinned")])
        .collect()
}

#[test]
fn four_gib_read_in_turn_under_a_two_gib_budget_stay_within_it_every_byte_right() {
    let budget = [("LAZY_USM_HOST_BUDGET", "2GiB"), ("LAZY_USM_REPORT", "1")];
    let Some((figures, stderr)) = run("in-turn", 1024, &budget) else {
        return;
    };
    let reads = ["read0", "read1", "read2", "read3", "read4"];
    assert_eq!(pinned(&figures, &reads), [1024, 2048, 2048, 2048, 2048]);
    assert_eq!(figures["peak_pinned_mib"], 2048, "never past the budget");
    assert_eq!(figures["freed.pinned"], 0);
    // Made: each of the four, then the first again; evicted: the oldest for each of the last
    // three.
    assert_eq!(figures["make_resident_calls"], 5);
    assert_eq!(figures["evict_calls"], 3);
    assert!(
        stderr.contains("host budget 2.00 GiB: peak 2.00 GiB held, 0.00 MiB at exit; 3 evicted (3.00 GiB), 1 re-imported (1.00 GiB); passed 0 times; 0 evictions refused"),
        "the exit report says what the budget cost:\n{stderr}"
    );
}

#[test]
fn without_a_budget_every_allocation_read_stays_pinned() {
    let Some((figures, _)) = run("in-turn", 1024, &[]) else {
        return;
    };
    assert_eq!(figures["peak_pinned_mib"], 4 * 1024);
    assert_eq!(figures["evict_calls"], 0);
}

#[test]
fn a_program_that_waits_through_events_has_its_lists_asked_whether_their_work_is_done() {
    let Some((figures, _)) = run("events", 64, &[("LAZY_USM_HOST_BUDGET", "128MiB")]) else {
        return;
    };
    let reads = ["read0", "read1", "read2", "read3", "read4"];
    assert_eq!(pinned(&figures, &reads), [64, 128, 128, 128, 128]);
    assert_eq!(figures["evict_calls"], 3);
}

#[test]
fn a_clone_keeps_what_its_sources_commands_read_after_the_source_is_gone() {
    // A driver that implements the clone extension (compute-runtime answers it unsupported).
    let mut config = ze_sim::SimConfig::preset("b70x2").unwrap();
    config.command_list_clone = true;
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("clone.toml");
    std::fs::write(&path, config.to_toml()).unwrap();
    let env = [
        ("ZE_SIM_CONFIG", path.to_str().unwrap()),
        ("LAZY_USM_HOST_BUDGET", "64MiB"),
    ];
    let Some((figures, stderr)) = run("clone", 64, &env) else {
        return;
    };
    let steps = ["cloned", "b-read", "c-read", "freed"];
    assert_eq!(pinned(&figures, &steps), [64, 128, 64, 0], "{stderr}");
}

#[test]
fn queued_work_keeps_what_it_uses_and_the_budget_passes_rather_than_evict_it() {
    let Some((figures, stderr)) = run("busy", 64, &[("LAZY_USM_HOST_BUDGET", "128MiB")]) else {
        return;
    };
    let steps = [
        "a-waiting",
        "b-read",
        "c-read",
        "d-recorded",
        "b-again",
        "ran",
        "c-again",
        "freed",
    ];
    // c evicts b, not a (a copy waits for an event); d evicts c; b again finds a waiting and d
    // recorded in a list not yet reset, and passes the budget; once both ran, a and d go.
    assert_eq!(
        pinned(&figures, &steps),
        [64, 128, 128, 128, 192, 192, 128, 0]
    );
    assert!(
        stderr.contains("host budget passed") && stderr.contains("used by queued work"),
        "the pass is said, with why:\n{stderr}"
    );
}

#[test]
fn threads_reading_in_turn_evict_each_others_residency_only_once_it_is_idle() {
    // Four threads, each with its own list, read sixteen 8 MiB allocations in turn.
    let Some((figures, stderr)) = run("threads", 8, &[("LAZY_USM_HOST_BUDGET", "32MiB")]) else {
        return;
    };
    assert!(figures["evict_calls"] > 0, "the budget evicted");
    // Room is made before each residency; a thread's copy in flight keeps its source, so at
    // most one residency per thread passes the budget (16 x 8 MiB without a budget).
    assert!(
        figures["peak_pinned_mib"] <= 32 + 4 * 8,
        "peak {} MiB:\n{stderr}",
        figures["peak_pinned_mib"]
    );
    assert_eq!(pinned(&figures, &["freed"]), [0]);
}

#[test]
fn threads_that_wait_through_events_have_their_lists_asked_never_beside_an_append() {
    // As above, but each copy is waited for through its event: the budget asks the lists
    // whether their work is done, while the other threads append to theirs. A list with work
    // in flight keeps what it used since it was last found idle, so under load the budget may
    // be passed until everything is resident (seen under CI's load): what must hold is safety
    // (no use of memory not resident, no question beside an append: `run` checks both) and
    // that it evicts at all.
    let Some((figures, stderr)) = run("threads-events", 8, &[("LAZY_USM_HOST_BUDGET", "32MiB")])
    else {
        return;
    };
    assert!(figures["evict_calls"] > 0, "the budget evicted:\n{stderr}");
    assert_eq!(pinned(&figures, &["freed"]), [0]);
}

#[test]
fn a_copy_between_two_peer_allocations_keeps_both_past_the_budget() {
    let Some((figures, stderr)) = run("one-copy", 64, &[("LAZY_USM_HOST_BUDGET", "64MiB")]) else {
        return;
    };
    assert_eq!(pinned(&figures, &["copied", "freed"]), [128, 0]);
    assert_eq!(figures["evict_calls"], 0, "the copy's source stays");
    assert!(stderr.contains("host budget passed"), "{stderr}");
}

#[test]
fn a_driver_that_refuses_peer_evictions_is_asked_once_per_residency_and_nothing_is_lost() {
    let env = [
        ("ZE_SIM_CONFIG", "b70x2-26.31"),
        ("LAZY_USM_HOST_BUDGET", "128MiB"),
        ("LAZY_USM_REPORT", "1"),
    ];
    let Some((figures, stderr)) = run("in-turn", 64, &env) else {
        return;
    };
    let reads = ["read0", "read1", "read2", "read3", "read4"];
    assert_eq!(pinned(&figures, &reads), [64, 128, 192, 256, 256]);
    // The third read asks for the first two, the fourth for the third only.
    assert_eq!(figures["evict_calls"], 3);
    assert_eq!(figures["make_resident_calls"], 4, "nothing re-imported");
    assert_eq!(figures["freed.pinned"], 0, "all released at the frees");
    assert!(
        stderr.contains("the driver refused to evict") && stderr.contains("3 evictions refused"),
        "{stderr}"
    );
}

#[test]
fn kernels_that_may_read_any_peer_allocation_keep_them_all_until_they_ran() {
    let env = [
        ("LAZY_USM_INDIRECT", "all"),
        ("LAZY_USM_HOST_BUDGET", "128MiB"),
    ];
    let Some((figures, _)) = run("indirect", 64, &env) else {
        return;
    };
    // The launch needs all three (past the budget); the allocation made once it ran evicts the
    // two oldest; the next launch needs everything again; an allocation made while a launch
    // waits for an event evicts nothing.
    let steps = [
        "launched",
        "allocated",
        "launched-again",
        "allocated-while-queued",
        "freed",
    ];
    assert_eq!(pinned(&figures, &steps), [192, 128, 256, 320, 0]);
    assert_eq!(figures["evict_calls"], 2);
}

#[test]
fn a_budget_that_is_not_a_size_stops_the_program_at_start_and_says_why() {
    for (value, why) in [
        ("2GB", "`GB` is not a unit"),
        ("0", "0 bytes"),
        ("lots", "`lots` is not a number"),
    ] {
        let Some((figures, stderr, status)) =
            scenario("in-turn", 64, &[("LAZY_USM_HOST_BUDGET", value)])
        else {
            return;
        };
        assert_eq!(status.code(), Some(2), "{value}: {stderr}");
        assert!(
            stderr.contains(&format!("LAZY_USM_HOST_BUDGET=\"{value}\" is not a size"))
                && stderr.contains(why),
            "{value}: {stderr}"
        );
        assert!(figures.is_empty(), "nothing ran");
    }
}
