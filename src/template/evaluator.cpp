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
#include "loader_runtime.hpp"
#include "formatting.hpp"
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

namespace kjarni::tmpl {

namespace {

using K = Value::Kind;
using GlobalsPtr = std::shared_ptr<const Globals>;

// Per-thread accounting of the render in progress (renders nest through defs and snippets).
thread_local std::size_t call_depth = 0;
thread_local std::uint64_t steps = 0;
// The output of the template text being rendered now: as in Mako, a def called from an expression
// writes its text there (before the expression's own value) and returns an empty string.
thread_local std::string* current_output = nullptr;

class Evaluator;
// The module scopes (the names the <%! %> blocks bind) of the templates used by the render in
// progress: made on first use, alive until the render ends (functions defined there hold them
// weakly, as every def statement holds its scope).
using ModuleScopes = std::map<const detail::CompiledTemplate*, std::shared_ptr<std::map<std::string, Value>>>;
thread_local ModuleScopes* module_scopes = nullptr;

struct ModuleScopesGuard {
    ModuleScopesGuard() : outermost(module_scopes == nullptr) {
        if (outermost) module_scopes = &scopes;
    }
    ~ModuleScopesGuard() {
        if (outermost) module_scopes = nullptr;
    }
    ModuleScopesGuard(const ModuleScopesGuard&) = delete;
    ModuleScopesGuard& operator=(const ModuleScopesGuard&) = delete;
    ModuleScopes scopes;
    bool outermost;
};

// The <%call> tags' `caller` of the render in progress, innermost last.
thread_local std::vector<Value>* caller_stack = nullptr;

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

// Where in an inheritance chain the code being rendered is: Mako's `self` is (*chain)[0], `local`
// (*chain)[index], `next` (*chain)[index - 1], `parent` (*chain)[index + 1]. A null chain: the
// template alone (the common case, which needs no allocation).
struct Frame {
    std::shared_ptr<const Chain> chain;
    std::size_t index = 0;
};

std::string invoke_def(const TemplatePtr& t, const Def& def, const Args& args, const GlobalsPtr& globals,
                       const Frame& frame = {});

// Writes a def's text into the output being rendered (as Mako's defs do) and returns '' there, or
// returns the text outside a render's output.
Value write_out(std::string text) {
    if (!current_output) return Value(std::move(text));
    if (current_output->size() + text.size() > limits().max_string) throw EvalError("output too long (render limit)");
    *current_output += text;
    return Value(std::string());
}

// A <%def> as a value: calling it renders the def (see write_out).
Value def_value(const TemplatePtr& t, const Def* def, const GlobalsPtr& g, const Frame& frame = {}) {
    return Value(Function([t, def, g, frame](const Args& a) {
        std::string text = invoke_def(t, *def, a, g, frame);
        if (!current_output) return Value(std::move(text));
        if (current_output->size() + text.size() > limits().max_string) throw EvalError("output too long (render limit)");
        *current_output += text;
        return Value(std::string());
    }));
}

// A template's top level, called as `body()` of its namespace or by an <%include>: Mako's
// render_body takes its <%page> arguments and ignores other keywords (its **pageargs).
std::string invoke_body(const TemplatePtr& t, const Args& args, const GlobalsPtr& g, const Frame& frame) {
    const Def& body = t->defs.at(t->main_def_name);
    Args kept{args.positional, {}};
    for (const auto& kw : args.keyword)
        if (std::any_of(body.params.begin(), body.params.end(), [&](const Param& p) { return p.name == kw.first; }))
            kept.keyword.push_back(kw);
    return invoke_def(t, body, kept, g, frame);
}

// Mako's TemplateNamespace: `self`, `local`, `next`, `parent` and the namespaces of <%namespace>
// tags. An attribute is a def of (*chain)[index], else of the templates it inherits from, in
// order (so self.f finds the most derived f); `body` is the top level of (*chain)[index].
class Namespace final : public Object {
public:
    Namespace(std::shared_ptr<const Chain> chain, std::size_t index, GlobalsPtr g)
        : chain_(std::move(chain)), index_(index), g_(std::move(g)) {}
    std::string type_name() const override { return "Namespace"; }
    std::string to_string() const override {
        return "<mako.runtime.TemplateNamespace " + (*chain_)[index_]->name + ">";
    }
    Value attribute(const std::string& name) const override {
        if (name == "body") {
            auto chain = chain_;
            const std::size_t index = index_;
            GlobalsPtr g = g_;
            return Value(Function([chain, index, g](const Args& a) {
                return write_out(invoke_body((*chain)[index], a, g, Frame{chain, index}));
            }));
        }
        for (std::size_t k = index_; k < chain_->size(); ++k) {
            const TemplatePtr& t = (*chain_)[k];
            auto it = t->defs.find(name);
            if (it != t->defs.end() && name != t->main_def_name) return def_value(t, &it->second, g_, Frame{chain_, k});
        }
        throw EvalError(fmt::format("'Namespace' object has no attribute '{}'", name));
    }

private:
    std::shared_ptr<const Chain> chain_;
    std::size_t index_;
    GlobalsPtr g_;
};

class Evaluator {
public:
    using Vars = std::map<std::string, Value>;

