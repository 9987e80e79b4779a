// The defaults of backend::Context's context options and peer access, and of Kernel::set_attribute,
// for backends without them: OpenCL contexts are always the API's own and have no scheduling or
// memory flags; the devices of one context share its memory; nothing crosses contexts.

#include <fmt/format.h>

#include <string>

#include "backend/backend.hpp"
#include "kjarni/error.hpp"

namespace kjarni::backend {

std::shared_ptr<Context> Api::create_context_with(std::span<const std::shared_ptr<Device>> devices,
                                                  const ContextFlags& flags) {
    if (flags.has_cuda_settings()) {
        std::string what;
        if (flags.scheduling != Scheduling::automatic) what = "scheduling " + to_string(flags.scheduling);
        else if (flags.map_host) what = "map_host";
        else if (flags.lmem_resize_to_max) what = "lmem_resize_to_max";
        else what = "shared_memory_banks " + to_string(flags.shared_memory_banks);
        throw UnsupportedError(fmt::format("the {} backend has no context flags: ContextOptions::{} is for CUDA",
                                           id().shortcut(), what));
    }
    // Contexts of this API are its own already: own_contexts changes nothing.
    return create_context(devices);
}

bool Context::peer_access_possible(std::size_t, const Context& other, std::size_t) const { return &other == this; }

bool Context::peer_access_enabled(std::size_t, const Context& other, std::size_t) const { return &other == this; }

void Context::set_peer_access(std::size_t from, Context& other, std::size_t to, bool enable) {
    if (&other == this && enable) return;
    throw UnsupportedError(fmt::format("the {} backend cannot {} peer access from device {} to device {} of {}",
                                       api().id().shortcut(), enable ? "enable" : "disable", from, to,
                                       &other == this ? "the same context (its devices always share memory)"
                                                      : "another context"));
}

void Kernel::set_attribute(KernelAttributeId attribute, int) {
    throw UnsupportedError("this backend cannot set the kernel attribute " + to_string(attribute));
}

}  // namespace kjarni::backend
