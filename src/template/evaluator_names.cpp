// The Evaluator's name resolution: locals, the scopes of enclosing def statements, the template's
// defs, its <%! %> module names and <%namespace> names, the inheritance chain, globals and builtins.

#include "evaluator_internals.hpp"

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

namespace {

// Mako's capture(callable, *args, **kwargs): calls it with its output going to a string of its
// own, and gives that string (the callable's return value is dropped, as Mako drops it). What a
// def writes while called from an expression lands in current_output, so redirecting that is enough.
Value capture_function() {
    return Value(Function([](const Args& a) {
        if (a.positional.empty() || (a.positional[0].kind() != K::Callable && a.positional[0].kind() != K::Object)) {
            throw EvalError("capture() function expects a callable as its argument "
                            "(i.e. capture(func, *args, **kwargs))");
        }
        const Args rest{{a.positional.begin() + 1, a.positional.end()}, a.keyword};
        std::string text;
        {
            OutputGuard guard(text);
            const Value& callee = a.positional[0];
            if (callee.kind() == K::Callable) static_cast<void>(callee.as_function()(rest));
            else static_cast<void>(callee.as_object()->call(rest));
        }
        return Value(std::move(text));
    }));
}

// Python's UnboundLocalError: `name` is the function's local (it assigns or deletes it somewhere)
// and holds no value where it is read.
EvalError unbound_local(const std::string& name) {
    return EvalError(fmt::format("cannot access local variable '{}' where it is not associated with a value", name));
}

// Whether one of the name lists holds `name`.
bool listed(const std::vector<const std::vector<std::string>*>& lists, const std::string& name) {
    return std::any_of(lists.begin(), lists.end(), [&](const std::vector<std::string>* names) {
        return std::find(names->begin(), names->end(), name) != names->end();
    });
}

}  // namespace

Value Evaluator::lookup_def(const std::string& name) {
    if (auto it = t_->defs.find(name); it != t_->defs.end() && name != t_->main_def_name) return lookup(name);
    throw EvalError(fmt::format("'Caller' object has no attribute '{}'", name));
}

// A name bound by the template's <%! %> blocks (run now when this render has not run them yet).
const Value* Evaluator::module_name(const std::string& name) {
    if (t_->module_code.empty() || !module_scopes) return nullptr;
    auto it = module_scopes->find(t_.get());
    if (it == module_scopes->end()) {
        // As in Mako, module-level code sees neither the render globals nor the template's names.
        static const GlobalsPtr no_globals = std::make_shared<const Globals>();
        Evaluator ev(t_, no_globals, {});
        ev.in_module_ = true;
        // Registered first: the block's names are the module scope while it runs, too.
        it = module_scopes->emplace(t_.get(), ev.scope_).first;
        if (ev.exec(t_->module_code) != Flow::Normal) throw EvalError("'break' or 'continue' outside a loop");
    }
    if (in_module_) return nullptr;
    auto found = it->second->find(name);
    return found == it->second->end() ? nullptr : &found->second;
}

std::shared_ptr<const Chain> Evaluator::chain() const {
    return frame_.chain ? frame_.chain : std::make_shared<const Chain>(Chain{t_});
}

// The names a <%namespace> tag binds in this template: the namespace's own name, and the defs
// it imports (by name, or all of them with "*").
std::optional<Value> Evaluator::namespace_name(const std::string& name) {
    for (const auto& decl : t_->namespaces) {
        const bool named = decl.name == name;
        const bool listed = std::find(decl.imports.begin(), decl.imports.end(), name) != decl.imports.end();
        const bool star = std::find(decl.imports.begin(), decl.imports.end(), "*") != decl.imports.end();
        if (!named && !listed && !star) continue;
        TemplatePtr target;
        std::shared_ptr<const Chain> ns_chain;
        try {
            target = load_related(*t_, decl.uri);
            ns_chain = inheritance_chain(target, globals_.get());
        } catch (const EvalError& e) {
            throw PositionedError(e.what(), decl.pos, std::current_exception());
        } catch (const TemplateNotFound& e) {
            throw PositionedError(e.what(), decl.pos, std::current_exception());
        }
        if (!ns_chain) ns_chain = std::make_shared<const Chain>(Chain{target});
        Namespace ns(ns_chain, 0, globals_);
        if (named) return Value(std::make_shared<Namespace>(std::move(ns)));
        if (!listed) {  // "*": only the defs the namespace has
            bool found = false;
            for (const auto& t : *ns_chain) found = found || (t->defs.count(name) && name != t->main_def_name);
            if (!found) continue;
        }
        try {
            return ns.attribute(name);
        } catch (const EvalError&) {
            throw PositionedError(fmt::format("'<%namespace file=\"{}\">' has no def '{}' to import", decl.uri, name),
                                  decl.pos);
        }
    }
    return std::nullopt;
}

