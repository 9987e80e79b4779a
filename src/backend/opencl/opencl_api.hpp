#pragma once

#include <memory>

#include "backend/backend.hpp"

namespace kjarni::backend {

/// The OpenCL Api: usable when an ICD loader is found and reports at least one platform; otherwise
/// an Api whose unavailable_reason() says why.
std::unique_ptr<Api> make_opencl_api();

}  // namespace kjarni::backend
