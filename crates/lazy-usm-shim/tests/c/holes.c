/* Raw Level Zero scenarios, one per run, through lazy-usm's shim over the simulator: each one
 * a way a real runtime or a careless caller could slip past the shim's residency. Prints
 * "name value" lines (the simulator's counters after each step, and what the scenario
 * measured), or "error ..." and exits 1.
 * Usage: holes SCENARIO MODULE.spv (the module naming the simulator's built-in kernels). */
#include <level_zero/ze_api.h>
#include <level_zero/ze_ddi.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"

#define N 1024

/* "step.calls", "step.pinned", "step.violations" */
static void figures(const char *step) {
    printf("%s.calls %llu\n%s.pinned %llu\n%s.violations %llu\n", step,
           (unsigned long long)counter("make_resident_calls"), step, (unsigned long long)pinned(), step,
           (unsigned long long)counter("residency_violations"));
}


static ze_driver_handle_t driver;
static ze_device_handle_t device[2];
static ze_context_handle_t context;
static ze_command_list_handle_t list[2];
static ze_module_handle_t module;
static const char *module_path;

static ze_context_handle_t new_context(void) {
    ze_context_desc_t desc = {ZE_STRUCTURE_TYPE_CONTEXT_DESC, NULL, 0};
    ze_context_handle_t made;
    CALL(zeContextCreate, driver, &desc, &made);
    return made;
}

static ze_command_list_handle_t immediate(ze_context_handle_t in, ze_device_handle_t on) {
    ze_command_queue_desc_t desc = {ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC, NULL, 0, 0, 0,
                                    ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS, ZE_COMMAND_QUEUE_PRIORITY_NORMAL};
    ze_command_list_handle_t made;
    CALL(zeCommandListCreateImmediate, in, on, &desc, &made);
    return made;
}

static void *device_memory(ze_context_handle_t in, ze_device_handle_t on, size_t size) {
    ze_device_mem_alloc_desc_t desc = {ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC, NULL, 0, 0};
    void *pointer = NULL;
    CALL(zeMemAllocDevice, in, &desc, size, 64, on, &pointer);
    return pointer;
}

static ze_kernel_handle_t kernel(const char *name) {
    ze_kernel_desc_t desc = {ZE_STRUCTURE_TYPE_KERNEL_DESC, NULL, 0, name};
    ze_kernel_handle_t made;
    CALL(zeKernelCreate, module, &desc, &made);
    CALL(zeKernelSetGroupSize, made, 1, 1, 1);
    return made;
}

static void load_module(const char *path) {
    FILE *file = fopen(path, "rb");
    static uint8_t il[1 << 16];
    size_t il_size = file ? fread(il, 1, sizeof il, file) : 0;
    if (file)
        fclose(file);
    ze_module_desc_t desc = {ZE_STRUCTURE_TYPE_MODULE_DESC, NULL, ZE_MODULE_FORMAT_IL_SPIRV, il_size, il, "", NULL};
    CALL(zeModuleCreate, context, device[1], &desc, &module, NULL);
}

/* host[i] = i * factor, for bytes a scenario can recognise. */
static void pattern(uint32_t *host, uint32_t factor) {
    for (int i = 0; i < N; i++)
        host[i] = (uint32_t)i * factor;
}

static void wait_idle(ze_command_list_handle_t on) { CALL(zeCommandListHostSynchronize, on, UINT64_MAX); }

/* 1. LAZY_USM_INDIRECT=all: one thread allocates on device 0 while another launches device 1's
 * first kernel (which makes everything resident there). Every allocation must end resident on
 * device 1: "expected" pinned bytes against "pinned". */
#define RACE_ALLOCATIONS 3000
#define RACE_SIZE 4096
#define RACE_BEFORE 2000
static atomic_int allocated;
static int launched_at, launched_until;
static void *race_pointers[RACE_ALLOCATIONS];

static atomic_int launching;

static void *allocate_many(void *unused) {
    (void)unused;
    for (int i = 0; i < RACE_ALLOCATIONS; i++) {
        /* Past the first RACE_BEFORE, wait for the launch to start: its pass over those is long
         * enough that the rest run beside it on any machine. */
        while (i == RACE_BEFORE && !atomic_load(&launching))
            sched_yield();
        race_pointers[i] = device_memory(context, device[0], RACE_SIZE);
        atomic_store(&allocated, i + 1);
    }
    return NULL;
}

