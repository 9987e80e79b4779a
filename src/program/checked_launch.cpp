// The one checked launch path (see checked_launch.hpp): the checks of a launch's queue, sizes and
// arguments against what the kernel declares. The usual arguments pass a quick first check of a
// few instructions each (args_fit_at_once, inlined into the launches); the full checks here run
// only for the rest, and name what does not fit.

#include "program/checked_launch.hpp"

#include <fmt/format.h>

#include "kjarni/error.hpp"

namespace kjarni::detail {

namespace {

using ParamKind = backend::ParamInfo::Kind;

std::string describe_param(std::size_t index, const backend::ParamInfo& param) {
    if (param.name.empty()) return fmt::format("argument {}", index);
    return fmt::format("argument {} ('{}')", index, param.name);
}

std::string declared_param(const backend::ParamInfo& param) {
    const std::string type = param.type_name.empty() ? "" : "'" + param.type_name + "' ";
    switch (param.kind) {
    case ParamKind::global_pointer: return type + "(a global memory pointer: pass a Buffer or ManagedMemory)";
    case ParamKind::local_pointer: return type + "(a local memory pointer, which kjarni cannot pass)";
    case ParamKind::scalar:
        return param.size != 0 ? fmt::format("{}({} bytes by value)", type, param.size) : type + "(by value)";
    case ParamKind::image: return type + "(an image: pass an Image to write it, image.sampled(sampler) to read it)";
    case ParamKind::sampler:
        return type + "(a sampler: declare the image with KJARNI_IMAGE*_READ and pass image.sampled(sampler))";
    case ParamKind::unknown: break;
    }
    return fmt::format("{} bytes", param.size);
}

[[noreturn]] void param_mismatch(std::string_view kernel, std::size_t index, const backend::ParamInfo& param,
                                 const KernelArg& arg) {
    const std::string given = arg.kind == KernelArg::Kind::buffer           ? std::string("a Buffer")
                              : arg.kind == KernelArg::Kind::shared_pointer ? std::string("a ManagedMemory")
                              : arg.kind == KernelArg::Kind::image
                                  ? std::string(arg.param_count == 2 ? "a SampledImage" : "an Image")
                                  : fmt::format("a scalar of {} bytes", arg.size);
    throw ArgumentError(describe_param(index, param),
                        fmt::format("kernel '{}' declares {}, {} was given", kernel, declared_param(param), given));
}

// Arguments fill parameters in order, most one each; an OpenCL SampledImage fills two (the image
// and its sampler), so the parameters are walked with their own cursor.
std::size_t params_given_by(std::span<const KernelArg> args) {
    std::size_t count = 0;
    for (const KernelArg& arg : args) count += arg.param_count;
    return count;
}

/// Every check of a launch's arguments, each kind of argument against each kind of parameter;
/// ArgumentError naming the first that does not fit.
void check_every_arg(std::string_view kernel, const std::vector<ParamCheck>& checks,
                     const std::vector<backend::ParamInfo>& params, std::span<const KernelArg> args,
                     const Queue& queue) {
    if (!checks.empty() && checks.size() != params_given_by(args)) {
        throw ArgumentError("args", fmt::format("kernel '{}' takes {} arguments, {} given", kernel, checks.size(),
                                                params_given_by(args)));
    }
    const void* const context = backend_of(queue.device().context()).get();
    const std::size_t device_index = queue.device().index();
    std::size_t p = 0;  // the parameter args[i] starts at
    for (std::size_t i = 0; i < args.size(); p += args[i].param_count, ++i) {
        const KernelArg& arg = args[i];
        // Managed memory is a pointer too, usable on every device of its context.
        const bool is_shared = arg.kind == KernelArg::Kind::shared_pointer;
        const bool is_image = arg.kind == KernelArg::Kind::image;
        const bool is_buffer = arg.kind == KernelArg::Kind::buffer || is_shared;
        const bool has_memory = is_buffer || is_image;
        // Memory of another context: its handle means nothing to the kernel's context (OpenCL
        // refuses it at the enqueue, CUDA would read another context's address space).
        if (has_memory && arg.context != nullptr && arg.context != context) {
            throw ArgumentError(params.empty() ? fmt::format("argument {}", i) : describe_param(p, params[p]),
                                fmt::format("kernel '{}': the {} belongs to another context than the queue", kernel,
                                            is_shared  ? "managed memory"
                                            : is_image ? "image"
                                                       : "buffer"));
        }
        if (!is_shared && has_memory && arg.device_index != device_index) {
            throw ArgumentError(params.empty() ? fmt::format("argument {}", i) : describe_param(p, params[p]),
                                fmt::format("kernel '{}': the {} is on device {}, the launch on device {} ('{}')",
                                            kernel, is_image ? "image" : "buffer", arg.device_index,
                                            queue.device().index(), queue.device().name()));
        }
        if (checks.empty()) continue;
        const ParamCheck& param = checks[p];
        switch (param.kind) {
        case ParamKind::global_pointer:
            if (!is_buffer) param_mismatch(kernel, p, params[p], arg);
            break;
        case ParamKind::local_pointer: param_mismatch(kernel, p, params[p], arg);
        case ParamKind::scalar: {
            // CUDA reports a written image's parameter (a 16-byte surface struct by value) as a
            // scalar of its size; no OpenCL image argument is 16 bytes with one parameter.
            const bool cuda_surface = is_image && arg.param_count == 1 && arg.size == 16;
            if ((has_memory && !cuda_surface) || (param.size != 0 && param.size != arg.size)) {
                param_mismatch(kernel, p, params[p], arg);
            }
            break;
        }
        case ParamKind::image:
            // A SampledImage's second parameter must be the sampler, an Image's next one must not.
            if (!is_image || (arg.param_count == 2) != param.sampler_next) param_mismatch(kernel, p, params[p], arg);
            break;
        case ParamKind::sampler: param_mismatch(kernel, p, params[p], arg);
        case ParamKind::unknown:
            // CUDA reports sizes only: a buffer is an 8-byte pointer.
            if (param.size != 0 && param.size != (is_buffer ? sizeof(void*) : arg.size)) {
                param_mismatch(kernel, p, params[p], arg);
            }
            break;
        }
    }
}

}  // namespace

std::vector<ParamCheck> param_checks(const std::vector<backend::ParamInfo>& params) {
    std::vector<ParamCheck> checks;
    checks.reserve(params.size());
    for (std::size_t p = 0; p < params.size(); ++p) {
        const bool sampler_next = p + 1 < params.size() && params[p + 1].kind == ParamKind::sampler;
        const ParamKind kind = params[p].kind;
        const std::size_t size = params[p].size;
        const bool takes_buffer =
            kind == ParamKind::global_pointer || (kind == ParamKind::unknown && (size == 0 || size == sizeof(void*)));
        const bool takes_scalar = kind == ParamKind::scalar || kind == ParamKind::unknown;
        checks.push_back(
            ParamCheck{kind, sampler_next, takes_buffer, takes_scalar ? size : ParamCheck::no_scalar, size});
    }
    return checks;
}

CheckedKernel checked_kernel(backend::Kernel& kernel, const BoundDevice& device, std::string name) {
    return CheckedKernel{&kernel,         backend_of(device.context()).get(), device.index(),
                         std::move(name), param_checks(kernel.params()),      PassedArgumentTypes{}};
}

void check_local_mem(const CheckedKernel& kernel, const BoundDevice& device, std::size_t local_mem) {
    const std::size_t available = kernel.kernel->attributes().max_dynamic_local_bytes;
    if (local_mem > available) {
        throw ArgumentError("local_mem", fmt::format("kernel '{}': {} bytes of dynamic local memory requested, "
                                                     "{} are left on device {} ('{}')",
                                                     kernel.name, local_mem, available, device.index(), device.name()));
    }
}

void queue_mismatch(const CheckedKernel& kernel, const Queue& queue) {
    if (backend_of(queue.device().context()).get() != kernel.context) {
        throw ArgumentError("queue", fmt::format("kernel '{}': the queue belongs to another context", kernel.name));
    }
    throw ArgumentError("queue", fmt::format("kernel '{}' was not prepared for device {} ('{}')", kernel.name,
                                             queue.device().index(), queue.device().name()));
}

void check_sizes(const CheckedKernel& kernel, std::size_t dims, const std::size_t* global, const std::size_t* local) {
    if (dims < 1 || dims > 3) {
        throw ArgumentError("global_size",
                            fmt::format("kernel '{}': {} dimensions, 1 to 3 are possible", kernel.name, dims));
    }
    std::size_t total = 1;
    for (std::size_t d = 0; d < dims; ++d) {
        if (local[d] == 0 || global[d] % local[d] != 0) {
            throw ArgumentError("local_size", fmt::format("kernel '{}': the local size {} of dimension {} does not "
                                                          "divide the global size {}",
                                                          kernel.name, local[d], d, global[d]));
        }
        total *= local[d];
    }
    const std::size_t most = kernel.kernel->attributes().max_total_local_size;
    if (total > most) {
        throw ArgumentError("local_size",
                            fmt::format("kernel '{}': {} work items per group, the kernel takes at most {}",
                                        kernel.name, total, most));
    }
}

void check_args_fully(const CheckedKernel& kernel, std::span<const KernelArg> args, const Queue& queue) {
    check_every_arg(kernel.name, kernel.checks, kernel.kernel->params(), args, queue);
}

}  // namespace kjarni::detail
