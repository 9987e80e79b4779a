// Recursive descent over the chunks from the template lexer. Block ends (% elif/else/endif/endfor,
// </%def>) return control to the construct that opened the block, which checks they match.

#include "template_parser.hpp"

#include "compile.hpp"
#include "errors.hpp"
#include "expr_parser.hpp"
#include "limits.hpp"
#include "param_parser.hpp"
#include "scopes.hpp"
#include "statement_parser.hpp"
#include "template_lexer.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <string_view>

namespace kjarni::tmpl {

namespace {

struct Control {
    std::string keyword;
    std::uint32_t pos;
    ExprParser rest;  // the tokens after the keyword
    // No ':' followed by nothing but blanks (or a comment) ends the line: no statement to Mako
    // even where the tokens parse (a backslash-joined line after the ':').
    bool unterminated = false;
};

bool is_name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// A break or continue of `stmts` that no loop of theirs encloses (null if none): Python's compile
// error "'break' outside loop" in Mako unless a `% for` or `% while` of the same def is around it.
const Stmt* loose_jump(const std::vector<Stmt>& stmts) {
    for (const Stmt& st : stmts) {
        if (st.kind == Stmt::Kind::Break || st.kind == Stmt::Kind::Continue) return &st;
        if (st.kind == Stmt::Kind::If)
            for (const StmtBranch& b : st.branches)
                if (const Stmt* jump = loose_jump(b.body)) return jump;
    }
    return nullptr;
}

class Parser {
public:
    Parser(detail::CompiledTemplate& t, std::vector<Chunk> chunks) : t_(t), chunks_(std::move(chunks)) {}

