// Mako's scoping of a def's names, found once after parsing (see scopes.hpp).

#include "scopes.hpp"

#include "builtins.hpp"
#include "errors.hpp"
#include "runtime_objects.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <memory>
#include <set>

namespace kjarni::tmpl {

namespace {

// The names Mako never takes from the context as the template's own: `context` and `loop` are
// reserved, the others are in every context Mako makes (caller, capture), set up for every
// template (self, local, next, parent) or constants of its runtime (UNDEFINED, pageargs).
bool is_special(const std::string& name) {
    static const std::set<std::string, std::less<>> names = {"context",  "loop",      "caller",        "capture",
                                                             "self",     "local",     "next",          "parent",
                                                             "pageargs", "UNDEFINED", "STOP_RENDERING"};
    return names.count(name) != 0;
}

class Walker {
public:
    explicit Walker(Def& def) : def_(def), function_id_(&def) {
        for (const Param& p : def.params) params_.insert(p.name);
    }

    // The names `e`, a default argument of a def, reads (with where), as Mako finds them.
    std::vector<std::pair<std::string, std::uint32_t>> reads_of_default(const Expr& e) {
        reads_.clear();
        comprehension_targets_are_reads_ = true;
        expr(e);
        comprehension_targets_are_reads_ = false;
        return reads_;
    }

    void nodes(std::vector<Node>& body) {
        for (Node& n : body) node(n);
    }

    void finish() {
        // Mako refuses a template that assigns one of its reserved names (NameConflictError).
        for (const char* reserved : {"context", "loop", "UNDEFINED", "STOP_RENDERING"})
            if (auto it = declared_at_.find(reserved); it != declared_at_.end())
                throw PositionedError(fmt::format("'{}' is a reserved name of Mako's and cannot be assigned", reserved),
                                      it->second);
        // Names declared anywhere in the function are its locals everywhere in it, read before or
        // after their assignment; the others are taken from the context when it starts.
        def_.declared = declared_;
        for (Node* f : own_fors_) f->mako_loop_unbound = f->mako_loop_unbound && !*uses_loop_;
        for (const auto& name : deleted_)
            if (!declared_.count(name) && !params_.count(name)) def_.deleted.insert(name);
        for (const auto& name : block_declared_)
            if (!declared_.count(name) && !params_.count(name)) def_.block_declared.insert(name);
        for (const auto& [name, pos] : reads_)
            if (!declared_.count(name) && !params_.count(name) && !block_declared_.count(name))
                def_.free_names.emplace_back(name, pos);
    }

private:
    void declare(const std::string& name, std::uint32_t pos) {
        if (shadowed(name)) return;
        declared_.insert(name);
        declared_at_.emplace(name, pos);
    }
    void declare(const Targets& t, std::uint32_t pos) {
        if (t.item) {
            expr(*t.item);
            return;
        }
        for (const auto& name : t.names) declare(name, pos);
    }

    bool shadowed(const std::string& name) const {
        return std::any_of(shadow_.begin(), shadow_.end(), [&](const auto& s) { return s.count(name) != 0; });
    }

    void read(const std::string& name, std::uint32_t pos) {
        if (name == "loop" && !shadowed(name)) used_loop();
        if (shadowed(name) || is_special(name)) return;
        if (in_filter_ && (name == "n" || find_escape_filter(name))) return;
        if (std::none_of(reads_.begin(), reads_.end(), [&](const auto& r) { return r.first == name; }))
            reads_.emplace_back(name, pos);
    }

    void expr(const Expr& e) {
        switch (e.kind) {
        case Expr::Kind::Name: read(e.name, e.pos); return;
        case Expr::Kind::Lambda: {
            // The defaults are read where the lambda stands, the body with the parameters bound.
            for (std::size_t i = 1; i < e.children.size(); ++i) expr(*e.children[i]);
            shadow_.emplace_back(e.kw_names.begin(), e.kw_names.end());
            expr(*e.children[0]);
            shadow_.pop_back();
            return;
        }
        case Expr::Kind::ListComp:
        case Expr::Kind::GeneratorComp:
        case Expr::Kind::DictComp:
        case Expr::Kind::SetComp: {
            // Python 3's comprehensions have a scope of their own: the first iterable is read
            // outside it, the rest with the loop variables bound. (Mako's identifier finder
            // reads the loop variables of a def's default argument as names of the context.)
            if (!e.comp.empty()) expr(*e.comp[0].iterable);
            shadow_.emplace_back();
            if (comprehension_targets_are_reads_)
                for (const CompFor& c : e.comp)
                    for (const auto& name : c.targets.names) read(name, e.pos);
            for (std::size_t k = 0; k < e.comp.size(); ++k) {
                if (k > 0) expr(*e.comp[k].iterable);
                for (const auto& name : e.comp[k].targets.names) shadow_.back().insert(name);
                for (const auto& c : e.comp[k].conditions) expr(*c);
            }
            for (const auto& c : e.children)
                if (c) expr(*c);
            shadow_.pop_back();
            return;
        }
        default:
            for (const auto& c : e.children)
                if (c) expr(*c);
        }
    }

