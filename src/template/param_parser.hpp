#pragma once
// The parameter list of a function, as Python's grammar reads it: `a, b=1, *args, c, d=2, **kw`.

#include "ast.hpp"
#include "expr_parser.hpp"

#include <vector>

namespace kjarni::tmpl {

struct ParamSyntax {
    bool parenthesized = true;                  // stop at ')' (else at the end of the tokens)
    bool bare_star = true;                      // allow `*` alone (keyword-only parameters after it)
    bool starred = true;                        // allow *args, **kwargs and keyword-only parameters
    const char* where = "function definition";  // for "duplicate argument 'a' in ..."
    const char* refused = "";                   // the error for a star `syntax` refuses
};

// Appends the parameters read from `p` to `params`, throwing PositionedError (Python's
// SyntaxError messages) for what Python rejects and "not supported" for what `syntax` refuses.
void parse_parameters(ExprParser& p, std::vector<Param>& params, const ParamSyntax& syntax);

}  // namespace kjarni::tmpl