    std::vector<Node> parse_top() {
        std::vector<Node> body = parse_body();
        if (at_ < chunks_.size()) {
            const Chunk& c = chunks_[at_];
            if (c.kind == Chunk::Kind::DefClose) throw PositionedError("'</%def>' without a matching '<%def>'", c.pos);
            if (c.kind == Chunk::Kind::CallClose)
                throw PositionedError("'</%call>' without a matching '<%call>'", c.pos);
            if (c.kind == Chunk::Kind::BlockClose)
                throw PositionedError("'</%block>' without a matching '<%block>'", c.pos);
            Control ctl = control(c);
            const char* opener = ctl.keyword == "endfor" ? "% for" : ctl.keyword == "endwhile" ? "% while" : "% if";
            throw PositionedError(fmt::format("'% {}' without a matching '{}'", ctl.keyword, opener), c.pos);
        }
        return body;
    }

private:
    // Parses nodes until a block end (left unconsumed) or the end of the chunks.
    std::vector<Node> parse_body() {
        if (++depth_ > limits().max_nesting) throw PositionedError("blocks nested too deeply", current_pos());
        std::vector<Node> body;
        while (at_ < chunks_.size()) {
            const Chunk& c = chunks_[at_];
            switch (c.kind) {
            case Chunk::Kind::Text: {
                Node n(Node::Kind::Text, c.pos);
                n.text = c.text;
                body.push_back(std::move(n));
                ++at_;
                break;
            }
            case Chunk::Kind::Expr: {
                const std::size_t bar = find_filter_bar(t_.source, c.begin, c.end);
                const std::size_t expr_end = bar == std::string::npos ? c.end : bar;
                std::size_t line_break = find_line_break(t_.source, c.begin, expr_end);
                if (line_break == std::string::npos && bar != std::string::npos)
                    line_break = find_line_break(t_.source, bar + 1, c.end);
                if (line_break != std::string::npos)
                    throw PositionedError("invalid syntax: a line end outside brackets ends the expression before "
                                          "this (Mako compiles it as Python statements)",
                                          static_cast<std::uint32_t>(line_break));
                ExprParser p(tokenize(t_.source, c.begin, expr_end));
                if (p.at_end()) throw PositionedError("empty expression in '${}'", c.pos);
                Node n(Node::Kind::Expr, c.pos);
                n.expr = p.parse_expression();
                // Mako writes ${a, b} as str(a, b): a trailing comma alone changes nothing, more
                // items are str's encoding arguments, which need bytes (none in kjarni's values).
                if (p.at_op(",")) {
                    const std::uint32_t comma = p.next().pos;
                    if (!p.at_end())
                        throw PositionedError("${a, b} is str(a, b) in Mako (a decoding of bytes): no tuple here; "
                                              "write ${(a, b)}",
                                              comma);
                }
                p.expect_end();
                if (bar != std::string::npos) parse_filters(n, bar + 1, c.end);
                body.push_back(std::move(n));
                ++at_;
                break;
            }
            case Chunk::Kind::Code: {
                Node n(Node::Kind::Code, c.pos);
                n.code = parse_code_block(t_.source, c.begin, c.end, /*in_function=*/true);
                if (const Stmt* jump = loose_jump(n.code); jump && loop_depth_ == 0)
                    throw PositionedError(jump->kind == Stmt::Kind::Break ? "'break' outside loop"
                                                                          : "'continue' not properly in loop",
                                          jump->pos);
                body.push_back(std::move(n));
                ++at_;
                break;
            }
            case Chunk::Kind::Module: {
                std::vector<Stmt> code = parse_code_block(t_.source, c.begin, c.end, /*in_function=*/false);
                if (const Stmt* jump = loose_jump(code))
                    throw PositionedError("'break' or 'continue' outside loop", jump->pos);
                for (auto& st : code) t_.module_code.push_back(std::move(st));
                ++at_;
                break;
            }
            case Chunk::Kind::CallOpen: body.push_back(parse_call_tag()); break;
            case Chunk::Kind::Tag: parse_loader_tag(body); break;
            case Chunk::Kind::CallClose: --depth_; return body;
            case Chunk::Kind::DefOpen: parse_def(); break;
            case Chunk::Kind::DefClose: --depth_; return body;
            case Chunk::Kind::BlockOpen: body.push_back(parse_block()); break;
            case Chunk::Kind::FilteredText: {
                Node n(Node::Kind::Text, c.pos);
                n.text = c.text;
                n.filters = tag_filters(c);
                body.push_back(std::move(n));
                ++at_;
                break;
            }
            case Chunk::Kind::BlockClose: --depth_; return body;
            case Chunk::Kind::Control: {
                Control ctl = control(c);
                if (ctl.keyword == "if") {
                    body.push_back(parse_if(std::move(ctl)));
                } else if (ctl.keyword == "for") {
                    body.push_back(parse_for(std::move(ctl)));
                } else if (ctl.keyword == "while") {
                    body.push_back(parse_while(std::move(ctl)));
                } else if (ctl.keyword == "elif" || ctl.keyword == "else" || ctl.keyword == "endif" ||
                           ctl.keyword == "endfor" || ctl.keyword == "endwhile") {
                    --depth_;
                    return body;
                } else if (ctl.keyword.empty()) {
                    throw PositionedError("invalid syntax: expected a control keyword after '%'", c.pos);
                } else {
                    throw PositionedError(fmt::format("unsupported control line '% {}'", ctl.keyword), c.pos);
                }
                break;
            }
            }
        }
        --depth_;
        return body;
    }

    // `| f, g(2), n`: each filter is an expression giving a callable (Mako's escape names h, u, x,
    // trim, n and str are resolved when rendering).
    void parse_filters(Node& n, std::size_t begin, std::size_t end) {
        ExprParser p(tokenize(t_.source, begin, end));
        while (true) {
            if (p.at_end()) p.fail_here("a filter");
            ExprPtr f = p.parse_expression();
            refuse_power(*f, "a filter");
            if (f->kind == Expr::Kind::Name && f->name == "n") n.raw = true;
            else n.filters.push_back(std::move(f));
            if (!p.at_op(",")) break;
            p.next();
        }
        p.expect_end();
    }

    std::uint32_t current_pos() const { return at_ < chunks_.size() ? chunks_[at_].pos : 0; }

