/* Intel MPI's GPU path on device memory, as a GPU-aware MPI program writes it: each rank takes
 * the GPU of its rank, fills a device buffer through Level Zero, sends it to the next rank
 * (MPI_Sendrecv around a ring), and all-reduces two more device buffers (MPI_Allreduce,
 * summed): one of MPI_UINT32_T, which Intel MPI 2021.18 reduces on the host, and one of
 * MPI_INT, which it reduces with a kernel of its own (its coll.spv has int, float, double and
 * long long sums). The received and reduced bytes are copied back to the host and checked. Prints one line per
 * rank: "rank R ok" or what was wrong; exits 1 on any wrong byte.
 *
 * Built with Intel MPI's mpicc against the Level Zero headers; run under mpiexec with
 * I_MPI_OFFLOAD=1, as Intel MPI's documentation says to enable GPU buffers. */
#include <level_zero/ze_api.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(call)                                                                         \
    do {                                                                                    \
        ze_result_t result_ = (call);                                                       \
        if (result_ != ZE_RESULT_SUCCESS) {                                                 \
            fprintf(stderr, "rank %d: %s failed: 0x%x\n", rank, #call, (unsigned)result_);  \
            MPI_Abort(MPI_COMM_WORLD, 2);                                                   \
        }                                                                                   \
    } while (0)

static int rank;

int main(int argc, char **argv) {
    size_t count = argc > 1 ? strtoull(argv[1], NULL, 10) : (1u << 20);
    MPI_Init(&argc, &argv);
    int size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    CHECK(zeInit(ZE_INIT_FLAG_GPU_ONLY));
    uint32_t drivers = 1;
    ze_driver_handle_t driver;
    CHECK(zeDriverGet(&drivers, &driver));
    uint32_t devices = 0;
    CHECK(zeDeviceGet(driver, &devices, NULL));
    ze_device_handle_t *all = calloc(devices, sizeof *all);
    CHECK(zeDeviceGet(driver, &devices, all));
    ze_device_handle_t device = all[rank % devices];
    ze_context_desc_t context_desc = {ZE_STRUCTURE_TYPE_CONTEXT_DESC, NULL, 0};
    ze_context_handle_t context;
    CHECK(zeContextCreate(driver, &context_desc, &context));
    ze_command_queue_desc_t queue_desc = {ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC, NULL, 0, 0, 0,
                                          ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS,
                                          ZE_COMMAND_QUEUE_PRIORITY_NORMAL};
    ze_command_list_handle_t list;
    CHECK(zeCommandListCreateImmediate(context, device, &queue_desc, &list));

    size_t bytes = count * sizeof(uint32_t);
    ze_device_mem_alloc_desc_t device_desc = {ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC, NULL, 0, 0};
    void *send = NULL, *receive = NULL, *reduce = NULL, *reduce_int = NULL;
    CHECK(zeMemAllocDevice(context, &device_desc, bytes, 64, device, &send));
    CHECK(zeMemAllocDevice(context, &device_desc, bytes, 64, device, &receive));
    CHECK(zeMemAllocDevice(context, &device_desc, bytes, 64, device, &reduce));
    CHECK(zeMemAllocDevice(context, &device_desc, bytes, 64, device, &reduce_int));
    uint32_t *host = malloc(bytes);
    for (size_t i = 0; i < count; i++) host[i] = (uint32_t)(rank * 1000003u + i);
    CHECK(zeCommandListAppendMemoryCopy(list, send, host, bytes, NULL, 0, NULL));
    for (size_t i = 0; i < count; i++) host[i] = (uint32_t)(rank + 1) * (uint32_t)(i % 97);
    CHECK(zeCommandListAppendMemoryCopy(list, reduce, host, bytes, NULL, 0, NULL));
    int32_t *signed_host = (int32_t *)host;
    for (size_t i = 0; i < count; i++) signed_host[i] = (rank + 1) * ((int32_t)(i % 89) - 44);
    CHECK(zeCommandListAppendMemoryCopy(list, reduce_int, host, bytes, NULL, 0, NULL));

    int next = (rank + 1) % size, previous = (rank + size - 1) % size;
    MPI_Sendrecv(send, (int)count, MPI_UINT32_T, next, 7, receive, (int)count, MPI_UINT32_T,
                 previous, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Allreduce(MPI_IN_PLACE, reduce, (int)count, MPI_UINT32_T, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, reduce_int, (int)count, MPI_INT, MPI_SUM, MPI_COMM_WORLD);

    size_t wrong = 0;
    CHECK(zeCommandListAppendMemoryCopy(list, host, receive, bytes, NULL, 0, NULL));
    for (size_t i = 0; i < count; i++)
        wrong += host[i] != (uint32_t)(previous * 1000003u + i);
    CHECK(zeCommandListAppendMemoryCopy(list, host, reduce, bytes, NULL, 0, NULL));
    uint32_t ranks_sum = (uint32_t)(size * (size + 1) / 2);
    for (size_t i = 0; i < count; i++) wrong += host[i] != ranks_sum * (uint32_t)(i % 97);
    CHECK(zeCommandListAppendMemoryCopy(list, host, reduce_int, bytes, NULL, 0, NULL));
    for (size_t i = 0; i < count; i++)
        wrong += signed_host[i] != (int32_t)ranks_sum * ((int32_t)(i % 89) - 44);
    if (wrong)
        printf("rank %d: %zu wrong values\n", rank, wrong);
    else
        printf("rank %d ok\n", rank);
    fflush(stdout);

    CHECK(zeMemFree(context, send));
    CHECK(zeMemFree(context, receive));
    CHECK(zeMemFree(context, reduce));
    CHECK(zeMemFree(context, reduce_int));
    CHECK(zeCommandListDestroy(list));
    CHECK(zeContextDestroy(context));
    free(host);
    free(all);
    int any_wrong = wrong != 0, total = 0;
    MPI_Allreduce(&any_wrong, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Finalize();
    return total ? 1 : 0;
}
