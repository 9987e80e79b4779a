#pragma once
// Where compiled modules come from: the context's memory cache, else the user's disk cache, else
// the compiler. Keys cover everything that changes the binary.

#include <memory>
#include <string>

#include "backend/backend.hpp"
#include "kjarni/context.hpp"

namespace kjarni::detail {

std::shared_ptr<backend::Module> obtain_module(const BoundDevice& device, const std::string& source,
                                               const backend::BuildOptions& options);

}  // namespace kjarni::detail
