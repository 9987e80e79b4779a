// Tree-walking evaluator. Each def invocation has one local scope (arguments and loop variables,
// which, as in Python, stay visible after their loop); names resolve through the locals, the defs
// of the same template, the render globals, then the builtins.
//
// Errors: operations throw EvalError without a position; eval() attaches the position of the
// innermost expression (PositionedError); a def invocation turns positioned errors of its body into
// a RenderError of its own template, so positions are never read against another template's source.

#include "evaluator.hpp"

#include "builtins.hpp"
#include "errors.hpp"
#include "limits.hpp"
#include "operators.hpp"
#include "runtime_objects.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <map>
#include <new>
#include <optional>

namespace kjarni::tmpl {

namespace {

using K = Value::Kind;
using TemplatePtr = std::shared_ptr<const detail::CompiledTemplate>;
using GlobalsPtr = std::shared_ptr<const Globals>;

// Per-thread accounting of the render in progress (renders nest through defs and snippets).
thread_local std::size_t call_depth = 0;
thread_local std::uint64_t steps = 0;
// The output of the template text being rendered now: as in Mako, a def called from an expression
// writes its text there (before the expression's own value) and returns an empty string.
thread_local std::string* current_output = nullptr;

struct OutputGuard {
    explicit OutputGuard(std::string& out) : saved(current_output) { current_output = &out; }
    ~OutputGuard() { current_output = saved; }
    OutputGuard(const OutputGuard&) = delete;
    OutputGuard& operator=(const OutputGuard&) = delete;
    std::string* saved;
};

struct DepthGuard {
    DepthGuard() {
        if (call_depth >= limits().max_call_depth) throw EvalError("maximum call depth exceeded (runaway recursion?)");
        if (call_depth == 0) steps = 0;
        ++call_depth;
    }
    ~DepthGuard() { --call_depth; }
    DepthGuard(const DepthGuard&) = delete;
    DepthGuard& operator=(const DepthGuard&) = delete;
};

std::string invoke_def(const TemplatePtr& t, const Def& def, const Args& args, const GlobalsPtr& globals);

class Evaluator {
public:
    Evaluator(const TemplatePtr& t, const GlobalsPtr& g, std::map<std::string, Value> locals)
        : t_(t), globals_(g), locals_(std::move(locals)) {}

    void render(const std::vector<Node>& nodes, std::string& out) {
        OutputGuard guard(out);
        for (const Node& n : nodes) {
            try {
                render_node(n, out);
            } catch (const RenderError&) {
                throw;
            } catch (const PositionedError&) {
                throw;
            } catch (const std::bad_alloc&) {
                throw;
            } catch (const std::exception& e) {
                throw PositionedError(e.what(), n.pos);
            }
        }
    }

    Value eval(const Expr& e) {
        if (++steps > limits().max_steps) throw PositionedError("render step limit exceeded", e.pos);
        try {
            return eval_inner(e);
        } catch (const RenderError&) {
            throw;
        } catch (const PositionedError&) {
            throw;
        } catch (const std::bad_alloc&) {
            throw;
        } catch (const std::exception& ex) {
            throw PositionedError(ex.what(), e.pos);
        }
    }

private:
    void emit(std::string& out, const std::string& s) {
        if (out.size() + s.size() > limits().max_string) throw EvalError("output too long (render limit)");
        out += s;
    }

    void render_node(const Node& n, std::string& out) {
        switch (n.kind) {
        case Node::Kind::Text: emit(out, n.text); return;
        case Node::Kind::Expr: {
            Value v = eval(*n.expr);
            if (v.kind() == K::Module || v.kind() == K::Snippet) unprocessed(v);
            if (!n.raw) v = Value(v.str());  // Mako's default filter, first
            for (const auto& f : n.filters) v = apply_filter(*f, v);
            emit(out, v.str());
            return;
        }
        case Node::Kind::If:
            for (const Branch& b : n.branches) {
                if (!b.condition || eval(*b.condition).truthy()) {
                    render(b.body, out);
                    return;
                }
            }
            return;
        case Node::Kind::For: {
            Value seq = eval(*n.expr);
            const std::vector<Value> items = iterate(seq);
            // Mako's `loop`: this loop's context, its parent the enclosing loop's (restored after).
            auto saved = locals_.find("loop");
            const Value parent_loop = saved != locals_.end() ? saved->second : Value();
            const bool had_loop = saved != locals_.end();
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
                        throw EvalError(fmt::format("cannot unpack {} values into {} loop variables", parts.size(),
                                                    n.targets.size()));
                    for (std::size_t i = 0; i < parts.size(); ++i) locals_[n.targets[i]] = parts[i];
                }
                render(n.body, out);
            }
            if (had_loop) locals_["loop"] = parent_loop;
            else locals_.erase("loop");
            return;
        }
        }
    }