    Control control(const Chunk& c) {
        const std::string_view src(t_.source);
        std::size_t i = c.begin;
        while (i < c.end && (src[i] == ' ' || src[i] == '\t')) ++i;
        std::size_t k = i;
        while (k < c.end && is_name_char(src[k])) ++k;
        std::string keyword(src.substr(i, k - i));
        // Mako reads nothing after an end keyword (`% endfor anything` ends the for).
        if (keyword.rfind("end", 0) == 0 && keyword.size() > 3)
            return Control{std::move(keyword), c.pos, ExprParser(tokenize(src, k, k))};
        // Mako's statement (its PythonFragment, ^(\w+)(?:\s+(.*?))?:\s*(#|$)) is the keyword,
        // blanks and the text up to the first ':' after which only blanks come before a '#' (a
        // comment from there) or the line's end; `% if(x):` is no statement to it.
        const auto blank = [](char ch) {
            return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == '\f' || ch == '\v';
        };
        if (k < c.end && !blank(src[k]) && src[k] != ':')
            throw PositionedError(fmt::format("'% {}' must be followed by a blank or ':' (Mako's control lines)",
                                              keyword),
                                  static_cast<std::uint32_t>(k));
        std::size_t stop = c.end;
        bool ended = false;
        for (std::size_t p = k; p < c.end && !ended; ++p) {
            if (src[p] != ':') continue;
            std::size_t q = p + 1;
            while (q < c.end && blank(src[q])) ++q;
            ended = q == c.end || src[q] == '#';
            if (ended) stop = q;
        }
        return Control{std::move(keyword), c.pos, ExprParser(tokenize(src, k, stop)), !ended};
    }

    // Consumes the chunk at at_ if it is a control line; returns it.
    Control take_control() {
        Control ctl = control(chunks_[at_]);
        ++at_;
        return ctl;
    }

    bool at_keyword(const char* keyword) {
        if (at_ >= chunks_.size() || chunks_[at_].kind != Chunk::Kind::Control) return false;
        return control(chunks_[at_]).keyword == keyword;
    }

    static void expect_colon_end(Control& ctl) {
        ctl.rest.expect_op(":");
        ctl.rest.expect_end();
        if (ctl.unterminated)
            throw PositionedError(fmt::format("'% {}' must end with its ':' (Mako's control lines)", ctl.keyword),
                                  ctl.pos);
    }

    Node parse_if(Control ctl) {
        ++at_;
        Node n(Node::Kind::If, ctl.pos);
        const std::uint32_t open_pos = ctl.pos;
        Branch b;
        b.condition = ctl.rest.parse_expression();
        expect_colon_end(ctl);
        b.body = parse_body();
        n.branches.push_back(std::move(b));
        bool seen_else = false;
        while (true) {
            if (at_ >= chunks_.size() || chunks_[at_].kind != Chunk::Kind::Control)
                throw PositionedError("'% if' is not closed by '% endif'", open_pos);
            Control next = take_control();
            if (next.keyword == "endif") {
                next.rest.expect_end();
                return n;
            }
            if (next.keyword != "elif" && next.keyword != "else")
                throw PositionedError(fmt::format("'% {}' inside '% if' (expected '% endif')", next.keyword), next.pos);
            if (seen_else) throw PositionedError(fmt::format("'% {}' after '% else'", next.keyword), next.pos);
            Branch br;
            if (next.keyword == "elif") {
                br.condition = next.rest.parse_expression();
            } else {
                seen_else = true;
            }
            expect_colon_end(next);
            br.body = parse_body();
            n.branches.push_back(std::move(br));
        }
    }

    Node parse_for(Control ctl) {
        ++at_;
        Node n(Node::Kind::For, ctl.pos);
        ExprParser& p = ctl.rest;
        bool parens = p.at_op("(");
        if (parens) p.next();
        while (true) {
            if (p.peek().kind != Token::Kind::Name || p.at_name("in")) p.fail_here("a loop variable name");
            n.targets.push_back(p.next().text);
            if (!p.at_op(",")) break;
            n.unpack = true;
            p.next();
            if (parens ? p.at_op(")") : p.at_name("in")) break;
        }
        if (parens) {
            p.expect_op(")");
            n.unpack = true;
        }
        if (!p.at_name("in")) p.fail_here("'in'");
        p.next();
        n.expr = p.parse_expression_list();
        expect_colon_end(ctl);
        n.body = parse_loop_body();
        if (at_ >= chunks_.size() || chunks_[at_].kind != Chunk::Kind::Control)
            throw PositionedError("'% for' is not closed by '% endfor'", ctl.pos);
        Control end = take_control();
        if (end.keyword == "else") {
            // Python's for/else: the else body renders when no break ended the loop (a break in
            // it belongs to an outer loop).
            expect_colon_end(end);
            n.orelse = parse_body();
            if (at_ >= chunks_.size() || chunks_[at_].kind != Chunk::Kind::Control)
                throw PositionedError("'% for' is not closed by '% endfor'", ctl.pos);
            end = take_control();
        }
        if (end.keyword != "endfor")
            throw PositionedError(fmt::format("'% {}' inside '% for' (expected '% endfor')", end.keyword), end.pos);
        end.rest.expect_end();
        return n;
    }

