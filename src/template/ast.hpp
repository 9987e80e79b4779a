#pragma once
// The syntax tree of a compiled template: expressions (Expr) and template structure (Node), and
// the compiled template itself (top level + defs), shared read-only by every render.

#include <kjarni/template/value.hpp>

#include "source_map.hpp"

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace kjarni::tmpl {

enum class BinOp { Add, Sub, Mul, Div, FloorDiv, Mod, Pow, BitOr, BitXor, BitAnd, Shl, Shr };
enum class CmpOp { Eq, Ne, Lt, Le, Gt, Ge, In, NotIn, Is, IsNot };
enum class UnOp { Neg, Pos, Invert, Not };

struct Expr;
using ExprPtr = std::unique_ptr<Expr>;

// Loop variables of `for` (in a `% for`, a code block or a comprehension): names, or a tuple of names.
struct Targets {
    std::vector<std::string> names;
    bool unpack = false;  // written as a tuple (`a, b` or `(a,)`)
    // Instead of names: an item, `x[k]` (an Index expression), changed in place.
    std::shared_ptr<const Expr> item;
};

// One `for ... in ... [if ...]` clause of a comprehension.
struct CompFor {
    Targets targets;
    ExprPtr iterable;
    std::vector<ExprPtr> conditions;
};

// A piece of an f-string: literal text, or the field {children[child]!conv:spec}.
struct FPart {
    std::string text;
    int child = -1;
    char conv = 0;
    std::string spec;
};

struct Expr {
    enum class Kind {
        Literal,  // literal
        Name,     // name
        Attr,     // children[0].name
        Index,    // children[0][children[1]]
        Slice,    // children[0][children[1]:children[2]:children[3]] (null children: omitted)
        Call,     // children[0](children[1..]); the last kw_names.size() arguments are keywords
        Unary,    // un_op children[0]
        Binary,   // children[0] bin_op children[1]
        Compare,  // children[0] cmp_ops[0] children[1] cmp_ops[1] children[2]...
        And,      // children[0] and children[1]
        Or,       // children[0] or children[1]
        Cond,     // children[0] if children[1] else children[2]
        List,
        Tuple,
        Dict,           // children: key, value, key, value...
        Lambda,         // kw_names: the parameters; children[0]: the body, then the defaults of the last ones
        ListComp,       // children[0]: the item; comp: the clauses
        GeneratorComp,  // as ListComp (evaluated eagerly into a list)
        DictComp,       // children[0], children[1]: key and value; comp: the clauses
        Set,            // children: the members
        SetComp,        // as ListComp
        FString,        // fparts: text, or a field formatting children[child]
        Starred,        // *children[0] in a list, tuple or set display or a call's positional arguments
                        // (`**d` is a Dict's null key before d, a Call's keyword named "**")
    };
    Kind kind;
    std::uint32_t pos;  // offset of the construct in the template source
    Value literal;
    std::string name;
    BinOp bin_op = BinOp::Add;
    UnOp un_op = UnOp::Neg;
    std::vector<CmpOp> cmp_ops;
    std::vector<ExprPtr> children;
    std::vector<std::string> kw_names;
    std::vector<CompFor> comp;
    std::vector<FPart> fparts;

    Expr(Kind k, std::uint32_t p) : kind(k), pos(p) {}
};

struct Param {
    // Python's kinds of parameters, in the order they are written: `a, *args, b, **kw` (b, after
    // *args, can be given by name only).
    enum class Kind { Plain, VarPositional, KeywordOnly, VarKeyword };
    std::string name;
    ExprPtr default_value;  // null when the argument is required
    Kind kind = Kind::Plain;
};

// A statement of a `<% %>` block.
struct Stmt;
struct StmtBranch {
    ExprPtr condition;  // null for `else`
    std::vector<Stmt> body;
};
struct Stmt {
    enum class Kind {
        Expr,
        Assign,
        AugAssign,
        If,
        For,
        While,
        Break,
        Continue,
        Pass,
        Assert,
        Del,
        Def,
        Return,
        Import
    };
    Kind kind;
    std::uint32_t pos;
    std::vector<Targets> targets;  // Assign: one per '=' (a = b = 1); AugAssign, For: one; Del: one per name or item
    ExprPtr expr;           // Expr, Assign, AugAssign: the value; For: the iterable; While, Assert: the condition
    ExprPtr message;        // Assert: the message (may be null)
    BinOp op = BinOp::Add;  // AugAssign
    std::vector<StmtBranch> branches;  // If
    std::vector<Stmt> body;            // For, While, Def
    std::string name;                  // Def: the function's name; Import: the module's
    // Import: the names bound, with what they are in the module ("" for the module itself):
    // `import math as m` binds {m, ""}; `from math import pi` binds {pi, pi}.
    std::vector<std::pair<std::string, std::string>> imports;
    std::vector<Param> params;  // Def (Return: expr, null for a bare `return`)

    Stmt(Kind k, std::uint32_t p) : kind(k), pos(p) {}
};

struct Node;

struct Branch {
    ExprPtr condition;  // null for `% else`
    std::vector<Node> body;
};

struct Node {
    enum class Kind { Text, Expr, If, For, While, Code, Call, Include, Block };
    Kind kind;
    std::uint32_t pos;
    std::string text;                  // Text; Include: the URI of the file
    ExprPtr expr;  // Expr; For: the iterable; While: the condition; Call: the call; Include: its args="..."
                   // as a Call of None (null without args)
    std::vector<Branch> branches;      // If
    std::vector<std::string> targets;  // For: the loop variables; Call: the body's arguments
    bool unpack = false;               // For: targets were written as a tuple (`a, b` or `(a,)`)
    std::vector<Node> body;            // For, While; Call: the body (`caller.body()`)
    std::vector<Node> orelse;          // For: the `% else:` body (rendered when no break ended the loop)
    std::vector<ExprPtr> filters;      // Expr: `${x | f, g}` applies str, then f, then g; Text: <%text filter=>
    bool raw = false;                  // Expr: the filter `n` (no str first)
    std::vector<Stmt> code;            // Code: the statements of a <% %> block
    std::vector<std::string> assigned;     // Code: the names the block assigns (scopes.hpp)
    std::vector<std::string> body_locals;  // Call, Block: the names its body assigns (its own in Mako)
    // Call, Block: the names its body deletes (`del x`) and does not assign: Python's locals of its
    // function too, so a name of the enclosing function deleted there is unbound there.
    std::vector<std::string> body_deleted;
    // For: Mako's generated code for it fails (NameError: __M_loop) as the template's Python would
    // not: `loop` is used in its body only inside a <%call> body, and its function uses no `loop`
    // of its own (scopes.cpp).
    bool mako_loop_unbound = false;
    // Block: <%block>, rendered where it stands. text: its name, a def of the template rendered
    // through `self` (unless a template it inherits from has one of that name: Mako renders that
    // one's there); "" for an anonymous block, whose body (a closure in Mako) is body, filtered by
    // filters. For a named one, filters are its def's again and block_reads the names its def
    // reads from outside: Mako takes both for the enclosing function's too.
    std::vector<std::pair<std::string, std::uint32_t>> block_reads;

    Node(Kind k, std::uint32_t p) : kind(k), pos(p) {}
};

struct Def {
    std::string name;
    std::uint32_t pos;
    std::vector<Param> params;
    std::vector<Node> body;
    std::vector<ExprPtr> filters;  // <%def filter="trim, f">: applied to the def's whole output
    // Mako's scoping (scopes.hpp): the names the def assigns anywhere in its body (its locals), and
    // the other names it reads (with where each is first read), which must be defined when it starts.
    std::set<std::string> declared;
    std::vector<std::pair<std::string, std::uint32_t>> free_names;
    // The names only its <%block>s assign: Mako declares them in this function too, which then
    // never takes them from the context; Python reads them as globals (<%! %> names, builtins).
    std::set<std::string> block_declared;
    // The names its code deletes (`del x`) and never assigns (Mako takes them from the context).
    std::set<std::string> deleted;
    // The top level of a template (Mako's render_body): the names its <% %> blocks assign are
    // handed to the defs it calls by name.
    bool is_body = false;
    // The <%def> this one is written in ("" for none): Mako makes it a closure there, seen only
    // inside that def, reading its names.
    std::string parent;
    // Written in a <%call> body of that def: Mako defines it beside the body's function, so the
    // body's arguments and locals are not its.
    bool in_call_body = false;
};

}  // namespace kjarni::tmpl

