"""Intel's SYCL runtime (both Level Zero adapters) on the simulated platform: seed 000's table,
copies with their bytes checked, and device queries against the preset."""
import json
import subprocess
import sys

import pytest

from conftest import ROOT, ADAPTERS, LAZY_USM

GIB = 1 << 30


@pytest.mark.parametrize("adapter", ADAPTERS)
def test_seed000_eager_residency_in_a_two_device_context(run_sycl, adapter):
    run = run_sycl(
        """
        import dpctl, dpctl.memory as dm, json
        devices = dpctl.get_devices()
        context = dpctl.SyclContext(devices)
        queues = [dpctl.SyclQueue(context, device) for device in devices]
        before = (pinned(), [gtt(0), gtt(1)], counter("make_resident_calls"))
        blocks = [dm.MemoryUSMDevice(4 * GIB, queue=queue) for queue in queues]
        during = (pinned(), [gtt(0), gtt(1)], counter("make_resident_calls"))
        del blocks
        after = (pinned(), [gtt(0), gtt(1)])
        print("RESULT " + json.dumps({"before": before, "during": during, "after": after}))
        """,
        adapter=adapter,
    )
    before, during, after = run.result["before"], run.result["during"], run.result["after"]
    # Each 4 GiB block is resident on its peer too: 4 GiB of GTT there, pinned on the host.
    assert during[0] - before[0] == 8 * GIB
    assert [now - then for now, then in zip(during[1], before[1])] == [4 * GIB, 4 * GIB]
    # The runtime's eager pattern: each allocation made resident on both devices.
    assert during[2] - before[2] == 4
    # Freeing returns the mirrors.
    assert after == [before[0], before[1]]
    assert run.report["host_pinned_bytes"]["current"] == 0
    # The runtime made every use resident itself: nothing was left for the driver to import.
    assert run.report["counters"]["residency_violations"] == 0
    assert run.report["counters"]["implicit_imports"] == 0


@pytest.mark.parametrize("adapter", ADAPTERS)
def test_a_one_device_context_pins_nothing(run_sycl, adapter):
    run = run_sycl(
        """
        import dpctl, dpctl.memory as dm, json
        device = dpctl.get_devices()[0]
        # A list makes a context of that device alone; dpctl.SyclContext(device) and
        # dpctl.SyclQueue(device) use the platform's default context, which holds every GPU.
        queue = dpctl.SyclQueue(dpctl.SyclContext([device]), device)
        before = (pinned(), gtt(0), gtt(1))
        block = dm.MemoryUSMDevice(4 * GIB, queue=queue)
        during = (pinned(), gtt(0), gtt(1))
        print("RESULT " + json.dumps({"before": before, "during": during}))
        """,
        adapter=adapter,
    )
    assert run.result["during"] == run.result["before"], "no pinned memory, no GTT"
    assert run.report["devices"][0]["vram_bytes"]["peak"] >= 4 * GIB
    assert [device["gtt_bytes"]["peak"] for device in run.report["devices"]] == [0, 0]


@pytest.mark.parametrize("adapter", ADAPTERS)
def test_copies_keep_their_bytes(run_sycl, adapter):
    run = run_sycl(
        """
        import dpctl, dpctl.memory as dm, json, os
        devices = dpctl.get_devices()
        context = dpctl.SyclContext(devices)
        queues = [dpctl.SyclQueue(context, device) for device in devices]
        data = os.urandom(3 << 20)
        first = dm.MemoryUSMDevice(len(data), queue=queues[0])
        second = dm.MemoryUSMDevice(len(data), queue=queues[1])
        first.copy_from_host(data)            # host -> device 0
        second.copy_from_device(first)        # device 0 -> device 1
        back = bytes(second.copy_to_host())   # device 1 -> host
        first.memset(0)
        first.copy_from_device(second)        # device 1 -> device 0
        again = bytes(first.copy_to_host())
        print("RESULT " + json.dumps({"peer": back == data, "return": again == data,
                                      "p2p": counter("p2p_copies")}))
        """,
        adapter=adapter,
    )
    assert run.result["peer"] and run.result["return"]
    assert run.result["p2p"] >= 2, "device-to-device copies took the P2P path"