    // `% while cond:` ... `% endwhile` (Mako refuses an else of a while).
    Node parse_while(Control ctl) {
        ++at_;
        Node n(Node::Kind::While, ctl.pos);
        n.expr = ctl.rest.parse_expression();
        expect_colon_end(ctl);
        n.body = parse_loop_body();
        if (at_ >= chunks_.size() || chunks_[at_].kind != Chunk::Kind::Control)
            throw PositionedError("'% while' is not closed by '% endwhile'", ctl.pos);
        Control end = take_control();
        if (end.keyword != "endwhile")
            throw PositionedError(fmt::format("'% {}' inside '% while' (expected '% endwhile')", end.keyword), end.pos);
        end.rest.expect_end();
        return n;
    }

    // The body of a loop, where a <% break %> or <% continue %> may stand.
    std::vector<Node> parse_loop_body() {
        ++loop_depth_;
        std::vector<Node> body = parse_body();
        --loop_depth_;
        return body;
    }

    // The body of a def or of a <%call>: a function of its own in Mako, which no loop around it
    // reaches into.
    std::vector<Node> parse_function_body() {
        const std::size_t saved = loop_depth_;
        loop_depth_ = 0;
        std::vector<Node> body = parse_body();
        loop_depth_ = saved;
        return body;
    }

    // <%call expr="f(...)" args="a, b"> body </%call>: calls f with `caller` whose body() renders
    // the body (with the arguments given to it).
    // `<%ns:def a="${x}" b="text ${y}">` as the call `ns.def(a=x, b="text " + y)`: an attribute that
    // is one ${...} passes the expression's value, any other its text and expressions joined with +,
    // as Mako does.
    ExprPtr custom_tag_call(const Chunk& c) {
        auto call = std::make_unique<Expr>(Expr::Kind::Call, c.tag_pos);
        auto ns = std::make_unique<Expr>(Expr::Kind::Name, c.pos);
        ns->name = c.tag_ns;
        auto callee = std::make_unique<Expr>(Expr::Kind::Attr, c.tag_pos);
        callee->name = c.tag_def;
        callee->children.push_back(std::move(ns));
        call->children.push_back(std::move(callee));
        for (const auto& [name, range] : c.tag_attrs) {
            const std::string_view src(t_.source);
            auto value = std::make_unique<Expr>(Expr::Kind::FString, range.first);
            std::size_t k = range.first;
            std::string text;
            while (k < range.second) {
                if (src.substr(k, 2) == "${") {
                    const std::size_t e = find_expression_end(src, k + 2);
                    if (e == std::string_view::npos || e >= range.second)
                        throw PositionedError("unterminated '${' in a tag attribute", static_cast<std::uint32_t>(k));
                    if (!text.empty()) value->fparts.push_back(FPart{std::move(text), -1, 0, {}});
                    text.clear();
                    ExprParser p(tokenize(t_.source, k + 2, e));
                    if (p.at_end()) throw PositionedError("empty expression in '${}'", static_cast<std::uint32_t>(k));
                    value->fparts.push_back(FPart{{}, static_cast<int>(value->children.size()), 0, {}});
                    value->children.push_back(p.parse_expression_list());
                    p.expect_end();
                    k = e + 1;
                } else {
                    text += src[k++];
                }
            }
            if (!text.empty()) value->fparts.push_back(FPart{std::move(text), -1, 0, {}});
            // The pieces joined with +, as Mako's generated code does (so "a${1}" fails as in Python).
            ExprPtr arg;
            for (auto& part : value->fparts) {
                ExprPtr piece;
                if (part.child >= 0) {
                    piece = std::move(value->children[static_cast<std::size_t>(part.child)]);
                } else {
                    piece = std::make_unique<Expr>(Expr::Kind::Literal, range.first);
                    piece->literal = Value(std::move(part.text));
                }
                if (!arg) {
                    arg = std::move(piece);
                    continue;
                }
                auto sum = std::make_unique<Expr>(Expr::Kind::Binary, piece->pos);
                sum->bin_op = BinOp::Add;
                sum->children.push_back(std::move(arg));
                sum->children.push_back(std::move(piece));
                arg = std::move(sum);
            }
            if (!arg) {
                arg = std::make_unique<Expr>(Expr::Kind::Literal, range.first);
                arg->literal = Value(std::string());
            }
            call->kw_names.push_back(name);
            call->children.push_back(std::move(arg));
        }
        return call;
    }

