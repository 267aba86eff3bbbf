"""The installed Python package (`pip install .`, a wheel of this checkout): its console script,
its library through PyTorch's entry points with the statistics PyTorch refuses pluggable
allocators, `probe()` of a simulated process, host memory registration, and `enable()`'s errors.
Runs in run.sh's package pass (LAZY_USM_PACKAGE=1), with the package's interpreter."""
import json
import os
import pathlib
import subprocess
import sys
import textwrap

import pytest

from conftest import LAZY_USM, PACKAGE, ROOT

pytestmark = pytest.mark.skipif(not PACKAGE, reason="the package pass of run.sh (LAZY_USM_PACKAGE=1)")

GIB = 1 << 30
MIB = 1 << 20


def test_the_console_script_is_the_packages_command(runtime_available):
    import lazy_usm

    package = pathlib.Path(lazy_usm.__file__).parent
    # The console script pip installed runs the command the package carries, as `python -m` does.
    assert LAZY_USM.parent == pathlib.Path(sys.prefix) / "bin" and LAZY_USM.is_file()
    script = subprocess.run([str(LAZY_USM), "--help"], capture_output=True, text=True, check=True).stdout
    module = subprocess.run([sys.executable, "-m", "lazy_usm", "--help"], capture_output=True, text=True, check=True).stdout
    assert script == module and "run" in script and "compare" in script
    version = subprocess.run([str(LAZY_USM), "--version"], capture_output=True, text=True, check=True).stdout
    assert version.split() == ["lazy-usm", lazy_usm.__version__]
    assert (package / "_bin" / "lazy-usm").is_file() and (package / "_lib" / "liblazy_usm.so").is_file()
    # The stand-in and the shim the command finds are the package's own.
    environment = lazy_usm.shim_environment("b70x2")
    assert pathlib.Path(environment["LAZY_USM_REAL_LOADER"]).resolve().is_relative_to(package.resolve())
    # (The folder programs are pointed at is a private one of links, as a package may not be
    # written to; each loader name in it leads into the package.)
    for name in ("libze_loader.so.1", "libze_loader.so"):
        loader = pathlib.Path(environment["ZEL_LIBRARY_PATH"]) / name
        assert loader.resolve().is_relative_to(package.resolve()), loader


def test_run_shim_of_seed000_through_the_package(runtime_available, tmp_path):
    # The README's Python commands, as written: examples/seed000.py through the package.
    program = ROOT / "examples" / "seed000.py"
    figures = {}
    for shim in (False, True):
        saved = tmp_path / f"report-{shim}.json"
        command = [str(LAZY_USM), "--preset", "b70x2", "run", "--report", str(saved)]
        command += ["--shim"] if shim else []
        completed = subprocess.run(command + ["--", sys.executable, str(program)], capture_output=True, text=True, timeout=300)
        assert completed.returncode == 0, completed.stderr
        assert completed.stdout == "allocated 2 x 4 GiB\n"
        figures[shim] = json.loads(saved.read_text())["host_pinned_bytes"]["peak"]
    # Under the shim only the runtime's own host allocation (a byte) is pinned.
    assert figures[False] == 8 * GIB and figures[True] < MIB, figures


def run_program(tmp_path, code, preset="b70x2"):
    """Runs `code` under `lazy-usm run` (one simulated machine) with the package's interpreter;
    returns the RESULT line's value."""
    script = tmp_path / "program.py"
    script.write_text(textwrap.dedent(code))
    completed = subprocess.run(
        [str(LAZY_USM), "--preset", preset, "run", "--", sys.executable, str(script)],
        capture_output=True, text=True, timeout=300,
    )
    assert completed.returncode == 0, completed.stderr
    lines = [line for line in completed.stdout.splitlines() if line.startswith("RESULT ")]
    assert lines, completed.stdout
    return json.loads(lines[-1][len("RESULT "):])


def test_probe_reads_a_simulated_process_from_its_machine(runtime_available, tmp_path):
    result = run_program(tmp_path, """
        import dpctl, dpctl.memory as dm, json, lazy_usm
        devices = dpctl.get_devices()
        context = dpctl.SyclContext(devices)
        block = dm.MemoryUSMDevice(1 << 30, queue=dpctl.SyclQueue(context, devices[0]))
        print("RESULT " + json.dumps(lazy_usm.probe()))
    """)
    assert result["modelled"] is True and result["platform"] == "b70x2"
    # Intel's runtime made the block resident on the peer too: its mirror is pinned.
    assert result["host_pinned_bytes"] == GIB
    assert [(device["vram_bytes"], device["gtt_bytes"]) for device in result["devices"]] == [(GIB, 0), (0, GIB)]


