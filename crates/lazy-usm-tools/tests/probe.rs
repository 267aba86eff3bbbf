//! The live probe's parser on seed 001's fdinfo figures, on the simulator's fdinfo text, and on
//! a fake /proc and /sys tree.

use lazy_usm::*;
use lazy_usm_tools::*;

/// Seed 001's per-fd accounting (26.05, two ranks each holding 8 GiB): rank 0's two fds. The PCI
/// addresses are this fixture's (the report names render nodes, not addresses).
const RANK0_FD4: &str = "pos:\t0\nflags:\t02100002\nmnt_id:\t27\nino:\t1234\n\
drm-driver:\txe\ndrm-client-id:\t41\ndrm-pdev:\t0000:12:00.0\n\
drm-resident-gtt:\t8913000 KiB\ndrm-resident-vram0:\t191268 KiB\n";
const RANK0_FD5: &str = "pos:\t0\ndrm-driver:\txe\ndrm-client-id:\t42\ndrm-pdev:\t0000:0e:00.0\n\
drm-resident-gtt:\t642792 KiB\ndrm-resident-vram0:\t9355696 KiB\n";

#[test]
fn seed001_fdinfo_parses_to_the_reported_figures() {
    let peer = parse_fdinfo(RANK0_FD4).unwrap();
    assert_eq!(peer.driver, "xe");
    assert_eq!(peer.pdev, "0000:12:00.0");
    assert_eq!(peer.resident_gtt, Some(8_913_000 * 1024));
    assert_eq!(peer.resident_vram, Some(191_268 * 1024));
    assert_eq!(peer.total_gtt, None);
    let own = parse_fdinfo(RANK0_FD5).unwrap();
    let devices = group_by_device([peer, own]);
    assert_eq!(devices.len(), 2);
    assert_eq!(devices[0].pdev, "0000:0e:00.0");
    assert_eq!(devices[0].vram_bytes, 9_355_696 * 1024);
    // The ~8.9 GiB GTT on the fd to the peer card: the mirror of the peer's working set.
    assert_eq!(devices[1].gtt_bytes, 8_913_000 * 1024);
    assert!(
        parse_fdinfo("pos:\t0\nflags:\t0100002\n").is_none(),
        "not a DRM fd"
    );
}

#[test]
fn units_and_totals() {
    let text = "drm-driver: xe\ndrm-pdev: a\ndrm-total-vram0: 3 MiB\ndrm-total-gtt: 5\ndrm-resident-gtt: 1 GiB\n";
    let client = parse_fdinfo(text).unwrap();
    assert_eq!(client.total_vram, Some(3 << 20));
    assert_eq!(client.total_gtt, Some(5));
    assert_eq!(client.resident_gtt, Some(1 << 30));
    assert_eq!(
        parse_fdinfo("drm-driver: xe\ndrm-total-gtt: 5 furlongs\n")
            .unwrap()
            .total_gtt,
        None
    );
    // Resident figures win; total is the fallback when a driver prints only totals.
    let devices = group_by_device([client]);
    assert_eq!(
        (devices[0].vram_bytes, devices[0].gtt_bytes),
        (3 << 20, 1 << 30)
    );
}

#[test]
fn the_simulators_fdinfo_reads_the_same_way() {
    let runtime = Runtime::simulated("b70x2").unwrap();
    let devices = runtime.devices().unwrap();
    let manager = ResidencyManager::new(
        Context::new(&devices).unwrap(),
        ResidencyConfig::new(Policy::Eager),
    )
    .unwrap();
    let held = manager.allocate(&devices[0], 64 << 20).unwrap();
    let platform = runtime.simulator().unwrap();
    let clients = (0..2).map(|index| parse_fdinfo(&platform.fdinfo(index).unwrap()).unwrap());
    let memory = group_by_device(clients);
    assert_eq!(memory[0].pdev, "0000:0e:00.0");
    assert_eq!(memory[0].vram_bytes, 64 << 20);
    assert_eq!(memory[1].gtt_bytes, 64 << 20, "the peer mirror");
    assert_eq!(
        memory[1].gtt_bytes,
        manager.host_cost().devices[1].current_bytes
    );
    drop(held);
}

