// TemplateLookup: finds template files by URI in its directories and caches what it compiles.

#include <kjarni/template/lookup.hpp>

#include "compile.hpp"
#include "lookup_state.hpp"

#include <fmt/format.h>

#include <fstream>
#include <sstream>

namespace kjarni {

namespace {

std::string describe(const std::string& uri, const std::vector<std::filesystem::path>& directories,
                     const std::string& why) {
    std::string dirs;
    for (const auto& d : directories) dirs += (dirs.empty() ? "'" : ", '") + d.string() + "'";
    if (dirs.empty()) dirs = "none";
    return fmt::format("template '{}' not found{}{} (directories searched: {})", uri, why.empty() ? "" : ": ", why,
                       dirs);
}

}  // namespace

TemplateNotFound::TemplateNotFound(std::string uri, std::vector<std::filesystem::path> directories,
                                   const std::string& why)
    : Error(describe(uri, directories, why)), uri_(std::move(uri)), directories_(std::move(directories)) {}

namespace detail {

std::string normalize_uri(const std::string& uri, const std::string& relative_to,
                          const std::vector<std::filesystem::path>& directories) {
    // posixpath.normpath of the joined path, done on '/'-separated parts; a part that climbs above
    // the top is refused (Mako would let it read any file).
    std::string joined = uri;
    if (uri.empty() || uri[0] != '/') {
        const auto slash = relative_to.rfind('/');
        if (slash != std::string::npos) joined = relative_to.substr(0, slash + 1) + uri;
    }
    std::vector<std::string> parts;
    std::size_t i = 0;
    while (i <= joined.size()) {
        std::size_t e = joined.find('/', i);
        if (e == std::string::npos) e = joined.size();
        const std::string part = joined.substr(i, e - i);
        i = e + 1;
        if (part.empty() || part == ".") continue;
        if (part == "..") {
            if (parts.empty()) throw TemplateNotFound(uri, directories, "it leaves the lookup's directories ('..')");
            parts.pop_back();
            continue;
        }
        if (part.find('\\') != std::string::npos || part.find('\0') != std::string::npos)
            throw TemplateNotFound(uri, directories, "a URI separates its parts with '/' only");
        parts.push_back(part);
    }
    if (parts.empty()) throw TemplateNotFound(uri, directories, "the URI names no file");
    std::string out;
    for (const auto& p : parts) out += (out.empty() ? "" : "/") + p;
    return out;
}

std::filesystem::path LookupState::find(const std::string& uri) const {
    for (const auto& dir : directories) {
        std::error_code ec;
        const auto candidate = dir / std::filesystem::path(uri);
        if (std::filesystem::is_regular_file(candidate, ec)) return candidate;
    }
    return {};
}

std::shared_ptr<const CompiledTemplate> LookupState::get(const std::string& uri) const {
    {
        std::lock_guard lock(mutex);
        if (auto it = cache.find(uri); it != cache.end()) return it->second;
    }
    const auto path = find(uri);
    if (path.empty()) throw TemplateNotFound(uri, directories);
    std::ifstream in(path, std::ios::binary);
    if (!in) throw TemplateNotFound(uri, directories, fmt::format("cannot read '{}'", path.string()));
    std::ostringstream buffer;
    buffer << in.rdbuf();
    // Compiled outside the lock (it may take a while); two threads racing keep the first.
    auto t = tmpl::compile(path.string(), buffer.str(), tmpl::top_level_name, {}, 0, uri, weak_from_this());
    std::lock_guard lock(mutex);
    return cache.emplace(uri, std::move(t)).first->second;
}

}  // namespace detail

TemplateLookup::TemplateLookup(std::vector<std::filesystem::path> directories)
    : state_(std::make_shared<detail::LookupState>()) {
    if (directories.empty()) throw Error("TemplateLookup: no directories given");
    state_->directories = std::move(directories);
}

TemplateLookup TemplateLookup::without_directories() {
    // Made as a lookup of one directory, then given a state of none (every constructor but the
    // public one would make `TemplateLookup({})` ambiguous).
    TemplateLookup lookup({std::filesystem::path()});
    lookup.state_ = std::make_shared<detail::LookupState>();
    return lookup;
}

void TemplateLookup::put_string(const std::string& uri, const std::string& text) const {
    const std::string normalized = detail::normalize_uri(uri, {}, state_->directories);
    // Named by its URI, as Mako names a put_string template.
    auto t = tmpl::compile(normalized, text, tmpl::top_level_name, {}, 0, normalized, state_);
    const std::lock_guard lock(state_->mutex);
    state_->cache.insert_or_assign(normalized, std::move(t));
    state_->given.insert(normalized);
}

Template TemplateLookup::get_template(const std::string& uri) const {
    return Template(state_->get(detail::normalize_uri(uri, {}, state_->directories)), state_);
}

bool TemplateLookup::has_template(const std::string& uri) const {
    try {
        const std::string normalized = detail::normalize_uri(uri, {}, state_->directories);
        {
            const std::lock_guard lock(state_->mutex);
            if (state_->given.count(normalized)) return true;
        }
        return !state_->find(normalized).empty();
    } catch (const TemplateNotFound&) {
        return false;
    }
}

Template TemplateLookup::from_string(const std::string& source, std::string name) const {
    return Template(tmpl::compile(std::move(name), source, tmpl::top_level_name, {}, 0, {}, state_), state_);
}

const std::vector<std::filesystem::path>& TemplateLookup::directories() const noexcept { return state_->directories; }

}  // namespace kjarni
