// The Evaluator's statements (<% %> blocks and def statements' bodies): assignment, augmented
// assignment, control flow, and the functions def statements make.

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
#include <optional>

namespace kjarni::tmpl::evaluation {

// Runs the body of a def statement's function: its return value (None without one).
Value Evaluator::call_body(const std::vector<Stmt>& body) {
    const Flow f = exec(body);
    if (f == Flow::Return) return std::move(return_value_);
    if (f != Flow::Normal) throw EvalError("'break' or 'continue' outside a loop");
    return Value();
}

// A SharedMutationError on the container `target` evaluates to: named when it is a variable.
void Evaluator::shared_mutation(const Expr& target, const SharedMutationError& err) {
    if (target.kind == Expr::Kind::Name)
        throw EvalError(fmt::format("cannot change '{}' in place: {}", target.name, err.what()));
    throw EvalError(err.what());
}

// `x[k] = v`: Python evaluates v, then x, then k.
void Evaluator::assign_item(const Expr& item, const Value& v) {
    Value container = eval(*item.children[0]);
    Value key = eval(*item.children[1]);
    set_item(item, container, key, v);
}

void Evaluator::set_item(const Expr& item, const Value& container, const Value& key, const Value& v) {
    try {
        switch (container.kind()) {
        case K::List: {
            auto& items = mutable_list(container);
            if (key.kind() != K::Int && key.kind() != K::Bool)
                throw EvalError(fmt::format("list indices must be integers, not {}", key.type_name()));
            check_no_cycle(container, v);
            auto i = key.as_int();
            const auto n = static_cast<std::int64_t>(items.size());
            if (i < 0) i += n;
            if (i < 0 || i >= n) throw EvalError("list assignment index out of range");
            items[static_cast<std::size_t>(i)] = v;
            return;
        }
        case K::Dict: {
            auto& items = mutable_dict(container);
            check_no_cycle(container, key);
            check_no_cycle(container, v);
            items.set(key, v);
            return;
        }
        default: throw EvalError(fmt::format("'{}' object does not support item assignment", container.type_name()));
        }
    } catch (const SharedMutationError& err) {
        shared_mutation(*item.children[0], err);
    }
}

void Evaluator::assign(const Targets& t, const Value& v) {
    if (t.item) {
        assign_item(*t.item, v);
        return;
    }
    if (!t.unpack) {
        locals_[t.names[0]] = v;
        return;
    }
    std::vector<Value> parts = iterate(v);
    if (parts.size() != t.names.size())
        throw EvalError(
            parts.size() < t.names.size()
                ? fmt::format("not enough values to unpack (expected {}, got {})", t.names.size(), parts.size())
                : fmt::format("too many values to unpack (expected {})", t.names.size()));
    for (std::size_t i = 0; i < parts.size(); ++i) locals_[t.names[i]] = parts[i];
}

// `current op= v`: in place for lists (`xs += ys` extends the list every alias sees) and sets
// (|=, &=, -=, ^=), as Python's; a new value otherwise.
Value Evaluator::augmented(BinOp op, const Value& current, const Value& v, const Expr& target) {
    try {
        if (current.kind() == K::List && op == BinOp::Add) {
            mutable_list(current);
            std::vector<Value> more = iterate(v);
            for (const auto& item : more) check_no_cycle(current, item);
            auto& items = mutable_list(current);
            if (items.size() + more.size() > limits().max_items) throw EvalError("list too long (render limit)");
            items.insert(items.end(), more.begin(), more.end());
            return current;
        }
        if (current.kind() == K::Set && v.kind() == K::Set &&
            (op == BinOp::BitOr || op == BinOp::BitAnd || op == BinOp::Sub || op == BinOp::BitXor)) {
            Value result = binary(op, current, v);
            attribute(current, "clear").as_function()(Args{});
            attribute(current, "update").as_function()(Args{{result}, {}});
            return current;
        }
    } catch (const SharedMutationError& err) {
        shared_mutation(target, err);
    }
    return binary(op, current, v);
}

Evaluator::Flow Evaluator::exec(const std::vector<Stmt>& stmts) {
    for (const Stmt& st : stmts) {
        if (++steps > limits().max_steps) throw PositionedError("render step limit exceeded", st.pos);
        const Flow f = positioned_at(st.pos, [&] { return exec_one(st); });
        if (f != Flow::Normal) return f;
    }
    return Flow::Normal;
}

Evaluator::Flow Evaluator::exec_one(const Stmt& st) {
    switch (st.kind) {
    case Stmt::Kind::Expr: eval(*st.expr); return Flow::Normal;
    case Stmt::Kind::Assign: {
        Value v = eval(*st.expr);
        for (const Targets& t : st.targets) assign(t, v);
        return Flow::Normal;
    }
    case Stmt::Kind::AugAssign: {
        const Targets& t = st.targets[0];
        if (t.item) {
            // `x[k] += v`: x and k evaluated once.
            const Expr& item = *t.item;
            Value container = eval(*item.children[0]);
            Value key = eval(*item.children[1]);
            Value current = index(container, key);
            Value v = eval(*st.expr);
            set_item(item, container, key, augmented(st.op, current, v, item));
            return Flow::Normal;
        }
        const std::string& name = t.names[0];
        auto it = locals_.find(name);
        Value current = it != locals_.end() ? it->second : lookup(name);
        Value v = eval(*st.expr);
        Expr target(Expr::Kind::Name, st.pos);
        target.name = name;
        locals_[name] = augmented(st.op, current, v, target);
        return Flow::Normal;
    }
    case Stmt::Kind::Del:
        for (const Targets& t : st.targets) {
            if (!t.item) {
                if (locals_.erase(t.names[0]) == 0) delete_unassigned(t.names[0]);
                continue;
            }
            const Expr& item = *t.item;
            Value container = eval(*item.children[0]);
            Value key = eval(*item.children[1]);
            try {
                if (container.kind() == K::List) {
                    auto& items = mutable_list(container);
                    if (key.kind() != K::Int && key.kind() != K::Bool)
                        throw EvalError(fmt::format("list indices must be integers, not {}", key.type_name()));
                    auto i = key.as_int();
                    const auto n = static_cast<std::int64_t>(items.size());
                    if (i < 0) i += n;
                    if (i < 0 || i >= n) throw EvalError("list assignment index out of range");
                    items.erase(items.begin() + i);
                } else if (container.kind() == K::Dict) {
                    if (!mutable_dict(container).erase(key)) throw EvalError(fmt::format("KeyError: {}", key.repr()));
                } else {
                    throw EvalError(fmt::format("'{}' object doesn't support item deletion", container.type_name()));
                }
            } catch (const SharedMutationError& err) {
                shared_mutation(*item.children[0], err);
            }
        }
        return Flow::Normal;
    case Stmt::Kind::If:
        for (const StmtBranch& b : st.branches)
            if (!b.condition || eval(*b.condition).truthy()) return exec(b.body);
        return Flow::Normal;
    case Stmt::Kind::For: {
        const std::vector<Value> items = iterate(eval(*st.expr));
        for (const Value& item : items) {
            assign(st.targets[0], item);
            const Flow f = exec(st.body);
            if (f == Flow::Break) break;
            if (f == Flow::Return) return f;
        }
        return Flow::Normal;
    }
    case Stmt::Kind::While:
        while (eval(*st.expr).truthy()) {
            if (++steps > limits().max_steps) throw EvalError("render step limit exceeded");
            const Flow f = exec(st.body);
            if (f == Flow::Break) break;
            if (f == Flow::Return) return f;
        }
        return Flow::Normal;
    case Stmt::Kind::Def: locals_[st.name] = make_function(st); return Flow::Normal;
    case Stmt::Kind::Import:
        for (const auto& [as, what] : st.imports)
            locals_[as] = what.empty() ? math_module() : attribute(math_module(), what);
        return Flow::Normal;
    case Stmt::Kind::Return: return_value_ = st.expr ? eval(*st.expr) : Value(); return Flow::Return;
    case Stmt::Kind::Break: return Flow::Break;
    case Stmt::Kind::Continue: return Flow::Continue;
    case Stmt::Kind::Pass: return Flow::Normal;
    case Stmt::Kind::Assert:
        if (!eval(*st.expr).truthy())
            throw EvalError(st.message ? "AssertionError: " + eval(*st.message).str() : std::string("AssertionError"));
        return Flow::Normal;
    }
    return Flow::Normal;
}

// The function of a def statement. As in Python, its defaults are evaluated now and it sees
// the variables of the scopes around it as they are when it is called (so it may call itself).
// It holds those scopes weakly: the scope holds the function, and a strong reference would be
// a cycle that reference counting never frees. A call after its defining scope ended (a
// closure returned out of the function that made it) is refused rather than resolved wrongly.
Value Evaluator::make_function(const Stmt& st) {
    std::vector<Value> defaults;
    for (const auto& p : st.params)
        if (p.default_value) defaults.push_back(eval(*p.default_value));
    std::vector<std::weak_ptr<Vars>> chain{scope_};
    chain.insert(chain.end(), outer_.begin(), outer_.end());
    TemplatePtr t = t_;
    GlobalsPtr g = globals_;
    Frame frame = frame_;
    const Stmt* def = &st;
    auto body = [t, g, frame, def, defaults, chain](const Args& a) {
        for (const auto& weak : chain)
            if (weak.expired())
                throw EvalError(fmt::format("{}() was called after the scope that defined it ended (functions that "
                                            "outlive their defining scope are not supported)",
                                            def->name));
        // The defaults, evaluated when the def ran, in the order of the parameters that have one.
        std::vector<std::size_t> default_index(def->params.size(), 0);
        for (std::size_t i = 0, k = 0; i < def->params.size(); ++i)
            if (def->params[i].default_value) default_index[i] = k++;
        Vars locals =
            bind_arguments(def->name, def->params, a, [&](std::size_t i) { return defaults[default_index[i]]; });
        DepthGuard depth;
        Evaluator ev(t, g, std::move(locals), chain, frame);
        try {
            return ev.call_body(def->body);
        } catch (const PositionedError& err) {
            throw make_render_error(*t, err.offset(), err.what(), g.get(), err.cause());
        }
    };
    return Value(Function(CapturingFunction{nullptr, defaults, std::move(body)}));
}

}  // namespace kjarni::tmpl::evaluation
