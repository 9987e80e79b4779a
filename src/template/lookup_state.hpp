#pragma once
// The shared state behind a TemplateLookup: its directories and its cache of compiled templates,
// and Mako's URI rules (adjust_uri), used by the evaluator to resolve the loader tags.

#include <kjarni/template/lookup.hpp>

#include "ast.hpp"

#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

namespace kjarni::detail {

struct LookupState : std::enable_shared_from_this<LookupState> {
    std::vector<std::filesystem::path> directories;
    mutable std::mutex mutex;
    mutable std::map<std::string, std::shared_ptr<const CompiledTemplate>> cache;  // by normalised URI
    std::set<std::string> given;  // the URIs of templates given as text (put_string), in the cache

    /// The compiled template at the normalised `uri` (see normalize_uri): from the cache, or found
    /// in the directories, compiled and cached. Throws TemplateNotFound or RenderError.
    std::shared_ptr<const CompiledTemplate> get(const std::string& uri) const;
    /// The file `uri` names in the first directory that has it, or an empty path.
    std::filesystem::path find(const std::string& uri) const;
};

/// Mako's TemplateLookup.adjust_uri: `uri` as named by the template whose URI is `relative_to`: an
/// absolute one ("/a/b.mako") from the top, a relative one against relative_to's directory. The
/// result is normalised ("a/./b/../c" is "a/c") and has no leading '/'. Throws TemplateNotFound
/// when it climbs out of the directories ("..") or is empty.
std::string normalize_uri(const std::string& uri, const std::string& relative_to,
                          const std::vector<std::filesystem::path>& directories);

}  // namespace kjarni::detail
