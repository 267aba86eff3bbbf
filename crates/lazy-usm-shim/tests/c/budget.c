/* The shim's host budget (LAZY_USM_HOST_BUDGET), through the shim over the simulator: device 1
 * reads device 0's allocations, and the peer residency the shim makes for those reads must stay
 * within the budget without evicting what queued work still uses. Prints "name value" lines
 * (the simulator's counters after each step, and what the scenario measured), or "error ..."
 * and exits 1.
 * Usage: budget SCENARIO MIB MODULE.spv (MIB: each allocation's size in MiB; the module names
 * the simulator's built-in kernels). */
#include <level_zero/ze_api.h>

#include <pthread.h>
#include <string.h>

#include "harness.h"

/* Reads go to the host through a buffer of this size. */
#define CHUNK ((size_t)64 << 20)

/* "step.pinned": host memory pinned now, in MiB. */
static void step(const char *name) {
    printf("%s.pinned %llu\n", name, (unsigned long long)(pinned() >> 20));
    fflush(stdout);
}

static ze_driver_handle_t driver;
static ze_device_handle_t device[2];
static ze_context_handle_t context;
static ze_module_handle_t module;
static size_t size;
static uint8_t *host;
static uint64_t wrong_bytes;

/* An immediate list on `on`'s engine group `ordinal`. */
static ze_command_list_handle_t immediate_in(ze_device_handle_t on, uint32_t ordinal) {
    ze_command_queue_desc_t desc = {ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC, NULL, ordinal, 0, 0,
                                    ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS, ZE_COMMAND_QUEUE_PRIORITY_NORMAL};
    ze_command_list_handle_t made;
    CALL(zeCommandListCreateImmediate, context, on, &desc, &made);
    return made;
}

static ze_command_list_handle_t immediate(ze_device_handle_t on) { return immediate_in(on, 0); }

/* An event the host waits for and signals, in a pool of its own (on device 1). */
static ze_event_handle_t host_event(ze_event_pool_handle_t *pool) {
    ze_event_pool_desc_t pool_desc = {ZE_STRUCTURE_TYPE_EVENT_POOL_DESC, NULL, ZE_EVENT_POOL_FLAG_HOST_VISIBLE, 1};
    CALL(zeEventPoolCreate, context, &pool_desc, 1, &device[1], pool);
    ze_event_desc_t event_desc = {ZE_STRUCTURE_TYPE_EVENT_DESC, NULL, 0, ZE_EVENT_SCOPE_FLAG_HOST,
                                  ZE_EVENT_SCOPE_FLAG_HOST};
    ze_event_handle_t event;
    CALL(zeEventCreate, *pool, &event_desc, &event);
    return event;
}

static void drop_event(ze_event_handle_t event, ze_event_pool_handle_t pool) {
    CALL(zeEventDestroy, event);
    CALL(zeEventPoolDestroy, pool);
}

static void wait_idle(ze_command_list_handle_t on) { CALL(zeCommandListHostSynchronize, on, UINT64_MAX); }

/* Allocation `index` of device 0, every byte `index + 1` times 0x11. */
static void *filled(int index) {
    static ze_command_list_handle_t owner;
    if (!owner)
        owner = immediate(device[0]);
    ze_device_mem_alloc_desc_t desc = {ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC, NULL, 0, 0};
    void *pointer = NULL;
    CALL(zeMemAllocDevice, context, &desc, size, 64, device[0], &pointer);
    uint8_t byte = (uint8_t)(0x11 * (index + 1));
    CALL(zeCommandListAppendMemoryFill, owner, pointer, &byte, 1, size, NULL, 0, NULL);
    wait_idle(owner);
    return pointer;
}

/* Counts the bytes of `length` at `at` that are not allocation `index`'s. */
static void check(const uint8_t *at, size_t length, int index) {
    static uint8_t *expected;
    if (!expected && !(expected = malloc(CHUNK))) {
        printf("error no host memory\n");
        exit(1);
    }
    uint8_t byte = (uint8_t)(0x11 * (index + 1));
    memset(expected, byte, length);
    if (memcmp(at, expected, length) == 0)
        return;
    for (size_t i = 0; i < length; i++)
        wrong_bytes += at[i] != byte;
}

/* Device 1 reads all of allocation `index` at `from` to the host, a chunk at a time, and every
 * byte is checked. */
static void read_all(ze_command_list_handle_t on, const uint8_t *from, int index) {
    for (size_t offset = 0; offset < size; offset += CHUNK) {
        size_t length = size - offset < CHUNK ? size - offset : CHUNK;
        CALL(zeCommandListAppendMemoryCopy, on, host, from + offset, length, NULL, 0, NULL);
        wait_idle(on);
        check(host, length, index);
    }
}

