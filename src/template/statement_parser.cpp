// Statements: assignments (to names, tuples of names and items `x[k]`, chained), augmented
// assignments, expression statements, if/elif/else, for, while, break, continue, pass, assert, del.
// Assignments to attributes are refused (template objects have no settable attributes); class,
// import, return, try, with and the rest are refused by name.

#include "statement_parser.hpp"

#include "errors.hpp"
#include "expr_lexer.hpp"
#include "expr_parser.hpp"
#include "limits.hpp"
#include "param_parser.hpp"

#include <fmt/format.h>

#include <map>

namespace kjarni::tmpl {

namespace {

struct Line {
    std::size_t begin;
    std::size_t end;
    std::size_t indent;
};

// Splits the code into logical lines: a newline inside brackets continues the line, and so does a
// backslash before it; comments and blank lines are dropped.
std::vector<Line> logical_lines(std::string_view src, std::size_t begin, std::size_t end) {
    std::vector<Line> lines;
    std::size_t i = begin;
    while (i < end) {
        std::size_t start = i;
        std::size_t indent = 0;
        while (i < end && (src[i] == ' ' || src[i] == '\t')) {
            indent += src[i] == '\t' ? 8 - indent % 8 : 1;
            ++i;
        }
        const std::size_t text = i;
        int depth = 0;
        bool content = false;
        while (i < end) {
            const char c = src[i];
            if (c == '\n' && depth <= 0) break;
            if (c == '#') {
                while (i < end && src[i] != '\n') ++i;
                continue;
            }
            if (c == '\\' && i + 1 < end && src[i + 1] == '\n') {
                i += 2;
                continue;
            }
            if (c == '\'' || c == '"') {
                // A triple-quoted literal may span lines: they belong to this logical line.
                const bool triple = i + 2 < end && src[i + 1] == c && src[i + 2] == c;
                i += triple ? 3 : 1;
                while (i < end && (triple ? !(src[i] == c && i + 2 < end && src[i + 1] == c && src[i + 2] == c)
                                          : (src[i] != c && src[i] != '\n')))
                    i += src[i] == '\\' ? 2u : 1u;
                i += triple ? 3 : 1;
                content = true;
                continue;
            }
            if (c == '(' || c == '[' || c == '{') ++depth;
            if (c == ')' || c == ']' || c == '}') --depth;
            if (c != ' ' && c != '\t' && c != '\r' && c != '\n') content = true;
            ++i;
        }
        std::size_t stop = std::min(i, end);
        if (content) lines.push_back(Line{text, stop, indent});
        (void)start;
        if (i < end) ++i;  // the newline
    }
    return lines;
}

const std::map<std::string_view, BinOp>& augmented_ops() {
    static const std::map<std::string_view, BinOp> ops = {
        {"+=", BinOp::Add},       {"-=", BinOp::Sub},    {"*=", BinOp::Mul},  {"/=", BinOp::Div},
        {"//=", BinOp::FloorDiv}, {"%=", BinOp::Mod},    {"**=", BinOp::Pow}, {"|=", BinOp::BitOr},
        {"^=", BinOp::BitXor},    {"&=", BinOp::BitAnd}, {"<<=", BinOp::Shl}, {">>=", BinOp::Shr},
    };
    return ops;
}

bool is_unsupported_keyword(const std::string& w) {
    static const char* const words[] = {"class",    "try",   "except", "finally", "with",   "raise", "global",
                                        "nonlocal", "yield", "async",  "await",   "lambda", "match"};
    for (const char* k : words)
        if (w == k) return true;
    return false;
}

class StatementParser {
public:
    StatementParser(std::string_view src, std::vector<Line> lines, bool in_function)
        : src_(src), lines_(std::move(lines)), def_depth_(in_function ? 1 : 0) {}

