"""lazy-usm's loader shim under Intel's SYCL runtime (both adapters), forwarding to the
simulator: seed 000's reproduction without and with the shim, first use of a peer's memory, and
the eager policy reproducing the runtime's own figures, SYCL's virtual memory."""
import os
import pathlib
import subprocess
import sys

import pytest

from conftest import ADAPTERS, ROOT

GIB = 1 << 30

SEED000 = """
import dpctl, dpctl.memory as dm, json, os
devices = dpctl.get_devices()
context = dpctl.SyclContext(devices)
queues = [dpctl.SyclQueue(context, device) for device in devices]
before = pinned()
blocks = [dm.MemoryUSMDevice(4 * GIB, queue=queue) for queue in queues]
during = {"pinned": pinned() - before, "gtt": [gtt(0), gtt(1)]}
size = 3 << 20
data = os.urandom(size)
source = dm.MemoryUSMDevice(size, queue=queues[0])
target = dm.MemoryUSMDevice(size, queue=queues[1])
source.copy_from_host(data)
copy_before = (pinned(), gtt(1))
target.copy_from_device(source)   # device 0's memory read by device 1's copy
intact = bytes(target.copy_to_host()) == data
copied = {"pinned": pinned() - copy_before[0], "gtt": gtt(1) - copy_before[1], "intact": intact,
          "violations": counter("residency_violations")}
print("RESULT " + json.dumps({"during": during, "copied": copied,
                              "resident_calls": counter("make_resident_calls")}))
"""


@pytest.mark.parametrize("adapter", ADAPTERS)
def test_seed000_through_the_shim_pins_nothing_against_8_gib_without(run_sycl, adapter):
    plain = run_sycl(SEED000, adapter=adapter)
    shimmed = run_sycl(SEED000, adapter=adapter, shim=True)
    assert plain.result["during"] == {"pinned": 8 * GIB, "gtt": [4 * GIB, 4 * GIB]}
    assert shimmed.result["during"] == {"pinned": 0, "gtt": [0, 0]}
    # The copy works through the shim, bytes checked; afterwards exactly the source allocation
    # is resident on the destination device (its mirror pinned), nothing else.
    copied = shimmed.result["copied"]
    assert copied == {"pinned": 3 << 20, "gtt": 3 << 20, "intact": True, "violations": 0}
    assert "spared: 8.00 GiB" in shimmed.stderr, shimmed.stderr


# Four 256 MiB arrays of device 0, read in turn (then the first again) by copies on device 1.
IN_TURN = """
import dpctl, dpctl.memory as dm, json
MIB = 1 << 20
devices = dpctl.get_devices()
context = dpctl.SyclContext(devices)
queues = [dpctl.SyclQueue(context, device) for device in devices]
size = 256 * MIB
arrays = []
for index in range(4):
    array = dm.MemoryUSMDevice(size, queue=queues[0])
    array.memset(0x11 * (index + 1))
    arrays.append(array)
target = dm.MemoryUSMDevice(size, queue=queues[1])
steps, right = [], True
for index in [0, 1, 2, 3, 0]:
    target.copy_from_device(arrays[index])   # device 0's memory read by device 1's copy
    right = right and bytes(target.copy_to_host()) == bytes([0x11 * (index + 1)]) * size
    steps.append(pinned() // MIB)
print("RESULT " + json.dumps({"steps": steps, "right": right,
                              "violations": counter("residency_violations"),
                              "evictions": counter("evict_calls")}))
"""


@pytest.mark.parametrize("adapter", ADAPTERS)
def test_a_host_budget_keeps_the_runtimes_reads_of_a_peer_within_it(run_sycl, adapter):
    budget = {"LAZY_USM_HOST_BUDGET": "512MiB", "LAZY_USM_REPORT": "1"}
    bounded = run_sycl(IN_TURN, adapter=adapter, shim=True, extra_env=budget)
    unbounded = run_sycl(IN_TURN, adapter=adapter, shim=True)
    assert unbounded.result == {"steps": [256, 512, 768, 1024, 1024], "right": True,
                                "violations": 0, "evictions": 0}
    assert bounded.result == {"steps": [256, 512, 512, 512, 512], "right": True,
                              "violations": 0, "evictions": 3}, bounded.stderr
    assert bounded.report["host_pinned_bytes"]["peak"] <= 512 << 20
    assert "0.00 MiB at exit; 3 evicted (768.00 MiB), 1 re-imported (256.00 MiB); passed 0 times" in bounded.stderr, bounded.stderr


@pytest.mark.parametrize("adapter", ADAPTERS)
def test_the_eager_policy_reproduces_the_runtimes_own_figures(run_sycl, adapter):
    plain = run_sycl(SEED000, adapter=adapter)
    eager = run_sycl(SEED000, adapter=adapter, shim=True, extra_env={"LAZY_USM_POLICY": "eager"})
    assert eager.result == plain.result
    peaks = lambda report: (report["host_pinned_bytes"], [d["gtt_bytes"] for d in report["devices"]])
    assert peaks(eager.report) == peaks(plain.report)
    assert eager.report["counters"]["make_resident_calls"] == plain.report["counters"]["make_resident_calls"]


@pytest.fixture(scope="module")
def virtual_mem_program(runtime_available, tmp_path_factory):
    """tests/python/programs/virtual_mem.cpp built against this interpreter's SYCL runtime."""
    prefix = pathlib.Path(sys.prefix)
    binary = tmp_path_factory.mktemp("programs") / "virtual_mem"
    build = subprocess.run(
        [os.environ.get("CXX", "g++"), "-std=c++17", "-DSYCL_DISABLE_FSYCL_SYCLHPP_WARNING",
         "-I", str(prefix / "include"), "-I", str(ROOT / "crates/level-zero-sys/include"),
         str(ROOT / "tests/python/programs/virtual_mem.cpp"), "-o", str(binary),
         "-L", str(prefix / "lib"), f"-Wl,-rpath,{prefix / 'lib'}", "-lsycl", "-ldl"],
        capture_output=True, text=True,
    )
    assert build.returncode == 0, f"virtual_mem.cpp does not build:\n{build.stderr[-4000:]}"
    return binary


@pytest.mark.parametrize("adapter", ADAPTERS)
def test_sycl_virtual_memory_mapped_on_one_gpu_is_made_resident_on_the_peer_that_reads_it(
    run_sycl, virtual_mem_program, adapter
):
    code = f"""
import subprocess
completed = subprocess.run([{str(virtual_mem_program)!r}], capture_output=True, text=True)
assert completed.returncode == 0, completed.stdout + completed.stderr
print(completed.stdout)
"""
    # Intel's runtime makes no residency call for mapped memory; in checking mode the peer's
    # read is refused without the shim (the driver's default would import it unseen)...
    checking = {"ZE_SIM_CHECKING": "1"}
    plain = run_sycl(code, adapter=adapter, extra_env=checking).result
    assert plain["refused"] and not plain["bytes_match"], plain
    # ...and through it, the mapping is device 0's memory, made resident on device 1 at its use.
    shimmed = run_sycl(code, adapter=adapter, shim=True, extra_env=checking).result
    assert shimmed["refused"] is False and shimmed["bytes_match"], shimmed
    assert (shimmed["before"], shimmed["after"], shimmed["unmapped"]) == (0, shimmed["size"], 0), shimmed
