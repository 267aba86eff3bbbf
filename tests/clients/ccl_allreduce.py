"""oneCCL all-reduces device memory between ranks, as a data-parallel job uses it: each rank
takes the GPU of its rank on the platform's default context (as PyTorch does), optionally holds
its model's weights there (`--weights` of `--weight-mib` each, as seed 003's ranks did), and
every step computes its gradients with a kernel (dpnp) into `count` float32 values, all-reduces
them (summed) with oneCCL's C API on its in-order SYCL queue, and checks every value against
the sum of the ranks' contributions. Started by Intel MPI's launcher, as oneCCL's documentation
starts its jobs (rank and size from PMI_RANK and PMI_SIZE); rank 0's unique id reaches the
others through a file.

    mpiexec -n N python ccl_allreduce.py --id-file PATH [--count C] [--steps S]
        [--weights W --weight-mib M] [--results DIR]

Prints `rank R ok` per rank or what was wrong; exits 1 on any wrong value. With `--results`,
each rank writes DIR/rank-R.json: the steps it checked."""
import argparse
import ctypes
import os
import pathlib
import sys
import threading
import time

ID_BYTES = 4096
FLOAT32, SUM = 7, 0


class UniqueId(ctypes.Structure):
    """`onecclUniqueId`, passed by value to `onecclCommInitRank`."""

    _fields_ = [("data", ctypes.c_char * ID_BYTES)]


def library():
    ccl = ctypes.CDLL("libccl.so.2")
    for name in ("onecclGetUniqueId", "onecclCommInitRank", "onecclAllReduce", "onecclSetDevice",
                 "onecclCommDestroy", "onecclCommFinalize"):
        getattr(ccl, name).restype = ctypes.c_int
    ccl.onecclGetErrorString.restype = ctypes.c_char_p
    return ccl


def failed_marker(id_file):
    return pathlib.Path(id_file).with_suffix(".failed")


def check(ccl, result, what, id_file):
    if result != 0:
        # The other ranks may wait for this one inside oneCCL: they stop once they see this
        # (as torchrun stops the other ranks when one fails).
        failed_marker(id_file).touch()
        sys.exit(f"{what} failed: {result} ({ccl.onecclGetErrorString(result).decode()})")


def stop_when_a_rank_fails(id_file):
    def watch():
        while not failed_marker(id_file).exists():
            time.sleep(0.1)
        print("stopped: another rank failed", file=sys.stderr, flush=True)
        os._exit(1)

    threading.Thread(target=watch, daemon=True).start()


def rank_main(rank, ranks, args):
    import dpctl
    import dpctl.memory
    import dpnp
    import numpy

    count, steps, id_file = args.count, args.steps, args.id_file
    stop_when_a_rank_fails(id_file)

    ccl = library()
    devices = dpctl.get_devices(backend="level_zero", device_type="gpu")
    device = devices[rank % len(devices)]
    queue = dpctl.SyclQueue(device, property="in_order")
    weights = [dpctl.memory.MemoryUSMDevice(args.weight_mib << 20, queue=queue)
               for _ in range(args.weights)]
    unique = UniqueId()
    path = pathlib.Path(id_file)
    if rank == 0:
        check(ccl, ccl.onecclGetUniqueId(ctypes.byref(unique)), "onecclGetUniqueId", id_file)
        partial = path.with_suffix(".partial")
        partial.write_bytes(bytes(unique))
        partial.rename(path)
    else:
        deadline = time.monotonic() + 120
        while not path.exists():
            if time.monotonic() > deadline:
                sys.exit(f"rank {rank}: no unique id from rank 0")
            time.sleep(0.05)
        unique = UniqueId.from_buffer_copy(path.read_bytes())
    check(ccl, ccl.onecclSetDevice(ctypes.c_uint32(rank % len(devices))), "onecclSetDevice", id_file)
    comm = ctypes.c_void_p()
    check(ccl, ccl.onecclCommInitRank(ctypes.byref(comm), ctypes.c_size_t(ranks), unique,
                                      ctypes.c_int(rank)), "onecclCommInitRank", id_file)
    wrong = 0
    for step in range(steps):
        # The gradients: a kernel's output on this rank's device.
        send = dpnp.full(count, float(rank + 1 + step), dtype=dpnp.float32, sycl_queue=queue)
        receive = dpnp.zeros(count, dtype=dpnp.float32, sycl_queue=queue)
        check(ccl, ccl.onecclAllReduce(
            ctypes.c_void_p(send.get_array()._pointer), ctypes.c_void_p(receive.get_array()._pointer),
            ctypes.c_size_t(count), FLOAT32, SUM, comm, ctypes.c_void_p(queue.addressof_ref())),
            "onecclAllReduce", id_file)
        queue.wait()
        expected = sum(r + 1 + step for r in range(ranks))
        wrong += int(numpy.count_nonzero(dpnp.asnumpy(receive) != expected))
    if args.results:
        with open(os.path.join(args.results, f"rank-{rank}.json"), "w") as out:
            out.write(f'{{"checked": {steps}, "wrong": {wrong}, "weights": {len(weights)}}}')
    ccl.onecclCommDestroy(comm)
    print(f"rank {rank} ok" if wrong == 0 else f"rank {rank}: {wrong} wrong values", flush=True)
    return 1 if wrong else 0


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--count", type=int, default=1 << 20)
    parser.add_argument("--steps", type=int, default=2)
    parser.add_argument("--id-file", required=True)
    parser.add_argument("--weights", type=int, default=0)
    parser.add_argument("--weight-mib", type=int, default=0)
    parser.add_argument("--results")
    args = parser.parse_args()
    rank, ranks = int(os.environ["PMI_RANK"]), int(os.environ["PMI_SIZE"])
    try:
        return rank_main(rank, ranks, args)
    except BaseException:
        # Whatever stopped this rank (an exception from Intel's runtime, a failed check), the
        # others may be waiting for it inside oneCCL: they stop too.
        failed_marker(args.id_file).touch()
        raise


if __name__ == "__main__":
    sys.exit(main())
