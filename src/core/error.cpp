#include "kjarni/error.hpp"

#include <fmt/format.h>

namespace kjarni {

BackendError::BackendError(std::string api, std::string call, std::int64_t code, std::string code_name,
                           const std::string& detail)
    : Error(fmt::format("{} call {} failed: {} ({}){}{}", api, call, code_name, code, detail.empty() ? "" : ": ",
                        detail)),
      api_(std::move(api)),
      call_(std::move(call)),
      code_(code),
      code_name_(std::move(code_name)) {}

ArgumentError::ArgumentError(std::string argument, const std::string& reason)
    : Error(fmt::format("argument '{}': {}", argument, reason)), argument_(std::move(argument)) {}

}  // namespace kjarni
