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

// Byte sizes of the OpenCL C types kjarni kernels pass by value; 0 for a type not listed (a
// typedef or struct), whose size then goes unchecked.
std::size_t scalar_size(std::string type) {
    for (const char* qualifier : {"const ", "volatile ", "restrict "}) {
        for (auto pos = type.find(qualifier); pos != std::string::npos; pos = type.find(qualifier)) {
            type.erase(pos, std::char_traits<char>::length(qualifier));
        }
    }
    static const std::pair<const char*, std::size_t> base[] = {
        {"char", 1},  {"uchar", 1},  {"bool", 1},   {"short", 2},  {"ushort", 2}, {"half", 2},
        {"int", 4},   {"uint", 4},   {"float", 4},  {"long", 8},   {"ulong", 8},  {"double", 8},
        {"int8_t", 1}, {"uint8_t", 1}, {"int16_t", 2}, {"uint16_t", 2}, {"int32_t", 4}, {"uint32_t", 4},
        {"int64_t", 8}, {"uint64_t", 8}, {"unsigned char", 1}, {"unsigned short", 2}, {"unsigned int", 4},
        {"unsigned long", 8}, {"signed char", 1}, {"complex64_t", 8}, {"complex128_t", 16},
    };
    for (const auto& [name, size] : base) {
        if (type == name) return size;
        // Vector types: float2, int4, ... (3-component vectors occupy 4).
        const std::size_t n = std::char_traits<char>::length(name);
        if (type.size() > n && type.compare(0, n, name) == 0) {
            const std::string count = type.substr(n);
            if (count == "2") return 2 * size;
            if (count == "3" || count == "4") return 4 * size;
            if (count == "8") return 8 * size;
            if (count == "16") return 16 * size;
        }
    }
    return 0;
}

std::vector<ParamInfo> query_params(cl_kernel kernel) {
    cl_uint count = 0;
    check(cl().clGetKernelInfo(kernel, CL_KERNEL_NUM_ARGS, sizeof count, &count, nullptr), "clGetKernelInfo");
    std::vector<ParamInfo> params(count);
    for (cl_uint i = 0; i < count; ++i) {
        ParamInfo& p = params[i];
        cl_kernel_arg_address_qualifier qualifier = 0;
        if (cl().clGetKernelArgInfo(kernel, i, CL_KERNEL_ARG_ADDRESS_QUALIFIER, sizeof qualifier, &qualifier,
                                    nullptr) != CL_SUCCESS) {
            continue;  // no argument info: the count alone is checked
        }
        auto text = [&](cl_kernel_arg_info what) {
            std::size_t size = 0;
            if (cl().clGetKernelArgInfo(kernel, i, what, 0, nullptr, &size) != CL_SUCCESS) return std::string();
            std::string value(size, '\0');
            cl().clGetKernelArgInfo(kernel, i, what, size, value.data(), nullptr);
            while (!value.empty() && value.back() == '\0') value.pop_back();
            return value;
        };
        p.type_name = text(CL_KERNEL_ARG_TYPE_NAME);
        p.name = text(CL_KERNEL_ARG_NAME);
        // Images are global memory objects to the driver (and samplers private values), but take
        // kjarni's image arguments, not buffers or scalars: told apart by their type names.
        if (p.type_name.find("image") != std::string::npos && p.type_name.ends_with("_t")) {
            p.kind = ParamInfo::Kind::image;
            p.size = sizeof(cl_mem);
            continue;
        }
        if (p.type_name.ends_with("sampler_t")) {
            p.kind = ParamInfo::Kind::sampler;
            p.size = sizeof(cl_sampler);
            continue;
        }
        switch (qualifier) {
            case CL_KERNEL_ARG_ADDRESS_GLOBAL:
            case CL_KERNEL_ARG_ADDRESS_CONSTANT:
                p.kind = ParamInfo::Kind::global_pointer;
                p.size = sizeof(cl_mem);
                break;
            case CL_KERNEL_ARG_ADDRESS_LOCAL:
                p.kind = ParamInfo::Kind::local_pointer;
                break;
            default:
                p.kind = ParamInfo::Kind::scalar;
                p.size = scalar_size(p.type_name);
                break;
        }
    }
    return params;
}

