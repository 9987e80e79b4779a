#include "kjarni/static_kernel.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdint>
#include <limits>

#include "kjarni/error.hpp"
#include "program/static_kernel_state.hpp"

namespace kjarni {

namespace detail {

const StaticDeviceKernel& StaticKernelState::on(const BoundDevice& device) const {
    for (const auto& entry : entries) {
        if (entry.device == device) return entry;
    }
    throw ArgumentError("device", fmt::format("static kernel '{}' was not built for device {} ('{}')", name,
                                              device.index(), device.name()));
}

namespace {

// VSIZE_T is unsigned int on CUDA and size_t on OpenCL (see prelude.cpp).
std::uint64_t max_vsize(const BoundDevice& device) {
    return device.context().api().id() == ApiId::cuda() ? std::numeric_limits<std::uint32_t>::max()
                                                        : std::numeric_limits<std::uint64_t>::max();
}

StaticDeviceKernel build_on(const BoundDevice& device, const StaticSizes& sizes, const StaticKernelRequest& request) {
    const DeviceParameters limits = request.device_limits ? request.device_limits(device) : device.params();
    // The kernel's own limit on work items per group is known once it is compiled, and the source
    // depends on the local size: plan within the device's limit, compile, and plan and compile
    // again within the kernel's if that is lower (an explicit local size above it is an error).
    std::optional<std::size_t> kernel_max;
    for (int attempt = 0; attempt < 2; ++attempt) {
        const VsizePlan plan =
            plan_vsize(sizes.global_size, sizes.local_size, limits, kernel_max, max_vsize(device), request.name);
        Globals globals = request.render_globals;
        globals.insert_or_assign("static", vsize_modules(plan));
        // Rendered once, by Program (a plain string given to Program is rendered as a template too).
        Program program(device, request.source, request.render_args, globals, request.options);
        const Kernel kernel = program.kernel(request.name);
        const std::size_t max_total = kernel.max_total_local_sizes().at(0);
        if (plan.total_local > max_total) {
            kernel_max = max_total;
            continue;
        }
        const Sizes real_global = plan.real_global_size();
        const Sizes real_local = plan.real_local_size();
        PreparedKernel prepared = kernel.prepare(real_global, real_local);
        return StaticDeviceKernel{device, plan, std::move(program), std::move(prepared), real_global, real_local};
    }
    throw Error(fmt::format("static kernel '{}': no local size within the kernel's limit of {} on device {} ('{}')",
                            request.name, kernel_max.value_or(0), device.index(), device.name()));
}

}  // namespace

std::shared_ptr<const StaticKernelState> build_static_kernel(const StaticKernelRequest& request) {
    if (request.devices.size() == 0) throw ArgumentError("devices", "a static kernel needs at least one device");
    if (request.render_globals.contains("static")) {
        throw ArgumentError("render_globals", fmt::format("static kernel '{}': the global 'static' is reserved for "
                                                          "the virtual size modules",
                                                          request.name));
    }
    auto state = std::make_shared<StaticKernelState>(StaticKernelState{request.devices, request.name, {}});
    for (const BoundDevice& device : request.devices.to_vector()) {
        const auto sizes = request.sizes.sizes.find(device.index());
        if (sizes == request.sizes.sizes.end()) {
            throw ArgumentError("sizes", fmt::format("static kernel '{}': no sizes for device {}", request.name,
                                                     device.index()));
        }
        state->entries.push_back(build_on(device, sizes->second, request));
    }
    return state;
}

}  // namespace detail

namespace {

PerDeviceSizes same_everywhere(const BoundMultiDevice& devices, const Sizes& global_size,
                               const std::optional<Sizes>& local_size) {
    PerDeviceSizes sizes;
    for (std::size_t index : devices.indices()) sizes.sizes[index] = StaticSizes{global_size, local_size};
    return sizes;
}

// The devices of `devices` that have sizes, in their order; every key must be one of them.
BoundMultiDevice keyed_devices(const BoundMultiDevice& devices, const PerDeviceSizes& sizes) {
    std::vector<std::size_t> positions;
    for (std::size_t position = 0; position < devices.size(); ++position) {
        if (sizes.sizes.contains(devices.indices()[position])) positions.push_back(position);
    }
    for (const auto& [index, size] : sizes.sizes) {
        if (std::find(devices.indices().begin(), devices.indices().end(), index) == devices.indices().end()) {
            throw ArgumentError("sizes", fmt::format("device {} is not one of the given devices ({})", index,
                                                     fmt::join(devices.indices(), ", ")));
        }
    }
    if (positions.empty()) throw ArgumentError("sizes", "no device given");
    return devices.subset(positions);
}

}  // namespace

StaticKernel::StaticKernel(const BoundMultiDevice& devices, const TemplateSource& source, std::string_view name,
                           const Sizes& global_size, const std::optional<Sizes>& local_size,
                           const std::vector<Value>& render_args, const Globals& render_globals,
                           const ProgramOptions& options)
    : StaticKernel(devices, source, name, same_everywhere(devices, global_size, local_size), render_args,
                   render_globals, options) {}

StaticKernel::StaticKernel(const BoundDevice& device, const TemplateSource& source, std::string_view name,
                           const Sizes& global_size, const std::optional<Sizes>& local_size,
                           const std::vector<Value>& render_args, const Globals& render_globals,
                           const ProgramOptions& options)
    : StaticKernel(BoundMultiDevice(device.context(), {device.index()}), source, name, global_size, local_size,
                   render_args, render_globals, options) {}

StaticKernel::StaticKernel(const BoundMultiDevice& devices, const TemplateSource& source, std::string_view name,
                           const PerDeviceSizes& sizes, const std::vector<Value>& render_args,
                           const Globals& render_globals, const ProgramOptions& options)
    : state_(detail::build_static_kernel(detail::StaticKernelRequest{
          keyed_devices(devices, sizes), source, std::string(name), sizes, render_args, render_globals, options, {}})) {
}

const PreparedKernel& StaticKernel::prepared(const Queue& queue) const { return state_->on(queue.device()).prepared; }

void StaticKernel::set_constant_array(const Queue& queue, std::string_view name,
                                      std::span<const std::byte> host) const {
    state_->on(queue.device()).program.set_constant_array(queue, name, host);
}

void StaticKernel::set_constant_array(const Queue& queue, std::string_view name, const Buffer& source) const {
    state_->on(queue.device()).program.set_constant_array(queue, name, source);
}

const BoundMultiDevice& StaticKernel::devices() const { return state_->devices; }

const std::string& StaticKernel::name() const { return state_->name; }

const std::string& StaticKernel::source(const BoundDevice& device) const {
    const auto& entry = state_->on(device);
    return entry.program.source(entry.device);
}

const Program& StaticKernel::program(const BoundDevice& device) const { return state_->on(device).program; }

const Sizes& StaticKernel::global_size(const BoundDevice& device) const { return state_->on(device).plan.global_size; }

const Sizes& StaticKernel::local_size(const BoundDevice& device) const { return state_->on(device).plan.local_size; }

const Sizes& StaticKernel::real_global_size(const BoundDevice& device) const {
    return state_->on(device).real_global_size;
}

const Sizes& StaticKernel::real_local_size(const BoundDevice& device) const {
    return state_->on(device).real_local_size;
}

}  // namespace kjarni
