// The SYCL side of lazy-usm's PyTorch XPU allocator: the Level Zero objects behind a
// sycl::queue, and barrier events on it. Compiled only with the cargo feature `xpu`, against
// the SYCL headers and libsycl of LAZY_USM_SYCL_ROOT. No exception leaves these functions:
// each returns 0 on success, or a negative code with a message in `message` (when not null).

#include <sycl/sycl.hpp>

#include <cstddef>
#include <cstring>
#include <exception>
#include <memory>
#include <new>

namespace {

void describe(char *message, std::size_t capacity, const char *text) {
    if (message == nullptr || capacity == 0) {
        return;
    }
    std::strncpy(message, text, capacity - 1);
    message[capacity - 1] = '\0';
}

constexpr auto level_zero = sycl::backend::ext_oneapi_level_zero;

}  // namespace

extern "C" {

// The Level Zero context and device behind `queue`, and every device of its context
// (`*device_count` in: the room at `devices`; out: how many the context has).
int lazy_usm_sycl_native(void *queue, void **context, void **device, void **devices,
                        std::size_t *device_count, char *message, std::size_t capacity) {
    try {
        auto &sycl_queue = *static_cast<sycl::queue *>(queue);
        if (sycl_queue.get_backend() != level_zero) {
            describe(message, capacity, "the queue is not on the Level Zero backend");
            return -2;
        }
        auto sycl_context = sycl_queue.get_context();
        *context = sycl::get_native<level_zero>(sycl_context);
        *device = sycl::get_native<level_zero>(sycl_queue.get_device());
        auto all = sycl_context.get_devices();
        std::size_t room = *device_count;
        for (std::size_t index = 0; index < all.size() && index < room; index++) {
            devices[index] = sycl::get_native<level_zero>(all[index]);
        }
        *device_count = all.size();
        return 0;
    } catch (const std::exception &error) {
        describe(message, capacity, error.what());
        return -1;
    } catch (...) {
        describe(message, capacity, "an unknown C++ exception");
        return -1;
    }
}

// A watch on the queue's implementation object, the one identity of a queue that costs no
// reference count to check: its address, and a weak reference that says whether that object
// still lives. A live object keeps its context and device, so a queue whose object is the
// watched one and alive is the queue the watch was made on. A queue freed and another made at
// its address fails the check: its object is another one, or the watched one is expired (its
// memory cannot be reused by another object while the weak reference holds it, or it is
// expired). Null on failure.
namespace {
struct QueueWatch {
    const void *object;
    std::weak_ptr<sycl::detail::queue_impl> weak;
};
}  // namespace

void *lazy_usm_sycl_queue_watch(void *queue) {
    try {
        const auto &object = sycl::detail::getSyclObjImpl(*static_cast<sycl::queue *>(queue));
        return new QueueWatch{object.get(), object};
    } catch (...) {
        return nullptr;
    }
}

// 1 if `queue` is the queue `watch` was made on (see above), 0 if not.
int lazy_usm_sycl_queue_watched(void *queue, const void *watch) {
    const auto *watched = static_cast<const QueueWatch *>(watch);
    const auto &object = sycl::detail::getSyclObjImpl(*static_cast<sycl::queue *>(queue));
    return object.get() == watched->object && !watched->weak.expired() ? 1 : 0;
}

void lazy_usm_sycl_queue_unwatch(void *watch) {
    delete static_cast<QueueWatch *>(watch);
}

// A reference to the queue's context, which keeps it (and the Level Zero context behind it)
// alive until lazy_usm_sycl_context_release. Null on failure.
void *lazy_usm_sycl_context_retain(void *queue) {
    try {
        return new sycl::context(static_cast<sycl::queue *>(queue)->get_context());
    } catch (...) {
        return nullptr;
    }
}

void lazy_usm_sycl_context_release(void *context) {
    delete static_cast<sycl::context *>(context);
}

// 1 if everything submitted to `queue` has completed, 0 if not, negative if SYCL could not
// tell.
int lazy_usm_sycl_queue_idle(void *queue) {
    try {
        return static_cast<sycl::queue *>(queue)->ext_oneapi_empty() ? 1 : 0;
    } catch (...) {
        return -1;
    }
}

// 1 if `queue` runs its work in submission order, 0 if not, negative if SYCL could not tell.
int lazy_usm_sycl_queue_in_order(void *queue) {
    try {
        return static_cast<sycl::queue *>(queue)->is_in_order() ? 1 : 0;
    } catch (...) {
        return -1;
    }
}

// A reference to `queue` that keeps it alive until lazy_usm_sycl_queue_release. Null on
// failure.
void *lazy_usm_sycl_queue_retain(void *queue) {
    try {
        return new sycl::queue(*static_cast<sycl::queue *>(queue));
    } catch (...) {
        return nullptr;
    }
}

void lazy_usm_sycl_queue_release(void *queue) {
    delete static_cast<sycl::queue *>(queue);
}

// 1 if `held` (from lazy_usm_sycl_queue_retain) and `queue` are the same SYCL queue.
int lazy_usm_sycl_queue_same(void *held, void *queue) {
    try {
        return *static_cast<sycl::queue *>(held) == *static_cast<sycl::queue *>(queue) ? 1 : 0;
    } catch (...) {
        return 0;
    }
}

// A barrier on `queue`: an event that completes when everything submitted to the queue before
// it has. Null on failure. Release it with lazy_usm_sycl_event_release.
void *lazy_usm_sycl_barrier(void *queue, char *message, std::size_t capacity) {
    try {
        auto &sycl_queue = *static_cast<sycl::queue *>(queue);
        return new sycl::event(sycl_queue.ext_oneapi_submit_barrier());
    } catch (const std::exception &error) {
        describe(message, capacity, error.what());
        return nullptr;
    } catch (...) {
        describe(message, capacity, "an unknown C++ exception");
        return nullptr;
    }
}

// 1 if the event's work has completed, 0 if not yet, negative if SYCL could not tell.
int lazy_usm_sycl_event_done(void *event) {
    try {
        auto status = static_cast<sycl::event *>(event)
                          ->get_info<sycl::info::event::command_execution_status>();
        return status == sycl::info::event_command_status::complete ? 1 : 0;
    } catch (...) {
        return -1;
    }
}

// Blocks until the event's work has completed; 0, or negative if SYCL failed.
int lazy_usm_sycl_event_wait(void *event) {
    try {
        static_cast<sycl::event *>(event)->wait();
        return 0;
    } catch (...) {
        return -1;
    }
}

void lazy_usm_sycl_event_release(void *event) {
    delete static_cast<sycl::event *>(event);
}

}  // extern "C"
