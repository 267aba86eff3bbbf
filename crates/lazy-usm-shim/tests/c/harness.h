/* What the C scenarios share: the loader (the shim, found as libze_loader.so.1) and the
 * simulator behind it, each function looked up by name, a failing call ending the program with
 * "error ..." (the Rust side reads stdout), and the simulator's figures. */
#ifndef LAZY_USM_TEST_HARNESS_H
#define LAZY_USM_TEST_HARNESS_H

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static void *loader, *simulator;

static inline void *symbol(void *library, const char *name) {
    void *address = dlsym(library, name);
    if (!address) {
        printf("error %s missing\n", name);
        exit(1);
    }
    return address;
}

#define TRY(name, ...) (((ze_result_t(*)())symbol(loader, #name))(__VA_ARGS__))
#define CALL(name, ...)                                                                        \
    do {                                                                                       \
        ze_result_t result = TRY(name, __VA_ARGS__);                                           \
        if (result != ZE_RESULT_SUCCESS) {                                                     \
            printf("error %s returned 0x%x\n", #name, (unsigned)result);                     \
            exit(1);                                                                           \
        }                                                                                      \
    } while (0)

/* The simulator's counter `name` (see ze-sim's Counters::NAMES). */
static inline uint64_t counter(const char *name) {
    return ((uint64_t(*)(const char *))symbol(simulator, "zesim_counter"))(name);
}

/* Host memory the simulated driver pins now. */
static inline uint64_t pinned(void) { return ((uint64_t(*)(void))symbol(simulator, "zesim_host_pinned_bytes"))(); }

/* A "name value" line. */
static inline void value(const char *name, uint64_t number) { printf("%s %llu\n", name, (unsigned long long)number); }

/* Opens the loader (the shim) and initialises Level Zero, then finds the simulator the shim
 * loaded as its real loader; writes the first driver and its first two devices. */
static inline void start(ze_driver_handle_t *driver, ze_device_handle_t device[2]) {
    loader = dlopen("libze_loader.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!loader) {
        printf("error no loader: %s\n", dlerror());
        exit(1);
    }
    CALL(zeInit, 0);
    simulator = dlopen(getenv("ZE_SIM_LIBRARY"), RTLD_NOW | RTLD_NOLOAD);
    if (!simulator) {
        printf("error the simulator is not loaded: %s\n", dlerror());
        exit(1);
    }
    uint32_t count = 1, devices = 2;
    CALL(zeDriverGet, &count, driver);
    CALL(zeDeviceGet, *driver, &devices, device);
}

#endif
