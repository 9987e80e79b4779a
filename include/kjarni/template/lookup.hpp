#pragma once
/// The template loader: Mako's TemplateLookup. A template made through a lookup (or with one) can
/// use `<%include file="..."/>`, `<%inherit file="..."/>` and `<%namespace file="..."/>`, which
/// name other template files by URI, exactly as Mako renders them.
///
/// A URI is a '/'-separated path. One starting with '/' is taken from the top of the directories;
/// any other is relative to the directory of the template that names it (a template made from a
/// string has none: its URIs start at the top). The directories are searched in order, the first
/// that holds the file wins. A URI whose normalised form climbs out of the directories (`..`) is
/// refused. Compiled templates are cached by URI for the lookup's lifetime (unlike Mako, a file
/// changed afterwards is not reloaded).
///
/// Templates can also be given as text under a URI (Mako's put_string), e.g. templates embedded in
/// the program: those come before any file of the same URI, and their own tags resolve relative
/// URIs against the URI they were given under, so embedded templates and files include, inherit
/// and import each other freely. \file

#include <kjarni/error.hpp>
#include <kjarni/template/template.hpp>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace kjarni {

namespace detail {
struct LookupState;
}

/// No directory of the lookup holds the template `uri` (or the URI leaves the directories, or no
/// lookup was given). Names the URI and the directories searched.
class TemplateNotFound : public Error {
public:
    TemplateNotFound(std::string uri, std::vector<std::filesystem::path> directories, const std::string& why = {});
    const std::string& uri() const noexcept { return uri_; }
    const std::vector<std::filesystem::path>& directories() const noexcept { return directories_; }

private:
    std::string uri_;
    std::vector<std::filesystem::path> directories_;
};

/// Finds template files by URI in a list of directories, compiles each once and caches it.
/// Copies share one cache; thread-safe.
class TemplateLookup {
public:
    /// Searches `directories` in order. Throws kjarni::Error when the list is empty.
    explicit TemplateLookup(std::vector<std::filesystem::path> directories);
    /// A lookup with no directories: it finds only what put_string gives it (Mako's
    /// TemplateLookup() with put_string).
    static TemplateLookup without_directories();

    /// Compiles `text` as the template `uri` of this lookup (Mako's put_string): get_template(uri)
    /// and the tags of every template of the lookup find it from now on, before any file of that
    /// URI; a template put earlier under the URI is replaced (templates already rendered or
    /// holding it keep the one they had). Throws TemplateNotFound for a URI that is empty or leaves
    /// the top ('..'), RenderError when the text does not compile.
    void put_string(const std::string& uri, const std::string& text) const;

    /// The template `uri` (taken from the top of the directories), compiled with this lookup.
    /// Throws TemplateNotFound, or RenderError when it does not compile.
    Template get_template(const std::string& uri) const;
    /// Whether get_template(uri) would find a template (given with put_string, or a file).
    bool has_template(const std::string& uri) const;
    /// A template made from `source` whose tags load from this lookup (Mako's
    /// `Template(source, lookup=lookup)`).
    Template from_string(const std::string& source, std::string name = "<string>") const;

    const std::vector<std::filesystem::path>& directories() const noexcept;

private:
    std::shared_ptr<detail::LookupState> state_;
};

}  // namespace kjarni
