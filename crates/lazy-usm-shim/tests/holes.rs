//! Ways past the shim's residency that a real runtime or a careless caller takes, each a C
//! scenario (`tests/c/holes.c`) run through the shim over the simulator (strict residency: a use
//! of memory not resident on the executing device is a counted violation).

use std::collections::HashMap;

const SUCCESS: u64 = 0;

/// A printed step's (resident calls, pinned bytes, violations).
fn step(figures: &HashMap<String, u64>, name: &str) -> (u64, u64, u64) {
    (
        figures[&format!("{name}.calls")],
        figures[&format!("{name}.pinned")],
        figures[&format!("{name}.violations")],
    )
}

fn scenario(name: &str, env: &[(&str, &str)]) -> Option<(HashMap<String, u64>, String)> {
    let program = crate::common::build("holes")?;
    let output = program.run(&[name.as_ref(), program.module.as_os_str()], env);
    Some((
        crate::common::figures(&output),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    ))
}

#[test]
fn an_allocation_made_while_a_device_is_made_everything_resident_is_resident_there_too() {
    let Some((figures, _)) = scenario("allocation-race", &[("LAZY_USM_INDIRECT", "all")]) else {
        return;
    };
    assert!(
        figures["overlap"] > 0,
        "the passes ran beside the allocations"
    );
    assert_eq!(
        figures["missing"], 0,
        "every one of device 0's allocations ends resident on device 1"
    );
    assert_eq!(figures["race.violations"], 0);
    assert_eq!(figures["race.pinned"], 0, "all freed");
    assert_eq!(figures["hazards"], 0);
}

#[test]
fn appends_that_take_usm_pointers_make_a_peers_memory_resident_first() {
    let Some((figures, _)) = scenario("other-appends", &[]) else {
        return;
    };
    let step = |name: &str| step(&figures, name);
    let (calls, pinned, violations) = step("start");
    assert_eq!((pinned, violations), (0, 0));
    let size = 4096u64;
    assert_eq!(
        step("from-context"),
        (calls + 1, size, 0),
        "the copy's target"
    );
    assert_eq!(figures["from-context.bytes-match"], 1);
    assert_eq!(step("timestamp"), (calls + 2, size + 64, 0));
    assert_eq!(
        step("kernel-timestamps"),
        (calls + 4, 3 * size + 64, 0),
        "through the getters' table too, its results' base and the allocation an offset reaches"
    );
    assert_eq!(step("end").1, 0);
    assert_eq!(figures["hazards"], 0);
}

#[test]
fn residency_requests_are_deferred_only_for_the_allocations_own_context_and_range() {
    let Some((figures, _)) = scenario("residency-requests", &[]) else {
        return;
    };
    let mib = 1u64 << 20;
    let start = figures["start.calls"];
    // At an interior pointer: deferred (nothing pinned), and its eviction answered.
    assert_eq!(figures["interior.result"], SUCCESS);
    assert_eq!(
        (figures["interior.calls"], figures["interior.pinned"]),
        (start, 0)
    );
    assert_eq!(figures["interior-evict.result"], SUCCESS);
    assert_eq!(figures["interior-evict.pinned"], 0);
    // Past the allocation's end: forwarded, and the driver refuses it.
    assert_ne!(figures["beyond.result"], SUCCESS);
    assert_eq!(figures["beyond.calls"], start + 1, "forwarded");
    // Another context: forwarded, and the driver refuses it.
    assert_ne!(figures["other-context.result"], SUCCESS);
    assert_eq!(figures["other-context.calls"], start + 2, "forwarded");
    assert_ne!(figures["other-context-evict.result"], SUCCESS);
    // Made resident by a use, then evicted by the program: the mirror goes.
    assert_eq!(figures["whole.result"], SUCCESS);
    assert_eq!(figures["used.pinned"], mib);
    assert_eq!(figures["whole-evict.result"], SUCCESS);
    assert_eq!(
        figures["whole-evict.pinned"], 0,
        "the eviction was forwarded"
    );
    assert_eq!(
        (figures["reused.calls"], figures["reused.pinned"]),
        (figures["whole-evict.calls"] + 1, mib),
        "evicted, so made resident again at the next use"
    );
    assert_eq!(figures["reused.violations"], 0);
    assert_eq!(figures["used.violations"], 0);
    assert_eq!(figures["end.pinned"], 0);
}

