#include "program/module_cache.hpp"

#include "core/context_state.hpp"
#include "kjarni/error.hpp"
#include "kjarni/version.hpp"
#include "program/cache/cache_key.hpp"
#include "program/cache/disk_cache.hpp"

namespace kjarni::detail {

namespace {

// The fields of every key that do not depend on what is compiled: the compiler and its options.
CacheKeyBuilder key_builder(const BoundDevice& device, const backend::BuildOptions& options) {
    CacheKeyBuilder builder;
    builder.add("kjarni", version())
        .add("api", device.context().api().shortcut())
        .add("compiler", detail::state_of(device.context()).compiler_identity(device.index()))
        .add("fast_math", options.fast_math)
        .add("compiler_options", options.compiler_options)
        .add("include_dirs", options.include_dirs);
    return builder;
}

// Everything that changes the binary: the inputs of the compiler and what compiles.
CacheKey cache_key(const BoundDevice& device, const std::string& source, const backend::BuildOptions& options) {
    CacheKeyBuilder builder = key_builder(device, options);
    builder.add("source", source);
    // Only when given, so that the keys of programs without one stay what they were.
    if (!options.cuda_arch.empty()) builder.add("arch", options.cuda_arch);
    return builder.key();
}

// A linked program's key: every unit in order, each tagged as source or code (so that a source
// and code of the same bytes differ), and the JIT options, which the driver's linker applies.
CacheKey link_cache_key(const BoundDevice& device, std::span<const backend::LinkUnit> units,
                        const backend::BuildOptions& options) {
    CacheKeyBuilder builder = key_builder(device, options);
    builder.add("link_units", units.size());
    for (const backend::LinkUnit& unit : units) {
        if (unit.is_source) {
            builder.add("unit_source", unit.source);
        } else {
            builder.add("unit_code",
                        std::string_view(reinterpret_cast<const char*>(unit.code.data()), unit.code.size()));
        }
    }
    if (!options.cuda_arch.empty()) builder.add("arch", options.cuda_arch);
    if (options.jit_max_registers) builder.add("jit_max_registers", *options.jit_max_registers);
    if (options.jit_optimization_level) builder.add("jit_optimization_level", *options.jit_optimization_level);
    return builder.key();
}

}  // namespace

namespace {

std::shared_ptr<const Bytes> shared(Bytes binary) { return std::make_shared<const Bytes>(std::move(binary)); }

// A compiler's output (a copy: compiling took far longer).
std::shared_ptr<const Bytes> shared(const std::vector<std::byte>& binary) {
    return std::make_shared<const Bytes>(binary.begin(), binary.end());
}

/// The module of `key` on `device`: from the context's memory cache, else from the disk cache,
/// else made by `produce` (a backend::BuildOutput) and stored in both. Modules belong to one
/// device: identical devices (same compiler identity) share disk entries but not modules.
template <class Produce>
CompiledModule cached_module(const BoundDevice& device, const CacheKey& key, const backend::BuildOptions& options,
                             Produce produce) {
    auto& backend = *detail::backend_of(device.context());
    ModuleCache& memory = detail::state_of(device.context()).service<ModuleCache>();
    const std::string memory_key = key.hex() + "/" + std::to_string(device.index());
    if (auto found = memory.find(memory_key)) return *found;

    if (!options.disk_cache) {
        auto output = produce();
        CompiledModule made{std::move(output.module), shared(output.binary)};
        memory.insert(memory_key, made);
        return made;
    }
    // The program's cache, else the context's (its library kernels included), else the process's.
    const ContextOptions& context_options = device.context().options();
    DiskCache& disk = DiskCache::shared(options.cache_dir ? options.cache_dir : context_options.kernel_cache_dir,
                                        context_options.kernel_cache_max_bytes);
    if (auto binary = disk.load(key)) {
        try {
            // Braced initialisation runs in order: the payload moves only after the load.
            CompiledModule loaded{backend.load(device.index(), *binary, options), shared(std::move(*binary))};
            memory.insert(memory_key, loaded);
            return loaded;
        } catch (const Error&) {
            // The driver refused a binary that passed the cache's checks (e.g. after a driver
            // change that kept the version string): make it again and overwrite the entry.
        }
    }
    auto output = produce();
    if (!output.binary.empty()) disk.store(key, output.binary);
    CompiledModule made{std::move(output.module), shared(output.binary)};
    memory.insert(memory_key, made);
    return made;
}

}  // namespace

CompiledModule obtain_linked_module(const BoundDevice& device, std::span<const backend::LinkUnit> units,
                                    const backend::BuildOptions& options) {
    auto& backend = *detail::backend_of(device.context());
    const auto link = [&] { return backend.link(device.index(), units, options); };
    // As for single sources: headers of include directories are not in the key.
    if (!options.include_dirs.empty()) {
        auto output = link();
        return {std::move(output.module), shared(output.binary)};
    }
    return cached_module(device, link_cache_key(device, units, options), options, link);
}

std::shared_ptr<backend::Module> obtain_module(const BoundDevice& device, const std::string& source,
                                               const backend::BuildOptions& options) {
    return obtain_compiled_module(device, source, options).module;
}

CompiledModule obtain_compiled_module(const BoundDevice& device, const std::string& source,
                                      const backend::BuildOptions& options) {
    auto& backend = *detail::backend_of(device.context());
    const auto build = [&] { return backend.build(device.index(), source, options); };
    // Kept files are wanted: compile for real. And headers from include directories are not part
    // of the key (which ones a source reads is the compiler's business), so a cached binary could
    // come from older headers: compile those programs every time too.
    if (options.keep_dir || !options.include_dirs.empty()) {
        auto output = build();
        return {std::move(output.module), shared(output.binary)};
    }
    return cached_module(device, cache_key(device, source, options), options, build);
}

}  // namespace kjarni::detail