static void *first_launch(void *unused) {
    (void)unused;
    ze_kernel_handle_t fill = kernel("lazy_usm_sim_fill_u32");
    uint32_t *mine = device_memory(context, device[1], N * 4);
    uint32_t seven = 7;
    CALL(zeKernelSetArgumentValue, fill, 0, sizeof mine, &mine);
    CALL(zeKernelSetArgumentValue, fill, 1, sizeof seven, &seven);
    ze_group_count_t groups = {N, 1, 1};
    while (atomic_load(&allocated) < RACE_BEFORE)
        sched_yield();
    launched_at = atomic_load(&allocated);
    atomic_store(&launching, 1);
    CALL(zeCommandListAppendLaunchKernel, list[1], fill, &groups, NULL, 0, NULL);
    launched_until = atomic_load(&allocated);
    wait_idle(list[1]);
    CALL(zeKernelDestroy, fill);
    CALL(zeMemFree, context, mine);
    return NULL;
}

/* Rounds, each in a context of its own (a device's first launch happens once per context);
 * more, up to RACE_MOST_ROUNDS, while none overlapped (a loaded host may not run the allocating
 * thread during a pass). */
#define RACE_ROUNDS 4
#define RACE_MOST_ROUNDS 40

static int allocation_race(void) {
    uint64_t missing = 0, overlap = 0;
    ze_context_handle_t first = context;
    ze_command_list_handle_t first_lists[2] = {list[0], list[1]};
    ze_module_handle_t first_module = module;
    for (int round = 0; round < RACE_ROUNDS || (overlap == 0 && round < RACE_MOST_ROUNDS); round++) {
        context = new_context();
        list[0] = immediate(context, device[0]);
        list[1] = immediate(context, device[1]);
        load_module(module_path);
        atomic_store(&allocated, 0);
        atomic_store(&launching, 0);
        uint64_t before = pinned();
        pthread_t threads[2];
        if (pthread_create(&threads[0], NULL, allocate_many, NULL) ||
            pthread_create(&threads[1], NULL, first_launch, NULL)) {
            printf("error pthread_create\n");
            return 1;
        }
        pthread_join(threads[0], NULL);
        pthread_join(threads[1], NULL);
        uint64_t resident = (pinned() - before) / RACE_SIZE;
        missing += RACE_ALLOCATIONS - resident;
        overlap += (uint64_t)(launched_until - launched_at);
        for (int i = 0; i < RACE_ALLOCATIONS; i++)
            CALL(zeMemFree, context, race_pointers[i]);
        CALL(zeModuleDestroy, module);
        CALL(zeCommandListDestroy, list[0]);
        CALL(zeCommandListDestroy, list[1]);
        CALL(zeContextDestroy, context);
    }
    context = first;
    list[0] = first_lists[0];
    list[1] = first_lists[1];
    module = first_module;
    /* How many allocations the launches' passes overlapped, and how many of all the rounds'
     * allocations did not end resident on device 1. */
    value("overlap", overlap);
    value("missing", missing);
    figures("race");
    return 0;
}

/* 2. Appends beyond copies, fills and launches that take USM pointers: each writes into (or
 * reads) device 0's memory from a list on device 1. */
