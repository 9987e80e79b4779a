#include "backend/cuda/cuda_program.hpp"
#include "backend/cuda/cuda_jit_options.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <fstream>

#include "backend/cuda/cuda_buffer.hpp"
#include "backend/cuda/cuda_context.hpp"
#include "backend/cuda/cuda_device.hpp"
#include "backend/cuda/cuda_error.hpp"
#include "backend/cuda/cuda_queue.hpp"
#include "backend/cuda/kernel_param_counts.hpp"
#include "backend/cuda/nvrtc_library.hpp"
#include "kjarni/error.hpp"

namespace kjarni::backend::cuda {

namespace {

/// Launches with more arguments than this use the heap for their parameter arrays.
constexpr std::size_t inline_args = 64;
/// The dynamic shared memory every function may use without opting in.
constexpr std::size_t default_dynamic_shared = 48 * 1024;
/// Bumped whenever kjarni's own compiler options (or how it picks the target) change: part of
/// compiler_identity, so that cached binaries of an older kjarni are not reused.
constexpr int build_recipe_version = 1;

std::size_t to_size(int value) { return value > 0 ? static_cast<std::size_t>(value) : 0; }

// ---- ELF checks (for is_loadable_image) ---------------------------------------------------------

template <class T>
T read_le(std::span<const std::byte> bytes, std::size_t offset) noexcept {
    // Cubins are little-endian, like every host CUDA runs on.
    T value{};
    std::memcpy(&value, bytes.data() + offset, sizeof value);
    return value;
}

bool fits(std::uint64_t offset, std::uint64_t length, std::size_t size) noexcept {
    return offset <= size && length <= size - offset;
}

bool is_complete_elf64(std::span<const std::byte> image) noexcept {
    constexpr std::size_t header_size = 64;
    if (image.size() < header_size) return false;
    // e_ident: class ELFCLASS64 (2), data ELFDATA2LSB (1).
    if (std::to_integer<int>(image[4]) != 2 || std::to_integer<int>(image[5]) != 1) return false;
    const auto phoff = read_le<std::uint64_t>(image, 32);
    const auto shoff = read_le<std::uint64_t>(image, 40);
    const auto phentsize = read_le<std::uint16_t>(image, 54);
    const auto phnum = read_le<std::uint16_t>(image, 56);
    const auto shentsize = read_le<std::uint16_t>(image, 58);
    const auto shnum = read_le<std::uint16_t>(image, 60);
    if (phnum > 0 && (phentsize < 40 || !fits(phoff, std::uint64_t{phentsize} * phnum, image.size()))) return false;
    if (shnum > 0 && (shentsize < 40 || !fits(shoff, std::uint64_t{shentsize} * shnum, image.size()))) return false;
    for (std::size_t i = 0; i < phnum; ++i) {
        const std::size_t entry = static_cast<std::size_t>(phoff) + i * phentsize;
        if (!fits(read_le<std::uint64_t>(image, entry + 8), read_le<std::uint64_t>(image, entry + 32), image.size())) {
            return false;
        }
    }
    constexpr std::uint32_t sht_nobits = 8;  // occupies no space in the file (.bss, .nv.shared...)
    for (std::size_t i = 0; i < shnum; ++i) {
        const std::size_t entry = static_cast<std::size_t>(shoff) + i * shentsize;
        if (read_le<std::uint32_t>(image, entry + 4) == sht_nobits) continue;
        if (!fits(read_le<std::uint64_t>(image, entry + 24), read_le<std::uint64_t>(image, entry + 32), image.size())) {
            return false;
        }
    }
    return true;
}

// A fatbin (several cubins and PTX in one file, as nvcc -fatbin writes): its header says how long
// it is. Layout: u32 magic 0xBA55ED50, u16 version, u16 header size, u64 size of what follows.
constexpr std::uint32_t fatbin_magic = 0xBA55ED50;

bool is_complete_fatbin(std::span<const std::byte> image) noexcept {
    constexpr std::size_t header_size = 16;
    if (image.size() < header_size || read_le<std::uint32_t>(image, 0) != fatbin_magic) return false;
    const auto declared_header = read_le<std::uint16_t>(image, 6);
    const auto body = read_le<std::uint64_t>(image, 8);
    return declared_header >= header_size && fits(declared_header, body, image.size());
}

void write_file(const std::filesystem::path& path, std::string_view contents) {
    std::ofstream file(path, std::ios::binary | std::ios::trunc);
    file.write(contents.data(), static_cast<std::streamsize>(contents.size()));
    file.close();
    if (!file) throw Error(fmt::format("could not write {}", path.string()));
}

const NvrtcLibrary& nvrtc_or_throw() {
    std::string why_not;
    const NvrtcLibrary* nvrtc = nvrtc_library(&why_not);
    if (nvrtc == nullptr) throw ApiUnavailableError("CUDA programs need NVRTC: " + why_not);
    return *nvrtc;
}

/// What build() compiles for on one device.
struct Target {
    int device_architecture = 0;  // XY of the device's compute capability
    int architecture = 0;         // XY compiled for
    /// True: a cubin for sm_<architecture>. False: PTX for compute_<architecture>, which the driver
    /// compiles when loading (no cubin of an older major version runs on a newer device).
    bool cubin = true;
};

// An explicit "sm_XY" / "compute_XY" (ProgramOptions::arch).
Target explicit_target(const std::string& arch, const Device& device) {
    Target target;
    const auto& cc = device.properties().compute_capability;
    target.device_architecture = cc ? cc->major * 10 + cc->minor : 0;
    const bool cubin = arch.starts_with("sm_");
    const std::string digits = arch.substr(arch.find('_') + 1);
    const bool numeric = !digits.empty() && digits.size() <= 4 &&
                         std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; });
    if ((!cubin && !arch.starts_with("compute_")) || !numeric) {
        throw ArgumentError("arch", fmt::format("'{}' is not sm_XY or compute_XY", arch));
    }
    target.architecture = std::stoi(digits);
    target.cubin = cubin;
    return target;
}