namespace kjarni::detail {

struct LookupState;

// `<%namespace name="n" file="uri" import="a, b"/>`: `n` (when named) is the namespace of the
// template `uri`, and the imported defs (or "*": all) are names of this template.
struct NamespaceDecl {
    std::string name;
    std::string uri;
    std::vector<std::string> imports;
    std::uint32_t pos;
};

struct CompiledTemplate {
    std::string name;
    std::string source;
    tmpl::SourceMap source_map;
    std::map<std::string, tmpl::Def> defs;  // the <%def>s and, under main_def_name, the top level
    std::string main_def_name;
    // The statements of the <%! %> blocks, in order: run once per render, before anything else
    // reads their names (which come after the template's defs, before the render globals).
    std::vector<tmpl::Stmt> module_code;
    // Lines added in front of the user's source (a DefTemplate's body is wrapped in newlines, as
    // grunnur wraps it in a <%def> tag): subtracted from the line numbers of errors.
    std::size_t line_shift = 0;

    // The loader (lookup.hpp): the URI the lookup found it by ("" when made from a string), against
    // which relative URIs of its tags resolve, and the lookup those tags load from. Held weakly: the
    // lookup caches this template (the public Template handle keeps the lookup alive).
    std::string uri;
    std::weak_ptr<const LookupState> lookup;
    bool has_lookup = false;  // made with a lookup (so an expired one is told apart from none)
    std::string inherit_uri;  // <%inherit file="...">, or ""
    std::uint32_t inherit_pos = 0;
    std::vector<NamespaceDecl> namespaces;
    // <%page args="...">: the top level takes these arguments, filled from the render globals
    // (and from an include's args) as Mako does.
    std::vector<tmpl::Param> page_params;
    bool page_args = false;

    CompiledTemplate(std::string n, std::string s) : name(std::move(n)), source(std::move(s)), source_map(source) {}
};

}  // namespace kjarni::detail
