// Kernels the simulator's tests run for real (through OpenCL): each exercises one kind of
// argument or launch shape. Built to kernels.spv by scripts/build-kernels.sh.

kernel void add_u32(global uint* dst, global const uint* a, uint b) {
    size_t i = get_global_id(0);
    dst[i] = a[i] + b;
}

// Local memory and a barrier: each group writes its ids reversed.
kernel void reverse_in_groups(global uint* dst, local uint* scratch) {
    size_t l = get_local_id(0);
    scratch[l] = (uint)get_global_id(0);
    barrier(CLK_LOCAL_MEM_FENCE);
    dst[get_global_id(0)] = scratch[get_local_size(0) - 1 - l];
}

struct pair {
    uint a;
    ulong b;
};

// A struct by value.
kernel void sum_pair(global ulong* dst, struct pair p) {
    dst[get_global_id(0)] = p.a + p.b;
}

// Three dimensions: each item writes its coordinates at its linear index.
kernel void ids_3d(global uint* dst) {
    size_t x = get_global_id(0), y = get_global_id(1), z = get_global_id(2);
    size_t linear = x + get_global_size(0) * (y + get_global_size(1) * z);
    dst[linear] = (uint)(x | (y << 10) | (z << 20));
}

// Atomics across groups.
kernel void count(global uint* counter) {
    atomic_inc(counter);
}

// Reads through a table of pointers: what the simulator cannot see.
kernel void gather_table(global uint* dst, global const ulong* table) {
    size_t i = get_global_id(0);
    dst[i] = *(global const uint*)table[i];
}

// A required group size.
__attribute__((reqd_work_group_size(8, 1, 1)))
kernel void fixed_group(global uint* dst) {
    dst[get_global_id(0)] = (uint)get_local_size(0);
}

// A group size hint and a required sub-group size: source attributes only.
__attribute__((work_group_size_hint(4, 2, 1))) __attribute__((intel_reqd_sub_group_size(16)))
kernel void hinted(global uint* dst) {
    dst[0] = 1;
}