    // A filter of `${x | f}`: Mako's escapes by name (they win over globals, as in Mako), else a
    // callable from the template's names.
    Value apply_filter(const Expr& f, const Value& v) {
        if (f.kind == Expr::Kind::Name) {
            if (const Function* escape = find_escape_filter(f.name)) {
                try {
                    return (*escape)(Args{{v}, {}});
                } catch (const EvalError& e) {
                    throw PositionedError(e.what(), f.pos);
                }
            }
        }
        Value callee = eval(f);
        Args args{{v}, {}};
        try {
            switch (callee.kind()) {
            case K::Callable: return callee.as_function()(args);
            case K::Object: return callee.as_object()->call(args);
            default: throw EvalError(fmt::format("'{}' object is not callable (used as a filter)", callee.type_name()));
            }
        } catch (const RenderError&) {
            throw;
        } catch (const PositionedError&) {
            throw;
        } catch (const std::bad_alloc&) {
            throw;
        } catch (const std::exception& e) {
            throw PositionedError(e.what(), f.pos);
        }
    }

    [[noreturn]] static void unprocessed(const Value& v) {
        throw EvalError(fmt::format("{} used in a template rendered without module processing "
                                    "(render it with kjarni::render_with_modules)",
                                    v.repr()));
    }

    Value lookup(const std::string& name) {
        if (auto it = locals_.find(name); it != locals_.end()) return it->second;
        if (auto it = t_->defs.find(name); it != t_->defs.end() && name != t_->main_def_name) {
            const Def* def = &it->second;
            TemplatePtr t = t_;
            GlobalsPtr g = globals_;
            return Value(Function([t, def, g](const Args& a) {
                std::string text = invoke_def(t, *def, a, g);
                if (!current_output) return Value(std::move(text));
                if (current_output->size() + text.size() > limits().max_string)
                    throw EvalError("output too long (render limit)");
                *current_output += text;
                return Value(std::string());
            }));
        }
        if (auto it = globals_->find(name); it != globals_->end()) return it->second;
        if (name == "context") return make_context(globals_);
        if (name == "UNDEFINED") return undefined_value();
        if (const Value* b = find_builtin(name)) return *b;
        throw EvalError(fmt::format("name '{}' is not defined", name));
    }

    std::optional<std::int64_t> slice_bound(const ExprPtr& e) {
        if (!e) return std::nullopt;
        Value v = eval(*e);
        if (v.is_none()) return std::nullopt;
        if (v.kind() != K::Int && v.kind() != K::Bool) throw PositionedError("slice indices must be integers", e->pos);
        return v.as_int();
    }

    Value eval_inner(const Expr& e) {
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
            for (std::size_t i = 0; i < n_pos; ++i) args.positional.push_back(eval(*e.children[1 + i]));
            for (std::size_t i = 0; i < n_kw; ++i)
                args.keyword.emplace_back(e.kw_names[i], eval(*e.children[1 + n_pos + i]));
            switch (callee.kind()) {
            case K::Callable: return callee.as_function()(args);
            case K::Object: return callee.as_object()->call(args);
            case K::Module:
            case K::Snippet: unprocessed(callee);
            default: throw EvalError(fmt::format("'{}' object is not callable", callee.type_name()));
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
            for (const auto& c : e.children) items.push_back(eval(*c));
            return e.kind == Expr::Kind::List ? Value::list(std::move(items)) : Value::tuple(std::move(items));
        }
        case Expr::Kind::Dict: {
            DictItems items;
            for (std::size_t i = 0; i + 1 < e.children.size(); i += 2) {
                Value k = eval(*e.children[i]);
                if (k.kind() != K::String)
                    throw PositionedError(fmt::format("dict keys must be strings, not {}", k.type_name()),
                                          e.children[i]->pos);
                items.set(k.as_string(), eval(*e.children[i + 1]));
            }
            return Value::dict(std::move(items));
        }
        }
        throw EvalError("unknown expression");
    }

    const TemplatePtr& t_;
    const GlobalsPtr& globals_;
    std::map<std::string, Value> locals_;
};

