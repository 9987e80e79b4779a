#pragma once
/// Snippets and Modules as grunnur has them, and render_with_modules(): the one function
/// Program and StaticKernel call to turn a template source into the code given to the compiler. \file

#include <kjarni/template/template.hpp>
#include <kjarni/template/value.hpp>

#include <functional>
#include <memory>
#include <string>
#include <variant>
#include <vector>

namespace kjarni {

namespace detail {
struct SnippetImpl {
    DefTemplate def;
    Globals render_globals;
};
struct ModuleImpl {
    DefTemplate def;
    Globals render_globals;
};
}  // namespace detail

/// A template def with its own render globals, rendered in place where it is used:
/// `${snippet(a, b)}`, or `${snippet}` for `${snippet()}`.
class Snippet {
public:
    explicit Snippet(DefTemplate def, Globals render_globals = {});
    /// A snippet with no arguments whose body is `source`.
    static Snippet from_string(const std::string& source, std::string name = "_snippet", Globals render_globals = {});
    /// A snippet with arguments `argnames` whose body `body` returns (see DefTemplate::from_callable).
    static Snippet from_callable(std::vector<std::string> argnames, const std::function<std::string()>& body,
                                 std::string name = "_snippet", Globals render_globals = {});

    const DefTemplate& template_def() const noexcept { return impl_->def; }
    const Globals& render_globals() const noexcept { return impl_->render_globals; }

    const std::shared_ptr<const detail::SnippetImpl>& impl() const noexcept { return impl_; }
    explicit Snippet(std::shared_ptr<const detail::SnippetImpl> impl) : impl_(std::move(impl)) {}

private:
    std::shared_ptr<const detail::SnippetImpl> impl_;
};

/// A template def rendered once at the root of the source, with a unique prefix as its first
/// argument; where it is used, the template sees the prefix. Copies of a Module are the same module
/// (a module used without arguments in several places is rendered once).
class Module {
public:
    /// `def` must take at least one argument (the prefix).
    explicit Module(DefTemplate def, Globals render_globals = {});
    /// A module whose only argument is `prefix` and whose body is `source`.
    static Module from_string(const std::string& source, std::string name = "_module", Globals render_globals = {});
    /// A module with arguments `argnames` (the first receives the prefix).
    static Module from_callable(std::vector<std::string> argnames, const std::function<std::string()>& body,
                                std::string name = "_module", Globals render_globals = {});

    const DefTemplate& template_def() const noexcept { return impl_->def; }
    const Globals& render_globals() const noexcept { return impl_->render_globals; }

    const std::shared_ptr<const detail::ModuleImpl>& impl() const noexcept { return impl_; }
    explicit Module(std::shared_ptr<const detail::ModuleImpl> impl) : impl_(std::move(impl)) {}

private:
    std::shared_ptr<const detail::ModuleImpl> impl_;
};

// TemplateSource (a std::variant of template text, a DefTemplate or a Snippet) is declared in
// kjarni/template_fwd.hpp, where program.hpp finds it without the template headers.

/// Renders `source` as grunnur renders a kernel template (modules first, each once), and returns
/// the code for the compiler.
///
/// Modules found in `render_globals` (and in a Snippet source's own globals; also inside lists,
/// tuples, dicts and Objects through Object::process_modules) are replaced by objects that, when the
/// template uses them (`${mod}` or `${mod(args...)}`), render the module's def at the root of the
/// source with a fresh prefix `_mod_<name>_<n>_` followed by the arguments, after first rendering
/// the modules that def itself uses (depth first), and evaluate to that prefix. A module used
/// without arguments is rendered once however often it is used. Snippets found there render in
/// place; their own globals are processed the same way, so modules may hold snippets which hold
/// modules, to any depth.
///
/// The result is the rendered modules, in the order their rendering finished, each followed by a
/// blank line, then the rendered main code. `render_args` are the positional arguments of the main
/// def (none for a string). For a Snippet source, `render_globals` are added to the snippet's own
/// globals (and win on a clash). Throws RenderError.
std::string render_with_modules(const TemplateSource& source, const std::vector<Value>& render_args = {},
                                const Globals& render_globals = {});

/// What render_parts_with_modules() gives: the modules' sources, and each part's code.
struct RenderedParts {
    /// The sources of the modules the parts used, in the order their rendering finished, joined
    /// by newlines ("" when none): render_with_modules() puts this and a newline before its main code.
    std::string modules;
    /// Each part rendered, in the order given.
    std::vector<std::string> parts;
};

/// Renders `parts`, the pieces of one template (e.g. a kernel's preamble and its operation, which
/// land in different places of the kernel), each on its own: a part is lexed, parsed and rendered
/// as a template's top level (no newlines added around it), so no line, tag or block runs from one
/// part into the next, and the names a `<% %>` block assigns stay in its part. What Mako makes
/// module-level is shared: the `<%def>`s, `<%! %>` blocks and `<%namespace>` tags of any part
/// serve every part. The Modules and Snippets in `render_globals` are processed once for all the
/// parts, as render_with_modules() processes them: a module used in several parts is rendered
/// once. `name` names the template in errors, whose lines count through the parts joined by
/// newlines. `<%inherit>` and `<%page>` are refused. Throws RenderError, and Error for no parts.
RenderedParts render_parts_with_modules(const std::vector<std::string>& parts, const Globals& render_globals = {},
                                        std::string name = "_parts_");

}  // namespace kjarni
