#pragma once
/// Templates in the Mako-compatible subset kjarni understands (grunnur's Template,
/// DefTemplate, RenderError). A template is compiled once (lexed, parsed) when constructed and can be
/// rendered any number of times.
///
/// The language is Mako's, as grunnur uses it (tests/template/corpus holds templates rendered by
/// Mako and by kjarni and compared byte for byte; refused.txt lists what kjarni refuses):
///
///      ${expression | filters}             substitution: str() of the value, then Mako's escapes h, u, x,
///                                          trim (n: no str first) or callables from the globals
///      % if / % elif / % else / % endif, % for ... in ...: / % else / % endfor, % while / % endwhile
///                                          control lines (the whole line vanishes); `loop` in a for
///                                          (index, reverse_index, first, last, even, odd, parent, cycle);
///                                          a <% break %>, <% continue %> or <% return %> acts on them
///                                          and on the def as in Mako
///      <%def name="f(a, b=1, *args, c, **kw)" filter="trim"> ... </%def>
///                                          a def; called in an expression it writes its text there and
///                                          returns '' (as in Mako); the tags take no whitespace with
///                                          them; filter= filters its whole output; Python's *args,
///                                          keyword-only and **kwargs parameters (also in def statements)
///      <%block name="b" filter="h"> ... </%block>, <%block> ... </%block>
///                                          a named block: a def of the template rendered where it
///                                          stands through `self` (so a child's block of that name
///                                          renders in its place), unless a template it inherits from
///                                          has one of that name; an anonymous block: a closure
///                                          rendered in place; the names either assigns count as the
///                                          enclosing function's too, as in Mako
///      <% statements %>                    Python statements: assignments (to names, tuples of names and
///                                          items x[k]), augmented assignments, expression statements,
///                                          if/elif/else, for, while, break, continue, pass, assert, del,
///                                          def/return (functions that see their enclosing scopes as they
///                                          are when called), import math
///      <%! statements %>                   module-level code: run once per render before anything reads
///                                          its names, which come before the render globals (it sees
///                                          neither the globals nor the template's names)
///      <%call expr="f(...)" args="a">      calls f with `caller`; caller.body(a=...) renders the body
///      <%self:f x="${v}" args="a">         the same as a custom tag (self and local: the template's defs)
///      ## comment, \ at a line end (joins lines), %% at a line start (a literal %)
///      <%doc> ... </%doc>, <%text filter="h"> ... </%text>
///                                          a comment; text written as it is (nothing in it read),
///                                          through the filters given
/// Expressions are Python's: literals (ints of any size, floats, strings: raw, triple-quoted,
/// f-strings), names, attributes, indexing and slices, calls with keywords, arithmetic, bit
/// operations, comparisons (chained), in / is, and / or / not, conditional expressions, lambdas,
/// list / tuple / dict / set literals, list, dict, set and generator comprehensions, `%`-formatting
/// and str.format with format specs; str methods (join, split, rsplit, splitlines, strip, lstrip,
/// rstrip, replace, find, rfind, index, count, startswith, endswith, partition, upper, lower, title,
/// ljust, rjust, center, zfill, is*, ...); list methods (append, extend, insert, pop, remove, sort
/// with key= and reverse=, reverse, index, count, copy, clear); dict methods (items, keys, values,
/// get, update, setdefault, pop, popitem, copy, clear); set methods and operators (| & - ^, add,
/// discard, update, union...); builtins (range, len, str, repr, int, float, bool, list, tuple, dict,
/// set, min, max, sum, any, all, abs, round, divmod, pow, enumerate, zip, map, filter, sorted,
/// reversed, isinstance, callable, type, getattr, hasattr, iter, next, hex, oct, bin, ord, chr,
/// format, ascii); `context` (get, keys, kwargs, context['n'], write), `pageargs`, `self`, `local`,
/// UNDEFINED and STOP_RENDERING; * and ** unpacking in calls and displays. Strings count, index and
/// slice in code points; dicts iterate in insertion order and take any hashable key.
/// Names are scoped as in Mako, whose top level and defs are Python functions: a name assigned
/// anywhere in one (in <% %> code, as a `% for` variable) is its local everywhere in it, read
/// before it is assigned an error (no global of the same name); every other name it reads must be
/// defined when it starts rendering, even one read in a branch never taken; the defs the top level
/// calls by name see the names its <% %> blocks assigned; a <%def> written in a <%def> is a
/// closure there (reading its names, seen only inside it); a <%call> body's assignments are its
/// own (read in it before they are made, an error); a def's default arguments see only builtins
/// and the names of <%! %> code.
/// Lists, dicts and sets change in place with Python's aliasing, for those the render made; values
/// from the globals or from C++ are shared between renders and threads and stay unchanged: changing
/// one is an error naming it (copy it first, e.g. list(x)). A container cannot be put inside itself
/// (no reference cycles).
/// Line ends are Mako's: text keeps its bytes, CRLF line ends included; a control line or a ##
/// comment ends at LF or CRLF (a line holding another CR is text); string literals in code read a
/// CRLF or a lone CR inside them as "\n", as Python does.
/// Refused with an error naming the construct (never rendered differently): printing or iterating
/// a set of more than one member in Python's hash order (sorted(s), len, in, min, max, sum of ints,
/// any and all work), integers beyond 2^20 bits, def attributes other than name and filter, imports
/// other than math, complex numbers, case mapping beyond Latin, basic Greek and Cyrillic, and
/// ${...} inside the attributes of the loader's tags, a lone CR (not before LF) inside the code of
/// a <% %> block, <%block> with args= (or buffered=, cached=, decorator=), a <%def> in a
/// <%block>, a block named as an attribute of Mako's Namespace (body, uri, ...), <%namespace>
/// with a body, `\N{...}` escapes, a bare `*` or a `/` in a <%def>'s
/// parameters (Mako rewrites them) and *args or **kwargs in <%page args>; and as Mako fails on
/// them: '**' in filters and default arguments, ${a, b} (Mako's str(a, b)), assigning loop,
/// context, UNDEFINED or STOP_RENDERING, a named <%block> in a <%def> or a <%call> body.
/// With a template loader (lookup.hpp: TemplateLookup, or from_associated_file):
///      <%include file="uri" args="v=5"/>   renders that template here, with the render globals and
///                                          the args for its <%page args>
///      <%inherit file="uri"/>              Mako's inheritance: the top of the chain renders, `next`,
///                                          `parent`, `self` and `local` as Mako binds them
///      <%namespace name="n" file="uri" import="f, *"/>
///                                          n.f(...) calls that template's defs; import binds them
///      <%page args="v, w=1"/>              the top level's arguments (from the globals or an include)
/// \file

