#include "kjarni/version.hpp"

namespace kjarni {

const char* version() noexcept { return KJARNI_VERSION; }

}  // namespace kjarni
