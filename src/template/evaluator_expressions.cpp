// The Evaluator's expressions: the step-counted eval, every expression kind, slices,
// comprehensions and lambdas.

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

Value Evaluator::eval(const Expr& e) {
    if (++steps > limits().max_steps) throw PositionedError("render step limit exceeded", e.pos);
    return positioned_at(e.pos, [&] { return eval_inner(e); });
}

std::optional<std::int64_t> Evaluator::slice_bound(const ExprPtr& e) {
    if (!e) return std::nullopt;
    Value v = eval(*e);
    if (v.is_none()) return std::nullopt;
    if (v.kind() != K::Int && v.kind() != K::Bool) throw PositionedError("slice indices must be integers", e->pos);
    return v.as_int();
}

Value Evaluator::eval_inner(const Expr& e) {
    switch (e.kind) {
    case Expr::Kind::Literal: return e.literal;
    case Expr::Kind::Name: return lookup(e.name);
    case Expr::Kind::Attr: return attribute(eval(*e.children[0]), e.name);
    case Expr::Kind::Index: return index(eval(*e.children[0]), eval(*e.children[1]));
    case Expr::Kind::Slice: {
        Value target = eval(*e.children[0]);
        auto start = slice_bound(e.children[1]);
        auto stop = slice_bound(e.children[2]);
        auto step = slice_bound(e.children[3]);
        return slice(target, start, stop, step);
    }
    case Expr::Kind::Call: {
        Value callee = eval(*e.children[0]);
        Args args;
        std::size_t n_kw = e.kw_names.size();
        std::size_t n_pos = e.children.size() - 1 - n_kw;
        for (std::size_t i = 0; i < n_pos; ++i) {
            const Expr& arg = *e.children[1 + i];
            if (arg.kind != Expr::Kind::Starred) {
                args.positional.push_back(eval(arg));
                continue;
            }
            for (auto& item : iterate(eval(*arg.children[0]))) args.positional.push_back(std::move(item));
        }
        for (std::size_t i = 0; i < n_kw; ++i) {
            const Expr& arg = *e.children[1 + n_pos + i];
            if (e.kw_names[i] != "**") {
                args.keyword.emplace_back(e.kw_names[i], eval(arg));
                continue;
            }
            // f(**d): d's items as keywords, which must be strings and not given twice.
            const Value d = eval(arg);
            if (d.kind() != K::Dict)
                throw PositionedError(fmt::format("argument after ** must be a mapping, not {}", d.type_name()),
                                      arg.pos);
            for (const auto& [key, value] : d.as_dict()) {
                if (key.kind() != K::String) throw PositionedError("keywords must be strings", arg.pos);
                for (const auto& given : args.keyword)
                    if (given.first == key.as_string())
                        throw PositionedError(fmt::format("got multiple values for keyword argument '{}'",
                                                          key.as_string()),
                                              arg.pos);
                args.keyword.emplace_back(key.as_string(), value);
            }
        }
        try {
            switch (callee.kind()) {
            case K::Callable: return callee.as_function()(args);
            case K::Object: return callee.as_object()->call(args);
            case K::Module:
            case K::Snippet: unprocessed(callee);
            default: throw EvalError(fmt::format("'{}' object is not callable", callee.type_name()));
            }
        } catch (const SharedMutationError& err) {
            // `x.append(...)` on a global: name x.
            const Expr& f = *e.children[0];
            if (f.kind == Expr::Kind::Attr) shared_mutation(*f.children[0], err);
            throw EvalError(err.what());
        }
    }
    case Expr::Kind::Unary: return unary(e.un_op, eval(*e.children[0]));
    case Expr::Kind::Binary: {
        Value a = eval(*e.children[0]);
        Value b = eval(*e.children[1]);
        return binary(e.bin_op, a, b);
    }
    case Expr::Kind::Compare: {
        Value left = eval(*e.children[0]);
        for (std::size_t i = 0; i < e.cmp_ops.size(); ++i) {
            Value right = eval(*e.children[i + 1]);
            if (!compare(e.cmp_ops[i], left, right)) return false;
            left = std::move(right);
        }
        return true;
    }
    case Expr::Kind::And: {
        Value a = eval(*e.children[0]);
        return a.truthy() ? eval(*e.children[1]) : a;
    }
    case Expr::Kind::Or: {
        Value a = eval(*e.children[0]);
        return a.truthy() ? a : eval(*e.children[1]);
    }
    case Expr::Kind::Cond: return eval(*e.children[1]).truthy() ? eval(*e.children[0]) : eval(*e.children[2]);
    case Expr::Kind::List:
    case Expr::Kind::Tuple: {
        std::vector<Value> items;
        items.reserve(e.children.size());
        for (const auto& c : e.children) {
            if (c->kind != Expr::Kind::Starred) {
                items.push_back(eval(*c));
                continue;
            }
            for (auto& item : iterate(eval(*c->children[0]))) items.push_back(std::move(item));
        }
        if (items.size() > limits().max_items) throw EvalError("list too long (render limit)");
        return e.kind == Expr::Kind::List ? Value::list(std::move(items)) : Value::tuple(std::move(items));
    }
    case Expr::Kind::Lambda: return make_lambda(e);
    case Expr::Kind::ListComp:
    case Expr::Kind::GeneratorComp:
    case Expr::Kind::DictComp: return comprehension(e);
    case Expr::Kind::Dict: {
        DictItems items;
        for (std::size_t i = 0; i + 1 < e.children.size(); i += 2) {
            if (!e.children[i]) {  // {**d}: d's items, in order
                const Value d = eval(*e.children[i + 1]);
                if (d.kind() != K::Dict)
                    throw PositionedError(fmt::format("'{}' object is not a mapping", d.type_name()),
                                          e.children[i + 1]->pos);
                for (const auto& [key, value] : d.as_dict()) items.set(key, value);
                continue;
            }
            Value k = eval(*e.children[i]);
            Value v = eval(*e.children[i + 1]);
            try {
                items.set(std::move(k), std::move(v));
            } catch (const EvalError& err) {
                throw PositionedError(err.what(), e.children[i]->pos, std::current_exception());
            }
        }
        return Value::dict(std::move(items));
    }
    case Expr::Kind::Set: {
        std::vector<Value> items;
        for (const auto& c : e.children) {
            std::vector<Value> values;
            if (c->kind == Expr::Kind::Starred) values = iterate_unordered(eval(*c->children[0]));
            else values.push_back(eval(*c));
            for (auto& v : values) {
                items.push_back(std::move(v));
                try {
                    check_hashable(items.back());
                } catch (const EvalError& err) {
                    throw PositionedError(err.what(), c->pos, std::current_exception());
                }
            }
        }
        return Value::set(items);
    }
    case Expr::Kind::SetComp: return comprehension(e);
    case Expr::Kind::Starred: throw EvalError("can't use starred expression here");
    case Expr::Kind::FString: {
        std::string out;
        for (const FPart& part : e.fparts) {
            if (part.child < 0) {
                out += part.text;
                continue;
            }
            const Expr& field = *e.children[static_cast<std::size_t>(part.child)];
            Value v = eval(field);
            try {
                if (part.conv == 'r') {
                    v = Value(v.repr());
                } else if (part.conv == 'a') {
                    v = Value(ascii_repr(v));
                } else if (part.conv == 's') {
                    v = Value(v.str());
                }
                out += format_value(v, part.spec);
            } catch (const EvalError& err) {
                throw PositionedError(err.what(), field.pos, std::current_exception());
            }
            if (out.size() > limits().max_string) throw EvalError("string too long (render limit)");
        }
        return Value(std::move(out));
    }
    }
    throw EvalError("unknown expression");
}