    // `outer`: the scopes of the def statements around a function's body, innermost first.
    Evaluator(const TemplatePtr& t, const GlobalsPtr& g, Vars locals, std::vector<std::weak_ptr<Vars>> outer = {},
              Frame frame = {})
        : t_(t), globals_(g), scope_(std::make_shared<Vars>(std::move(locals))), locals_(*scope_),
          outer_(std::move(outer)), frame_(std::move(frame)) {}

    // Runs the body of a def statement's function: its return value (None without one).
    Value call_body(const std::vector<Stmt>& body) {
        const Flow f = exec(body);
        if (f == Flow::Return) return std::move(return_value_);
        if (f != Flow::Normal) throw EvalError("'break' or 'continue' outside a loop");
        return Value();
    }

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
                throw PositionedError(e.what(), n.pos, std::current_exception());
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
            throw PositionedError(ex.what(), e.pos, std::current_exception());
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
            return;
        }
        case Node::Kind::Include: render_include(n, out); return;
        case Node::Kind::Code:
            if (exec(n.code) != Flow::Normal) throw PositionedError("'break' or 'continue' outside a loop", n.pos);
            return;
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

public:
    Value filter(const Expr& f, const Value& v) { return apply_filter(f, v); }

private:
    // A filter of `${x | f}`: Mako's escapes by name (they win over globals, as in Mako), else a
    // callable from the template's names.
    Value apply_filter(const Expr& f, const Value& v) {
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
            throw PositionedError(e.what(), f.pos, std::current_exception());
        }
    }

    // Statements of a <% %> block. Break and Continue travel up to the enclosing loop.
    enum class Flow { Normal, Break, Continue, Return };

    // A SharedMutationError on the container `target` evaluates to: named when it is a variable.
    [[noreturn]] static void shared_mutation(const Expr& target, const SharedMutationError& err) {
        if (target.kind == Expr::Kind::Name)
            throw EvalError(fmt::format("cannot change '{}' in place: {}", target.name, err.what()));
        throw EvalError(err.what());
    }

    // `x[k] = v`: Python evaluates v, then x, then k.
    void assign_item(const Expr& item, const Value& v) {
        Value container = eval(*item.children[0]);
        Value key = eval(*item.children[1]);
        set_item(item, container, key, v);
    }

