"""PyTorch XPU's pluggable allocator (lazy_usm_xpu_malloc / lazy_usm_xpu_free) called as PyTorch
calls it, with dpctl queues over a 2-device context standing in for PyTorch's (a dpctl queue's
addressof_ref() is its sycl::queue*), on Intel's SYCL runtime over the simulated platform."""
import pytest

from conftest import ADAPTERS

GIB = 1 << 30

# ctypes bindings of the two entry points, and a zero-copy dpctl view of a raw USM pointer.
# lazy-usm's allocator is under test: the simulator refuses a peer's memory it forgot to make
# resident (checking mode), where the driver would import it unseen.
CHECKING = {"ZE_SIM_CHECKING": "1"}


def slow_preset(tmp_path, delay_us):
    """b70x2 with asynchronous engines whose every command lasts `delay_us`: work submitted
    before a free is still running after it."""
    config = tmp_path / "slow.toml"
    config.write_text(f'name = "b70x2-slow"\nasync_execution = true\n[faults]\ncommand_delay_us = {delay_us}\n')
    return config


def assert_nothing_live(run):
    """Every simulated object was released by the program's exit."""
    live = {name: value for name, value in run.report["counters"].items() if name.startswith("live_") and value}
    assert live == {}, live


XPU = """
import ctypes, dpctl, dpctl.memory as dm, json, os
lib = ctypes.CDLL(os.environ["LAZY_USM_XPU_LIBRARY"])
lib.lazy_usm_xpu_malloc.restype = ctypes.c_void_p
lib.lazy_usm_xpu_malloc.argtypes = [ctypes.c_size_t, ctypes.c_int, ctypes.c_void_p]
lib.lazy_usm_xpu_free.restype = None
lib.lazy_usm_xpu_free.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_void_p]
lib.lazy_usm_last_error.restype = ctypes.c_char_p

def malloc(size, index, queue):
    pointer = lib.lazy_usm_xpu_malloc(size, index, queue.addressof_ref())
    assert pointer, lib.lazy_usm_last_error()
    return pointer

def free(pointer, size, index, queue):
    lib.lazy_usm_xpu_free(pointer, size, index, queue.addressof_ref())

class Raw:
    def __init__(self, pointer, size, queue):
        self.__sycl_usm_array_interface__ = {"data": (pointer, False), "shape": (size,), "strides": None,
                                             "typestr": "|u1", "version": 1, "syclobj": queue}

def view(pointer, size, queue):
    return dm.MemoryUSMDevice(Raw(pointer, size, queue))

devices = dpctl.get_devices()
context = dpctl.SyclContext(devices)
queues = [dpctl.SyclQueue(context, device) for device in devices]
"""


@pytest.mark.parametrize("adapter", ADAPTERS)
def test_tensors_cost_no_host_memory_where_malloc_device_pins_8_gib(run_sycl, xpu_library, adapter):
    run = run_sycl(
        XPU
        + """
before = pinned()
blocks = [malloc(4 * GIB, index, queue) for index, queue in enumerate(queues)]
# Tensors of the sizes the pool's classes and shared segments serve, too.
small = [(malloc(size, index, queue), size, index, queue)
         for index, queue in enumerate(queues) for size in [512, 1 << 20, 16 << 20] * 8]
lazy = pinned() - before
for pointer, size, index, queue in small:
    free(pointer, size, index, queue)
sycl_blocks = [dm.MemoryUSMDevice(4 * GIB, queue=queue) for queue in queues]
eager = pinned() - before - lazy
del sycl_blocks
for index, (pointer, queue) in enumerate(zip(blocks, queues)):
    free(pointer, 4 * GIB, index, queue)
print("RESULT " + json.dumps({"lazy": lazy, "eager": eager, "gtt": [gtt(0), gtt(1)], "after": pinned() - before}))
""",
        adapter=adapter,
        extra_env={"LAZY_USM_XPU_LIBRARY": str(xpu_library), **CHECKING},
    )
    assert run.result["lazy"] == 0, "lazy-usm's tensors are resident on their own GPU only"
    assert run.result["eager"] == 8 * GIB, "SYCL's malloc_device of the same sizes, same run"
    assert run.result["after"] == 0
    assert_nothing_live(run)