    std::vector<Stmt> parse_all() {
        std::vector<Stmt> out;
        if (lines_.empty()) return out;
        // Mako (adjust_whitespace) removes the first code line's indentation from every line that
        // starts with at least as much, and leaves the other lines as they are: `<%! import math`
        // followed by `K = 3` on the next line is two statements at the top level.
        const std::size_t base = lines_[0].indent;
        for (Line& line : lines_)
            if (line.indent >= base) line.indent -= base;
        while (at_ < lines_.size()) {
            if (lines_[at_].indent != 0) throw PositionedError("unexpected indent", off(lines_[at_].begin));
            parse_line(out, 0);
        }
        return out;
    }

private:
    static std::uint32_t off(std::size_t i) { return static_cast<std::uint32_t>(i); }

    // The statements of the line at at_ (and, for a compound statement, of its block).
    void parse_line(std::vector<Stmt>& out, std::size_t indent) {
        if (++depth_ > limits().max_nesting) throw PositionedError("blocks nested too deeply", off(lines_[at_].begin));
        const Line line = lines_[at_++];
        ExprParser p(tokenize(src_, line.begin, line.end));
        const Token first = p.peek();
        const std::string word = first.kind == Token::Kind::Name ? first.text : std::string();
        if (word == "def") {
            p.next();
            out.push_back(parse_def(p, first.pos, indent));
        } else if (word == "if" || word == "while" || word == "for") {
            p.next();
            Stmt s(word == "if" ? Stmt::Kind::If : word == "while" ? Stmt::Kind::While : Stmt::Kind::For, first.pos);
            if (word == "for") {
                s.targets.push_back(parse_targets(p));
                if (!p.at_name("in")) p.fail_here("'in'");
                p.next();
                s.expr = p.parse_expression_list();
            } else {
                s.expr = p.parse_expression();
            }
            std::vector<Stmt> body = parse_suite(p, indent);
            if (word == "if") {
                s.branches.push_back(StmtBranch{std::move(s.expr), std::move(body)});
                parse_elif_else(s, indent);
            } else {
                s.body = std::move(body);
            }
            out.push_back(std::move(s));
        } else if (word == "elif" || word == "else") {
            throw PositionedError(fmt::format("'{}' without a matching 'if'", word), first.pos);
        } else {
            parse_simple(p, out);
        }
        --depth_;
    }

    // `import math [as m]` or `from math import a [as b], ...`: only the module math is known.
    static Stmt parse_import(ExprParser& p) {
        const Token first = p.next();
        Stmt s(Stmt::Kind::Import, first.pos);
        auto name = [&](const char* what) {
            if (p.peek().kind != Token::Kind::Name) p.fail_here(what);
            return p.next();
        };
        const Token module = name("a module name");
        if (p.at_op(".")) throw PositionedError("only the module 'math' can be imported", module.pos);
        if (module.text != "math")
            throw PositionedError(fmt::format("no module named '{}' (only the module 'math' can be imported)",
                                              module.text),
                                  module.pos);
        s.name = module.text;
        if (first.text == "import") {
            std::string as = module.text;
            if (p.at_name("as")) {
                p.next();
                as = name("a name").text;
            }
            s.imports.emplace_back(as, "");
            return s;
        }
        if (!p.at_name("import")) p.fail_here("'import'");
        p.next();
        while (true) {
            const Token what = name("a name");
            std::string as = what.text;
            if (p.at_name("as")) {
                p.next();
                as = name("a name").text;
            }
            s.imports.emplace_back(as, what.text);
            if (!p.at_op(",")) break;
            p.next();
        }
        return s;
    }

    // `def name(a, b=1):` then its body. Defaults are evaluated when the def statement runs.
    Stmt parse_def(ExprParser& p, std::uint32_t pos, std::size_t indent) {
        Stmt s(Stmt::Kind::Def, pos);
        if (p.peek().kind != Token::Kind::Name) p.fail_here("a function name");
        s.name = p.next().text;
        p.expect_op("(");
        parse_parameters(p, s.params, ParamSyntax{});
        p.expect_op(")");
        ++def_depth_;
        s.body = parse_suite(p, indent);
        --def_depth_;
        return s;
    }

