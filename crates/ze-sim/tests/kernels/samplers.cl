// Samplers as kernel arguments (zeSamplerCreate): the kernel runs with both.

kernel void take_samplers(sampler_t clamped, sampler_t mirrored, global int *out) {
    out[0] = 2;
}