    Node parse_call_tag() {
        const Chunk c = chunks_[at_];
        ++at_;
        Node n(Node::Kind::Call, c.pos);
        if (!c.tag_def.empty()) {
            n.expr = custom_tag_call(c);
        } else {
            ExprParser p(tokenize(t_.source, c.begin, c.end));
            n.expr = p.parse_expression();
            p.expect_end();
        }
        if (c.args_end > c.args_begin) {
            ExprParser a(tokenize(t_.source, c.args_begin, c.args_end));
            while (!a.at_end()) {
                if (a.peek().kind != Token::Kind::Name) a.fail_here("an argument name");
                n.targets.push_back(a.next().text);
                if (!a.at_op(",")) break;
                a.next();
            }
            a.expect_end();
        }
        if (!c.self_closing) {
            ++call_nesting_;
            n.body = parse_function_body();
            --call_nesting_;
            if (at_ >= chunks_.size() || chunks_[at_].kind != Chunk::Kind::CallClose)
                throw PositionedError("'<%call>' is not closed by '</%call>'", c.pos);
            ++at_;
        }
        return n;
    }

    // The value of a loader tag's attribute: its text, as written. An attribute holding ${...}
    // (Mako evaluates it) is refused by name rather than taken literally.
    std::string literal_attribute(const Chunk& c, const std::pair<std::uint32_t, std::uint32_t>& range,
                                  const std::string& attr) const {
        std::string v = t_.source.substr(range.first, range.second - range.first);
        if (v.find("${") != std::string::npos)
            throw PositionedError(fmt::format("an expression in the '{}' attribute of '<%{}>' is not supported", attr,
                                              c.tag_def),
                                  range.first);
        return v;
    }

    // <%include>, <%inherit>, <%namespace>, <%page>: the tags of the template loader.
    void parse_loader_tag(std::vector<Node>& body) {
        const Chunk c = chunks_[at_];
        ++at_;
        std::map<std::string, std::pair<std::uint32_t, std::uint32_t>> attrs;
        for (const auto& [name, range] : c.tag_attrs) attrs[name] = range;
        auto allow = [&](std::initializer_list<const char*> known) {
            for (const auto& [name, range] : attrs) {
                bool ok = false;
                for (const char* k : known) ok = ok || name == k;
                if (!ok)
                    throw PositionedError(fmt::format("the attribute '{}' of '<%{}>' is not supported", name,
                                                      c.tag_def),
                                          range.first);
            }
        };
        auto file = [&]() {
            auto it = attrs.find("file");
            if (it == attrs.end())
                throw PositionedError(fmt::format("'<%{}>' without a file attribute", c.tag_def), c.pos);
            std::string uri = literal_attribute(c, it->second, "file");
            if (uri.empty())
                throw PositionedError(fmt::format("'<%{}>' with an empty file attribute", c.tag_def), c.pos);
            return uri;
        };
        if (c.tag_def == "include") {
            allow({"file", "args"});
            Node n(Node::Kind::Include, c.pos);
            n.text = file();
            if (auto it = attrs.find("args"); it != attrs.end()) {
                ExprParser p(tokenize(t_.source, it->second.first, it->second.second));
                auto none = std::make_unique<Expr>(Expr::Kind::Literal, c.pos);
                n.expr = p.parse_arguments(std::move(none), c.pos);
                p.expect_end();
                // Mako passes them to _include_file(context, uri, calling_uri, **kwargs): a
                // positional one is a TypeError there.
                if (n.expr->children.size() - 1 != n.expr->kw_names.size())
                    throw PositionedError("the args of '<%include>' must be keyword arguments (name=value)",
                                          it->second.first);
            }
            body.push_back(std::move(n));
        } else if (c.tag_def == "inherit") {
            allow({"file"});
            if (!t_.inherit_uri.empty())
                throw PositionedError("a template may inherit only once ('<%inherit>' twice)", c.pos);
            t_.inherit_uri = file();
            t_.inherit_pos = c.pos;
        } else if (c.tag_def == "namespace") {
            allow({"file", "name", "import"});
            detail::NamespaceDecl ns;
            ns.pos = c.pos;
            ns.uri = file();
            if (auto it = attrs.find("name"); it != attrs.end()) {
                ns.name = literal_attribute(c, it->second, "name");
                ExprParser p(tokenize(t_.source, it->second.first, it->second.second));
                if (p.peek().kind != Token::Kind::Name) p.fail_here("a namespace name");
                p.next();
                p.expect_end();
            }
            if (auto it = attrs.find("import"); it != attrs.end()) {
                ExprParser p(tokenize(t_.source, it->second.first, it->second.second));
                while (!p.at_end()) {
                    if (p.at_op("*")) ns.imports.push_back(p.next().text);
                    else if (p.peek().kind == Token::Kind::Name) ns.imports.push_back(p.next().text);
                    else p.fail_here("a def name or '*'");
                    if (!p.at_op(",")) break;
                    p.next();
                }
                p.expect_end();
            }
            if (ns.name.empty() && ns.imports.empty())
                throw PositionedError("'<%namespace>' needs a name or an import attribute", c.pos);
            t_.namespaces.push_back(std::move(ns));
        } else {  // page
            allow({"args"});
            if (t_.page_args) throw PositionedError("'<%page>' given twice", c.pos);
            t_.page_args = true;
            if (auto it = attrs.find("args"); it != attrs.end()) {
                ExprParser p(tokenize(t_.source, it->second.first, it->second.second));
                parse_parameters(p, t_.page_params,
                                 ParamSyntax{false, false, false, "def",
                                             "*args and **kwargs in '<%page args>' are not supported"});
                for (const Param& param : t_.page_params)
                    if (param.default_value) refuse_power(*param.default_value, "a default argument");
                p.expect_end();
            }
        }
    }

