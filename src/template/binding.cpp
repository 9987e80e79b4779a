// Argument binding in CPython's order: positionals fill the plain parameters (the rest go to
// *args, or are too many), keywords bind by name (an unknown one goes to **kwargs, or is an
// error), then the missing ones take their defaults or are reported together.

#include "binding.hpp"

#include "errors.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

namespace kjarni::tmpl::evaluation {

namespace {

const Param* find_kind(const std::vector<Param>& params, Param::Kind kind) {
    auto it = std::find_if(params.begin(), params.end(), [&](const Param& p) { return p.kind == kind; });
    return it == params.end() ? nullptr : &*it;
}

}  // namespace

std::string plural(std::size_t n, const char* word) { return fmt::format("{} {}{}", n, word, n == 1 ? "" : "s"); }

std::size_t positional_count(const std::vector<Param>& params) {
    std::size_t n = 0;
    while (n < params.size() && params[n].kind == Param::Kind::Plain) ++n;
    return n;
}

std::map<std::string, Value> bind_arguments(const std::string& function, const std::vector<Param>& params,
                                            const Args& args, const std::function<Value(std::size_t)>& default_of,
                                            const std::string& reserved) {
    std::map<std::string, Value> locals;
    const std::size_t n_pos = positional_count(params);
    const Param* var_pos = find_kind(params, Param::Kind::VarPositional);
    const Param* var_kw = find_kind(params, Param::Kind::VarKeyword);
    const std::size_t bound = std::min(n_pos, args.positional.size());
    for (std::size_t i = 0; i < bound; ++i) locals[params[i].name] = args.positional[i];
    if (var_pos)
        locals[var_pos->name] = Value::tuple(
            std::vector<Value>(args.positional.begin() + static_cast<std::ptrdiff_t>(bound), args.positional.end()));
    DictItems extra;
    for (const auto& [name, value] : args.keyword) {
        if (!reserved.empty() && name == reserved)
            throw EvalError(fmt::format("{}() got multiple values for argument '{}'", function, name));
        auto it = std::find_if(params.begin(), params.end(), [&, &n = name](const Param& p) {
            return p.name == n && (p.kind == Param::Kind::Plain || p.kind == Param::Kind::KeywordOnly);
        });
        if (it == params.end()) {
            if (!var_kw) throw EvalError(fmt::format("{}() got an unexpected keyword argument '{}'", function, name));
            if (extra.find(name))
                throw EvalError(fmt::format("{}() got multiple values for keyword argument '{}'", function, name));
            extra.set(Value(name), value);
            continue;
        }
        if (!locals.emplace(name, value).second)
            throw EvalError(fmt::format("{}() got multiple values for argument '{}'", function, name));
    }
    if (var_kw) locals[var_kw->name] = Value::dict(std::move(extra));
    if (!var_pos && args.positional.size() > n_pos)
        throw EvalError(fmt::format("{}() takes {} but {} given", function, plural(n_pos, "positional argument"),
                                    args.positional.size() == 1 ? std::string("1 was")
                                                                : fmt::format("{} were", args.positional.size())));
    std::vector<std::string> missing;
    std::vector<std::string> missing_kw;
    for (std::size_t i = 0; i < params.size(); ++i) {
        const Param& p = params[i];
        if (p.kind == Param::Kind::VarPositional || p.kind == Param::Kind::VarKeyword || locals.count(p.name)) continue;
        if (p.default_value) locals[p.name] = default_of(i);
        else (p.kind == Param::Kind::Plain ? missing : missing_kw).push_back("'" + p.name + "'");
    }
    if (!missing.empty())
        throw EvalError(fmt::format("{}() missing {}: {}", function, plural(missing.size(), "required argument"),
                                    fmt::join(missing, ", ")));
    if (!missing_kw.empty())
        throw EvalError(fmt::format("{}() missing {}: {}", function,
                                    plural(missing_kw.size(), "required keyword-only argument"),
                                    fmt::join(missing_kw, ", ")));
    return locals;
}

}  // namespace kjarni::tmpl::evaluation