/* Four allocations read in turn from device 1, then the first again. */
static int in_turn(void) {
    ze_command_list_handle_t reader = immediate(device[1]);
    void *allocation[4];
    for (int i = 0; i < 4; i++)
        allocation[i] = filled(i);
    step("filled");
    char name[32];
    for (int i = 0; i < 5; i++) {
        read_all(reader, allocation[i % 4], i % 4);
        snprintf(name, sizeof name, "read%d", i);
        step(name);
    }
    for (int i = 0; i < 4; i++)
        CALL(zeMemFree, context, allocation[i]);
    step("freed");
    return 0;
}

/* Queued work keeps what it uses: a copy waiting for an event (an immediate list) and a copy
 * recorded in a regular list not yet run hold their sources, and the budget passes rather than
 * evict them; once they ran (and the regular list was reset), they go first. */
static int busy(void) {
    uint8_t *a = filled(0), *b = filled(1), *c = filled(2), *d = filled(3);
    ze_event_pool_handle_t pool;
    ze_event_handle_t go = host_event(&pool);
    uint8_t *waiting_copy = malloc(CHUNK), *recorded_copy = malloc(CHUNK);
    if (!waiting_copy || !recorded_copy) {
        printf("error no host memory\n");
        return 1;
    }

    /* On the copy engines: a wait there holds up none of the compute engine's work. */
    ze_command_list_handle_t waiting = immediate_in(device[1], 1), reader = immediate(device[1]);
    CALL(zeCommandListAppendMemoryCopy, waiting, waiting_copy, a, CHUNK, NULL, 1, &go);
    step("a-waiting");
    read_all(reader, b, 1);
    step("b-read");
    read_all(reader, c, 2); /* a is queued: b goes */
    step("c-read");

    ze_command_list_desc_t list_desc = {ZE_STRUCTURE_TYPE_COMMAND_LIST_DESC, NULL, 0, 0};
    ze_command_list_handle_t recorded;
    CALL(zeCommandListCreate, context, device[1], &list_desc, &recorded);
    CALL(zeCommandListAppendMemoryCopy, recorded, recorded_copy, d, CHUNK, NULL, 0, NULL);
    CALL(zeCommandListClose, recorded);
    step("d-recorded"); /* c goes */
    read_all(reader, b, 1); /* a and d are queued: the budget passes */
    step("b-again");

    CALL(zeEventHostSignal, go);
    wait_idle(waiting);
    check(waiting_copy, CHUNK, 0);
    ze_command_queue_desc_t queue_desc = {ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC, NULL, 0, 0, 0,
                                          ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS, ZE_COMMAND_QUEUE_PRIORITY_NORMAL};
    ze_command_queue_handle_t queue;
    CALL(zeCommandQueueCreate, context, device[1], &queue_desc, &queue);
    CALL(zeCommandQueueExecuteCommandLists, queue, 1, &recorded, NULL);
    CALL(zeCommandQueueSynchronize, queue, UINT64_MAX);
    check(recorded_copy, CHUNK, 3);
    step("ran");
    CALL(zeCommandListReset, recorded);
    read_all(reader, c, 2); /* a and d, the oldest, go */
    step("c-again");

    CALL(zeCommandListDestroy, recorded);
    CALL(zeCommandQueueDestroy, queue);
    CALL(zeCommandListDestroy, waiting);
    drop_event(go, pool);
    uint8_t *all[] = {a, b, c, d};
    for (int i = 0; i < 4; i++)
        CALL(zeMemFree, context, all[i]);
    free(waiting_copy);
    free(recorded_copy);
    step("freed");
    return 0;
}

/* As in-turn, but the program waits for each copy through its event, never for the list: the
 * shim asks the list itself whether its work is done. */
static int by_events(void) {
    ze_command_list_handle_t reader = immediate(device[1]);
    ze_event_pool_handle_t pool;
    ze_event_handle_t done = host_event(&pool);
    uint8_t *allocation[4];
    for (int i = 0; i < 4; i++)
        allocation[i] = filled(i);
    char name[32];
    for (int i = 0; i < 5; i++) {
        for (size_t offset = 0; offset < size; offset += CHUNK) {
            size_t length = size - offset < CHUNK ? size - offset : CHUNK;
            CALL(zeCommandListAppendMemoryCopy, reader, host, allocation[i % 4] + offset, length, done, 0, NULL);
            CALL(zeEventHostSynchronize, done, UINT64_MAX);
            CALL(zeEventHostReset, done);
            check(host, length, i % 4);
        }
        snprintf(name, sizeof name, "read%d", i);
        step(name);
    }
    drop_event(done, pool);
    for (int i = 0; i < 4; i++)
        CALL(zeMemFree, context, allocation[i]);
    step("freed");
    return 0;
}