    void parse_def() {
        const Chunk c = chunks_[at_];
        ++at_;
        ExprParser p(tokenize(t_.source, c.begin, c.end));
        Def def;
        def.pos = c.pos;
        if (p.peek().kind != Token::Kind::Name) p.fail_here("a def name");
        def.name = p.next().text;
        p.expect_op("(");
        // Mako writes a <%def>'s parameters out again, dropping a bare `*` (its keyword-only
        // parameters become plain ones): refused rather than followed.
        parse_parameters(p, def.params,
                         ParamSyntax{true, false, true, "def", "a bare '*' in a <%def>'s parameters is not supported"});
        p.expect_op(")");
        p.expect_end();
        def.filters = tag_filters(c);
        if (block_nesting_ > 0) throw PositionedError("a '<%def>' inside a '<%block>' is not supported", c.pos);
        if (!def_stack_.empty()) def.parent = def_stack_.back();
        def.in_call_body = call_nesting_ > 0;
        if (!c.self_closing) {
            ++def_nesting_;
            def_stack_.push_back(def.name);
            // (<%call> bodies count within one def: those around this def are not in its body.)
            const std::size_t calls_outside = std::exchange(call_nesting_, 0);
            def.body = parse_function_body();
            call_nesting_ = calls_outside;
            def_stack_.pop_back();
            --def_nesting_;
            if (at_ >= chunks_.size() || chunks_[at_].kind != Chunk::Kind::DefClose) {
                if (at_ < chunks_.size() && chunks_[at_].kind == Chunk::Kind::BlockClose)
                    throw PositionedError("'</%block>' does not match the '<%def>' open here", chunks_[at_].pos);
                if (at_ < chunks_.size()) {
                    Control ctl = control(chunks_[at_]);
                    throw PositionedError(fmt::format("'% {}' without a matching opening line", ctl.keyword),
                                          chunks_[at_].pos);
                }
                throw PositionedError(fmt::format("'<%def name=\"{}\">' is not closed by '</%def>'", def.name), c.pos);
            }
            ++at_;
        }
        if (t_.defs.count(def.name) || def.name == t_.main_def_name)
            throw PositionedError(fmt::format("def '{}' defined twice", def.name), c.pos);
        analyze_scopes(def);
        for (const Param& param : def.params)
            if (param.default_value) refuse_power(*param.default_value, "a def's default argument");
        if (def_nesting_ == 0) top_defs_.push_back(def.name);
        std::string name = def.name;
        t_.defs.emplace(std::move(name), std::move(def));
    }