#[test]
fn a_fake_proc_and_sys_tree() {
    let root = std::env::temp_dir().join(format!("lazy-usm-probe-{}", std::process::id()));
    let fdinfo = root.join("fdinfo");
    let nodes = root.join("node");
    std::fs::create_dir_all(&fdinfo).unwrap();
    for node in ["node0", "node1"] {
        std::fs::create_dir_all(nodes.join(node)).unwrap();
    }
    std::fs::write(fdinfo.join("4"), RANK0_FD4).unwrap();
    std::fs::write(fdinfo.join("5"), RANK0_FD5).unwrap();
    std::fs::write(fdinfo.join("0"), "pos:\t0\nflags:\t02\n").unwrap();
    std::fs::write(
        nodes.join("node0/vmstat"),
        "nr_free_pages 1\nnr_gpu_active 1000\n",
    )
    .unwrap();
    std::fs::write(nodes.join("node1/vmstat"), "nr_gpu_active 24\n").unwrap();
    let memory = probe_paths(&fdinfo, &nodes).unwrap();
    std::fs::remove_dir_all(&root).unwrap();
    assert_eq!(memory.devices.len(), 2);
    assert_eq!(memory.gpu_active_bytes, Some(1024 * 4096));
    assert!(
        matches!(probe_paths(&root.join("missing"), &nodes), Err(Error::InvalidArgument(m)) if m.contains("missing"))
    );
}

#[test]
fn this_process_has_no_gpu_clients_here() {
    let memory = probe_process(None).unwrap();
    assert!(
        memory.devices.is_empty(),
        "no DRM device on the build machines: {memory:?}"
    );
}

/// Peaks over probes of a fake tree that changes between them, as `compare --measured` takes
/// them while a program runs: each device's highest GTT and VRAM, and the highest
/// `nr_gpu_active`, even when they peak at different probes; a device that appears late counts.
#[test]
fn peaks_over_changing_probes() {
    let root = std::env::temp_dir().join(format!("lazy-usm-peaks-{}", std::process::id()));
    let (fdinfo, nodes) = (root.join("fdinfo"), root.join("node"));
    std::fs::create_dir_all(&fdinfo).unwrap();
    std::fs::create_dir_all(nodes.join("node0")).unwrap();
    let fd = |gtt_kib: u64, vram_kib: u64, pdev: &str| {
        format!(
            "drm-driver:\txe\ndrm-pdev:\t{pdev}\ndrm-resident-gtt:\t{gtt_kib} KiB\ndrm-resident-vram0:\t{vram_kib} KiB\n"
        )
    };
    let mut peaks = MemoryPeaks::default();
    let steps = [
        (fd(100, 900, "0000:0e:00.0"), None, 10u64),
        (
            fd(700, 200, "0000:0e:00.0"),
            Some(fd(50, 0, "0000:12:00.0")),
            30,
        ),
        (fd(300, 400, "0000:0e:00.0"), None, 20),
    ];
    for (own, peer, pages) in steps {
        std::fs::write(fdinfo.join("4"), own).unwrap();
        match peer {
            Some(text) => std::fs::write(fdinfo.join("5"), text).unwrap(),
            None => {
                let _ = std::fs::remove_file(fdinfo.join("5"));
            }
        }
        std::fs::write(
            nodes.join("node0/vmstat"),
            format!("nr_gpu_active {pages}\n"),
        )
        .unwrap();
        peaks.add(&probe_paths(&fdinfo, &nodes).unwrap());
    }
    std::fs::remove_dir_all(&root).unwrap();
    assert_eq!(peaks.samples, 3);
    assert_eq!(peaks.devices.len(), 2);
    assert_eq!(
        (peaks.devices[0].gtt_bytes, peaks.devices[0].vram_bytes),
        (700 * 1024, 900 * 1024),
        "each figure's own peak"
    );
    assert_eq!(peaks.devices[1].gtt_bytes, 50 * 1024, "the late device");
    assert_eq!(peaks.gpu_active_bytes, Some(30 * 4096));
}
