#pragma once
// Include/exclude regex masks, as PlatformFilter and DeviceFilter use them.

#include <string>
#include <vector>

namespace kjarni::detail {

/// True if one include mask matches (or there are none) and no exclude mask does. Masks are
/// ECMAScript regexes searched anywhere in the name, without back-references, matched in time
/// polynomial in the name's length; a malformed one, or one longer than 1024 characters, raises
/// ArgumentError naming the list it came from.
bool passes_masks(const std::string& name, const std::vector<std::string>& include_masks,
                  const std::vector<std::string>& exclude_masks);

}  // namespace kjarni::detail
