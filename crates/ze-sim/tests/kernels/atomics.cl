// OpenCL C 2.0 atomics through generic pointers. The CPU runtime reads the SPIR-V atomics back
// as OpenCL C 1.x builtins on generic pointers (atomic_add, atomic_xchg) that it does not
// have, so its plain build fails and the simulator links definitions of them in. Built to
// atomics.spv by scripts/build-kernels.sh.

kernel void atomic_copy(global atomic_int* dst, global atomic_int* src) {
    size_t i = get_global_id(0);
    atomic_store(&dst[i], atomic_load(&src[i]));
}

kernel void atomic_count(global atomic_uint* counter) {
    atomic_fetch_add(counter, 1u);
}
