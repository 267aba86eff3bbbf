//! A raw Level Zero program in C (`tests/c/kernels.c`) through the shim over the simulator's
//! loader stand-in: a kernel's pointer argument owned by a peer is made resident at its first
//! launch, once; a gather through a table of pointers no argument shows is a violation the
//! simulator reports under `LAZY_USM_INDIRECT=args`, and not under `all`.

use std::collections::HashMap;

/// Each printed step's (resident calls, pinned bytes, violations).
fn run(indirect: &str) -> Option<HashMap<String, (u64, u64, u64)>> {
    let program = crate::common::build("kernels")?;
    let output = program.run(
        &[program.module.as_os_str()],
        &[("LAZY_USM_INDIRECT", indirect)],
    );
    Some(
        String::from_utf8_lossy(&output.stdout)
            .lines()
            .map(|line| {
                let fields: Vec<&str> = line.split_whitespace().collect();
                let number = |index: usize| fields[index].parse::<u64>().unwrap();
                (fields[0].to_string(), (number(1), number(2), number(3)))
            })
            .collect(),
    )
}

const BUFFER: u64 = 1024 * 4;

#[test]
fn a_peer_argument_is_made_resident_at_first_launch_once_and_an_undeclared_gather_is_caught() {
    let Some(steps) = run("args") else { return };
    let (calls, pinned, violations) = steps["start"];
    assert_eq!((pinned, violations), (0, 0));
    assert_eq!(
        steps["copy"],
        (calls + 1, BUFFER, 0),
        "the source, on device 1, once"
    );
    assert_eq!(steps["copy-again"], steps["copy"], "not again");
    assert_eq!(
        steps["tables"],
        (calls + 2, 2 * BUFFER, 0),
        "through the getters' tables too"
    );
    let (gather_calls, gather_pinned, gather_violations) = steps["gather"];
    assert_eq!((gather_calls, gather_pinned), (calls + 2, BUFFER));
    assert!(
        gather_violations > 0,
        "reads through the table reached memory not resident"
    );
    // Four threads, 25 rounds each: every round's source made resident on device 1 exactly
    // once, with no further violation, and nothing pinned left once they freed it all.
    let (thread_calls, thread_pinned, thread_violations) = steps["threads"];
    assert_eq!(thread_calls, gather_calls + 4 * 25);
    assert_eq!(thread_violations, gather_violations);
    assert_eq!(thread_pinned, gather_pinned);
    assert_eq!(steps["end"].1, 0, "everything freed");
}

#[test]
fn indirect_all_makes_every_peer_allocation_resident_at_a_devices_first_launch() {
    let Some(steps) = run("all") else { return };
    let (calls, _, _) = steps["start"];
    assert_eq!(
        steps["copy"],
        (calls + 2, 2 * BUFFER, 0),
        "both of device 0's buffers"
    );
    // The third buffer, allocated after device 1's first launch, is made resident at once.
    assert_eq!(steps["tables"], (calls + 3, 3 * BUFFER, 0));
    assert_eq!(
        steps["gather"],
        (calls + 3, 2 * BUFFER, 0),
        "the gather is covered"
    );
    assert_eq!(steps["end"].1, 0);
}