    void parse_elif_else(Stmt& s, std::size_t indent) {
        while (at_ < lines_.size() && lines_[at_].indent == indent) {
            ExprParser p(tokenize(src_, lines_[at_].begin, lines_[at_].end));
            if (p.at_name("elif")) {
                ++at_;
                p.next();
                ExprPtr condition = p.parse_expression();
                s.branches.push_back(StmtBranch{std::move(condition), parse_suite(p, indent)});
            } else if (p.at_name("else")) {
                ++at_;
                p.next();
                s.branches.push_back(StmtBranch{nullptr, parse_suite(p, indent)});
                return;
            } else {
                return;
            }
        }
    }

    // After a compound statement's header: ':' then simple statements on the same line, or an
    // indented block on the following lines.
    std::vector<Stmt> parse_suite(ExprParser& p, std::size_t indent) {
        p.expect_op(":");
        std::vector<Stmt> body;
        if (!p.at_end()) {
            parse_simple(p, body);
            return body;
        }
        if (at_ >= lines_.size() || lines_[at_].indent <= indent)
            throw PositionedError("expected an indented block", p.peek().pos);
        const std::size_t inner = lines_[at_].indent;
        while (at_ < lines_.size() && lines_[at_].indent > indent) {
            if (lines_[at_].indent != inner)
                throw PositionedError("unindent does not match any outer indentation level", off(lines_[at_].begin));
            parse_line(body, inner);
        }
        return body;
    }

    static Targets parse_targets(ExprParser& p) {
        Targets t;
        const bool parens = p.at_op("(");
        if (parens) p.next();
        while (true) {
            if (p.peek().kind != Token::Kind::Name || p.at_name("in")) p.fail_here("a loop variable name");
            t.names.push_back(p.next().text);
            if (!p.at_op(",")) break;
            t.unpack = true;
            p.next();
            if (parens ? p.at_op(")") : p.at_name("in")) break;
        }
        if (parens) {
            p.expect_op(")");
            t.unpack = true;
        }
        return t;
    }

    // An assignment target from the expression parsed on its left (taken from `e` when it is an
    // item, `x[k]`).
    static Targets to_targets(ExprPtr& e_ptr) {
        const Expr& e = *e_ptr;
        Targets t;
        if (e.kind == Expr::Kind::Name) {
            t.names.push_back(e.name);
            return t;
        }
        if (e.kind == Expr::Kind::Index) {
            t.item = std::shared_ptr<const Expr>(std::move(e_ptr));
            return t;
        }
        if (e.kind == Expr::Kind::Tuple || e.kind == Expr::Kind::List) {
            t.unpack = true;
            for (const auto& c : e.children) {
                if (c->kind != Expr::Kind::Name)
                    throw PositionedError("only names and tuples of names can be assigned to", c->pos);
                t.names.push_back(c->name);
            }
            return t;
        }
        if (e.kind == Expr::Kind::Slice) throw PositionedError("assignment to a slice is not supported", e.pos);
        if (e.kind == Expr::Kind::Attr)
            throw PositionedError("assignment to an attribute is not supported (template objects have no settable "
                                  "attributes)",
                                  e.pos);
        throw PositionedError("cannot assign to this expression", e.pos);
    }

