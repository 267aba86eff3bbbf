"""PyTorch XPU on lazy-usm's allocator.

`enable()` installs lazy-usm's pool as PyTorch's XPU allocator (through
`torch.xpu.memory.XPUPluggableAllocator`): every tensor is resident on its own GPU only, and on a
peer only when that peer first uses it, instead of on every GPU of the default context.

PyTorch refuses its own statistics calls for a pluggable allocator; this module serves them
from lazy-usm's pools under the same names: `memory_stats()` (PyTorch's key names where they
apply), `memory_allocated()`, `memory_reserved()`, `max_memory_reserved()`, `empty_cache()`, and
`host_cost()` (what peer residency has pinned, and what eager residency would have).
"""
from __future__ import annotations

import ctypes
from typing import Any, Dict, Optional

from lazy_usm import _allocator, library_path

__all__ = [
    "enable",
    "memory_stats",
    "memory_allocated",
    "memory_reserved",
    "max_memory_allocated",
    "max_memory_reserved",
    "empty_cache",
    "host_cost",
]

# PyTorch's first release with XPUPluggableAllocator.
MINIMUM_TORCH = (2, 10)


class _Stats(ctypes.Structure):
    _fields_ = [
        ("allocated_bytes", ctypes.c_uint64),
        ("peak_allocated_bytes", ctypes.c_uint64),
        ("reserved_bytes", ctypes.c_uint64),
        ("peak_reserved_bytes", ctypes.c_uint64),
        ("cached_bytes", ctypes.c_uint64),
        ("hits", ctypes.c_uint64),
        ("misses", ctypes.c_uint64),
    ]


class _DriverCounters(ctypes.Structure):
    _fields_ = [
        ("driver_allocations", ctypes.c_uint64),
        ("driver_frees", ctypes.c_uint64),
        ("allocation_retries", ctypes.c_uint64),
        ("out_of_memory_errors", ctypes.c_uint64),
        ("segments", ctypes.c_uint64),
    ]


class _HostCost(ctypes.Structure):
    _fields_ = [
        ("current_bytes", ctypes.c_uint64),
        ("peak_bytes", ctypes.c_uint64),
        ("make_resident_calls", ctypes.c_uint64),
        ("evict_calls", ctypes.c_uint64),
        ("eager_bytes", ctypes.c_uint64),
    ]


def _check(status: int, call: str) -> None:
    if status != 0:
        why = (_allocator().lazy_usm_last_error() or b"").decode(errors="replace")
        raise RuntimeError(f"{call}: {why}")


def _device_index(device: Any) -> int:
    if device is None:
        try:
            import torch

            return int(torch.xpu.current_device())
        except Exception:  # torch absent or without XPU: the first device
            return 0
    if isinstance(device, int):
        return device
    if isinstance(device, str):
        kind, _, index = device.partition(":")
        if kind != "xpu":
            raise ValueError(f"{device!r} is not an XPU device")
        return int(index) if index else _device_index(None)
    # A torch.device: its index (None for the current device).
    index = getattr(device, "index", None)
    return _device_index(None) if index is None else int(index)


def enable() -> None:
    """Makes lazy-usm's pool PyTorch XPU's allocator. Call it before the first XPU tensor.

    Raises RuntimeError, saying what to do, when torch is not installed, is older than 2.10 (no
    pluggable allocators on XPU), or has made its allocator already."""
    try:
        import torch
    except ImportError as error:
        raise RuntimeError(
            "lazy_usm.torch.enable(): PyTorch is not installed (pip install torch with XPU "
            "support, 2.10 or later)"
        ) from error
    version = tuple(int(part) for part in torch.__version__.split("+")[0].split(".")[:2])
    memory = getattr(getattr(torch, "xpu", None), "memory", None)
    pluggable = getattr(memory, "XPUPluggableAllocator", None)
    if version < MINIMUM_TORCH or pluggable is None:
        raise RuntimeError(
            f"lazy_usm.torch.enable(): torch {torch.__version__} has no XPU pluggable allocator "
            f"(torch.xpu.memory.XPUPluggableAllocator, PyTorch {MINIMUM_TORCH[0]}.{MINIMUM_TORCH[1]} "
            "or later)"
        )
    allocator = pluggable(library_path(), "lazy_usm_xpu_malloc", "lazy_usm_xpu_free")
    try:
        memory.change_current_allocator(allocator)
    except RuntimeError as error:
        raise RuntimeError(
            "lazy_usm.torch.enable(): PyTorch's XPU allocator is in use already; call enable() "
            f"before the first XPU tensor ({error})"
        ) from error