def test_pytorchs_entry_points_and_the_statistics_it_refuses_pluggable_allocators(runtime_available, tmp_path):
    result = run_program(tmp_path, """
        import ctypes, dpctl, json, lazy_usm, lazy_usm.torch as xpu
        library = ctypes.CDLL(lazy_usm.library_path())
        library.lazy_usm_xpu_malloc.restype = ctypes.c_void_p
        library.lazy_usm_xpu_malloc.argtypes = [ctypes.c_size_t, ctypes.c_int, ctypes.c_void_p]
        library.lazy_usm_xpu_free.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_void_p]
        # As PyTorch calls them: an in-order queue (a stream) on the default context, its
        # sycl::queue*.
        queues = [dpctl.SyclQueue(device, property="in_order") for device in dpctl.get_devices()]
        sizes = [1 << 20, 3 << 20, 256]
        blocks = [library.lazy_usm_xpu_malloc(size, 1, queues[1].addressof_ref()) for size in sizes]
        during = {"allocated": xpu.memory_allocated(1), "reserved": xpu.memory_reserved(1),
                  "other": xpu.memory_allocated(0), "stats": xpu.memory_stats("xpu:1"),
                  "cost": xpu.host_cost()}
        for block, size in zip(blocks, sizes):
            library.lazy_usm_xpu_free(block, size, 1, queues[1].addressof_ref())
        queues[1].wait()
        after = {"allocated": xpu.memory_allocated(1), "reserved": xpu.memory_reserved(1),
                 "peak": xpu.max_memory_allocated(1), "cost": xpu.host_cost()}
        released = xpu.empty_cache()
        emptied = {"released": released, "reserved": xpu.memory_reserved(1),
                   "peak": xpu.max_memory_reserved(1)}
        print("RESULT " + json.dumps({"during": during, "after": after, "emptied": emptied}))
    """)
    during, after, emptied = result["during"], result["after"], result["emptied"]
    assert during["allocated"] == (1 << 20) + (3 << 20) + 256
    assert during["reserved"] >= during["allocated"] and during["other"] == 0
    assert during["stats"]["requested_bytes.all.current"] == during["allocated"]
    assert during["stats"]["reserved_bytes.all.current"] == during["reserved"]
    assert during["stats"]["lazy_usm.pool_misses"] >= 1, "new memory came from the driver"
    # Every path counts: the 3 MiB block is above the size classes, in a large segment.
    assert during["stats"]["num_device_alloc"] >= 2, during["stats"]
    assert during["stats"]["segment.all.current"] == during["stats"]["num_device_alloc"]
    assert during["stats"]["num_device_free"] == 0 and during["stats"]["num_ooms"] == 0
    assert during["cost"]["pinned_bytes"] == 0, "resident on its own device only"
    # What SYCL's malloc_device would have pinned for the same memory: its size, once per peer.
    assert during["cost"]["eager_pinned_bytes"] == during["reserved"]
    assert during["stats"]["requested_bytes.all.peak"] == during["allocated"]
    assert after["allocated"] == 0 and after["reserved"] == during["reserved"], "kept for reuse"
    assert after["peak"] == during["allocated"]
    assert emptied["released"] == during["reserved"] and emptied["reserved"] == 0
    assert emptied["peak"] == during["reserved"]


