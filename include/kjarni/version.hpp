#pragma once

namespace kjarni {

/// The library's version, "major.minor.patch".
const char* version() noexcept;

}  // namespace kjarni