@pytest.mark.parametrize("adapter", ADAPTERS)
def test_bytes_survive_and_a_peer_copy_costs_exactly_its_source_block(run_sycl, xpu_library, adapter):
    # The faithful preset imports a peer's memory on first use, as the real driver does, and
    # pins a mirror for it: exactly the source block's allocation, nothing else.
    run = run_sycl(
        XPU
        + """
size = 96 << 20   # above the pool's dedicated threshold (64 MiB): an allocation of its own
data = os.urandom(size)
first = malloc(size, 0, queues[0])
second = malloc(size, 1, queues[1])
view(first, size, queues[0]).copy_from_host(data)
before = pinned()
view(second, size, queues[1]).copy_from_device(view(first, size, queues[0]))  # device 0 -> device 1
cost = pinned() - before
back = bytes(view(second, size, queues[1]).copy_to_host())
print("RESULT " + json.dumps({"intact": back == data, "cost": cost, "imports": counter("implicit_imports"),
                              "violations": counter("residency_violations")}))
free(first, size, 0, queues[0]); free(second, size, 1, queues[1])
""",
        preset="b70x2-faithful",
        adapter=adapter,
        extra_env={"LAZY_USM_XPU_LIBRARY": str(xpu_library)},
    )
    assert run.result["intact"]
    assert run.result["violations"] == 0
    assert run.result["imports"] >= 1
    # Pool blocks live in segments; a 3 MiB block has a segment of its own size class, and the
    # driver mirrors that whole segment, which is what the peer copy costs.
    # A dedicated block is its own residency unit: the copy costs exactly its size. (A smaller
    # block shares a pool segment, up to 32 MiB by default, and would cost the segment.)
    assert run.result["cost"] == 96 << 20, run.result


def test_a_freed_block_is_reused_only_after_its_queues_work(run_sycl, xpu_library, tmp_path):
    # Slow, asynchronous engines: work submitted before a free is still running after it.
    config = slow_preset(tmp_path, 300000)
    run = run_sycl(
        XPU
        + """
size = 1 << 20
block = malloc(size, 0, queues[0])
host = dm.MemoryUSMHost(size, queue=queues[0])
queues[0].memcpy_async(view(block, size, queues[0]), host, size)   # still running
free(block, size, 0, queues[0])
during = malloc(size, 0, queues[0])    # must not be the block the copy writes
queues[0].wait()
after = malloc(size, 0, queues[0])     # the copy is done: the first block comes back
left = malloc(4 << 20, 1, queues[1])   # never freed: released at exit
print("RESULT " + json.dumps({"block": block, "during": during, "after": after}))
""",
        preset=str(config),
        extra_env={"LAZY_USM_XPU_LIBRARY": str(xpu_library), **CHECKING},
    )
    result = run.result
    assert result["during"] != result["block"], "reused while its queue's copy still ran"
    assert result["after"] == result["block"], "reused once the copy completed"
    counters = run.report["counters"]
    live = {name: value for name, value in counters.items() if name.startswith("live_") and value}
    assert live == {}, "what PyTorch never freed goes back at exit"


def test_an_in_order_queue_reuses_its_own_freed_block_at_once_without_a_barrier(run_sycl, xpu_library, tmp_path):
    # Slow, asynchronous engines: each free happens while the queue's copy still runs (100 ms a
    # command: a margin a loaded 2-core machine keeps; at 20 ms one free in a run came too late).
    config = slow_preset(tmp_path, 100000)
    run = run_sycl(
        XPU
        + """
lib.lazy_usm_xpu_counters.argtypes = [ctypes.POINTER(ctypes.c_uint64)] * 2
def counters():
    barriers, reuses = ctypes.c_uint64(), ctypes.c_uint64()
    assert lib.lazy_usm_xpu_counters(ctypes.byref(barriers), ctypes.byref(reuses)) == 0
    return barriers.value, reuses.value

def filled(value, size, queue):
    host = dm.MemoryUSMHost(size, queue=queue)
    host.copy_from_host(bytes([value]) * size)
    return host

def rounds(queue, count=8, size=1 << 20):
    # PyTorch's pattern: a tensor written and read, freed while that work still runs, the next
    # one allocated and written.
    same, order_ok = 0, True
    block = malloc(size, 0, queue)
    for round in range(count):
        first, second = filled(round + 1, size, queue), filled(100 + round, size, queue)
        read = dm.MemoryUSMHost(size, queue=queue)
        written = queue.memcpy_async(view(block, size, queue), first, size)
        reading = queue.memcpy_async(read, view(block, size, queue), size, [written])
        free(block, size, 0, queue)        # the read may still be running
        again = malloc(size, 0, queue)
        same += again == block
        if queue.is_in_order:
            # The write into the reused block runs after the read of the old bytes: the
            # queue's order is all that protects it, and it must.
            queue.memcpy_async(view(again, size, queue), second, size)
            queue.wait()
            order_ok &= bytes(read.copy_to_host())[:4] == bytes([round + 1]) * 4
            back = dm.MemoryUSMHost(size, queue=queue)
            queue.memcpy_async(back, view(again, size, queue), size)
            queue.wait()
            order_ok &= bytes(back.copy_to_host())[:4] == bytes([100 + round]) * 4
        queue.wait()
        block = again
    free(block, size, 0, queue)
    return same, order_ok

in_order = dpctl.SyclQueue(context, devices[0], property="in_order")
before = counters()
same_in_order, ok_in_order = rounds(in_order)
after_in_order = counters()
same_out_of_order, ok_out_of_order = rounds(queues[0])
after_out_of_order = counters()
print("RESULT " + json.dumps({
    "in_order": [same_in_order, ok_in_order, after_in_order[0] - before[0], after_in_order[1] - before[1]],
    "out_of_order": [same_out_of_order, ok_out_of_order, after_out_of_order[0] - after_in_order[0],
                     after_out_of_order[1] - after_in_order[1]],
}))
""",
        preset=str(config),
        extra_env={"LAZY_USM_XPU_LIBRARY": str(xpu_library), **CHECKING},
    )
    same, order_ok, barriers, reuses = run.result["in_order"]
    # Every round's allocation took the block its own queue had just freed, with no barrier,
    # and the read of its old bytes ran before the write of the new ones.
    assert (same, order_ok, barriers, reuses) == (8, True, 0, 8), run.result
    # An out-of-order queue gives no such order: each free needs a barrier, and the busy block
    # is not handed out again meanwhile.
    same, _, barriers, reuses = run.result["out_of_order"]
    assert (same, barriers, reuses) == (0, 8, 0), run.result
    assert_nothing_live(run)


