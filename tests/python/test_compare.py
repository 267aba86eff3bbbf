"""`lazy-usm compare` on Intel's SYCL runtime over the simulated platform: each alternative's
figures for seed 000's program and for one that enables peer access, as the runtime, its
restrict variable, the driver's debug keys and the shim produce them."""
import json
import os
import pathlib
import subprocess
import sys

from conftest import LAZY_USM, PACKAGE

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

# docs/alternatives.md's example program.
PEER_ACCESS = (pathlib.Path(__file__).resolve().parents[2] / "examples" / "peer_access.py").read_text()


# The SPIR-V module helper beside the other programs.
PROGRAMS = pathlib.Path(__file__).parent / "programs"

GATHER = """
import struct, sys, dpctl, dpctl.memory as dm, dpctl.program as dp
sys.path.insert(0, PROGRAMS)
from spirv import module

N = 1024
devices = dpctl.get_devices()
context = dpctl.SyclContext(devices)
queues = [dpctl.SyclQueue(context, device) for device in devices]
program = dp.create_program_from_spirv(queues[1], module([("lazy_usm_sim_gather_u32", "pp")]))
gather = program.get_sycl_kernel("lazy_usm_sim_gather_u32")
# Device 0's data, read by a kernel on device 1 through a table of pointers on device 1.
data = dm.MemoryUSMDevice(N * 4, queue=queues[0])
data.copy_from_host(struct.pack(f"<{N}I", *range(N)))
table = dm.MemoryUSMDevice(N * 8, queue=queues[1])
table.copy_from_host(struct.pack(f"<{N}Q", *(data._pointer + 4 * i for i in range(N))))
out = dm.MemoryUSMDevice(N * 4, queue=queues[1])
queues[1].submit(gather, [out, table], [N])
print("gathered", struct.unpack(f"<{N}I", bytes(out.copy_to_host())) == tuple(range(N)))
""".replace("PROGRAMS", repr(str(PROGRAMS)))


TORCH = "PyTorch pluggable allocator (lazy_usm.torch.enable())"
BUDGET = "lazy-usm run --shim, LAZY_USM_HOST_BUDGET"

# docs/alternatives.md's example of a host budget: four 256 MiB arrays of device 0, read in turn (then
# the first again) by copies on device 1.
IN_TURN = (pathlib.Path(__file__).resolve().parents[2] / "examples" / "read_in_turn.py").read_text()


def compare_all(tmp_path, code, *args, env=None):
    script = tmp_path / "program.py"
    script.write_text(code)
    completed = subprocess.run(
        [str(LAZY_USM), "compare", "--preset", "b70x2-faithful", "--json", "--", sys.executable, str(script), *args],
        capture_output=True, text=True, timeout=600, env=env,
    )
    assert completed.returncode == 0, completed.stderr
    result = json.loads(completed.stdout)
    assert result["modelled"] is True
    return {run["alternative"]: run for run in result["runs"]}


def compare(runtime_available, tmp_path, code):
    """The alternatives that apply (no PyTorch here: the pluggable allocator's does not, and
    says why)."""
    runs = compare_all(tmp_path, code)
    torch = runs.pop(TORCH)
    assert torch["applies"] is False and torch["why"], torch
    # The budget row, where the shim's run pinned anything, has tests of its own.
    for name in [name for name in runs if name.startswith(BUDGET)]:
        runs.pop(name)
    assert all(run["applies"] for run in runs.values())
    return runs


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
        "UR_L0_USM_RESIDENT=0x1, v1": 0.0,                      # device memory on its owner only
        "UR_L0_USM_RESIDENT=0x1, v2": 8.0,                      # the v2 adapter ignores it
        "NEOReadDebugKeys=1 EnableDeferBacking=0": 0.0,
        "NEOReadDebugKeys=1 ForceZeDeviceCanAccessPerReturnValue=0": 0.0,
        "lazy-usm run --shim": 0.0,
        "lazy-usm run --shim, LAZY_USM_INDIRECT=all": 0.0,
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
    # The v1 adapter's residency variable: enabling peer access adds no residency there; what
    # crosses devices, the 64 MiB source, the driver imports on use, as for the shim.
    assert pinned["UR_L0_USM_RESIDENT=0x1, v1"] == 64 * MIB
    assert pinned["UR_L0_USM_RESIDENT=0x1, v2"] == every
    # The shim: only what device 1 used, the 64 MiB source.
    assert pinned["lazy-usm run --shim"] == 64 * MIB
    # Without peer access reported, the copy goes through host memory: no peer residency at all
    # (what stays pinned is the runtime's own few bytes of host memory).
    assert pinned["NEOReadDebugKeys=1 ForceZeDeviceCanAccessPerReturnValue=0"] < MIB
    assert runs["NEOReadDebugKeys=1 ForceZeDeviceCanAccessPerReturnValue=0"]["peak_gtt_bytes"] == [0, 0]


