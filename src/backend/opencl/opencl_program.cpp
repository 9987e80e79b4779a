// OpenCL programs built for one device: from source (build_program), from a binary (load_program),
// compiled apart and linked (compile_unit_program, link_program).

#include "backend/opencl/opencl_program.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

#include "backend/opencl/opencl_error.hpp"
#include "backend/opencl/opencl_info.hpp"
#include "backend/opencl/opencl_queue.hpp"
#include "backend/opencl/opencl_quirks.hpp"
#include "backend/opencl/opencl_svm.hpp"
#include "kjarni/error.hpp"

namespace kjarni::backend::opencl {

namespace {

constexpr const char* arg_info_option = "-cl-kernel-arg-info";

// -cl-kernel-arg-info makes clGetKernelArgInfo answer, so that launches can be checked against
// the declared parameters.
std::vector<std::string> option_list(const BuildOptions& options) {
    std::vector<std::string> list{arg_info_option};
    if (options.fast_math) list.emplace_back("-cl-fast-relaxed-math");
    for (const auto& dir : options.include_dirs) list.push_back("-I" + dir);
    list.insert(list.end(), options.compiler_options.begin(), options.compiler_options.end());
    return list;
}

std::string build_log(cl_program program, cl_device_id device) {
    std::size_t size = 0;
    if (cl().clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &size) != CL_SUCCESS) return {};
    std::string log(size, '\0');
    if (cl().clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, size, log.data(), nullptr) != CL_SUCCESS) {
        return {};
    }
    while (!log.empty() && (log.back() == '\0' || log.back() == '\n' || log.back() == ' ')) log.pop_back();
    return log;
}

// A program made from source belongs to every device of its context, built or not: the binary
// queries answer one entry per program device, and we want the entry of `device`.
std::vector<std::byte> program_binary(cl_program program, cl_device_id device) {
    cl_uint count = 0;
    check(cl().clGetProgramInfo(program, CL_PROGRAM_NUM_DEVICES, sizeof count, &count, nullptr), "clGetProgramInfo");
    std::vector<cl_device_id> devices(count);
    check(cl().clGetProgramInfo(program, CL_PROGRAM_DEVICES, count * sizeof(cl_device_id), devices.data(), nullptr),
          "clGetProgramInfo");
    std::vector<std::size_t> sizes(count);
    check(cl().clGetProgramInfo(program, CL_PROGRAM_BINARY_SIZES, count * sizeof(std::size_t), sizes.data(), nullptr),
          "clGetProgramInfo");
    const auto position = static_cast<std::size_t>(std::find(devices.begin(), devices.end(), device) - devices.begin());
    if (position == devices.size() || sizes[position] == 0) return {};
    std::vector<std::byte> binary(sizes[position]);
    // Null entries are skipped: only our device's binary is copied.
    std::vector<unsigned char*> pointers(count, nullptr);
    pointers[position] = reinterpret_cast<unsigned char*>(binary.data());
    check(cl().clGetProgramInfo(program, CL_PROGRAM_BINARIES, count * sizeof(unsigned char*), pointers.data(), nullptr),
          "clGetProgramInfo");
    return binary;
}

void write_file(const std::filesystem::path& path, const void* data, std::size_t size) {
    std::ofstream out(path, std::ios::binary);
    out.write(static_cast<const char*>(data), static_cast<std::streamsize>(size));
    if (!out) throw Error("cannot write " + path.string());
}

bool build_failed(cl_int status) {
    return status == CL_BUILD_PROGRAM_FAILURE || status == CL_INVALID_BUILD_OPTIONS ||
           status == CL_COMPILE_PROGRAM_FAILURE;
}

// clBuildProgram, turning a failure into CompileError with the log. A failed build is retried once
// without -cl-kernel-arg-info (quirks::retry_build_without_arg_info).
void build_or_throw(cl_program program, const std::shared_ptr<OpenClContext>& context, std::size_t device_index,
                    std::vector<std::string> options, const std::string& source) {
    const cl_device_id device = context->device_id(device_index);
    auto build = [&] {
        const std::string joined = fmt::format("{}", fmt::join(options, " "));
        return cl().clBuildProgram(program, 1, &device, joined.c_str(), nullptr, nullptr);
    };
    cl_int status = build();
    if (quirks::retry_build_without_arg_info(status) && !options.empty() && options.front() == arg_info_option) {
        options.erase(options.begin());
        if (build() == CL_SUCCESS) return;
        options.insert(options.begin(), arg_info_option);  // report the build as asked
    }
    if (build_failed(status)) {
        std::string log = build_log(program, device);
        if (status == CL_INVALID_BUILD_OPTIONS)
            log = fmt::format("invalid build options: {}\n{}", fmt::join(options, " "), log);
        throw CompileError("OpenCL", context->devices()[device_index]->name(), log, options, source);
    }
    check(status, "clBuildProgram");
}