Target choose_target(const NvrtcLibrary& nvrtc, const Device& device) {
    Target target;
    const auto& cc = device.properties().compute_capability;
    if (!cc) throw UnsupportedError(fmt::format("{}: its compute capability is unknown", device.name()));
    target.device_architecture = cc->major * 10 + cc->minor;
    target.architecture = nvrtc.best_architecture(target.device_architecture);
    if (target.architecture == 0) {
        throw UnsupportedError(fmt::format("NVRTC {} cannot compile for {} (sm_{}): its oldest architecture is newer",
                                           nvrtc.version(), device.name(), target.device_architecture));
    }
    // A cubin runs on devices of its major version with an equal or higher minor version.
    target.cubin = target.architecture / 10 == target.device_architecture / 10;
    return target;
}

}  // namespace

bool is_binary_image(std::span<const std::byte> image) noexcept {
    static constexpr std::array<unsigned char, 4> elf_magic = {0x7f, 'E', 'L', 'F'};
    if (image.size() >= elf_magic.size() && std::memcmp(image.data(), elf_magic.data(), elf_magic.size()) == 0) {
        return true;
    }
    return image.size() >= 4 && read_le<std::uint32_t>(image, 0) == fatbin_magic;
}

bool is_loadable_image(std::span<const std::byte> image) noexcept {
    static constexpr std::array<unsigned char, 4> elf_magic = {0x7f, 'E', 'L', 'F'};
    if (image.size() >= elf_magic.size() && std::memcmp(image.data(), elf_magic.data(), elf_magic.size()) == 0) {
        return is_complete_elf64(image);
    }
    if (image.size() >= 4 && read_le<std::uint32_t>(image, 0) == fatbin_magic) return is_complete_fatbin(image);
    // PTX: text the driver reads up to its NUL.
    return !image.empty() && std::to_integer<int>(image.back()) == 0;
}