static int other_appends(void) {
    static uint32_t host[N];
    pattern(host, 1u);
    figures("start");
    /* A copy from another context (the source's), into device 0's memory. */
    ze_context_handle_t other = new_context();
    uint32_t *elsewhere = device_memory(other, device[1], N * 4);
    ze_command_list_handle_t other_list = immediate(other, device[1]);
    CALL(zeCommandListAppendMemoryCopy, other_list, elsewhere, host, (size_t)N * 4, NULL, 0, NULL);
    wait_idle(other_list);
    uint32_t *target = device_memory(context, device[0], N * 4);
    CALL(zeCommandListAppendMemoryCopyFromContext, list[1], target, other, elsewhere, (size_t)N * 4, NULL, 0, NULL);
    wait_idle(list[1]);
    figures("from-context");
    static uint32_t back[N];
    CALL(zeCommandListAppendMemoryCopy, list[0], back, target, (size_t)N * 4, NULL, 0, NULL);
    wait_idle(list[0]);
    value("from-context.bytes-match", memcmp(back, host, sizeof host) == 0);
    /* A timestamp written into device 0's memory. */
    uint64_t *stamp = device_memory(context, device[0], 64);
    CALL(zeCommandListAppendWriteGlobalTimestamp, list[1], stamp, NULL, 0, NULL);
    wait_idle(list[1]);
    figures("timestamp");
    /* Kernel timestamps written into device 0's memory, through the getters' table. */
    ze_event_pool_desc_t pool_desc = {ZE_STRUCTURE_TYPE_EVENT_POOL_DESC, NULL,
                                      ZE_EVENT_POOL_FLAG_HOST_VISIBLE | ZE_EVENT_POOL_FLAG_KERNEL_TIMESTAMP, 1};
    ze_event_pool_handle_t pool;
    CALL(zeEventPoolCreate, context, &pool_desc, 0, NULL, &pool);
    ze_event_desc_t event_desc = {ZE_STRUCTURE_TYPE_EVENT_DESC, NULL, 0, ZE_EVENT_SCOPE_FLAG_HOST, ZE_EVENT_SCOPE_FLAG_HOST};
    ze_event_handle_t event;
    CALL(zeEventCreate, pool, &event_desc, &event);
    CALL(zeCommandListAppendSignalEvent, list[1], event);
    char *results = device_memory(context, device[0], 4096);
    /* Its result goes to an offset from `results`: into another allocation of device 0 (the
     * higher of the two, as offsets are unsigned). */
    char *elsewhere_results = device_memory(context, device[0], 4096);
    if (elsewhere_results < results) {
        char *lower = elsewhere_results;
        elsewhere_results = results;
        results = lower;
    }
    size_t offsets[1] = {(size_t)(elsewhere_results - (char *)results)};
    ze_command_list_dditable_t table = {0};
    CALL(zeGetCommandListProcAddrTable, ZE_API_VERSION_CURRENT, &table);
    if (!table.pfnAppendQueryKernelTimestamps ||
        table.pfnAppendQueryKernelTimestamps(list[1], 1, &event, results, offsets, NULL, 0, NULL) != ZE_RESULT_SUCCESS) {
        printf("error the table's zeCommandListAppendQueryKernelTimestamps failed\n");
        return 1;
    }
    wait_idle(list[1]);
    figures("kernel-timestamps");
    CALL(zeEventDestroy, event);
    CALL(zeEventPoolDestroy, pool);
    CALL(zeMemFree, context, results);
    CALL(zeMemFree, context, elsewhere_results);
    CALL(zeMemFree, context, stamp);
    CALL(zeMemFree, context, target);
    CALL(zeCommandListDestroy, other_list);
    CALL(zeMemFree, other, elsewhere);
    CALL(zeContextDestroy, other);
    figures("end");
    return 0;
}

/* 3 and 4. Residency requests at an interior pointer, out of range, and naming another
 * context, each followed by its eviction. */
static int residency_requests(void) {
    size_t size = 1 << 20;
    uint8_t *memory = device_memory(context, device[0], size);
    figures("start");
    value("interior.result", TRY(zeContextMakeMemoryResident, context, device[1], memory + 4096, (size_t)4096));
    figures("interior");
    value("interior-evict.result", TRY(zeContextEvictMemory, context, device[1], memory + 4096, (size_t)4096));
    figures("interior-evict");
    /* A range past the allocation's end: not the shim's to defer; the driver answers. */
    value("beyond.result", TRY(zeContextMakeMemoryResident, context, device[1], memory + 4096, size));
    figures("beyond");
    /* Another context than the allocation's: the driver's answer. */
    ze_context_handle_t other = new_context();
    value("other-context.result", TRY(zeContextMakeMemoryResident, other, device[1], memory, size));
    figures("other-context");
    value("other-context-evict.result", TRY(zeContextEvictMemory, other, device[1], memory, size));
    CALL(zeContextDestroy, other);
    /* The whole allocation, made resident by a use, then evicted by the program: forwarded,
     * so the mirror goes. */
    value("whole.result", TRY(zeContextMakeMemoryResident, context, device[1], memory, size));
    static uint8_t host[4096];
    CALL(zeCommandListAppendMemoryCopy, list[1], host, memory, sizeof host, NULL, 0, NULL);
    wait_idle(list[1]);
    figures("used");
    value("whole-evict.result", TRY(zeContextEvictMemory, context, device[1], memory, size));
    figures("whole-evict");
    /* Used again: made resident again if the eviction went through, not if it was refused. */
    CALL(zeCommandListAppendMemoryCopy, list[1], host, memory, sizeof host, NULL, 0, NULL);
    wait_idle(list[1]);
    figures("reused");
    CALL(zeMemFree, context, memory);
    figures("end");
    return 0;
}