def test_a_kernel_reading_a_peers_memory_through_pointers(runtime_available, tmp_path):
    runs = compare(runtime_available, tmp_path, GATHER)
    refused = {name: run["refused_uses"] for name, run in runs.items()}
    # What leaves the peer's data not resident on the reading device: every read through the
    # table (1,024) is a use the hardware would fault on. The eager ones and the shim's `all`
    # mode make it resident first; the shim's default (arguments only) cannot see the table.
    assert refused == {
        "runtime default, v2 adapter": 0,
        "runtime default, v1 adapter": 0,
        "SYCL_UR_L0_RESTRICT_USM_RESIDENCY_TO_P2P=1, v2": 1024,
        "SYCL_UR_L0_RESTRICT_USM_RESIDENCY_TO_P2P=1, v1": 0,
        "UR_L0_USM_RESIDENT=0x1, v1": 1024,
        "UR_L0_USM_RESIDENT=0x1, v2": 0,
        "NEOReadDebugKeys=1 EnableDeferBacking=0": 0,
        "NEOReadDebugKeys=1 ForceZeDeviceCanAccessPerReturnValue=0": 1024,
        "lazy-usm run --shim": 1024,
        "lazy-usm run --shim, LAZY_USM_INDIRECT=all": 0,
    }, refused
    for run in runs.values():
        assert (run["exit_code"], run["same_output"]) == (0, True), run


# A stand-in for PyTorch's XPU allocator API (no PyTorch XPU build is on PyPI): it records what
# is installed through it, so the test can see that `compare` installs lazy-usm's allocator
# before the program's first line, with the program's own arguments, path and file name.
TORCH_STAND_IN = """
import types
__version__ = "2.10.0+xpu"
class XPUPluggableAllocator:
    def __init__(self, path, malloc, free):
        self.names = [path, malloc, free]
class _Memory:
    XPUPluggableAllocator = XPUPluggableAllocator
    installed = None
    @staticmethod
    def change_current_allocator(allocator):
        _Memory.installed = allocator.names
xpu = types.SimpleNamespace(memory=_Memory, is_available=lambda: True)
"""

# The workspace's interpreter has no lazy_usm package installed (its native parts come with the
# wheel): there a stand-in installs a named allocator through the same API, so the bootstrap's
# own behaviour is tested in both passes; the package pass runs the real `enable()`.
LAZY_USM_STAND_IN = """
def library_path():
    return "stand-in liblazy_usm.so"
"""
LAZY_USM_TORCH_STAND_IN = """
import torch, lazy_usm
def enable():
    memory = torch.xpu.memory
    memory.change_current_allocator(memory.XPUPluggableAllocator(lazy_usm.library_path(), "lazy_usm_xpu_malloc", "lazy_usm_xpu_free"))
"""

RECORDS_THE_ALLOCATOR = """
import json, os, sys, torch
import helper  # beside the script: the program's own folder is on its path
with open(sys.argv[1], "a") as out:
    out.write(json.dumps([torch.xpu.memory.installed, sys.argv[1:], os.path.isabs(__file__), sys.path[0]]) + "\\n")
"""


def test_the_pytorch_allocator_is_installed_before_the_program_runs(runtime_available, tmp_path):
    stand_in = tmp_path / "stand-in"
    (stand_in / "torch").mkdir(parents=True)
    (stand_in / "torch" / "__init__.py").write_text(TORCH_STAND_IN)
    if not PACKAGE:
        (stand_in / "lazy_usm").mkdir()
        (stand_in / "lazy_usm" / "__init__.py").write_text(LAZY_USM_STAND_IN)
        (stand_in / "lazy_usm" / "torch.py").write_text(LAZY_USM_TORCH_STAND_IN)
    (tmp_path / "helper.py").write_text("")
    out = tmp_path / "installed.jsonl"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(stand_in), os.environ.get("PYTHONPATH")])))
    runs = compare_all(tmp_path, RECORDS_THE_ALLOCATOR, str(out), env=env)
    torch = runs.pop(TORCH)
    assert torch["applies"] is True and torch["exit_code"] == 0, torch
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(lines) == sum(run["applies"] for run in runs.values()) + 1
    if PACKAGE:
        import lazy_usm

        library = str(lazy_usm.library_path())
    else:
        library = "stand-in liblazy_usm.so"
    folder = os.path.realpath(tmp_path)
    # Every other alternative ran the program with PyTorch's own allocator; this one with
    # lazy-usm's, installed through the pluggable-allocator API before the program's first
    # line; each saw its arguments, an absolute __file__ and its own folder first on its path.
    for line in lines[:-1]:
        assert line == [None, [str(out)], True, folder], line
    assert lines[-1] == [[library, "lazy_usm_xpu_malloc", "lazy_usm_xpu_free"], [str(out)], True, folder]