    void stmts(const std::vector<Stmt>& code) {
        for (const Stmt& st : code) stmt(st);
    }

    void stmt(const Stmt& st) {
        if (st.expr) expr(*st.expr);
        if (st.message) expr(*st.message);
        switch (st.kind) {
        case Stmt::Kind::Assign:
        case Stmt::Kind::AugAssign:
        case Stmt::Kind::For:
            for (const Targets& t : st.targets) declare(t, st.pos);
            break;
        case Stmt::Kind::Del:
            // Mako takes a deleted name from the context (a Del is no assignment to it).
            for (const Targets& t : st.targets) {
                if (t.item) expr(*t.item);
                for (const auto& name : t.names) {
                    read(name, st.pos);
                    if (!shadowed(name)) deleted_.insert(name);
                }
            }
            break;
        case Stmt::Kind::Import:
            for (const auto& imported : st.imports) declare(imported.first, st.pos);
            break;
        case Stmt::Kind::Def: {
            declare(st.name, st.pos);
            for (const Param& p : st.params)
                if (p.default_value) expr(*p.default_value);
            // As Mako's identifier finder: the plain parameters are bound in the body, whose other
            // names count as the enclosing function's (assigned ones as declared there). It misses
            // *args, keyword-only and **kwargs parameters: reading one in the body is reading the
            // enclosing function's name too, which must then be defined when it starts.
            std::set<std::string> params;
            for (const Param& p : st.params)
                if (p.kind == Param::Kind::Plain) params.insert(p.name);
            shadow_.push_back(std::move(params));
            stmts(st.body);
            shadow_.pop_back();
            return;
        }
        default: break;
        }
        for (const StmtBranch& b : st.branches) {
            if (b.condition) expr(*b.condition);
            stmts(b.body);
        }
        stmts(st.body);
    }

