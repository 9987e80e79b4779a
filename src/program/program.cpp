#include "kjarni/program.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <unistd.h>
#include <algorithm>
#include <atomic>
#include <cstring>
#include <fstream>

#include "core/buffer_access.hpp"
#include "core/context_state.hpp"
#include "kjarni/error.hpp"
#include "kjarni/template/module.hpp"  // render_with_modules: Program renders its source first
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

backend::BuildOptions backend_options(const ProgramOptions& options, const Context& context) {
    backend::BuildOptions result;
    result.fast_math = options.fast_math;
    // The context's default options first, so that the program's own can override them.
    const ContextOptions& defaults = context.options();
    result.compiler_options = defaults.compiler_options;
    result.compiler_options.insert(result.compiler_options.end(), options.compiler_options.begin(),
                                   options.compiler_options.end());
    result.include_dirs = options.include_dirs;
    result.cuda_arch = options.arch;
    result.jit_max_registers = options.jit_max_registers;
    result.jit_optimization_level = options.jit_optimization_level;
    result.jit = options.jit;
    result.disk_cache = options.disk_cache;
    // The context's kernel cache, where the program names none, is module_cache's to find: it
    // serves kjarni's own kernels too.
    result.cache_dir = options.cache_dir;
    return result;
}

// JIT options that cannot work together or are out of range (both APIs: bad input first).
void check_jit_options(const ProgramOptions& options) {
    constexpr std::size_t max_log = std::size_t{16} << 20;
    if (options.jit.threads_per_block && *options.jit.threads_per_block == 0) {
        throw ArgumentError("options", "JitOptions::threads_per_block is 0");
    }
    if (options.jit.threads_per_block && options.jit_max_registers) {
        throw ArgumentError("options", "JitOptions::threads_per_block and ProgramOptions::jit_max_registers both "
                                       "limit registers: give one");
    }
    if (options.jit.info_log_bytes > max_log || options.jit.error_log_bytes > max_log) {
        throw ArgumentError("options", fmt::format("JitOptions' log sizes ({} and {} bytes) are at most {} bytes",
                                                   options.jit.info_log_bytes, options.jit.error_log_bytes, max_log));
    }
    if (options.cache_dir && options.cache_dir->empty()) {
        throw ArgumentError("options", "ProgramOptions::cache_dir is an empty path");
    }
}

// Refused here as well as in the backend: a program found in a cache never reaches the backend.
void refuse_cuda_only_options(const BoundMultiDevice& devices, const ProgramOptions& options) {
    check_jit_options(options);
    if (devices.context().api().id() == ApiId::cuda()) return;
    if (!options.arch.empty()) {
        throw UnsupportedError(fmt::format("the {} backend compiles for the device itself: ProgramOptions::arch "
                                           "('{}') is for CUDA",
                                           devices.context().api().shortcut(), options.arch));
    }
    if (options.jit_max_registers || options.jit_optimization_level || options.jit.any()) {
        throw UnsupportedError(fmt::format("the {} backend has no JIT options (ProgramOptions::jit_max_registers, "
                                           "jit_optimization_level, jit are for CUDA's PTX)",
                                           devices.context().api().shortcut()));
    }
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
    refuse_cuda_only_options(devices, options);
    auto state = std::make_shared<ProgramState>(ProgramState{devices, options, {}});
    const ApiId api = devices.context().api().id();
    const std::string full = full_source(api, source, options);
    for (const BoundDevice& device : devices.to_vector()) {
        DeviceProgram program{device, full, nullptr, std::nullopt, nullptr};
        backend::BuildOptions build_options = backend_options(options, devices.context());
        if (options.keep) {
            program.kept_files = fresh_keep_dir(device);
            build_options.keep_dir = program.kept_files;
        }
        CompiledModule compiled = obtain_compiled_module(device, full, build_options);
        program.module = std::move(compiled.module);
        program.binary = std::move(compiled.binary);
        state->programs.push_back(std::move(program));
    }
    notify_build_observer(source, options);
    return state;
}

// Whether CUDA code is text (PTX) rather than a cubin or fatbin: ELF and fatbin magic numbers.
bool is_ptx(std::span<const std::byte> code) {
    static constexpr unsigned char elf[4] = {0x7f, 'E', 'L', 'F'};
    static constexpr unsigned char fatbin[4] = {0x50, 0xED, 0x55, 0xBA};  // 0xBA55ED50, little-endian
    if (code.size() < 4) return true;
    return std::memcmp(code.data(), elf, 4) != 0 && std::memcmp(code.data(), fatbin, 4) != 0;
}