    // The filter="..." of the def or block tag c (its args range): the expressions in order.
    std::vector<ExprPtr> tag_filters(const Chunk& c) {
        std::vector<ExprPtr> filters;
        if (c.args_end <= c.args_begin) return filters;
        ExprParser fp(tokenize(t_.source, c.args_begin, c.args_end));
        while (!fp.at_end()) {
            filters.push_back(fp.parse_expression());
            refuse_power(*filters.back(), "a filter");
            if (!fp.at_op(",")) break;
            fp.next();
        }
        fp.expect_end();
        return filters;
    }

    // <%block>: a named one becomes a def of the template (as Mako's render_NAME) and a node that
    // renders it through `self`; an anonymous one, a node holding its body (Mako's closure, called
    // where it stands).
    Node parse_block() {
        const Chunk c = chunks_[at_];
        ++at_;
        Node n(Node::Kind::Block, c.pos);
        n.text = t_.source.substr(c.begin, c.end - c.begin);
        const bool named = !n.text.empty();
        if (named) {
            const bool identifier = std::all_of(n.text.begin(), n.text.end(), is_name_char) &&
                                    std::isdigit(static_cast<unsigned char>(n.text[0])) == 0;
            if (!identifier)
                throw PositionedError("a '<%block>' name must be an identifier (Mako's '%block may not "
                                      "specify an argument signature')",
                                      c.begin);
            // Mako's Namespace has these itself (a block named body replaces the template's body).
            static const std::set<std::string, std::less<>> taken = {"body",         "context",    "template",
                                                                     "uri",          "filename",   "module",
                                                                     "name",         "callables",  "inherits",
                                                                     "attr",         "cache",      "get_namespace",
                                                                     "get_template", "get_cached", "include_file"};
            if (taken.count(n.text))
                throw PositionedError(
                    fmt::format("a '<%block>' named '{}' is not supported (a name of Mako's Namespace)", n.text),
                    c.pos);
            if (def_nesting_ > 0)
                throw PositionedError(fmt::format("named block '{}' not allowed inside of a def", n.text), c.pos);
            if (call_nesting_ > 0)
                throw PositionedError(fmt::format("named block '{}' not allowed inside of a '<%call>'", n.text), c.pos);
        }
        n.filters = tag_filters(c);
        std::vector<Node> body;
        if (!c.self_closing) {
            ++block_nesting_;
            body = parse_function_body();
            --block_nesting_;
            if (at_ < chunks_.size() &&
                (chunks_[at_].kind == Chunk::Kind::DefClose || chunks_[at_].kind == Chunk::Kind::CallClose))
                throw PositionedError(fmt::format("'</%{}>' does not match the '<%block>' open here",
                                                  chunks_[at_].kind == Chunk::Kind::DefClose ? "def" : "call"),
                                      chunks_[at_].pos);
            if (at_ >= chunks_.size() || chunks_[at_].kind != Chunk::Kind::BlockClose)
                throw PositionedError("'<%block>' is not closed by '</%block>'", c.pos);
            ++at_;
        }
        if (!named) {
            // Mako names an anonymous block by its line (__M_anon_LINE): a second one starting on
            // the same line is its "already exists" CompileException.
            if (!anonymous_block_lines_.insert(t_.source_map.line(c.pos)).second)
                throw PositionedError("a second anonymous '<%block>' on one line (Mako names them by their line and "
                                      "refuses the template)",
                                      c.pos);
            n.body = std::move(body);
            return n;
        }
        Def def;
        def.name = n.text;
        def.pos = c.pos;
        def.filters = tag_filters(c);
        def.body = std::move(body);
        if (t_.defs.count(def.name) || def.name == t_.main_def_name)
            throw PositionedError(fmt::format("def or block '{}' defined twice", def.name), c.pos);
        analyze_scopes(def);
        // (The names its own blocks assign count as the enclosing function's as well.)
        n.body_locals.assign(def.declared.begin(), def.declared.end());
        n.body_locals.insert(n.body_locals.end(), def.block_declared.begin(), def.block_declared.end());
        n.block_reads = def.free_names;
        top_defs_.push_back(def.name);
        std::string name = def.name;
        t_.defs.emplace(std::move(name), std::move(def));
        return n;
    }

