#pragma once
// What the tool's commands share: the device a command runs on, template arguments from the
// command line, and the progress line of long work.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "kjarni/context.hpp"
#include "kjarni/template/value.hpp"

namespace kjarni::tool {

/// The device `spec` names (a device specifier as KJARNI_TEST takes: api[:platform_regex[:device_regex]],
/// cudaN, openclP:D, pci:BUS_ID), the first match; empty: the default device (the first device
/// of the first available API).
BoundDevice choose_device(const std::string& spec);

/// A JSON value as a template value (numbers, strings, booleans, null, arrays, objects).
Value to_value(const nlohmann::json& json);

/// Render globals from NAME=VALUE words; VALUE is read as JSON where it parses (3, 2.5, true,
/// [1,2], {"a":1}, "text"), else taken as a string. ArgumentError for a word without '='.
Globals parse_globals(const std::vector<std::string>& assignments);

/// A progress line on standard error, redrawn in place, shown only when standard error is a
/// terminal (so that scripts and tests see clean output); cleared when it goes.
class Progress {
public:
    Progress(std::string title, std::size_t steps);
    ~Progress();
    Progress(const Progress&) = delete;
    Progress& operator=(const Progress&) = delete;

    /// Step `done + 1` of `steps` starts: shows "title [k/steps] what".
    void step(std::string_view what);

private:
    std::string title_;
    std::size_t steps_;
    std::size_t done_ = 0;
    bool shown_;
};

}  // namespace kjarni::tool
