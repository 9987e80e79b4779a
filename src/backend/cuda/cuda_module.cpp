// LoadedModule (a cuModule loaded from an image, with or without JIT options) and CudaModule (its
// kernels by name, and its program-scope globals and constants).

#include <fmt/format.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "backend/cuda/cuda_buffer.hpp"
#include "backend/cuda/cuda_context.hpp"
#include "backend/cuda/cuda_error.hpp"
#include "backend/cuda/cuda_jit_options.hpp"
#include "backend/cuda/cuda_program.hpp"
#include "backend/cuda/cuda_queue.hpp"
#include "backend/cuda/kernel_param_counts.hpp"
#include "kjarni/error.hpp"

namespace kjarni::backend::cuda {

LoadedModule::LoadedModule(std::shared_ptr<CudaContext> context, std::size_t device_index,
                           std::span<const std::byte> image)
    : context_(std::move(context)), device_index_(device_index), cu_context_(context_->cu_context(device_index)) {
    CurrentContext current(context_->driver(), cu_context_);
    CUmodule module = nullptr;
    KJARNI_CU(context_->driver(), ModuleLoadData, &module, image.data());
    module_ = DriverHandle<CUmodule>(context_->driver(), cu_context_, module);
    read_param_counts(image);
}

void LoadedModule::read_param_counts(std::span<const std::byte> image) {
    // Only a fallback for CudaKernel's parameter list: a driver that counts them itself is asked
    // instead, and reading the image cost 6 us of a 110 us disk-cache hit on the H100.
    if (context_->driver().FuncGetParamCount == nullptr) param_counts_ = kernel_param_counts(image);
}

std::optional<std::size_t> LoadedModule::param_count(std::string_view name) const {
    const auto found = param_counts_.find(name);
    if (found == param_counts_.end()) return std::nullopt;
    return found->second;
}

LoadedModule::LoadedModule(std::shared_ptr<CudaContext> context, std::size_t device_index,
                           std::span<const std::byte> image, const BuildOptions& jit)
    : context_(std::move(context)), device_index_(device_index), cu_context_(context_->cu_context(device_index)) {
    // cuModuleLoadDataEx with the JIT options given and the driver's error log, which says why PTX
    // did not compile.
    JitOptionList options(jit);
    const Driver& driver = context_->driver();
    CurrentContext current(driver, cu_context_);
    CUmodule module = nullptr;
    const CUresult result =
        driver.ModuleLoadDataEx(&module, image.data(), options.size(), options.options(), options.values());
    if (result != CUDA_SUCCESS) {
        const std::string log = options.error_log();
        throw_cuda_error(driver, result, "cuModuleLoadDataEx",
                         log.empty() ? error_description(driver, result)
                                     : error_description(driver, result) + ": " + log);
    }
    report_ = options.report();
    module_ = DriverHandle<CUmodule>(driver, cu_context_, module);
    read_param_counts(image);
}

CudaModule::CudaModule(std::shared_ptr<LoadedModule> module) : module_(std::move(module)) {}

std::shared_ptr<Kernel> CudaModule::kernel(const std::string& name) {
    std::lock_guard lock(mutex_);
    if (auto found = kernels_.find(name); found != kernels_.end()) return found->second;
    const Driver& driver = module_->context()->driver();
    CurrentContext current(driver, module_->cu_context());
    CUfunction function = nullptr;
    const CUresult result = driver.ModuleGetFunction(&function, module_->module(), name.c_str());
    if (result == CUDA_ERROR_NOT_FOUND) return nullptr;
    check(driver, result, "cuModuleGetFunction");
    auto kernel = std::make_shared<CudaKernel>(module_, function, module_->param_count(name));
    kernels_.emplace(name, kernel);
    return kernel;
}

std::vector<std::string> CudaModule::kernel_names() const {
    const Driver& driver = module_->context()->driver();
    std::vector<std::string> names;
    // CUDA 12.4 and later; an older driver cannot list them.
    if (driver.ModuleGetFunctionCount == nullptr || driver.ModuleEnumerateFunctions == nullptr ||
        driver.FuncGetName == nullptr) {
        return names;
    }
    CurrentContext current(driver, module_->cu_context());
    unsigned int count = 0;
    KJARNI_CU(driver, ModuleGetFunctionCount, &count, module_->module());
    std::vector<CUfunction> functions(count);
    if (count > 0) KJARNI_CU(driver, ModuleEnumerateFunctions, functions.data(), count, module_->module());
    names.reserve(count);
    for (CUfunction function : functions) {
        const char* name = nullptr;
        KJARNI_CU(driver, FuncGetName, &name, function);
        names.emplace_back(name != nullptr ? name : "");
    }
    return names;
}

std::optional<std::pair<CUdeviceptr, std::size_t>> CudaModule::find_global(const std::string& name) const {
    const Driver& driver = module_->context()->driver();
    CUdeviceptr address = 0;
    std::size_t size = 0;
    const CUresult result = driver.ModuleGetGlobal(&address, &size, module_->module(), name.c_str());
    if (result == CUDA_ERROR_NOT_FOUND) return std::nullopt;
    check(driver, result, "cuModuleGetGlobal");
    return std::pair{address, size};
}

std::shared_ptr<Buffer> CudaModule::global_buffer(const std::string& name) {
    std::optional<std::pair<CUdeviceptr, std::size_t>> global;
    {
        CurrentContext current(module_->context()->driver(), module_->cu_context());
        global = find_global(name);
    }
    if (!global) return nullptr;
    // The loaded module is the owner: the variable lives as long as the buffer needs it.
    return std::make_shared<CudaBuffer>(module_->context(), module_->device_index(), global->second, global->first,
                                        module_);
}

std::optional<std::size_t> CudaModule::constant_size(const std::string& name) {
    CurrentContext current(module_->context()->driver(), module_->cu_context());
    auto global = find_global(name);
    if (!global) return std::nullopt;
    return global->second;
}

void CudaModule::set_constant(Queue& queue, const std::string& name, const void* host, std::size_t size) {
    auto& cuda_queue = static_cast<CudaQueue&>(queue);
    const Driver& driver = module_->context()->driver();
    CurrentContext current(driver, module_->cu_context());
    auto global = find_global(name);
    if (!global) throw NotFoundError(fmt::format("the module has no constant named {}", name));
    // `host` need only stay valid for this call: the copy completes before returning.
    KJARNI_CU(driver, MemcpyHtoDAsync, global->first, host, size, cuda_queue.stream());
    KJARNI_CU(driver, StreamSynchronize, cuda_queue.stream());
}

void CudaModule::set_constant(Queue& queue, const std::string& name, Buffer& source, std::size_t source_offset,
                              std::size_t size) {
    auto& cuda_queue = static_cast<CudaQueue&>(queue);
    auto& buffer = static_cast<CudaBuffer&>(source);
    const auto& context = module_->context();
    const Driver& driver = context->driver();
    CurrentContext current(driver, module_->cu_context());
    auto global = find_global(name);
    if (!global) throw NotFoundError(fmt::format("the module has no constant named {}", name));
    if (buffer.device_index() == module_->device_index()) {
        KJARNI_CU(driver, MemcpyDtoDAsync, global->first, buffer.at(source_offset), size, cuda_queue.stream());
    } else {
        KJARNI_CU(driver, MemcpyPeerAsync, global->first, module_->cu_context(), buffer.at(source_offset),
                  context->cu_context(buffer.device_index()), size, cuda_queue.stream());
    }
}

}  // namespace kjarni::backend::cuda
