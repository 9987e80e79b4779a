#include "program/module_cache.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/context_state.hpp"
#include "kjarni/version.hpp"

namespace kjarni::detail {

namespace {

// Every input of the compiler, length-prefixed so that no two different inputs read the same.
std::string cache_key(const BoundDevice& device, const std::string& source, const backend::BuildOptions& options) {
    std::string key;
    auto add = [&key](std::string_view field) { key += fmt::format("{}:{};", field.size(), field); };
    add(version());
    add(device.context().api().shortcut());
    add(device.context().backend()->compiler_identity(device.index()));
    add(options.fast_math ? "fast_math" : "");
    add(fmt::format("{}", fmt::join(options.compiler_options, "\x1f")));
    add(fmt::format("{}", fmt::join(options.include_dirs, "\x1f")));
    add(source);
    return key;
}

}  // namespace

std::shared_ptr<backend::Module> obtain_module(const BoundDevice& device, const std::string& source,
                                               const backend::BuildOptions& options) {
    auto& backend = *device.context().backend();
    // Kept files are wanted: compile for real, and leave the caches alone.
    if (options.keep_dir) return backend.build(device.index(), source, options).module;

    ModuleCache& memory = device.context().state().modules;
    const std::string key = cache_key(device, source, options);
    if (auto module = memory.find(key)) return module;
    auto output = backend.build(device.index(), source, options);
    memory.insert(key, output.module);
    return output.module;
}

}  // namespace kjarni::detail