// Comprehensions: their loop variables do not leak (Python 3); generators are made eagerly.
Value Evaluator::comprehension(const Expr& e) {
    std::vector<std::pair<std::string, std::optional<Value>>> saved;
    for (const CompFor& c : e.comp)
        for (const auto& name : c.targets.names) {
            auto it = locals_.find(name);
            saved.emplace_back(name, it == locals_.end() ? std::nullopt : std::optional<Value>(it->second));
        }
    std::vector<Value> items;
    DictItems dict;
    comp_loop(e, 0, items, dict);
    for (auto it = saved.rbegin(); it != saved.rend(); ++it) {
        if (it->second) locals_[it->first] = *it->second;
        else locals_.erase(it->first);
    }
    if (e.kind == Expr::Kind::DictComp) return Value::dict(std::move(dict));
    if (e.kind == Expr::Kind::SetComp) {
        try {
            return Value::set(items);
        } catch (const EvalError& err) {
            throw PositionedError(err.what(), e.children[0]->pos, std::current_exception());
        }
    }
    return Value::list(std::move(items));
}

void Evaluator::comp_loop(const Expr& e, std::size_t clause, std::vector<Value>& items, DictItems& dict) {
    if (clause == e.comp.size()) {
        if (e.kind == Expr::Kind::DictComp) {
            Value k = eval(*e.children[0]);
            Value v = eval(*e.children[1]);
            try {
                dict.set(std::move(k), std::move(v));
            } catch (const EvalError& err) {
                throw PositionedError(err.what(), e.children[0]->pos, std::current_exception());
            }
        } else {
            if (items.size() >= limits().max_items) throw PositionedError("list too long (render limit)", e.pos);
            items.push_back(eval(*e.children[0]));
        }
        return;
    }
    const CompFor& c = e.comp[clause];
    for (const Value& item : iterate(eval(*c.iterable))) {
        if (++steps > limits().max_steps) throw PositionedError("render step limit exceeded", e.pos);
        assign(c.targets, item);
        bool keep = true;
        for (const auto& cond : c.conditions) keep = keep && eval(*cond).truthy();
        if (keep) comp_loop(e, clause + 1, items, dict);
    }
}

