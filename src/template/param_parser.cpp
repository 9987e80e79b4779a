// Parameters in Python's order: plain ones (a default makes the following ones need one too),
// then `*args` or a bare `*`, then keyword-only ones (defaults in any order), then `**kwargs`.

#include "param_parser.hpp"

#include "errors.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace kjarni::tmpl {

void parse_parameters(ExprParser& p, std::vector<Param>& params, const ParamSyntax& syntax) {
    bool after_star = false;
    bool after_kwargs = false;
    std::uint32_t bare_star_at = 0;
    bool bare_star_open = false;  // a bare `*` not yet followed by a keyword-only parameter
    while (syntax.parenthesized ? !p.at_op(")") : !p.at_end()) {
        const std::uint32_t pos = p.peek().pos;
        if (after_kwargs) throw PositionedError("arguments cannot follow var-keyword argument", pos);
        Param param;
        param.kind = after_star ? Param::Kind::KeywordOnly : Param::Kind::Plain;
        if (p.at_op("*") || p.at_op("**")) {
            const bool double_star = p.at_op("**");
            if (!syntax.starred) throw PositionedError(syntax.refused, pos);
            p.next();
            if (!double_star && after_star) throw PositionedError("* argument may appear only once", pos);
            if (!double_star && (p.at_op(",") || p.at_op(")") || p.at_end())) {
                if (!syntax.bare_star) throw PositionedError(syntax.refused, pos);
                after_star = true;
                bare_star_open = true;
                bare_star_at = pos;
                if (!p.at_op(",")) break;
                p.next();
                continue;
            }
            param.kind = double_star ? Param::Kind::VarKeyword : Param::Kind::VarPositional;
            if (double_star) after_kwargs = true;
            else after_star = true;
        } else if (p.at_op("/")) {
            throw PositionedError("positional-only parameters ('/') are not supported", pos);
        }
        if (p.peek().kind != Token::Kind::Name) p.fail_here("a parameter name");
        const Token name = p.next();
        param.name = name.text;
        if (std::any_of(params.begin(), params.end(), [&](const Param& q) { return q.name == param.name; }))
            throw PositionedError(fmt::format("duplicate argument '{}' in {}", param.name, syntax.where), name.pos);
        if (p.at_op("=")) {
            if (param.kind == Param::Kind::VarPositional || param.kind == Param::Kind::VarKeyword)
                throw PositionedError(param.kind == Param::Kind::VarPositional
                                          ? "var-positional argument cannot have default value"
                                          : "var-keyword argument cannot have default value",
                                      p.peek().pos);
            p.next();
            param.default_value = p.parse_expression();
        } else if (param.kind == Param::Kind::Plain && !params.empty() && params.back().default_value &&
                   params.back().kind == Param::Kind::Plain) {
            throw PositionedError("non-default argument follows default argument", name.pos);
        }
        if (param.kind == Param::Kind::KeywordOnly) bare_star_open = false;
        params.push_back(std::move(param));
        if (!p.at_op(",")) break;
        p.next();
    }
    if (bare_star_open) throw PositionedError("named arguments must follow bare *", bare_star_at);
}

}  // namespace kjarni::tmpl
