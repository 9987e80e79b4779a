// CUDA driver calls for DLPack's stream ordering (see cuda_interop.hpp).
#include "cuda_interop.hpp"

#include <dlfcn.h>

#include <string>

#include <kjarni/error.hpp>

namespace kjarni::python::cuda {

namespace {

using CUresult = int;
using CUcontext = void*;
using CUevent = void*;
using CUstream = void*;
constexpr unsigned event_disable_timing = 0x2;

struct Driver {
    CUresult (*ctx_push)(CUcontext) = nullptr;
    CUresult (*ctx_pop)(CUcontext*) = nullptr;
    CUresult (*event_create)(CUevent*, unsigned) = nullptr;
    CUresult (*event_record)(CUevent, CUstream) = nullptr;
    CUresult (*event_destroy)(CUevent) = nullptr;
    CUresult (*stream_wait_event)(CUstream, CUevent, unsigned) = nullptr;
};

template <class F>
void load(void* library, F& f, const char* name) {
    f = reinterpret_cast<F>(dlsym(library, name));
    if (f == nullptr) throw ApiUnavailableError(std::string("libcuda.so.1 has no ") + name);
}

const Driver& driver() {
    static const Driver d = [] {
        void* library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
        if (library == nullptr)
            throw ApiUnavailableError("libcuda.so.1 could not be loaded for DLPack's stream ordering");
        Driver out;
        load(library, out.ctx_push, "cuCtxPushCurrent_v2");
        load(library, out.ctx_pop, "cuCtxPopCurrent_v2");
        load(library, out.event_create, "cuEventCreate");
        load(library, out.event_record, "cuEventRecord");
        load(library, out.event_destroy, "cuEventDestroy_v2");
        load(library, out.stream_wait_event, "cuStreamWaitEvent");
        return out;
    }();
    return d;
}

void check(CUresult result, const char* call) {
    if (result != 0) throw BackendError("CUDA", call, result, "CUresult " + std::to_string(result));
}

// `waiter` waits for what `recorded` has enqueued so far, in the context of `queue`'s device.
void order(const Queue& queue, CUstream recorded, CUstream waiter) {
    if (recorded == waiter) return;
    const Driver& d = driver();
    const auto context = reinterpret_cast<CUcontext>(queue.device().context().native_handle(queue.device().index()));
    check(d.ctx_push(context), "cuCtxPushCurrent");
    CUevent event = nullptr;
    CUresult result = d.event_create(&event, event_disable_timing);
    if (result == 0) result = d.event_record(event, recorded);
    if (result == 0) result = d.stream_wait_event(waiter, event, 0);
    if (event != nullptr) d.event_destroy(event);  // released once the wait has been satisfied
    CUcontext popped = nullptr;
    d.ctx_pop(&popped);
    check(result, "cuEventRecord / cuStreamWaitEvent");
}

}  // namespace

void order_stream_after(const Queue& queue, std::uintptr_t stream) {
    order(queue, reinterpret_cast<CUstream>(queue.native_handle()), reinterpret_cast<CUstream>(stream));
}

void order_queue_after(const Queue& queue, std::uintptr_t stream) {
    order(queue, reinterpret_cast<CUstream>(stream), reinterpret_cast<CUstream>(queue.native_handle()));
}

}  // namespace kjarni::python::cuda
