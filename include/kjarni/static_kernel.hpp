#pragma once
/// Static kernels (grunnur's StaticKernel and VsizeModules): a kernel rendered,
/// compiled and prepared once for fixed sizes, then called with its arguments only.
///
/// The sizes are virtual: any number of dimensions (1 to StaticKernel::max_dims), global sizes that
/// need not be multiples of the local sizes, and more groups than the device takes in one dimension.
/// The template receives a global `static` whose attributes are modules rendering the id and size
/// functions of the virtual grid, to be used instead of get_global_id() and friends:
///
///     KERNEL void fill(GLOBAL_MEM int* out)
///     {
///         if (${static.skip}()) return;  // a work item of the padding
///         out[${static.global_flat_id}()] = (int)${static.global_id}(1);
///     }
///
///     ${static.local_id}(dim), ${static.local_size}(dim), ${static.group_id}(dim),
///     ${static.num_groups}(dim), ${static.global_id}(dim), ${static.global_size}(dim):
///         VSIZE_T functions of `unsigned int dim`; past the virtual dimensions ids are 0, sizes 1.
///     ${static.global_flat_id}(), ${static.global_flat_size}(): the global id and size with all
///         dimensions flattened in C order (the last dimension fastest, as grunnur's), so that
///         a C-ordered array of the global size is indexed by the flat id.
///     ${static.skip}(): bool, true for the work items of the padding, which must do nothing.
///
/// The virtual grid is mapped onto the device's real one of up to three dimensions (see
/// src/program/vsize.hpp); every virtual global id below the global size is visited by exactly one
/// work item that skip() lets through. \file

#include <array>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "kjarni/program_templates.hpp"

namespace kjarni {

/// The virtual sizes of a static kernel on one device. No local size: chosen automatically, within
/// the device's and the kernel's limits.
struct StaticSizes {
    Sizes global_size;
    std::optional<Sizes> local_size;
};

/// Sizes per device, keyed by context device index: the kernel is built for those devices only.
struct PerDeviceSizes {
    std::map<std::size_t, StaticSizes> sizes;
};

namespace detail {
struct StaticKernelState;
struct PackedLaunch;
}  // namespace detail

/// A kernel rendered, compiled and prepared once for fixed virtual sizes, then launched with its
/// arguments only (see the top of the file). Copies share the kernel.
class StaticKernel {
public:
    /// The most virtual dimensions.
    static constexpr std::size_t max_dims = 16;

    /// Renders `source` with the global `static` (and `render_globals`; a global of that name is an
    /// ArgumentError), compiles it and prepares kernel `name` on every device of `devices`.
    /// ArgumentError when the sizes are malformed or beyond what the device and the kernel allow
    /// (naming both limits); RenderError, CompileError as for Program.
    StaticKernel(const BoundMultiDevice& devices, const TemplateSource& source, std::string_view name,
                 const Sizes& global_size, const std::optional<Sizes>& local_size = std::nullopt,
                 const std::vector<Value>& render_args = {}, const Globals& render_globals = {},
                 const ProgramOptions& options = {});
    StaticKernel(const BoundDevice& device, const TemplateSource& source, std::string_view name,
                 const Sizes& global_size, const std::optional<Sizes>& local_size = std::nullopt,
                 const std::vector<Value>& render_args = {}, const Globals& render_globals = {},
                 const ProgramOptions& options = {});
    /// Sizes per device; every key must be one of `devices`.
    StaticKernel(const BoundMultiDevice& devices, const TemplateSource& source, std::string_view name,
                 const PerDeviceSizes& sizes, const std::vector<Value>& render_args = {},
                 const Globals& render_globals = {}, const ProgramOptions& options = {});

    /// Launches on the queue's device (one the kernel was built for).
    template <detail::KernelArgument... Args>
    Event operator()(const Queue& queue, const Args&... args) const {
        [[maybe_unused]] const detail::LaunchTarget target{0, queue.device().index()};
        const std::array<detail::KernelArg, sizeof...(Args)> packed{detail::pack(args, target)...};
        return detail::BackendAccess::make<Event>(
            prepared(queue).launch(queue, packed, true, detail::argument_types(queue.device(), args...)));
    }
    /// Launches on every device of the multi-queue; PerDevice arguments go by queue position.
    template <detail::KernelArgument... Args>
    std::vector<Event> operator()(const MultiQueue& queue, const Args&... args) const {
        std::vector<Event> events;
        for (std::size_t position = 0; position < queue.queues().size(); ++position) {
            const Queue& q = queue.queues()[position];
            [[maybe_unused]] const detail::LaunchTarget target{position, q.device().index()};
            const std::array<detail::KernelArg, sizeof...(Args)> packed{detail::pack(args, target)...};
            events.push_back(detail::BackendAccess::make<Event>(prepared(q).launch(q, packed, true)));
        }
        return events;
    }
    /// Launches without making an event.
    template <detail::KernelArgument... Args>
    void enqueue(const Queue& queue, const Args&... args) const {
        [[maybe_unused]] const detail::LaunchTarget target{0, queue.device().index()};
        const std::array<detail::KernelArg, sizeof...(Args)> packed{detail::pack(args, target)...};
        prepared(queue).launch(queue, packed, false, detail::argument_types(queue.device(), args...));
    }

    /// The kernel on the queue's device with its arguments fixed, checked and packed once (see
    /// PreparedKernel::bind): for loops that launch the same arguments.
    template <detail::KernelArgument... Args>
    BoundKernel bind(const Queue& queue, const Args&... args) const {
        return prepared(queue).bind(queue, args...);
    }
    /// Fills a constant array of the program on the queue's device (CUDA only; see Program).
    void set_constant_array(const Queue& queue, std::string_view name, std::span<const std::byte> host) const;
    void set_constant_array(const Queue& queue, std::string_view name, const Buffer& source) const;
    template <class T>
    void set_constant_array(const Queue& queue, std::string_view name, std::span<const T> host) const {
        set_constant_array(queue, name, std::as_bytes(host));
    }

    /// The devices the kernel was built for.
    const BoundMultiDevice& devices() const;
    const std::string& name() const;
    /// The full source compiled for a device (prelude and the rendered modules included).
    const std::string& source(const BoundDevice& device) const;
    /// The program compiled for a device.
    const Program& program(const BoundDevice& device) const;
    /// The virtual sizes on a device, the local size as given or as chosen.
    const Sizes& global_size(const BoundDevice& device) const;
    const Sizes& local_size(const BoundDevice& device) const;
    /// The real launch on a device (1 to 3 dimensions).
    const Sizes& real_global_size(const BoundDevice& device) const;
    const Sizes& real_local_size(const BoundDevice& device) const;

    explicit StaticKernel(std::shared_ptr<const detail::StaticKernelState> state) : state_(std::move(state)) {}

private:
    friend struct detail::PackedLaunch;  // launches with arguments packed at run time (bindings)
    const PreparedKernel& prepared(const Queue& queue) const;
    std::shared_ptr<const detail::StaticKernelState> state_;
};

}  // namespace kjarni
