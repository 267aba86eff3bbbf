"""dpnp and oneMKL on two devices, as a user of those libraries writes it: fill, add and sum on
each device, copies between the devices both ways, a kernel on the copy, a float32 gemm and an
int32 matmul (oneMKL's SYCL BLAS and dpnp's own kernels), and an array of `MIB` MiB (argument,
default 256) made on the first device and summed by a kernel on the second, which reads it
where it is (dpctl's `to_device` within one context moves no byte). Prints `RESULT <json>` with
what it checked."""
import json
import sys

import dpctl
import dpnp
import numpy

devices = dpctl.get_devices(backend="level_zero", device_type="gpu")
if len(devices) < 2:
    sys.exit(f"needs two Level Zero GPUs, found {len(devices)}")
first, second = (dpctl.SyclQueue(device) for device in devices[:2])
n = 256
mib = int(sys.argv[1]) if len(sys.argv) > 1 else 256

a = dpnp.full((n, n), 2.0, dtype=dpnp.float32, sycl_queue=first)
b = dpnp.arange(n * n, dtype=dpnp.float32, sycl_queue=first).reshape(n, n) / (n * n)
total = float(dpnp.sum(a + b))
expected_total = float(numpy.sum(2.0 + numpy.arange(n * n, dtype=numpy.float32) / (n * n)))

on_second = b.to_device(second.sycl_device)
doubled = on_second * 2
# As below: the copy to the host on the first device's queue would not wait for this kernel,
# which ran on the queue `to_device` made for the second device (not `second`).
doubled.sycl_queue.wait()
back = doubled.to_device(first.sycl_device)
copies_right = bool(numpy.array_equal(dpnp.asnumpy(back), dpnp.asnumpy(b) * 2))

gemm = dpnp.matmul(a, b)
expected_gemm = numpy.matmul(dpnp.asnumpy(a), dpnp.asnumpy(b))
gemm_right = bool(numpy.allclose(dpnp.asnumpy(gemm), expected_gemm, rtol=1e-4))

x = dpnp.arange(64 * 64, dtype=dpnp.int32, sycl_queue=second).reshape(64, 64) % 7
y = dpnp.arange(64 * 64, dtype=dpnp.int32, sycl_queue=second).reshape(64, 64) % 5
product = dpnp.matmul(x, y)
expected_product = numpy.matmul(dpnp.asnumpy(x), dpnp.asnumpy(y))
matmul_right = bool(numpy.array_equal(dpnp.asnumpy(product), expected_product))

ones = dpnp.ones(mib << 18, dtype=dpnp.float32, sycl_queue=first)
# The second queue's kernel does not wait for the first queue's fill by itself: dpnp orders
# work per queue, and the view `to_device` returns (no byte moves within one context) carries
# no event of the first queue. Without this wait the sum read a half-filled array (3 runs in 6).
first.wait()
peer_read_right = float(dpnp.sum(ones.to_device(second.sycl_device))) == float(mib << 18)

result = {
    "peer_read_right": peer_read_right,
    "sum_right": abs(total - expected_total) <= 1e-3 * abs(expected_total),
    "copies_right": copies_right,
    "gemm_right": gemm_right,
    "int_matmul_right": matmul_right,
}
print("RESULT " + json.dumps(result))
sys.exit(0 if all(result.values()) else 1)
