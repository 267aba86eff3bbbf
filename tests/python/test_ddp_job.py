"""Many processes, one simulated machine: a DDP-like job (programs/ddp_job.py: a launcher and one
rank process per GPU, each allocating on the platform's default context through dpctl, running
a kernel each step and passing a bucket around the ring through Level Zero IPC handles, bytes
checked) under `lazy-usm run`, with and without the shim, on seed 001's and seed 003's machines.
The figures asserted are the machine-wide ones `run` reports."""
import json
import pathlib
import re
import shutil
import subprocess
import sys

from conftest import LAZY_USM

GIB = 1 << 30
MIB = 1 << 20
JOB = pathlib.Path(__file__).parent / "programs" / "ddp_job.py"


def run_job(tmp_path, preset, shim, *job_args):
    machine_file = tmp_path / "machine.json"
    machine_file.unlink(missing_ok=True)
    results_folder = tmp_path / "results"
    shutil.rmtree(results_folder, ignore_errors=True)
    results_folder.mkdir()
    command = [str(LAZY_USM), "--preset", preset, "run", "--machine-report", str(machine_file)]
    command += ["--shim"] if shim else []
    command += ["--", sys.executable, str(JOB), "--results", str(results_folder), *map(str, job_args)]
    completed = subprocess.run(command, capture_output=True, text=True, timeout=600)
    assert machine_file.is_file(), f"run wrote no machine report:\n{completed.stderr[-3000:]}"
    assert "panicked" not in completed.stderr, completed.stderr[-3000:]
    machine = json.loads(machine_file.read_text())
    results = {
        int(path.stem.split("-")[1]): json.loads(path.read_text())
        for path in results_folder.glob("rank-*.json")
    }
    return completed, machine, results


def ranks_of(machine):
    """The rank processes of the machine report, by rank."""
    ranks = {}
    for process in machine["processes"]:
        match = re.search(r"--rank (\d+)", process["command"])
        if match:
            ranks[int(match.group(1))] = process
    return ranks


def test_seed001_two_ranks_pay_the_eager_mirror_and_the_shim_pays_only_what_crosses(runtime_available, tmp_path):
    # Seed 001: two ranks on two B70s, each 8 x 1 GiB of weights and a 100 MiB bucket passed on
    # 50 times.
    args = ("--ranks", 2, "--weights", 8, "--weight-mib", 1024, "--bucket-mib", 100, "--steps", 50)
    eager, machine, results = run_job(tmp_path, "b70x2", False, *args)
    assert eager.returncode == 0, eager.stderr
    assert {rank: result["checked"] for rank, result in results.items()} == {0: 50, 1: 50}
    assert machine["host_pinned_bytes"]["peak"] >= 16 * GIB, machine["host_pinned_bytes"]
    assert machine["host_pinned_bytes"]["current"] == 0, "every rank's share left with it"
    assert [process["state"] for process in ranks_of(machine).values()] == ["exited"] * 2
    assert "2 processes used it" in eager.stderr

    lazy, machine, results = run_job(tmp_path, "b70x2", True, *args)
    assert lazy.returncode == 0, lazy.stderr
    assert {rank: result["checked"] for rank, result in results.items()} == {0: 50, 1: 50}
    # What really crosses devices: each rank's import of its neighbour's bucket.
    crossing = 2 * 100 * MIB
    peak = machine["host_pinned_bytes"]["peak"]
    assert crossing // 2 <= peak <= 1.1 * crossing, peak
    assert [process["state"] for process in ranks_of(machine).values()] == ["exited"] * 2


