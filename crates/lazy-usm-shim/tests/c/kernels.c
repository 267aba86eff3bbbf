/* A raw Level Zero program run through lazy-usm's shim over the simulator: a kernel on device 1
 * whose pointer argument is device 0's memory, then a gather through a table of pointers to
 * device 0's memory that no argument shows. Prints the simulator's figures after each step as
 * "step resident_calls pinned violations", or "error ..." and exits 1.
 * Usage: kernels MODULE.spv (the module naming the simulator's built-in kernels). */
#include <level_zero/ze_api.h>
#include <level_zero/ze_ddi.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "harness.h"

#define N 1024

static void figures(const char *step) {
    printf("%s %llu %llu %llu\n", step, (unsigned long long)counter("make_resident_calls"),
           (unsigned long long)pinned(), (unsigned long long)counter("residency_violations"));
}

static void *device_memory(ze_context_handle_t context, ze_device_handle_t device, size_t size) {
    ze_device_mem_alloc_desc_t desc = {ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC, NULL, 0, 0};
    void *pointer = NULL;
    CALL(zeMemAllocDevice, context, &desc, size, 64, device, &pointer);
    return pointer;
}

/* What each of the threads below shares. */
static ze_context_handle_t shared_context;
static ze_device_handle_t shared_device[2];
static ze_module_handle_t shared_module;
static atomic_int thread_failures;

#define ROUNDS 25

/* A thread's own lists and kernel: each round, device 0's buffer read by a kernel on device 1,
 * the bytes checked, everything freed. */
static void *worker(void *argument) {
    uintptr_t seed = (uintptr_t)argument;
    ze_command_queue_desc_t queue_desc = {ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC, NULL, 0, 0, 0,
                                          ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS, ZE_COMMAND_QUEUE_PRIORITY_NORMAL};
    ze_command_list_handle_t lists[2];
    CALL(zeCommandListCreateImmediate, shared_context, shared_device[0], &queue_desc, &lists[0]);
    CALL(zeCommandListCreateImmediate, shared_context, shared_device[1], &queue_desc, &lists[1]);
    ze_kernel_desc_t desc = {ZE_STRUCTURE_TYPE_KERNEL_DESC, NULL, 0, "lazy_usm_sim_copy_u32"};
    ze_kernel_handle_t kernel;
    CALL(zeKernelCreate, shared_module, &desc, &kernel);
    CALL(zeKernelSetGroupSize, kernel, 1, 1, 1);
    ze_group_count_t groups = {N, 1, 1};
    uint32_t *host = malloc(N * 4), *back = malloc(N * 4);
    for (int round = 0; round < ROUNDS; round++) {
        for (int i = 0; i < N; i++)
            host[i] = (uint32_t)(seed * 1000003u + (uintptr_t)round * 7919u + (uintptr_t)i);
        uint32_t *source = device_memory(shared_context, shared_device[0], N * 4);
        uint32_t *target = device_memory(shared_context, shared_device[1], N * 4);
        CALL(zeCommandListAppendMemoryCopy, lists[0], source, host, (size_t)N * 4, NULL, 0, NULL);
        CALL(zeKernelSetArgumentValue, kernel, 0, sizeof target, &target);
        CALL(zeKernelSetArgumentValue, kernel, 1, sizeof source, &source);
        CALL(zeCommandListAppendLaunchKernel, lists[1], kernel, &groups, NULL, 0, NULL);
        CALL(zeCommandListAppendMemoryCopy, lists[1], back, target, (size_t)N * 4, NULL, 0, NULL);
        for (int i = 0; i < N; i++)
            if (back[i] != host[i])
                thread_failures++;
        CALL(zeMemFree, shared_context, source);
        CALL(zeMemFree, shared_context, target);
    }
    free(host);
    free(back);
    CALL(zeKernelDestroy, kernel);
    CALL(zeCommandListDestroy, lists[0]);
    CALL(zeCommandListDestroy, lists[1]);
    return NULL;
}

