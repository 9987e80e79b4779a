// The Evaluator's walk over a template's nodes: text, expressions with their filters, control
// structures, <%call> bodies and <%include>s, written into the output being rendered.

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
#include <optional>

namespace kjarni::tmpl::evaluation {

Evaluator::Flow Evaluator::render(const std::vector<Node>& nodes, std::string& out) {
    OutputGuard guard(out);
    for (const Node& n : nodes) {
        const Flow f = positioned_at(n.pos, [&] { return render_node(n, out); });
        if (f != Flow::Normal) return f;
    }
    return Flow::Normal;
}

void Evaluator::emit(std::string& out, const std::string& s) {
    if (out.size() + s.size() > limits().max_string) throw EvalError("output too long (render limit)");
    out += s;
}

Evaluator::Flow Evaluator::render_node(const Node& n, std::string& out) {
    switch (n.kind) {
    case Node::Kind::Text: {
        if (n.filters.empty()) {
            emit(out, n.text);
            return Flow::Normal;
        }
        // <%text filter="...">: Mako's filters in order on the literal text, `n` skipped (it
        // only turns default filters off), the result written as a str.
        Value v(n.text);
        for (const auto& f : n.filters)
            if (!is_no_filter(*f)) v = apply_filter(*f, v);
        if (v.kind() != K::String)
            throw EvalError(fmt::format("the text written must be a str, not {} (a filter of '<%text>' gave no str)",
                                        v.type_name()));
        emit(out, v.as_string());
        return Flow::Normal;
    }
    case Node::Kind::Call: {
        std::vector<Value> stack;
        std::vector<Value>* saved = caller_stack;
        if (!caller_stack) caller_stack = &stack;
        caller_stack->push_back(make_caller(n));
        try {
            Value v = eval(*n.expr);
            caller_stack->pop_back();
            caller_stack = saved;
            emit(out, v.str());
        } catch (...) {
            caller_stack->pop_back();
            caller_stack = saved;
            throw;
        }
        return Flow::Normal;
    }
    case Node::Kind::Include: render_include(n, out); return Flow::Normal;
    case Node::Kind::Block: render_block(n, out); return Flow::Normal;
    case Node::Kind::Code: {
        const Flow f = exec(n.code);  // the parser let through no break outside a loop
        // Mako's top level hands the names a block assigned to the defs it calls (its __M_locals,
        // updated after each block of its own and of its <%call> bodies, closures that update it).
        if (f == Flow::Normal && handed_ && !n.assigned.empty()) {
            for (const auto& name : n.assigned)
                if (auto it = locals_.find(name); it != locals_.end()) (*handed_)[name] = it->second;
            handed_globals_.reset();
        }
        return f;
    }
    case Node::Kind::Expr: {
        Value v = eval(*n.expr);
        if (v.kind() == K::Module || v.kind() == K::Snippet) unprocessed(v);
        if (!n.raw) v = Value(v.str());  // Mako's default filter, first
        for (const auto& f : n.filters) v = apply_filter(*f, v);
        // Mako's output takes only strings: ${5 | n}, or a filter giving no str, is its TypeError.
        if (v.kind() != K::String)
            throw EvalError(fmt::format("the text written must be a str, not {} (Mako writes only strings: "
                                        "after the n filter, or a filter giving no str)",
                                        v.type_name()));
        emit(out, v.as_string());
        return Flow::Normal;
    }
    case Node::Kind::If:
        for (const Branch& b : n.branches)
            if (!b.condition || eval(*b.condition).truthy()) return render(b.body, out);
        return Flow::Normal;
    case Node::Kind::While:
        // `% while cond:` ... `% endwhile` (Mako's control lines are Python's compound statements).
        while (eval(*n.expr).truthy()) {
            if (++steps > limits().max_steps) throw EvalError("render step limit exceeded");
            const Flow f = render(n.body, out);
            if (f == Flow::Break) break;
            if (f == Flow::Return) return f;
        }
        return Flow::Normal;
    case Node::Kind::For: {
        if (n.mako_loop_unbound)
            throw EvalError("name '__M_loop' is not defined: Mako's generated code fails on a `% for` whose `loop` "
                            "is used only inside a <%call> body (its function uses no `loop` of its own)");
        Value seq = eval(*n.expr);
        const std::vector<Value> items = iterate(seq);
        // Mako's `loop`: this loop's context, its parent the enclosing loop's (restored after).
        auto saved = locals_.find("loop");
        const Value parent_loop = saved != locals_.end() ? saved->second : Value();
        const bool had_loop = saved != locals_.end();
        Flow flow = Flow::Normal;
        for (std::size_t index = 0; index < items.size(); ++index) {
            const Value& item = items[index];
            if (++steps > limits().max_steps) throw EvalError("render step limit exceeded");
            locals_["loop"] = make_loop_context(index, items.size(), parent_loop);
            if (!n.unpack) {
                locals_[n.targets[0]] = item;
            } else {
                if (item.kind() != K::List && item.kind() != K::Tuple)
                    throw EvalError(fmt::format("cannot unpack non-sequence {}", item.type_name()));
                const auto& parts = item.as_list();
                if (parts.size() != n.targets.size())
                    throw EvalError(
                        fmt::format("cannot unpack {} values into {} loop variables", parts.size(), n.targets.size()));
                for (std::size_t i = 0; i < parts.size(); ++i) locals_[n.targets[i]] = parts[i];
            }
            flow = render(n.body, out);
            if (flow == Flow::Break || flow == Flow::Return) break;
            flow = Flow::Normal;
        }
        // `% else:` of a `% for`: Python's, rendered when no break ended the loop. Mako leaves the
        // loop's context current there, its index past the last item.
        // (A break of the loop's body is spent here; one of the else body is an outer loop's.)
        if (flow == Flow::Break) flow = Flow::Normal;
        else if (flow == Flow::Normal && !n.orelse.empty()) {
            locals_["loop"] = make_loop_context(items.size(), items.size(), parent_loop);
            flow = render(n.orelse, out);
        }
        if (had_loop) locals_["loop"] = parent_loop;
        else locals_.erase("loop");
        return flow;
    }
    }
    return Flow::Normal;
}

// A filter of `${x | f}`: Mako's escapes by name (they win over globals, as in Mako), else a
// callable from the template's names.
Value Evaluator::apply_filter(const Expr& f, const Value& v) {
    // Mako applies a filter as text, `filter(value)`: for an operator expression (a | b, a if c
    // else b, a lambda) that calls its last operand, or fails to compile, where kjarni would call
    // the whole value. Refused when applied: a filter is a name, an attribute, an item or a call.
    if (f.kind != Expr::Kind::Name && f.kind != Expr::Kind::Attr && f.kind != Expr::Kind::Call &&
        f.kind != Expr::Kind::Index)
        throw PositionedError("a filter must be a name, an attribute, an item or a call (Mako applies it as text: "
                              "filter(value))",
                              f.pos);
    if (f.kind == Expr::Kind::Name) {
        if (const Function* escape = find_escape_filter(f.name)) {
            try {
                return (*escape)(Args{{v}, {}});
            } catch (const EvalError& e) {
                throw PositionedError(e.what(), f.pos, std::current_exception());
            }
        }
    }
    Value callee = eval(f);
    Args args{{v}, {}};
    return positioned_at(f.pos, [&]() -> Value {
        switch (callee.kind()) {
        case K::Callable: return callee.as_function()(args);
        case K::Object: return callee.as_object()->call(args);
        default: throw EvalError(fmt::format("'{}' object is not callable (used as a filter)", callee.type_name()));
        }
    });
}

Value Evaluator::render_caller_body(const Node& n, const Args& a) {
    std::string* target = current_output;
    std::optional<Value> returned;  // a <% return %> in the body: what body() returns, as in Mako
    std::string text = render_own_scope(n, a, returned, /*call_body=*/true);
    if (!target) return Value(std::move(text));
    if (target->size() + text.size() > limits().max_string) throw EvalError("output too long (render limit)");
    *target += text;
    return returned ? std::move(*returned) : Value(std::string());
}

void Evaluator::assign_all(Vars& vars, const OuterValues& values) {
    for (const auto& [name, value] : values) {
        if (value) vars[name] = *value;
        else vars.erase(name);
    }
}

std::string Evaluator::render_own_scope(const Node& n, const Args& a, std::optional<Value>& returned, bool call_body) {
    // The body's arguments and the names it assigns are its own (a function in Mako): the
    // enclosing code's values of those names are put back after it.
    OuterValues saved;
    // The names the body deletes without assigning them are its locals too: unbound in it where the
    // enclosing function has them (assigns them, or reads them from the context itself), and
    // always in a block (which takes none from the context); a <%call> body takes the others from
    // the context when it starts, as Mako's generated code does.
    const auto enclosing_has = [&](const std::string& name) {
        if (locals_.count(name)) return true;
        if (!function_) return false;
        return function_->declared.count(name) != 0 ||
               std::any_of(function_->free_names.begin(), function_->free_names.end(),
                           [&](const auto& read) { return read.first == name; });
    };
    std::vector<std::string> unbound;
    for (const auto& name : n.body_deleted)
        if (!call_body || enclosing_has(name)) unbound.push_back(name);
    for (const auto* names : {&n.targets, &n.body_locals, static_cast<const std::vector<std::string>*>(&unbound)}) {
        for (const auto& name : *names) {
            auto it = locals_.find(name);
            saved.emplace_back(name, it == locals_.end() ? std::nullopt : std::optional<Value>(it->second));
            if (names != &n.targets && it != locals_.end()) locals_.erase(it);
        }
    }
    const std::set<std::string> deleted_outside = std::exchange(deleted_, {});
    if (a.positional.size() > n.targets.size()) throw EvalError("body() takes fewer positional arguments");
    for (std::size_t i = 0; i < a.positional.size(); ++i) locals_[n.targets[i]] = a.positional[i];
    for (const auto& [name, value] : a.keyword) {
        if (std::find(n.targets.begin(), n.targets.end(), name) == n.targets.end())
            throw EvalError(fmt::format("body() got an unexpected keyword argument '{}'", name));
        locals_[name] = value;
    }
    std::string text;
    // Keeps the body's locals (those it assigns and those it deletes unbound) and its kind while
    // it renders, exceptions included.
    struct BodyDepth {
        Evaluator& ev;
        BodyDepth(Evaluator& e, const std::vector<std::string>& locals, const std::vector<std::string>& unbound,
                  bool call_body, const OuterValues& outer)
            : ev(e) {
            ev.body_locals_.push_back(&locals);
            ev.body_locals_.push_back(&unbound);
            ev.block_bodies_.push_back(!call_body);
            ev.body_outer_values_.push_back(&outer);
        }
        ~BodyDepth() {
            ev.body_locals_.pop_back();
            ev.body_locals_.pop_back();
            ev.block_bodies_.pop_back();
            ev.body_outer_values_.pop_back();
        }
        BodyDepth(const BodyDepth&) = delete;
        BodyDepth& operator=(const BodyDepth&) = delete;
    };
    try {
        const BodyDepth body_depth(*this, n.body_locals, unbound, call_body, saved);
        if (render(n.body, text) == Flow::Return) returned = returned_value();
    } catch (const PositionedError& e) {
        throw make_render_error(*t_, e.offset(), e.what(), globals_.get(), e.cause());
    }
    assign_all(locals_, saved);
    deleted_ = deleted_outside;
    return text;
}

// <%block>. A named one: Mako's `if 'parent' not in context._data or not hasattr(parent, name):
// self.name()`, so it renders here unless a template this one inherits from has a def or block
// of that name (which renders it, through `self`, where that one stands). An anonymous one: its
// body, a closure here, then its filters (lost after a <% return %>, as a def's).
void Evaluator::render_block(const Node& n, std::string& out) {
    if (!n.text.empty()) {
        if (frame_.chain)
            for (std::size_t k = frame_.index + 1; k < frame_.chain->size(); ++k) {
                const auto& defs = (*frame_.chain)[k]->defs;
                if (auto it = defs.find(n.text); it != defs.end() && it->second.parent.empty()) return;
            }
        const Value self(std::make_shared<Namespace>(chain(), 0, globals_));
        // Written into the output by the def; what a <% return x %> returned is dropped (Mako's
        // call is a statement).
        static_cast<void>(self.as_object()->attribute(n.text).as_function()(Args{}));
        return;
    }
    std::optional<Value> returned;
    const bool in_call_body = !block_bodies_.empty() && !block_bodies_.back();
    std::string text = in_call_body ? render_block_in_call_body(n, returned)
                                    : render_own_scope(n, Args{}, returned, /*call_body=*/false);
    if (returned && !n.filters.empty()) text.clear();
    else
        for (const auto& f : n.filters)
            if (!is_no_filter(*f)) text = filter(*f, Value(std::move(text))).str();
    emit(out, text);
}

std::string Evaluator::render_block_in_call_body(const Node& n, std::optional<Value>& returned) {
    // The body's names take the enclosing code's values while the block renders; those the
    // enclosing code has not are unbound (hidden, read as a local not yet assigned). The body's own
    // values are put back after, exceptions included.
    struct OutsideTheBody {
        Evaluator& ev;
        OuterValues inside;
        std::vector<std::string> hidden;
        explicit OutsideTheBody(Evaluator& e) : ev(e) {
            for (const auto& [name, outer] : *ev.body_outer_values_.back()) {
                auto it = ev.locals_.find(name);
                inside.emplace_back(name, it == ev.locals_.end() ? std::nullopt : std::optional<Value>(it->second));
                if (outer) {
                    ev.locals_[name] = *outer;
                } else {
                    if (it != ev.locals_.end()) ev.locals_.erase(it);
                    hidden.push_back(name);
                }
            }
            ev.body_locals_.push_back(&hidden);
            ev.hidden_from_block_.push_back(&hidden);
        }
        ~OutsideTheBody() {
            ev.body_locals_.pop_back();
            ev.hidden_from_block_.pop_back();
            assign_all(ev.locals_, inside);
        }
        OutsideTheBody(const OutsideTheBody&) = delete;
        OutsideTheBody& operator=(const OutsideTheBody&) = delete;
    };
    const OutsideTheBody outside(*this);
    return render_own_scope(n, Args{}, returned, /*call_body=*/false);
}

// `<%include file="uri" args="..."/>`: that template (the top of its inheritance chain) renders
// here with the render globals (not this template's locals), its <%page> arguments taken from
// args, then from the globals (Mako's _kwargs_for_include).
void Evaluator::render_include(const Node& n, std::string& out) {
    Args args;
    if (n.expr) {
        const Expr& call = *n.expr;
        const std::size_t n_kw = call.kw_names.size();
        const std::size_t n_pos = call.children.size() - 1 - n_kw;
        for (std::size_t i = 0; i < n_pos; ++i) args.positional.push_back(eval(*call.children[1 + i]));
        for (std::size_t i = 0; i < n_kw; ++i)
            args.keyword.emplace_back(call.kw_names[i], eval(*call.children[1 + n_pos + i]));
    }
    const TemplatePtr target = load_related(*t_, n.text);
    auto chain = inheritance_chain(target, globals_.get());
    const TemplatePtr top = chain ? chain->back() : target;
    const Frame frame{chain, chain ? chain->size() - 1 : 0};
    const Def& body = top->defs.at(top->main_def_name);
    for (std::size_t i = args.positional.size(); i < body.params.size(); ++i) {
        const std::string& p = body.params[i].name;
        const bool given =
            std::any_of(args.keyword.begin(), args.keyword.end(), [&](const auto& kw) { return kw.first == p; });
        if (auto it = globals_->find(p); !given && it != globals_->end()) args.keyword.emplace_back(p, it->second);
    }
    emit(out, invoke_body(top, args, globals_, frame));
}

void Evaluator::unprocessed(const Value& v) {
    throw EvalError(fmt::format("{} used in a template rendered without module processing "
                                "(render it with kjarni::render_with_modules)",
                                v.repr()));
}

}  // namespace kjarni::tmpl::evaluation