/* 5. Calls the driver refuses must leave the shim's records as they were: after each refusal,
 * a peer use in the context is still made resident. */
static int refused_calls(void) {
    ze_kernel_handle_t copy = kernel("lazy_usm_sim_copy_u32");
    ze_group_count_t groups = {N, 1, 1};
    static uint32_t host[N], back[N];
    pattern(host, 5u);
    figures("start");

    /* A free naming the wrong context is refused; the memory stays the program's. */
    uint32_t *freed_wrong = device_memory(context, device[0], N * 4);
    ze_context_handle_t other = new_context();
    value("free-wrong-context.result", TRY(zeMemFree, other, freed_wrong));
    CALL(zeContextDestroy, other);
    CALL(zeCommandListAppendMemoryCopy, list[1], back, freed_wrong, sizeof back, NULL, 0, NULL);
    wait_idle(list[1]);
    figures("after-free");

    /* A list destroyed while its work waits on an event is refused. */
    ze_event_pool_desc_t pool_desc = {ZE_STRUCTURE_TYPE_EVENT_POOL_DESC, NULL, ZE_EVENT_POOL_FLAG_HOST_VISIBLE, 1};
    ze_event_pool_handle_t pool;
    CALL(zeEventPoolCreate, context, &pool_desc, 0, NULL, &pool);
    ze_event_desc_t event_desc = {ZE_STRUCTURE_TYPE_EVENT_DESC, NULL, 0, ZE_EVENT_SCOPE_FLAG_HOST, ZE_EVENT_SCOPE_FLAG_HOST};
    ze_event_handle_t gate;
    CALL(zeEventCreate, pool, &event_desc, &gate);
    ze_command_list_handle_t busy = immediate(context, device[1]);
    CALL(zeCommandListAppendWaitOnEvents, busy, 1, &gate);
    value("list-destroy.result", TRY(zeCommandListDestroy, busy));
    CALL(zeEventHostSignal, gate);
    wait_idle(busy);
    uint32_t *on_busy = device_memory(context, device[0], N * 4);
    CALL(zeCommandListAppendMemoryCopy, busy, back, on_busy, sizeof back, NULL, 0, NULL);
    wait_idle(busy);
    figures("after-list-destroy");

    /* A kernel destroyed while a launch of it waits is refused; the argument set after that
     * launch, device 0's memory, still counts at its next launch on device 1. */
    CALL(zeEventHostReset, gate);
    uint32_t *source = device_memory(context, device[0], N * 4);
    uint32_t *local = device_memory(context, device[1], N * 4);
    uint32_t *target = device_memory(context, device[1], N * 4);
    CALL(zeCommandListAppendMemoryCopy, list[0], source, host, sizeof host, NULL, 0, NULL);
    wait_idle(list[0]);
    CALL(zeKernelSetArgumentValue, copy, 0, sizeof target, &target);
    CALL(zeKernelSetArgumentValue, copy, 1, sizeof local, &local);
    CALL(zeCommandListAppendWaitOnEvents, list[1], 1, &gate);
    CALL(zeCommandListAppendLaunchKernel, list[1], copy, &groups, NULL, 0, NULL);
    CALL(zeKernelSetArgumentValue, copy, 1, sizeof source, &source);
    value("kernel-destroy.result", TRY(zeKernelDestroy, copy));
    CALL(zeEventHostSignal, gate);
    wait_idle(list[1]);
    CALL(zeCommandListAppendLaunchKernel, list[1], copy, &groups, NULL, 0, NULL);
    CALL(zeCommandListAppendMemoryCopy, list[1], back, target, sizeof back, NULL, 0, NULL);
    wait_idle(list[1]);
    value("kernel.bytes-match", memcmp(back, host, sizeof host) == 0);
    figures("after-kernel-destroy");

    CALL(zeKernelDestroy, copy);
    CALL(zeCommandListDestroy, busy);
    CALL(zeEventDestroy, gate);
    CALL(zeEventPoolDestroy, pool);
    void *all[] = {freed_wrong, on_busy, source, local, target};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        CALL(zeMemFree, context, all[i]);
    figures("end");
    return 0;
}

/* 7. Launches whose arguments travel with them: read by the kernel's SPIR-V parameters, only
 * the source is made resident (a bystander of device 0 is not); a kernel of a native binary,
 * whose parameters the shim cannot know, falls back to making everything resident. */
