// OpenClModule (a built program's kernels by name) and OpenClKernel (the parameters a kernel declares,
// its work-group attributes, its arguments and its launch).

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

// Byte sizes of the OpenCL C types kjarni kernels pass by value; 0 for a type not listed (a
// typedef or struct), whose size then goes unchecked.
std::size_t scalar_size(std::string type) {
    for (const char* qualifier : {"const ", "volatile ", "restrict "}) {
        for (auto pos = type.find(qualifier); pos != std::string::npos; pos = type.find(qualifier)) {
            type.erase(pos, std::char_traits<char>::length(qualifier));
        }
    }
    static const std::pair<const char*, std::size_t> base[] = {
        {"char", 1},          {"uchar", 1},          {"bool", 1},          {"short", 2},
        {"ushort", 2},        {"half", 2},           {"int", 4},           {"uint", 4},
        {"float", 4},         {"long", 8},           {"ulong", 8},         {"double", 8},
        {"int8_t", 1},        {"uint8_t", 1},        {"int16_t", 2},       {"uint16_t", 2},
        {"int32_t", 4},       {"uint32_t", 4},       {"int64_t", 8},       {"uint64_t", 8},
        {"unsigned char", 1}, {"unsigned short", 2}, {"unsigned int", 4},  {"unsigned long", 8},
        {"signed char", 1},   {"complex64_t", 8},    {"complex128_t", 16},
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
        case CL_KERNEL_ARG_ADDRESS_LOCAL: p.kind = ParamInfo::Kind::local_pointer; break;
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

}  // namespace

OpenClModule::OpenClModule(std::shared_ptr<OpenClContext> context, std::size_t device_index, Handle<cl_program> program)
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
    check(cl().clGetProgramInfo(program_.get(), CL_PROGRAM_KERNEL_NAMES, size, names.data(), nullptr),
          "clGetProgramInfo");
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

OpenClKernel::OpenClKernel(std::shared_ptr<OpenClContext> context, std::size_t device_index, Handle<cl_kernel> kernel)
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
    if (std::none_of(args.begin(), args.end(),
                     [&](const KernelArg& arg) { return arg.kind == KernelArg::Kind::shared_pointer; })) {
        return kernel_.get();
    }
    bool fresh = !svm_kernel_;
    for (std::size_t i = 0; i < args.size() && i < svm_arguments_.size(); ++i) {
        if (svm_arguments_[i] && !is_svm(args[i])) fresh = true;
    }
    if (fresh) {
        cl_program program = nullptr;
        check(cl().clGetKernelInfo(kernel_.get(), CL_KERNEL_PROGRAM, sizeof program, &program, nullptr),
              "clGetKernelInfo");
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

void OpenClKernel::set_argument(const OpenClLibrary& cl, cl_kernel kernel, cl_uint index, const KernelArg& arg) {
    if (arg.kind == KernelArg::Kind::buffer) {
        cl_mem mem =
            arg.buffer != nullptr ? static_cast<OpenClBuffer*>(arg.buffer)->region(arg.offset, arg.size) : nullptr;
        check(cl.clSetKernelArg(kernel, index, sizeof(cl_mem), &mem), "clSetKernelArg");
    } else if (arg.kind == KernelArg::Kind::scalar) {
        check(cl.clSetKernelArg(kernel, index, arg.size, arg.bytes != nullptr ? arg.bytes : arg.scalar),
              "clSetKernelArg");
    } else if (arg.kind == KernelArg::Kind::image) {
        // The cl_mem, and for a sampled image the cl_sampler after it (opencl_image.cpp).
        check(cl.clSetKernelArg(kernel, index, sizeof(cl_mem), arg.scalar), "clSetKernelArg");
        if (arg.param_count == 2) {
            check(cl.clSetKernelArg(kernel, index + 1, sizeof(cl_sampler), arg.scalar + sizeof(cl_mem)),
                  "clSetKernelArg");
        }
    } else {
        set_svm_argument(kernel, index, arg.pointer);
    }
}

bool OpenClKernel::set_changed_arguments(const OpenClLibrary& cl, std::span<const KernelArg> args) {
    // Room for every parameter at once (an argument fills at most two), so the loop checks no size.
    if (set_arguments_.size() < 2 * args.size()) set_arguments_.resize(2 * args.size());
    SetArgument* const slots = set_arguments_.data();
    cl_kernel kernel = kernel_.get();
    cl_uint index = 0;  // the parameter args[i] starts at (an OpenCL sampled image fills two)
    // Buffers and small scalars, nearly every argument, are compared and set here, inline: this
    // loop runs for every argument of every launch. A slot is written only once its
    // clSetKernelArg succeeded; a call that fails leaves the driver's argument unknown, and
    // forget_and_throw says so.
    for (const KernelArg& arg : args) {
        SetArgument& slot = slots[index];
        if (arg.kind == KernelArg::Kind::buffer) {
            auto* const buffer = static_cast<OpenClBuffer*>(arg.buffer);
            const SetArgument value{SetArgument::buffer, buffer != nullptr ? buffer->serial() : 0, arg.offset,
                                    arg.size};
            if (!slot.same_as(value)) {
                cl_mem mem = buffer != nullptr ? buffer->region(arg.offset, arg.size) : nullptr;
                const cl_int status = cl.clSetKernelArg(kernel, index, sizeof(cl_mem), &mem);
                if (status != CL_SUCCESS) [[unlikely]]
                    forget_and_throw(slot, status);
                slot = value;
            }
        } else if (arg.kind == KernelArg::Kind::scalar && arg.bytes == nullptr && arg.size <= sizeof arg.scalar) {
            // All 16 bytes, whatever the size: bytes past it that differ only cost a needless set.
            std::uint64_t words[2];
            std::memcpy(words, arg.scalar, sizeof words);
            const SetArgument value{SetArgument::scalar, words[0], words[1], arg.size};
            if (!slot.same_as(value)) {
                const cl_int status = cl.clSetKernelArg(kernel, index, arg.size, arg.scalar);
                if (status != CL_SUCCESS) [[unlikely]]
                    forget_and_throw(slot, status);
                slot = value;
            }
        } else if (arg.kind == KernelArg::Kind::shared_pointer) {
            return false;
        } else {
            // Images and larger structs: set every time, remembered as unknown.
            slot = SetArgument{};
            if (arg.param_count == 2) slots[index + 1] = SetArgument{};
            set_argument(cl, kernel, index, arg);
        }
        index += arg.param_count;
    }
    return true;
}

void OpenClKernel::forget_and_throw(SetArgument& slot, cl_int status) {
    slot = SetArgument{};
    throw_error(status, "clSetKernelArg");
}

std::shared_ptr<Event> OpenClKernel::launch(Queue& queue, unsigned dims, const std::size_t* global_size,
                                            const std::size_t* local_size, std::size_t dynamic_local_mem,
                                            std::span<const KernelArg> args, bool want_event) {
    if (dynamic_local_mem != 0) {
        throw UnsupportedError(
            "dynamic local memory (LOCAL_MEM_DYNAMIC) is CUDA only; on OpenCL declare LOCAL_MEM_DECL arrays of "
            "a size fixed when the program is rendered");
    }
    const OpenClLibrary& library = cl();
    // The lock keeps another thread's arguments from landing between this launch's
    // clSetKernelArg calls and its enqueue; a launch without arguments sets none.
    std::unique_lock lock(launch_lock_, std::defer_lock);
    cl_kernel kernel = kernel_.get();
    if (!args.empty()) {
        lock.lock();
        // Only kernel_'s arguments are remembered (svm_kernel_ is made anew at times), and only
        // while nobody else holds its handle; launches with SVM pointers go to svm_kernel_.
        if (handle_given_.load(std::memory_order_relaxed) || !set_changed_arguments(library, args)) {
            kernel = kernel_for(args);
            cl_uint index = 0;
            for (const KernelArg& arg : args) {
                set_argument(library, kernel, index, arg);
                index += arg.param_count;
            }
        }
    }
    cl_event event = nullptr;
    auto& cl_queue = static_cast<OpenClQueue&>(queue);
    check(library.clEnqueueNDRangeKernel(cl_queue.handle(), kernel, dims, nullptr, global_size, local_size, 0, nullptr,
                                         want_event ? &event : nullptr),
          "clEnqueueNDRangeKernel");
    Handle<cl_event> owned(event);
    if (!want_event) return nullptr;
    return std::make_shared<OpenClEvent>(context_, std::move(owned));
}

}  // namespace kjarni::backend::opencl
