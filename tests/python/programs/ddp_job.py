"""A small DDP-like job on Intel's SYCL runtime: a launcher starts one rank process per GPU;
each rank allocates its weights and buckets as PyTorch does (on the platform's default context,
which holds every GPU, through dpctl), runs a kernel each step (the forward pass), and the ranks
pass a bucket around a ring through Level Zero IPC handles each step, as oneCCL does: the handle's
descriptor travels over a Unix socket (SCM_RIGHTS), the receiver writes its own descriptor
number into the handle, opens it, copies the bytes out on its own device and checks them.

    python ddp_job.py --ranks 2 --weights 8 --weight-mib 1024 --bucket-mib 100 --steps 50

The launcher exits 0 when every rank did, else 1 (killing the others, as torchrun does), and
prints a line per rank. With `--results DIR`, each rank writes `DIR/rank-R.json` at its end: the
machine's host pinned bytes as the rank saw them, and how many exchanges it checked (a file of
its own: the ranks' output lines can interleave).
"""
import argparse
import ctypes
import json
import os
import signal
import socket
import struct
import subprocess
import sys
import time

import spirv  # beside this program

MIB = 1 << 20


class IpcHandle(ctypes.Structure):
    _fields_ = [("data", ctypes.c_ubyte * 64)]


def level_zero():
    """The Level Zero loader the runtime loaded (the stand-in or lazy-usm's shim), by the same
    path, so the calls reach the same driver state."""
    folder = os.environ["ZEL_LIBRARY_PATH"]
    loader = ctypes.CDLL(os.path.join(folder, "libze_loader.so.1"))
    loader.zeMemGetIpcHandle.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.POINTER(IpcHandle)]
    loader.zeMemOpenIpcHandle.argtypes = [
        ctypes.c_void_p, ctypes.c_void_p, IpcHandle, ctypes.c_uint32, ctypes.POINTER(ctypes.c_void_p)
    ]
    loader.zeMemCloseIpcHandle.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
    loader.zeMemPutIpcHandle.argtypes = [ctypes.c_void_p, IpcHandle]
    return loader


def native(kind, sycl_object):
    """The Level Zero handle behind a dpctl context or device (SYCL's `getNative`)."""
    sycl = ctypes.CDLL(os.path.join(sys.prefix, "lib", "libsycl.so.9"), mode=os.RTLD_NOLOAD | os.RTLD_LAZY)
    symbol = {"context": "_ZNK4sycl3_V17context9getNativeEv", "device": "_ZNK4sycl3_V16device9getNativeEv"}[kind]
    function = getattr(sycl, symbol)
    function.restype = ctypes.c_void_p
    function.argtypes = [ctypes.c_void_p]
    return function(sycl_object.addressof_ref())


def machine_pinned():
    simulator = os.environ.get("ZE_SIM_LIBRARY") or os.environ.get("LAZY_USM_REAL_LOADER")
    library = ctypes.CDLL(simulator, mode=os.RTLD_NOLOAD | os.RTLD_LAZY)
    library.zesim_host_pinned_bytes.restype = ctypes.c_uint64
    return library.zesim_host_pinned_bytes()


class Foreign:
    """A device pointer dpctl did not allocate, as dpctl's USM array interface describes one."""

    def __init__(self, pointer, size, queue):
        self.__sycl_usm_array_interface__ = {
            "data": (pointer, False), "shape": (size,), "strides": None,
            "typestr": "|u1", "version": 1, "syclobj": queue,
        }


def check(result, call):
    if result != 0:
        raise RuntimeError(f"{call} returned 0x{result & 0xffffffff:08x}")