def test_a_registered_host_buffer_copies_at_the_host_links_rate(runtime_available, tmp_path):
    result = run_program(tmp_path, """
        import ctypes, dpctl, dpctl.memory as dm, json, mmap, lazy_usm
        size = 64 << 20
        queue = dpctl.SyclQueue(dpctl.get_devices()[0], property="enable_profiling")
        device = dm.MemoryUSMDevice(size, queue=queue)

        def rates(buffer):
            # Modelled device time of a host-to-device and a device-to-host copy, in GB/s.
            out = []
            for dest, src in ((device, buffer), (buffer, device)):
                event = queue.memcpy_async(dest, src, size)
                event.wait()
                out.append(size / (event.profiling_info_end - event.profiling_info_start))
            return out

        pageable, registered = mmap.mmap(-1, size), mmap.mmap(-1, size)
        address = ctypes.addressof(ctypes.c_char.from_buffer(registered))
        ok = lazy_usm.register_host_memory(address, size)
        result = {"registered": ok, "pageable_rates": rates(pageable), "registered_rates": rates(registered)}
        result["unregistered"] = lazy_usm.unregister_host_memory(address)
        import warnings
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            result["again"] = lazy_usm.unregister_host_memory(address)
            result["warning"] = str(caught[0].message) if caught else ""
        print("RESULT " + json.dumps(result))
    """)
    assert result["registered"] is True and result["unregistered"] is True
    assert result["again"] is False and "is not registered" in result["warning"]
    for pageable, registered in zip(result["pageable_rates"], result["registered_rates"]):
        # Pageable memory is staged by the driver (~3 GB/s modelled); registered is direct.
        assert registered > 4 * pageable, result


def test_enable_says_what_is_wrong_without_a_usable_torch(runtime_available, tmp_path):
    code = textwrap.dedent("""
        import json, sys, types, lazy_usm.torch as xpu
        errors = []
        try:
            xpu.enable()
        except RuntimeError as error:
            errors.append(str(error))
        sys.modules["torch"] = types.SimpleNamespace(__version__="2.5.1+xpu", xpu=None)
        try:
            xpu.enable()
        except RuntimeError as error:
            errors.append(str(error))
        print(json.dumps(errors))
    """)
    completed = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    missing, old = json.loads(completed.stdout)
    assert "PyTorch is not installed" in missing
    assert "2.5.1+xpu" in old and "XPUPluggableAllocator" in old


def test_the_library_loads_by_itself_and_registration_says_why_it_cannot(runtime_available):
    # A fresh interpreter that imports neither dpctl nor torch: the library finds libsycl through
    # its own run path, and with no Level Zero loader in the process registration refuses,
    # saying why, once.
    code = textwrap.dedent("""
        import ctypes, json, mmap, warnings, lazy_usm
        ctypes.CDLL(lazy_usm.library_path())
        buffer = mmap.mmap(-1, 1 << 16)
        address = ctypes.addressof(ctypes.c_char.from_buffer(buffer))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            results = [lazy_usm.register_host_memory(address, 1 << 16) for _ in range(2)]
        print(json.dumps({"results": results, "warnings": [str(w.message) for w in caught]}))
    """)
    environment = {key: value for key, value in os.environ.items() if key != "LD_LIBRARY_PATH"}
    completed = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=environment)
    assert completed.returncode == 0, completed.stderr
    result = json.loads(completed.stdout)
    assert result["results"] == [False, False]
    assert len(result["warnings"]) == 1 and "register_host_memory" in result["warnings"][0], result


def test_registration_and_probe_in_a_process_set_up_by_sim_env(runtime_available):
    # `eval "$(lazy-usm sim-env --preset b70x2)"`, then a Python that has imported neither dpctl
    # nor torch: registration loads the loader the process would load (the simulator's
    # stand-in), and probe says in words why it shows no GPU.
    exports = subprocess.run([str(LAZY_USM), "--preset", "b70x2", "sim-env"], capture_output=True,
                             text=True, check=True).stdout
    environment = dict(os.environ)
    for line in exports.splitlines():
        name, value = line[len("export "):].split("=", 1)
        environment[name] = value.strip("'")
    code = textwrap.dedent("""
        import ctypes, json, mmap, warnings, lazy_usm
        buffer = mmap.mmap(-1, 1 << 16)
        address = ctypes.addressof(ctypes.c_char.from_buffer(buffer))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            registered = lazy_usm.register_host_memory(address, 1 << 16)
            unregistered = lazy_usm.unregister_host_memory(address)
        print(json.dumps({"registered": registered, "unregistered": unregistered,
                          "warnings": [str(w.message) for w in caught], "probe": lazy_usm.probe()}))
    """)
    completed = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=environment)
    assert completed.returncode == 0, completed.stderr
    result = json.loads(completed.stdout)
    assert (result["registered"], result["unregistered"], result["warnings"]) == (True, True, []), result
    assert "lazy-usm run" in result["probe"]["note"], result["probe"]