#[test]
fn calls_the_driver_refuses_leave_the_shims_records_as_they_were() {
    let Some((figures, _)) = scenario("refused-calls", &[]) else {
        return;
    };
    let buffer = 4096u64;
    for refused in ["free-wrong-context", "list-destroy", "kernel-destroy"] {
        assert_ne!(
            figures[&format!("{refused}.result")],
            SUCCESS,
            "{refused} is refused"
        );
    }
    let start = figures["start.calls"];
    // After each refusal a peer use in the context is still made resident, with no violation.
    for (step, uses) in [
        ("after-free", 1),
        ("after-list-destroy", 2),
        ("after-kernel-destroy", 3),
    ] {
        assert_eq!(
            (
                figures[&format!("{step}.calls")],
                figures[&format!("{step}.pinned")],
                figures[&format!("{step}.violations")]
            ),
            (start + uses, uses * buffer, 0),
            "{step}"
        );
    }
    assert_eq!(figures["kernel.bytes-match"], 1);
    assert_eq!(figures["end.pinned"], 0);
    // The simulator counts the two destructions refused under queued work, and nothing else.
    assert_eq!(figures["hazards"], 2);
}

#[test]
fn a_forked_child_does_not_print_the_parents_report() {
    let Some((figures, stderr)) = scenario("fork-child", &[("LAZY_USM_REPORT", "1")]) else {
        return;
    };
    assert_eq!(figures["child.exit"], 0);
    let reports = stderr
        .lines()
        .filter(|line| line.starts_with("lazy-usm shim ("))
        .count();
    assert_eq!(reports, 1, "only the parent reports:\n{stderr}");
}

#[test]
fn launches_whose_arguments_travel_with_them_are_as_precise_as_argument_by_argument_ones() {
    let Some((figures, _)) = scenario("launch-with-arguments", &[]) else {
        return;
    };
    let buffer = 4096u64;
    let step = |name: &str| step(&figures, name);
    let (calls, pinned, violations) = step("start");
    assert_eq!((pinned, violations), (0, 0));
    assert_eq!(
        step("precise"),
        (calls + 1, buffer, 0),
        "the source only, not device 0's bystander"
    );
    assert_eq!(figures["precise.bytes-match"], 1);
    assert_eq!(step("kept"), (calls + 1, buffer, 0));
    assert_eq!(figures["kept.bytes-match"], 1);
    // A native binary's kernel: the shim cannot read its arguments, so everything of device 0.
    assert_eq!(step("fallback"), (calls + 2, 2 * buffer, 0));
    assert_eq!(step("end").1, 0);
    assert_eq!(figures["hazards"], 0);
}

#[test]
fn mapped_physical_memory_is_lazy_on_peers_like_a_device_allocation() {
    let Some((figures, _)) = scenario("virtual-memory", &[]) else {
        return;
    };
    let mib = 1u64 << 20;
    assert_eq!(figures["page"], 64 << 10);
    let calls = figures["mapped.calls"];
    assert_eq!(figures["mapped.pinned"], 0);
    // The peer residency asked for is deferred...
    assert_eq!(figures["asked.result"], SUCCESS);
    assert_eq!(
        (figures["asked.calls"], figures["asked.pinned"]),
        (calls, 0)
    );
    // ...and made at the peer's first use, with the bytes the owner wrote.
    assert_eq!(
        (
            figures["used.calls"],
            figures["used.pinned"],
            figures["used.violations"]
        ),
        (calls + 1, mib, 0)
    );
    assert_eq!(figures["used.bytes-match"], 1);
    assert_ne!(
        figures["destroy-mapped.result"], SUCCESS,
        "mapped memory stays"
    );
    assert_eq!(figures["unmapped.pinned"], 0, "unmapping takes the mirror");
    // A new mapping of the same physical memory is a new allocation: made resident again.
    assert_eq!(figures["remapped.bytes-match"], 1);
    assert_eq!(
        (
            figures["remapped.calls"],
            figures["remapped.pinned"],
            figures["remapped.violations"]
        ),
        (calls + 2, mib, 0)
    );
    assert_eq!(figures["end.pinned"], 0);
    assert_eq!(figures["hazards"], 0);
}

