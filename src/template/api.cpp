// Template, DefTemplate and RenderError: the public face of the compiler and the evaluator.

#include <kjarni/template/lookup.hpp>
#include <kjarni/template/template.hpp>

#include "compile.hpp"
#include "errors.hpp"
#include "evaluator.hpp"
#include "template_parser.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cctype>
#include <fstream>
#include <sstream>

namespace kjarni {

namespace {

std::string describe(const std::string& template_name, std::size_t line, std::size_t column, const std::string& message,
                     const std::vector<std::string>& globals, const std::string& source_line) {
    std::string s = fmt::format("template '{}', line {}, column {}: {}", template_name, line, column, message);
    if (!source_line.empty()) {
        s += fmt::format("\n    {}\n    {}^", source_line, std::string(column > 0 ? column - 1 : 0, ' '));
    }
    if (!globals.empty()) s += fmt::format("\n  render globals: {}", fmt::join(globals, ", "));
    return s;
}

bool is_identifier(const std::string& s) {
    if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
    for (char c : s)
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
    return true;
}

}  // namespace

namespace tmpl {

std::shared_ptr<const detail::CompiledTemplate> compile(std::string name, std::string source,
                                                        const std::string& main_name,
                                                        const std::vector<std::string>& main_params,
                                                        std::size_t line_shift, std::string uri,
                                                        std::weak_ptr<const detail::LookupState> lookup) {
    auto t = std::make_shared<detail::CompiledTemplate>(std::move(name), std::move(source));
    t->line_shift = line_shift;
    t->uri = std::move(uri);
    t->has_lookup = !lookup.expired();
    t->lookup = std::move(lookup);
    try {
        compile_template(*t, main_name, main_params);
    } catch (const PositionedError& e) {
        throw make_render_error(*t, e.offset(), e.what(), nullptr, e.cause());
    }
    return t;
}

std::string part_name(std::size_t k) { return fmt::format("<part {}>", k); }

std::shared_ptr<const detail::CompiledTemplate> compile_parts(std::string name, const std::vector<std::string>& parts) {
    std::string source;
    std::vector<std::pair<std::size_t, std::size_t>> ranges;
    std::vector<std::string> names;
    for (std::size_t k = 0; k < parts.size(); ++k) {
        if (k > 0) source += '\n';
        ranges.emplace_back(source.size(), source.size() + parts[k].size());
        source += parts[k];
        names.push_back(part_name(k));
    }
    auto t = std::make_shared<detail::CompiledTemplate>(std::move(name), std::move(source));
    try {
        compile_template_parts(*t, ranges, names);
    } catch (const PositionedError& e) {
        throw make_render_error(*t, e.offset(), e.what(), nullptr, e.cause());
    }
    return t;
}

}  // namespace tmpl

using tmpl::compile;
using tmpl::top_level_name;

RenderError::RenderError(std::string template_name, std::size_t line, std::size_t column, std::string message,
                         std::vector<std::string> global_names, std::string source_line)
    : RenderError(Details{std::move(template_name),
                          line,
                          column,
                          std::move(message),
                          std::move(global_names),
                          std::move(source_line),
                          nullptr,
                          {},
                          nullptr}) {}

RenderError::RenderError(Details details)
    : Error(describe(details.template_name, details.line, details.column, details.message, details.global_names,
                     details.source_line)) {
    if (!details.globals) details.globals = std::make_shared<const Globals>();
    if (!details.exception) details.exception = std::make_exception_ptr(Error(details.message));
    details_ = std::make_shared<const Details>(std::move(details));
}

// --- DefTemplate ---

DefTemplate DefTemplate::from_string(std::string name, std::vector<std::string> argnames, const std::string& source) {
    for (const auto& a : argnames)
        if (!is_identifier(a)) throw Error(fmt::format("DefTemplate '{}': '{}' is not a valid argument name", name, a));
    // grunnur makes the def `<%def name='NAME(ARGS)'>\nBODY\n</%def>`: the body renders between
    // two newlines (a control line at its end takes the last one, as in Mako).
    auto t = compile(name, "\n" + source + "\n", name, argnames, 1);
    return DefTemplate(std::move(t), std::move(name));
}

DefTemplate DefTemplate::from_callable(std::string name, std::vector<std::string> argnames,
                                       const std::function<std::string()>& body) {
    return from_string(std::move(name), std::move(argnames), body());
}

std::string DefTemplate::render(const std::vector<Value>& args, const Globals& globals) const {
    return render(Args{args, {}}, globals);
}

std::string DefTemplate::render(const Args& args, const Globals& globals) const {
    return tmpl::render_def(compiled_, name_, args, globals);
}

std::vector<std::string> DefTemplate::argnames() const {
    std::vector<std::string> names;
    for (const auto& p : compiled_->defs.at(name_).params) names.push_back(p.name);
    return names;
}

const std::string& DefTemplate::source() const { return compiled_->source; }

// --- Template ---

Template Template::from_string(const std::string& source, std::string name) {
    return Template(compile(std::move(name), source, top_level_name, {}));
}

Template Template::from_file(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw Error(fmt::format("cannot open template file '{}'", path.string()));
    std::ostringstream buffer;
    buffer << in.rdbuf();
    return Template(compile(path.string(), buffer.str(), top_level_name, {}));
}

Template Template::from_associated_file(const std::filesystem::path& filename) {
    std::filesystem::path p = filename;
    p.replace_extension(".mako");
    // A lookup of the file's own directory, so that its tags find the files next to it.
    const auto dir = p.has_parent_path() ? p.parent_path() : std::filesystem::path(".");
    const TemplateLookup lookup({dir});
    if (!lookup.has_template(p.filename().string()))
        throw Error(fmt::format("cannot open template file '{}'", p.string()));
    return lookup.get_template(p.filename().string());
}

DefTemplate Template::get_def(const std::string& name) const {
    if (name == top_level_name || !compiled_->defs.count(name))
        throw Error(fmt::format("template '{}' has no def '{}'", compiled_->name, name));
    return DefTemplate(compiled_, name, lookup_);
}

std::string Template::render(const Globals& globals) const { return main_def().render(std::vector<Value>{}, globals); }

DefTemplate Template::main_def() const { return DefTemplate(compiled_, top_level_name, lookup_); }

const std::string& Template::name() const { return compiled_->name; }
const std::string& Template::source() const { return compiled_->source; }

}  // namespace kjarni