def size_bytes(blocks):
    """Bytes of `blocks` of the threads test's block size (64 KiB)."""
    return blocks << 16


def test_threads_on_their_own_queues_reuse_and_free_without_mixing_blocks(run_sycl, xpu_library, tmp_path):
    # Four threads, each with an in-order queue of its own, and one on an out-of-order queue,
    # allocate, write, free while the write still runs and allocate again, at once (ctypes
    # drops the GIL for each call). No block may be handed to two threads, every byte must be
    # its thread's, and nothing may be left at exit.
    config = slow_preset(tmp_path, 2000)
    run = run_sycl(
        XPU
        + """
import threading
lib.lazy_usm_xpu_counters.argtypes = [ctypes.POINTER(ctypes.c_uint64)] * 2
size, rounds = 1 << 16, 20
held, failures, lock = {}, [], threading.Lock()

def worker(index, queue):
    try:
        for round in range(rounds):
            block = malloc(size, 0, queue)
            with lock:
                if block in held:
                    failures.append(f"{block:#x} handed to threads {held[block]} and {index}")
                held[block] = index
            host = dm.MemoryUSMHost(size, queue=queue)
            host.copy_from_host(bytes([index * 16 + round % 16]) * size)
            written = queue.memcpy_async(view(block, size, queue), host, size)
            back = dm.MemoryUSMHost(size, queue=queue)
            queue.memcpy_async(back, view(block, size, queue), size, [written])
            with lock:
                del held[block]
            free(block, size, 0, queue)     # while the copies may still run
            queue.wait()
            if bytes(back.copy_to_host())[:4] != bytes([index * 16 + round % 16]) * 4:
                failures.append(f"thread {index} round {round}: foreign bytes")
    except Exception as error:
        failures.append(f"thread {index}: {error!r}")

queues_used = [dpctl.SyclQueue(context, devices[0], property="in_order") for _ in range(4)]
queues_used.append(dpctl.SyclQueue(context, devices[0]))
threads = [threading.Thread(target=worker, args=(i, q)) for i, q in enumerate(queues_used)]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join(timeout=240)
alive = [thread.is_alive() for thread in threads]
barriers, reuses = ctypes.c_uint64(), ctypes.c_uint64()
lib.lazy_usm_xpu_counters(ctypes.byref(barriers), ctypes.byref(reuses))
# PyTorch's figures, counted from every thread at once: all freed, five blocks at most at once.
stats = (ctypes.c_uint64 * 7)()
lib.lazy_usm_xpu_stats.argtypes = [ctypes.c_int, ctypes.c_void_p]
status = lib.lazy_usm_xpu_stats(0, stats)
print("RESULT " + json.dumps({"failures": failures, "alive": alive, "reuses": reuses.value,
                              "stats": [status, stats[0], stats[1]]}))
""",
        preset=str(config),
        extra_env={"LAZY_USM_XPU_LIBRARY": str(xpu_library), **CHECKING},
    )
    assert run.result["failures"] == [], run.result
    assert not any(run.result["alive"]), "a thread hung"
    assert run.result["reuses"] > 0, "the in-order queues took their own blocks back"
    status, allocated, peak_allocated = run.result["stats"]
    assert (status, allocated) == (0, 0), run.result["stats"]
    assert size_bytes(1) <= peak_allocated <= 5 * size_bytes(1), run.result["stats"]
    assert_nothing_live(run)
    counters = run.report["counters"]
    assert counters["free_hazards"] == 0 and counters["residency_violations"] == 0, counters