def _stats(device: Any) -> _Stats:
    stats = _Stats()
    _check(_allocator().lazy_usm_xpu_stats(_device_index(device), ctypes.byref(stats)), "memory_stats")
    return stats


def memory_stats(device: Any = None) -> Dict[str, int]:
    """The keys of PyTorch's `torch.xpu.memory_stats()` that lazy-usm's pools have the same
    figure for, each meaning what PyTorch documents for it, plus lazy-usm's own (`lazy_usm.*`).

    `requested_bytes` are the sizes tensors asked for (PyTorch's `allocated_bytes` are rounded
    block sizes, which this allocator does not report per tensor); `num_device_alloc` and
    `num_device_free` count segments taken from and given back to the driver, whatever the
    block size; `num_alloc_retries` counts driver allocations retried after the pool released
    its cache, `num_ooms` out-of-memory errors returned. Keys with no exact counterpart here
    (`active_bytes`, `inactive_split_bytes`, per-pool `small_pool`/`large_pool` splits) are left
    out rather than approximated; `lazy_usm.cached_bytes` is what the pools hold and no tensor
    uses."""
    stats = _stats(device)
    driver = _DriverCounters()
    _check(
        _allocator().lazy_usm_xpu_driver_counters(_device_index(device), ctypes.byref(driver)),
        "memory_stats",
    )
    return {
        "requested_bytes.all.current": stats.allocated_bytes,
        "requested_bytes.all.peak": stats.peak_allocated_bytes,
        "reserved_bytes.all.current": stats.reserved_bytes,
        "reserved_bytes.all.peak": stats.peak_reserved_bytes,
        "segment.all.current": driver.segments,
        "num_device_alloc": driver.driver_allocations,
        "num_device_free": driver.driver_frees,
        "num_alloc_retries": driver.allocation_retries,
        "num_ooms": driver.out_of_memory_errors,
        "lazy_usm.cached_bytes": stats.cached_bytes,
        "lazy_usm.pool_hits": stats.hits,
        "lazy_usm.pool_misses": stats.misses,
    }


def memory_allocated(device: Any = None) -> int:
    """Bytes of tensors live on `device` (PyTorch's `memory_allocated`)."""
    return int(_stats(device).allocated_bytes)


def memory_reserved(device: Any = None) -> int:
    """Bytes the pool holds from the driver on `device` (PyTorch's `memory_reserved`)."""
    return int(_stats(device).reserved_bytes)


def max_memory_allocated(device: Any = None) -> int:
    """The most bytes of tensors there have been on `device`."""
    return int(_stats(device).peak_allocated_bytes)


def max_memory_reserved(device: Any = None) -> int:
    """The most bytes the pool has held on `device`."""
    return int(_stats(device).peak_reserved_bytes)


def empty_cache() -> int:
    """Returns idle pool memory to the driver once the work that used it has completed
    (PyTorch's `empty_cache`); the bytes released."""
    released = ctypes.c_uint64(0)
    _check(_allocator().lazy_usm_xpu_empty_cache(ctypes.byref(released)), "empty_cache")
    return int(released.value)


def host_cost() -> Dict[str, int]:
    """Host memory pinned for peer residency by lazy-usm's allocations, now and at its peak,
    the residency calls made, and `eager_pinned_bytes`: what making the memory the pools hold
    now resident on every peer would pin (what PyTorch's own allocator does)."""
    cost = _HostCost()
    _check(_allocator().lazy_usm_xpu_host_cost(ctypes.byref(cost)), "host_cost")
    return {
        "pinned_bytes": cost.current_bytes,
        "peak_pinned_bytes": cost.peak_bytes,
        "make_resident_calls": cost.make_resident_calls,
        "evict_calls": cost.evict_calls,
        "eager_pinned_bytes": cost.eager_bytes,
    }
