// CudaKernel: a function of a loaded module, its attributes, and its launch (the hot path).

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>

#include "backend/cuda/cuda_buffer.hpp"
#include "backend/cuda/cuda_context.hpp"
#include "backend/cuda/cuda_error.hpp"
#include "backend/cuda/cuda_program.hpp"
#include "backend/cuda/cuda_queue.hpp"
#include "kjarni/error.hpp"

namespace kjarni::backend::cuda {

namespace {

/// Launches with more arguments than this use the heap for their parameter arrays.
constexpr std::size_t inline_args = 64;
/// The dynamic shared memory every function may use without opting in.
constexpr std::size_t default_dynamic_shared = 48 * 1024;

std::size_t attribute_size(int value) { return value > 0 ? static_cast<std::size_t>(value) : 0; }

}  // namespace

CudaKernel::CudaKernel(std::shared_ptr<LoadedModule> module, CUfunction function,
                       std::optional<std::size_t> image_param_count)
    : module_(std::move(module)), driver_(module_->context()->driver()), cu_context_(module_->cu_context()),
      function_(function), dynamic_shared_allowed_(default_dynamic_shared) {
    CurrentContext current(driver_, cu_context_);
    const auto attribute = [this](CUfunction_attribute which) {
        int value = 0;
        KJARNI_CU(driver_, FuncGetAttribute, &value, which, function_);
        return attribute_size(value);
    };
    attributes_.max_total_local_size = attribute(CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
    attributes_.registers = attribute(CU_FUNC_ATTRIBUTE_NUM_REGS);
    attributes_.shared_bytes = attribute(CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES);
    attributes_.const_bytes = attribute(CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES);
    attributes_.local_bytes = attribute(CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES);
    attributes_.ptx_version = static_cast<int>(attribute(CU_FUNC_ATTRIBUTE_PTX_VERSION));
    attributes_.binary_version = static_cast<int>(attribute(CU_FUNC_ATTRIBUTE_BINARY_VERSION));
    attributes_.cache_mode_ca = attribute(CU_FUNC_ATTRIBUTE_CACHE_MODE_CA) != 0;
    int optin = 0;
    KJARNI_CU(driver_, DeviceGetAttribute, &optin, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
              module_->context()->cu_device(module_->device_index()));
    attributes_.max_dynamic_local_bytes =
        attribute_size(optin) - std::min(attribute_size(optin), attributes_.shared_bytes);
    attributes_.preferred_local_size_multiple =
        module_->context()->devices()[module_->device_index()]->params().warp_size;

    // How many parameters there are: cuFuncGetParamInfo answers CUDA_ERROR_INVALID_VALUE past the
    // last one, and an error provoked in normal operation is one a user's compute-sanitizer run
    // would report, so the count comes first, from the driver or else from the image.
    std::optional<std::size_t> count;
    if (driver_.FuncGetParamCount != nullptr) {
        std::size_t driver_count = 0;
        if (driver_.FuncGetParamCount(function_, &driver_count) == CUDA_SUCCESS) count = driver_count;
    }
    if (!count) count = image_param_count;
    if (count && driver_.FuncGetParamInfo != nullptr) {
        params_.reserve(*count);
        for (std::size_t index = 0; index < *count; ++index) {
            std::size_t offset = 0;
            std::size_t size = 0;
            if (driver_.FuncGetParamInfo(function_, index, &offset, &size) != CUDA_SUCCESS) {
                // A refusal within the count: the list would be incomplete, so report none.
                params_.clear();
                break;
            }
            ParamInfo param;
            // A pointer and an 8-byte scalar look the same from here.
            param.kind = size == 8 ? ParamInfo::Kind::unknown : ParamInfo::Kind::scalar;
            param.size = size;
            params_.push_back(std::move(param));
        }
    }
}

void CudaKernel::allow_dynamic_shared(std::size_t bytes) {
    std::lock_guard lock(attribute_mutex_);
    if (bytes <= dynamic_shared_allowed_.load(std::memory_order_relaxed)) return;
    CurrentContext current(driver_, cu_context_);
    // The limit only grows: a launch with less keeps working.
    KJARNI_CU(driver_, FuncSetAttribute, function_, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
              static_cast<int>(bytes));
    dynamic_shared_allowed_.store(bytes, std::memory_order_release);
}

namespace {

/// The kernel parameters of `args`: params[i] points at argument i's value. Buffer arguments become
/// device addresses, kept in pointers[i] for the duration of the call (cuLaunchKernel copies them).
void fill_params(std::span<const KernelArg> args, void** params, CUdeviceptr* pointers) noexcept {
    for (std::size_t i = 0; i < args.size(); ++i) {
        const KernelArg& arg = args[i];
        if (arg.kind == KernelArg::Kind::buffer) {
            pointers[i] = arg.buffer != nullptr ? static_cast<CudaBuffer*>(arg.buffer)->at(arg.offset) : 0;
            params[i] = &pointers[i];
        } else if (arg.kind == KernelArg::Kind::shared_pointer) {
            // Managed memory: the host address is the device address (unified addressing).
            pointers[i] = reinterpret_cast<CUdeviceptr>(arg.pointer);
            params[i] = &pointers[i];
        } else {
            // The driver only reads it: a struct's bytes where they are the caller's, else the copy.
            const void* value = arg.bytes != nullptr ? arg.bytes : static_cast<const void*>(arg.scalar);
            params[i] = const_cast<void*>(value);
        }
    }
}

}  // namespace

inline std::shared_ptr<Event> CudaKernel::launch_params(Queue& queue, unsigned dims, const std::size_t* global_size,
                                                        const std::size_t* local_size, std::size_t dynamic_local_mem,
                                                        void** params, bool want_event) {
    auto& cuda_queue = static_cast<CudaQueue&>(queue);
    std::array<unsigned int, 3> grid = {1, 1, 1};
    std::array<unsigned int, 3> block = {1, 1, 1};
    for (unsigned d = 0; d < dims && d < 3; ++d) {
        block[d] = static_cast<unsigned int>(local_size[d]);
        // A 32-bit division where the total fits (always but for grids of over 2^32 work items):
        // the 64-bit one takes several times as long, on every launch.
        grid[d] = global_size[d] >> 32 == 0 ? static_cast<unsigned int>(global_size[d]) / block[d]
                                            : static_cast<unsigned int>(global_size[d] / local_size[d]);
    }
    if (dynamic_local_mem > dynamic_shared_allowed_.load(std::memory_order_acquire)) {
        allow_dynamic_shared(dynamic_local_mem);
    }
    const auto launch_now = [&] {
        return driver_.LaunchKernel(function_, grid[0], grid[1], grid[2], block[0], block[1], block[2],
                                    static_cast<unsigned int>(dynamic_local_mem), cuda_queue.stream(), params, nullptr);
    };
    if (!want_event) {
        // A function launched on a stream of its own context runs there whichever context the
        // thread has current (seen with driver 580 on an H200, and tested by
        // CudaPrograms.LaunchesRunWhicheverContextIsCurrent), so the usual launch skips making
        // ours current: cuCtxGetCurrent alone costs ~10 ns a call there, 0.3% of a launch. A
        // launch the driver refuses (a wrapped null stream, which stands for the current
        // context's) is made again below, with our context current, which reports the error.
        if (launch_now() == CUDA_SUCCESS) [[likely]]
            return nullptr;
    }
    CurrentContext current(driver_, cu_context_);
    check(driver_, launch_now(), "cuLaunchKernel");
    if (!want_event) return nullptr;
    return cuda_queue.record_event_while_current();
}

std::shared_ptr<Event> CudaKernel::launch(Queue& queue, unsigned dims, const std::size_t* global_size,
                                          const std::size_t* local_size, std::size_t dynamic_local_mem,
                                          std::span<const KernelArg> args, bool want_event) {
    // The hot path: no allocation for up to inline_args arguments, no look-up, no string. Longer
    // lists go to launch_many, so that this frame holds no heap arrays to set up and destroy.
    if (args.size() > inline_args) {
        return launch_many(queue, dims, global_size, local_size, dynamic_local_mem, args, want_event);
    }
    std::array<void*, inline_args> params;
    std::array<CUdeviceptr, inline_args> pointers;
    fill_params(args, params.data(), pointers.data());
    return launch_params(queue, dims, global_size, local_size, dynamic_local_mem,
                         args.empty() ? nullptr : params.data(), want_event);
}

std::shared_ptr<Event> CudaKernel::launch_many(Queue& queue, unsigned dims, const std::size_t* global_size,
                                               const std::size_t* local_size, std::size_t dynamic_local_mem,
                                               std::span<const KernelArg> args, bool want_event) {
    const auto params = std::make_unique_for_overwrite<void*[]>(args.size());
    const auto pointers = std::make_unique_for_overwrite<CUdeviceptr[]>(args.size());
    fill_params(args, params.get(), pointers.get());
    return launch_params(queue, dims, global_size, local_size, dynamic_local_mem, params.get(), want_event);
}

}  // namespace kjarni::backend::cuda
