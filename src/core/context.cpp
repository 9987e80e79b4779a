#include "kjarni/context.hpp"

#include <fmt/format.h>

#include <memory>
#include <mutex>
#include <unordered_map>

#include "backend/backend.hpp"
#include "core/context_state.hpp"
#include "core/handles.hpp"
#include "kjarni/error.hpp"

namespace kjarni {

namespace detail {

std::string process_compiler_identity(backend::Context& impl, std::size_t device_index) {
    // Keyed by the backend Device object (a platform's devices live as long as their platform, and
    // every context over a device shares its object). The weak pointer tells a device that died
    // from a new one at the same address, whose identity is asked afresh.
    struct Known {
        std::weak_ptr<const backend::Device> device;
        std::string identity;
    };
    static std::mutex mutex;
    // Never destroyed: contexts may still ask while static objects are destroyed at exit.
    static auto& known = *new std::unordered_map<const backend::Device*, Known>();
    const std::shared_ptr<backend::Device>& device = impl.devices().at(device_index);
    {
        const std::lock_guard lock(mutex);
        if (const auto found = known.find(device.get()); found != known.end() && !found->second.device.expired()) {
            return found->second.identity;
        }
    }
    // Asked outside the lock: a driver call should not hold up other devices' lookups. Two threads
    // may both ask; they get the same answer.
    std::string identity = impl.compiler_identity(device_index);
    const std::lock_guard lock(mutex);
    known.insert_or_assign(device.get(), Known{device, identity});
    return identity;
}

}  // namespace detail

namespace {

std::string describe(const Device& device) {
    return fmt::format("'{}' of platform '{}'", device.name(), device.platform().name());
}

}  // namespace

Context::Context(std::shared_ptr<backend::Context> impl) : state_(std::make_shared<detail::ContextState>()) {
    state_->impl = std::move(impl);
    state_->cuda = state_->impl->api().id() == ApiId::cuda();
}

const std::shared_ptr<backend::Context>& Context::backend() const noexcept { return state_->impl; }

Context Context::from_devices(std::span<const Device> devices) { return from_devices(devices, ContextOptions{}); }

Context Context::from_devices(std::span<const Device> devices, const ContextOptions& options) {
    if (devices.empty()) throw ArgumentError("devices", "a context needs at least one device");
    std::vector<std::shared_ptr<backend::Device>> impls;
    const Device& first = devices.front();
    for (std::size_t i = 0; i < devices.size(); ++i) {
        const Device& device = devices[i];
        if (!(device.platform() == first.platform())) {
            throw ArgumentError("devices", fmt::format("device {} ({}) is not of the platform of device 0 ({}): a "
                                                       "context spans one platform",
                                                       i, describe(device), describe(first)));
        }
        for (std::size_t j = 0; j < i; ++j) {
            if (devices[j] == device) {
                throw ArgumentError("devices",
                                    fmt::format("devices {} and {} are the same device ({})", j, i, describe(device)));
            }
        }
        impls.push_back(detail::backend_of(device));
    }
    if (options.kernel_cache_dir && options.kernel_cache_dir->empty()) {
        throw ArgumentError("options", "ContextOptions::kernel_cache_dir is an empty path");
    }
    if (options.kernel_cache_max_bytes && *options.kernel_cache_max_bytes == 0) {
        throw ArgumentError("options", "ContextOptions::kernel_cache_max_bytes is 0: to use no disk cache, set "
                                       "ProgramOptions::disk_cache to false");
    }
    backend::Api& api = detail::backend_of(first)->platform().api();
    const backend::ContextFlags flags{options.own_contexts, options.scheduling, options.map_host,
                                      options.lmem_resize_to_max, options.shared_memory_banks};
    Context context(flags.own_contexts || flags.has_cuda_settings() ? api.create_context_with(impls, flags)
                                                                    : api.create_context(impls));
    context.state_->options = options;
    return context;
}

Context Context::from_devices(const Device& device) { return from_devices(std::span<const Device>(&device, 1)); }

Context Context::from_devices(const Device& device, const ContextOptions& options) {
    return from_devices(std::span<const Device>(&device, 1), options);
}

const ContextOptions& Context::options() const noexcept { return state_->options; }

void Context::synchronize() const {
    // kjarni's own queues first (on OpenCL the only way to wait for a context's work), then the
    // driver's context-wide wait where there is one.
    for (const auto& queue : state_->live_queues()) queue->synchronize();
    backend()->synchronize_devices();
}

Context Context::from_criteria(const Api& api, const SelectOptions& options) {
    return from_devices(select_devices(api, options));
}

Context Context::from_backend_devices(const Api& api, std::span<const std::uintptr_t> native_devices) {
    std::vector<Device> devices;
    for (std::uintptr_t native : native_devices) devices.push_back(Device::from_backend_device(api, native));
    return from_devices(devices);
}

Context Context::from_backend_contexts(const Api& api, std::span<const std::uintptr_t> native_contexts,
                                       bool take_ownership) {
    if (native_contexts.empty()) throw ArgumentError("native_contexts", "at least one context is needed");
    return Context(detail::backend_of(api)->context_from_native(native_contexts, take_ownership));
}

Api Context::api() const { return detail::api_handle(backend()->api()); }

Platform Context::platform() const { return devices()[0].device().platform(); }

BoundMultiDevice Context::devices() const {
    std::vector<std::size_t> all(backend()->devices().size());
    for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
    return BoundMultiDevice(*this, std::move(all));
}

std::size_t Context::device_count() const { return backend()->devices().size(); }

std::uintptr_t Context::native_handle(std::size_t device_index) const {
    if (device_index >= device_count()) {
        throw ArgumentError("device_index", fmt::format("{} is out of range: the context has {} device(s)",
                                                        device_index, device_count()));
    }
    return backend()->native_handle(device_index);
}

BoundDevice::BoundDevice(Context context, std::size_t index) : context_(std::move(context)), index_(index) {
    if (index_ >= context_.device_count()) {
        throw ArgumentError("index", fmt::format("{} is out of range: the context has {} device(s)", index_,
                                                 context_.device_count()));
    }
}

Device BoundDevice::device() const {
    return detail::BackendAccess::make<Device>(detail::backend_of(context_)->devices()[index_]);
}

BoundMultiDevice::BoundMultiDevice(Context context, std::vector<std::size_t> indices)
    : context_(std::move(context)), indices_(std::move(indices)) {
    for (std::size_t i = 0; i < indices_.size(); ++i) {
        if (indices_[i] >= context_.device_count()) {
            throw ArgumentError("indices", fmt::format("device index {} is out of range: the context has {} "
                                                       "device(s)",
                                                       indices_[i], context_.device_count()));
        }
        for (std::size_t j = 0; j < i; ++j) {
            if (indices_[j] == indices_[i]) {
                throw ArgumentError("indices", fmt::format("device {} is listed twice", indices_[i]));
            }
        }
    }
}

BoundMultiDevice BoundMultiDevice::from_bound_devices(std::span<const BoundDevice> devices) {
    if (devices.empty()) throw ArgumentError("devices", "at least one bound device is needed");
    std::vector<std::size_t> indices;
    for (std::size_t i = 0; i < devices.size(); ++i) {
        if (!(devices[i].context() == devices[0].context())) {
            throw ArgumentError("devices", fmt::format("device {} ('{}') belongs to another context than device 0", i,
                                                       devices[i].name()));
        }
        indices.push_back(devices[i].index());
    }
    return BoundMultiDevice(devices[0].context(), std::move(indices));
}

BoundDevice BoundMultiDevice::operator[](std::size_t position) const {
    if (position >= indices_.size()) {
        throw ArgumentError("position",
                            fmt::format("{} is out of range: the set has {} device(s)", position, indices_.size()));
    }
    return BoundDevice(context_, indices_[position]);
}

BoundMultiDevice BoundMultiDevice::subset(std::span<const std::size_t> positions) const {
    std::vector<std::size_t> indices;
    for (std::size_t position : positions) indices.push_back((*this)[position].index());
    return BoundMultiDevice(context_, std::move(indices));
}

std::vector<BoundDevice> BoundMultiDevice::to_vector() const {
    std::vector<BoundDevice> result;
    for (std::size_t index : indices_) result.emplace_back(context_, index);
    return result;
}

}  // namespace kjarni
