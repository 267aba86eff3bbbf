"""`lazy-usm compare` on Intel's SYCL runtime over the simulated platform: each alternative's
figures for seed 000's program and for one that enables peer access, as the runtime, its
restrict variable, the driver's debug keys and the shim produce them."""
import json
import subprocess
import sys

from conftest import LAZY_USM

GIB = 1 << 30
MIB = 1 << 20

SEED000 = """
import dpctl, dpctl.memory as dm
devices = dpctl.get_devices()
context = dpctl.SyclContext(devices)
queues = [dpctl.SyclQueue(context, device) for device in devices]
blocks = [dm.MemoryUSMDevice(4 * (1 << 30), queue=queue) for queue in queues]
print("allocated", len(blocks))
"""

PEER_ACCESS = """
import dpctl, dpctl.memory as dm
devices = dpctl.get_devices()
context = dpctl.SyclContext(devices)
queues = [dpctl.SyclQueue(context, device) for device in devices]
blocks = [dm.MemoryUSMDevice(2 * (1 << 30), queue=queues[0]) for _ in range(2)]
source = dm.MemoryUSMDevice(64 << 20, queue=queues[0])
source.copy_from_host(bytes(range(256)) * (1 << 18))
target = dm.MemoryUSMDevice(64 << 20, queue=queues[1])
target.copy_from_device(source)
devices[1].enable_peer_access(devices[0])
print("copied", bytes(target.copy_to_host())[:8] == bytes(range(8)))
"""


def compare(runtime_available, tmp_path, code):
    script = tmp_path / "program.py"
    script.write_text(code)
    completed = subprocess.run(
        [str(LAZY_USM), "compare", "--preset", "b70x2-faithful", "--json", "--", sys.executable, str(script)],
        capture_output=True, text=True, timeout=600,
    )
    assert completed.returncode == 0, completed.stderr
    result = json.loads(completed.stdout)
    assert result["modelled"] is True
    return {run["alternative"]: run for run in result["runs"]}


def gib(value):
    return round(value / GIB, 2)


def test_seed000_under_each_alternative(runtime_available, tmp_path):
    runs = compare(runtime_available, tmp_path, SEED000)
    for run in runs.values():
        assert (run["exit_code"], run["same_output"], run["refused_uses"]) == (0, True, 0), run
    pinned = {name: gib(run["peak_host_pinned_bytes"]) for name, run in runs.items()}
    assert pinned == {
        "runtime default, v2 adapter": 8.0,
        "runtime default, v1 adapter": 8.0,
        "SYCL_UR_L0_RESTRICT_USM_RESIDENCY_TO_P2P=1, v2": 0.0,
        "SYCL_UR_L0_RESTRICT_USM_RESIDENCY_TO_P2P=1, v1": 8.0,   # the v1 adapter ignores it
        "NEOReadDebugKeys=1 EnableDeferBacking=0": 0.0,
        "NEOReadDebugKeys=1 ForceZeDeviceCanAccessPerReturnValue=0": 0.0,
        "lazy-usm run --shim": 0.0,
    }, pinned
    # Registered residency still takes GTT on each peer; the others take none.
    assert [gib(b) for b in runs["NEOReadDebugKeys=1 EnableDeferBacking=0"]["peak_gtt_bytes"]] == [4.0, 4.0]
    assert runs["lazy-usm run --shim"]["peak_gtt_bytes"] == [0, 0]


def test_enabling_peer_access_makes_the_restrict_variable_eager_and_not_the_shim(runtime_available, tmp_path):
    runs = compare(runtime_available, tmp_path, PEER_ACCESS)
    for run in runs.values():
        assert (run["exit_code"], run["same_output"], run["refused_uses"]) == (0, True, 0), run
    pinned = {name: run["peak_host_pinned_bytes"] for name, run in runs.items()}
    every = 4 * GIB + 128 * MIB      # both 2 GiB blocks and both 64 MiB buffers, on their peer
    pair = 4 * GIB + 64 * MIB        # device 0's allocations, once device 1 may reach them
    assert pinned["runtime default, v2 adapter"] == every
    assert pinned["SYCL_UR_L0_RESTRICT_USM_RESIDENCY_TO_P2P=1, v2"] == pair
    assert pinned["SYCL_UR_L0_RESTRICT_USM_RESIDENCY_TO_P2P=1, v1"] == every
    # The shim: only what device 1 used, the 64 MiB source.
    assert pinned["lazy-usm run --shim"] == 64 * MIB
    # Without peer access reported, the copy goes through host memory: no peer residency at all
    # (what stays pinned is the runtime's own few bytes of host memory).
    assert pinned["NEOReadDebugKeys=1 ForceZeDeviceCanAccessPerReturnValue=0"] < MIB
    assert runs["NEOReadDebugKeys=1 ForceZeDeviceCanAccessPerReturnValue=0"]["peak_gtt_bytes"] == [0, 0]
