#pragma once
// What a public Context holds: the backend context and the modules compiled in it.
//
// The module cache lives here, not in the backend context, because backend modules keep their
// backend context alive: a cache inside it would be a reference cycle. This state dies with the
// last public handle (Context, BoundDevice, Queue, Buffer, Program...), releasing the cached
// modules, and then the backend context.

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>
#include <string>

#include "backend/backend.hpp"
#include "memory/transfer_stager.hpp"

namespace kjarni::detail {

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

struct ContextState {
    std::shared_ptr<backend::Context> impl;
    /// Compiled modules by cache key (which names the device): the in-memory cache.
    ModuleCache modules;
    /// Large host transfers from pageable memory go through its page-locked slots.
    TransferStager staging;

    /// The backend's compiler identity of a device, asked once (drivers answer it slowly, and
    /// every Program construction needs it for its cache key).
    const std::string& compiler_identity(std::size_t device_index) {
        const std::lock_guard lock(identities_mutex_);
        if (identities_.empty()) identities_.resize(impl->devices().size());
        auto& identity = identities_.at(device_index);
        if (!identity) identity = impl->compiler_identity(device_index);
        return *identity;
    }

private:
    std::mutex identities_mutex_;
    std::vector<std::optional<std::string>> identities_;
};

}  // namespace kjarni::detail
