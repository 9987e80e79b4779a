#pragma once
// The template evaluator's parts shared by its files: the per-thread state of the render in progress,
// the def invocation helpers, Mako's namespaces, and the Evaluator class, which walks nodes
// (evaluator_nodes.cpp), runs statements (evaluator_statements.cpp), evaluates expressions
// (evaluator_expressions.cpp) and resolves names (evaluator_names.cpp). evaluator.cpp holds the state,
// the invocation of defs and the entry points (evaluator.hpp). Internal to the template library.

#include "evaluator.hpp"

#include "ast.hpp"
#include "errors.hpp"
#include "limits.hpp"
#include "loader_runtime.hpp"
#include "ownership.hpp"
#include "runtime_objects.hpp"

#include <fmt/format.h>

#include <cstddef>
#include <cstdint>
#include <exception>
#include <map>
#include <memory>
#include <new>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace kjarni::tmpl::evaluation {

using K = Value::Kind;
using GlobalsPtr = std::shared_ptr<const Globals>;

// Per-thread accounting of the render in progress (renders nest through defs and snippets).
extern constinit thread_local std::size_t call_depth;
extern constinit thread_local std::uint64_t steps;
// The output of the template text being rendered now: as in Mako, a def called from an expression
// writes its text there (before the expression's own value) and returns an empty string.
extern constinit thread_local std::string* current_output;

// Runs `body` and gives an error that has no position yet the one of the construct being rendered:
// any std::exception except those that already carry a place (RenderError, PositionedError) and
// bad_alloc becomes a PositionedError at `pos`, with the original as its cause. One ladder for the
// expression, node, filter and statement walks, so that they cannot drift apart.
template <class Body>
decltype(auto) positioned_at(std::uint32_t pos, Body&& body) {
    try {
        return std::forward<Body>(body)();
    } catch (const RenderError&) {
        throw;
    } catch (const PositionedError&) {
        throw;
    } catch (const std::bad_alloc&) {
        throw;
    } catch (const std::exception& e) {
        throw PositionedError(e.what(), pos, std::current_exception());
    }
}

class Evaluator;
// The module scopes (the names the <%! %> blocks bind) of the templates used by the render in
// progress: made on first use, alive until the render ends (functions defined there hold them
// weakly, as every def statement holds its scope).
using ModuleScopes = std::map<const detail::CompiledTemplate*, std::shared_ptr<std::map<std::string, Value>>>;
extern constinit thread_local ModuleScopes* module_scopes;

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
extern constinit thread_local std::vector<Value>* caller_stack;

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

// Renders a def: its text. `returned`, when given, receives what a <% return x %> in the def's
// body returned (Mako's render functions return it; left empty when the body ran to its end).
// `outer`: the scopes a nested def reads (its enclosing def's locals), innermost first.
std::string invoke_def(const TemplatePtr& t, const Def& def, const Args& args, const GlobalsPtr& globals,
                       const Frame& frame = {}, std::optional<Value>* returned = nullptr,
                       std::vector<std::weak_ptr<std::map<std::string, Value>>> outer = {});

// Writes a def's text into the output being rendered (as Mako's defs do) and returns '' there, or
// returns the text outside a render's output.
Value write_out(std::string text);

// A <%def> as a value: calling it renders the def (see write_out). `held` keeps alive a view of
// the enclosing variables that `outer` names (one made for the def alone).
Value def_value(const TemplatePtr& t, const Def* def, const GlobalsPtr& g, const Frame& frame = {},
                std::vector<std::weak_ptr<std::map<std::string, Value>>> outer = {},
                std::shared_ptr<const std::map<std::string, Value>> held = nullptr);

// A template's top level, called as `body()` of its namespace or by an <%include>: Mako's
// render_body takes its <%page> arguments and ignores other keywords (its **pageargs).
std::string invoke_body(const TemplatePtr& t, const Args& args, const GlobalsPtr& g, const Frame& frame);

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
            if (it != t->defs.end() && name != t->main_def_name && it->second.parent.empty())
                return def_value(t, &it->second, g_, Frame{chain_, k});
        }
        throw EvalError(fmt::format("'Namespace' object has no attribute '{}'", name));
    }