Value Evaluator::pageargs() const {
    // Mako's render_body(context, **pageargs): the render globals its <%page> does not take, for
    // the template rendered; none for a body an inheriting template's next.body() renders.
    DictItems args;
    if (!frame_.chain || frame_.index + 1 == frame_.chain->size())
        for (const auto& [key, value] : *globals_) {
            const auto& name = key;  // (a lambda capturing a structured binding is refused by clang 14)
            if (std::none_of(function_->params.begin(), function_->params.end(),
                             [&](const Param& p) { return p.name == name; }))
                args.set(Value(key), value);
        }
    return Value::dict(std::move(args));
}

void Evaluator::enter(const Def& def) {
    function_ = &def;
    // Mako's __M_locals starts with pageargs (so the defs the top level calls see it).
    if (def.is_body) handed_ = std::make_shared<Vars>(Vars{{"pageargs", pageargs()}});
    for (const auto& [name, pos] : def.free_names) {
        // A <%! %> name the function deletes is its unbound local: Mako takes nothing for it.
        if (def.deleted.count(name) && module_name(name)) continue;
        try {
            static_cast<void>(lookup(name));
        } catch (const EvalError& e) {
            throw PositionedError(e.what(), pos, std::current_exception());
        }
    }
}

GlobalsPtr Evaluator::def_globals() {
    if (!handed_ || handed_->empty()) return globals_;
    if (!handed_globals_) {
        // Mako's context._locals(__M_locals): the context's names, and the top level's over them.
        auto merged = std::make_shared<Globals>(*globals_);
        for (const auto& [name, value] : *handed_) (*merged)[name] = value;
        handed_globals_ = std::move(merged);
    }
    return handed_globals_;
}

std::shared_ptr<Evaluator::Vars> Evaluator::outside_call_body() const {
    // The bodies rendering here, innermost first, down to the innermost <%call> body: each one's
    // names take the values they had outside it.
    std::size_t k = block_bodies_.size();
    while (k > 0 && block_bodies_[k - 1]) --k;
    if (k == 0) return nullptr;
    auto view = std::make_shared<Vars>(locals_);
    for (std::size_t i = block_bodies_.size(); i-- > k - 1;) assign_all(*view, *body_outer_values_[i]);
    return view;
}

bool Evaluator::body_local(const std::string& name) const { return listed(body_locals_, name); }

void Evaluator::delete_unassigned(const std::string& name) {
    // Deleted already, a local of a <%call> or block body not yet assigned, a name of an
    // enclosing def (the delete makes it this function's local), a name of the module's <%! %>
    // code (a global made local), or any name in a block (which takes none from the context).
    if (deleted_.count(name) || body_local(name)) throw unbound_local(name);
    for (const auto& weak : outer_)
        if (auto vars = weak.lock(); vars && vars->count(name)) throw unbound_local(name);
    if (!block_bodies_.empty() && block_bodies_.back()) throw unbound_local(name);
    if (module_name(name)) throw unbound_local(name);
    if (!globals_->count(name)) throw EvalError(fmt::format("name '{}' is not defined", name));
    deleted_.insert(name);
}