/* A clone of a regular list keeps what its source's commands read, after the source is gone,
 * until the clone itself ran and is destroyed. */
static int clone(void) {
    uint8_t *a = filled(0), *b = filled(1);
    uint8_t *copy = malloc(CHUNK);
    if (!copy) {
        printf("error no host memory\n");
        return 1;
    }
    ze_command_list_desc_t desc = {ZE_STRUCTURE_TYPE_COMMAND_LIST_DESC, NULL, 0, ZE_COMMAND_LIST_FLAG_EXP_CLONEABLE};
    ze_command_list_handle_t source, cloned;
    CALL(zeCommandListCreate, context, device[1], &desc, &source);
    CALL(zeCommandListAppendMemoryCopy, source, copy, a, CHUNK, NULL, 0, NULL);
    CALL(zeCommandListClose, source);
    CALL(zeCommandListCreateCloneExp, source, &cloned);
    CALL(zeCommandListDestroy, source);
    step("cloned");
    ze_command_list_handle_t reader = immediate(device[1]);
    read_all(reader, b, 1); /* a stays for the clone: the budget passes */
    step("b-read");
    ze_command_queue_desc_t queue_desc = {ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC, NULL, 0, 0, 0,
                                          ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS, ZE_COMMAND_QUEUE_PRIORITY_NORMAL};
    ze_command_queue_handle_t queue;
    CALL(zeCommandQueueCreate, context, device[1], &queue_desc, &queue);
    CALL(zeCommandQueueExecuteCommandLists, queue, 1, &cloned, NULL);
    CALL(zeCommandQueueSynchronize, queue, UINT64_MAX);
    check(copy, CHUNK, 0);
    CALL(zeCommandQueueDestroy, queue);
    CALL(zeCommandListDestroy, cloned);
    uint8_t *c = filled(2);
    read_all(reader, c, 2); /* nothing holds a or b now: both go */
    step("c-read");
    CALL(zeMemFree, context, a);
    CALL(zeMemFree, context, b);
    CALL(zeMemFree, context, c);
    free(copy);
    step("freed");
    return 0;
}

/* One copy on device 1 from one of device 0's allocations to another: the first made resident
 * for it is not evicted to make room for the second, whatever the budget. */
static int one_copy(void) {
    uint8_t *a = filled(0), *b = filled(1);
    ze_command_list_handle_t on = immediate(device[1]);
    CALL(zeCommandListAppendMemoryCopy, on, b, a, size, NULL, 0, NULL);
    wait_idle(on);
    step("copied");
    read_all(on, b, 0);
    CALL(zeMemFree, context, a);
    CALL(zeMemFree, context, b);
    step("freed");
    return 0;
}

/* Threads, each with its own list on device 1, read device 0's allocations in turn, so each
 * first use may evict what another thread read. */
#define THREADS 4
#define THREAD_ALLOCATIONS 16
#define ROUNDS 24
static uint8_t *shared_allocations[THREAD_ALLOCATIONS];
static _Atomic uint64_t thread_wrong_bytes;
static int through_events;

static void *reader_thread(void *argument) {
    int thread = (int)(intptr_t)argument;
    ze_command_list_handle_t on = immediate(device[1]);
    uint8_t *buffer = malloc(size), *expected = malloc(size);
    if (!buffer || !expected) {
        printf("error no host memory\n");
        exit(1);
    }
    /* With `through_events`, each copy is waited for through its event, never on the list: the
     * budget asks the lists themselves, beside the other threads' appends. */
    ze_event_pool_handle_t pool;
    ze_event_handle_t done = host_event(&pool);
    for (int round = 0; round < ROUNDS; round++) {
        int index = (thread * 5 + round) % THREAD_ALLOCATIONS;
        if (through_events) {
            CALL(zeCommandListAppendMemoryCopy, on, buffer, shared_allocations[index], size, done, 0, NULL);
            CALL(zeEventHostSynchronize, done, UINT64_MAX);
            CALL(zeEventHostReset, done);
        } else {
            CALL(zeCommandListAppendMemoryCopy, on, buffer, shared_allocations[index], size, NULL, 0, NULL);
            wait_idle(on);
        }
        memset(expected, (uint8_t)(0x11 * (index + 1)), size);
        if (memcmp(buffer, expected, size) != 0)
            thread_wrong_bytes += 1;
    }
    drop_event(done, pool);
    CALL(zeCommandListDestroy, on);
    free(buffer);
    free(expected);
    return NULL;
}