// ---- LoadedModule -------------------------------------------------------------------------------

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
                         log.empty() ? error_description(driver, result) : error_description(driver, result) + ": " + log);
    }
    report_ = options.report();
    module_ = DriverHandle<CUmodule>(driver, cu_context_, module);
    read_param_counts(image);
}

// ---- CudaKernel ---------------------------------------------------------------------------------

CudaKernel::CudaKernel(std::shared_ptr<LoadedModule> module, CUfunction function,
                       std::optional<std::size_t> image_param_count)
    : module_(std::move(module)),
      driver_(module_->context()->driver()),
      cu_context_(module_->cu_context()),
      function_(function),
      dynamic_shared_allowed_(default_dynamic_shared) {
    CurrentContext current(driver_, cu_context_);
    const auto attribute = [this](CUfunction_attribute which) {
        int value = 0;
        KJARNI_CU(driver_, FuncGetAttribute, &value, which, function_);
        return to_size(value);
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
    attributes_.max_dynamic_local_bytes = to_size(optin) - std::min(to_size(optin), attributes_.shared_bytes);
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
    // The limit only grows: a launch with less keeps working.
    KJARNI_CU(driver_, FuncSetAttribute, function_, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
              static_cast<int>(bytes));
    dynamic_shared_allowed_.store(bytes, std::memory_order_release);
}

std::shared_ptr<Event> CudaKernel::launch(Queue& queue, unsigned dims, const std::size_t* global_size,
                                          const std::size_t* local_size, std::size_t dynamic_local_mem,
                                          std::span<const KernelArg> args, bool want_event) {
    // The hot path: no allocation for up to inline_args arguments, no look-up, no string.
    auto& cuda_queue = static_cast<CudaQueue&>(queue);
    std::array<unsigned int, 3> grid = {1, 1, 1};
    std::array<unsigned int, 3> block = {1, 1, 1};
    for (unsigned d = 0; d < dims && d < 3; ++d) {
        block[d] = static_cast<unsigned int>(local_size[d]);
        grid[d] = static_cast<unsigned int>(global_size[d] / local_size[d]);
    }

    // The kernel parameters: a pointer to each argument's value. Buffer arguments become device
    // addresses, kept in `pointers` for the duration of the call (cuLaunchKernel copies them).
    std::array<void*, inline_args> inline_params;
    std::array<CUdeviceptr, inline_args> inline_pointers;
    std::vector<void*> heap_params;
    std::vector<CUdeviceptr> heap_pointers;
    void** params = inline_params.data();
    CUdeviceptr* pointers = inline_pointers.data();
    if (args.size() > inline_args) {
        heap_params.resize(args.size());
        heap_pointers.resize(args.size());
        params = heap_params.data();
        pointers = heap_pointers.data();
    }
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

    CurrentContext current(driver_, cu_context_);
    if (dynamic_local_mem > dynamic_shared_allowed_.load(std::memory_order_acquire)) {
        allow_dynamic_shared(dynamic_local_mem);
    }
    KJARNI_CU(driver_, LaunchKernel, function_, grid[0], grid[1], grid[2], block[0], block[1], block[2],
              static_cast<unsigned int>(dynamic_local_mem), cuda_queue.stream(), args.empty() ? nullptr : params,
              nullptr);
    if (!want_event) return nullptr;
    auto event = std::make_shared<CudaEvent>(cuda_queue.context(), cuda_queue.device_index());
    KJARNI_CU(driver_, EventRecord, event->event(), cuda_queue.stream());
    return event;
}

// ---- CudaModule ---------------------------------------------------------------------------------

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

// ---- CudaContext: build, load, compiler_identity -------------------------------------------------

namespace {

// NVRTC's options for a target; `ptx` asks for the virtual architecture whatever the target.
std::vector<std::string> nvrtc_options(const Target& target, const BuildOptions& options, bool ptx) {
    std::vector<std::string> compiler_options;
    compiler_options.push_back(
        fmt::format("--gpu-architecture={}_{}", target.cubin && !ptx ? "sm" : "compute", target.architecture));
    compiler_options.emplace_back("--std=c++17");
    if (options.fast_math) compiler_options.emplace_back("--use_fast_math");
    for (const std::string& dir : options.include_dirs) compiler_options.push_back("-I" + dir);
    compiler_options.insert(compiler_options.end(), options.compiler_options.begin(),
                            options.compiler_options.end());
    return compiler_options;
}

}  // namespace

std::string CudaContext::ptx(std::size_t device_index, const std::string& source, const BuildOptions& options) {
    const NvrtcLibrary& nvrtc = nvrtc_or_throw();
    const Device& device = *devices_[device_index];
    const Target target =
        options.cuda_arch.empty() ? choose_target(nvrtc, device) : explicit_target(options.cuda_arch, device);
    const std::vector<std::string> compiler_options = nvrtc_options(target, options, true);
    NvrtcOutput output = nvrtc.compile(source, "program.cu", compiler_options, {}, true);
    if (!output.compiled) throw CompileError("CUDA", device.name(), output.log, compiler_options, source);
    return output.ptx;
}

BuildOutput CudaContext::build(std::size_t device_index, const std::string& source, const BuildOptions& options) {
    const NvrtcLibrary& nvrtc = nvrtc_or_throw();
    const Device& device = *devices_[device_index];
    const Target target =
        options.cuda_arch.empty() ? choose_target(nvrtc, device) : explicit_target(options.cuda_arch, device);
    const std::vector<std::string> compiler_options = nvrtc_options(target, options, false);

    if (options.keep_dir) write_file(*options.keep_dir / "program.cu", source);
    // PTX is needed when it is what gets loaded, and to keep it.
    const bool want_ptx = !target.cubin || options.keep_dir.has_value();
    NvrtcOutput output = nvrtc.compile(source, "program.cu", compiler_options, {}, want_ptx);

    std::string log;
    if (options.cuda_arch.empty() && target.architecture != target.device_architecture) {
        log = target.cubin ? fmt::format("kjarni: NVRTC {} does not support sm_{}; compiled for sm_{}, which runs on "
                                         "it\n",
                                         nvrtc.version(), target.device_architecture, target.architecture)
                           : fmt::format("kjarni: NVRTC {} does not support sm_{}; compiled PTX for compute_{}, "
                                         "which the driver compiles when loading\n",
                                         nvrtc.version(), target.device_architecture, target.architecture);
    }
    log += output.log;

    if (options.keep_dir) {
        const std::filesystem::path& dir = *options.keep_dir;
        write_file(dir / "build.log", log);
        if (output.compiled) {
            if (!output.cubin.empty()) {
                write_file(dir / "program.cubin", std::string_view(output.cubin.data(), output.cubin.size()));
            }
            if (output.ptx.empty()) {
                // This NVRTC gave no PTX alongside the cubin: compile again for the virtual architecture.
                std::vector<std::string> ptx_options = compiler_options;
                ptx_options[0] = fmt::format("--gpu-architecture=compute_{}", target.architecture);
                output.ptx = nvrtc.compile(source, "program.cu", ptx_options, {}, true).ptx;
            }
            write_file(dir / "program.ptx", output.ptx);
        }
    }
    if (!output.compiled) throw CompileError("CUDA", device.name(), log, compiler_options, source);

    BuildOutput result;
    if (target.cubin) {
        result.binary.resize(output.cubin.size());
        std::memcpy(result.binary.data(), output.cubin.data(), output.cubin.size());
    } else {
        // PTX, NUL-terminated as cuModuleLoadData reads it.
        result.binary.resize(output.ptx.size() + 1);
        std::memcpy(result.binary.data(), output.ptx.c_str(), output.ptx.size() + 1);
    }
    result.module = std::make_shared<CudaModule>(std::make_shared<LoadedModule>(
        std::static_pointer_cast<CudaContext>(shared_from_this()), device_index,
        std::span<const std::byte>(result.binary)));
    result.log = std::move(log);
    return result;
}

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
    static constexpr std::array<unsigned char, 4> elf_magic = {0x7f, 'E', 'L', 'F'};
    if (code.size() >= 4 && std::memcmp(code.data(), elf_magic.data(), 4) == 0) return CU_JIT_INPUT_CUBIN;
    if (code.size() >= 4 && read_le<std::uint32_t>(code, 0) == fatbin_magic) return CU_JIT_INPUT_FATBINARY;
    return CU_JIT_INPUT_PTX;
}

