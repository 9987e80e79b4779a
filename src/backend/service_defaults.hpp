#pragma once
// The error the context services' defaults throw for what a backend lacks: UnsupportedError naming
// the backend and what was asked.

#include <string>

#include "backend/api.hpp"
#include "kjarni/error.hpp"

namespace kjarni::backend {

[[noreturn]] inline void backend_cannot(const Api& api, const std::string& what) {
    throw UnsupportedError("the " + api.id().shortcut() + " backend cannot " + what);
}

}  // namespace kjarni::backend
