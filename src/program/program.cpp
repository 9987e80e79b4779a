#include "kjarni/program.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <atomic>
#include <unistd.h>

#include "core/context_state.hpp"
#include "kjarni/error.hpp"
#include "kjarni/version.hpp"
#include "program/launch_geometry.hpp"
#include "program/module_cache.hpp"
#include "program/program_source.hpp"
#include "program/program_state.hpp"

namespace kjarni {

namespace detail {

const DeviceProgram& ProgramState::on(const BoundDevice& device) const {
    for (const DeviceProgram& p : programs) {
        if (p.device == device) return p;
    }
    throw ArgumentError("device", fmt::format("device {} ('{}') is not one this program was compiled for",
                                              device.index(), device.name()));
}

namespace {

backend::BuildOptions backend_options(const ProgramOptions& options) {
    backend::BuildOptions result;
    result.fast_math = options.fast_math;
    result.compiler_options = options.compiler_options;
    result.include_dirs = options.include_dirs;
    return result;
}

std::filesystem::path fresh_keep_dir(const BoundDevice& device) {
    static std::atomic<unsigned> counter{0};
    const auto dir = std::filesystem::temp_directory_path() /
                     fmt::format("kjarni-keep-{}-{}-dev{}", ::getpid(), counter++, device.index());
    std::filesystem::create_directories(dir);
    return dir;
}

std::shared_ptr<const ProgramState> build_all(const BoundMultiDevice& devices, std::string_view source,
                                              const ProgramOptions& options) {
    if (devices.size() == 0) throw ArgumentError("devices", "a program needs at least one device");
    auto state = std::make_shared<ProgramState>(ProgramState{devices, options, {}});
    const ApiId api = devices.context().api().id();
    const std::string full = full_source(api, source, options);
    for (const BoundDevice& device : devices.to_vector()) {
        DeviceProgram program{device, full, nullptr, std::nullopt};
        backend::BuildOptions build_options = backend_options(options);
        if (options.keep) {
            program.kept_files = fresh_keep_dir(device);
            build_options.keep_dir = program.kept_files;
        }
        program.module = obtain_module(device, full, build_options);
        state->programs.push_back(std::move(program));
    }
    notify_build_observer(source, options);
    return state;
}

}  // namespace
}  // namespace detail

// As in grunnur, a plain source is a template too (rendered with no arguments and no globals).
Program::Program(const BoundMultiDevice& devices, std::string_view source, const ProgramOptions& options)
    : state_(detail::build_all(devices, render_with_modules(std::string(source)), options)) {}

Program::Program(const BoundDevice& device, std::string_view source, const ProgramOptions& options)
    : Program(BoundMultiDevice(device.context(), {device.index()}), source, options) {}

Program::Program(const BoundMultiDevice& devices, const TemplateSource& source, const std::vector<Value>& render_args,
                 const Globals& render_globals, const ProgramOptions& options)
    : state_(detail::build_all(devices, render_with_modules(source, render_args, render_globals), options)) {}

Program::Program(const BoundDevice& device, const TemplateSource& source, const std::vector<Value>& render_args,
                 const Globals& render_globals, const ProgramOptions& options)
    : Program(BoundMultiDevice(device.context(), {device.index()}), source, render_args, render_globals, options) {}

const BoundMultiDevice& Program::devices() const { return state_->devices; }

const std::string& Program::source(const BoundDevice& device) const { return state_->on(device).source; }

std::optional<std::filesystem::path> Program::kept_files(const BoundDevice& device) const {
    return state_->on(device).kept_files;
}

std::vector<std::string> Program::kernel_names() const { return state_->programs.front().module->kernel_names(); }

Kernel Program::kernel(std::string_view name) const {
    auto state = std::make_shared<detail::KernelState>();
    state->program = state_;
    state->name = std::string(name);
    for (const auto& program : state_->programs) {
        auto kernel = program.module->kernel(state->name);
        if (!kernel) {
            throw ArgumentError("name", fmt::format("the program has no kernel '{}' (it has: {})", name,
                                                    fmt::join(program.module->kernel_names(), ", ")));
        }
        state->kernels.push_back(std::move(kernel));
    }
    return Kernel(std::move(state));
}

namespace {

const detail::DeviceProgram& constant_target(const detail::ProgramState& state, const Queue& queue,
                                             std::string_view name, std::size_t size) {
    const detail::DeviceProgram& program = state.on(queue.device());
    const auto actual = program.module->constant_size(std::string(name));
    if (!actual) {
        throw ArgumentError("name", fmt::format("the program declares no constant array '{}'", name));
    }
    if (size != *actual) {
        throw ArgumentError("data", fmt::format("constant array '{}' holds {} bytes, {} given", name, *actual, size));
    }
    return program;
}

}  // namespace

void Program::set_constant_array(const Queue& queue, std::string_view name, std::span<const std::byte> host) const {
    const auto& program = constant_target(*state_, queue, name, host.size());
    program.module->set_constant(*queue.backend(), std::string(name), host.data(), host.size());
}

void Program::set_constant_array(const Queue& queue, std::string_view name, const Buffer& source) const {
    if (!(source.device() == queue.device())) {
        throw ArgumentError("source", "the buffer is not on the queue's device");
    }
    const auto& program = constant_target(*state_, queue, name, source.size());
    program.module->set_constant(*queue.backend(), std::string(name), *source.backend(), source.offset(),
                                 source.size());
}

const std::string& Kernel::name() const { return state_->name; }

PreparedKernel Kernel::prepare(const Sizes& global_size, const std::optional<Sizes>& local_size,
                               std::size_t local_mem) const {
    std::map<std::size_t, Sizes> globals;
    std::map<std::size_t, std::optional<Sizes>> locals;
    for (const auto& program : state_->program->programs) {
        globals[program.device.index()] = global_size;
        locals[program.device.index()] = local_size;
    }
    return prepare(globals, locals, local_mem);
}

PreparedKernel Kernel::prepare(const std::map<std::size_t, Sizes>& global_sizes,
                               const std::map<std::size_t, std::optional<Sizes>>& local_sizes,
                               std::size_t local_mem) const {
    if (global_sizes.empty()) throw ArgumentError("global_sizes", "no device given");
    auto state = std::make_shared<detail::PreparedState>();
    state->source = state_;
    state->context = state_->program->devices.context().backend().get();
    state->local_mem = local_mem;
    const auto& programs = state_->program->programs;
    for (const auto& [device_index, global] : global_sizes) {
        const auto program = std::find_if(programs.begin(), programs.end(),
                                          [&](const auto& p) { return p.device.index() == device_index; });
        if (program == programs.end()) {
            throw ArgumentError("global_sizes", fmt::format("device {} is not one the program was compiled for",
                                                            device_index));
        }
        const auto& kernel = state_->kernels[static_cast<std::size_t>(program - programs.begin())];
        const auto local_entry = local_sizes.find(device_index);
        const std::optional<Sizes> local = local_entry == local_sizes.end() ? std::nullopt : local_entry->second;
        const auto& params = program->device.params();
        const std::size_t available = kernel->attributes().max_dynamic_local_bytes;
        if (local_mem > available) {
            throw ArgumentError("local_mem", fmt::format("kernel '{}': {} bytes of dynamic local memory requested, "
                                                         "{} are left on device {} ('{}')",
                                                         state_->name, local_mem, available, device_index,
                                                         program->device.name()));
        }
        const auto g = detail::plan_launch(global, local, params, kernel->attributes().max_total_local_size,
                                           state_->name);
        detail::PreparedEntry entry;
        entry.device_index = device_index;
        entry.kernel = kernel.get();
        entry.dims = g.dims;
        entry.global = g.global;
        entry.local = g.local;
        entry.global_size.assign(g.global.begin(), g.global.begin() + g.dims);
        entry.local_size.assign(g.local.begin(), g.local.begin() + g.dims);
        state->entries.push_back(std::move(entry));
    }
    return PreparedKernel(std::move(state));
}

std::vector<std::size_t> Kernel::max_total_local_sizes() const {
    std::vector<std::size_t> sizes;
    for (const auto& kernel : state_->kernels) sizes.push_back(kernel->attributes().max_total_local_size);
    return sizes;
}

namespace {

const backend::Kernel& kernel_on(const detail::KernelState& state, const BoundDevice& device) {
    const auto& programs = state.program->programs;
    for (std::size_t i = 0; i < programs.size(); ++i) {
        if (programs[i].device == device) return *state.kernels[i];
    }
    throw ArgumentError("device", fmt::format("kernel '{}' was not compiled for device {} ('{}')", state.name,
                                              device.index(), device.name()));
}

}  // namespace

KernelAttributes Kernel::attributes(const BoundDevice& device) const {
    return kernel_on(*state_, device).attributes();
}

std::uintptr_t Kernel::native_handle(const BoundDevice& device) const {
    return kernel_on(*state_, device).native_handle();
}

}  // namespace kjarni
