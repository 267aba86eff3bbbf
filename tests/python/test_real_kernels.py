"""A SYCL program whose kernel (SPIR-V compiled from OpenCL C: crates/ze-sim/tests/kernels)
runs for real on both simulated GPUs through Intel's runtime and dpctl, the simulator building
and running it with the OpenCL CPU runtime: the program's results are the kernel's, with and
without the shim, on both adapters; a kernel on device 1 that reads device 0's memory reads the
right bytes, eagerly resident without the shim and made resident on that use with it."""
import os
import pathlib

import pytest

KERNELS = pathlib.Path(__file__).resolve().parents[2] / "crates/ze-sim/tests/kernels/kernels.spv"

PROGRAM = """
import ctypes
import dpctl, dpctl.memory as dm, dpctl.program as dp
import numpy as np

spirv = open(KERNELS, "rb").read()
devices = dpctl.get_devices(device_type="gpu")
context = dpctl.SyclContext(devices)
queues = [dpctl.SyclQueue(context, device) for device in devices]
items = 4096
values = np.arange(items, dtype=np.uint32) * 3
inputs, outputs, correct = [], [], []
for index, queue in enumerate(queues):
    add = dp.create_program_from_spirv(queue, spirv).get_sycl_kernel("add_u32")
    source = dm.MemoryUSMDevice(items * 4, queue=queue)
    result = dm.MemoryUSMDevice(items * 4, queue=queue)
    queue.memcpy(source, values, items * 4)
    queue.submit(add, [result, source, ctypes.c_uint32(100 + index)], [items], [64]).wait()
    read = np.empty(items, dtype=np.uint32)
    queue.memcpy(read, result, items * 4)
    correct.append(bool((read == values + 100 + index).all()))
    inputs.append(source)
    outputs.append(result)
# Device 1's kernel reads device 0's input.
add = dp.create_program_from_spirv(queues[1], spirv).get_sycl_kernel("add_u32")
queues[1].submit(add, [outputs[1], inputs[0], ctypes.c_uint32(7)], [items], [64]).wait()
read = np.empty(items, dtype=np.uint32)
queues[1].memcpy(read, outputs[1], items * 4)
correct.append(bool((read == values + 7).all()))
names = ["kernels_executed", "kernels_not_executed", "kernel_failures", "residency_violations"]
print("RESULT " + json.dumps({
    "correct": correct,
    "pinned": pinned(),
    "counters": {name: counter(name) for name in names},
}))
"""


@pytest.fixture(scope="module")
def kernels_run(runtime_available):
    """The OpenCL CPU runtime the simulator runs kernels with (OPENCL_DYLIB_PATH)."""
    path = os.environ.get("OPENCL_DYLIB_PATH", "")
    if not any(pathlib.Path(part).is_file() for part in path.split(";") if part):
        why = f"no OpenCL CPU runtime at OPENCL_DYLIB_PATH ({path!r}; .ci/run installs one)"
        if os.environ.get("CI"):
            pytest.fail(why)
        print(f"SKIPPED: {why}")
        pytest.skip(why)


@pytest.mark.parametrize("adapter", ["v1", "v2"])
def test_a_spirv_kernel_runs_on_both_gpus_with_and_without_the_shim(run_sycl, kernels_run, adapter):
    code = f"import json\nKERNELS = {str(KERNELS)!r}\n" + PROGRAM
    eager = run_sycl(code, adapter=adapter).result
    lazy = run_sycl(code, adapter=adapter, shim=True).result
    for run in (eager, lazy):
        assert run["correct"] == [True, True, True], run
        assert run["counters"] == {
            "kernels_executed": 3,
            "kernels_not_executed": 0,
            "kernel_failures": 0,
            "residency_violations": 0,
        }, run
    # The runtime's pool serves each device's allocations from one slab of its own. Eager: both
    # slabs mirrored on the peer. Lazy: only device 0's, which device 1's kernel used.
    assert eager["pinned"] >= 4 * 4096 * 4, eager
    assert lazy["pinned"] > 0 and eager["pinned"] == 2 * lazy["pinned"], (eager, lazy)


LAUNCH_ONCE = """
import ctypes, sys
import dpctl, dpctl.memory as dm, dpctl.program as dp
import numpy as np
spirv = open(sys.argv[1], "rb").read()
queue = dpctl.SyclQueue(dpctl.get_devices(device_type="gpu")[0])
add = dp.create_program_from_spirv(queue, spirv).get_sycl_kernel("add_u32")
source = dm.MemoryUSMDevice(4096 * 4, queue=queue)
result = dm.MemoryUSMDevice(4096 * 4, queue=queue)
queue.submit(add, [result, source, ctypes.c_uint32(1)], [4096], [64]).wait()
print("launched")
"""


def test_run_says_loudly_that_kernels_did_not_execute_without_the_opencl_runtime(runtime_available, tmp_path):
    import subprocess
    import sys

    from conftest import LAZY_USM

    script = tmp_path / "launch_once.py"
    script.write_text(LAUNCH_ONCE)
    env = dict(os.environ, OPENCL_DYLIB_PATH=str(tmp_path / "no-such-libintelocl.so"))
    completed = subprocess.run(
        [str(LAZY_USM), "--preset", "b70x2", "run", "--", sys.executable, str(script), str(KERNELS)],
        capture_output=True, text=True, timeout=600, env=env,
    )
    assert completed.returncode == 0, completed.stderr[-3000:]
    assert "launched" in completed.stdout
    assert "WARNING: 1 of 1 kernel launches did not execute" in completed.stderr, completed.stderr[-3000:]
    assert "opencl-requirements.txt" in completed.stderr and "OPENCL_DYLIB_PATH" in completed.stderr