static int threads(void) {
    for (int i = 0; i < THREAD_ALLOCATIONS; i++)
        shared_allocations[i] = filled(i);
    pthread_t thread[THREADS];
    for (int i = 0; i < THREADS; i++)
        pthread_create(&thread[i], NULL, reader_thread, (void *)(intptr_t)i);
    for (int i = 0; i < THREADS; i++)
        pthread_join(thread[i], NULL);
    wrong_bytes += thread_wrong_bytes;
    step("read");
    for (int i = 0; i < THREAD_ALLOCATIONS; i++)
        CALL(zeMemFree, context, shared_allocations[i]);
    step("freed");
    return 0;
}

/* LAZY_USM_INDIRECT=all: a kernel's first launch on device 1 makes every peer allocation
 * resident there, past the budget (the launch may read any); once it ran, an allocation made
 * later evicts the oldest, and the next launch makes them resident again. */
static int indirect(void) {
    void *peer[3];
    for (int i = 0; i < 3; i++)
        peer[i] = filled(i);
    ze_command_list_handle_t on = immediate(device[1]);
    ze_device_mem_alloc_desc_t desc = {ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC, NULL, 0, 0};
    void *local = NULL;
    CALL(zeMemAllocDevice, context, &desc, 4096, 64, device[1], &local);
    ze_kernel_desc_t kernel_desc = {ZE_STRUCTURE_TYPE_KERNEL_DESC, NULL, 0, "lazy_usm_sim_fill_u32"};
    ze_kernel_handle_t fill;
    CALL(zeKernelCreate, module, &kernel_desc, &fill);
    CALL(zeKernelSetGroupSize, fill, 1, 1, 1);
    uint32_t word = 7;
    CALL(zeKernelSetArgumentValue, fill, 0, sizeof local, &local);
    CALL(zeKernelSetArgumentValue, fill, 1, sizeof word, &word);
    ze_group_count_t groups = {1024, 1, 1};
    CALL(zeCommandListAppendLaunchKernel, on, fill, &groups, NULL, 0, NULL);
    wait_idle(on);
    step("launched");
    void *later = filled(3);
    step("allocated");
    CALL(zeCommandListAppendLaunchKernel, on, fill, &groups, NULL, 0, NULL);
    wait_idle(on);
    step("launched-again");
    for (int i = 0; i < 3; i++)
        read_all(on, peer[i], i);
    read_all(on, later, 3);
    /* A launch queued behind an event keeps them all, though the list was waited for before. */
    ze_event_pool_handle_t pool;
    ze_event_handle_t go = host_event(&pool);
    CALL(zeCommandListAppendLaunchKernel, on, fill, &groups, NULL, 1, &go);
    void *last = filled(4);
    step("allocated-while-queued");
    CALL(zeEventHostSignal, go);
    wait_idle(on);
    drop_event(go, pool);
    CALL(zeMemFree, context, last);
    CALL(zeKernelDestroy, fill);
    for (int i = 0; i < 3; i++)
        CALL(zeMemFree, context, peer[i]);
    CALL(zeMemFree, context, later);
    CALL(zeMemFree, context, local);
    step("freed");
    return 0;
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

int main(int argc, char **argv) {
    if (argc != 4) {
        printf("error usage: budget SCENARIO MIB MODULE.spv\n");
        return 1;
    }
    size = (size_t)strtoull(argv[2], NULL, 10) << 20;
    host = malloc(CHUNK);
    if (!host || !size) {
        printf("error no host memory, or no size\n");
        return 1;
    }
    start(&driver, device);
    ze_context_desc_t context_desc = {ZE_STRUCTURE_TYPE_CONTEXT_DESC, NULL, 0};
    CALL(zeContextCreate, driver, &context_desc, &context);
    load_module(argv[3]);
    const char *scenario = argv[1];
    int failed;
    if (!strcmp(scenario, "in-turn"))
        failed = in_turn();
    else if (!strcmp(scenario, "busy"))
        failed = busy();
    else if (!strcmp(scenario, "events"))
        failed = by_events();
    else if (!strcmp(scenario, "clone"))
        failed = clone();
    else if (!strcmp(scenario, "threads"))
        failed = threads();
    else if (!strcmp(scenario, "threads-events")) {
        through_events = 1;
        failed = threads();
    }
    else if (!strcmp(scenario, "one-copy"))
        failed = one_copy();
    else if (!strcmp(scenario, "indirect"))
        failed = indirect();
    else {
        printf("error unknown scenario %s\n", scenario);
        return 1;
    }
    value("peak_pinned_mib", ((uint64_t(*)(void))symbol(simulator, "zesim_host_pinned_peak_bytes"))() >> 20);
    value("wrong_bytes", wrong_bytes);
    value("violations", counter("residency_violations"));
    value("make_resident_calls", counter("make_resident_calls"));
    value("evict_calls", counter("evict_calls"));
    value("hazards", counter("free_hazards") + counter("destroy_hazards"));
    value("overlaps", counter("list_call_overlaps"));
    return failed;
}
