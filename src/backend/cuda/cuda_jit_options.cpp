#include "backend/cuda/cuda_jit_options.hpp"

#include <algorithm>
#include <cstring>

namespace kjarni::backend::cuda {

CUfunction_attribute driver_attribute(KernelAttributeId attribute) noexcept {
    switch (attribute) {
    case KernelAttributeId::max_dynamic_shared_bytes: return CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES;
    case KernelAttributeId::preferred_shared_memory_carveout: return CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT;
    case KernelAttributeId::required_cluster_width: return CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH;
    case KernelAttributeId::required_cluster_height: return CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT;
    case KernelAttributeId::required_cluster_depth: return CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH;
    case KernelAttributeId::non_portable_cluster_size_allowed:
        return CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED;
    case KernelAttributeId::cluster_scheduling_policy_preference:
        return CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE;
    }
    return CU_FUNC_ATTRIBUTE_MAX;
}

JitOptionList::JitOptionList(const BuildOptions& options)
    : error_log_(std::max<std::size_t>(options.jit.error_log_bytes, 1), '\0'),
      info_log_(options.jit.info_log_bytes, '\0') {
    // Option values travel in the pointer slots, numbers as the pointer's bits; the driver writes
    // its outputs (wall time, log lengths, threads per block) back into the same slots.
    add(CU_JIT_ERROR_LOG_BUFFER, error_log_.data());
    add_number(CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES, error_log_.size());
    if (!info_log_.empty()) {
        add(CU_JIT_INFO_LOG_BUFFER, info_log_.data());
        add_number(CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES, info_log_.size());
    }
    if (options.jit.log_verbose) add_number(CU_JIT_LOG_VERBOSE, 1);
    add_number(CU_JIT_WALL_TIME, 0);
    if (options.jit_max_registers) add_number(CU_JIT_MAX_REGISTERS, *options.jit_max_registers);
    if (options.jit_optimization_level) add_number(CU_JIT_OPTIMIZATION_LEVEL, *options.jit_optimization_level);
    if (options.jit.threads_per_block) add_number(CU_JIT_THREADS_PER_BLOCK, *options.jit.threads_per_block);
    if (options.jit.fallback) {
        const CUjit_fallback fallback =
            *options.jit.fallback == JitFallback::prefer_ptx ? CU_PREFER_PTX : CU_PREFER_BINARY;
        add_number(CU_JIT_FALLBACK_STRATEGY, static_cast<std::uintptr_t>(fallback));
    }
    if (options.jit.cache_mode) {
        CUjit_cacheMode mode = CU_JIT_CACHE_OPTION_NONE;
        if (*options.jit.cache_mode == JitCacheMode::global_l2) mode = CU_JIT_CACHE_OPTION_CG;
        if (*options.jit.cache_mode == JitCacheMode::global_l1) mode = CU_JIT_CACHE_OPTION_CA;
        add_number(CU_JIT_CACHE_MODE, static_cast<std::uintptr_t>(mode));
    }
}

void JitOptionList::add(CUjit_option option, void* value) {
    options_.push_back(option);
    values_.push_back(value);
}

std::optional<std::uintptr_t> JitOptionList::value(CUjit_option option) const noexcept {
    for (std::size_t i = 0; i < options_.size(); ++i) {
        if (options_[i] == option) return reinterpret_cast<std::uintptr_t>(values_[i]);
    }
    return std::nullopt;
}

std::string JitOptionList::log(const std::vector<char>& buffer, CUjit_option size_option) const {
    if (buffer.empty()) return {};
    // The driver writes back how many bytes it used (terminator included); never trust it past the
    // buffer.
    std::size_t used = buffer.size();
    if (const auto written = value(size_option)) used = std::min<std::size_t>(used, static_cast<unsigned>(*written));
    const std::size_t length = ::strnlen(buffer.data(), used);
    return std::string(buffer.data(), length);
}

std::string JitOptionList::error_log() const { return log(error_log_, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES); }

JitReport JitOptionList::report() const {
    JitReport report;
    // CU_JIT_WALL_TIME: a float written into the slot's first bytes.
    for (std::size_t i = 0; i < options_.size(); ++i) {
        if (options_[i] == CU_JIT_WALL_TIME) std::memcpy(&report.wall_time_ms, &values_[i], sizeof(float));
    }
    report.error_log = error_log();
    report.info_log = log(info_log_, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES);
    if (const auto threads = value(CU_JIT_THREADS_PER_BLOCK))
        report.threads_per_block = static_cast<unsigned>(*threads);
    return report;
}

}  // namespace kjarni::backend::cuda