@pytest.mark.parametrize("adapter", ADAPTERS)
def test_a_single_device_queue_uses_the_default_context_and_pays_for_the_peer(run_sycl, adapter):
    # What PyTorch XPU and most SYCL programs do: a queue on one device shares the platform's
    # default context, so its allocation is made resident on the other GPU too.
    run = run_sycl(
        """
        import dpctl, dpctl.memory as dm, json
        queue = dpctl.SyclQueue(dpctl.get_devices()[0])
        before = pinned()
        block = dm.MemoryUSMDevice(2 * GIB, queue=queue)
        print("RESULT " + json.dumps({"contexts": queue.sycl_context.device_count,
                                      "pinned": pinned() - before, "gtt": gtt(1)}))
        """,
        adapter=adapter,
    )
    assert run.result == {"contexts": 2, "pinned": 2 * GIB, "gtt": 2 * GIB}


@pytest.mark.parametrize("preset,memory,peer", [("b70x2", 32 * GIB, True), ("b60x4-refused", 24 * GIB, False), ("b60x4", 24 * GIB, True)])
def test_device_queries_report_the_preset(run_sycl, preset, memory, peer):
    run = run_sycl(
        """
        import dpctl, json
        devices = dpctl.get_devices()
        print("RESULT " + json.dumps({
            "names": [device.name for device in devices],
            "memory": [device.global_mem_size for device in devices],
            "backends": [str(device.backend) for device in devices],
            "peer": [devices[0].can_access_peer(other) for other in devices[1:]],
        }))
        """,
        preset=preset,
    )
    count = {"b70x2": 2, "b60x4-refused": 4, "b60x4": 4}[preset]
    model = {"b70x2": "B70", "b60x4-refused": "B60", "b60x4": "B60"}[preset]
    assert len(run.result["names"]) == count
    assert all(model in name and "simulated" in name for name in run.result["names"])
    assert run.result["memory"] == [memory] * count
    assert all("level_zero" in backend for backend in run.result["backends"])
    # b60x4-refused: P2P refused and not claimed; b60x4: claimed, as the driver does there (#980).
    assert run.result["peer"] == [peer] * (count - 1)


def test_lazy_usm_run_reports_an_unmodified_program(runtime_available, tmp_path):
    # The README's example (examples/seed000.py): nothing in the program knows about the
    # simulator.
    program = ROOT / "examples" / "seed000.py"
    saved = tmp_path / "report.json"
    completed = subprocess.run(
        [str(LAZY_USM), "--preset", "b70x2", "run", "--report", str(saved), "--", sys.executable, str(program)],
        capture_output=True, text=True, timeout=300,
    )
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout == "allocated 2 x 4 GiB\n", "the program's output is its own"
    assert "host pinned: peak 8.00 GiB" in completed.stderr
    report = json.loads(saved.read_text())
    assert report["host_pinned_bytes"] == {"current": 0, "peak": 8 * GIB}
    assert [device["gtt_bytes"]["peak"] for device in report["devices"]] == [4 * GIB, 4 * GIB]
    assert report["counters"]["live_allocations"] == 0


def test_the_affinity_mask_leaves_the_devices_it_names(run_sycl):
    # The driver's ZE_AFFINITY_MASK, as a launcher sets it for each rank.
    run = run_sycl(
        """
        import dpctl, json
        print("RESULT " + json.dumps([device.name for device in dpctl.get_devices()]))
        """,
        preset="b60x4",
        extra_env={"ZE_AFFINITY_MASK": "3,1"},
    )
    assert len(run.result) == 2 and all("B60" in name for name in run.result)
    assert len(run.report["devices"]) == 2