    detail::CompiledTemplate& t_;
    std::vector<Chunk> chunks_;
    std::size_t at_ = 0;
    std::size_t depth_ = 0;
    std::size_t loop_depth_ = 0;                   // `% for` and `% while` around the chunk being parsed, in its def
    std::size_t def_nesting_ = 0;                  // <%def>s around the chunk being parsed
    std::vector<std::string> def_stack_;           // their names, innermost last
    std::size_t call_nesting_ = 0;                 // <%call> bodies around it
    std::size_t block_nesting_ = 0;                // <%block>s around it
    std::set<std::size_t> anonymous_block_lines_;  // the lines where anonymous blocks start

public:
    std::vector<std::string> top_defs_;  // the names of the <%def>s not nested in another
};

}  // namespace

namespace {

// The chunks of the part [begin, end) of `source`, lexed on their own, with their offsets (and
// those of a lexing error) counted from the start of `source`.
std::vector<Chunk> lex_part(std::string_view source, std::size_t begin, std::size_t end) {
    const auto base = static_cast<std::uint32_t>(begin);
    std::vector<Chunk> chunks;
    try {
        chunks = lex_template(source.substr(begin, end - begin));
    } catch (const PositionedError& e) {
        throw PositionedError(e.what(), e.offset() + base, e.cause());
    }
    for (Chunk& c : chunks) {
        c.pos += base;
        c.begin += base;
        c.end += base;
        c.args_begin += base;
        c.args_end += base;
        c.tag_pos += base;
        for (auto& attr : c.tag_attrs) {
            attr.second.first += base;
            attr.second.second += base;
        }
    }
    return chunks;
}

}  // namespace

void compile_template_parts(detail::CompiledTemplate& out,
                            const std::vector<std::pair<std::size_t, std::size_t>>& ranges,
                            const std::vector<std::string>& names) {
    if (out.source.size() >= UINT32_MAX) throw PositionedError("template too large", 0);
    out.main_def_name = names.at(0);
    std::vector<Def> tops;
    for (std::size_t k = 0; k < ranges.size(); ++k) {
        // Each part has its own parser: a block or a def left open at its end is an error there.
        Parser parser(out, lex_part(out.source, ranges[k].first, ranges[k].second));
        Def top;
        top.name = names.at(k);
        top.pos = static_cast<std::uint32_t>(ranges[k].first);
        top.body = parser.parse_top();
        analyze_scopes(top);
        check_def_defaults(out, parser.top_defs_);
        tops.push_back(std::move(top));
    }
    // A part is no file: nothing can include it or be its parent, and it takes no arguments.
    if (!out.inherit_uri.empty()) throw PositionedError("'<%inherit>' in a part of a kernel", out.inherit_pos);
    if (out.page_args) throw PositionedError("'<%page>' in a part of a kernel (a part takes no arguments)", 0);
    for (Def& top : tops) {
        if (out.defs.count(top.name))
            throw PositionedError(fmt::format("def '{}' has the name of a part", top.name), out.defs.at(top.name).pos);
        std::string name = top.name;
        out.defs.emplace(std::move(name), std::move(top));
    }
}

void compile_template(detail::CompiledTemplate& out, const std::string& main_name,
                      const std::vector<std::string>& main_params) {
    if (out.source.size() >= UINT32_MAX) throw PositionedError("template too large", 0);
    out.main_def_name = main_name;
    Parser parser(out, lex_template(out.source));
    Def main;
    main.name = main_name;
    main.pos = 0;
    for (const auto& p : main_params) main.params.push_back(Param{p, nullptr});
    main.body = parser.parse_top();
    if (out.page_args) {
        if (!main.params.empty())
            throw PositionedError("'<%page args>' in a def template (its arguments are given)", 0);
        main.params = std::move(out.page_params);
        out.page_params.clear();
    }
    main.is_body = main_name == top_level_name;
    analyze_scopes(main);
    check_def_defaults(out, parser.top_defs_);
    if (out.defs.count(main_name))
        throw PositionedError(fmt::format("def '{}' has the name of the template's main def", main_name),
                              out.defs.at(main_name).pos);
    out.defs.emplace(main_name, std::move(main));
}

}  // namespace kjarni::tmpl