def test_a_queue_made_again_at_a_freed_queues_address_gets_its_own_contexts_memory(run_sycl, xpu_library):
    # dpctl's C interface frees a sycl::queue and makes the next one at the same address (it
    # does, round after round). The allocator remembers queues by address: a queue made again
    # there on another context must get memory of that context, not of the one remembered.
    # Pointer queries cannot tell (the driver answers them for any of its contexts, as
    # compute-runtime does); a copy can: in checking mode the simulator refuses a command that
    # uses another context's memory, and counts it.
    run = run_sycl(
        XPU
        + """
import glob
interface = ctypes.CDLL(glob.glob(os.path.join(os.path.dirname(dpctl.__file__), "libDPCTLSyclInterface.so*"))[0])
interface.DPCTLQueue_Create.restype = ctypes.c_void_p
interface.DPCTLQueue_Create.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int]
interface.DPCTLQueue_Delete.argtypes = [ctypes.c_void_p]
interface.DPCTLQueue_Memcpy.restype = ctypes.c_void_p
interface.DPCTLQueue_Memcpy.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t]
interface.DPCTLEvent_Wait.argtypes = [ctypes.c_void_p]
interface.DPCTLEvent_Delete.argtypes = [ctypes.c_void_p]
contexts = [dpctl.SyclContext(devices), dpctl.SyclContext(devices)]
addresses, refused = set(), []
host = ctypes.create_string_buffer(4096)
for round in range(12):
    own = contexts[round % 2]
    queue = interface.DPCTLQueue_Create(own.addressof_ref(), devices[0].addressof_ref(), None, 0)
    addresses.add(queue)
    pointer = lib.lazy_usm_xpu_malloc(4096, 0, queue)
    assert pointer, lib.lazy_usm_last_error()
    # A copy on the queue from the memory it was given: refused if that memory is another
    # context's.
    event = interface.DPCTLQueue_Memcpy(queue, host, pointer, 4096)
    if event:
        interface.DPCTLEvent_Wait(event)
        interface.DPCTLEvent_Delete(event)
    else:
        refused.append(round)
    lib.lazy_usm_xpu_free(pointer, 4096, 0, queue)
    interface.DPCTLQueue_Delete(queue)
print("RESULT " + json.dumps({"addresses": len(addresses), "refused": refused}))
""",
        extra_env={"LAZY_USM_XPU_LIBRARY": str(xpu_library), **CHECKING},
    )
    assert run.result["addresses"] < 12, "no queue was made again at a freed one's address"
    assert run.result["refused"] == [], "memory of the remembered queue's context"
    assert run.report["counters"]["cross_context_uses"] == 0, run.report["counters"]
    assert_nothing_live(run)


def test_a_block_its_queue_keeps_is_freed_once_and_handed_out_once(run_sycl, xpu_library, tmp_path):
    # A free while the queue's copy runs keeps the block for that queue. Freeing it again is
    # refused (another queue's idle free, which skips the kept blocks' lock only when no queue
    # keeps any, must not return it to the pool either), and it is handed out once.
    config = slow_preset(tmp_path, 100000)
    run = run_sycl(
        XPU
        + """
size = 1 << 20
in_order = dpctl.SyclQueue(context, devices[0], property="in_order")
idle = dpctl.SyclQueue(context, devices[0], property="in_order")
block = malloc(size, 0, in_order)
host = dm.MemoryUSMHost(size, queue=in_order)
in_order.memcpy_async(view(block, size, in_order), host, size)
free(block, size, 0, in_order)                 # kept: its copy still runs
free(block, size, 0, in_order)                 # again
second = lib.lazy_usm_last_error().decode()
lib.lazy_usm_xpu_free(0x1000, size, 0, idle.addressof_ref())   # another error in between
between = lib.lazy_usm_last_error().decode()
free(block, size, 0, idle)                     # again, from an idle queue
third = lib.lazy_usm_last_error().decode()
other = malloc(size, 0, idle)                  # the pool must not hand out the kept block
again = malloc(size, 0, in_order)              # its own queue takes it back
in_order.wait()
free(other, size, 0, idle)
free(again, size, 0, in_order)
in_order.wait()
print("RESULT " + json.dumps({"second": second, "between": between, "third": third, "other_is_block": other == block,
                              "again_is_block": again == block}))
""",
        preset=str(config),
        extra_env={"LAZY_USM_XPU_LIBRARY": str(xpu_library), **CHECKING},
    )
    assert "freed already" in run.result["second"], run.result
    assert "freed already" not in run.result["between"], run.result
    assert "freed already" in run.result["third"], run.result
    assert not run.result["other_is_block"], "the kept block was handed to another queue"
    assert run.result["again_is_block"], "its own queue took it back"
    assert_nothing_live(run)