static int launch_with_arguments(void) {
    static uint32_t host[N], back[N];
    pattern(host, 11u);
    uint32_t *source = device_memory(context, device[0], N * 4);
    uint32_t *bystander = device_memory(context, device[0], N * 4);
    uint32_t *target = device_memory(context, device[1], N * 4);
    CALL(zeCommandListAppendMemoryCopy, list[0], source, host, sizeof host, NULL, 0, NULL);
    wait_idle(list[0]);
    figures("start");
    ze_kernel_handle_t copy = kernel("lazy_usm_sim_copy_u32");
    ze_group_count_t groups = {N, 1, 1};
    ze_group_size_t one = {1, 1, 1};
    void *arguments[] = {&target, &source};
    CALL(zeCommandListAppendLaunchKernelWithArguments, list[1], copy, groups, one, arguments, NULL, NULL, 0, NULL);
    CALL(zeCommandListAppendMemoryCopy, list[1], back, target, sizeof back, NULL, 0, NULL);
    wait_idle(list[1]);
    value("precise.bytes-match", memcmp(back, host, sizeof host) == 0);
    figures("precise");
    /* The launch set the kernel's arguments: a plain launch reads the same ones. */
    memset(back, 0, sizeof back);
    CALL(zeCommandListAppendMemoryFill, list[1], target, &(uint32_t){0}, 4, sizeof back, NULL, 0, NULL);
    CALL(zeCommandListAppendLaunchKernel, list[1], copy, &groups, NULL, 0, NULL);
    CALL(zeCommandListAppendMemoryCopy, list[1], back, target, sizeof back, NULL, 0, NULL);
    wait_idle(list[1]);
    value("kept.bytes-match", memcmp(back, host, sizeof host) == 0);
    figures("kept");
    CALL(zeKernelDestroy, copy);

    /* A native binary: the simulator knows its built-in by name, the shim knows nothing. */
    static const uint8_t binary[16] = {1};
    ze_module_desc_t desc = {ZE_STRUCTURE_TYPE_MODULE_DESC, NULL, ZE_MODULE_FORMAT_NATIVE, sizeof binary, binary, "", NULL};
    ze_module_handle_t native;
    CALL(zeModuleCreate, context, device[1], &desc, &native, NULL);
    ze_kernel_desc_t kernel_desc = {ZE_STRUCTURE_TYPE_KERNEL_DESC, NULL, 0, "lazy_usm_sim_copy_u32"};
    ze_kernel_handle_t native_copy;
    CALL(zeKernelCreate, native, &kernel_desc, &native_copy);
    CALL(zeCommandListAppendLaunchKernelWithArguments, list[1], native_copy, groups, one, arguments, NULL, NULL, 0, NULL);
    wait_idle(list[1]);
    figures("fallback");
    CALL(zeKernelDestroy, native_copy);
    CALL(zeModuleDestroy, native);
    CALL(zeMemFree, context, source);
    CALL(zeMemFree, context, bystander);
    CALL(zeMemFree, context, target);
    figures("end");
    return 0;
}

/* 14. Virtual memory: physical memory of device 0 mapped into a reserved range is device 0's
 * memory to the shim too: the runtime's residency request for a peer is deferred, and the
 * peer's first use makes it resident. */