template <class T>
T work_group_info(cl_kernel kernel, cl_device_id device, cl_kernel_work_group_info what) {
    T value{};
    check(cl().clGetKernelWorkGroupInfo(kernel, device, what, sizeof value, &value, nullptr),
          "clGetKernelWorkGroupInfo");
    return value;
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
        if (status == CL_INVALID_BUILD_OPTIONS) log = fmt::format("invalid build options: {}\n{}", fmt::join(options, " "), log);
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
            throw UnsupportedError("the OpenCL loader has no clCreateProgramWithIL (OpenCL 2.1): it cannot take SPIR-V");
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
        throw ArgumentError("units", fmt::format("unit {} is an OpenCL program binary of type {} on device '{}'; "
                                                 "linking takes compiled objects (Program::compile_unit) and "
                                                 "libraries",
                                                 unit,
                                                 type == CL_PROGRAM_BINARY_TYPE_EXECUTABLE ? "executable"
                                                                                           : std::to_string(type),
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

OpenClModule::OpenClModule(std::shared_ptr<OpenClContext> context, std::size_t device_index,
                           Handle<cl_program> program)
    : context_(std::move(context)), device_index_(device_index), program_(std::move(program)) {}

std::shared_ptr<Kernel> OpenClModule::kernel(const std::string& name) {
    const std::lock_guard lock(mutex_);
    if (auto found = kernels_.find(name); found != kernels_.end()) return found->second;
    cl_int status = CL_SUCCESS;
    Handle<cl_kernel> kernel(cl().clCreateKernel(program_.get(), name.c_str(), &status));
    if (status == CL_INVALID_KERNEL_NAME) return nullptr;
    check(status, "clCreateKernel");
    auto wrapped = std::make_shared<OpenClKernel>(context_, device_index_, std::move(kernel));
    kernels_.emplace(name, wrapped);
    return wrapped;
}

std::vector<std::string> OpenClModule::kernel_names() const {
    std::size_t size = 0;
    check(cl().clGetProgramInfo(program_.get(), CL_PROGRAM_KERNEL_NAMES, 0, nullptr, &size), "clGetProgramInfo");
    std::string names(size, '\0');
    check(cl().clGetProgramInfo(program_.get(), CL_PROGRAM_KERNEL_NAMES, size, names.data(), nullptr), "clGetProgramInfo");
    std::vector<std::string> list;
    std::istringstream stream(names.c_str());
    for (std::string name; std::getline(stream, name, ';');) {
        if (!name.empty()) list.push_back(name);
    }
    return list;
}

namespace {

[[noreturn]] void constants_unsupported() {
    throw UnsupportedError(
        "constant arrays filled from the host are CUDA only: OpenCL cannot address a program-scope "
        "__constant variable from the host; pass the data as a CONSTANT_MEM kernel argument instead");
}

}  // namespace

std::optional<std::size_t> OpenClModule::constant_size(const std::string&) { constants_unsupported(); }
void OpenClModule::set_constant(Queue&, const std::string&, const void*, std::size_t) { constants_unsupported(); }
void OpenClModule::set_constant(Queue&, const std::string&, Buffer&, std::size_t, std::size_t) {
    constants_unsupported();
}

OpenClKernel::OpenClKernel(std::shared_ptr<OpenClContext> context, std::size_t device_index,
                           Handle<cl_kernel> kernel)
    : context_(std::move(context)), device_index_(device_index), kernel_(std::move(kernel)) {
    const cl_device_id device = context_->device_id(device_index_);
    attributes_.max_total_local_size = work_group_info<std::size_t>(kernel_.get(), device, CL_KERNEL_WORK_GROUP_SIZE);
    attributes_.shared_bytes = work_group_info<cl_ulong>(kernel_.get(), device, CL_KERNEL_LOCAL_MEM_SIZE);
    attributes_.local_bytes = work_group_info<cl_ulong>(kernel_.get(), device, CL_KERNEL_PRIVATE_MEM_SIZE);
    const std::size_t local_mem_size = context_->devices()[device_index_]->params().local_mem_size;
    attributes_.max_dynamic_local_bytes = local_mem_size - std::min(local_mem_size, attributes_.shared_bytes);
    attributes_.preferred_local_size_multiple =
        work_group_info<std::size_t>(kernel_.get(), device, CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE);
    params_ = query_params(kernel_.get());
}

cl_kernel OpenClKernel::kernel_for(std::span<const KernelArg> args) {
    const auto is_svm = [](const KernelArg& arg) {
        // Empty managed memory goes in as a null buffer (set_svm_argument): not an SVM pointer.
        return arg.kind == KernelArg::Kind::shared_pointer && arg.pointer != nullptr;
    };
    if (std::none_of(args.begin(), args.end(), [&](const KernelArg& arg) { return arg.kind == KernelArg::Kind::shared_pointer; })) {
        return kernel_.get();
    }
    bool fresh = !svm_kernel_;
    for (std::size_t i = 0; i < args.size() && i < svm_arguments_.size(); ++i) {
        if (svm_arguments_[i] && !is_svm(args[i])) fresh = true;
    }
    if (fresh) {
        cl_program program = nullptr;
        check(cl().clGetKernelInfo(kernel_.get(), CL_KERNEL_PROGRAM, sizeof program, &program, nullptr), "clGetKernelInfo");
        std::size_t name_size = 0;
        check(cl().clGetKernelInfo(kernel_.get(), CL_KERNEL_FUNCTION_NAME, 0, nullptr, &name_size), "clGetKernelInfo");
        std::string name(name_size, '\0');
        check(cl().clGetKernelInfo(kernel_.get(), CL_KERNEL_FUNCTION_NAME, name_size, name.data(), nullptr),
              "clGetKernelInfo");
        cl_int error = CL_SUCCESS;
        Handle<cl_kernel> made(cl().clCreateKernel(program, name.c_str(), &error));
        check(error, "clCreateKernel");
        svm_kernel_ = std::move(made);
        svm_arguments_.assign(args.size(), false);
    }
    if (svm_arguments_.size() < args.size()) svm_arguments_.resize(args.size(), false);
    for (std::size_t i = 0; i < args.size(); ++i) svm_arguments_[i] = is_svm(args[i]);
    return svm_kernel_.get();
}

OpenClKernel::SetArgument OpenClKernel::remembered_as(const KernelArg& arg) noexcept {
    SetArgument value;
    if (arg.kind == KernelArg::Kind::buffer) {
        value.kind = SetArgument::buffer;
        value.first = arg.buffer != nullptr ? static_cast<OpenClBuffer*>(arg.buffer)->serial() : 0;
        value.second = arg.offset;
        value.size = arg.size;
    } else if (arg.kind == KernelArg::Kind::scalar && arg.bytes == nullptr && arg.size <= sizeof arg.scalar) {
        // All 16 bytes, whatever the size: bytes past it that differ only cost a needless set.
        std::uint64_t words[2];
        std::memcpy(words, arg.scalar, sizeof words);
        value.kind = SetArgument::scalar;
        value.first = words[0];
        value.second = words[1];
        value.size = arg.size;
    }
    return value;
}

void OpenClKernel::set_argument(cl_kernel kernel, cl_uint index, const KernelArg& arg, const SetArgument* value) {
    SetArgument* slot = nullptr;
    if (value != nullptr) {
        const std::size_t needed = index + std::size_t{arg.param_count};
        if (set_arguments_.size() < needed) set_arguments_.resize(needed);
        slot = &set_arguments_[index];
        // Forgotten first: a call that fails leaves the driver's argument unknown.
        for (std::size_t p = 0; p < arg.param_count; ++p) set_arguments_[index + p] = SetArgument{};
    }
    if (arg.kind == KernelArg::Kind::image) {
        // The cl_mem, and for a sampled image the cl_sampler after it (opencl_image.cpp).
        check(cl().clSetKernelArg(kernel, index, sizeof(cl_mem), arg.scalar), "clSetKernelArg");
        if (arg.param_count == 2) {
            check(cl().clSetKernelArg(kernel, index + 1, sizeof(cl_sampler), arg.scalar + sizeof(cl_mem)),
                  "clSetKernelArg");
        }
    } else if (arg.kind == KernelArg::Kind::buffer) {
        cl_mem mem =
            arg.buffer != nullptr ? static_cast<OpenClBuffer*>(arg.buffer)->region(arg.offset, arg.size) : nullptr;
        check(cl().clSetKernelArg(kernel, index, sizeof mem, &mem), "clSetKernelArg");
    } else if (arg.kind == KernelArg::Kind::shared_pointer) {
        set_svm_argument(kernel, index, arg.pointer);
    } else {
        check(cl().clSetKernelArg(kernel, index, arg.size, arg.bytes != nullptr ? arg.bytes : arg.scalar),
              "clSetKernelArg");
    }
    if (slot != nullptr) *slot = *value;
}

std::shared_ptr<Event> OpenClKernel::launch(Queue& queue, unsigned dims, const std::size_t* global_size,
                                            const std::size_t* local_size, std::size_t dynamic_local_mem,
                                            std::span<const KernelArg> args, bool want_event) {
    if (dynamic_local_mem != 0) {
        throw UnsupportedError(
            "dynamic local memory (LOCAL_MEM_DYNAMIC) is CUDA only; on OpenCL declare LOCAL_MEM_DECL arrays of "
            "a size fixed when the program is rendered");
    }
    // The lock keeps another thread's arguments from landing between this launch's
    // clSetKernelArg calls and its enqueue; a launch without arguments sets none.
    std::unique_lock lock(launch_mutex_, std::defer_lock);
    if (!args.empty()) lock.lock();
    cl_kernel kernel = args.empty() ? kernel_.get() : kernel_for(args);
    // Only kernel_'s arguments are remembered (svm_kernel_ is made anew at times), and only while
    // nobody else holds its handle.
    const bool remembered = kernel == kernel_.get() && !handle_given_.load(std::memory_order_relaxed);
    cl_uint index = 0;  // the parameter args[i] starts at (an OpenCL sampled image fills two)
    for (std::size_t i = 0; i < args.size(); index += args[i].param_count, ++i) {
        if (!remembered) {
            set_argument(kernel, index, args[i], nullptr);
            continue;
        }
        const SetArgument value = remembered_as(args[i]);
        const bool unchanged =
            value.kind != SetArgument::unknown && index < set_arguments_.size() && set_arguments_[index] == value;
        if (!unchanged) set_argument(kernel, index, args[i], &value);
    }
    cl_event event = nullptr;
    auto& cl_queue = static_cast<OpenClQueue&>(queue);
    check(cl().clEnqueueNDRangeKernel(cl_queue.handle(), kernel, dims, nullptr, global_size, local_size, 0, nullptr,
                                      want_event ? &event : nullptr),
          "clEnqueueNDRangeKernel");
    Handle<cl_event> owned(event);
    if (!want_event) return nullptr;
    return std::make_shared<OpenClEvent>(context_, std::move(owned));
}

}  // namespace kjarni::backend::opencl
