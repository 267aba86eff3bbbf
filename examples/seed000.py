"""Seed 000's program: 4 GiB on each GPU of a context that holds both, through Intel's SYCL
runtime (dpctl). Run as is, Intel's runtime makes each allocation resident on the peer too and
pins 8 GiB of host memory; under `lazy-usm run --shim` it pins none.

    lazy-usm --preset b70x2 run --shim -- python3 examples/seed000.py
"""
import dpctl
import dpctl.memory as dm

devices = dpctl.get_devices()
context = dpctl.SyclContext(devices)
blocks = [dm.MemoryUSMDevice(4 << 30, queue=dpctl.SyclQueue(context, device)) for device in devices]
print("allocated", len(blocks), "x 4 GiB")