std::shared_ptr<const ProgramState> load_all(const BoundMultiDevice& devices, std::span<const std::byte> code,
                                             const ProgramOptions& options) {
    if (devices.size() == 0) throw ArgumentError("devices", "a program needs at least one device");
    if (code.empty()) throw ArgumentError("code", "is empty");
    refuse_cuda_only_options(devices, options);
    auto image = std::make_shared<Bytes>(code.begin(), code.end());
    // PTX is text the driver reads up to a NUL: add one where the file has none.
    if (devices.context().api().id() == ApiId::cuda() && is_ptx(code) && image->back() != std::byte{0}) {
        image->push_back(std::byte{0});
    }
    auto state = std::make_shared<ProgramState>(ProgramState{devices, options, {}});
    const backend::BuildOptions build_options = backend_options(options, devices.context());
    for (const BoundDevice& device : devices.to_vector()) {
        DeviceProgram program{device, std::string(), nullptr, std::nullopt, image};
        program.module = detail::backend_of(device.context())->load(device.index(), *image, build_options);
        state->programs.push_back(std::move(program));
    }
    return state;
}

std::vector<std::byte> read_file(const std::filesystem::path& path) {
    std::ifstream file(path, std::ios::binary);
    if (!file) throw ArgumentError("path", fmt::format("'{}' cannot be opened", path.string()));
    std::vector<std::byte> bytes;
    char buffer[65536];
    while (file.read(buffer, sizeof buffer) || file.gcount() > 0) {
        const auto* first = reinterpret_cast<const std::byte*>(buffer);
        bytes.insert(bytes.end(), first, first + file.gcount());
    }
    if (file.bad()) throw ArgumentError("path", fmt::format("'{}' could not be read", path.string()));
    return bytes;
}

std::shared_ptr<const ProgramState> link_all(const BoundMultiDevice& devices, const std::vector<LinkInput>& units,
                                             const ProgramOptions& options) {
    if (devices.size() == 0) throw ArgumentError("devices", "a program needs at least one device");
    if (units.empty()) throw ArgumentError("units", "linking needs at least one unit");
    if (options.keep) throw ArgumentError("options", "ProgramOptions::keep does not apply to Program::link");
    if (!options.constant_arrays.empty()) {
        throw ArgumentError("options", "ProgramOptions::constant_arrays does not apply to Program::link: every unit "
                                       "would define them");
    }
    refuse_cuda_only_options(devices, options);
    const ApiId api = devices.context().api().id();
    std::vector<backend::LinkUnit> backend_units;
    for (std::size_t i = 0; i < units.size(); ++i) {
        const LinkInput& unit = units[i];
        if (unit.is_source) {
            backend_units.push_back({true, full_source(api, render_with_modules(unit.text), options), {}});
        } else {
            if (unit.code.empty()) throw ArgumentError("units", fmt::format("unit {} is empty code", i));
            backend_units.push_back({false, {}, unit.code});
        }
    }
    auto state = std::make_shared<ProgramState>(ProgramState{devices, options, {}});
    const backend::BuildOptions build_options = backend_options(options, devices.context());
    for (const BoundDevice& device : devices.to_vector()) {
        CompiledModule linked = obtain_linked_module(device, backend_units, build_options);
        state->programs.push_back(
            DeviceProgram{device, std::string(), std::move(linked.module), std::nullopt, std::move(linked.binary)});
    }
    return state;
}

std::vector<std::byte> compile_one_unit(const BoundDevice& device, std::string_view source,
                                        const ProgramOptions& options) {
    if (options.keep) throw ArgumentError("options", "ProgramOptions::keep does not apply to Program::compile_unit");
    if (!options.constant_arrays.empty()) {
        throw ArgumentError("options", "ProgramOptions::constant_arrays does not apply to Program::compile_unit: "
                                       "every unit would define them");
    }
    const BoundMultiDevice devices(device.context(), {device.index()});
    refuse_cuda_only_options(devices, options);
    const ApiId api = device.context().api().id();
    const std::string full = full_source(api, render_with_modules(std::string(source)), options);
    return detail::backend_of(device.context())
        ->compile_unit(device.index(), full, backend_options(options, device.context()));
}

}  // namespace
}  // namespace detail

std::vector<std::byte> Program::compile_unit(const BoundDevice& device, std::string_view source,
                                             const ProgramOptions& options) {
    return detail::compile_one_unit(device, source, options);
}