#[test]
fn an_exported_allocation_stays_lazy_and_an_opened_one_is_left_to_the_driver() {
    let Some((figures, _)) = scenario("ipc", &[]) else {
        return;
    };
    let buffer = 4096u64;
    let step = |name: &str| step(&figures, name);
    // Exporting changes nothing: the peer request is deferred.
    assert_eq!(figures["exported-asked.result"], SUCCESS);
    let (calls, pinned, violations) = step("exported-asked");
    assert_eq!((pinned, violations), (0, 0));
    // The opened mapping is a new address with the exporter's bytes, usable on its owner.
    assert_eq!(figures["opened.distinct"], 1);
    assert_eq!(figures["opened.bytes-match"], 1);
    assert_eq!(step("opened"), (calls, 0, 0));
    // A peer's use of it gets no residency from the shim (strict residency refuses it)...
    assert_ne!(figures["opened-peer-use.result"], SUCCESS);
    assert_eq!(step("opened-peer-use"), (calls, 0, 1));
    // ...and the program's own request for it is forwarded, not deferred.
    assert_eq!(figures["opened-asked.result"], SUCCESS);
    assert_eq!(step("opened-asked"), (calls + 1, buffer, 1));
    assert_eq!(step("closed").1, 0, "closing takes its residency");
    // The exported allocation's peer use is made resident by the shim.
    assert_eq!(step("exported-use"), (calls + 2, buffer, 1));
    assert_eq!(figures["exported-use.bytes-match"], 1);
    assert_eq!(step("end").1, 0);
}

#[test]
fn a_mapping_made_after_a_devices_first_launch_under_indirect_all_is_resident_there() {
    let Some((figures, _)) = scenario("mapped-after-mark", &[("LAZY_USM_INDIRECT", "all")]) else {
        return;
    };
    let calls = figures["marked.calls"];
    assert_eq!(
        (figures["mapped.calls"], figures["mapped.pinned"]),
        (calls + 1, 1 << 20),
        "resident on device 1 at once"
    );
    assert_eq!(figures["end.pinned"], 0);
    assert_eq!(figures["end.violations"], 0);
}

#[test]
fn a_cloned_list_runs_on_its_sources_device_and_its_appends_make_peers_resident() {
    // A driver that implements the clone extension (compute-runtime answers it unsupported).
    let mut config = ze_sim::SimConfig::preset("b70x2").unwrap();
    config.command_list_clone = true;
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("clone.toml");
    std::fs::write(&path, config.to_toml()).unwrap();
    let Some((figures, stderr)) =
        scenario("cloned-list", &[("ZE_SIM_CONFIG", path.to_str().unwrap())])
    else {
        return;
    };
    let (calls, pinned, violations) = step(&figures, "start");
    assert_eq!((pinned, violations), (0, 0), "{stderr}");
    assert_eq!(
        step(&figures, "copied"),
        (calls + 1, 4096, 0),
        "device 1's memory made resident on the clone's device before the copy: {stderr}"
    );
    assert_eq!(figures["hazards"], 0);
}

#[test]
fn every_mapping_a_copys_range_or_a_kernels_reservation_touches_is_made_resident() {
    let Some((figures, stderr)) = scenario("split-reservation", &[]) else {
        return;
    };
    let size = figures["size"];
    let (calls, pinned, violations) = step(&figures, "start");
    assert_eq!((pinned, violations), (0, 0), "{stderr}");
    // The copy's source starts in device 1's own memory and runs into device 0's.
    assert_eq!(
        step(&figures, "copied"),
        (calls + 1, size, 0),
        "the second half, made resident on device 1: {stderr}"
    );
    // The kernel's pointer is the start of a reservation whose second half is device 0's.
    assert_eq!(
        step(&figures, "launched"),
        (calls + 2, 2 * size, 0),
        "the reservation's other mapping, made resident on device 1: {stderr}"
    );
    // Unmapping the reservation's first mapping does not forget the reservation.
    assert_eq!(
        step(&figures, "remapped"),
        (calls + 3, 3 * size, 0),
        "the mapping made in the reservation's first half, made resident on device 1: {stderr}"
    );
    assert_eq!(step(&figures, "end").1, 0, "all unmapped");
    assert_eq!(figures["hazards"], 0);
}

/// On a driver that refuses to evict a peer's import (every release up to 26.31), the
/// program's eviction gets the driver's refusal and the memory stays resident and counted,
/// until it is freed.
#[test]
fn a_refused_eviction_of_a_peer_residency_is_passed_on_and_nothing_is_lost() {
    let Some((figures, stderr)) =
        scenario("residency-requests", &[("ZE_SIM_CONFIG", "b70x2-26.31")])
    else {
        return;
    };
    let mib = 1u64 << 20;
    assert_eq!(figures["used.pinned"], mib, "{stderr}");
    assert_eq!(
        figures["whole-evict.result"], 0x7800_0004,
        "INVALID_ARGUMENT, as the driver answers"
    );
    assert_eq!(figures["whole-evict.pinned"], mib, "still resident");
    // The shim kept its record: the next use asks for nothing and faults on nothing.
    assert_eq!(figures["reused.calls"], figures["whole-evict.calls"]);
    assert_eq!(figures["reused.violations"], 0);
    assert_eq!(figures["used.violations"], 0);
    assert_eq!(figures["end.pinned"], 0, "freed with the memory");
}