static int virtual_memory(void) {
    size_t page = 0, size = 1 << 20;
    CALL(zeVirtualMemQueryPageSize, context, device[0], size, &page);
    value("page", page);
    void *range = NULL;
    CALL(zeVirtualMemReserve, context, NULL, 2 * size, &range);
    ze_physical_mem_desc_t desc = {ZE_STRUCTURE_TYPE_PHYSICAL_MEM_DESC, NULL, ZE_PHYSICAL_MEM_FLAG_ALLOCATE_ON_DEVICE, size};
    ze_physical_mem_handle_t physical;
    CALL(zePhysicalMemCreate, context, device[0], &desc, &physical);
    CALL(zeVirtualMemMap, context, range, size, physical, 0, ZE_MEMORY_ACCESS_ATTRIBUTE_READWRITE);
    static uint32_t host[N], back[N];
    pattern(host, 13u);
    CALL(zeCommandListAppendMemoryCopy, list[0], range, host, sizeof host, NULL, 0, NULL);
    wait_idle(list[0]);
    figures("mapped");
    value("asked.result", TRY(zeContextMakeMemoryResident, context, device[1], range, size));
    figures("asked");
    CALL(zeCommandListAppendMemoryCopy, list[1], back, range, sizeof back, NULL, 0, NULL);
    wait_idle(list[1]);
    value("used.bytes-match", memcmp(back, host, sizeof host) == 0);
    figures("used");
    value("destroy-mapped.result", TRY(zePhysicalMemDestroy, context, physical));
    CALL(zeVirtualMemUnmap, context, range, size);
    figures("unmapped");
    /* Mapped again at the range's second half: the same bytes, a new mapping. */
    char *second = (char *)range + size;
    CALL(zeVirtualMemMap, context, second, size, physical, 0, ZE_MEMORY_ACCESS_ATTRIBUTE_READWRITE);
    memset(back, 0, sizeof back);
    CALL(zeCommandListAppendMemoryCopy, list[1], back, second, sizeof back, NULL, 0, NULL);
    wait_idle(list[1]);
    value("remapped.bytes-match", memcmp(back, host, sizeof host) == 0);
    figures("remapped");
    CALL(zeVirtualMemFree, context, range, 2 * size);
    CALL(zePhysicalMemDestroy, context, physical);
    figures("end");
    return 0;
}

/* 1 and 14. Under LAZY_USM_INDIRECT=all, a mapping made after device 1's first launch is
 * resident there at once, as an allocation is. */
static int mapped_after_mark(void) {
    ze_kernel_handle_t fill = kernel("lazy_usm_sim_fill_u32");
    uint32_t *mine = device_memory(context, device[1], N * 4);
    uint32_t seven = 7;
    CALL(zeKernelSetArgumentValue, fill, 0, sizeof mine, &mine);
    CALL(zeKernelSetArgumentValue, fill, 1, sizeof seven, &seven);
    ze_group_count_t groups = {N, 1, 1};
    CALL(zeCommandListAppendLaunchKernel, list[1], fill, &groups, NULL, 0, NULL);
    wait_idle(list[1]);
    figures("marked");
    size_t size = 1 << 20;
    void *range = NULL;
    CALL(zeVirtualMemReserve, context, NULL, size, &range);
    ze_physical_mem_desc_t desc = {ZE_STRUCTURE_TYPE_PHYSICAL_MEM_DESC, NULL, ZE_PHYSICAL_MEM_FLAG_ALLOCATE_ON_DEVICE, size};
    ze_physical_mem_handle_t physical;
    CALL(zePhysicalMemCreate, context, device[0], &desc, &physical);
    CALL(zeVirtualMemMap, context, range, size, physical, 0, ZE_MEMORY_ACCESS_ATTRIBUTE_READWRITE);
    figures("mapped");
    CALL(zeVirtualMemUnmap, context, range, size);
    CALL(zeVirtualMemFree, context, range, size);
    CALL(zePhysicalMemDestroy, context, physical);
    CALL(zeKernelDestroy, fill);
    CALL(zeMemFree, context, mine);
    figures("end");
    return 0;
}

/* 8. IPC: an exported allocation stays the shim's (lazy); memory opened from a handle, in
 * another context as another process would, is the driver's: its residency requests are
 * forwarded and the shim never makes it resident. */
