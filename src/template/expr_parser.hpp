#pragma once
// Recursive-descent parser of Python expressions (precedence as in Python's grammar).

#include "ast.hpp"
#include "expr_lexer.hpp"

#include <cstddef>
#include <string>
#include <vector>

namespace kjarni::tmpl {

class ExprParser {
public:
    explicit ExprParser(std::vector<Token> tokens) : tokens_(std::move(tokens)) {}

    /// A full expression; a bare `a, b` becomes a tuple.
    ExprPtr parse_expression_list();
    // An item of a display or an expression list: an expression, or `*expression` (Starred).
    ExprPtr parse_item();
    // Refuses a Starred item where one stands alone (`(*x)`, `[*x for ...]`).
    void refuse_lone_star(const Expr& e);
    /// One expression (a conditional expression at the top).
    ExprPtr parse_expression();

    /// The arguments of a call up to the end of the tokens (an include's args="v=5, w=x"), as a
    /// Call of `callee`.
    ExprPtr parse_arguments(ExprPtr callee, std::uint32_t pos) { return parse_call(std::move(callee), pos, false); }

    const Token& peek(std::size_t ahead = 0) const;
    Token next();
    bool at_op(const char* op) const;
    bool at_name(const char* name) const;
    bool at_end() const { return peek().kind == Token::Kind::End; }
    void expect_op(const char* op);
    /// Throws unless all tokens were consumed.
    void expect_end();
    [[noreturn]] void fail(const std::string& message) const;
    [[noreturn]] void fail_here(const std::string& what) const;

private:
    ExprPtr parse_or();
    ExprPtr parse_and();
    ExprPtr parse_not();
    ExprPtr parse_comparison();
    ExprPtr parse_bitor();
    ExprPtr parse_bitxor();
    ExprPtr parse_bitand();
    ExprPtr parse_shift();
    ExprPtr parse_arith();
    ExprPtr parse_term();
    ExprPtr parse_factor();
    ExprPtr parse_power();
    ExprPtr parse_postfix();
    ExprPtr parse_atom();
    ExprPtr parse_call(ExprPtr callee, std::uint32_t pos, bool parenthesized = true);
    ExprPtr parse_subscript(ExprPtr target, std::uint32_t pos);
    ExprPtr parse_lambda();
    // The `for ... in ... if ...` clauses after a comprehension's item.
    void parse_comp_clauses(Expr& comp);

    // Bounds the recursion so that deeply nested input cannot overflow the stack.
    struct DepthGuard {
        explicit DepthGuard(ExprParser& p);
        ~DepthGuard() { --parser.depth_; }
        DepthGuard(const DepthGuard&) = delete;
        DepthGuard& operator=(const DepthGuard&) = delete;
        ExprParser& parser;
    };

    std::vector<Token> tokens_;
    std::size_t at_ = 0;
    std::size_t depth_ = 0;
};

}  // namespace kjarni::tmpl
