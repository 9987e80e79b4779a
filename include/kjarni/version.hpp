#pragma once
/// The library's version as text and as numbers, its ABI version, and the version of the NVRTC it
/// compiles CUDA kernels with (pygpu's api_version / abi_version; PyCUDA's VERSION and
/// nvrtc.version()). \file

#include <compare>
#include <optional>
#include <string>

namespace kjarni {

/// A version as numbers; compares as a tuple (major, then minor, then patch).
struct Version {
    int major = 0;
    int minor = 0;
    int patch = 0;
    friend auto operator<=>(const Version&, const Version&) = default;
    /// "major.minor.patch".
    std::string to_string() const;
};

/// The library's version, "major.minor.patch".
const char* version() noexcept;
/// The same as numbers (of the library linked, not of the headers compiled against).
Version version_info() noexcept;

/// The ABI version: that of the shared library's name (libkjarni.so.MAJOR.MINOR), {major, minor,
/// 0}. A program built against one ABI version runs with any library of the same ABI version;
/// another needs it rebuilt.
Version abi_version() noexcept;

/// The version of the NVRTC library kjarni loaded to compile CUDA kernels ({major, minor, 0}, as
/// nvrtcVersion gives it; NVRTC has no patch number), loading it if it was not yet; nullopt when
/// there is none here (or this build has no CUDA backend).
std::optional<Version> nvrtc_version();

}  // namespace kjarni