#include <kjarni/error.hpp>
#include <kjarni/template/value.hpp>

#include <cstddef>
#include <cstdint>
#include <exception>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace kjarni {

namespace detail {
struct CompiledTemplate;
}

/// Bounds that keep a runaway or hostile template from exhausting the stack, the memory or the
/// time of the process: crossing one is a RenderError. The defaults are far above what kernel
/// templates need. Process-wide; change them only while no render is running.
struct TemplateLimits {
    std::size_t max_nesting = 200;         // nested expressions and blocks while parsing
    std::size_t max_call_depth = 200;      // nested def / snippet / module calls while rendering
    std::uint64_t max_steps = 50'000'000;  // evaluation steps of one top-level render
    std::size_t max_string = 64u << 20;    // characters of any string, the output included
    std::size_t max_items = 16u << 20;     // items of a list (or range) built by a template
};

/// The process-wide limits.
TemplateLimits& template_limits() noexcept;

/// A template failed to compile or to render (grunnur's RenderError). Names the template, the
/// 1-based line and column within its source, the message, and the names of the globals the render
/// was given; as grunnur's, it also carries the exception the failure started as, the globals'
/// values and the template's whole source, for debugging.
class RenderError : public Error {
public:
    /// Everything a RenderError carries (what the template engine fills in).
    struct Details {
        std::string template_name;
        std::size_t line = 0;
        std::size_t column = 0;
        std::string message;
        std::vector<std::string> global_names;
        std::string source_line;
        std::shared_ptr<const Globals> globals;  // null: none (an empty map is reported)
        std::string source;
        std::exception_ptr exception;  // null: a kjarni::Error of `message` is reported
    };

    RenderError(std::string template_name, std::size_t line, std::size_t column, std::string message,
                std::vector<std::string> global_names = {}, std::string source_line = {});
    explicit RenderError(Details details);

