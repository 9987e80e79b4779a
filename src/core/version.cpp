// The library's version (from the build: KJARNI_VERSION_* are the project's version in CMake) and
// NVRTC's (from the backend registry, the one place that knows whether CUDA is built in).

#include "kjarni/version.hpp"

#include <fmt/format.h>

#include "backend/registry.hpp"

namespace kjarni {

std::string Version::to_string() const { return fmt::format("{}.{}.{}", major, minor, patch); }

const char* version() noexcept { return KJARNI_VERSION; }

Version version_info() noexcept { return {KJARNI_VERSION_MAJOR, KJARNI_VERSION_MINOR, KJARNI_VERSION_PATCH}; }

// The shared library's SOVERSION is MAJOR.MINOR (src/CMakeLists.txt): so is the ABI version.
Version abi_version() noexcept { return {KJARNI_VERSION_MAJOR, KJARNI_VERSION_MINOR, 0}; }

std::optional<Version> nvrtc_version() {
    const auto v = backend::nvrtc_version();
    if (!v) return std::nullopt;
    return Version{v->first, v->second, 0};
}

}  // namespace kjarni
