// Tree-walking evaluator. Each def invocation has one local scope (arguments and loop variables,
// which, as in Python, stay visible after their loop); names resolve through the locals, the defs
// of the same template, the render globals, then the builtins.
//
// Errors: operations throw EvalError without a position; eval() attaches the position of the
// innermost expression (PositionedError); a def invocation turns positioned errors of its body into
// a RenderError of its own template, so positions are never read against another template's source.

#include "evaluator_internals.hpp"

#include "binding.hpp"
#include "builtins.hpp"
#include "errors.hpp"
#include "formatting.hpp"
#include "limits.hpp"
#include "loader_runtime.hpp"
#include "operators.hpp"
#include "ownership.hpp"
#include "runtime_objects.hpp"
#include "utf8.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <new>
#include <optional>

namespace kjarni::tmpl::evaluation {

constinit thread_local std::size_t call_depth = 0;
constinit thread_local std::uint64_t steps = 0;
constinit thread_local std::string* current_output = nullptr;
constinit thread_local ModuleScopes* module_scopes = nullptr;
constinit thread_local std::vector<Value>* caller_stack = nullptr;

Value write_out(std::string text) {
    if (!current_output) return Value(std::move(text));
    if (current_output->size() + text.size() > limits().max_string) throw EvalError("output too long (render limit)");
    *current_output += text;
    return Value(std::string());
}

Value def_value(const TemplatePtr& t, const Def* def, const GlobalsPtr& g, const Frame& frame,
                std::vector<std::weak_ptr<std::map<std::string, Value>>> outer,
                std::shared_ptr<const std::map<std::string, Value>> held) {
    return Value(Function([t, def, g, frame, outer = std::move(outer), held = std::move(held)](const Args& a) {
        std::optional<Value> returned;
        std::string text = invoke_def(t, *def, a, g, frame, &returned, outer);
        if (!current_output) return Value(std::move(text));
        if (current_output->size() + text.size() > limits().max_string)
            throw EvalError("output too long (render limit)");
        *current_output += text;
        // Mako's def returns '' after writing its text, or what a <% return x %> returned.
        return returned ? std::move(*returned) : Value(std::string());
    }));
}

std::string invoke_body(const TemplatePtr& t, const Args& args, const GlobalsPtr& g, const Frame& frame) {
    const Def& body = t->defs.at(t->main_def_name);
    Args kept{args.positional, {}};
    for (const auto& kw : args.keyword)
        if (std::any_of(body.params.begin(), body.params.end(), [&](const Param& p) { return p.name == kw.first; }))
            kept.keyword.push_back(kw);
    return invoke_def(t, body, kept, g, frame);
}

// Python's argument binding (binding.hpp); defaults are evaluated in the def's template, at call
// time.
std::map<std::string, Value> bind(const TemplatePtr& t, const Def& def, const Args& args, const GlobalsPtr& globals,
                                  const Frame& frame) {
    return bind_arguments(
        def.name, def.params, args,
        [&](std::size_t i) {
            Evaluator defaults(t, globals, {}, {}, frame);
            try {
                return defaults.eval(*def.params[i].default_value);
            } catch (const PositionedError& e) {
                throw make_render_error(*t, e.offset(), e.what(), globals.get(), e.cause());
            }
        },
        def.is_body ? "" : "context");
}

std::string invoke_def(const TemplatePtr& t, const Def& def, const Args& args, const GlobalsPtr& globals,
                       const Frame& frame, std::optional<Value>* returned,
                       std::vector<std::weak_ptr<std::map<std::string, Value>>> outer) {
    DepthGuard depth;
    std::map<std::string, Value> locals = bind(t, def, args, globals, frame);
    std::string out;
    Evaluator ev(t, globals, std::move(locals), std::move(outer), frame);
    try {
        ev.enter(def);
        const bool returned_early = ev.render(def.body, out) == Evaluator::Flow::Return;
        if (returned_early && returned) *returned = ev.returned_value();
        // <%def filter="...">: Mako filters the def's whole output, in order; a <% return %>
        // leaves the code that writes the filtered text unrun, so the output is lost.
        if (returned_early && !def.filters.empty()) out.clear();
        else
            for (const auto& f : def.filters)
                if (!is_no_filter(*f)) out = ev.filter(*f, Value(std::move(out))).str();
    } catch (const PositionedError& e) {
        throw make_render_error(*t, e.offset(), e.what(), globals.get(), e.cause());
    }
    return out;
}

}  // namespace kjarni::tmpl::evaluation

namespace kjarni::tmpl {

RenderError make_render_error(const detail::CompiledTemplate& t, std::uint32_t offset, const std::string& message,
                              const Globals* globals, std::exception_ptr cause) {
    std::vector<std::string> names;
    if (globals)
        for (const auto& kv : *globals) names.push_back(kv.first);
    const std::size_t line = t.source_map.line(offset);
    const std::size_t user_line = line > t.line_shift ? line - t.line_shift : 1;
    // The globals are copied (their values are shared handles, so this is cheap) because the
    // render's own map dies with the render, while the error may be kept.
    auto values = globals ? std::make_shared<const Globals>(*globals) : std::make_shared<const Globals>();
    if (!cause) cause = std::make_exception_ptr(Error(message));
    return RenderError(RenderError::Details{t.name, user_line, t.source_map.column(offset), message, std::move(names),
                                            t.source_map.line_text(t.source, line), std::move(values), t.source,
                                            std::move(cause)});
}

std::string render_def(const TemplatePtr& t, const std::string& def_name, const Args& args, const Globals& globals) {
    auto it = t->defs.find(def_name);
    if (it == t->defs.end()) throw Error(fmt::format("template '{}' has no def '{}'", t->name, def_name));
    auto g = std::make_shared<const Globals>(globals);
    using evaluation::Frame;
    using evaluation::GlobalsPtr;
    OwnerScope owner;  // containers made from here on belong to this render (ownership.hpp)
    evaluation::ModuleScopesGuard modules;
    try {
        // With <%inherit>, the top of the chain renders (Mako's _render_context); a def of the
        // template renders itself, with `self` the whole chain.
        auto chain = inheritance_chain(t, g.get());
        const bool top_level = def_name == t->main_def_name;
        const TemplatePtr& target = chain && top_level ? chain->back() : t;
        const Frame frame{chain, chain && top_level ? chain->size() - 1 : 0};
        const Def& def = target->defs.at(top_level ? target->main_def_name : def_name);
        Args full = args;
        // <%page args>: Mako passes the render globals that the top level names as arguments.
        if (top_level && target->page_args) {
            for (std::size_t i = full.positional.size(); i < def.params.size(); ++i) {
                const std::string& p = def.params[i].name;
                const bool given = std::any_of(full.keyword.begin(), full.keyword.end(),
                                               [&](const auto& kw) { return kw.first == p; });
                if (auto found = g->find(p); !given && found != g->end()) full.keyword.emplace_back(p, found->second);
            }
        }
        if (top_level && chain) return evaluation::invoke_body(target, full, g, frame);
        return evaluation::invoke_def(target, def, full, g, frame);
    } catch (const RenderError&) {
        throw;
    } catch (const PositionedError& e) {
        throw make_render_error(*t, e.offset(), e.what(), g.get(), e.cause());
    } catch (const EvalError& e) {
        // Binding the top-level arguments failed: report it at the def.
        throw make_render_error(*t, it->second.pos, e.what(), g.get(), std::current_exception());
    }
}

}  // namespace kjarni::tmpl
