"""pyzes's own example (`pyzes/examples/pyzes_example.py`, shipped in its wheel) run on the
simulated machine while another process, a dpctl program, holds device memory on the first GPU:
what a user of Sysman sees of a job's memory. Then, through pyzes's bindings, the processes
using the first GPU: asked for one entry when there are two, then for all of them.

pyzes opens the system's loader by its absolute path (`/usr/lib/x86_64-linux-gnu/
libze_loader.so.1`), whatever the environment says. This program points pyzes's library handle
at the loader the environment resolves first instead (under `lazy-usm run`, the stand-in, or the
shim in front of it), as a machine whose system loader were that one would; nothing else of
pyzes is changed.

    python pyzes_beside_a_holder.py --hold-mib N      # prints RESULT {...}
    python pyzes_beside_a_holder.py --holder N        # (the holder itself)
"""
import argparse
import ctypes
import json
import os
import pathlib
import re
import runpy
import select
import subprocess
import sys

MIB = 1 << 20
LOADER = "libze_loader.so.1"


def hold(mib):
    """Allocates `mib` MiB of device memory on the first GPU through Intel's runtime, says so,
    and keeps it until its standard input closes."""
    import dpctl
    import dpctl.memory

    queue = dpctl.SyclQueue(dpctl.get_devices(device_type="gpu")[0])
    memory = dpctl.memory.MemoryUSMDevice(mib * MIB, queue=queue)
    memory.memset(1)
    queue.wait()
    print("held", flush=True)
    sys.stdin.read()
    del memory


def first_loader():
    """The loader a program of this environment loads by name: the first folder of
    LD_LIBRARY_PATH that has one."""
    for folder in os.environ.get("LD_LIBRARY_PATH", "").split(":"):
        candidate = pathlib.Path(folder or ".") / LOADER
        if candidate.is_file():
            return str(candidate.resolve())
    sys.exit(f"no {LOADER} on LD_LIBRARY_PATH")


def run_example():
    """pyzes's example in this process, its library handle on `first_loader()`, then the
    processes of the first GPU (a `PROCESSES {...}` line); the example's exit status."""
    import pyzes

    pyzes.gpuLib = ctypes.CDLL(first_loader())
    example = pathlib.Path(pyzes.__file__).parent / "examples" / "pyzes_example.py"
    sys.argv = [str(example)]
    status = 0
    try:
        runpy.run_path(str(example), run_name="__main__")
    except SystemExit as exit_:
        status = exit_.code or 0
    print("PROCESSES " + json.dumps(processes_of_first_gpu(pyzes)), flush=True)
    return status


def processes_of_first_gpu(pyzes):
    """What zesDeviceProcessesGetState says of the first GPU: asked for one entry, then all."""
    count = ctypes.c_uint32(1)
    pyzes.zesDriverGet(ctypes.byref(count), None)
    drivers = (pyzes.zes_driver_handle_t * count.value)()
    pyzes.zesDriverGet(ctypes.byref(count), drivers)
    count = ctypes.c_uint32(0)
    pyzes.zesDeviceGet(drivers[0], ctypes.byref(count), None)
    devices = (pyzes.zes_device_handle_t * count.value)()
    pyzes.zesDeviceGet(drivers[0], ctypes.byref(count), devices)
    one = (pyzes.zes_process_state_t * 1)()
    asked = ctypes.c_uint32(1)
    short_result = pyzes.zesDeviceProcessesGetState(devices[0], ctypes.byref(asked), one)
    entries = (pyzes.zes_process_state_t * asked.value)()
    total = ctypes.c_uint32(asked.value)
    full_result = pyzes.zesDeviceProcessesGetState(devices[0], ctypes.byref(total), entries)
    return {
        "one_asked": {"result": short_result, "count": asked.value},
        "all": {"result": full_result,
                "processes": [[entry.processId, entry.memSize] for entry in entries[:total.value]]},
        "self": os.getpid(),
    }


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--hold-mib", type=int, default=0)
    parser.add_argument("--holder", type=int, default=0)
    parser.add_argument("--example-only", action="store_true")
    args = parser.parse_args()
    if args.holder:
        hold(args.holder)
        return 0
    if args.example_only:
        return run_example()
    holder = subprocess.Popen([sys.executable, __file__, "--holder", str(args.hold_mib)],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        ready, _, _ = select.select([holder.stdout], [], [], 300)
        if not ready or holder.stdout.readline().strip() != "held":
            sys.exit("the holder did not hold its memory within 300 s")
        example = subprocess.run([sys.executable, __file__, "--example-only"],
                                 capture_output=True, text=True, timeout=300)
    finally:
        holder.stdin.close()
        try:
            holder.wait(timeout=120)
        except subprocess.TimeoutExpired:
            holder.kill()
            holder.wait()
    sys.stdout.write(example.stdout)
    sys.stderr.write(example.stderr)
    # Per device, in the order the example prints them: its name and the used bytes of its
    # memory module.
    devices = re.findall(r"^Device (\d+):\n(?:  .*\n)*?  modelName: (.*)$", example.stdout, re.M)
    used = [int(value.replace(",", "")) for value in re.findall(r"Used: ([\d,]+) bytes", example.stdout)]
    result = {
        "example_exit": example.returncode,
        "devices": [name for _, name in devices],
        "used_bytes": used,
        "holder_exit": holder.returncode,
        "holder_pid": holder.pid,
        "processes": next((json.loads(line[len("PROCESSES "):]) for line in example.stdout.splitlines()
                           if line.startswith("PROCESSES ")), None),
    }
    print("RESULT " + json.dumps(result), flush=True)
    return 0 if example.returncode == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