static int ipc(void) {
    static uint32_t host[N], back[N];
    pattern(host, 17u);
    uint32_t *exported = device_memory(context, device[0], N * 4);
    CALL(zeCommandListAppendMemoryCopy, list[0], exported, host, sizeof host, NULL, 0, NULL);
    wait_idle(list[0]);
    ze_ipc_mem_handle_t handle;
    CALL(zeMemGetIpcHandle, context, exported, &handle);
    value("exported-asked.result", TRY(zeContextMakeMemoryResident, context, device[1], exported, (size_t)N * 4));
    figures("exported-asked");
    ze_context_handle_t other = new_context();
    void *opened = NULL;
    CALL(zeMemOpenIpcHandle, other, device[0], handle, 0, &opened);
    value("opened.distinct", opened != (void *)exported);
    ze_command_list_handle_t on_owner = immediate(other, device[0]), on_peer = immediate(other, device[1]);
    CALL(zeCommandListAppendMemoryCopy, on_owner, back, opened, sizeof back, NULL, 0, NULL);
    wait_idle(on_owner);
    value("opened.bytes-match", memcmp(back, host, sizeof host) == 0);
    figures("opened");
    /* The shim does not make it resident on a peer for a use... */
    value("opened-peer-use.result", TRY(zeCommandListAppendMemoryCopy, on_peer, back, opened, sizeof back, NULL, 0, NULL));
    figures("opened-peer-use");
    /* ...and forwards the program's request for it. */
    value("opened-asked.result", TRY(zeContextMakeMemoryResident, other, device[1], opened, (size_t)N * 4));
    figures("opened-asked");
    CALL(zeCommandListAppendMemoryCopy, on_peer, back, opened, sizeof back, NULL, 0, NULL);
    wait_idle(on_peer);
    CALL(zeMemCloseIpcHandle, other, opened);
    figures("closed");
    /* The exported allocation's own peer use is made resident by the shim, once. */
    CALL(zeCommandListAppendMemoryCopy, list[1], back, exported, sizeof back, NULL, 0, NULL);
    wait_idle(list[1]);
    value("exported-use.bytes-match", memcmp(back, host, sizeof host) == 0);
    figures("exported-use");
    CALL(zeMemPutIpcHandle, context, handle);
    CALL(zeCommandListDestroy, on_owner);
    CALL(zeCommandListDestroy, on_peer);
    CALL(zeContextDestroy, other);
    CALL(zeMemFree, context, exported);
    figures("end");
    return 0;
}

/* 6. A forked child that exits normally must not print the parent's report. */
static int fork_child(void) {
    fflush(stdout);
    fflush(stderr);
    pid_t child = fork();
    if (child < 0) {
        printf("error fork\n");
        return 1;
    }
    if (child == 0)
        exit(0); /* runs the atexit handlers */
    int status = 0;
    waitpid(child, &status, 0);
    value("child.exit", (uint64_t)(WIFEXITED(status) ? WEXITSTATUS(status) : 255));
    return 0;
}

/* 10. A cloned command list (zeCommandListCreateCloneExp, where the driver implements it): reset
 * and given new appends, it runs on its source's device, so a peer's memory among those
 * operands must be made resident there as for any list. */
static int cloned_list(void) {
    void *peer = device_memory(context, device[1], 4096);
    void *local = device_memory(context, device[0], 4096);
    ze_command_list_desc_t desc = {ZE_STRUCTURE_TYPE_COMMAND_LIST_DESC, NULL, 0, ZE_COMMAND_LIST_FLAG_EXP_CLONEABLE};
    ze_command_list_handle_t source, clone;
    CALL(zeCommandListCreate, context, device[0], &desc, &source);
    CALL(zeCommandListClose, source);
    CALL(zeCommandListCreateCloneExp, source, &clone);
    CALL(zeCommandListReset, clone);
    figures("start");
    CALL(zeCommandListAppendMemoryCopy, clone, local, peer, 4096, NULL, 0, NULL);
    CALL(zeCommandListClose, clone);
    ze_command_queue_desc_t queue_desc = {ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC, NULL, 0, 0, 0,
                                          ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS, ZE_COMMAND_QUEUE_PRIORITY_NORMAL};
    ze_command_queue_handle_t queue;
    CALL(zeCommandQueueCreate, context, device[0], &queue_desc, &queue);
    CALL(zeCommandQueueExecuteCommandLists, queue, 1, &clone, NULL);
    CALL(zeCommandQueueSynchronize, queue, UINT64_MAX);
    figures("copied");
    CALL(zeCommandQueueDestroy, queue);
    CALL(zeCommandListDestroy, clone);
    CALL(zeCommandListDestroy, source);
    CALL(zeMemFree, context, peer);
    CALL(zeMemFree, context, local);
    return 0;
}

/* 11. A reservation whose halves map two devices' memory: a copy over the whole of it, on
 * device 1, reads device 0's half too, which must be made resident there first; and a kernel
 * on device 1 given a pointer to the start of another such reservation may reach all of it. */
