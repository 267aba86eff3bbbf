/* PyTorch's allocation path end to end, side by side in one run: lazy_usm_xpu_malloc +
 * lazy_usm_xpu_free on an in-order queue (what PyTorch's pluggable allocator calls), against
 * SYCL's own malloc_device + free of the same sizes on the same queue (through dpctl's C
 * interface), both through Intel's SYCL runtime on the simulated platform, in a C loop.
 *
 * Build and run from the repository root, with Intel's runtime in target/sycl-venv (as .ci/run
 * installs it):
 *
 *   cargo build --release -p lazy-usm-cli
 *   export LAZY_USM_SYCL_ROOT=$PWD/target/sycl-venv
 *   LEVEL_ZERO_INCLUDE_DIR="$PWD/crates/level-zero-sys/include" \
 *     CARGO_TARGET_DIR=target/xpu cargo build --release -p lazy-usm-capi --features xpu
 *   dpctl=$(find target/sycl-venv/lib -path "*site-packages/dpctl" -type d)
 *   cc -O2 benches/xpu_path.c -I"$dpctl/include" -L"$dpctl" -lDPCTLSyclInterface -ldl \
 *     -Wl,-rpath,"$PWD/$dpctl" -o target/xpu_path
 *   eval "$(target/release/lazy-usm sim-env --preset b70x2)"
 *   target/xpu_path target/xpu/release/liblazy_usm.so
 *
 * Prints nanoseconds per malloc + free pair (median of 5 rounds) and the ratio. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "syclinterface/dpctl_sycl_context_interface.h"
#include "syclinterface/dpctl_sycl_device_interface.h"
#include "syclinterface/dpctl_sycl_device_manager.h"
#include "syclinterface/dpctl_sycl_queue_interface.h"
#include "syclinterface/dpctl_sycl_usm_interface.h"

typedef void *(*xpu_malloc_t)(size_t, int, void *);
typedef void (*xpu_free_t)(void *, size_t, int, void *);

static xpu_malloc_t xpu_malloc;
static xpu_free_t xpu_free;
static DPCTLSyclQueueRef queue;

static double now(void) {
    struct timespec time;
    clock_gettime(CLOCK_MONOTONIC, &time);
    return time.tv_sec * 1e9 + time.tv_nsec;
}

static void lazy_pair(size_t size) {
    void *pointer = xpu_malloc(size, 0, (void *)queue);
    if (pointer == NULL) {
        fprintf(stderr, "lazy_usm_xpu_malloc(%zu) failed\n", size);
        exit(1);
    }
    xpu_free(pointer, size, 0, (void *)queue);
}

static void sycl_pair(size_t size) {
    DPCTLSyclUSMRef pointer = DPCTLmalloc_device(size, queue);
    if (pointer == NULL) {
        fprintf(stderr, "malloc_device(%zu) failed\n", size);
        exit(1);
    }
    DPCTLfree_with_queue(pointer, queue);
}

static int compare(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median_ns(void (*pair)(size_t), size_t size, int count) {
    double rounds[5];
    pair(size); /* warm: the pool's first segment, the queue's manager */
    for (int round = 0; round < 5; round++) {
        double start = now();
        for (int index = 0; index < count; index++) {
            pair(size);
        }
        rounds[round] = (now() - start) / count;
    }
    qsort(rounds, 5, sizeof rounds[0], compare);
    return rounds[2];
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s PATH/liblazy_usm.so (built with the xpu feature)\n", argv[0]);
        return 2;
    }
    void *library = dlopen(argv[1], RTLD_NOW);
    if (library == NULL) {
        fprintf(stderr, "%s\n", dlerror());
        return 1;
    }
    xpu_malloc = (xpu_malloc_t)dlsym(library, "lazy_usm_xpu_malloc");
    xpu_free = (xpu_free_t)dlsym(library, "lazy_usm_xpu_free");
    if (xpu_malloc == NULL || xpu_free == NULL) {
        fprintf(stderr, "no PyTorch entry points in %s (built without the xpu feature?)\n", argv[1]);
        return 1;
    }
    /* Every GPU in one context, as PyTorch's, and an in-order queue on the first. */
    DPCTLDeviceVectorRef devices = DPCTLDeviceMgr_GetDevices(DPCTL_LEVEL_ZERO | DPCTL_GPU);
    if (devices == NULL || DPCTLDeviceVector_Size(devices) == 0) {
        fprintf(stderr, "no Level Zero GPU (run it under `lazy-usm sim-env`)\n");
        return 1;
    }
    DPCTLSyclContextRef context = DPCTLContext_CreateFromDevices(devices, NULL, 0);
    DPCTLSyclDeviceRef device = DPCTLDeviceVector_GetAt(devices, 0);
    queue = DPCTLQueue_Create(context, device, NULL, DPCTL_IN_ORDER);
    if (queue == NULL) {
        fprintf(stderr, "no queue\n");
        return 1;
    }
    size_t sizes[] = {512, 64 << 10, 1 << 20, 16 << 20};
    printf("| size | lazy-usm | SYCL malloc_device | SYCL / lazy-usm |\n| --- | --- | --- | --- |\n");
    for (int index = 0; index < 4; index++) {
        size_t size = sizes[index];
        int count = size < (16 << 20) ? 20000 : 2000;
        double ours = median_ns(lazy_pair, size, count);
        double theirs = median_ns(sycl_pair, size, count);
        printf("| %zu B | %.0f ns | %.0f ns | %.1fx |\n", size, ours, theirs, theirs / ours);
    }
    DPCTLQueue_Delete(queue);
    DPCTLDevice_Delete(device);
    DPCTLContext_Delete(context);
    DPCTLDeviceVector_Delete(devices);
    return 0;
}
