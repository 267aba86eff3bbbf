"""Allocates 2 x 2 GiB on device 0, copies 64 MiB from device 0 to device 1, then enables peer
access from device 1 to device 0: the `lazy-usm compare` example of
docs/alternatives.md (tests/python/test_compare.py
runs the same program)."""
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
