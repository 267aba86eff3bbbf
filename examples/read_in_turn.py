"""Makes four 256 MiB arrays on device 0 and reads them in turn, then the first again, from
device 1 (a copy to device 1, then to the host, every byte checked): docs/alternatives.md's
example of `lazy-usm compare` with a host budget (tests/python/test_compare.py runs the same program)."""
import dpctl, dpctl.memory as dm
devices = dpctl.get_devices()
context = dpctl.SyclContext(devices)
queues = [dpctl.SyclQueue(context, device) for device in devices]
size = 256 << 20
arrays = []
for index in range(4):
    array = dm.MemoryUSMDevice(size, queue=queues[0])
    array.memset(0x11 * (index + 1))
    arrays.append(array)
target = dm.MemoryUSMDevice(size, queue=queues[1])
right = True
for index in [0, 1, 2, 3, 0]:
    target.copy_from_device(arrays[index])   # device 0's memory read by device 1's copy
    right = right and bytes(target.copy_to_host()) == bytes([0x11 * (index + 1)]) * size
print("right", right)
