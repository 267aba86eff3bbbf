"""Runs Python programs on Intel's SYCL runtime with the simulated platform standing in for the
Level Zero loader (`lazy-usm sim-env`), each in a process of its own, and reads the simulator's
accounting: live figures through the library's `zesim_*` functions inside the program, and the
report it writes at exit (`ZE_SIM_REPORT`).

Needs dpctl (which brings the runtime) in this interpreter and a built workspace
(`cargo build --workspace`). Without dpctl the tests say SKIPPED, except under CI, where they
fail.
"""
import json
import os
import pathlib
import subprocess
import sys
import tempfile
import textwrap

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
TARGET = pathlib.Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
# LAZY_USM_PACKAGE=1: the suite runs against the installed Python package (its console script
# and its liblazy_usm.so) instead of the workspace's build.
PACKAGE = os.environ.get("LAZY_USM_PACKAGE") == "1"
if PACKAGE:
    LAZY_USM = pathlib.Path(sys.prefix) / "bin" / "lazy-usm"
else:
    LAZY_USM = pathlib.Path(os.environ.get("LAZY_USM_BIN", TARGET / "debug" / "lazy-usm"))

# Both of the runtime's Level Zero adapters.
ADAPTERS = {"v1": "0", "v2": "1"}

# Reads the simulator's live accounting from inside a program (the same library the runtime
# loaded: ZE_SIM_LIBRARY is its path).
PRELUDE = textwrap.dedent(
    """
    import ctypes, os, re
    _sim = None

    def _simulator():
        # Opened only once the runtime has loaded the stand-in, and only if it has: the runtime
        # must find it by itself (through ZEL_LIBRARY_PATH), not get the copy a test loaded.
        global _sim
        if _sim is None:
            _sim = ctypes.CDLL(os.environ["ZE_SIM_LIBRARY"], mode=os.RTLD_NOLOAD | os.RTLD_LAZY)
            _sim.zesim_host_pinned_bytes.restype = ctypes.c_uint64
            _sim.zesim_counter.restype = ctypes.c_uint64
            _sim.zesim_counter.argtypes = [ctypes.c_char_p]
            _sim.zesim_fdinfo.restype = ctypes.c_size_t
            _sim.zesim_fdinfo.argtypes = [ctypes.c_uint32, ctypes.c_char_p, ctypes.c_size_t]
        return _sim

    def pinned():
        return _simulator().zesim_host_pinned_bytes()

    def counter(name):
        return _simulator().zesim_counter(name.encode())

    def gtt(device):
        buffer = ctypes.create_string_buffer(1024)
        _simulator().zesim_fdinfo(device, buffer, len(buffer))
        return int(re.search(rb"drm-resident-gtt:\\t(\\d+) KiB", buffer.value).group(1)) * 1024

    GIB = 1 << 30
    """
)


def _runtime_missing():
    try:
        import dpctl  # noqa: F401
    except ImportError as error:
        return f"Intel's SYCL runtime (pip install dpctl) is not installed: {error}"
    if not LAZY_USM.is_file():
        return f"{LAZY_USM} is not built (cargo build --workspace)"
    return None


@pytest.fixture(scope="session")
def runtime_available():
    why = _runtime_missing()
    if why:
        if os.environ.get("CI"):
            pytest.fail(f"the SYCL runtime suite must run under CI: {why}")
        print(f"SKIPPED: {why}")
        pytest.skip(why)


class Run:
    """A finished program: its output, the values it printed as `RESULT <json>`, and the
    simulator's report at exit."""

    def __init__(self, completed, report):
        self.stdout = completed.stdout
        self.stderr = completed.stderr
        self.report = report
        results = [line[len("RESULT "):] for line in self.stdout.splitlines() if line.startswith("RESULT ")]
        self.result = json.loads(results[-1]) if results else None


@pytest.fixture
def run_sycl(runtime_available, tmp_path):
    """run_sycl(code, preset="b70x2", adapter="v2") runs `code` (after PRELUDE) on the
    simulated platform with that adapter of the runtime; the code prints `RESULT <json>`. With
    the shim, the simulator is in checking mode (ZE_SIM_CHECKING=1): a peer's memory the shim
    forgot to make resident is refused, where the driver would import it unseen."""

    def run(code, preset="b70x2", adapter="v2", extra_env=None, shim=False):
        exports = subprocess.run(
            [str(LAZY_USM), "sim-env", "--preset", preset] + (["--shim"] if shim else []),
            check=True, capture_output=True, text=True,
        ).stdout
        env = dict(os.environ)
        for line in exports.splitlines():
            name, value = line[len("export "):].split("=", 1)
            env[name] = value.strip("'")
        env["SYCL_UR_USE_LEVEL_ZERO_V2"] = ADAPTERS[adapter]
        env.pop("ZE_SIM_CHECKING", None)
        if shim:
            env["ZE_SIM_CHECKING"] = "1"
        env.update(extra_env or {})
        report_path = tmp_path / "report.json"
        env["ZE_SIM_REPORT"] = str(report_path)
        script = tmp_path / "program.py"
        script.write_text(PRELUDE + textwrap.dedent(code))
        completed = subprocess.run(
            [sys.executable, str(script)], env=env, capture_output=True, text=True, timeout=300
        )
        assert completed.returncode == 0, f"program failed:\n{completed.stdout}\n{completed.stderr}"
        report = json.loads(report_path.read_text())
        return Run(completed, report)

    return run


@pytest.fixture(scope="session")
def xpu_library(runtime_available, tmp_path_factory):
    """liblazy_usm.so built with the `xpu` feature against this interpreter's SYCL runtime
    (LAZY_USM_SYCL_ROOT is its virtual environment), copied aside so later builds leave it be;
    in package mode, the installed package's own."""
    if PACKAGE:
        import lazy_usm

        return pathlib.Path(lazy_usm.library_path())
    # A target folder of its own: the workspace's liblazy_usm.so and .a stay the plain build
    # (the C ABI tests link them), whatever ran last.
    xpu_target = TARGET / "xpu"
    env = dict(
        os.environ,
        LAZY_USM_SYCL_ROOT=sys.prefix,
        LEVEL_ZERO_INCLUDE_DIR=str(ROOT / "crates/level-zero-sys/include"),
        CARGO_TARGET_DIR=str(xpu_target),
    )
    build = subprocess.run(
        ["cargo", "build", "-p", "lazy-usm-capi", "--features", "xpu"],
        cwd=ROOT, env=env, capture_output=True, text=True,
    )
    assert build.returncode == 0, f"the xpu build failed:\n{build.stderr[-4000:]}"
    library = tmp_path_factory.mktemp("xpu") / "liblazy_usm.so"
    library.write_bytes((xpu_target / "debug" / "liblazy_usm.so").read_bytes())
    return library