def test_seed003_four_ranks_run_out_of_host_memory_at_the_first_kernel_and_the_shim_completes(runtime_available, tmp_path):
    # Seed 003: four B60s across root ports, 60 GiB of host memory, each rank holding about
    # 11.4 GiB.
    args = ("--ranks", 4, "--weights", 12, "--weight-mib", 972, "--bucket-mib", 100, "--steps", 5)
    eager, machine, results = run_job(tmp_path, "b60x4", False, *args)
    assert eager.returncode != 0, "the job dies"
    assert results == {}, "no rank finished"
    ranks = ranks_of(machine)
    assert sorted(ranks) == [0, 1, 2, 3], "every rank joined the machine"
    failures = [process["failure"] for process in ranks.values() if process["failure"]]
    assert failures, machine
    for process in ranks.values():
        # Each rank failed by itself (exit 1) or was killed by the launcher once one had.
        assert process["state"] == "vanished" or (process["state"], process["status"]) == ("exited", 1), process
        assert process["devices"][0]["allocated_bytes"]["peak"] + sum(
            device["allocated_bytes"]["peak"] for device in process["devices"][1:]) >= 11 * GIB
    for failure in failures:
        # The first kernel, after every allocation succeeded, as the seed reports; the runtime
        # sees the driver's out-of-memory result (Intel's runtime 2026.2 names it
        # UR_RESULT_ERROR_OUT_OF_DEVICE_MEMORY on both adapters).
        assert "LaunchKernel" in failure["call"], failure
        assert failure["result_name"] == "ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY"
        assert failure["machine_host_pinned_bytes"] + failure["requested_bytes"] > 60 * GIB
        assert failure["host_limit_bytes"] == 60 * GIB
    assert "Kernel submission to Sycl queue failed" in eager.stderr
    assert re.search(r"process \d+ \(.*--rank \d.*\) was refused zeCommandListAppendLaunchKernel", eager.stderr), eager.stderr
    assert machine["host_pinned_bytes"]["current"] == 0

    lazy, machine, results = run_job(tmp_path, "b60x4", True, *args)
    assert lazy.returncode == 0, lazy.stderr
    assert {rank: result["checked"] for rank, result in results.items()} == {r: 5 for r in range(4)}
    crossing = 4 * 100 * MIB
    peak = machine["host_pinned_bytes"]["peak"]
    assert crossing // 2 <= peak <= 1.1 * crossing, peak
    assert not any(process["failure"] for process in machine["processes"])


def test_a_rank_killed_mid_job_releases_its_share_of_the_machine(runtime_available, tmp_path):
    args = ("--ranks", 2, "--weights", 4, "--weight-mib", 1024, "--bucket-mib", 16, "--steps", 10,
            "--kill-rank", 1, "--kill-step", 5)
    completed, machine, results = run_job(tmp_path, "b70x2", False, *args)
    assert completed.returncode == 0, completed.stderr
    ranks = ranks_of(machine)
    assert ranks[1]["state"] == "vanished" and ranks[0]["state"] == "exited", ranks
    killed_share = ranks[1]["host_pinned_bytes"]["current"]
    assert killed_share >= 4 * GIB
    survivor = results[0]
    assert survivor["pinned_before_peer_ended"] == ranks[0]["host_pinned_bytes"]["peak"] + killed_share
    assert survivor["pinned_after_peer_ended"] == ranks[0]["host_pinned_bytes"]["peak"]
    assert machine["host_pinned_bytes"]["current"] == 0
    assert "vanished" in completed.stderr


def test_ranks_that_each_see_one_gpu_exchange_buckets_through_ipc(runtime_available, tmp_path):
    # ZE_AFFINITY_MASK=rank: every rank calls its GPU device 0, and opens a handle of a GPU it
    # cannot see. The bytes still cross, each import is charged to the machine's device the rank
    # runs on, and nothing else is pinned under the shim.
    args = ("--ranks", 2, "--weights", 2, "--weight-mib", 1024, "--bucket-mib", 64, "--steps", 5, "--mask")
    completed, machine, results = run_job(tmp_path, "b70x2", True, *args)
    assert completed.returncode == 0, completed.stderr
    assert {rank: result["checked"] for rank, result in results.items()} == {0: 5, 1: 5}
    ranks = ranks_of(machine)
    for rank, process in ranks.items():
        assert len(process["devices"]) == 2, "the machine's devices"
        own = process["devices"][rank]
        assert own["vram_bytes"]["peak"] >= 2 * GIB, process
        assert own["gtt_bytes"]["peak"] == 64 * MIB, "the import of the other rank's bucket"
        assert process["devices"][1 - rank]["vram_bytes"]["peak"] == 0
    crossing = 2 * 64 * MIB
    assert crossing // 2 <= machine["host_pinned_bytes"]["peak"] <= 1.1 * crossing