// The options that only CUDA knows.
void refuse_cuda_only_options(const BuildOptions& options) {
    if (!options.cuda_arch.empty()) {
        throw UnsupportedError("the opencl backend compiles for the device itself: ProgramOptions::arch ('" +
                               options.cuda_arch + "') is for CUDA");
    }
    if (options.jit_max_registers || options.jit_optimization_level) {
        throw UnsupportedError("the opencl backend has no JIT options (ProgramOptions::jit_max_registers, "
                               "jit_optimization_level are for CUDA's PTX)");
    }
}

}  // namespace

BuildOutput build_program(const std::shared_ptr<OpenClContext>& context, std::size_t device_index,
                          const std::string& source, const BuildOptions& options) {
    refuse_cuda_only_options(options);
    const char* text = source.c_str();
    const std::size_t length = source.size();
    cl_int status = CL_SUCCESS;
    Handle<cl_program> program(cl().clCreateProgramWithSource(context->handle(), 1, &text, &length, &status));
    check(status, "clCreateProgramWithSource");
    const auto list = option_list(options);
    if (options.keep_dir) write_file(*options.keep_dir / "program.cl", source.data(), source.size());
    build_or_throw(program.get(), context, device_index, list, source);

    BuildOutput output;
    output.log = build_log(program.get(), context->device_id(device_index));
    output.binary = program_binary(program.get(), context->device_id(device_index));
    output.module = std::make_shared<OpenClModule>(context, device_index, std::move(program));
    if (options.keep_dir) {
        write_file(*options.keep_dir / "build.log", output.log.data(), output.log.size());
        write_file(*options.keep_dir / "program.bin", output.binary.data(), output.binary.size());
    }
    return output;
}

std::shared_ptr<Module> load_program(const std::shared_ptr<OpenClContext>& context, std::size_t device_index,
                                     std::span<const std::byte> binary, const BuildOptions& options) {
    refuse_cuda_only_options(options);
    const cl_device_id device = context->device_id(device_index);
    const auto* bytes = reinterpret_cast<const unsigned char*>(binary.data());
    const std::size_t size = binary.size();
    cl_int status = CL_SUCCESS;
    Handle<cl_program> program;
    // SPIR-V starts with its magic number (in the module's byte order; hosts are little-endian).
    constexpr std::uint32_t spirv_magic = 0x07230203;
    std::uint32_t first_word = 0;
    if (size >= 4) std::memcpy(&first_word, bytes, 4);
    if (first_word == spirv_magic) {
        if (cl().clCreateProgramWithIL == nullptr) {
            throw UnsupportedError(
                "the OpenCL loader has no clCreateProgramWithIL (OpenCL 2.1): it cannot take SPIR-V");
        }
        program.reset(cl().clCreateProgramWithIL(context->handle(), bytes, size, &status));
        // Drivers without IL support answer CL_INVALID_OPERATION (or CL_INVALID_VALUE).
        if (status == CL_INVALID_OPERATION) {
            throw UnsupportedError("device '" + context->devices()[device_index]->name() +
                                   "': its OpenCL driver does not take SPIR-V (clCreateProgramWithIL)");
        }
        check(status, "clCreateProgramWithIL");
        build_or_throw(program.get(), context, device_index, option_list(options), "(SPIR-V)");
    } else {
        cl_int binary_status = CL_SUCCESS;
        program.reset(
            cl().clCreateProgramWithBinary(context->handle(), 1, &device, &size, &bytes, &binary_status, &status));
        check(status, "clCreateProgramWithBinary");
        check(binary_status, "clCreateProgramWithBinary");
        build_or_throw(program.get(), context, device_index, option_list(options), "(program binary)");
    }
    return std::make_shared<OpenClModule>(context, device_index, std::move(program));
}

namespace {

// "OpenCL X.Y ..." (CL_DEVICE_VERSION) as X * 10 + Y; 0 when it does not read so.
int device_version(cl_device_id device) {
    const std::string text = device_info_string(device, CL_DEVICE_VERSION);
    int major = 0;
    int minor = 0;
    if (std::sscanf(text.c_str(), "OpenCL %d.%d", &major, &minor) != 2) return 0;
    return major * 10 + minor;
}

}  // namespace