Value Evaluator::lookup(const std::string& name) {
    if (auto it = locals_.find(name); it != locals_.end()) return it->second;
    if (listed(hidden_from_block_, name))
        throw EvalError(fmt::format("name '{}' is not defined (an anonymous '<%block>' in a '<%call>' body does "
                                    "not see the body's arguments and locals: Mako defines it beside the body)",
                                    name));
    if (deleted_.count(name) || body_local(name)) throw unbound_local(name);
    for (const auto& weak : outer_) {
        if (auto vars = weak.lock()) {
            if (auto it = vars->find(name); it != vars->end()) return it->second;
        }
    }
    // A name the def assigns somewhere is its local everywhere (Python's scoping of Mako's render
    // functions): read before it is assigned, it is no global of the same name.
    if (function_ && function_->declared.count(name)) throw unbound_local(name);
    if (function_ && function_->block_declared.count(name)) {
        if (const Value* v = module_name(name)) return *v;
        if (const Value* b = find_builtin(name)) return *b;
        throw EvalError(fmt::format("name '{}' is not defined (a '<%block>' assigns it: Mako takes it from no "
                                    "context outside the block)",
                                    name));
    }
    if (auto it = t_->defs.find(name); it != t_->defs.end() && name != t_->main_def_name) {
        const Def& def = it->second;
        if (def.parent.empty()) {
            // Written in a <%call> body of the top level: a closure of the top level's variables
            // as they are outside the body, as a def nested in a def is of that def's.
            if (def.in_call_body && function_ && function_->is_body)
                if (auto view = outside_call_body()) return def_value(t_, &def, globals_, frame_, {view}, view);
            return def_value(t_, &def, def_globals(), frame_);
        }
        // A nested def: a closure of the def it is written in, seen from that def (or from defs
        // nested in it), reading its locals.
        for (const Def* f = function_; f; f = f->parent.empty() ? nullptr : &t_->defs.at(f->parent)) {
            if (f->name != def.parent) continue;
            // A def written in a <%call> body of this function reads this function's variables
            // as they are outside the body (Mako defines it beside the body's function).
            std::shared_ptr<Vars> view = def.in_call_body && f == function_ ? outside_call_body() : nullptr;
            std::vector<std::weak_ptr<Vars>> outer{view ? view : scope_};
            outer.insert(outer.end(), outer_.begin(), outer_.end());
            return def_value(t_, &def, globals_, frame_, std::move(outer), std::move(view));
        }
    }
    if (!t_->namespaces.empty())
        if (auto v = namespace_name(name)) return *v;
    if (const Value* v = module_name(name)) {
        // A <%! %> name the function deletes somewhere is its local everywhere (Python's
        // scoping), never assigned: unbound wherever it is read.
        if (function_ && function_->deleted.count(name)) throw unbound_local(name);
        return *v;
    }
    // Mako's runtime function, which a global of the same name does not hide.
    if (name == "capture") return capture_function();
    if (auto it = globals_->find(name); it != globals_->end()) return it->second;
    if (name == "context") {
        // What Mako's inheritance puts in this template's context: `parent` where it inherits,
        // `next` where another template inherits it.
        InheritedNames inherited;
        if (frame_.chain && frame_.index + 1 < frame_.chain->size())
            inherited.emplace_back("parent",
                                   Value(std::make_shared<Namespace>(frame_.chain, frame_.index + 1, globals_)));
        if (frame_.chain && frame_.index > 0)
            inherited.emplace_back("next",
                                   Value(std::make_shared<Namespace>(frame_.chain, frame_.index - 1, globals_)));
        return make_context(globals_, Function([](const Args& a) {
                                if (a.size() != 1 || !a.keyword.empty())
                                    throw EvalError("context.write() takes one argument");
                                // Mako's output takes only strings.
                                if (a[0].kind() != K::String)
                                    throw EvalError(fmt::format("context.write() of a {}: Mako writes only strings",
                                                                a[0].type_name()));
                                static_cast<void>(write_out(a[0].as_string()));
                                return Value();
                            }),
                            std::move(inherited));
    }
    if (name == "pageargs" && function_ && function_->is_body) return pageargs();
    if (name == "self") return Value(std::make_shared<Namespace>(chain(), 0, globals_));
    if (name == "local") return Value(std::make_shared<Namespace>(chain(), frame_.index, globals_));
    if (name == "next" && frame_.chain && frame_.index > 0)
        return Value(std::make_shared<Namespace>(frame_.chain, frame_.index - 1, globals_));
    if (name == "parent" && frame_.chain && frame_.index + 1 < frame_.chain->size())
        return Value(std::make_shared<Namespace>(frame_.chain, frame_.index + 1, globals_));
    if (name == "caller" && caller_stack && !caller_stack->empty()) return caller_stack->back();
    if (name == "UNDEFINED") return undefined_value();
    // Mako's STOP_RENDERING (`<% return STOP_RENDERING %>`): an empty string.
    if (name == "STOP_RENDERING") return Value(std::string());
    if (const Value* b = find_builtin(name)) return *b;
    throw EvalError(fmt::format("name '{}' is not defined", name));
}

}  // namespace kjarni::tmpl::evaluation