    void set_item(const Expr& item, const Value& container, const Value& key, const Value& v) {
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
            default:
                throw EvalError(fmt::format("'{}' object does not support item assignment", container.type_name()));
            }
        } catch (const SharedMutationError& err) {
            shared_mutation(*item.children[0], err);
        }
    }

    void assign(const Targets& t, const Value& v) {
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
            throw EvalError(parts.size() < t.names.size()
                                ? fmt::format("not enough values to unpack (expected {}, got {})", t.names.size(), parts.size())
                                : fmt::format("too many values to unpack (expected {})", t.names.size()));
        for (std::size_t i = 0; i < parts.size(); ++i) locals_[t.names[i]] = parts[i];
    }

    // `current op= v`: in place for lists (`xs += ys` extends the list every alias sees) and sets
    // (|=, &=, -=, ^=), as Python's; a new value otherwise.
    Value augmented(BinOp op, const Value& current, const Value& v, const Expr& target) {
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

    Flow exec(const std::vector<Stmt>& stmts) {
        for (const Stmt& st : stmts) {
            if (++steps > limits().max_steps) throw PositionedError("render step limit exceeded", st.pos);
            Flow f;
            try {
                f = exec_one(st);
            } catch (const RenderError&) {
                throw;
            } catch (const PositionedError&) {
                throw;
            } catch (const std::bad_alloc&) {
                throw;
            } catch (const std::exception& e) {
                throw PositionedError(e.what(), st.pos, std::current_exception());
            }
            if (f != Flow::Normal) return f;
        }
        return Flow::Normal;
    }

    Flow exec_one(const Stmt& st) {
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
                    if (locals_.erase(t.names[0]) == 0)
                        throw EvalError(fmt::format("name '{}' is not defined (or not a local variable)", t.names[0]));
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
            for (const auto& [as, what] : st.imports) locals_[as] = what.empty() ? math_module() : attribute(math_module(), what);
            return Flow::Normal;
        case Stmt::Kind::Return:
            return_value_ = st.expr ? eval(*st.expr) : Value();
            return Flow::Return;
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

    // `caller` inside the def a <%call> calls: body(args...) renders the tag's body here (with
    // its arguments bound, then unbound), writing into the output being rendered, and returns ''
    // (as Mako's); other attributes are the template's defs (a <%def> inside the tag).
    class Caller final : public Object {
    public:
        Caller(Evaluator* ev, const Node* node) : ev_(ev), node_(node) {}
        std::string type_name() const override { return "Caller"; }
        std::string to_string() const override { return "<mako.runtime.Namespace caller>"; }
        Value attribute(const std::string& name) const override {
            if (name == "body") {
                Evaluator* ev = ev_;
                const Node* node = node_;
                return Value(Function([ev, node](const Args& a) { return ev->render_caller_body(*node, a); }));
            }
            return ev_->lookup_def(name);
        }

    private:
        Evaluator* ev_;
        const Node* node_;
    };

    Value make_caller(const Node& n) { return Value(std::make_shared<Caller>(this, &n)); }

    Value render_caller_body(const Node& n, const Args& a) {
        std::vector<std::pair<std::string, std::optional<Value>>> saved;
        for (const auto& name : n.targets) {
            auto it = locals_.find(name);
            saved.emplace_back(name, it == locals_.end() ? std::nullopt : std::optional<Value>(it->second));
        }
        if (a.positional.size() > n.targets.size()) throw EvalError("body() takes fewer positional arguments");
        for (std::size_t i = 0; i < a.positional.size(); ++i) locals_[n.targets[i]] = a.positional[i];
        for (const auto& [name, value] : a.keyword) {
            if (std::find(n.targets.begin(), n.targets.end(), name) == n.targets.end())
                throw EvalError(fmt::format("body() got an unexpected keyword argument '{}'", name));
            locals_[name] = value;
        }
        std::string text;
        std::string* target = current_output;
        try {
            render(n.body, text);
        } catch (const PositionedError& e) {
            throw make_render_error(*t_, e.offset(), e.what(), globals_.get(), e.cause());
        }
        for (auto& [name, value] : saved) {
            if (value) locals_[name] = *value;
            else locals_.erase(name);
        }
        if (!target) return Value(std::move(text));
        if (target->size() + text.size() > limits().max_string) throw EvalError("output too long (render limit)");
        *target += text;
        return Value(std::string());
    }

    Value lookup_def(const std::string& name) {
        if (auto it = t_->defs.find(name); it != t_->defs.end() && name != t_->main_def_name) return lookup(name);
        throw EvalError(fmt::format("'Caller' object has no attribute '{}'", name));
    }

    [[noreturn]] static void unprocessed(const Value& v) {
        throw EvalError(fmt::format("{} used in a template rendered without module processing "
                                    "(render it with kjarni::render_with_modules)",
                                    v.repr()));
    }

    // A name bound by the template's <%! %> blocks (run now when this render has not run them yet).
    const Value* module_name(const std::string& name) {
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

    // `<%include file="uri" args="..."/>`: that template (the top of its inheritance chain) renders
    // here with the render globals (not this template's locals), its <%page> arguments taken from
    // args, then from the globals (Mako's _kwargs_for_include).
    void render_include(const Node& n, std::string& out) {
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
            const bool given = std::any_of(args.keyword.begin(), args.keyword.end(), [&](const auto& kw) { return kw.first == p; });
            if (auto it = globals_->find(p); !given && it != globals_->end()) args.keyword.emplace_back(p, it->second);
        }
        emit(out, invoke_body(top, args, globals_, frame));
    }

    std::shared_ptr<const Chain> chain() const {
        return frame_.chain ? frame_.chain : std::make_shared<const Chain>(Chain{t_});
    }

    // The names a <%namespace> tag binds in this template: the namespace's own name, and the defs
    // it imports (by name, or all of them with "*").
    std::optional<Value> namespace_name(const std::string& name) {
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

    Value lookup(const std::string& name) {
        if (auto it = locals_.find(name); it != locals_.end()) return it->second;
        for (const auto& weak : outer_) {
            if (auto vars = weak.lock()) {
                if (auto it = vars->find(name); it != vars->end()) return it->second;
            }
        }
        if (auto it = t_->defs.find(name); it != t_->defs.end() && name != t_->main_def_name)
            return def_value(t_, &it->second, globals_, frame_);
        if (!t_->namespaces.empty())
            if (auto v = namespace_name(name)) return *v;
        if (const Value* v = module_name(name)) return *v;
        if (auto it = globals_->find(name); it != globals_->end()) return it->second;
        if (name == "context") return make_context(globals_);
        if (name == "self") return Value(std::make_shared<Namespace>(chain(), 0, globals_));
        if (name == "local") return Value(std::make_shared<Namespace>(chain(), frame_.index, globals_));
        if (name == "next" && frame_.chain && frame_.index > 0)
            return Value(std::make_shared<Namespace>(frame_.chain, frame_.index - 1, globals_));
        if (name == "parent" && frame_.chain && frame_.index + 1 < frame_.chain->size())
            return Value(std::make_shared<Namespace>(frame_.chain, frame_.index + 1, globals_));
        if (name == "caller" && caller_stack && !caller_stack->empty()) return caller_stack->back();
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
            for (const auto& c : e.children) items.push_back(eval(*c));
            return e.kind == Expr::Kind::List ? Value::list(std::move(items)) : Value::tuple(std::move(items));
        }
        case Expr::Kind::Lambda: return make_lambda(e);
        case Expr::Kind::ListComp:
        case Expr::Kind::GeneratorComp:
        case Expr::Kind::DictComp: return comprehension(e);
        case Expr::Kind::Dict: {
            DictItems items;
            for (std::size_t i = 0; i + 1 < e.children.size(); i += 2) {
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
                items.push_back(eval(*c));
                try {
                    check_hashable(items.back());
                } catch (const EvalError& err) {
                    throw PositionedError(err.what(), c->pos, std::current_exception());
                }
            }
            return Value::set(items);
        }
        case Expr::Kind::SetComp: return comprehension(e);
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
                    if (part.conv == 'r' || part.conv == 'a') {
                        if (part.conv == 'a' && !is_ascii(v.repr())) throw EvalError("f-string !a of non-ASCII text is not supported");
                        v = Value(v.repr());
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
    Value comprehension(const Expr& e) {
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

    void comp_loop(const Expr& e, std::size_t clause, std::vector<Value>& items, DictItems& dict) {
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

    // The function of a def statement. As in Python, its defaults are evaluated now and it sees
    // the variables of the scopes around it as they are when it is called (so it may call itself).
    // It holds those scopes weakly: the scope holds the function, and a strong reference would be
    // a cycle that reference counting never frees. A call after its defining scope ended (a
    // closure returned out of the function that made it) is refused rather than resolved wrongly.
    Value make_function(const Stmt& st) {
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
            Vars locals;
            const auto& params = def->params;
            if (a.positional.size() > params.size())
                throw EvalError(fmt::format("{}() takes {} positional arguments but {} were given", def->name, params.size(),
                                            a.positional.size()));
            for (std::size_t i = 0; i < a.positional.size(); ++i) locals[params[i].name] = a.positional[i];
            for (const auto& kw : a.keyword) {
                const std::string& name = kw.first;  // not a structured binding: lambdas capture it
                auto it = std::find_if(params.begin(), params.end(), [&](const Param& p) { return p.name == name; });
                if (it == params.end())
                    throw EvalError(fmt::format("{}() got an unexpected keyword argument '{}'", def->name, name));
                if (!locals.emplace(name, kw.second).second)
                    throw EvalError(fmt::format("{}() got multiple values for argument '{}'", def->name, name));
            }
            const std::size_t first_default = params.size() - defaults.size();
            for (std::size_t i = 0; i < params.size(); ++i) {
                if (locals.count(params[i].name)) continue;
                if (i < first_default)
                    throw EvalError(fmt::format("{}() missing required argument '{}'", def->name, params[i].name));
                locals[params[i].name] = defaults[i - first_default];
            }
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

    // A lambda sees the variables of its scope as they are when it is made, and its defaults are
    // evaluated then (as Python's are).
    Value make_lambda(const Expr& e) {
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
                if (it == params.end()) throw EvalError(fmt::format("<lambda>() got an unexpected keyword argument '{}'", name));
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

    const TemplatePtr& t_;
    const GlobalsPtr& globals_;
    // The local variables, shared with the functions that def statements make here (which hold it
    // weakly: see make_function).
    std::shared_ptr<Vars> scope_;
    Vars& locals_;
    std::vector<std::weak_ptr<Vars>> outer_;
    Frame frame_;         // where this code is in its template's inheritance chain
    Value return_value_;  // set by `return` (Flow::Return)
    bool in_module_ = false;  // running a <%! %> block
};

std::string plural(std::size_t n, const char* word) { return fmt::format("{} {}{}", n, word, n == 1 ? "" : "s"); }

// Python's argument binding: positionals fill the parameters in order, keywords by name, defaults
// (evaluated in the def's template, at call time) fill the rest.
std::map<std::string, Value> bind(const TemplatePtr& t, const Def& def, const Args& args, const GlobalsPtr& globals,
                                  const Frame& frame) {
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
        Evaluator defaults(t, globals, {}, {}, frame);
        try {
            locals[p.name] = defaults.eval(*p.default_value);
        } catch (const PositionedError& e) {
            throw make_render_error(*t, e.offset(), e.what(), globals.get(), e.cause());
        }
    }
    if (!missing.empty())
        throw EvalError(fmt::format("{}() missing {}: {}", def.name, plural(missing.size(), "required argument"),
                                    fmt::join(missing, ", ")));
    return locals;
}

std::string invoke_def(const TemplatePtr& t, const Def& def, const Args& args, const GlobalsPtr& globals,
                       const Frame& frame) {
    DepthGuard depth;
    std::map<std::string, Value> locals = bind(t, def, args, globals, frame);
    std::string out;
    Evaluator ev(t, globals, std::move(locals), {}, frame);
    try {
        ev.render(def.body, out);
        // <%def filter="...">: Mako filters the def's whole output, in order.
        for (const auto& f : def.filters) out = ev.filter(*f, Value(std::move(out))).str();
    } catch (const PositionedError& e) {
        throw make_render_error(*t, e.offset(), e.what(), globals.get(), e.cause());
    }
    return out;
}

}  // namespace

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
    OwnerScope owner;  // containers made from here on belong to this render (ownership.hpp)
    ModuleScopesGuard modules;
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
                const bool given = std::any_of(full.keyword.begin(), full.keyword.end(), [&](const auto& kw) { return kw.first == p; });
                if (auto found = g->find(p); !given && found != g->end()) full.keyword.emplace_back(p, found->second);
            }
        }
        if (top_level && chain) return invoke_body(target, full, g, frame);
        return invoke_def(target, def, full, g, frame);
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