namespace {

void require_separate_compilation(const std::shared_ptr<OpenClContext>& context, std::size_t device_index) {
    const cl_device_id device = context->device_id(device_index);
    if (device_version(device) < 12 || cl().clCompileProgram == nullptr || cl().clLinkProgram == nullptr) {
        throw UnsupportedError(fmt::format("the opencl backend compiles and links separate units on OpenCL 1.2 and "
                                           "later only; device '{}' reports '{}'",
                                           context->devices()[device_index]->name(),
                                           device_info_string(device, CL_DEVICE_VERSION)));
    }
}

// clCompileProgram of one source for one device: a program holding a compiled object.
Handle<cl_program> compile_object(const std::shared_ptr<OpenClContext>& context, std::size_t device_index,
                                  const std::string& source, const BuildOptions& options) {
    const cl_device_id device = context->device_id(device_index);
    const std::vector<std::string> compile_list = option_list(options);
    const std::string compile_options = fmt::format("{}", fmt::join(compile_list, " "));
    const char* text = source.c_str();
    const std::size_t length = source.size();
    cl_int status = CL_SUCCESS;
    Handle<cl_program> program(cl().clCreateProgramWithSource(context->handle(), 1, &text, &length, &status));
    check(status, "clCreateProgramWithSource");
    status = cl().clCompileProgram(program.get(), 1, &device, compile_options.c_str(), 0, nullptr, nullptr, nullptr,
                                   nullptr);
    if (build_failed(status)) {
        throw CompileError("OpenCL", context->devices()[device_index]->name(), build_log(program.get(), device),
                           compile_list, source);
    }
    check(status, "clCompileProgram");
    return program;
}

// A program over a compiled object or library binary, ready for clLinkProgram. A binary the
// driver does not take, or one already linked (an executable cannot be linked again), is the
// caller's: ArgumentError naming the unit.
Handle<cl_program> object_from_binary(const std::shared_ptr<OpenClContext>& context, std::size_t device_index,
                                      std::span<const std::byte> code, std::size_t unit) {
    const cl_device_id device = context->device_id(device_index);
    const std::string& device_name = context->devices()[device_index]->name();
    const auto* bytes = reinterpret_cast<const unsigned char*>(code.data());
    const std::size_t size = code.size();
    cl_int binary_status = CL_SUCCESS;
    cl_int status = CL_SUCCESS;
    Handle<cl_program> program(
        cl().clCreateProgramWithBinary(context->handle(), 1, &device, &size, &bytes, &binary_status, &status));
    if (status == CL_INVALID_BINARY || binary_status == CL_INVALID_BINARY) {
        throw ArgumentError("units", fmt::format("unit {} is not a program binary that the OpenCL driver of device "
                                                 "'{}' takes",
                                                 unit, device_name));
    }
    check(status, "clCreateProgramWithBinary");
    check(binary_status, "clCreateProgramWithBinary");
    cl_program_binary_type type = CL_PROGRAM_BINARY_TYPE_NONE;
    check(cl().clGetProgramBuildInfo(program.get(), device, CL_PROGRAM_BINARY_TYPE, sizeof type, &type, nullptr),
          "clGetProgramBuildInfo");
    if (type != CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT && type != CL_PROGRAM_BINARY_TYPE_LIBRARY) {
        throw ArgumentError("units",
                            fmt::format("unit {} is an OpenCL program binary of type {} on device '{}'; "
                                        "linking takes compiled objects (Program::compile_unit) and "
                                        "libraries",
                                        unit,
                                        type == CL_PROGRAM_BINARY_TYPE_EXECUTABLE ? "executable" : std::to_string(type),
                                        device_name));
    }
    return program;
}

}  // namespace

std::vector<std::byte> compile_unit_program(const std::shared_ptr<OpenClContext>& context, std::size_t device_index,
                                            const std::string& source, const BuildOptions& options) {
    refuse_cuda_only_options(options);
    require_separate_compilation(context, device_index);
    const Handle<cl_program> program = compile_object(context, device_index, source, options);
    return program_binary(program.get(), context->device_id(device_index));
}

BuildOutput link_program(const std::shared_ptr<OpenClContext>& context, std::size_t device_index,
                         std::span<const LinkUnit> units, const BuildOptions& options) {
    refuse_cuda_only_options(options);
    require_separate_compilation(context, device_index);
    const cl_device_id device = context->device_id(device_index);
    const std::string& device_name = context->devices()[device_index]->name();
    // The compile step takes the build options; the link step only the linker's (the fast-math
    // ones among them, which the specification lets both take).
    const std::string link_options = options.fast_math ? "-cl-fast-relaxed-math" : "";
    std::vector<Handle<cl_program>> compiled;
    for (std::size_t i = 0; i < units.size(); ++i) {
        const LinkUnit& unit = units[i];
        compiled.push_back(unit.is_source ? compile_object(context, device_index, unit.source, options)
                                          : object_from_binary(context, device_index, unit.code, i));
    }
    std::vector<cl_program> inputs;
    for (const auto& program : compiled) inputs.push_back(program.get());
    cl_int status = CL_SUCCESS;
    Handle<cl_program> linked(cl().clLinkProgram(context->handle(), 1, &device, link_options.c_str(),
                                                 static_cast<cl_uint>(inputs.size()), inputs.data(), nullptr, nullptr,
                                                 &status));
    if (status == CL_LINK_PROGRAM_FAILURE) {
        // The specification returns the program when linking began, so that its log can be read.
        std::string log = linked ? build_log(linked.get(), device) : std::string();
        if (log.empty()) log = "clLinkProgram: CL_LINK_PROGRAM_FAILURE (the driver gave no log)";
        throw LinkError("OpenCL", device_name, log);
    }
    check(status, "clLinkProgram");
    BuildOutput output;
    output.log = build_log(linked.get(), device);
    output.binary = program_binary(linked.get(), device);
    output.module = std::make_shared<OpenClModule>(context, device_index, std::move(linked));
    return output;
}

}  // namespace kjarni::backend::opencl