private:
    std::shared_ptr<const Chain> chain_;
    std::size_t index_;
    GlobalsPtr g_;
};

// Python's argument binding: positionals fill the parameters in order, keywords by name, defaults
// (evaluated in the def's template, at call time) fill the rest.
std::map<std::string, Value> bind(const TemplatePtr& t, const Def& def, const Args& args, const GlobalsPtr& globals,
                                  const Frame& frame);

// The filter `n` of a def, block or text tag: Mako skips it there (it only turns default filters
// off, which those tags do not apply).
inline bool is_no_filter(const Expr& f) { return f.kind == Expr::Kind::Name && f.name == "n"; }

class Evaluator {
public:
    using Vars = std::map<std::string, Value>;

    // `outer`: the scopes of the def statements around a function's body, innermost first.
    Evaluator(const TemplatePtr& t, const GlobalsPtr& g, Vars locals, std::vector<std::weak_ptr<Vars>> outer = {},
              Frame frame = {})
        : t_(t), globals_(g), scope_(std::make_shared<Vars>(std::move(locals))), locals_(*scope_),
          outer_(std::move(outer)), frame_(std::move(frame)) {}

    // Statements of a <% %> block. Break and Continue travel up to the enclosing loop (a <% %>
    // block's `break` may end a `% for` or `% while` around it, as in Mako, where both are Python);
    // Return ends the def or the top level being rendered, as Mako's render functions.
    enum class Flow { Normal, Break, Continue, Return };

    // Runs the body of a def statement's function: its return value (None without one).
    Value call_body(const std::vector<Stmt>& body);

    // Starts rendering the body of `def` with Mako's scoping (scopes.hpp): the names it reads and
    // does not assign must be defined now (a NameError here otherwise, as Mako's render function
    // takes them from the context when it starts), and a name it assigns is its own everywhere.
    void enter(const Def& def);

    // Renders `nodes` into `out`; Flow::Return when a <% return %> ended them (its value is
    // returned_value()).
    Flow render(const std::vector<Node>& nodes, std::string& out);
    Value returned_value() { return std::move(return_value_); }

    Value eval(const Expr& e);

private:
    void emit(std::string& out, const std::string& s);

    Flow render_node(const Node& n, std::string& out);

public:
    Value filter(const Expr& f, const Value& v) { return apply_filter(f, v); }

private:
    // A filter of `${x | f}`: Mako's escapes by name (they win over globals, as in Mako), else a
    // callable from the template's names.
    Value apply_filter(const Expr& f, const Value& v);

    // A SharedMutationError on the container `target` evaluates to: named when it is a variable.
    [[noreturn]] static void shared_mutation(const Expr& target, const SharedMutationError& err);

    // `x[k] = v`: Python evaluates v, then x, then k.
    void assign_item(const Expr& item, const Value& v);

    void set_item(const Expr& item, const Value& container, const Value& key, const Value& v);

    void assign(const Targets& t, const Value& v);

    // `current op= v`: in place for lists (`xs += ys` extends the list every alias sees) and sets
    // (|=, &=, -=, ^=), as Python's; a new value otherwise.
    Value augmented(BinOp op, const Value& current, const Value& v, const Expr& target);

    Flow exec(const std::vector<Stmt>& stmts);

    Flow exec_one(const Stmt& st);

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

    Value render_caller_body(const Node& n, const Args& a);
    // The body of a <%call> or an anonymous <%block> (n.body), its own scope over this one's:
    // its text, and in `returned` what a <% return %> returned.
    std::string render_own_scope(const Node& n, const Args& a, std::optional<Value>& returned, bool call_body);
    void render_block(const Node& n, std::string& out);
    // An anonymous <%block> written directly in a <%call> body: its text, rendered outside the
    // body's names (see call_body_outer_).
    std::string render_block_in_call_body(const Node& n, std::optional<Value>& returned);

    Value lookup_def(const std::string& name);

    [[noreturn]] static void unprocessed(const Value& v);

    // A name bound by the template's <%! %> blocks (run now when this render has not run them yet).
    const Value* module_name(const std::string& name);

    // `<%include file="uri" args="..."/>`: that template (the top of its inheritance chain) renders
    // here with the render globals (not this template's locals), its <%page> arguments taken from
    // args, then from the globals (Mako's _kwargs_for_include).
    void render_include(const Node& n, std::string& out);

