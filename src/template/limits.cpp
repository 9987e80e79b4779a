#include "limits.hpp"

namespace kjarni {

TemplateLimits& template_limits() noexcept {
    static TemplateLimits l;
    return l;
}

}  // namespace kjarni