int main(int argc, char **argv) {
    if (argc != 2) {
        printf("error usage: kernels MODULE.spv\n");
        return 1;
    }
    ze_driver_handle_t driver;
    ze_device_handle_t device[2];
    start(&driver, device);
    ze_context_desc_t context_desc = {ZE_STRUCTURE_TYPE_CONTEXT_DESC, NULL, 0};
    ze_context_handle_t context;
    CALL(zeContextCreate, driver, &context_desc, &context);

    ze_command_queue_desc_t queue_desc = {ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC, NULL, 0, 0, 0,
                                          ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS, ZE_COMMAND_QUEUE_PRIORITY_NORMAL};
    ze_command_list_handle_t list[2];
    CALL(zeCommandListCreateImmediate, context, device[0], &queue_desc, &list[0]);
    CALL(zeCommandListCreateImmediate, context, device[1], &queue_desc, &list[1]);

    /* The module and the two built-in kernels. */
    FILE *file = fopen(argv[1], "rb");
    static uint8_t il[1 << 16];
    size_t il_size = file ? fread(il, 1, sizeof il, file) : 0;
    if (file)
        fclose(file);
    ze_module_desc_t module_desc = {ZE_STRUCTURE_TYPE_MODULE_DESC, NULL, ZE_MODULE_FORMAT_IL_SPIRV, il_size, il, "", NULL};
    ze_module_handle_t module;
    CALL(zeModuleCreate, context, device[1], &module_desc, &module, NULL);
    ze_kernel_desc_t copy_desc = {ZE_STRUCTURE_TYPE_KERNEL_DESC, NULL, 0, "lazy_usm_sim_copy_u32"};
    ze_kernel_desc_t gather_desc = {ZE_STRUCTURE_TYPE_KERNEL_DESC, NULL, 0, "lazy_usm_sim_gather_u32"};
    ze_kernel_handle_t copy, gather;
    CALL(zeKernelCreate, module, &copy_desc, &copy);
    CALL(zeKernelCreate, module, &gather_desc, &gather);
    CALL(zeKernelSetGroupSize, copy, 1, 1, 1);
    CALL(zeKernelSetGroupSize, gather, 1, 1, 1);
    ze_group_count_t groups = {N, 1, 1};

    /* Device 0's data, read by a kernel on device 1 through its argument. */
    uint32_t *source = device_memory(context, device[0], N * 4);
    uint32_t *target = device_memory(context, device[1], N * 4);
    /* A second buffer of device 0, reached only through the table below. */
    uint32_t *hidden = device_memory(context, device[0], N * 4);
    static uint32_t host[N];
    for (int i = 0; i < N; i++)
        host[i] = (uint32_t)i * 3u;
    CALL(zeCommandListAppendMemoryCopy, list[0], source, host, (size_t)N * 4, NULL, 0, NULL);
    CALL(zeCommandListAppendMemoryCopy, list[0], hidden, host, (size_t)N * 4, NULL, 0, NULL);
    figures("start");

    CALL(zeKernelSetArgumentValue, copy, 0, sizeof target, &target);
    CALL(zeKernelSetArgumentValue, copy, 1, sizeof source, &source);
    CALL(zeCommandListAppendLaunchKernel, list[1], copy, &groups, NULL, 0, NULL);
    figures("copy");
    CALL(zeCommandListAppendLaunchKernel, list[1], copy, &groups, NULL, 0, NULL);
    figures("copy-again");
    static uint32_t back[N];
    CALL(zeCommandListAppendMemoryCopy, list[1], back, target, (size_t)N * 4, NULL, 0, NULL);
    for (int i = 0; i < N; i++) {
        if (back[i] != host[i]) {
            printf("error the copy kernel's bytes differ at %d\n", i);
            return 1;
        }
    }

    /* The same through the function tables the loader's getters fill (what an older static
     * front end of Intel's runtime calls): a third buffer of device 0. */
    ze_kernel_dditable_t kernel_table = {0};
    ze_command_list_dditable_t list_table = {0};
    CALL(zeGetKernelProcAddrTable, ZE_API_VERSION_CURRENT, &kernel_table);
    CALL(zeGetCommandListProcAddrTable, ZE_API_VERSION_CURRENT, &list_table);
    uint32_t *third = device_memory(context, device[0], N * 4);
    CALL(zeCommandListAppendMemoryCopy, list[0], third, host, (size_t)N * 4, NULL, 0, NULL);
    if (kernel_table.pfnSetArgumentValue(copy, 1, sizeof third, &third) != ZE_RESULT_SUCCESS ||
        list_table.pfnAppendLaunchKernel(list[1], copy, &groups, NULL, 0, NULL) != ZE_RESULT_SUCCESS) {
        printf("error a call through the tables failed\n");
        return 1;
    }
    figures("tables");
    CALL(zeMemFree, context, third);

    /* The gather: a table (on device 1) of pointers into `hidden` (device 0). */
    static uint64_t pointers[N];
    for (int i = 0; i < N; i++)
        pointers[i] = (uint64_t)(uintptr_t)(hidden + i);
    uint64_t *table = device_memory(context, device[1], sizeof pointers);
    CALL(zeCommandListAppendMemoryCopy, list[1], table, pointers, sizeof pointers, NULL, 0, NULL);
    CALL(zeKernelSetArgumentValue, gather, 0, sizeof target, &target);
    CALL(zeKernelSetArgumentValue, gather, 1, sizeof table, &table);
    CALL(zeCommandListAppendLaunchKernel, list[1], gather, &groups, NULL, 0, NULL);
    figures("gather");

    /* Four threads at once through the shim. */
    shared_context = context;
    shared_device[0] = device[0];
    shared_device[1] = device[1];
    shared_module = module;
    pthread_t threads[4];
    for (uintptr_t i = 0; i < 4; i++)
        if (pthread_create(&threads[i], NULL, worker, (void *)i) != 0) {
            printf("error pthread_create\n");
            return 1;
        }
    for (int i = 0; i < 4; i++)
        pthread_join(threads[i], NULL);
    if (thread_failures) {
        printf("error %d bytes differed in the threads\n", (int)thread_failures);
        return 1;
    }
    figures("threads");

    CALL(zeKernelDestroy, copy);
    CALL(zeKernelDestroy, gather);
    CALL(zeModuleDestroy, module);
    CALL(zeMemFree, context, source);
    CALL(zeMemFree, context, target);
    CALL(zeMemFree, context, hidden);
    CALL(zeMemFree, context, table);
    CALL(zeCommandListDestroy, list[0]);
    CALL(zeCommandListDestroy, list[1]);
    CALL(zeContextDestroy, context);
    figures("end");
    return 0;
}
