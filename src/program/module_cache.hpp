#pragma once
// Where compiled modules come from: the context's memory cache, else the user's disk cache, else
// the compiler. Keys cover everything that changes the binary.

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "backend/backend.hpp"
#include "kjarni/context.hpp"
#include "program/cache/bytes.hpp"

namespace kjarni::detail {

/// A module with the compiled code it was made from (empty where the backend gives none).
struct CompiledModule {
    std::shared_ptr<backend::Module> module;
    std::shared_ptr<const Bytes> binary;
};

/// Compiled modules by cache key (which names the device): the in-memory cache, one per context
/// (a ContextState service).
class ModuleCache {
public:
    std::optional<CompiledModule> find(const std::string& key) const {
        const std::lock_guard lock(mutex_);
        auto found = modules_.find(key);
        if (found == modules_.end()) return std::nullopt;
        return found->second;
    }
    void insert(const std::string& key, CompiledModule module) {
        const std::lock_guard lock(mutex_);
        modules_.emplace(key, std::move(module));
    }

private:
    mutable std::mutex mutex_;
    std::map<std::string, CompiledModule, std::less<>> modules_;
};

/// The module of `source` for the device, from the caches or compiled, with its code.
CompiledModule obtain_compiled_module(const BoundDevice& device, const std::string& source,
                                      const backend::BuildOptions& options);

/// The module linking `units` gives on the device (Context::link), from the caches or linked; the
/// key covers every unit's text or bytes, in order, the options and the compiler's identity.
CompiledModule obtain_linked_module(const BoundDevice& device, std::span<const backend::LinkUnit> units,
                                    const backend::BuildOptions& options);

/// obtain_compiled_module's module alone.
std::shared_ptr<backend::Module> obtain_module(const BoundDevice& device, const std::string& source,
                                               const backend::BuildOptions& options);

}  // namespace kjarni::detail