std::string plural(std::size_t n, const char* word) { return fmt::format("{} {}{}", n, word, n == 1 ? "" : "s"); }

// Python's argument binding: positionals fill the parameters in order, keywords by name, defaults
// (evaluated in the def's template, at call time) fill the rest.
std::map<std::string, Value> bind(const TemplatePtr& t, const Def& def, const Args& args, const GlobalsPtr& globals) {
    std::map<std::string, Value> locals;
    if (args.positional.size() > def.params.size())
        throw EvalError(fmt::format("{}() takes {} but {} given", def.name, plural(def.params.size(), "positional argument"),
                                    args.positional.size() == 1 ? "1 was" : fmt::format("{} were", args.positional.size())));
    for (std::size_t i = 0; i < args.positional.size(); ++i) locals[def.params[i].name] = args.positional[i];
    for (const auto& [name, value] : args.keyword) {
        bool known = false;
        for (const auto& p : def.params) known = known || p.name == name;
        if (!known) throw EvalError(fmt::format("{}() got an unexpected keyword argument '{}'", def.name, name));
        if (!locals.emplace(name, value).second)
            throw EvalError(fmt::format("{}() got multiple values for argument '{}'", def.name, name));
    }
    std::vector<std::string> missing;
    for (const auto& p : def.params) {
        if (locals.count(p.name)) continue;
        if (!p.default_value) {
            missing.push_back("'" + p.name + "'");
            continue;
        }
        Evaluator defaults(t, globals, {});
        try {
            locals[p.name] = defaults.eval(*p.default_value);
        } catch (const PositionedError& e) {
            throw make_render_error(*t, e.offset(), e.what(), globals.get());
        }
    }
    if (!missing.empty())
        throw EvalError(fmt::format("{}() missing {}: {}", def.name, plural(missing.size(), "required argument"),
                                    fmt::join(missing, ", ")));
    return locals;
}

std::string invoke_def(const TemplatePtr& t, const Def& def, const Args& args, const GlobalsPtr& globals) {
    DepthGuard depth;
    std::map<std::string, Value> locals = bind(t, def, args, globals);
    std::string out;
    Evaluator ev(t, globals, std::move(locals));
    try {
        ev.render(def.body, out);
    } catch (const PositionedError& e) {
        throw make_render_error(*t, e.offset(), e.what(), globals.get());
    }
    return out;
}

}  // namespace

RenderError make_render_error(const detail::CompiledTemplate& t, std::uint32_t offset, const std::string& message,
                              const Globals* globals) {
    std::vector<std::string> names;
    if (globals)
        for (const auto& kv : *globals) names.push_back(kv.first);
    const std::size_t line = t.source_map.line(offset);
    const std::size_t user_line = line > t.line_shift ? line - t.line_shift : 1;
    return RenderError(t.name, user_line, t.source_map.column(offset), message, std::move(names),
                       t.source_map.line_text(t.source, line));
}

std::string render_def(const TemplatePtr& t, const std::string& def_name, const Args& args, const Globals& globals) {
    auto it = t->defs.find(def_name);
    if (it == t->defs.end()) throw Error(fmt::format("template '{}' has no def '{}'", t->name, def_name));
    auto g = std::make_shared<const Globals>(globals);
    try {
        return invoke_def(t, it->second, args, g);
    } catch (const RenderError&) {
        throw;
    } catch (const PositionedError& e) {
        throw make_render_error(*t, e.offset(), e.what(), g.get());
    } catch (const EvalError& e) {
        // Binding the top-level arguments failed: report it at the def.
        throw make_render_error(*t, it->second.pos, e.what(), g.get());
    }
}

}  // namespace kjarni::tmpl
