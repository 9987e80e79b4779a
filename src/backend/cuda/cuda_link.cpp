// CudaContext's linking (separately compiled units through the driver's linker, cuLink*) and
// loading (a module from a cubin, fatbin or PTX image: the disk cache's hits).

#include <fmt/format.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "backend/cuda/cuda_context.hpp"
#include "backend/cuda/cuda_device.hpp"
#include "backend/cuda/cuda_error.hpp"
#include "backend/cuda/cuda_jit_options.hpp"
#include "backend/cuda/cuda_program.hpp"
#include "kjarni/error.hpp"

namespace kjarni::backend::cuda {

namespace {

// The driver's linker, destroyed however the link ends (cuLinkComplete's cubin lives in it).
class LinkState {
public:
    LinkState(const Driver& driver, std::vector<CUjit_option>& options, std::vector<void*>& values) : driver_(driver) {
        KJARNI_CU(driver_, LinkCreate, static_cast<unsigned int>(options.size()), options.data(), values.data(),
                  &state_);
    }
    ~LinkState() {
        if (state_ != nullptr) driver_.LinkDestroy(state_);
    }
    LinkState(const LinkState&) = delete;
    LinkState& operator=(const LinkState&) = delete;
    CUlinkState get() const noexcept { return state_; }

private:
    const Driver& driver_;
    CUlinkState state_ = nullptr;
};

CUjitInputType input_type(std::span<const std::byte> code) {
    if (is_elf_image(code)) return CU_JIT_INPUT_CUBIN;
    if (is_fatbin_image(code)) return CU_JIT_INPUT_FATBINARY;
    return CU_JIT_INPUT_PTX;
}

std::string log_text(const std::vector<char>& buffer) {
    std::string text(buffer.data(), strnlen(buffer.data(), buffer.size()));
    while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
    return text;
}

}  // namespace

BuildOutput CudaContext::link(std::size_t device_index, std::span<const LinkUnit> units, const BuildOptions& options) {
    const Device& device = *devices_[device_index];
    // Source units become PTX for the virtual architecture (relocatable: -rdc=true), which the
    // driver's linker compiles for this device together with the other units.
    std::vector<std::vector<std::byte>> inputs;
    std::vector<std::string> compile_log;
    for (const LinkUnit& unit : units) {
        if (!unit.is_source) {
            std::vector<std::byte> code = unit.code;
            if (input_type(code) == CU_JIT_INPUT_PTX && (code.empty() || code.back() != std::byte{0})) {
                code.push_back(std::byte{0});
            }
            inputs.push_back(std::move(code));
            continue;
        }
        inputs.push_back(compile_unit(device_index, unit.source, options));
    }

    std::vector<char> error_log(16384, '\0');
    std::vector<char> info_log(16384, '\0');
    std::vector<CUjit_option> jit = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                                     CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES};
    // Option values travel as pointers holding the number itself.
    std::vector<void*> values = {error_log.data(),
                                 reinterpret_cast<void*>(static_cast<std::uintptr_t>(error_log.size())),
                                 info_log.data(),
                                 reinterpret_cast<void*>(static_cast<std::uintptr_t>(info_log.size()))};
    if (options.jit_max_registers) {
        jit.push_back(CU_JIT_MAX_REGISTERS);
        values.push_back(reinterpret_cast<void*>(static_cast<std::uintptr_t>(*options.jit_max_registers)));
    }
    if (options.jit_optimization_level) {
        jit.push_back(CU_JIT_OPTIMIZATION_LEVEL);
        values.push_back(reinterpret_cast<void*>(static_cast<std::uintptr_t>(*options.jit_optimization_level)));
    }
    const Driver& driver = driver_;
    CurrentContext current(driver, cu_context(device_index));
    LinkState state(driver, jit, values);
    auto fail = [&](CUresult result, const char* call) {
        // A bad unit or an unresolved symbol is the user's: LinkError with the log (the driver
        // writes one whatever code it returns). Anything else (out of memory, no context) is the
        // driver's error as usual.
        std::string log = log_text(error_log);
        const bool bad_input = result == CUDA_ERROR_INVALID_IMAGE || result == CUDA_ERROR_INVALID_PTX ||
                               result == CUDA_ERROR_NO_BINARY_FOR_GPU || result == CUDA_ERROR_UNSUPPORTED_PTX_VERSION ||
                               result == CUDA_ERROR_NOT_FOUND;
        if (!log.empty() || bad_input) {
            if (log.empty()) log = fmt::format("{}: {}", call, error_description(driver, result));
            throw LinkError("CUDA", device.name(), log);
        }
        throw_cuda_error(driver, result, call);
    };
    for (std::size_t i = 0; i < inputs.size(); ++i) {
        const std::string name = fmt::format("unit{}", i);
        const CUresult result = driver.LinkAddData(state.get(), input_type(inputs[i]), inputs[i].data(),
                                                   inputs[i].size(), name.c_str(), 0, nullptr, nullptr);
        if (result != CUDA_SUCCESS) fail(result, "cuLinkAddData");
    }
    void* cubin = nullptr;
    std::size_t cubin_size = 0;
    const CUresult result = driver.LinkComplete(state.get(), &cubin, &cubin_size);
    if (result != CUDA_SUCCESS) fail(result, "cuLinkComplete");

    BuildOutput output;
    output.binary.resize(cubin_size);
    std::memcpy(output.binary.data(), cubin, cubin_size);
    output.log = log_text(info_log);
    output.module = std::make_shared<CudaModule>(
        std::make_shared<LoadedModule>(std::static_pointer_cast<CudaContext>(shared_from_this()), device_index,
                                       std::span<const std::byte>(output.binary)));
    return output;
}

std::shared_ptr<Module> CudaContext::load(std::size_t device_index, std::span<const std::byte> binary,
                                          const BuildOptions& options) {
    if (!is_loadable_image(binary)) {
        throw BackendError("CUDA", "cuModuleLoadData", static_cast<std::int64_t>(CUDA_ERROR_INVALID_IMAGE),
                           "CUDA_ERROR_INVALID_IMAGE", "not a complete cubin or NUL-terminated PTX image");
    }
    // The driver reads ELF and fatbin headers in place, so it may want them aligned, and the span
    // may point anywhere: an image not aligned as operator new aligns (what every vector and
    // disk-cache payload has) is copied into memory that is. The driver does not keep the pointer
    // (the copy used to die on return), so an aligned image is passed as it is.
    std::vector<std::byte> aligned_copy;
    std::span<const std::byte> image = binary;
    if (reinterpret_cast<std::uintptr_t>(binary.data()) % alignof(std::max_align_t) != 0) {
        aligned_copy.assign(binary.begin(), binary.end());
        image = aligned_copy;
    }
    auto self = std::static_pointer_cast<CudaContext>(shared_from_this());
    // A cubin or fatbin without JIT options (every disk-cache hit) is loaded as the raw driver call
    // would be: cuModuleLoadDataEx's error log is for PTX, which the driver compiles.
    if (is_binary_image(image) && !options.jit_max_registers && !options.jit_optimization_level && !options.jit.any())
        return std::make_shared<CudaModule>(std::make_shared<LoadedModule>(std::move(self), device_index, image));
    return std::make_shared<CudaModule>(std::make_shared<LoadedModule>(std::move(self), device_index, image, options));
}

}  // namespace kjarni::backend::cuda
