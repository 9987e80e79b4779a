// Python's expression grammar, lowest precedence first:
//   conditional: or ['if' or 'else' conditional]
//   or / and / not / comparison (chained, in, not in, is, is not)
//   | ^ & << >> + - * / // % unary(- + ~) ** postfix(. [] ()) atom

#include "expr_parser.hpp"

#include "bigint.hpp"
#include "complex.hpp"

#include "errors.hpp"
#include "limits.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

namespace kjarni::tmpl {

namespace {

bool is_keyword(const std::string& s) {
    static const char* const keywords[] = {"and",  "or",  "not",    "in",   "is",   "if",
                                           "else", "for", "lambda", "None", "True", "False"};
    for (const char* k : keywords)
        if (s == k) return true;
    return false;
}

ExprPtr make(Expr::Kind kind, std::uint32_t pos) { return std::make_unique<Expr>(kind, pos); }

ExprPtr make_binary(BinOp op, ExprPtr a, ExprPtr b, std::uint32_t pos) {
    auto e = make(Expr::Kind::Binary, pos);
    e->bin_op = op;
    e->children.push_back(std::move(a));
    e->children.push_back(std::move(b));
    return e;
}

std::string describe(const Token& t) {
    switch (t.kind) {
    case Token::Kind::End: return "end of expression";
    case Token::Kind::String: return "string literal";
    default: return fmt::format("'{}'", t.text);
    }
}

}  // namespace

ExprParser::DepthGuard::DepthGuard(ExprParser& p) : parser(p) {
    if (++parser.depth_ > limits().max_nesting) {
        --parser.depth_;
        parser.fail("expression nested too deeply");
    }
}

const Token& ExprParser::peek(std::size_t ahead) const {
    std::size_t i = at_ + ahead;
    return i < tokens_.size() ? tokens_[i] : tokens_.back();
}

Token ExprParser::next() {
    Token t = peek();
    if (at_ + 1 < tokens_.size()) ++at_;
    return t;
}

bool ExprParser::at_op(const char* op) const { return peek().kind == Token::Kind::Op && peek().text == op; }
bool ExprParser::at_name(const char* name) const { return peek().kind == Token::Kind::Name && peek().text == name; }

void ExprParser::fail(const std::string& message) const { throw PositionedError(message, peek().pos); }
void ExprParser::fail_here(const std::string& what) const {
    fail(fmt::format("invalid syntax: expected {}, found {}", what, describe(peek())));
}

void ExprParser::expect_op(const char* op) {
    if (!at_op(op)) fail_here(fmt::format("'{}'", op));
    next();
}

void ExprParser::expect_end() {
    if (!at_end()) fail(fmt::format("invalid syntax: unexpected {}", describe(peek())));
}

ExprPtr ExprParser::parse_item() {
    if (!at_op("*")) return parse_expression();
    auto starred = make(Expr::Kind::Starred, next().pos);
    starred->children.push_back(parse_expression());
    return starred;
}

void ExprParser::refuse_lone_star(const Expr& e) {
    if (e.kind == Expr::Kind::Starred) fail("can't use starred expression here");
}

ExprPtr ExprParser::parse_expression_list() {
    std::uint32_t pos = peek().pos;
    ExprPtr first = parse_item();
    if (!at_op(",")) {
        refuse_lone_star(*first);
        return first;
    }
    auto tuple = make(Expr::Kind::Tuple, pos);
    tuple->children.push_back(std::move(first));
    while (at_op(",")) {
        next();
        if (at_end() || at_op(")") || at_op(":") || at_op("}")) break;
        tuple->children.push_back(parse_item());
    }
    return tuple;
}

ExprPtr ExprParser::parse_lambda() {
    auto e = make(Expr::Kind::Lambda, next().pos);
    std::vector<ExprPtr> defaults;
    while (!at_op(":")) {
        if (peek().kind != Token::Kind::Name || is_keyword(peek().text)) fail_here("a parameter name");
        const std::string name = next().text;
        for (const auto& existing : e->kw_names)
            if (existing == name) fail(fmt::format("duplicate argument '{}' in lambda", name));
        e->kw_names.push_back(name);
        if (at_op("=")) {
            next();
            defaults.push_back(parse_expression());
        } else if (!defaults.empty()) {
            fail("non-default argument follows default argument");
        }
        if (!at_op(",")) break;
        next();
    }
    expect_op(":");
    e->children.push_back(parse_expression());
    for (auto& d : defaults) e->children.push_back(std::move(d));
    return e;
}

void ExprParser::parse_comp_clauses(Expr& comp) {
    while (at_name("for")) {
        next();
        CompFor clause;
        const bool parens = at_op("(");
        if (parens) next();
        while (true) {
            if (peek().kind != Token::Kind::Name || is_keyword(peek().text)) fail_here("a loop variable name");
            clause.targets.names.push_back(next().text);
            if (!at_op(",")) break;
            clause.targets.unpack = true;
            next();
            if (parens ? at_op(")") : at_name("in")) break;
        }
        if (parens) {
            expect_op(")");
            clause.targets.unpack = true;
        }
        if (!at_name("in")) fail_here("'in'");
        next();
        clause.iterable = parse_or();
        while (at_name("if")) {
            next();
            clause.conditions.push_back(parse_or());
        }
        comp.comp.push_back(std::move(clause));
    }
}

ExprPtr ExprParser::parse_expression() {
    DepthGuard guard(*this);
    if (at_name("lambda")) return parse_lambda();
    std::uint32_t pos = peek().pos;
    ExprPtr value = parse_or();
    if (!at_name("if")) return value;
    next();
    ExprPtr condition = parse_or();
    if (!at_name("else")) fail_here("'else'");
    next();
    ExprPtr otherwise = parse_expression();
    auto e = make(Expr::Kind::Cond, pos);
    e->children.push_back(std::move(value));
    e->children.push_back(std::move(condition));
    e->children.push_back(std::move(otherwise));
    return e;
}

ExprPtr ExprParser::parse_or() {
    ExprPtr left = parse_and();
    while (at_name("or")) {
        std::uint32_t pos = next().pos;
        auto e = make(Expr::Kind::Or, pos);
        e->children.push_back(std::move(left));
        e->children.push_back(parse_and());
        left = std::move(e);
    }
    return left;
}

ExprPtr ExprParser::parse_and() {
    ExprPtr left = parse_not();
    while (at_name("and")) {
        std::uint32_t pos = next().pos;
        auto e = make(Expr::Kind::And, pos);
        e->children.push_back(std::move(left));
        e->children.push_back(parse_not());
        left = std::move(e);
    }
    return left;
}

ExprPtr ExprParser::parse_not() {
    if (!at_name("not")) return parse_comparison();
    DepthGuard guard(*this);
    std::uint32_t pos = next().pos;
    auto e = make(Expr::Kind::Unary, pos);
    e->un_op = UnOp::Not;
    e->children.push_back(parse_not());
    return e;
}

ExprPtr ExprParser::parse_comparison() {
    std::uint32_t pos = peek().pos;
    ExprPtr first = parse_bitor();
    ExprPtr cmp;
    while (true) {
        CmpOp op;
        const Token& t = peek();
        if (t.kind == Token::Kind::Op && t.text == "==") op = CmpOp::Eq;
        else if (t.kind == Token::Kind::Op && t.text == "!=") op = CmpOp::Ne;
        else if (t.kind == Token::Kind::Op && t.text == "<") op = CmpOp::Lt;
        else if (t.kind == Token::Kind::Op && t.text == "<=") op = CmpOp::Le;
        else if (t.kind == Token::Kind::Op && t.text == ">") op = CmpOp::Gt;
        else if (t.kind == Token::Kind::Op && t.text == ">=") op = CmpOp::Ge;
        else if (at_name("in")) op = CmpOp::In;
        else if (at_name("not") && peek(1).kind == Token::Kind::Name && peek(1).text == "in") {
            op = CmpOp::NotIn;
            next();
        } else if (at_name("is")) {
            op = CmpOp::Is;
            if (peek(1).kind == Token::Kind::Name && peek(1).text == "not") {
                op = CmpOp::IsNot;
                next();
            }
        } else break;
        next();
        if (!cmp) {
            cmp = make(Expr::Kind::Compare, pos);
            cmp->children.push_back(std::move(first));
        }
        cmp->cmp_ops.push_back(op);
        cmp->children.push_back(parse_bitor());
    }
    return cmp ? std::move(cmp) : std::move(first);
}

ExprPtr ExprParser::parse_bitor() {
    ExprPtr left = parse_bitxor();
    while (at_op("|")) {
        std::uint32_t pos = next().pos;
        left = make_binary(BinOp::BitOr, std::move(left), parse_bitxor(), pos);
    }
    return left;
}

ExprPtr ExprParser::parse_bitxor() {
    ExprPtr left = parse_bitand();
    while (at_op("^")) {
        std::uint32_t pos = next().pos;
        left = make_binary(BinOp::BitXor, std::move(left), parse_bitand(), pos);
    }
    return left;
}

ExprPtr ExprParser::parse_bitand() {
    ExprPtr left = parse_shift();
    while (at_op("&")) {
        std::uint32_t pos = next().pos;
        left = make_binary(BinOp::BitAnd, std::move(left), parse_shift(), pos);
    }
    return left;
}

ExprPtr ExprParser::parse_shift() {
    ExprPtr left = parse_arith();
    while (at_op("<<") || at_op(">>")) {
        BinOp op = at_op("<<") ? BinOp::Shl : BinOp::Shr;
        std::uint32_t pos = next().pos;
        left = make_binary(op, std::move(left), parse_arith(), pos);
    }
    return left;
}

ExprPtr ExprParser::parse_arith() {
    ExprPtr left = parse_term();
    while (at_op("+") || at_op("-")) {
        BinOp op = at_op("+") ? BinOp::Add : BinOp::Sub;
        std::uint32_t pos = next().pos;
        left = make_binary(op, std::move(left), parse_term(), pos);
    }
    return left;
}

ExprPtr ExprParser::parse_term() {
    ExprPtr left = parse_factor();
    while (at_op("*") || at_op("/") || at_op("//") || at_op("%")) {
        BinOp op = at_op("*") ? BinOp::Mul : at_op("/") ? BinOp::Div : at_op("//") ? BinOp::FloorDiv : BinOp::Mod;
        std::uint32_t pos = next().pos;
        left = make_binary(op, std::move(left), parse_factor(), pos);
    }
    return left;
}

ExprPtr ExprParser::parse_factor() {
    if (at_op("-") || at_op("+") || at_op("~")) {
        DepthGuard guard(*this);
        UnOp op = at_op("-") ? UnOp::Neg : at_op("+") ? UnOp::Pos : UnOp::Invert;
        std::uint32_t pos = next().pos;
        auto e = make(Expr::Kind::Unary, pos);
        e->un_op = op;
        e->children.push_back(parse_factor());
        return e;
    }
    return parse_power();
}

ExprPtr ExprParser::parse_power() {
    ExprPtr base = parse_postfix();
    if (!at_op("**")) return base;
    DepthGuard guard(*this);
    std::uint32_t pos = next().pos;
    // Right-associative, and binds tighter than a unary minus on its left but not on its right.
    return make_binary(BinOp::Pow, std::move(base), parse_factor(), pos);
}

ExprPtr ExprParser::parse_postfix() {
    ExprPtr e = parse_atom();
    while (true) {
        if (at_op(".")) {
            std::uint32_t pos = next().pos;
            if (peek().kind != Token::Kind::Name) fail_here("an attribute name");
            auto attr = make(Expr::Kind::Attr, pos);
            attr->name = next().text;
            attr->children.push_back(std::move(e));
            e = std::move(attr);
        } else if (at_op("(")) {
            std::uint32_t pos = next().pos;
            e = parse_call(std::move(e), pos);
        } else if (at_op("[")) {
            std::uint32_t pos = next().pos;
            e = parse_subscript(std::move(e), pos);
        } else {
            return e;
        }
    }
}

ExprPtr ExprParser::parse_call(ExprPtr callee, std::uint32_t pos, bool parenthesized) {
    DepthGuard guard(*this);
    auto call = make(Expr::Kind::Call, pos);
    call->children.push_back(std::move(callee));
    while (parenthesized ? !at_op(")") : !at_end()) {
        if (at_op("**")) {  // f(**d): d's items as keyword arguments
            next();
            call->kw_names.emplace_back("**");
            call->children.push_back(parse_expression());
        } else if (at_op("*")) {  // f(*xs): xs's items as positional arguments
            if (std::find(call->kw_names.begin(), call->kw_names.end(), "**") != call->kw_names.end())
                fail("iterable argument unpacking follows keyword argument unpacking");
            // Python takes f(k=1, *xs), xs's items as positionals: kjarni keeps the positionals
            // before the keywords, so it refuses what it would evaluate out of order.
            if (!call->kw_names.empty()) fail("*iterable after a keyword argument (f(k=1, *xs)) is not supported");
            call->children.push_back(parse_item());
        } else if (peek().kind == Token::Kind::Name && peek(1).kind == Token::Kind::Op && peek(1).text == "=") {
            std::string name = next().text;
            next();
            for (const auto& existing : call->kw_names)
                if (existing == name) fail(fmt::format("keyword argument '{}' repeated", name));
            call->kw_names.push_back(name);
            call->children.push_back(parse_expression());
        } else {
            if (!call->kw_names.empty()) fail("positional argument follows keyword argument");
            std::uint32_t arg_pos = peek().pos;
            ExprPtr arg = parse_expression();
            if (at_name("for")) {  // f(x for x in xs): a generator as the argument
                auto gen = make(Expr::Kind::GeneratorComp, arg_pos);
                gen->children.push_back(std::move(arg));
                parse_comp_clauses(*gen);
                arg = std::move(gen);
            }
            call->children.push_back(std::move(arg));
        }
        if (!at_op(",")) break;
        next();
    }
    if (parenthesized) expect_op(")");
    return call;
}

ExprPtr ExprParser::parse_subscript(ExprPtr target, std::uint32_t pos) {
    DepthGuard guard(*this);
    ExprPtr parts[3];
    bool is_slice = false;
    if (!at_op(":")) parts[0] = parse_expression_list();
    if (at_op(":")) {
        is_slice = true;
        next();
        if (!at_op(":") && !at_op("]")) parts[1] = parse_expression();
        if (at_op(":")) {
            next();
            if (!at_op("]")) parts[2] = parse_expression();
        }
    }
    expect_op("]");
    auto e = make(is_slice ? Expr::Kind::Slice : Expr::Kind::Index, pos);
    e->children.push_back(std::move(target));
    if (is_slice) {
        for (auto& p : parts) e->children.push_back(std::move(p));
    } else {
        e->children.push_back(std::move(parts[0]));
    }
    return e;
}

ExprPtr ExprParser::parse_atom() {
    DepthGuard guard(*this);
    const Token& t = peek();
    std::uint32_t pos = t.pos;
    switch (t.kind) {
    case Token::Kind::Int: {
        auto e = make(Expr::Kind::Literal, pos);
        const Token tok = next();
        try {
            e->literal = tok.big_base ? make_int(mpz_class(tok.big_digits, tok.big_base)) : Value(tok.int_value);
        } catch (const EvalError& err) {
            throw PositionedError(err.what(), pos, std::current_exception());
        }
        return e;
    }
    case Token::Kind::Float: {
        auto e = make(Expr::Kind::Literal, pos);
        const Token token = next();
        e->literal = token.imaginary ? make_complex(0.0, token.float_value) : Value(token.float_value);
        return e;
    }
    case Token::Kind::String: {
        // Adjacent literals concatenate, as in Python; with an f-string among them, the whole is one.
        auto e = make(Expr::Kind::Literal, pos);
        std::string s;
        while (peek().kind == Token::Kind::String) {
            Token tok = next();
            if (!tok.fstring) {
                s += tok.text;
                continue;
            }
            e->kind = Expr::Kind::FString;
            for (auto& part : tok.fparts) {
                if (part.tokens.empty()) {
                    s += part.text;
                    continue;
                }
                if (!s.empty()) e->fparts.push_back(FPart{std::move(s), -1, 0, {}});
                s.clear();
                ExprParser field(std::move(part.tokens));
                ExprPtr x = field.parse_expression_list();
                field.expect_end();
                e->fparts.push_back(FPart{{}, static_cast<int>(e->children.size()), part.conv, std::move(part.spec)});
                e->children.push_back(std::move(x));
            }
        }
        if (e->kind == Expr::Kind::FString) {
            if (!s.empty()) e->fparts.push_back(FPart{std::move(s), -1, 0, {}});
        } else {
            e->literal = Value(std::move(s));
        }
        return e;
    }
    case Token::Kind::Name: {
        auto e = make(Expr::Kind::Literal, pos);
        if (t.text == "True") e->literal = Value(true);
        else if (t.text == "False") e->literal = Value(false);
        else if (t.text == "None") e->literal = Value();
        else if (is_keyword(t.text)) fail_here("an expression");
        else {
            e->kind = Expr::Kind::Name;
            e->name = t.text;
        }
        next();
        return e;
    }
    case Token::Kind::Op:
        if (t.text == "(") {
            next();
            if (at_op(")")) {
                next();
                return make(Expr::Kind::Tuple, pos);
            }
            ExprPtr inner = parse_item();
            if (!at_op(",")) refuse_lone_star(*inner);
            if (at_name("for")) {
                auto gen = make(Expr::Kind::GeneratorComp, pos);
                gen->children.push_back(std::move(inner));
                parse_comp_clauses(*gen);
                expect_op(")");
                return gen;
            }
            if (at_op(",")) {
                auto tuple = make(Expr::Kind::Tuple, pos);
                tuple->children.push_back(std::move(inner));
                while (at_op(",")) {
                    next();
                    if (at_op(")")) break;
                    tuple->children.push_back(parse_item());
                }
                inner = std::move(tuple);
            }
            expect_op(")");
            return inner;
        }
        if (t.text == "[") {
            next();
            auto list = make(Expr::Kind::List, pos);
            while (!at_op("]")) {
                list->children.push_back(parse_item());
                if (list->children.size() == 1 && at_name("for")) {
                    refuse_lone_star(*list->children[0]);
                    list->kind = Expr::Kind::ListComp;
                    parse_comp_clauses(*list);
                    break;
                }
                if (!at_op(",")) break;
                next();
            }
            expect_op("]");
            return list;
        }
        if (t.text == "{") {
            next();
            auto dict = make(Expr::Kind::Dict, pos);
            // `{a, b}` and `{x for ...}` are sets: known by the first item's lack of ':'.
            if (!at_op("}")) {
                ExprPtr first = at_op("**") ? nullptr : parse_item();
                if (first && !at_op(":")) {
                    dict->kind = Expr::Kind::Set;
                    dict->children.push_back(std::move(first));
                    if (at_name("for")) {
                        refuse_lone_star(*dict->children[0]);
                        dict->kind = Expr::Kind::SetComp;
                        parse_comp_clauses(*dict);
                    } else {
                        while (at_op(",")) {
                            next();
                            if (at_op("}")) break;
                            dict->children.push_back(parse_item());
                        }
                    }
                    expect_op("}");
                    return dict;
                }
                // A dict entry: key: value, or **mapping (a null key before the mapping).
                const auto entry = [&](ExprPtr key) {
                    if (!key && at_op("**")) {
                        next();
                        dict->children.push_back(nullptr);
                        dict->children.push_back(parse_expression());
                        return;
                    }
                    if (!key) key = parse_expression();
                    refuse_lone_star(*key);
                    dict->children.push_back(std::move(key));
                    expect_op(":");
                    dict->children.push_back(parse_expression());
                };
                const bool unpacked_first = !first;
                entry(std::move(first));
                if (!unpacked_first && at_name("for")) {
                    dict->kind = Expr::Kind::DictComp;
                    parse_comp_clauses(*dict);
                } else {
                    while (at_op(",")) {
                        next();
                        if (at_op("}")) break;
                        entry(nullptr);
                    }
                }
            }
            expect_op("}");
            return dict;
        }
        break;
    case Token::Kind::End: break;
    }
    fail_here("an expression");
}

}  // namespace kjarni::tmpl
