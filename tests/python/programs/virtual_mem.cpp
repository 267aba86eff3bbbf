// SYCL's virtual-memory extension (what PyTorch's expandable segments use) on two GPUs: device
// 0's physical memory mapped into a reserved range, written on device 0, read on device 1.
// Prints "RESULT {json}" with the simulator's pinned bytes after each step, whether the bytes
// arrived, and what went wrong if the peer's read was refused.
#include <sycl/sycl.hpp>

#include <dlfcn.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace syclex = sycl::ext::oneapi::experimental;

static std::uint64_t pinned() {
    void *simulator = dlopen(std::getenv("ZE_SIM_LIBRARY"), RTLD_NOW | RTLD_NOLOAD);
    if (simulator == nullptr) {
        return ~0ull;
    }
    auto function = reinterpret_cast<std::uint64_t (*)()>(dlsym(simulator, "zesim_host_pinned_bytes"));
    return function ? function() : ~0ull;
}

int main() {
    auto devices = sycl::platform(sycl::gpu_selector_v).get_devices();
    if (devices.size() < 2) {
        std::printf("RESULT {\"error\": \"fewer than two GPUs\"}\n");
        return 1;
    }
    sycl::context context({devices[0], devices[1]});
    sycl::queue owner(context, devices[0]), peer(context, devices[1]);
    std::size_t granularity =
        syclex::get_mem_granularity(devices[0], context, syclex::granularity_mode::recommended);
    std::size_t size = ((std::size_t(1) << 20) + granularity - 1) / granularity * granularity;
    std::uintptr_t range = syclex::reserve_virtual_mem(size, context);
    syclex::physical_mem physical(devices[0], context, size);
    void *mapped = physical.map(range, size, syclex::address_access_mode::read_write);
    std::vector<std::uint32_t> host(1024), back(1024, 0);
    for (std::size_t i = 0; i < host.size(); i++) {
        host[i] = static_cast<std::uint32_t>(i * 7 + 1);
    }
    owner.memcpy(mapped, host.data(), host.size() * 4).wait();
    std::uint64_t before = pinned();
    std::string error;
    try {
        peer.memcpy(back.data(), mapped, back.size() * 4).wait();
    } catch (const sycl::exception &refused) {
        error = refused.what();
    }
    std::uint64_t after = pinned();
    syclex::unmap(mapped, size, context);
    std::uint64_t unmapped = pinned();
    syclex::free_virtual_mem(range, size, context);
    std::printf("RESULT {\"size\": %zu, \"before\": %llu, \"after\": %llu, \"unmapped\": %llu, "
                "\"bytes_match\": %s, \"refused\": %s}\n",
                size, (unsigned long long)before, (unsigned long long)after,
                (unsigned long long)unmapped, back == host ? "true" : "false",
                error.empty() ? "false" : "true");
    return 0;
}