// A lambda sees the variables of its scope as they are when it is made, and its defaults are
// evaluated then (as Python's are).
Value Evaluator::make_lambda(const Expr& e) {
    const std::size_t n_defaults = e.children.size() - 1;
    std::vector<Value> defaults;
    for (std::size_t i = 0; i < n_defaults; ++i) defaults.push_back(eval(*e.children[1 + i]));
    TemplatePtr t = t_;
    GlobalsPtr g = globals_;
    Frame frame = frame_;
    const Expr* lambda = &e;
    auto scope = std::make_shared<const std::map<std::string, Value>>(locals_);
    std::vector<std::weak_ptr<Vars>> outer = outer_;
    auto body = [t, g, frame, lambda, scope, defaults, outer](const Args& a) {
        const auto& params = lambda->kw_names;
        std::map<std::string, Value> locals = *scope;
        if (a.positional.size() > params.size())
            throw EvalError(fmt::format("<lambda>() takes {} positional arguments but {} were given", params.size(),
                                        a.positional.size()));
        std::vector<bool> bound(params.size(), false);
        for (std::size_t i = 0; i < a.positional.size(); ++i) {
            locals[params[i]] = a.positional[i];
            bound[i] = true;
        }
        for (const auto& [name, value] : a.keyword) {
            auto it = std::find(params.begin(), params.end(), name);
            if (it == params.end())
                throw EvalError(fmt::format("<lambda>() got an unexpected keyword argument '{}'", name));
            const auto i = static_cast<std::size_t>(it - params.begin());
            if (bound[i]) throw EvalError(fmt::format("<lambda>() got multiple values for argument '{}'", name));
            locals[name] = value;
            bound[i] = true;
        }
        const std::size_t first_default = params.size() - defaults.size();
        for (std::size_t i = 0; i < params.size(); ++i) {
            if (bound[i]) continue;
            if (i < first_default) throw EvalError(fmt::format("<lambda>() missing required argument '{}'", params[i]));
            locals[params[i]] = defaults[i - first_default];
        }
        DepthGuard depth;
        Evaluator ev(t, g, std::move(locals), outer, frame);
        try {
            return ev.eval(*lambda->children[0]);
        } catch (const PositionedError& err) {
            throw make_render_error(*t, err.offset(), err.what(), g.get(), err.cause());
        }
    };
    return Value(Function(CapturingFunction{scope, defaults, std::move(body)}));
}

}  // namespace kjarni::tmpl::evaluation
