#include "backend/dynamic_library.hpp"

#include <dlfcn.h>

namespace kjarni::backend {

std::optional<DynamicLibrary> DynamicLibrary::open(std::initializer_list<std::string_view> candidates,
                                                   std::string& error) {
    error.clear();
    for (std::string_view candidate : candidates) {
        std::string name(candidate);
        // RTLD_LOCAL: driver symbols must not leak into the global namespace of the process.
        if (void* handle = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL)) {
            return DynamicLibrary(handle, name);
        }
        if (!error.empty()) error += "; ";
        const char* why = dlerror();
        error += why ? why : name + ": unknown dlopen failure";
    }
    return std::nullopt;
}

void* DynamicLibrary::find(const char* symbol) const noexcept { return dlsym(handle_, symbol); }

}  // namespace kjarni::backend
