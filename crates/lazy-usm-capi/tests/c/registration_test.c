/* Host memory registration in a process that has loaded no Level Zero loader yet (a Python
 * program before dpctl or torch): the library loads the one the process would load, by its
 * soname (here the simulator's stand-in, found on LD_LIBRARY_PATH as `lazy-usm sim-env`
 * arranges), so a SYCL runtime loaded later shares it. Prints "ok" and exits 0, or says what
 * failed and exits 1. */
#include "lazy_usm.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

int main(void) {
    if (dlopen("libze_loader.so.1", RTLD_NOLOAD | RTLD_LAZY) != NULL) {
        fprintf(stderr, "the loader is loaded before the first call\n");
        return 1;
    }
    void *buffer = aligned_alloc(4096, 1 << 16);
    if (buffer == NULL) {
        return 1;
    }
    if (lazy_usm_register_host_memory(buffer, 1 << 16) != LAZY_USM_STATUS_OK) {
        fprintf(stderr, "register: %s\n", lazy_usm_last_error());
        return 1;
    }
    if (dlopen("libze_loader.so.1", RTLD_NOLOAD | RTLD_LAZY) == NULL) {
        fprintf(stderr, "registration did not load libze_loader.so.1 by its soname\n");
        return 1;
    }
    if (lazy_usm_unregister_host_memory(buffer) != LAZY_USM_STATUS_OK) {
        fprintf(stderr, "unregister: %s\n", lazy_usm_last_error());
        return 1;
    }
    free(buffer);
    puts("ok");
    return 0;
}
