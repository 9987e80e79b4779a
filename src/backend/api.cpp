// The default of Api::create_context_with, for backends without context flags: OpenCL contexts are
// always the API's own and have no scheduling or memory flags.

#include <fmt/format.h>

#include <string>

#include "backend/api.hpp"
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
        throw UnsupportedError(
            fmt::format("the {} backend has no context flags: ContextOptions::{} is for CUDA", id().shortcut(), what));
    }
    // Contexts of this API are its own already: own_contexts changes nothing.
    return create_context(devices);
}

}  // namespace kjarni::backend
