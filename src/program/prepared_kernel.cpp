// The launch path: find the device's entry, check the arguments against what the kernel declares,
// hand them to the backend. No allocation, no string work, no look-up by name on success; the
// error paths format messages. A bound kernel is checked once and hands its arguments over as
// they are.

#include <fmt/format.h>

#include "core/recording_registry.hpp"
#include "kjarni/error.hpp"
#include "kjarni/program.hpp"
#include "program/program_state.hpp"

namespace kjarni {

namespace {

using Kind = backend::ParamInfo::Kind;

std::string describe(std::size_t index, const backend::ParamInfo& param) {
    if (param.name.empty()) return fmt::format("argument {}", index);
    return fmt::format("argument {} ('{}')", index, param.name);
}

std::string declared(const backend::ParamInfo& param) {
    const std::string type = param.type_name.empty() ? "" : "'" + param.type_name + "' ";
    switch (param.kind) {
        case Kind::global_pointer:
            return type + "(a global memory pointer: pass a Buffer or ManagedMemory)";
        case Kind::local_pointer:
            return type + "(a local memory pointer, which kjarni cannot pass)";
        case Kind::scalar:
            return param.size != 0 ? fmt::format("{}({} bytes by value)", type, param.size) : type + "(by value)";
        case Kind::image:
            return type + "(an image: pass an Image to write it, image.sampled(sampler) to read it)";
        case Kind::sampler:
            return type + "(a sampler: declare the image with KJARNI_IMAGE*_READ and pass image.sampled(sampler))";
        case Kind::unknown:
            break;
    }
    return fmt::format("{} bytes", param.size);
}

[[noreturn]] void mismatch(std::string_view kernel, std::size_t index, const backend::ParamInfo& param,
                           const detail::KernelArg& arg) {
    const std::string given = arg.kind == detail::KernelArg::Kind::buffer           ? std::string("a Buffer")
                              : arg.kind == detail::KernelArg::Kind::shared_pointer ? std::string("a ManagedMemory")
                              : arg.kind == detail::KernelArg::Kind::image
                                  ? std::string(arg.param_count == 2 ? "a SampledImage" : "an Image")
                                  : fmt::format("a scalar of {} bytes", arg.size);
    throw ArgumentError(describe(index, param),
                        fmt::format("kernel '{}' declares {}, {} was given", kernel, declared(param), given));
}

// Arguments fill parameters in order, most one each; an OpenCL SampledImage fills two (the image
// and its sampler), so the parameters are walked with their own cursor.
std::size_t params_given(std::span<const detail::KernelArg> args) {
    std::size_t count = 0;
    for (const detail::KernelArg& arg : args) count += arg.param_count;
    return count;
}

/// Every check of a launch's arguments, each kind of argument against each kind of parameter;
/// ArgumentError naming the first that does not fit.
void check_args_fully(std::string_view kernel, const std::vector<detail::ParamCheck>& checks,
                      const std::vector<backend::ParamInfo>& params, std::span<const detail::KernelArg> args,
                      const Queue& queue) {
    if (!checks.empty() && checks.size() != params_given(args)) {
        throw ArgumentError("args", fmt::format("kernel '{}' takes {} arguments, {} given", kernel, checks.size(),
                                                params_given(args)));
    }
    const void* const context = detail::backend_of(queue.device().context()).get();
    const std::size_t device_index = queue.device().index();
    std::size_t p = 0;  // the parameter args[i] starts at
    for (std::size_t i = 0; i < args.size(); p += args[i].param_count, ++i) {
        const detail::KernelArg& arg = args[i];
        // Managed memory is a pointer too, usable on every device of its context.
        const bool is_shared = arg.kind == detail::KernelArg::Kind::shared_pointer;
        const bool is_image = arg.kind == detail::KernelArg::Kind::image;
        const bool is_buffer = arg.kind == detail::KernelArg::Kind::buffer || is_shared;
        const bool has_memory = is_buffer || is_image;
        // Memory of another context: its handle means nothing to the kernel's context (OpenCL
        // refuses it at the enqueue, CUDA would read another context's address space).
        if (has_memory && arg.context != nullptr && arg.context != context) {
            throw ArgumentError(params.empty() ? fmt::format("argument {}", i) : describe(p, params[p]),
                                fmt::format("kernel '{}': the {} belongs to another context than the queue", kernel,
                                            is_shared ? "managed memory" : is_image ? "image" : "buffer"));
        }
        if (!is_shared && has_memory && arg.device_index != device_index) {
            throw ArgumentError(params.empty() ? fmt::format("argument {}", i) : describe(p, params[p]),
                                fmt::format("kernel '{}': the {} is on device {}, the launch on device {} ('{}')",
                                            kernel, is_image ? "image" : "buffer", arg.device_index,
                                            queue.device().index(), queue.device().name()));
        }
        if (checks.empty()) continue;
        const detail::ParamCheck& param = checks[p];
        switch (param.kind) {
            case Kind::global_pointer:
                if (!is_buffer) mismatch(kernel, p, params[p], arg);
                break;
            case Kind::local_pointer:
                mismatch(kernel, p, params[p], arg);
            case Kind::scalar: {
                // CUDA reports a written image's parameter (a 16-byte surface struct by value) as a
                // scalar of its size; no OpenCL image argument is 16 bytes with one parameter.
                const bool cuda_surface = is_image && arg.param_count == 1 && arg.size == 16;
                if ((has_memory && !cuda_surface) || (param.size != 0 && param.size != arg.size)) {
                    mismatch(kernel, p, params[p], arg);
                }
                break;
            }
            case Kind::image:
                // A SampledImage's second parameter must be the sampler, an Image's next one must not.
                if (!is_image || (arg.param_count == 2) != param.sampler_next) mismatch(kernel, p, params[p], arg);
                break;
            case Kind::sampler:
                mismatch(kernel, p, params[p], arg);
            case Kind::unknown:
                // CUDA reports sizes only: a buffer is an 8-byte pointer.
                if (param.size != 0 && param.size != (is_buffer ? sizeof(void*) : arg.size)) {
                    mismatch(kernel, p, params[p], arg);
                }
                break;
        }
    }
}

/// The checks of a launch's arguments. A first pass accepts the usual arguments in a few
/// instructions each (a Buffer of the queue's context and device for a pointer parameter, a scalar
/// of the parameter's size); anything it does not accept at once, images and managed memory
/// included, goes through the full checks, which also name what does not fit.
void check_args(std::string_view kernel, const std::vector<detail::ParamCheck>& checks,
                const std::vector<backend::ParamInfo>& params, std::span<const detail::KernelArg> args,
                const Queue& queue) {
    if (args.empty() && checks.empty()) return;
    // Parameters are unknown where the driver cannot tell them (no checks): the full checks then
    // look at the memory alone.
    if (checks.size() == args.size()) {
        const void* const context = detail::backend_of(queue.device().context()).get();
        const std::size_t device_index = queue.device().index();
        bool accepted = true;
        for (std::size_t i = 0; i < args.size() && accepted; ++i) {
            const detail::KernelArg& arg = args[i];
            const detail::ParamCheck& param = checks[i];
            if (arg.param_count != 1) {
                accepted = false;
            } else if (arg.kind == detail::KernelArg::Kind::scalar) {
                accepted = param.takes_scalar && (param.size == 0 || param.size == arg.size);
            } else {
                accepted = arg.kind == detail::KernelArg::Kind::buffer && param.takes_buffer &&
                           arg.device_index == device_index && (arg.context == nullptr || arg.context == context);
            }
        }
        if (accepted) return;
    }
    check_args_fully(kernel, checks, params, args, queue);
}

/// The entry of the queue's device; ArgumentError for a queue of another context or device.
const detail::PreparedEntry& entry_for(const detail::PreparedState& state, const Queue& queue) {
    const std::string& name = state.source->name;
    if (detail::backend_of(queue.device().context()).get() != state.context) {
        throw ArgumentError("queue", fmt::format("kernel '{}': the queue belongs to another context", name));
    }
    const detail::PreparedEntry* entry = nullptr;
    for (const auto& candidate : state.entries) {
        if (candidate.device_index == queue.device().index()) entry = &candidate;
    }
    if (entry == nullptr) {
        throw ArgumentError("queue", fmt::format("kernel '{}' was not prepared for device {} ('{}')", name,
                                                 queue.device().index(), queue.device().name()));
    }
    return *entry;
}

/// The backend's launch of `entry` on `queue` with arguments already checked; on a recording
/// queue, the recording's (kept alive there by `owner`).
std::shared_ptr<backend::Event> launch_entry(const detail::PreparedEntry& entry, const Queue& queue,
                                             std::size_t local_mem, std::span<const detail::KernelArg> args,
                                             bool want_event, const std::shared_ptr<const detail::PreparedState>& owner) {
    if (auto* recording = detail::recording_on(detail::backend_of(queue).get())) {
        if (want_event) detail::refuse_recording_call("a launch that returns an Event (use enqueue)");
        recording->launch(*entry.kernel, owner, owner->source->name, entry.dims, entry.global.data(),
                          entry.local.data(), local_mem, args);
        return nullptr;
    }
    return entry.kernel->launch(*detail::backend_of(queue), entry.dims, entry.global.data(), entry.local.data(),
                                local_mem, args, want_event);
}

/// A bound kernel's launch: its packed arguments as they are.
std::shared_ptr<backend::Event> launch_bound(const detail::BoundState& bound, bool want_event) {
    return launch_entry(*bound.entry, bound.queue, bound.prepared->local_mem, bound.args, want_event, bound.prepared);
}

}  // namespace

namespace detail {

std::vector<ParamCheck> param_checks(const std::vector<backend::ParamInfo>& params) {
    std::vector<ParamCheck> checks;
    checks.reserve(params.size());
    for (std::size_t p = 0; p < params.size(); ++p) {
        const bool sampler_next = p + 1 < params.size() && params[p + 1].kind == Kind::sampler;
        const Kind kind = params[p].kind;
        const std::size_t size = params[p].size;
        const bool takes_buffer =
            kind == Kind::global_pointer || (kind == Kind::unknown && (size == 0 || size == sizeof(void*)));
        const bool takes_scalar = kind == Kind::scalar || kind == Kind::unknown;
        checks.push_back(ParamCheck{kind, sampler_next, takes_buffer, takes_scalar, size});
    }
    return checks;
}

}  // namespace detail

std::shared_ptr<backend::Event> PreparedKernel::launch(const Queue& queue, std::span<const detail::KernelArg> args,
                                                       bool want_event) const {
    const detail::PreparedState& state = *state_;
    const detail::PreparedEntry& entry = entry_for(state, queue);
    check_args(state.source->name, entry.checks, entry.kernel->params(), args, queue);
    return launch_entry(entry, queue, state.local_mem, args, want_event, state_);
}

BoundKernel PreparedKernel::bind_packed(const Queue& queue, std::vector<detail::KernelArg> args,
                                        std::shared_ptr<const void> owner) const {
    const detail::PreparedEntry& entry = entry_for(*state_, queue);
    check_args(state_->source->name, entry.checks, entry.kernel->params(), args, queue);
    return BoundKernel(std::make_shared<const detail::BoundState>(
        detail::BoundState{state_, queue, &entry, std::move(args), std::move(owner)}));
}

Event BoundKernel::operator()() const { return detail::BackendAccess::make<Event>(launch_bound(*state_, true)); }

void BoundKernel::enqueue() const { launch_bound(*state_, false); }

const Queue& BoundKernel::queue() const { return state_->queue; }

const Sizes& PreparedKernel::global_size(std::size_t device_index) const {
    for (const auto& entry : state_->entries) {
        if (entry.device_index == device_index) return entry.global_size;
    }
    throw ArgumentError("device_index", fmt::format("kernel not prepared for device {}", device_index));
}

const Sizes& PreparedKernel::local_size(std::size_t device_index) const {
    for (const auto& entry : state_->entries) {
        if (entry.device_index == device_index) return entry.local_size;
    }
    throw ArgumentError("device_index", fmt::format("kernel not prepared for device {}", device_index));
}

}  // namespace kjarni
