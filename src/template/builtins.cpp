// range, len, str, int, float, bool, min, max, abs, enumerate, zip, list, tuple, sum, sorted,
// reversed, repr: what kernel templates use, with Python's behaviour.

#include "builtins.hpp"

#include "errors.hpp"
#include "limits.hpp"
#include "operators.hpp"
#include "utf8.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <map>

namespace kjarni::tmpl {

namespace {

using K = Value::Kind;

void expect_count(const Args& a, std::size_t min, std::size_t max, const char* name) {
    if (!a.keyword.empty()) throw EvalError(fmt::format("{}() takes no keyword arguments", name));
    if (a.size() < min || a.size() > max) {
        if (min == max)
            throw EvalError(fmt::format("{}() takes exactly {} argument{} ({} given)", name, min, min == 1 ? "" : "s",
                                        a.size()));
        throw EvalError(fmt::format("{}() takes from {} to {} arguments ({} given)", name, min, max, a.size()));
    }
}

std::int64_t int_arg(const Value& v, const char* name) {
    if (v.kind() != K::Int && v.kind() != K::Bool)
        throw EvalError(fmt::format("{}() expects integer arguments, got {}", name, v.type_name()));
    return v.as_int();
}

Value range(const Args& a) {
    expect_count(a, 1, 3, "range");
    std::int64_t start = 0, stop, step = 1;
    if (a.size() == 1) {
        stop = int_arg(a[0], "range");
    } else {
        start = int_arg(a[0], "range");
        stop = int_arg(a[1], "range");
        if (a.size() == 3) step = int_arg(a[2], "range");
    }
    if (step == 0) throw EvalError("range() arg 3 must not be zero");
    // Count first (in unsigned arithmetic, to stay clear of overflow) so that the limit is checked
    // before anything is allocated.
    std::uint64_t count = 0;
    if (step > 0 && start < stop)
        count = (static_cast<std::uint64_t>(stop) - static_cast<std::uint64_t>(start) - 1) / static_cast<std::uint64_t>(step) + 1;
    else if (step < 0 && start > stop)
        count = (static_cast<std::uint64_t>(start) - static_cast<std::uint64_t>(stop) - 1) /
                    (static_cast<std::uint64_t>(-(step + 1)) + 1) + 1;
    if (count > limits().max_items) throw EvalError("range() too long (render limit)");
    std::vector<Value> out;
    out.reserve(count);
    std::int64_t v = start;
    for (std::uint64_t i = 0; i < count; ++i) {
        out.emplace_back(v);
        v = static_cast<std::int64_t>(static_cast<std::uint64_t>(v) + static_cast<std::uint64_t>(step));
    }
    return Value::list(std::move(out));
}

Value len(const Args& a) {
    expect_count(a, 1, 1, "len");
    const Value& v = a[0];
    switch (v.kind()) {
    case K::String: return code_point_count(v.as_string());
    case K::List:
    case K::Tuple: return v.as_list().size();
    case K::Dict: return v.as_dict().size();
    default: throw EvalError(fmt::format("object of type '{}' has no len()", v.type_name()));
    }
}

Value to_str(const Args& a) {
    expect_count(a, 0, 1, "str");
    return a.size() ? make_string(a[0].str()) : Value(std::string());
}

Value to_repr(const Args& a) {
    expect_count(a, 1, 1, "repr");
    return make_string(a[0].repr());
}

Value to_int(const Args& a) {
    expect_count(a, 0, 2, "int");
    if (a.size() == 0) return 0;
    const Value& v = a[0];
    if (a.size() == 2 || v.kind() == K::String) {
        if (v.kind() != K::String) throw EvalError("int() can't convert non-string with explicit base");
        int base = a.size() == 2 ? static_cast<int>(int_arg(a[1], "int")) : 10;
        if (base < 2 || base > 36) throw EvalError("int() base must be >= 2 and <= 36");
        std::string s = v.as_string();
        s.erase(0, s.find_first_not_of(" \t\n"));
        s.erase(s.find_last_not_of(" \t\n") + 1);
        bool neg = !s.empty() && s[0] == '-';
        if (!s.empty() && (s[0] == '-' || s[0] == '+')) s.erase(0, 1);
        std::uint64_t u = 0;
        auto r = std::from_chars(s.data(), s.data() + s.size(), u, base);
        if (s.empty() || r.ec != std::errc() || r.ptr != s.data() + s.size())
            throw EvalError(fmt::format("invalid literal for int() with base {}: {}", base, v.repr()));
        if (u > static_cast<std::uint64_t>(INT64_MAX) + (neg ? 1u : 0u)) throw EvalError("integer overflow (integers are 64-bit)");
        return neg ? static_cast<std::int64_t>(0 - u) : static_cast<std::int64_t>(u);
    }
    if (v.kind() == K::Int || v.kind() == K::Bool) return v.as_int();
    if (v.kind() == K::Float) {
        double d = std::trunc(v.as_float());
        if (!(d >= -9223372036854775808.0 && d < 9223372036854775808.0))
            throw EvalError("cannot convert float to a 64-bit integer");
        return static_cast<std::int64_t>(d);
    }
    throw EvalError(fmt::format("int() argument must be a string or a number, not '{}'", v.type_name()));
}

Value to_float(const Args& a) {
    expect_count(a, 0, 1, "float");
    if (a.size() == 0) return 0.0;
    const Value& v = a[0];
    if (v.kind() == K::String) {
        std::string s = v.as_string();
        s.erase(0, s.find_first_not_of(" \t\n"));
        s.erase(s.find_last_not_of(" \t\n") + 1);
        if (s == "inf" || s == "+inf") return HUGE_VAL;
        if (s == "-inf") return -HUGE_VAL;
        if (s == "nan") return std::nan("");
        double d = 0;
        auto r = std::from_chars(s.data(), s.data() + s.size(), d);
        if (s.empty() || r.ec != std::errc() || r.ptr != s.data() + s.size())
            throw EvalError(fmt::format("could not convert string to float: {}", v.repr()));
        return d;
    }
    if (v.kind() == K::Int || v.kind() == K::Bool || v.kind() == K::Float) return v.as_float();
    throw EvalError(fmt::format("float() argument must be a string or a number, not '{}'", v.type_name()));
}

Value to_bool(const Args& a) {
    expect_count(a, 0, 1, "bool");
    return a.size() ? a[0].truthy() : false;
}

Value to_list(const Args& a) {
    expect_count(a, 0, 1, "list");
    return Value::list(a.size() ? iterate(a[0]) : std::vector<Value>{});
}

Value to_tuple(const Args& a) {
    expect_count(a, 0, 1, "tuple");
    return Value::tuple(a.size() ? iterate(a[0]) : std::vector<Value>{});
}

Value extremum(const Args& a, bool want_max) {
    const char* name = want_max ? "max" : "min";
    if (!a.keyword.empty()) throw EvalError(fmt::format("{}() takes no keyword arguments", name));
    if (a.size() == 0) throw EvalError(fmt::format("{}() expected at least 1 argument, got 0", name));
    std::vector<Value> items = a.size() == 1 ? iterate(a[0]) : a.positional;
    if (items.empty()) throw EvalError(fmt::format("{}() arg is an empty sequence", name));
    Value best = items[0];
    for (std::size_t i = 1; i < items.size(); ++i)
        if (compare(want_max ? CmpOp::Gt : CmpOp::Lt, items[i], best)) best = items[i];
    return best;
}

Value abs_(const Args& a) {
    expect_count(a, 1, 1, "abs");
    const Value& v = a[0];
    if (v.kind() == K::Float) return std::fabs(v.as_float());
    if (v.kind() == K::Int || v.kind() == K::Bool) {
        std::int64_t i = v.as_int();
        if (i == INT64_MIN) throw EvalError("integer overflow (integers are 64-bit)");
        return i < 0 ? -i : i;
    }
    throw EvalError(fmt::format("bad operand type for abs(): '{}'", v.type_name()));
}

Value enumerate(const Args& a) {
    if (a.size() < 1 || a.size() > 2) throw EvalError(fmt::format("enumerate() takes 1 or 2 arguments ({} given)", a.size()));
    std::int64_t start = 0;
    if (a.size() == 2) start = int_arg(a[1], "enumerate");
    if (const Value* s = a.find_keyword("start")) start = int_arg(*s, "enumerate");
    std::vector<Value> out;
    for (auto& item : iterate(a[0])) {
        out.push_back(Value::tuple({Value(start), item}));
        if (start == INT64_MAX) throw EvalError("integer overflow (integers are 64-bit)");
        ++start;
    }
    return Value::list(std::move(out));
}

Value zip(const Args& a) {
    if (!a.keyword.empty()) throw EvalError("zip() takes no keyword arguments");
    std::vector<std::vector<Value>> seqs;
    std::size_t n = a.size() ? SIZE_MAX : 0;
    for (const auto& v : a.positional) {
        seqs.push_back(iterate(v));
        n = std::min(n, seqs.back().size());
    }
    std::vector<Value> out;
    for (std::size_t i = 0; i < n; ++i) {
        std::vector<Value> t;
        for (auto& s : seqs) t.push_back(s[i]);
        out.push_back(Value::tuple(std::move(t)));
    }
    return Value::list(std::move(out));
}

Value sum(const Args& a) {
    expect_count(a, 1, 2, "sum");
    Value total = a.size() == 2 ? a[1] : Value(0);
    for (const auto& item : iterate(a[0])) total = binary(BinOp::Add, total, item);
    return total;
}

Value sorted(const Args& a) {
    expect_count(a, 1, 1, "sorted");
    std::vector<Value> items = iterate(a[0]);
    // A stable merge sort on Python's ordering; comparison errors propagate.
    std::stable_sort(items.begin(), items.end(), [](const Value& x, const Value& y) { return compare(CmpOp::Lt, x, y); });
    return Value::list(std::move(items));
}

Value reversed(const Args& a) {
    expect_count(a, 1, 1, "reversed");
    std::vector<Value> items = iterate(a[0]);
    std::reverse(items.begin(), items.end());
    return Value::list(std::move(items));
}

const std::map<std::string, Value>& table() {
    static const std::map<std::string, Value> builtins = {
        {"range", Value(Function(range))},
        {"len", Value(Function(len))},
        {"str", Value(Function(to_str))},
        {"repr", Value(Function(to_repr))},
        {"int", Value(Function(to_int))},
        {"float", Value(Function(to_float))},
        {"bool", Value(Function(to_bool))},
        {"list", Value(Function(to_list))},
        {"tuple", Value(Function(to_tuple))},
        {"min", Value(Function([](const Args& a) { return extremum(a, false); }))},
        {"max", Value(Function([](const Args& a) { return extremum(a, true); }))},
        {"abs", Value(Function(abs_))},
        {"enumerate", Value(Function(enumerate))},
        {"zip", Value(Function(zip))},
        {"sum", Value(Function(sum))},
        {"sorted", Value(Function(sorted))},
        {"reversed", Value(Function(reversed))},
    };
    return builtins;
}

}  // namespace

const Value* find_builtin(const std::string& name) {
    const auto& t = table();
    auto it = t.find(name);
    return it == t.end() ? nullptr : &it->second;
}

}  // namespace kjarni::tmpl