    std::shared_ptr<const Chain> chain() const;

    // The names a <%namespace> tag binds in this template: the namespace's own name, and the defs
    // it imports (by name, or all of them with "*").
    std::optional<Value> namespace_name(const std::string& name);

    Value lookup(const std::string& name);

    std::optional<std::int64_t> slice_bound(const ExprPtr& e);

    Value eval_inner(const Expr& e);

    // Comprehensions: their loop variables do not leak (Python 3); generators are made eagerly.
    Value comprehension(const Expr& e);

    void comp_loop(const Expr& e, std::size_t clause, std::vector<Value>& items, DictItems& dict);

    // The function of a def statement. As in Python, its defaults are evaluated now and it sees
    // the variables of the scopes around it as they are when it is called (so it may call itself).
    // It holds those scopes weakly: the scope holds the function, and a strong reference would be
    // a cycle that reference counting never frees. A call after its defining scope ended (a
    // closure returned out of the function that made it) is refused rather than resolved wrongly.
    Value make_function(const Stmt& st);

    // A lambda sees the variables of its scope as they are when it is made, and its defaults are
    // evaluated then (as Python's are).
    Value make_lambda(const Expr& e);

    // `del name` of a name this function has not assigned: as Mako's generated Python, a name the
    // function took from the context is deleted (unbound after), anything else is unbound here.
    void delete_unassigned(const std::string& name);
    // Whether `name` is a local of a <%call> or block body rendering here (body_locals_).
    bool body_local(const std::string& name) const;
    // This function's variables as a def written in the innermost <%call> body rendering here sees
    // them (body_outer_values_), or null where no <%call> body renders.
    std::shared_ptr<Vars> outside_call_body() const;

    const TemplatePtr& t_;
    const GlobalsPtr& globals_;
    // The local variables, shared with the functions that def statements make here (which hold it
    // weakly: see make_function).
    std::shared_ptr<Vars> scope_;
    Vars& locals_;
    std::vector<std::weak_ptr<Vars>> outer_;
    Frame frame_;             // where this code is in its template's inheritance chain
    const Def* function_ = nullptr;  // the def whose body this renders (null: other code)
    // The names each <%call> or anonymous <%block> body rendering here assigns or deletes (its
    // locals in Mako, all through it): read before the body assigns them, they are unbound, not
    // the enclosing function's names.
    std::vector<const std::vector<std::string>*> body_locals_;
    // Whether each of those bodies is an anonymous <%block>'s (true) or a <%call>'s (false): a
    // block takes no name from the context for a `del`.
    std::vector<bool> block_bodies_;
    // For each of those bodies, the enclosing code's values of the names it makes its own (none
    // where the enclosing code has no such local). Mako defines an anonymous block of a <%call>
    // body beside the body's function, not in it: the body's arguments and locals are not the
    // block's, which sees these values, or nothing (a NameError in Mako, even with a render global
    // of that name).
    using OuterValues = std::vector<std::pair<std::string, std::optional<Value>>>;
    std::vector<const OuterValues*> body_outer_values_;
    // Gives each name of `values` its value in `vars`, or removes it where that is none.
    static void assign_all(Vars& vars, const OuterValues& values);
    // The names such a block does not see (of the bodies it is written in), for lookup's message.
    std::vector<const std::vector<std::string>*> hidden_from_block_;
    // Context names this function deleted (`del n`: Mako took n from the context when the function
    // started, so the delete succeeds and n is unbound after it).
    std::set<std::string> deleted_;
    // A template's top level: the names its <% %> blocks assigned (Mako's __M_locals), which the
    // defs it calls by name see as context names; and the globals with them (null: not made yet).
    std::shared_ptr<Vars> handed_;
    GlobalsPtr handed_globals_;
    // The globals a def the code calls by name renders with (see handed_).
    GlobalsPtr def_globals();
    // The top level's `pageargs`.
    Value pageargs() const;

    Value return_value_;      // set by `return` (Flow::Return)
    bool in_module_ = false;  // running a <%! %> block
};

}  // namespace kjarni::tmpl::evaluation
