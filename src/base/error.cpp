#include "kjarni/error.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <sstream>

namespace kjarni {

BackendError::BackendError(std::string api, std::string call, std::int64_t code, std::string code_name,
                           const std::string& detail)
    : Error(fmt::format("{} call {} failed: {} ({}){}{}", api, call, code_name, code, detail.empty() ? "" : ": ",
                        detail)),
      api_(std::move(api)), call_(std::move(call)), code_(code), code_name_(std::move(code_name)) {}

namespace {

std::string number_lines(const std::string& source) {
    std::istringstream in(source);
    std::string line, out;
    for (std::size_t n = 1; std::getline(in, line); ++n) out += fmt::format("{:5} | {}\n", n, line);
    return out;
}

}  // namespace

CompileError::CompileError(std::string api, std::string device, std::string log, std::vector<std::string> options,
                           std::string source)
    : Error(fmt::format("{} compilation for {} failed (options: {}):\n{}\n--- source ---\n{}", api, device,
                        fmt::join(options, " "), log, number_lines(source))),
      api_(std::move(api)), device_(std::move(device)), log_(std::move(log)), options_(std::move(options)),
      source_(std::move(source)) {}

std::string CompileError::numbered_source() const { return number_lines(source_); }

LinkError::LinkError(std::string api, std::string device, std::string log)
    : Error(fmt::format("{} linking for {} failed:\n{}", api, device, log)), api_(std::move(api)),
      device_(std::move(device)), log_(std::move(log)) {}

ArgumentError::ArgumentError(std::string argument, const std::string& reason)
    : Error(fmt::format("argument '{}': {}", argument, reason)), argument_(std::move(argument)) {}

}  // namespace kjarni
