#include "program/module_cache.hpp"

#include "core/context_state.hpp"
#include "kjarni/error.hpp"
#include "kjarni/version.hpp"
#include "program/cache/cache_key.hpp"
#include "program/cache/disk_cache.hpp"

namespace kjarni::detail {

namespace {

// Everything that changes the binary: the inputs of the compiler and what compiles.
CacheKey cache_key(const BoundDevice& device, const std::string& source, const backend::BuildOptions& options) {
    CacheKeyBuilder builder;
    builder.add("kjarni", version())
        .add("api", device.context().api().shortcut())
        .add("compiler", detail::state_of(device.context()).compiler_identity(device.index()))
        .add("fast_math", options.fast_math)
        .add("compiler_options", options.compiler_options)
        .add("include_dirs", options.include_dirs)
        .add("source", source);
    // Only when given, so that the keys of programs without one stay what they were.
    if (!options.cuda_arch.empty()) builder.add("arch", options.cuda_arch);
    return builder.key();
}

}  // namespace

std::shared_ptr<backend::Module> obtain_module(const BoundDevice& device, const std::string& source,
                                               const backend::BuildOptions& options) {
    return obtain_compiled_module(device, source, options).module;
}

CompiledModule obtain_compiled_module(const BoundDevice& device, const std::string& source,
                                      const backend::BuildOptions& options) {
    auto& backend = *detail::backend_of(device.context());
    auto shared = [](std::vector<std::byte> binary) {
        return std::make_shared<const std::vector<std::byte>>(std::move(binary));
    };
    // Kept files are wanted: compile for real. And headers from include directories are not part
    // of the key (which ones a source reads is the compiler's business), so a cached binary could
    // come from older headers: compile those programs every time too.
    if (options.keep_dir || !options.include_dirs.empty()) {
        auto output = backend.build(device.index(), source, options);
        return {std::move(output.module), shared(std::move(output.binary))};
    }

    ModuleCache& memory = detail::state_of(device.context()).service<ModuleCache>();
    const CacheKey key = cache_key(device, source, options);
    // Modules belong to one device: identical devices (same compiler identity) share disk entries
    // but not modules.
    const std::string memory_key = key.hex() + "/" + std::to_string(device.index());
    if (auto found = memory.find(memory_key)) return *found;

    DiskCache& disk = DiskCache::instance();
    if (auto binary = disk.load(key)) {
        try {
            CompiledModule loaded{backend.load(device.index(), *binary, options), shared(*binary)};
            memory.insert(memory_key, loaded);
            return loaded;
        } catch (const Error&) {
            // The driver refused a binary that passed the cache's checks (e.g. after a driver
            // change that kept the version string): compile it again and overwrite the entry.
        }
    }
    auto output = backend.build(device.index(), source, options);
    if (!output.binary.empty()) disk.store(key, output.binary);
    CompiledModule built{std::move(output.module), shared(std::move(output.binary))};
    memory.insert(memory_key, built);
    return built;
}

}  // namespace kjarni::detail
