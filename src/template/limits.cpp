#include "limits.hpp"

namespace kjarni::tmpl {

Limits& limits() noexcept {
    static Limits l;
    return l;
}

}  // namespace kjarni::tmpl
