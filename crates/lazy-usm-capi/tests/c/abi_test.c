/* Every function of lazy_usm.h from C: results, error codes and the last-error message, four
 * threads on one manager, and a manager over a context this program made itself through the
 * Level Zero loader it loaded (the simulator's stand-in). Prints "ok" and exits 0, or says what
 * failed and exits 1. */
#include "lazy_usm.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

static atomic_int failures = 0;

#define CHECK(condition)                                                                   \
    do {                                                                                   \
        if (!(condition)) {                                                                \
            fprintf(stderr, "%s:%d: %s failed (last error: %s)\n", __FILE__, __LINE__,     \
                    #condition, lazy_usm_last_error());                                     \
            failures++;                                                                    \
        }                                                                                  \
    } while (0)

#define EXPECT(call, status) CHECK((call) == (status))

static int mentions(const char *needle) { return strstr(lazy_usm_last_error(), needle) != NULL; }

static void single_thread(void) {
    LazyUsmManager *manager = NULL;
    EXPECT(lazy_usm_manager_create_simulated("b70x2", LAZY_USM_POLICY_LAZY, &manager), LAZY_USM_STATUS_OK);
    CHECK(manager != NULL);
    CHECK(strcmp(lazy_usm_last_error(), "") == 0);

    uint32_t devices = 0;
    EXPECT(lazy_usm_manager_device_count(manager, &devices), LAZY_USM_STATUS_OK);
    CHECK(devices == 2);

    void *weights = NULL, *block = NULL;
    EXPECT(lazy_usm_alloc_device(manager, 0, 3 << 20, &weights), LAZY_USM_STATUS_OK);
    EXPECT(lazy_usm_pool_alloc(manager, 1, 1000, &block), LAZY_USM_STATUS_OK);
    CHECK(weights != NULL && block != NULL);

    LazyUsmPointerInfo info;
    EXPECT(lazy_usm_pointer_info(manager, (char *)weights + (2 << 20), &info), LAZY_USM_STATUS_OK);
    CHECK(info.base == weights && info.size == (3 << 20) && info.device == 0 && info.pooled == 0);
    CHECK(info.resident_mask == 1);
    EXPECT(lazy_usm_pointer_info(manager, (char *)block + 999, &info), LAZY_USM_STATUS_OK);
    CHECK(info.base == block && info.size == 1000 && info.device == 1 && info.pooled == 1);
    CHECK(info.resident_mask == 2);

    /* Residency by pointer, and what it costs. */
    LazyUsmHostCost cost;
    EXPECT(lazy_usm_ensure_resident(manager, (char *)weights + 5, 1), LAZY_USM_STATUS_OK);
    EXPECT(lazy_usm_host_cost(manager, &cost), LAZY_USM_STATUS_OK);
    CHECK(cost.current_bytes == (3 << 20));
    EXPECT(lazy_usm_pointer_info(manager, weights, &info), LAZY_USM_STATUS_OK);
    CHECK(info.resident_mask == 3);
    EXPECT(lazy_usm_evict(manager, weights, 1), LAZY_USM_STATUS_OK);
    EXPECT(lazy_usm_host_cost(manager, &cost), LAZY_USM_STATUS_OK);
    CHECK(cost.current_bytes == 0 && cost.peak_bytes == (3 << 20) && cost.evict_calls == 1);
    EXPECT(lazy_usm_evict(manager, weights, 0), LAZY_USM_STATUS_INVALID_ARGUMENT);
    CHECK(mentions("owns"));

    EXPECT(lazy_usm_enable_peer_access(manager, 1, 0), LAZY_USM_STATUS_OK);
    EXPECT(lazy_usm_disable_peer_access(manager, 1, 0), LAZY_USM_STATUS_OK);
    EXPECT(lazy_usm_enable_peer_access(manager, 1, 7), LAZY_USM_STATUS_INVALID_ARGUMENT);
    CHECK(mentions("device 7"));

    LazyUsmPoolStats stats;
    EXPECT(lazy_usm_pool_stats(manager, 1, &stats), LAZY_USM_STATUS_OK);
    CHECK(stats.allocated_bytes == 1024 && stats.misses == 1);
    LazyUsmDriverCounters driver;
    EXPECT(lazy_usm_pool_driver_counters(manager, 1, &driver), LAZY_USM_STATUS_OK);
    CHECK(driver.driver_allocations == 1 && driver.segments == 1 && driver.driver_frees == 0 &&
          driver.out_of_memory_errors == 0);
    EXPECT(lazy_usm_pool_driver_counters(manager, 1, NULL), LAZY_USM_STATUS_NULL_POINTER);

    /* Bad input: typed, with a message, and nothing changes. */
    void *none = NULL;
    EXPECT(lazy_usm_alloc_device(manager, 2, 64, &none), LAZY_USM_STATUS_INVALID_ARGUMENT);
    CHECK(mentions("device 2") && none == NULL);
    EXPECT(lazy_usm_pool_alloc(manager, 0, 0, &none), LAZY_USM_STATUS_INVALID_ARGUMENT);
    CHECK(mentions("0 bytes"));
    EXPECT(lazy_usm_pool_alloc(manager, 0, 64, NULL), LAZY_USM_STATUS_NULL_POINTER);
    CHECK(mentions("output pointer"));
    EXPECT(lazy_usm_pool_alloc(NULL, 0, 64, &none), LAZY_USM_STATUS_NULL_POINTER);
    CHECK(mentions("manager"));
    EXPECT(lazy_usm_alloc_device(manager, 0, (size_t)1 << 40, &none), LAZY_USM_STATUS_LEVEL_ZERO);
    CHECK(mentions("UNSUPPORTED_SIZE")); /* larger than the device's largest allocation */
    EXPECT(lazy_usm_free(manager, (char *)weights + 1), LAZY_USM_STATUS_UNKNOWN_POINTER);
    CHECK(mentions("not its start"));
    EXPECT(lazy_usm_pointer_info(manager, (void *)16, &info), LAZY_USM_STATUS_UNKNOWN_POINTER);
    EXPECT(lazy_usm_ensure_resident(manager, (void *)16, 1), LAZY_USM_STATUS_UNKNOWN_POINTER);
    EXPECT(lazy_usm_manager_create_simulated("nonesuch", LAZY_USM_POLICY_LAZY, &manager), LAZY_USM_STATUS_INVALID_ARGUMENT);
    CHECK(mentions("nonesuch"));
    EXPECT(lazy_usm_manager_create_simulated(NULL, LAZY_USM_POLICY_LAZY, &manager), LAZY_USM_STATUS_NULL_POINTER);
    EXPECT(lazy_usm_manager_create_simulated("b70x2", 7, &manager), LAZY_USM_STATUS_INVALID_ARGUMENT);
    CHECK(mentions("policy 7"));

    /* A pool block's residency is its segment's: ensure keeps it while the block lives (trim
     * leaves it), and eviction is refused. */
    void *shared = NULL;
    EXPECT(lazy_usm_pool_alloc(manager, 0, 4096, &shared), LAZY_USM_STATUS_OK);
    EXPECT(lazy_usm_ensure_resident(manager, (char *)shared + 10, 1), LAZY_USM_STATUS_OK);
    EXPECT(lazy_usm_trim(manager, NULL), LAZY_USM_STATUS_OK);
    EXPECT(lazy_usm_pointer_info(manager, shared, &info), LAZY_USM_STATUS_OK);
    CHECK(info.resident_mask == 3);
    EXPECT(lazy_usm_evict(manager, shared, 1), LAZY_USM_STATUS_INVALID_ARGUMENT);
    CHECK(mentions("pool block"));
    EXPECT(lazy_usm_free(manager, shared), LAZY_USM_STATUS_OK);

    EXPECT(lazy_usm_free(manager, weights), LAZY_USM_STATUS_OK);
    EXPECT(lazy_usm_free(manager, block), LAZY_USM_STATUS_OK);
    EXPECT(lazy_usm_free(manager, block), LAZY_USM_STATUS_UNKNOWN_POINTER);
    CHECK(mentions("not an allocation"));
    EXPECT(lazy_usm_pool_stats(manager, 1, &stats), LAZY_USM_STATUS_OK);
    CHECK(stats.allocated_bytes == 0 && stats.cached_bytes > 0);
    uint64_t released = 0;
    EXPECT(lazy_usm_trim(manager, &released), LAZY_USM_STATUS_OK);
    CHECK(released > 0);
    EXPECT(lazy_usm_pool_stats(manager, 1, &stats), LAZY_USM_STATUS_OK);
    CHECK(stats.reserved_bytes == 0);

    /* Left live on purpose: destroy frees it. */
    EXPECT(lazy_usm_pool_alloc(manager, 0, 4096, &block), LAZY_USM_STATUS_OK);
    lazy_usm_manager_destroy(manager);
    lazy_usm_manager_destroy(NULL);
}

static void *worker(void *argument) {
    LazyUsmManager *manager = argument;
    for (int round = 0; round < 500; round++) {
        void *pointer = NULL;
        uint32_t device = (uint32_t)(round % 2);
        if (lazy_usm_pool_alloc(manager, device, 256 + (size_t)(round % 17) * 512, &pointer) != LAZY_USM_STATUS_OK) {
            failures++;
            continue;
        }
        LazyUsmPointerInfo info;
        if (lazy_usm_pointer_info(manager, (char *)pointer + 100, &info) != LAZY_USM_STATUS_OK || info.base != pointer ||
            info.device != device)
            failures++;
        if (round % 5 == 0 && lazy_usm_ensure_resident(manager, pointer, 1 - device) != LAZY_USM_STATUS_OK)
            failures++;
        if (lazy_usm_free(manager, pointer) != LAZY_USM_STATUS_OK)
            failures++;
    }
    return NULL;
}

static void four_threads(void) {
    LazyUsmManager *manager = NULL;
    EXPECT(lazy_usm_manager_create_simulated("b70x2", LAZY_USM_POLICY_LAZY, &manager), LAZY_USM_STATUS_OK);
    pthread_t threads[4];
    for (int i = 0; i < 4; i++)
        CHECK(pthread_create(&threads[i], NULL, worker, manager) == 0);
    for (int i = 0; i < 4; i++)
        CHECK(pthread_join(threads[i], NULL) == 0);
    LazyUsmPoolStats stats;
    for (uint32_t device = 0; device < 2; device++) {
        EXPECT(lazy_usm_pool_stats(manager, device, &stats), LAZY_USM_STATUS_OK);
        CHECK(stats.allocated_bytes == 0);
    }
    lazy_usm_manager_destroy(manager);
}

/* A context this program makes through the loader it loaded, adopted by lazy-usm. */
typedef int32_t (*init_fn)(uint32_t);
typedef int32_t (*driver_get_fn)(uint32_t *, void **);
typedef int32_t (*device_get_fn)(void *, uint32_t *, void **);
typedef int32_t (*context_create_fn)(void *, const void *, void **);
typedef int32_t (*context_destroy_fn)(void *);
typedef uint64_t (*pinned_fn)(void);

static void adopted(void) {
    void *loader = dlopen("libze_loader.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!loader) {
        fprintf(stderr, "no loader to adopt from: %s\n", dlerror());
        failures++;
        return;
    }
    init_fn init = (init_fn)dlsym(loader, "zeInit");
    driver_get_fn driver_get = (driver_get_fn)dlsym(loader, "zeDriverGet");
    device_get_fn device_get = (device_get_fn)dlsym(loader, "zeDeviceGet");
    context_create_fn context_create = (context_create_fn)dlsym(loader, "zeContextCreate");
    context_destroy_fn context_destroy = (context_destroy_fn)dlsym(loader, "zeContextDestroy");
    pinned_fn pinned = (pinned_fn)dlsym(loader, "zesim_host_pinned_bytes");
    CHECK(init && driver_get && device_get && context_create && context_destroy && pinned);
    if (!pinned)
        return;
    uint32_t count = 1, devices = 2;
    void *driver = NULL, *handles[2] = {NULL, NULL}, *context = NULL;
    /* ze_context_desc_t: stype ZE_STRUCTURE_TYPE_CONTEXT_DESC, pNext, flags. */
    struct { uint32_t stype; const void *next; uint32_t flags; } desc = {LAZY_USM_TEST_CONTEXT_DESC_STYPE, NULL, 0};
    CHECK(init(0) == 0 && driver_get(&count, &driver) == 0 && device_get(driver, &devices, handles) == 0);
    CHECK(context_create(driver, &desc, &context) == 0);

    LazyUsmManager *manager = NULL;
    EXPECT(lazy_usm_manager_adopt(context, (void *const *)handles, 2, LAZY_USM_POLICY_LAZY, &manager), LAZY_USM_STATUS_OK);
    void *block = NULL;
    EXPECT(lazy_usm_pool_alloc(manager, 0, 1 << 20, &block), LAZY_USM_STATUS_OK);
    CHECK(pinned() == 0); /* resident on its owner only */
    EXPECT(lazy_usm_ensure_resident(manager, block, 1), LAZY_USM_STATUS_OK);
    CHECK(pinned() > 0); /* the simulated driver, shared with this program, pinned the mirror */
    EXPECT(lazy_usm_free(manager, block), LAZY_USM_STATUS_OK);
    lazy_usm_manager_destroy(manager);
    CHECK(pinned() == 0);
    /* The context is still this program's: lazy-usm did not destroy it. */
    CHECK(context_destroy(context) == 0);

    EXPECT(lazy_usm_manager_adopt(NULL, (void *const *)handles, 2, LAZY_USM_POLICY_LAZY, &manager), LAZY_USM_STATUS_NULL_POINTER);
    EXPECT(lazy_usm_manager_adopt(context, (void *const *)handles, 0, LAZY_USM_POLICY_LAZY, &manager), LAZY_USM_STATUS_INVALID_ARGUMENT);
    void *stranger[1] = {(void *)&desc};
    EXPECT(lazy_usm_manager_adopt(context, (void *const *)stranger, 1, LAZY_USM_POLICY_LAZY, &manager), LAZY_USM_STATUS_INVALID_ARGUMENT);
    CHECK(mentions("no device"));
}

/* With the stand-in found as libze_loader.so.1 (LD_LIBRARY_PATH), it is "the system's" loader. */
static void system_loader(void) {
    LazyUsmManager *manager = NULL;
    EXPECT(lazy_usm_manager_create(LAZY_USM_POLICY_EAGER, &manager), LAZY_USM_STATUS_OK);
    uint32_t devices = 0;
    EXPECT(lazy_usm_manager_device_count(manager, &devices), LAZY_USM_STATUS_OK);
    CHECK(devices == 2);
    void *eager = NULL;
    LazyUsmHostCost cost;
    EXPECT(lazy_usm_alloc_device(manager, 0, 1 << 20, &eager), LAZY_USM_STATUS_OK);
    EXPECT(lazy_usm_host_cost(manager, &cost), LAZY_USM_STATUS_OK);
    CHECK(cost.current_bytes == (1 << 20)); /* eager: resident on the peer at once */
    EXPECT(lazy_usm_free(manager, eager), LAZY_USM_STATUS_OK);
    EXPECT(lazy_usm_manager_create(99, &manager), LAZY_USM_STATUS_INVALID_ARGUMENT);
    lazy_usm_manager_destroy(manager);
}

int main(void) {
    single_thread();
    system_loader();
    four_threads();
    adopted();
    if (failures) {
        fprintf(stderr, "%d checks failed\n", failures);
        return 1;
    }
    printf("ok\n");
    return 0;
}
