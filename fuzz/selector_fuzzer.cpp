// libFuzzer entry point: the device and platform selectors, the include/exclude regex masks of
// PlatformFilter and DeviceFilter (core/masks.hpp), as a user writes them. The input is lines: the
// first is a device name (at most 256 characters, as drivers report them), each other line a mask,
// an include mask when it starts with '+', else an exclude mask. The masks are matched against that
// name and against real device names. kjarni::ArgumentError (a malformed mask) is the expected way
// to fail; any other exception, a crash (a regex compiler recursing off the stack), a hang or a
// sanitizer report is a finding.

#include <kjarni/error.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/masks.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    std::vector<std::string> lines;
    std::size_t start = 0;
    while (start <= text.size()) {
        const std::size_t end = std::min(text.find('\n', start), text.size());
        lines.emplace_back(text.substr(start, end - start));
        start = end + 1;
    }
    std::vector<std::string> include_masks;
    std::vector<std::string> exclude_masks;
    for (std::size_t i = 1; i < lines.size(); ++i) {
        if (!lines[i].empty() && lines[i][0] == '+') {
            include_masks.push_back(lines[i].substr(1));
        } else {
            exclude_masks.push_back(lines[i]);
        }
    }
    const std::string names[] = {
        lines[0].substr(0, 256),
        "NVIDIA H100 80GB HBM3",
        "pthread-haswell-AMD EPYC 7B13 64-Core Processor",
        "Portable Computing Language",
        "",
    };
    for (const std::string& name : names) {
        try {
            (void)kjarni::detail::passes_masks(name, include_masks, exclude_masks);
        } catch (const kjarni::ArgumentError&) {
            return 0;  // the same masks fail for every name
        }
    }
    return 0;
}