Program Program::link(const BoundMultiDevice& devices, const std::vector<LinkInput>& units,
                      const ProgramOptions& options) {
    return Program(detail::link_all(devices, units, options));
}

Program Program::link(const BoundDevice& device, const std::vector<LinkInput>& units, const ProgramOptions& options) {
    return link(BoundMultiDevice(device.context(), {device.index()}), units, options);
}

Program Program::from_binary(const BoundMultiDevice& devices, std::span<const std::byte> code,
                             const ProgramOptions& options) {
    return Program(detail::load_all(devices, code, options));
}

Program Program::from_binary(const BoundDevice& device, std::span<const std::byte> code,
                             const ProgramOptions& options) {
    return from_binary(BoundMultiDevice(device.context(), {device.index()}), code, options);
}

Program Program::from_file(const BoundMultiDevice& devices, const std::filesystem::path& path,
                           const ProgramOptions& options) {
    const std::vector<std::byte> code = detail::read_file(path);
    return from_binary(devices, code, options);
}

Program Program::from_file(const BoundDevice& device, const std::filesystem::path& path,
                           const ProgramOptions& options) {
    return from_file(BoundMultiDevice(device.context(), {device.index()}), path, options);
}

std::vector<std::byte> Program::binary(const BoundDevice& device) const {
    const auto& binary = state_->on(device).binary;
    if (!binary || binary->empty()) {
        throw UnsupportedError(fmt::format("the {} backend gave no binary for device '{}'",
                                           device.context().api().shortcut(), device.name()));
    }
    return std::vector<std::byte>(binary->begin(), binary->end());
}

std::string Program::ptx(const BoundDevice& device) const {
    const detail::DeviceProgram& program = state_->on(device);
    if (program.source.empty()) {
        // Made from code: PTX is what it was made from, or there is none.
        const bool cuda = device.context().api().id() == ApiId::cuda();
        if (!cuda || !program.binary || !detail::is_ptx(*program.binary)) {
            throw UnsupportedError("this program was made from a binary, which has no PTX to give");
        }
        const auto* text = reinterpret_cast<const char*>(program.binary->data());
        return std::string(text, strnlen(text, program.binary->size()));
    }
    return detail::backend_of(device.context())
        ->ptx(device.index(), program.source, detail::backend_options(state_->options, state_->devices.context()));
}

GlobalVariable Program::global(const BoundDevice& device, std::string_view name) const {
    const detail::DeviceProgram& program = state_->on(device);
    std::shared_ptr<backend::Buffer> buffer = program.module->global_buffer(std::string(name));
    if (!buffer) throw ArgumentError("name", fmt::format("the program has no global variable '{}'", name));
    const std::uintptr_t address = buffer->native_handle();
    const std::size_t size = buffer->size();
    return {address, size, detail::BufferAccess::make(device, std::move(buffer), 0, size)};
}

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

std::optional<JitReport> Program::jit_report(const BoundDevice& device) const {
    return state_->on(device).module->jit_report();
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
    program.module->set_constant(*detail::backend_of(queue), std::string(name), host.data(), host.size());
}

void Program::set_constant_array(const Queue& queue, std::string_view name, const Buffer& source) const {
    if (!(source.device() == queue.device())) {
        throw ArgumentError("source", "the buffer is not on the queue's device");
    }
    const auto& program = constant_target(*state_, queue, name, source.size());
    program.module->set_constant(*detail::backend_of(queue), std::string(name), *detail::backend_of(source),
                                 source.offset(), source.size());
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
    state->local_mem = local_mem;
    const auto& programs = state_->program->programs;
    for (const auto& [device_index, global] : global_sizes) {
        const auto program = std::find_if(programs.begin(), programs.end(),
                                          [&](const auto& p) { return p.device.index() == device_index; });
        if (program == programs.end()) {
            throw ArgumentError("global_sizes",
                                fmt::format("device {} is not one the program was compiled for", device_index));
        }
        const auto& kernel = state_->kernels[static_cast<std::size_t>(program - programs.begin())];
        const auto local_entry = local_sizes.find(device_index);
        const std::optional<Sizes> local = local_entry == local_sizes.end() ? std::nullopt : local_entry->second;
        const auto& params = program->device.params();
        detail::PreparedEntry entry;
        entry.checked = detail::checked_kernel(*kernel, program->device, state_->name);
        detail::check_local_mem(entry.checked, program->device, local_mem);
        const auto g =
            detail::plan_launch(global, local, params, kernel->attributes().max_total_local_size, state_->name);
        entry.dims = g.dims;
        entry.global = g.global;
        entry.local = g.local;
        entry.global_size.assign(g.global.begin(), g.global.begin() + g.dims);
        entry.local_size.assign(g.local.begin(), g.local.begin() + g.dims);
        state->entries.push_back(std::move(entry));
    }
    return PreparedKernel(std::move(state));
}