    void node(Node& n) {
        switch (n.kind) {
        case Node::Kind::Text:
            in_filter_ = true;  // <%text filter="...">
            for (const auto& f : n.filters) expr(*f);
            in_filter_ = false;
            return;
        case Node::Kind::Expr:
            expr(*n.expr);
            // Mako's escape names (h, u, x, trim, n, str...) are its own, anywhere in a filter
            // (it leaves them out of the names it takes from the context); other names are read.
            in_filter_ = true;
            for (const auto& f : n.filters) expr(*f);
            in_filter_ = false;
            return;
        case Node::Kind::If:
            for (Branch& b : n.branches) {
                if (b.condition) expr(*b.condition);
                nodes(b.body);
            }
            return;
        case Node::Kind::For:
            expr(*n.expr);
            for (const auto& name : n.targets) declare(name, n.pos);
            open_fors_->push_back({&n, function_id_});
            nodes(n.body);
            nodes(n.orelse);
            open_fors_->pop_back();
            own_fors_.push_back(&n);
            return;
        case Node::Kind::While:
            expr(*n.expr);
            nodes(n.body);
            return;
        case Node::Kind::Code: {
            stmts(n.code);
            // The names this block assigns: Mako hands them to the defs the top level calls.
            std::set<std::string> mine;
            collect_assigned(n.code, mine);
            n.assigned.assign(mine.begin(), mine.end());
            return;
        }
        case Node::Kind::Call: {
            expr(*n.expr);
            // The body is a function of its own in Mako (its arguments bound in it): the names it
            // assigns are its own, the others it reads are this function's (a closure).
            Def body;
            for (const auto& name : n.targets) body.params.push_back(Param{name, nullptr});
            Walker inner(body);
            inner.shadow_ = shadow_;
            inner.open_fors_ = open_fors_;
            inner.nodes(n.body);
            inner.finish();
            n.body_locals.assign(body.declared.begin(), body.declared.end());
            n.body_deleted.assign(body.deleted.begin(), body.deleted.end());
            // A name the body deletes is the body's own (it takes it from the context itself
            // unless this function has it too): not read here for the body.
            for (const auto& [name, pos] : body.free_names)
                if (!body.deleted.count(name)) read(name, pos);
            return;
        }
        case Node::Kind::Include:
            if (n.expr) expr(*n.expr);
            return;
        case Node::Kind::Block: {
            // Mako takes a block's names for the enclosing function's too: what it reads from
            // outside (its filters included) is read there, what it assigns is declared there
            // (so read there, never assigned, it is unbound).
            in_filter_ = true;
            for (const auto& f : n.filters) expr(*f);
            in_filter_ = false;
            if (n.text.empty()) {
                Def body;
                Walker inner(body);
                inner.shadow_ = shadow_;
                inner.open_fors_ = open_fors_;
                inner.function_id_ = function_id_;
                inner.uses_loop_ = uses_loop_;
                inner.nodes(n.body);
                // Its `% for` nodes are this function's (marked when this function is read whole).
                own_fors_.insert(own_fors_.end(), inner.own_fors_.begin(), inner.own_fors_.end());
                inner.own_fors_.clear();
                inner.finish();
                n.body_locals.assign(body.declared.begin(), body.declared.end());
                n.body_deleted.assign(body.deleted.begin(), body.deleted.end());
                n.block_reads = body.free_names;
                for (const auto& name : body.block_declared)
                    if (!shadowed(name)) block_declared_.insert(name);
            }
            for (const auto& [name, pos] : n.block_reads) read(name, pos);
            for (const auto& name : n.body_locals)
                if (!shadowed(name)) block_declared_.insert(name);
            return;
        }
        }
    }

public:
    // The names a block's statements assign at its level (Mako's declared identifiers of it).
    static void collect_assigned(const std::vector<Stmt>& code, std::set<std::string>& out) {
        for (const Stmt& st : code) {
            switch (st.kind) {
            case Stmt::Kind::Assign:
            case Stmt::Kind::AugAssign:
            case Stmt::Kind::For:
                for (const Targets& t : st.targets) out.insert(t.names.begin(), t.names.end());
                break;
            case Stmt::Kind::Import:
                for (const auto& imported : st.imports) out.insert(imported.first);
                break;
            case Stmt::Kind::Def: out.insert(st.name); continue;
            default: break;
            }
            for (const StmtBranch& b : st.branches) collect_assigned(b.body, out);
            collect_assigned(st.body, out);
        }
    }

private:
    Def& def_;
    std::set<std::string> params_;
    std::set<std::string> declared_;
    std::set<std::string> block_declared_;  // assigned in its <%block>s (Def::block_declared)
    std::set<std::string> deleted_;         // deleted by its code (Def::deleted)
    // Mako's `loop` (Node::mako_loop_unbound): the `% for` nodes open around the code being read,
    // with the function each belongs to (a <%call> body is one of its own, a <%block> its
    // enclosing function's), shared by the walkers of nested bodies; whether this function reads
    // `loop` itself; the `% for` nodes of this function.
    const void* function_id_;
    std::shared_ptr<std::vector<std::pair<Node*, const void*>>> open_fors_ =
        std::make_shared<std::vector<std::pair<Node*, const void*>>>();
    std::shared_ptr<bool> uses_loop_ = std::make_shared<bool>(false);
    std::vector<Node*> own_fors_;
    // A read of `loop`: this function uses it; a `% for` of an enclosing function around this
    // <%call> body has it used only in a nested body (so far).
    void used_loop() {
        *uses_loop_ = true;
        for (auto& [f, owner] : *open_fors_)
            if (owner != function_id_) f->mako_loop_unbound = true;
    }
    std::map<std::string, std::uint32_t> declared_at_;          // where each was first assigned
    std::vector<std::pair<std::string, std::uint32_t>> reads_;  // in the order first read
    std::vector<std::set<std::string>> shadow_;                 // names bound by lambdas, comprehensions, call bodies
    bool comprehension_targets_are_reads_ = false;
    bool in_filter_ = false;
};

}  // namespace

void refuse_power(const Expr& e, const char* where) {
    // Mako regenerates these expressions' source from Python's syntax tree (its
    // ExpressionGenerator), which knows no `**`: a KeyError there, for any template using it.
    if (e.kind == Expr::Kind::Binary && e.bin_op == BinOp::Pow)
        throw PositionedError(fmt::format("'**' in {} is refused: Mako cannot compile it", where), e.pos);
    for (const auto& c : e.children)
        if (c) refuse_power(*c, where);
    for (const CompFor& c : e.comp) {
        refuse_power(*c.iterable, where);
        for (const auto& cond : c.conditions) refuse_power(*cond, where);
    }
}

void analyze_scopes(Def& def) {
    Walker w(def);
    w.nodes(def.body);
    w.finish();
}

void check_def_defaults(const detail::CompiledTemplate& t, const std::vector<std::string>& top_defs) {
    std::set<std::string> module_names;
    Walker::collect_assigned(t.module_code, module_names);
    Def none;
    Walker w(none);
    for (const auto& name : top_defs) {
        for (const Param& p : t.defs.at(name).params) {
            if (!p.default_value) continue;
            for (const auto& [read, pos] : w.reads_of_default(*p.default_value))
                if (!module_names.count(read) && !find_builtin(read))
                    throw PositionedError(fmt::format("name '{}' is not defined (the default arguments of a def "
                                                      "are evaluated before any render, as Mako evaluates them)",
                                                      read),
                                          pos);
        }
    }
}

}  // namespace kjarni::tmpl