    const std::string& template_name() const noexcept { return details_->template_name; }
    std::size_t line() const noexcept { return details_->line; }
    std::size_t column() const noexcept { return details_->column; }
    /// The message alone, without the position.
    const std::string& message() const noexcept { return details_->message; }
    /// Names of the render globals given (empty for errors found while compiling).
    const std::vector<std::string>& global_names() const noexcept { return details_->global_names; }
    /// The text of the offending source line (may be empty).
    const std::string& source_line() const noexcept { return details_->source_line; }
    /// The values of the render globals given to the template that failed (grunnur's `globals`;
    /// empty for errors found while compiling). For a failure inside an included or inherited
    /// template, those that template was rendered with.
    const Globals& globals() const noexcept { return *details_->globals; }
    /// The whole source of the template that failed, as it was compiled (grunnur's `source`; a
    /// DefTemplate's body has the newline before and after it that the def wraps it in).
    const std::string& source() const noexcept { return details_->source; }
    /// The exception the failure started as (grunnur's `exception`, Mako's own error): what a
    /// C++ callable the template called threw (rethrow it to get its type), a TemplateNotFound of
    /// a loader tag, or a kjarni::Error with message() for what the template engine found itself
    /// (a syntax error, an unknown name, a bad operand...). Never null.
    const std::exception_ptr& exception() const noexcept { return details_->exception; }

private:
    std::shared_ptr<const Details> details_;  // shared: copying the exception stays cheap and noexcept
};

/// A def of a template: a function of named arguments whose body is template text.
class DefTemplate {
public:
    /// A def named `name` with arguments `argnames` and the body `source`. As in grunnur (which
    /// wraps the body in `<%def name='name(args)'>\n` and `\n</%def>`), the body renders between a
    /// newline before and a newline after it; error lines count from the body's first line.
    static DefTemplate from_string(std::string name, std::vector<std::string> argnames, const std::string& source);
    /// As from_string, with the body produced by `body` (called once, now). C++ callables have no
    /// parameter names to inspect, so the argument names are given explicitly.
    static DefTemplate from_callable(std::string name, std::vector<std::string> argnames,
                                     const std::function<std::string()>& body);

    /// Renders the def with positional arguments `args` and globals `globals`. Modules and Snippets
    /// are not processed here: use render_with_modules() for sources that use them.
    std::string render(const std::vector<Value>& args = {}, const Globals& globals = {}) const;
    /// As render(), with keyword arguments too.
    std::string render(const Args& args, const Globals& globals) const;

    const std::string& name() const noexcept { return name_; }
    /// The argument names, in order.
    std::vector<std::string> argnames() const;
    /// The full source of the template the def belongs to.
    const std::string& source() const;

    const std::shared_ptr<const detail::CompiledTemplate>& compiled() const noexcept { return compiled_; }

private:
    friend class Template;
    DefTemplate(std::shared_ptr<const detail::CompiledTemplate> compiled, std::string name,
                std::shared_ptr<const void> lookup = {})
        : compiled_(std::move(compiled)), name_(std::move(name)), lookup_(std::move(lookup)) {}
    std::shared_ptr<const detail::CompiledTemplate> compiled_;
    std::string name_;
    std::shared_ptr<const void> lookup_;  // keeps the template's lookup (which holds it weakly) alive
};

/// A whole template: its top-level text and the defs declared in it.
class Template {
public:
    /// Compiles `source`; `name` appears in error messages. Throws RenderError on bad syntax.
    static Template from_string(const std::string& source, std::string name = "<string>");
    /// Compiles the file at `path` (its path is the template's name). As Mako's
    /// Template(filename=...), it has no lookup: its loader tags fail when rendered (use
    /// TemplateLookup::get_template or from_associated_file for those).
    static Template from_file(const std::filesystem::path& path);
    /// The file with the same name as `filename` and the extension `.mako`; typically
    /// `Template::from_associated_file(__FILE__)` (grunnur's Template.from_associated_file). Its
    /// <%include>, <%inherit> and <%namespace> tags find files in its own directory (a
    /// TemplateLookup of that directory).
    static Template from_associated_file(const std::filesystem::path& filename);

    /// The def `name` declared with `<%def>`; throws kjarni::Error when there is none.
    DefTemplate get_def(const std::string& name) const;
    /// Renders the top level of the template (defs are not called unless used).
    std::string render(const Globals& globals = {}) const;
    /// The top level as a def with no arguments.
    DefTemplate main_def() const;

    const std::string& name() const;
    const std::string& source() const;

private:
    friend class TemplateLookup;
    explicit Template(std::shared_ptr<const detail::CompiledTemplate> compiled, std::shared_ptr<const void> lookup = {})
        : compiled_(std::move(compiled)), lookup_(std::move(lookup)) {}
    std::shared_ptr<const detail::CompiledTemplate> compiled_;
    std::shared_ptr<const void> lookup_;  // keeps the template's lookup (which holds it weakly) alive
};

}  // namespace kjarni