std::pair<std::size_t, std::size_t> Kernel::padded_sizes(const BoundDevice& device, TotalSize total) const {
    if (total.n == 0) throw ArgumentError("n", "a launch of at least 0 work items: n must be positive");
    const auto& programs = state_->program->programs;
    for (std::size_t i = 0; i < programs.size(); ++i) {
        if (!(programs[i].device == device)) continue;
        const KernelAttributes& a = state_->kernels[i]->attributes();
        const std::size_t multiple = std::max<std::size_t>(a.preferred_local_size_multiple, 1);
        const std::size_t limit = std::max<std::size_t>(std::min<std::size_t>(256, a.max_total_local_size), 1);
        std::size_t local = multiple <= limit ? limit / multiple * multiple : limit;
        const std::size_t n_padded = (total.n + multiple - 1) / multiple * multiple;
        local = std::max<std::size_t>(std::min(local, n_padded), 1);
        return {(total.n + local - 1) / local * local, local};
    }
    throw ArgumentError("device", fmt::format("kernel '{}' was not compiled for device {} ('{}')", state_->name,
                                              device.index(), device.name()));
}

PreparedKernel Kernel::prepare_total(TotalSize total, std::size_t local_mem) const {
    std::map<std::size_t, Sizes> globals;
    std::map<std::size_t, std::optional<Sizes>> locals;
    for (const auto& program : state_->program->programs) {
        const auto [global, local] = padded_sizes(program.device, total);
        globals[program.device.index()] = Sizes{global};
        locals[program.device.index()] = Sizes{local};
    }
    return prepare(globals, locals, local_mem);
}

std::size_t Kernel::numargs() const { return state_->kernels.front()->params().size(); }

std::vector<std::size_t> Kernel::max_total_local_sizes() const {
    std::vector<std::size_t> sizes;
    for (const auto& kernel : state_->kernels) sizes.push_back(kernel->attributes().max_total_local_size);
    return sizes;
}

namespace {

// Non-const: the backend kernel is shared by every handle, and its settings are the function's.
backend::Kernel& kernel_on(const detail::KernelState& state, const BoundDevice& device) {
    const auto& programs = state.program->programs;
    for (std::size_t i = 0; i < programs.size(); ++i) {
        if (programs[i].device == device) return *state.kernels[i];
    }
    throw ArgumentError("device", fmt::format("kernel '{}' was not compiled for device {} ('{}')", state.name,
                                              device.index(), device.name()));
}

}  // namespace

KernelAttributes Kernel::attributes(const BoundDevice& device) const { return kernel_on(*state_, device).attributes(); }

std::uintptr_t Kernel::native_handle(const BoundDevice& device) const {
    return kernel_on(*state_, device).native_handle();
}

void Kernel::set_cache_preference(const BoundDevice& device, CachePreference preference) const {
    kernel_on(*state_, device).set_cache_preference(preference);
}

void Kernel::set_shared_memory_carveout(const BoundDevice& device, int percent) const {
    if (percent < -1 || percent > 100) {
        throw ArgumentError("percent", fmt::format("is {}; it must be in 0..100, or -1 for the default", percent));
    }
    kernel_on(*state_, device).set_shared_memory_carveout(percent);
}

void Kernel::set_attribute(const BoundDevice& device, KernelAttribute attribute, int value) const {
    if (device.context().api().id() != ApiId::cuda()) {
        throw UnsupportedError(fmt::format("the {} backend has no settable kernel attributes ({} is CUDA's)",
                                           device.context().api().shortcut(), to_string(attribute)));
    }
    const auto require = [&](bool ok, std::string_view range) {
        if (!ok)
            throw ArgumentError("value", fmt::format("{} for {}: it must be {}", value, to_string(attribute), range));
    };
    switch (attribute) {
    case KernelAttribute::preferred_shared_memory_carveout:
        require(value >= -1 && value <= 100, "in 0..100, or -1 for the default");
        break;
    case KernelAttribute::non_portable_cluster_size_allowed: require(value == 0 || value == 1, "0 or 1"); break;
    default: require(value >= 0, "at least 0"); break;
    }
    kernel_on(*state_, device).set_attribute(attribute, value);
}

}  // namespace kjarni
