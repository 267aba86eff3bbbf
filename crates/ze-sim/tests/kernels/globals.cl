// Program-scope variables, which each module has its own of (zeModuleGetGlobalPointer).

global int counter = 5;
global int table[4] = {10, 20, 30, 40};

kernel void bump_counter(global int *out) {
    counter += 1;
    out[0] = counter;
    out[1] = table[2];
}

kernel void add_to(global int *target, int value) { *target += value; }
