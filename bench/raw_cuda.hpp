#pragma once
// The raw CUDA driver calls the benchmarks' baselines make, through dlopen'ed libcuda: neither
// kjarni nor the benchmarks link libcuda (machines without a GPU have none). Include only where
// KJARNI_BENCH_RAW_CUDA is defined (cuda.h is available); the target needs ${CMAKE_DL_LIBS}.

#include <cuda.h>
#include <dlfcn.h>

#include <type_traits>

namespace kjarni_bench {

struct RawCuda {
    decltype(&::cuCtxSetCurrent) set_current = nullptr;
    decltype(&::cuStreamSynchronize) synchronize = nullptr;
    decltype(&::cuLaunchKernel) launch = nullptr;
    decltype(&::cuMemAlloc_v2) alloc = nullptr;
    decltype(&::cuMemFree_v2) free = nullptr;
    decltype(&::cuMemAllocAsync) alloc_async = nullptr;
    decltype(&::cuMemFreeAsync) free_async = nullptr;
    decltype(&::cuMemHostAlloc) host_alloc = nullptr;
    decltype(&::cuMemFreeHost) free_host = nullptr;
    decltype(&::cuMemcpyHtoD_v2) copy_to_device = nullptr;
    decltype(&::cuMemcpyDtoH_v2) copy_to_host = nullptr;
    // Optional: nullptr where the driver lacks it (the rest of the table stays usable).
    decltype(&::cuMemcpyPeerAsync) copy_peer_async = nullptr;
    decltype(&::cuEventCreate) event_create = nullptr;
    decltype(&::cuEventRecord) event_record = nullptr;
    decltype(&::cuEventDestroy_v2) event_destroy = nullptr;
    decltype(&::cuModuleLoadData) module_load_data = nullptr;
    decltype(&::cuModuleUnload) module_unload = nullptr;
};

/// The table, loaded once; nullptr when libcuda or any of the functions is missing.
inline const RawCuda* raw_cuda() {
    static const RawCuda table = [] {
        RawCuda t;
        void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
        if (lib == nullptr) return t;
        auto load = [lib](auto& function, const char* name) {
            function = reinterpret_cast<std::remove_reference_t<decltype(function)>>(dlsym(lib, name));
        };
        load(t.set_current, "cuCtxSetCurrent");
        load(t.synchronize, "cuStreamSynchronize");
        load(t.launch, "cuLaunchKernel");
        load(t.alloc, "cuMemAlloc_v2");
        load(t.free, "cuMemFree_v2");
        load(t.alloc_async, "cuMemAllocAsync");
        load(t.free_async, "cuMemFreeAsync");
        load(t.host_alloc, "cuMemHostAlloc");
        load(t.free_host, "cuMemFreeHost");
        load(t.copy_to_device, "cuMemcpyHtoD_v2");
        load(t.copy_to_host, "cuMemcpyDtoH_v2");
        load(t.copy_peer_async, "cuMemcpyPeerAsync");
        load(t.event_create, "cuEventCreate");
        load(t.event_record, "cuEventRecord");
        load(t.event_destroy, "cuEventDestroy_v2");
        load(t.module_load_data, "cuModuleLoadData");
        load(t.module_unload, "cuModuleUnload");
        return t;
    }();
    const bool complete = table.set_current && table.synchronize && table.launch && table.alloc && table.free &&
                          table.alloc_async && table.free_async && table.host_alloc && table.free_host &&
                          table.copy_to_device && table.copy_to_host && table.event_create && table.event_record &&
                          table.event_destroy && table.module_load_data && table.module_unload;
    return complete ? &table : nullptr;
}

}  // namespace kjarni_bench