static int split_reservation(void) {
    size_t size = 0;
    CALL(zeVirtualMemQueryPageSize, context, device[1], N * 4, &size);
    if (size < N * 4)
        size = N * 4;
    ze_physical_mem_desc_t desc = {ZE_STRUCTURE_TYPE_PHYSICAL_MEM_DESC, NULL, ZE_PHYSICAL_MEM_FLAG_ALLOCATE_ON_DEVICE, size};
    /* Device physical memory is mapped once at a time (compute-runtime): one pair a range. */
    ze_physical_mem_handle_t local[2], peer[2];
    void *range[2];
    for (int i = 0; i < 2; i++) {
        CALL(zePhysicalMemCreate, context, device[1], &desc, &local[i]);
        CALL(zePhysicalMemCreate, context, device[0], &desc, &peer[i]);
        CALL(zeVirtualMemReserve, context, NULL, 2 * size, &range[i]);
        CALL(zeVirtualMemMap, context, range[i], size, local[i], 0, ZE_MEMORY_ACCESS_ATTRIBUTE_READWRITE);
        CALL(zeVirtualMemMap, context, (char *)range[i] + size, size, peer[i], 0, ZE_MEMORY_ACCESS_ATTRIBUTE_READWRITE);
    }
    void *target = device_memory(context, device[1], 2 * size);
    value("size", size);
    figures("start");
    CALL(zeCommandListAppendMemoryCopy, list[1], target, range[0], 2 * size, NULL, 0, NULL);
    wait_idle(list[1]);
    figures("copied");
    ze_kernel_handle_t fill = kernel("lazy_usm_sim_fill_u32");
    uint32_t seven = 7;
    CALL(zeKernelSetArgumentValue, fill, 0, sizeof range[1], &range[1]);
    CALL(zeKernelSetArgumentValue, fill, 1, sizeof seven, &seven);
    ze_group_count_t groups = {N, 1, 1};
    CALL(zeCommandListAppendLaunchKernel, list[1], fill, &groups, NULL, 0, NULL);
    wait_idle(list[1]);
    figures("launched");
    /* The second range's first half remapped to device 0's memory: the reservation is still
     * there, so a kernel given a pointer into its (resident) second half makes the new
     * mapping resident too. */
    ze_physical_mem_handle_t remapped;
    CALL(zePhysicalMemCreate, context, device[0], &desc, &remapped);
    CALL(zeVirtualMemUnmap, context, range[1], size);
    CALL(zeVirtualMemMap, context, range[1], size, remapped, 0, ZE_MEMORY_ACCESS_ATTRIBUTE_READWRITE);
    void *second_half = (char *)range[1] + size;
    CALL(zeKernelSetArgumentValue, fill, 0, sizeof second_half, &second_half);
    CALL(zeCommandListAppendLaunchKernel, list[1], fill, &groups, NULL, 0, NULL);
    wait_idle(list[1]);
    figures("remapped");
    CALL(zeKernelDestroy, fill);
    for (int i = 0; i < 2; i++) {
        CALL(zeVirtualMemUnmap, context, range[i], size);
        CALL(zeVirtualMemUnmap, context, (char *)range[i] + size, size);
        CALL(zeVirtualMemFree, context, range[i], 2 * size);
        CALL(zePhysicalMemDestroy, context, local[i]);
        CALL(zePhysicalMemDestroy, context, peer[i]);
    }
    CALL(zePhysicalMemDestroy, context, remapped);
    CALL(zeMemFree, context, target);
    figures("end");
    return 0;
}

int main(int argc, char **argv) {
    if (argc != 3) {
        printf("error usage: holes SCENARIO MODULE.spv\n");
        return 1;
    }
    start(&driver, device);
    context = new_context();
    list[0] = immediate(context, device[0]);
    list[1] = immediate(context, device[1]);
    module_path = argv[2];
    load_module(module_path);
    const char *scenario = argv[1];
    int failed;
    if (!strcmp(scenario, "allocation-race"))
        failed = allocation_race();
    else if (!strcmp(scenario, "other-appends"))
        failed = other_appends();
    else if (!strcmp(scenario, "residency-requests"))
        failed = residency_requests();
    else if (!strcmp(scenario, "refused-calls"))
        failed = refused_calls();
    else if (!strcmp(scenario, "launch-with-arguments"))
        failed = launch_with_arguments();
    else if (!strcmp(scenario, "virtual-memory"))
        failed = virtual_memory();
    else if (!strcmp(scenario, "mapped-after-mark"))
        failed = mapped_after_mark();
    else if (!strcmp(scenario, "ipc"))
        failed = ipc();
    else if (!strcmp(scenario, "fork-child"))
        failed = fork_child();
    else if (!strcmp(scenario, "cloned-list"))
        failed = cloned_list();
    else if (!strcmp(scenario, "split-reservation"))
        failed = split_reservation();
    else {
        printf("error unknown scenario %s\n", scenario);
        return 1;
    }
    value("hazards", counter("free_hazards") + counter("destroy_hazards"));
    return failed;
}
