// CudaContext's compiling through NVRTC: build (a cubin, or PTX the driver compiles), ptx,
// compile_unit (relocatable PTX for link), and compiler_identity (the disk cache's key).

#include <fmt/format.h>

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include "backend/cuda/cuda_context.hpp"
#include "backend/cuda/cuda_device.hpp"
#include "backend/cuda/cuda_error.hpp"
#include "backend/cuda/cuda_program.hpp"
#include "backend/cuda/nvrtc_library.hpp"
#include "kjarni/error.hpp"

namespace kjarni::backend::cuda {

namespace {

/// Bumped whenever kjarni's own compiler options (or how it picks the target) change: part of
/// compiler_identity, so that cached binaries of an older kjarni are not reused.
constexpr int build_recipe_version = 1;

void write_kept_file(const std::filesystem::path& path, std::string_view contents) {
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

// NVRTC's options for a target; `ptx` asks for the virtual architecture whatever the target.
std::vector<std::string> nvrtc_options(const Target& target, const BuildOptions& options, bool ptx) {
    std::vector<std::string> compiler_options;
    compiler_options.push_back(
        fmt::format("--gpu-architecture={}_{}", target.cubin && !ptx ? "sm" : "compute", target.architecture));
    compiler_options.emplace_back("--std=c++17");
    if (options.fast_math) compiler_options.emplace_back("--use_fast_math");
    for (const std::string& dir : options.include_dirs) compiler_options.push_back("-I" + dir);
    compiler_options.insert(compiler_options.end(), options.compiler_options.begin(), options.compiler_options.end());
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

    if (options.keep_dir) write_kept_file(*options.keep_dir / "program.cu", source);
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
        write_kept_file(dir / "build.log", log);
        if (output.compiled) {
            if (!output.cubin.empty()) {
                write_kept_file(dir / "program.cubin", std::string_view(output.cubin.data(), output.cubin.size()));
            }
            if (output.ptx.empty()) {
                // This NVRTC gave no PTX alongside the cubin: compile again for the virtual architecture.
                std::vector<std::string> ptx_options = compiler_options;
                ptx_options[0] = fmt::format("--gpu-architecture=compute_{}", target.architecture);
                output.ptx = nvrtc.compile(source, "program.cu", ptx_options, {}, true).ptx;
            }
            write_kept_file(dir / "program.ptx", output.ptx);
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
    result.module = std::make_shared<CudaModule>(
        std::make_shared<LoadedModule>(std::static_pointer_cast<CudaContext>(shared_from_this()), device_index,
                                       std::span<const std::byte>(result.binary)));
    result.log = std::move(log);
    return result;
}

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