std::string log_text(const std::vector<char>& buffer) {
    std::string text(buffer.data(), strnlen(buffer.data(), buffer.size()));
    while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
    return text;
}

}  // namespace

std::vector<std::byte> CudaContext::compile_unit(std::size_t device_index, const std::string& source,
                                                 const BuildOptions& options) {
    // PTX for the virtual architecture, relocatable (-rdc=true): the driver's linker compiles it
    // for the device together with the other units, and PTX stays valid for later devices.
    const Device& device = *devices_[device_index];
    const NvrtcLibrary& nvrtc = nvrtc_or_throw();
    const Target target =
        options.cuda_arch.empty() ? choose_target(nvrtc, device) : explicit_target(options.cuda_arch, device);
    std::vector<std::string> compiler_options = nvrtc_options(target, options, true);
    compiler_options.emplace_back("--relocatable-device-code=true");
    NvrtcOutput output = nvrtc.compile(source, "unit.cu", compiler_options, {}, true);
    if (!output.compiled) throw CompileError("CUDA", device.name(), output.log, compiler_options, source);
    std::vector<std::byte> ptx(output.ptx.size() + 1);
    std::memcpy(ptx.data(), output.ptx.c_str(), output.ptx.size() + 1);
    return ptx;
}

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
    std::vector<CUjit_option> jit = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES, CU_JIT_INFO_LOG_BUFFER,
                                     CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES};
    // Option values travel as pointers holding the number itself.
    std::vector<void*> values = {error_log.data(), reinterpret_cast<void*>(static_cast<std::uintptr_t>(error_log.size())),
                                 info_log.data(), reinterpret_cast<void*>(static_cast<std::uintptr_t>(info_log.size()))};
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
                               result == CUDA_ERROR_NO_BINARY_FOR_GPU ||
                               result == CUDA_ERROR_UNSUPPORTED_PTX_VERSION || result == CUDA_ERROR_NOT_FOUND;
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
    output.module = std::make_shared<CudaModule>(std::make_shared<LoadedModule>(
        std::static_pointer_cast<CudaContext>(shared_from_this()), device_index,
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

std::string CudaContext::compiler_identity(std::size_t device_index) const {
    // NVRTC's version is deliberately left out: learning it means loading NVRTC (about 100 MB,
    // milliseconds), which would cost a disk-cache hit in a new process more than the hit saves. A
    // cubin for this architecture and driver stays valid whichever NVRTC made it; to rebuild with a
    // new NVRTC, clear the cache or point KJARNI_CACHE_DIR elsewhere.
    const Device& device = *devices_[device_index];
    int driver_version = 0;
    KJARNI_CU(driver_, DriverGetVersion, &driver_version);
    std::string cc = "unknown";
    if (const auto& capability = device.properties().compute_capability) {
        cc = fmt::format("{}.{}", capability->major, capability->minor);
    }
    return fmt::format("kjarni-cuda-build {}; device {}; compute capability {}; driver {}", build_recipe_version,
                       device.name(), cc, driver_version);
}

}  // namespace kjarni::backend::cuda