    // Simple statements separated by ';', up to the end of the line.
    void parse_simple(ExprParser& p, std::vector<Stmt>& out) {
        while (true) {
            const Token first = p.peek();
            if (first.kind == Token::Kind::Name &&
                (first.text == "pass" || first.text == "break" || first.text == "continue")) {
                p.next();
                out.emplace_back(first.text == "pass"    ? Stmt::Kind::Pass
                                 : first.text == "break" ? Stmt::Kind::Break
                                                         : Stmt::Kind::Continue,
                                 first.pos);
            } else if (first.kind == Token::Kind::Name && first.text == "assert") {
                p.next();
                Stmt s(Stmt::Kind::Assert, first.pos);
                s.expr = p.parse_expression();
                if (p.at_op(",")) {
                    p.next();
                    s.message = p.parse_expression();
                }
                out.push_back(std::move(s));
            } else if (first.kind == Token::Kind::Name && (first.text == "import" || first.text == "from")) {
                out.push_back(parse_import(p));
            } else if (first.kind == Token::Kind::Name && first.text == "return") {
                p.next();
                if (def_depth_ == 0) throw PositionedError("'return' outside function", first.pos);
                Stmt s(Stmt::Kind::Return, first.pos);
                if (!p.at_end() && !p.at_op(";")) s.expr = p.parse_expression_list();
                out.push_back(std::move(s));
            } else if (first.kind == Token::Kind::Name && first.text == "def") {
                throw PositionedError("'def' must start its own line", first.pos);
            } else if (first.kind == Token::Kind::Name && first.text == "del") {
                p.next();
                Stmt s(Stmt::Kind::Del, first.pos);
                ExprPtr e = p.parse_expression_list();
                std::vector<ExprPtr> parts;
                if (e->kind == Expr::Kind::Tuple) {
                    for (auto& c : e->children) parts.push_back(std::move(c));
                } else {
                    parts.push_back(std::move(e));
                }
                for (auto& part : parts) {
                    if (part->kind != Expr::Kind::Name && part->kind != Expr::Kind::Index)
                        throw PositionedError("del takes names and items (x[k]) only", part->pos);
                    s.targets.push_back(to_targets(part));
                }
                out.push_back(std::move(s));
            } else if (first.kind == Token::Kind::Name && is_unsupported_keyword(first.text) &&
                       !(first.text == "lambda")) {
                throw PositionedError(fmt::format("the '{}' statement is not supported in '<% %>' blocks", first.text),
                                      first.pos);
            } else if (first.kind == Token::Kind::Name &&
                       (first.text == "if" || first.text == "for" || first.text == "while" || first.text == "elif" ||
                        first.text == "else")) {
                throw PositionedError(fmt::format("'{}' must start its own line", first.text), first.pos);
            } else {
                ExprPtr e = p.parse_expression_list();
                if (p.at_op("=")) {
                    Stmt s(Stmt::Kind::Assign, first.pos);
                    s.targets.push_back(to_targets(e));
                    p.next();
                    ExprPtr value = p.parse_expression_list();
                    while (p.at_op("=")) {
                        s.targets.push_back(to_targets(value));
                        p.next();
                        value = p.parse_expression_list();
                    }
                    s.expr = std::move(value);
                    out.push_back(std::move(s));
                } else if (p.peek().kind == Token::Kind::Op && augmented_ops().count(p.peek().text)) {
                    Stmt s(Stmt::Kind::AugAssign, first.pos);
                    s.op = augmented_ops().at(p.next().text);
                    const std::uint32_t at = e->pos;
                    Targets t = to_targets(e);
                    if (t.unpack) throw PositionedError("illegal expression for augmented assignment", at);
                    s.targets.push_back(std::move(t));
                    s.expr = p.parse_expression_list();
                    out.push_back(std::move(s));
                } else {
                    Stmt s(Stmt::Kind::Expr, first.pos);
                    s.expr = std::move(e);
                    out.push_back(std::move(s));
                }
            }
            if (p.at_op(";")) {
                p.next();
                if (p.at_end()) break;
                continue;
            }
            p.expect_end();
            break;
        }
    }

    std::string_view src_;
    std::vector<Line> lines_;
    std::size_t at_ = 0;
    std::size_t depth_ = 0;
    std::size_t def_depth_;  // inside how many functions (`return` needs one; a <% %> block is in one)
};

}  // namespace

std::vector<Stmt> parse_code_block(std::string_view source, std::size_t begin, std::size_t end, bool in_function) {
    return StatementParser(source, logical_lines(source, begin, end), in_function).parse_all();
}

}  // namespace kjarni::tmpl
