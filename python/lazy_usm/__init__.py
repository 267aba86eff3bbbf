"""lazy-usm: a residency-aware USM allocator for multi-GPU Intel Level Zero programs.

- `lazy-usm` (the console script, also `python -m lazy_usm`): `run --shim`, `compare`,
  `doctor`, `probe`, ... as documented in the README.
- `lazy_usm.torch.enable()`: PyTorch XPU's allocator replaced by lazy-usm's, with the memory
  statistics PyTorch refuses pluggable allocators.
- `probe(pid)`: a live process's device memory and pinned host memory.
- `shim_environment()`: the variables that put lazy-usm's loader shim under a program.
- `register_host_memory(address, size)` / `unregister_host_memory(address)`: a host buffer
  made pinned for the device's copy engines.
"""
from __future__ import annotations

import ctypes
import subprocess
import warnings
from typing import Any, Dict, Optional

from lazy_usm import _paths
from lazy_usm._native import __version__, probe as _probe

__all__ = [
    "__version__",
    "probe",
    "shim_environment",
    "register_host_memory",
    "unregister_host_memory",
    "library_path",
]


def probe(pid: Optional[int] = None) -> Dict[str, Any]:
    """Device memory of a live process (`None`: this one), as a dict: `host_pinned_bytes`
    (the kernel's `nr_gpu_active`, machine-wide; None where the kernel has no such counter) and
    per device `vram_bytes` and `gtt_bytes` (from DRM fdinfo: the memory no process counter
    shows). Under `lazy-usm run` on the simulated platform, a process of the job is read from the
    simulated machine instead, with `modelled` True.

    >>> import lazy_usm, os
    >>> lazy_usm.probe(os.getpid())["pid"] == os.getpid()
    True
    """
    return _probe(pid)


def shim_environment(preset: Optional[str] = None) -> Dict[str, str]:
    """The environment variables that make a program load lazy-usm's loader shim (lazy peer
    residency for a program that is not changed), for launchers that start their own processes.
    With `preset`, the shim forwards to the simulated platform instead of the system's loader."""
    arguments = [str(_paths.command())]
    if preset is not None:
        arguments += ["--preset", preset]
    arguments += ["sim-env", "--shim"]
    exports = subprocess.run(arguments, check=True, capture_output=True, text=True).stdout
    variables = {}
    for line in exports.splitlines():
        name, value = line[len("export "):].split("=", 1)
        # `sim-env` quotes values for a POSIX shell.
        variables[name] = value[1:-1].replace("'\\''", "'")
    return variables


def library_path() -> str:
    """The path of `liblazy_usm.so`, for `ctypes` or `torch.xpu.memory.XPUPluggableAllocator`."""
    return str(_paths.allocator_library())


_library: Optional[ctypes.CDLL] = None
_said: set = set()


def _allocator() -> ctypes.CDLL:
    global _library
    if _library is None:
        library = ctypes.CDLL(library_path())
        library.lazy_usm_last_error.restype = ctypes.c_char_p
        library.lazy_usm_register_host_memory.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
        library.lazy_usm_register_host_memory.restype = ctypes.c_int
        library.lazy_usm_unregister_host_memory.argtypes = [ctypes.c_void_p]
        library.lazy_usm_unregister_host_memory.restype = ctypes.c_int
        library.lazy_usm_xpu_stats.argtypes = [ctypes.c_int, ctypes.c_void_p]
        library.lazy_usm_xpu_stats.restype = ctypes.c_int
        library.lazy_usm_xpu_driver_counters.argtypes = [ctypes.c_int, ctypes.c_void_p]
        library.lazy_usm_xpu_driver_counters.restype = ctypes.c_int
        library.lazy_usm_xpu_empty_cache.argtypes = [ctypes.c_void_p]
        library.lazy_usm_xpu_empty_cache.restype = ctypes.c_int
        library.lazy_usm_xpu_host_cost.argtypes = [ctypes.c_void_p]
        library.lazy_usm_xpu_host_cost.restype = ctypes.c_int
        _library = library
    return _library


def _refused(call: str) -> bool:
    why = (_allocator().lazy_usm_last_error() or b"").decode(errors="replace")
    if (call, why) not in _said:
        warnings.warn(f"lazy_usm.{call}: {why}", RuntimeWarning, stacklevel=3)
        _said.add((call, why))
    return False


def register_host_memory(address: int, size: int) -> bool:
    """Makes `size` bytes of host memory at `address` (both multiples of 4096: an `mmap`, or a
    tensor's page-aligned pinned buffer; the memory must stay allocated until unregistered)
    pinned for every GPU of the process's Level Zero driver, through Intel's
    host-pointer import, so copies to and from it run at the host link's rate rather than staged.
    Returns False, and says why (once per reason), when the driver cannot."""
    if _allocator().lazy_usm_register_host_memory(address, size) == 0:
        return True
    return _refused("register_host_memory")


def unregister_host_memory(address: int) -> bool:
    """Undoes `register_host_memory` for the buffer at `address`. False (said once) when it was
    not registered or the driver refuses."""
    if _allocator().lazy_usm_unregister_host_memory(address) == 0:
        return True
    return _refused("unregister_host_memory")