def rank_main(args):
    import dpctl
    import dpctl.memory as dm
    import dpctl.program as dp
    import numpy

    rank, ranks = args.rank, args.ranks
    send = socket.socket(fileno=args.send_fd)
    receive = socket.socket(fileno=args.receive_fd)
    for sock in (send, receive):
        sock.settimeout(120)
    device = dpctl.get_devices()[0 if args.mask else rank]
    # PyTorch's way: a queue on the platform's default context, which holds every GPU.
    queue = dpctl.SyclQueue(device)
    weights = [dm.MemoryUSMDevice(args.weight_mib * MIB, queue=queue) for _ in range(args.weights)]
    bucket_size = args.bucket_mib * MIB
    bucket = dm.MemoryUSMDevice(bucket_size, queue=queue)
    received = dm.MemoryUSMDevice(bucket_size, queue=queue)
    activations = dm.MemoryUSMDevice(4096, queue=queue)
    program = dp.create_program_from_spirv(queue, spirv.module([("lazy_usm_sim_fill_u32", "pu")]))
    forward = program.get_sycl_kernel("lazy_usm_sim_fill_u32")

    loader = level_zero()
    context = native("context", queue.sycl_context)
    ze_device = native("device", device)
    # Export the bucket once (as oneCCL caches its handles) and send the neighbour its descriptor.
    handle = IpcHandle()
    check(loader.zeMemGetIpcHandle(context, ctypes.c_void_p(bucket._pointer), ctypes.byref(handle)), "zeMemGetIpcHandle")
    descriptor = int.from_bytes(bytes(handle.data[:4]), "little")
    socket.send_fds(send, [bytes(handle.data)], [descriptor])
    message, fds, _, _ = socket.recv_fds(receive, 64, 1)
    if len(message) != 64 or len(fds) != 1:
        raise RuntimeError("no handle from the previous rank")
    peer_handle = IpcHandle()
    ctypes.memmove(peer_handle.data, message, 64)
    ctypes.memmove(peer_handle.data, fds[0].to_bytes(4, "little"), 4)
    opened = ctypes.c_void_p()
    check(loader.zeMemOpenIpcHandle(context, ze_device, peer_handle, 0, ctypes.byref(opened)), "zeMemOpenIpcHandle")
    os.close(fds[0])
    peer_bucket = dm.as_usm_memory(Foreign(opened.value, bucket_size, queue))
    previous = (rank - 1) % ranks

    checked = 0
    result = {}
    for step in range(args.steps):
        if args.kill_rank == rank and step == args.kill_step:
            os.kill(os.getpid(), signal.SIGKILL)
        # The forward pass: a kernel on this rank's device.
        queue.submit(forward, [activations, ctypes.c_uint32(step)], [1024]).wait()
        value = (step * 7 + rank) % 251 + 1
        bucket.copy_from_host(bytes([value]) * bucket_size)
        try:
            send.sendall(struct.pack("<I", step))
            token = receive.recv(4, socket.MSG_WAITALL)
        except OSError:
            token = b""
        if len(token) != 4 and args.kill_rank >= 0:
            # The killed rank is gone: what it held must have left the machine's figures.
            result["pinned_before_peer_ended"] = result.get("pinned")
            time.sleep(0.2)
            result["pinned_after_peer_ended"] = machine_pinned()
            break
        if struct.unpack("<I", token)[0] != step:
            raise RuntimeError("ranks out of step")
        queue.memcpy(received, peer_bucket, bucket_size)
        expected = (step * 7 + previous) % 251 + 1
        data = numpy.frombuffer(received.copy_to_host(), dtype=numpy.uint8)
        if not (data == expected).all():
            raise RuntimeError(f"step {step}: the bucket from rank {previous} arrived wrong")
        checked += 1
        result["pinned"] = machine_pinned()
        # A rank overwrites its bucket only once the next rank has read it: each tells the
        # previous rank so, back over the socket the bucket's step came by.
        receive.sendall(b"r")
        if send.recv(1, socket.MSG_WAITALL) != b"r":
            raise RuntimeError("the next rank went away")
    result.update(checked=checked, weights=len(weights))
    check(loader.zeMemCloseIpcHandle(context, opened), "zeMemCloseIpcHandle")
    check(loader.zeMemPutIpcHandle(context, handle), "zeMemPutIpcHandle")
    if args.results:
        with open(os.path.join(args.results, f"rank-{rank}.json"), "w") as file:
            json.dump(result, file)
    print(f"rank {rank} done: {json.dumps(result)}", flush=True)


def launcher_main(args):
    ranks = args.ranks
    # A ring: rank r sends to rank r + 1.
    pairs = [socket.socketpair() for _ in range(ranks)]
    processes = []
    for rank in range(ranks):
        send, receive = pairs[rank][0], pairs[(rank - 1) % ranks][1]
        command = [sys.executable, __file__, "--rank", str(rank), "--send-fd", str(send.fileno()),
                   "--receive-fd", str(receive.fileno())] + sys.argv[1:]
        environment = dict(os.environ)
        if args.mask:
            # As launchers that give each rank one GPU do: the rank sees only its own.
            environment["ZE_AFFINITY_MASK"] = str(rank)
        processes.append(
            subprocess.Popen(command, pass_fds=[send.fileno(), receive.fileno()], env=environment)
        )
    for sock in [s for pair in pairs for s in pair]:
        sock.close()
    codes = [None] * ranks
    failed = False
    while None in codes:
        for rank, process in enumerate(processes):
            if codes[rank] is None and process.poll() is not None:
                codes[rank] = process.returncode
                if process.returncode != 0 and not (args.kill_rank == rank and process.returncode == -9):
                    failed = True
        if failed:
            for rank, process in enumerate(processes):
                if codes[rank] is None:
                    process.kill()
        time.sleep(0.05)
    for rank, code in enumerate(codes):
        print(f"rank {rank} exit {code}", flush=True)
    expected = [(-9 if args.kill_rank == rank else 0) for rank in range(ranks)]
    return 0 if codes == expected else 1


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ranks", type=int, default=2)
    parser.add_argument("--weights", type=int, default=8)
    parser.add_argument("--weight-mib", type=int, default=1024)
    parser.add_argument("--bucket-mib", type=int, default=100)
    parser.add_argument("--steps", type=int, default=50)
    parser.add_argument("--kill-rank", type=int, default=-1, help="this rank kills itself (SIGKILL)")
    parser.add_argument("--kill-step", type=int, default=0, help="at this step")
    parser.add_argument("--results", default=None, help="a folder for each rank's results")
    parser.add_argument("--mask", action="store_true", help="each rank sees only its GPU (ZE_AFFINITY_MASK)")
    parser.add_argument("--rank", type=int, default=None)
    parser.add_argument("--send-fd", type=int, default=None)
    parser.add_argument("--receive-fd", type=int, default=None)
    args = parser.parse_args()
    if args.rank is None:
        sys.exit(launcher_main(args))
    rank_main(args)


if __name__ == "__main__":
    main()
