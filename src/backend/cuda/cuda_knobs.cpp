// Context, queue and kernel knobs on CUDA: stream priorities, context limits, the cache / shared
// memory preference of a context and of a function, the shared memory carveout, the profiler.

#include <cuda.h>

#include <memory>

#include "backend/cuda/cuda_context.hpp"
#include "backend/cuda/cuda_error.hpp"
#include "backend/cuda/cuda_jit_options.hpp"
#include "backend/cuda/cuda_program.hpp"
#include "backend/cuda/cuda_queue.hpp"

namespace kjarni::backend::cuda {

namespace {

CUlimit cu_limit(ContextLimit limit) {
    switch (limit) {
    case ContextLimit::stack_size: return CU_LIMIT_STACK_SIZE;
    case ContextLimit::printf_fifo_size: return CU_LIMIT_PRINTF_FIFO_SIZE;
    case ContextLimit::malloc_heap_size: return CU_LIMIT_MALLOC_HEAP_SIZE;
    }
    return CU_LIMIT_STACK_SIZE;
}

CUfunc_cache cu_cache(CachePreference preference) {
    switch (preference) {
    case CachePreference::none: return CU_FUNC_CACHE_PREFER_NONE;
    case CachePreference::shared: return CU_FUNC_CACHE_PREFER_SHARED;
    case CachePreference::l1: return CU_FUNC_CACHE_PREFER_L1;
    case CachePreference::equal: return CU_FUNC_CACHE_PREFER_EQUAL;
    }
    return CU_FUNC_CACHE_PREFER_NONE;
}

}  // namespace

std::shared_ptr<Queue> CudaContext::create_queue_with(std::size_t device_index, const QueueFlags& flags) {
    return std::make_shared<CudaQueue>(std::static_pointer_cast<CudaContext>(shared_from_this()), device_index, flags);
}

std::pair<int, int> CudaContext::queue_priority_range(std::size_t device_index) const {
    int least = 0;
    int greatest = 0;
    CurrentContext current(driver_, contexts_[device_index]);
    KJARNI_CU(driver_, CtxGetStreamPriorityRange, &least, &greatest);
    return {least, greatest};
}

// Limits belong to the CUcontext: with primary contexts they are shared with every other user of
// the device's primary context in the process (the CUDA runtime, other libraries).
void CudaContext::set_limit(std::size_t device_index, ContextLimit limit, std::size_t value) {
    CurrentContext current(driver_, contexts_[device_index]);
    KJARNI_CU(driver_, CtxSetLimit, cu_limit(limit), value);
}

std::size_t CudaContext::limit(std::size_t device_index, ContextLimit limit) const {
    std::size_t value = 0;
    CurrentContext current(driver_, contexts_[device_index]);
    KJARNI_CU(driver_, CtxGetLimit, &value, cu_limit(limit));
    return value;
}

void CudaContext::set_cache_preference(std::size_t device_index, CachePreference preference) {
    CurrentContext current(driver_, contexts_[device_index]);
    KJARNI_CU(driver_, CtxSetCacheConfig, cu_cache(preference));
}

void CudaContext::profiler(std::size_t device_index, bool start) {
    // The profiler collects for the current context.
    CurrentContext current(driver_, contexts_[device_index]);
    if (start) {
        check(driver_, driver_.ProfilerStart(), "cuProfilerStart");
    } else {
        check(driver_, driver_.ProfilerStop(), "cuProfilerStop");
    }
}

void CudaKernel::set_cache_preference(CachePreference preference) {
    CurrentContext current(driver_, cu_context_);
    KJARNI_CU(driver_, FuncSetCacheConfig, function_, cu_cache(preference));
}

void CudaKernel::set_shared_memory_carveout(int percent) {
    CurrentContext current(driver_, cu_context_);
    KJARNI_CU(driver_, FuncSetAttribute, function_, CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT, percent);
}

void CudaKernel::set_attribute(KernelAttributeId attribute, int value) {
    CurrentContext current(driver_, cu_context_);
    const std::lock_guard lock(attribute_mutex_);
    KJARNI_CU(driver_, FuncSetAttribute, function_, driver_attribute(attribute), value);
    // The launch path raises the limit itself when a launch needs more; it now knows the limit
    // (lowering it makes a later larger launch raise it again).
    if (attribute == KernelAttributeId::max_dynamic_shared_bytes) {
        dynamic_shared_allowed_.store(static_cast<std::size_t>(value), std::memory_order_release);
    }
}

}  // namespace kjarni::backend::cuda
