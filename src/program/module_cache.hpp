#pragma once
// Where compiled modules come from: the context's memory cache, else the user's disk cache, else
// the compiler. Keys cover everything that changes the binary.

#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "backend/backend.hpp"
#include "kjarni/context.hpp"

namespace kjarni::detail {

/// Compiled modules by cache key (which names the device): the in-memory cache, one per context
/// (a ContextState service).
class ModuleCache {
public:
    std::shared_ptr<backend::Module> find(const std::string& key) const {
        const std::lock_guard lock(mutex_);
        auto found = modules_.find(key);
        return found == modules_.end() ? nullptr : found->second;
    }
    void insert(const std::string& key, std::shared_ptr<backend::Module> module) {
        const std::lock_guard lock(mutex_);
        modules_.emplace(key, std::move(module));
    }

private:
    mutable std::mutex mutex_;
    std::map<std::string, std::shared_ptr<backend::Module>, std::less<>> modules_;
};

std::shared_ptr<backend::Module> obtain_module(const BoundDevice& device, const std::string& source,
                                               const backend::BuildOptions& options);

}  // namespace kjarni::detail
