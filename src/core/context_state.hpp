#pragma once
// What a public Context holds: the backend context, the transfer stager, and the per-context state
// of the layers above core (services, e.g. the program layer's module cache).
//
// Per-context state lives here, not in the backend context, because what it holds (backend
// modules, buffers) keeps the backend context alive: inside it, that would be a reference cycle.
// This state dies with the last public handle (Context, BoundDevice, Queue, Buffer, Program...),
// releasing the services first, and then the backend context.

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <typeindex>
#include <vector>

#include "backend/backend.hpp"
#include "kjarni/context.hpp"
#include "kjarni/context_options.hpp"
#include "kjarni/detail/backend_access.hpp"
#include "staging/transfer_stager.hpp"

namespace kjarni::detail {

/// impl.compiler_identity(device_index), asked once per process for each backend device: drivers
/// answer it slowly (tens of microseconds of cold driver code), and every Program built in a new
/// context needs it for its cache key. Sound because the identity depends on the device and the
/// loaded driver only (device name and architecture, driver and platform versions), none of which
/// changes while the process lives, whichever context asks. Thread-safe.
std::string process_compiler_identity(backend::Context& impl, std::size_t device_index);

struct ContextState {
    std::shared_ptr<backend::Context> impl;
    /// Whether impl is a CUDA context, noted when the context is made: some paths ask it on every
    /// call, and ApiIds compare as strings.
    bool cuda = false;
    /// What the context was made with.
    ContextOptions options;
    /// Large host transfers from pageable memory go through its page-locked slots.
    TransferStager staging;

    /// The context's one `Service` (default-constructed on first use), for a layer above core that
    /// keeps state per context without core naming its type (as Asio's use_service does).
    template <class Service>
    Service& service() {
        const std::lock_guard lock(services_mutex_);
        std::shared_ptr<void>& slot = services_[std::type_index(typeid(Service))];
        if (!slot) slot = std::make_shared<Service>();
        return *static_cast<Service*>(slot.get());
    }

    /// The backend's compiler identity of a device, asked of the driver once per process (see
    /// process_compiler_identity) and kept here too, so that the reference stays valid.
    const std::string& compiler_identity(std::size_t device_index) {
        const std::lock_guard lock(identities_mutex_);
        if (identities_.empty()) identities_.resize(impl->devices().size());
        auto& identity = identities_.at(device_index);
        if (!identity) identity = process_compiler_identity(*impl, device_index);
        return *identity;
    }

    /// Notes a queue made in the context, for Context::synchronize (held weakly: a queue's life is
    /// its handles').
    void register_queue(const std::shared_ptr<backend::Queue>& queue) {
        const std::lock_guard lock(queues_mutex_);
        std::erase_if(queues_, [](const std::weak_ptr<backend::Queue>& q) { return q.expired(); });
        queues_.push_back(queue);
    }
    /// The queues made in the context that are still alive.
    std::vector<std::shared_ptr<backend::Queue>> live_queues() {
        const std::lock_guard lock(queues_mutex_);
        std::vector<std::shared_ptr<backend::Queue>> result;
        for (const auto& weak : queues_) {
            if (auto queue = weak.lock()) result.push_back(std::move(queue));
        }
        return result;
    }
    /// The one driver queue of a device of a single_stream context (made, and noted, on first use).
    std::shared_ptr<backend::Queue> single_stream_queue(std::size_t device_index) {
        const std::lock_guard lock(queues_mutex_);
        if (single_streams_.empty()) single_streams_.resize(impl->devices().size());
        auto& queue = single_streams_.at(device_index);
        if (!queue) {
            queue = impl->create_queue(device_index);
            queues_.push_back(queue);
        }
        return queue;
    }

private:
    std::mutex queues_mutex_;
    std::vector<std::weak_ptr<backend::Queue>> queues_;
    std::vector<std::shared_ptr<backend::Queue>> single_streams_;
    std::mutex identities_mutex_;
    std::vector<std::optional<std::string>> identities_;
    // Declared last: destroyed first, before the stager and the backend context.
    std::mutex services_mutex_;
    std::map<std::type_index, std::shared_ptr<void>> services_;
};

/// Whether a context is CUDA's (ContextState::cuda: no ApiId made and compared).
inline bool is_cuda(const Context& context) noexcept { return state_of(context).cuda; }

}  // namespace kjarni::detail