def test_a_two_rank_job_is_compared_machine_wide_with_the_host_limit_in_force(runtime_available, tmp_path):
    # Two DDP ranks on seed 003's four B60s (60 GiB of host memory): eagerly, each rank's
    # 11.4 GiB is mirrored on three peers, 34 GiB a rank, which one rank alone would survive and
    # two together do not. Every row is the whole job's: both ranks' figures on one machine.
    job = PROGRAMS / "ddp_job.py"
    results = tmp_path / "results"
    results.mkdir()
    args = ("--ranks", "2", "--weights", "12", "--weight-mib", "972", "--bucket-mib", "16", "--steps", "1")
    completed = subprocess.run(
        [str(LAZY_USM), "compare", "--preset", "b60x4", "--json", "--", sys.executable, str(job),
         "--results", str(results), *args],
        capture_output=True, text=True, timeout=900,
    )
    assert completed.returncode == 0, completed.stderr[-3000:]
    runs = {run["alternative"]: run for run in json.loads(completed.stdout)["runs"] if run["applies"]}
    default = runs["runtime default, v2 adapter"]
    assert default["exit_code"] != 0, default
    assert default["processes"] >= 2, default
    assert any("was refused" in line and "--rank" in line for line in default["failures"]), default
    shim = runs["lazy-usm run --shim"]
    assert (shim["exit_code"], shim["failures"]) == (0, []), shim
    assert shim["processes"] >= 2, shim
    # Both ranks' residency calls, not the last one's: at least one per rank's allocation.
    assert shim["residency_calls"] >= 2 * 12, shim


def test_no_alternative_inherits_the_callers_residency_variable(runtime_available, tmp_path):
    # The caller's old-named v1 variable would make the v1 default lazy: no run takes it.
    env = dict(os.environ, SYCL_PI_LEVEL_ZERO_USM_RESIDENT="0x1")
    runs = compare_all(tmp_path, SEED000, env=env)
    assert gib(runs["runtime default, v1 adapter"]["peak_host_pinned_bytes"]) == 8.0
    assert gib(runs["UR_L0_USM_RESIDENT=0x1, v1"]["peak_host_pinned_bytes"]) == 0.0


def budget_rows(runs):
    return {name: run for name, run in runs.items() if name.startswith(BUDGET)}


def test_the_budget_row_halves_what_the_shim_pinned_at_the_cost_of_evictions(runtime_available, tmp_path):
    runs = compare_all(tmp_path, IN_TURN)
    shim = runs["lazy-usm run --shim"]
    assert (shim["peak_host_pinned_bytes"], shim["evict_calls"]) == (1 << 30, 0), shim
    # Half of the shim's 1 GiB: two arrays at a time; each read past the second evicts the
    # oldest, and the first array, read again, is imported again.
    [(name, budget)] = budget_rows(runs).items()
    assert name == BUDGET + "=512MiB"
    assert (budget["exit_code"], budget["same_output"], budget["refused_uses"]) == (0, True, 0), budget
    assert budget["peak_host_pinned_bytes"] == 512 * MIB, budget
    assert budget["evict_calls"] == 3
    assert budget["residency_calls"] == shim["residency_calls"] + 1
    # Eager residency pins all four arrays and the target on its peer.
    assert runs["runtime default, v2 adapter"]["peak_host_pinned_bytes"] == 5 * 256 * MIB


def test_the_budget_row_takes_the_callers_budget(runtime_available, tmp_path):
    env = dict(os.environ, LAZY_USM_HOST_BUDGET="0.75GiB")
    runs = compare_all(tmp_path, IN_TURN, env=env)
    [(name, budget)] = budget_rows(runs).items()
    assert name == BUDGET + "=0.75GiB"
    assert (budget["exit_code"], budget["same_output"]) == (0, True), budget
    assert (budget["peak_host_pinned_bytes"], budget["evict_calls"]) == (768 * MIB, 2), budget
    # No other row takes it.
    assert runs["lazy-usm run --shim"]["peak_host_pinned_bytes"] == 1 << 30
