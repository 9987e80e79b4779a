// Python's builtins that kernel templates use (range, len, str, repr, int, float, bool, list, tuple,
// dict, min, max, abs, round, divmod, pow, enumerate, zip, map, filter, sum, any, all, sorted,
// reversed, isinstance, callable, hex, oct, bin, ord, chr, format), with Python's behaviour.

#include "builtins.hpp"

#include "bigint.hpp"
#include "complex.hpp"

#include "errors.hpp"
#include "formatting.hpp"
#include "limits.hpp"
#include "number_text.hpp"
#include "operators.hpp"
#include "runtime_objects.hpp"
#include "utf8.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <map>
#include <optional>

namespace kjarni::tmpl {

namespace {

using K = Value::Kind;

void expect_count(const Args& a, std::size_t min, std::size_t max, const char* name) {
    if (!a.keyword.empty()) throw EvalError(fmt::format("{}() takes no keyword arguments", name));
    if (a.size() < min || a.size() > max) {
        if (min == max)
            throw EvalError(
                fmt::format("{}() takes exactly {} argument{} ({} given)", name, min, min == 1 ? "" : "s", a.size()));
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
        count = (static_cast<std::uint64_t>(stop) - static_cast<std::uint64_t>(start) - 1) /
                    static_cast<std::uint64_t>(step) +
                1;
    else if (step < 0 && start > stop)
        count = (static_cast<std::uint64_t>(start) - static_cast<std::uint64_t>(stop) - 1) /
                    (static_cast<std::uint64_t>(-(step + 1)) + 1) +
                1;
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
    case K::Set: return v.as_set().size();
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

// Python's digit groups: digits of `base` with single underscores between them (not first or
// last). Returns the digits without the underscores, or nullopt when `s` is not that.
std::optional<std::string> digit_groups(std::string_view s, int base, bool leading_underscore = false) {
    std::string out;
    bool after_digit = leading_underscore;
    for (char c : s) {
        if (c == '_') {
            if (!after_digit) return std::nullopt;
            after_digit = false;
            continue;
        }
        const auto u = static_cast<unsigned char>(c);
        const int d = std::isdigit(u) ? c - '0' : std::isalpha(u) ? std::tolower(u) - 'a' + 10 : 99;
        if (d >= base) return std::nullopt;
        out += c;
        after_digit = true;
    }
    if (out.empty() || !after_digit) return std::nullopt;
    return out;
}

// int(str, base) as Python reads it (number_text: Unicode's digits and blanks too): blanks around,
// a sign, the base's prefix (0x, 0o, 0b; base 0 takes it from the prefix, else decimal without
// leading zeros), digits with single underscores.
Value int_of_string(const Value& v, int base) {
    if (base != 0 && (base < 2 || base > 36)) throw EvalError("int() base must be >= 2 and <= 36, or 0");
    const auto invalid = [&] {
        return EvalError(fmt::format("invalid literal for int() with base {}: {}", base, v.repr()));
    };
    std::string s = number_text(v.as_string());
    const bool neg = !s.empty() && s[0] == '-';
    if (!s.empty() && (s[0] == '-' || s[0] == '+')) s.erase(0, 1);
    int b = base;
    bool prefixed = false;
    if (s.size() >= 2 && s[0] == '0') {
        const char p = static_cast<char>(std::tolower(static_cast<unsigned char>(s[1])));
        const int prefix_base = p == 'x' ? 16 : p == 'o' ? 8 : p == 'b' ? 2 : 0;
        if (prefix_base != 0 && (base == 0 || base == prefix_base)) {
            b = prefix_base;
            prefixed = true;
            s.erase(0, 2);
        }
    }
    if (b == 0) b = 10;
    // After a prefix, Python allows an underscore before the first digit (0x_1f).
    std::optional<std::string> digits = digit_groups(s, b, prefixed);
    if (!digits) throw invalid();
    // Base 0 reads decimals as literals do: no leading zeros but in zero itself ("00" is 0).
    if (base == 0 && !prefixed && digits->size() > 1 && (*digits)[0] == '0' &&
        digits->find_first_not_of('0') != std::string::npos)
        throw invalid();
    // At most Python's 4300 digits in a non-power-of-two base.
    if ((b & (b - 1)) != 0 && digits->size() > 4300) throw invalid();
    mpz_class x(*digits, b);
    return make_int(neg ? mpz_class(-x) : x);
}

Value to_ascii(const Args& a) {
    expect_count(a, 1, 1, "ascii");
    return make_string(ascii_repr(a[0]));
}

Value to_int(const Args& a) {
    expect_count(a, 0, 2, "int");
    if (a.size() == 0) return 0;
    const Value& v = a[0];
    if (a.size() == 2 || v.kind() == K::String) {
        if (v.kind() != K::String) throw EvalError("int() can't convert non-string with explicit base");
        return int_of_string(v, a.size() == 2 ? static_cast<int>(int_arg(a[1], "int")) : 10);
    }
    if (v.kind() == K::Int || v.kind() == K::Bool) return is_big(v) ? v : Value(v.as_int());
    if (v.kind() == K::Float) return int_of_double(v.as_float());
    throw EvalError(fmt::format("int() argument must be a string or a number, not '{}'", v.type_name()));
}

// float(str) as Python reads it (number_text: Unicode's digits and blanks too): blanks around, a
// sign, then inf, infinity or nan in any case, or a decimal number whose digit groups may hold
// single underscores; out of range is inf or 0.
double float_of_string(const Value& v) {
    const auto invalid = [&] { return EvalError(fmt::format("could not convert string to float: {}", v.repr())); };
    std::string s = number_text(v.as_string());
    const bool neg = !s.empty() && s[0] == '-';
    if (!s.empty() && (s[0] == '-' || s[0] == '+')) s.erase(0, 1);
    std::string lower = s;
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (lower == "inf" || lower == "infinity") return neg ? -HUGE_VAL : HUGE_VAL;
    if (lower == "nan") return neg ? -std::nan("") : std::nan("");
    // mantissa [e exponent]: the mantissa digits[.digits] or .digits, each group of digits with
    // Python's underscores.
    const std::size_t e = lower.find('e');
    const std::string mantissa = lower.substr(0, e);
    const std::size_t point = mantissa.find('.');
    const std::string int_text = mantissa.substr(0, point);
    const std::string frac_text = point == std::string::npos ? std::string() : mantissa.substr(point + 1);
    if (int_text.empty() && frac_text.empty()) throw invalid();
    const auto groups = [&](const std::string& text) {
        if (text.empty()) return std::string("0");
        auto digits = digit_groups(text, 10);
        if (!digits) throw invalid();
        return *digits;
    };
    const std::string int_digits = groups(int_text);
    const std::string frac_digits = groups(frac_text);
    long long exponent = 0;  // saturated: only its size matters once it is far out of range
    std::string plain = int_digits + "." + frac_digits;
    if (e != std::string::npos) {
        std::string text = lower.substr(e + 1);
        const bool negative = !text.empty() && text[0] == '-';
        if (!text.empty() && (text[0] == '-' || text[0] == '+')) text.erase(0, 1);
        auto digits = digit_groups(text, 10);
        if (!digits) throw invalid();
        for (char c : *digits) exponent = std::min(exponent * 10 + (c - '0'), 1'000'000'000LL);
        if (negative) exponent = -exponent;
        plain += "e" + std::to_string(exponent);
    }
    double d = 0;
    const auto r = std::from_chars(plain.data(), plain.data() + plain.size(), d);
    if (r.ec == std::errc::result_out_of_range) {
        // Python gives inf for a number too large and 0 for one too small: which one is decided by
        // the exponent of its first significant digit.
        const std::size_t lead = int_digits.find_first_not_of('0');
        const long long magnitude = lead != std::string::npos
                                        ? static_cast<long long>(int_digits.size() - lead) - 1 + exponent
                                        : -static_cast<long long>(frac_digits.find_first_not_of('0')) - 1 + exponent;
        d = magnitude > 0 ? HUGE_VAL : 0.0;
    } else if (r.ec != std::errc() || r.ptr != plain.data() + plain.size()) {
        throw invalid();
    }
    return neg ? -d : d;
}

Value to_float(const Args& a) {
    expect_count(a, 0, 1, "float");
    if (a.size() == 0) return 0.0;
    const Value& v = a[0];
    if (v.kind() == K::String) return float_of_string(v);
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

Value to_set(const Args& a) {
    expect_count(a, 0, 1, "set");
    return Value::set(a.size() ? iterate_unordered(a[0]) : std::vector<Value>{});
}

Value to_tuple(const Args& a) {
    expect_count(a, 0, 1, "tuple");
    return Value::tuple(a.size() ? iterate(a[0]) : std::vector<Value>{});
}

}  // namespace

Value call_value(const Value& f, const Args& args) {
    switch (f.kind()) {
    case K::Callable: return f.as_function()(args);
    case K::Object: return f.as_object()->call(args);
    default: throw EvalError(fmt::format("'{}' object is not callable", f.type_name()));
    }
}

std::vector<Value> sort_values(std::vector<Value> items, const Value* key, bool descending) {
    std::vector<std::pair<Value, Value>> keyed;
    keyed.reserve(items.size());
    for (auto& item : items)
        keyed.emplace_back(key && !key->is_none() ? call_value(*key, Args{{item}, {}}) : item, item);
    // A stable sort on Python's ordering (reverse keeps equal items in order, as Python's does);
    // comparison errors propagate.
    std::stable_sort(keyed.begin(), keyed.end(), [descending](const auto& x, const auto& y) {
        return descending ? compare(CmpOp::Lt, y.first, x.first) : compare(CmpOp::Lt, x.first, y.first);
    });
    std::vector<Value> out;
    out.reserve(keyed.size());
    for (auto& kv : keyed) out.push_back(std::move(kv.second));
    return out;
}

namespace {

Value call1(const Value& f, const Value& x) { return call_value(f, Args{{x}, {}}); }

// Only the keywords in `allowed` may be given.
void expect_keywords(const Args& a, std::initializer_list<const char*> allowed, const char* name) {
    for (const auto& [k, v] : a.keyword) {
        bool ok = false;
        for (const char* n : allowed) ok = ok || k == n;
        if (!ok) throw EvalError(fmt::format("{}() got an unexpected keyword argument '{}'", name, k));
    }
}

Value extremum(const Args& a, bool want_max) {
    const char* name = want_max ? "max" : "min";
    expect_keywords(a, {"key", "default"}, name);
    if (a.size() == 0) throw EvalError(fmt::format("{}() expected at least 1 argument, got 0", name));
    const Value* key = a.find_keyword("key");
    // Without a key, the extremum of a set is one member whatever the order; with one, ties
    // would depend on Python's hash order.
    std::vector<Value> items = a.size() == 1 ? (key ? iterate(a[0]) : iterate_unordered(a[0])) : a.positional;
    if (items.empty()) {
        if (const Value* d = a.find_keyword("default")) return *d;
        throw EvalError(fmt::format("{}() arg is an empty sequence", name));
    }
    Value best = items[0];
    Value best_key = key && !key->is_none() ? call1(*key, best) : best;
    for (std::size_t i = 1; i < items.size(); ++i) {
        Value k = key && !key->is_none() ? call1(*key, items[i]) : items[i];
        if (compare(want_max ? CmpOp::Gt : CmpOp::Lt, k, best_key)) {
            best = items[i];
            best_key = std::move(k);
        }
    }
    return best;
}

Value any_all(const Args& a, bool all) {
    expect_count(a, 1, 1, all ? "all" : "any");
    for (const auto& item : iterate_unordered(a[0]))
        if (item.truthy() != all) return !all;
    return all;
}

// d rounded to a multiple of 10^places (places > 0), ties to the even multiple, from its exact
// decimal expansion (every double has one of at most 1074 fractional digits): Python's round(d,
// -places), 0.0 of d's sign when it rounds to nothing.
double round_to_tens(double d, int places) {
    const std::string exact = fmt::format("{:.1074f}", std::fabs(d));
    const std::string whole = exact.substr(0, exact.find('.'));
    const std::string rest = whole + exact.substr(exact.find('.') + 1);  // every digit, in order
    const auto kept_count = static_cast<std::ptrdiff_t>(whole.size()) - places;
    std::string kept = kept_count > 0 ? whole.substr(0, static_cast<std::size_t>(kept_count)) : std::string("0");
    // What follows the kept digits decides: above half up, below down, exactly half to even.
    int direction = -1;
    if (kept_count >= 0) {
        const auto first = static_cast<std::size_t>(kept_count);
        const char lead = first < rest.size() ? rest[first] : '0';
        const bool more = rest.find_first_not_of('0', first + 1) != std::string::npos;
        direction = lead > '5' || (lead == '5' && more) ? 1 : lead < '5' ? -1 : 0;
    }
    const bool up = direction > 0 || (direction == 0 && (kept.back() - '0') % 2 == 1);
    if (up) {
        std::size_t i = kept.size();
        while (i > 0 && kept[i - 1] == '9') kept[--i] = '0';
        if (i == 0) kept.insert(kept.begin(), '1');
        else ++kept[i - 1];
    }
    const double magnitude = std::strtod((kept + std::string(static_cast<std::size_t>(places), '0')).c_str(), nullptr);
    if (std::isinf(magnitude)) throw EvalError("rounded value too large to represent");  // Python's OverflowError
    return std::copysign(magnitude, d);
}

Value round_(const Args& a) {
    expect_keywords(a, {"ndigits"}, "round");
    if (a.size() < 1 || a.size() > 2) throw EvalError("round() takes 1 or 2 arguments");
    const Value* nd = a.size() == 2 ? &a[1] : a.find_keyword("ndigits");
    const Value& v = a[0];
    if (v.kind() == K::Int || v.kind() == K::Bool) {
        const std::int64_t digits = nd && !nd->is_none() ? int_arg(*nd, "round") : 0;
        if (digits >= 0) return is_big(v) ? v : Value(v.as_int());
        if (digits < -100000) throw EvalError("round() of an int to so many negative digits is not supported");
        // To a multiple of 10^-digits, ties to the even multiple (Python's int.__round__).
        mpz_class unit;
        mpz_ui_pow_ui(unit.get_mpz_t(), 10, static_cast<unsigned long>(-digits));
        mpz_class q, r;
        mpz_fdiv_qr(q.get_mpz_t(), r.get_mpz_t(), to_mpz(v).get_mpz_t(), unit.get_mpz_t());  // r in [0, unit)
        const int half = cmp(2 * r, unit);
        if (half > 0 || (half == 0 && mpz_odd_p(q.get_mpz_t()))) q += 1;
        return make_int(q * unit);
    }
    if (v.kind() != K::Float) throw EvalError(fmt::format("type {} doesn't define __round__ method", v.type_name()));
    const double d = v.as_float();
    if (!nd || nd->is_none()) {
        // Round half to even, as Python does.
        return int_of_double(std::nearbyint(d));
    }
    const std::int64_t digits = int_arg(*nd, "round");
    // CPython's float round: infinities and NaN as they are; past 323 digits the value itself
    // (every double is a multiple of 10^-323 or coarser there); below -308 a zero of its sign.
    if (!std::isfinite(d) || digits > 323) return d;
    if (digits < -308) return 0.0 * d;
    // Python rounds the exact binary value correctly to `digits` decimals: so does printf.
    if (digits >= 0) return std::strtod(fmt::format("{:.{}f}", d, digits).c_str(), nullptr);
    return round_to_tens(d, static_cast<int>(-digits));
}

Value divmod_(const Args& a) {
    expect_count(a, 2, 2, "divmod");
    return Value::tuple({binary(BinOp::FloorDiv, a[0], a[1]), binary(BinOp::Mod, a[0], a[1])});
}

Value pow_(const Args& a) {
    expect_count(a, 2, 3, "pow");
    if (a.size() == 2) return binary(BinOp::Pow, a[0], a[1]);
    if (is_big(a[0]) || is_big(a[1]) || is_big(a[2])) {
        for (std::size_t i = 0; i < 3; ++i)
            if (a[i].kind() != K::Int && a[i].kind() != K::Bool)
                throw EvalError("pow() 3-argument form requires integers");
        const mpz_class m = to_mpz(a[2]), e = to_mpz(a[1]);
        if (m == 0) throw EvalError("pow() 3rd argument cannot be 0");
        if (e < 0) throw EvalError("pow() with a negative exponent and a modulus is not supported");
        mpz_class r;
        mpz_class am = abs(m);
        mpz_powm(r.get_mpz_t(), mpz_class(to_mpz(a[0])).get_mpz_t(), e.get_mpz_t(), am.get_mpz_t());
        // Python's result has the sign of the modulus.
        if (m < 0 && r != 0) r -= am;
        return make_int(r);
    }
    std::int64_t base = int_arg(a[0], "pow"), e = int_arg(a[1], "pow"), m = int_arg(a[2], "pow");
    if (m == 0) throw EvalError("pow() 3rd argument cannot be 0");
    if (e < 0) throw EvalError("pow() with a negative exponent and a modulus is not supported");
    // Modular exponentiation on |m| in unsigned arithmetic (products by doubling, so nothing overflows).
    const std::uint64_t um = m < 0 ? 0 - static_cast<std::uint64_t>(m) : static_cast<std::uint64_t>(m);
    auto mulmod = [um](std::uint64_t x, std::uint64_t y) {
        std::uint64_t r = 0;
        x %= um;
        while (y > 0) {
            if (y & 1) r = r >= um - x ? r - (um - x) : r + x;
            x = x >= um - x ? x - (um - x) : x + x;
            y >>= 1;
        }
        return r;
    };
    // base mod |m| in [0, |m|), from |base| in unsigned arithmetic: base % m itself traps for
    // pow(-2**63, e, -1) (INT64_MIN % -1 overflows).
    const std::uint64_t magnitude = base < 0 ? 0 - static_cast<std::uint64_t>(base) : static_cast<std::uint64_t>(base);
    const std::uint64_t magnitude_mod = magnitude % um;
    std::uint64_t b = base < 0 && magnitude_mod != 0 ? um - magnitude_mod : magnitude_mod;
    std::uint64_t result = 1 % um;
    while (e > 0) {
        if (e & 1) result = mulmod(result, b);
        b = mulmod(b, b);
        e >>= 1;
    }
    // Python's result has the sign of the modulus.
    if (m < 0 && result != 0) return -static_cast<std::int64_t>(um - result);
    return static_cast<std::int64_t>(result);
}

Value int_in_base(const Args& a, const char* name, int base) {
    expect_count(a, 1, 1, name);
    if (a[0].kind() != K::Int && a[0].kind() != K::Bool)
        throw EvalError(fmt::format("'{}' object cannot be interpreted as an integer", a[0].type_name()));
    const mpz_class v = to_mpz(a[0]);
    const std::string digits = mpz_class(abs(v)).get_str(base);
    return make_string(std::string(v < 0 ? "-" : "") + (base == 16 ? "0x" : base == 8 ? "0o" : "0b") + digits);
}

Value isinstance_(const Args& a) {
    expect_count(a, 2, 2, "isinstance");
    std::vector<Value> types = a[1].kind() == K::Tuple ? a[1].as_list() : std::vector<Value>{a[1]};
    const K kind = a[0].kind();
    for (const Value& t : types) {
        auto is = [&](const char* name) {
            const Value* b = find_builtin(name);
            return b && *b == t;
        };
        if (is("int") && (kind == K::Int || kind == K::Bool)) return true;
        if (is("bool") && kind == K::Bool) return true;
        if (is("float") && kind == K::Float) return true;
        if (is("str") && kind == K::String) return true;
        if (is("list") && kind == K::List) return true;
        if (is("tuple") && kind == K::Tuple) return true;
        if (is("dict") && kind == K::Dict) return true;
        if (is("set") && kind == K::Set) return true;
        const bool known =
            is("int") || is("bool") || is("float") || is("str") || is("list") || is("tuple") || is("dict") || is("set");
        if (!known)
            throw EvalError("isinstance() arg 2 must be a type (int, bool, float, str, list, tuple, dict or set) or a "
                            "tuple of them");
    }
    return false;
}

Value to_dict(const Args& a) {
    if (a.size() > 1) throw EvalError("dict expected at most 1 argument");
    DictItems items;
    if (a.size() == 1) {
        if (a[0].kind() == K::Dict) {
            items = a[0].as_dict();
        } else {
            for (const auto& pair : iterate(a[0])) {
                const auto kv = iterate(pair);
                if (kv.size() != 2)
                    throw EvalError("dictionary update sequence element has the wrong length; 2 is required");
                items.set(kv[0], kv[1]);
            }
        }
    }
    for (const auto& [k, v] : a.keyword) items.set(k, v);
    return Value::dict(std::move(items));
}

Value map_(const Args& a) {
    if (a.size() < 2 || !a.keyword.empty()) throw EvalError("map() must have at least two arguments");
    std::vector<std::vector<Value>> seqs;
    std::size_t n = SIZE_MAX;
    for (std::size_t i = 1; i < a.size(); ++i) {
        seqs.push_back(iterate(a[i]));
        n = std::min(n, seqs.back().size());
    }
    std::vector<Value> out;
    for (std::size_t i = 0; i < n; ++i) {
        Args args;
        for (auto& s : seqs) args.positional.push_back(s[i]);
        out.push_back(call_value(a[0], args));
    }
    return Value::list(std::move(out));
}

Value filter_(const Args& a) {
    expect_count(a, 2, 2, "filter");
    std::vector<Value> out;
    for (const auto& item : iterate(a[1]))
        if (a[0].is_none() ? item.truthy() : call1(a[0], item).truthy()) out.push_back(item);
    return Value::list(std::move(out));
}

Value ord_(const Args& a) {
    expect_count(a, 1, 1, "ord");
    if (a[0].kind() != K::String)
        throw EvalError(fmt::format("ord() expected string of length 1, but {} found", a[0].type_name()));
    const std::string& s = a[0].as_string();
    if (code_point_count(s) != 1) throw EvalError("ord() expected a character");
    const auto u = static_cast<unsigned char>(s[0]);
    std::uint32_t cp = u < 0x80 ? u : u < 0xE0 ? u & 0x1F : u < 0xF0 ? u & 0x0F : u & 0x07;
    for (std::size_t i = 1; i < s.size(); ++i) cp = (cp << 6) | (static_cast<unsigned char>(s[i]) & 0x3F);
    return static_cast<std::int64_t>(cp);
}

Value chr_(const Args& a) {
    expect_count(a, 1, 1, "chr");
    return Value(format_value(Value(int_arg(a[0], "chr")), "c"));
}

Value format_(const Args& a) {
    expect_count(a, 1, 2, "format");
    if (a.size() == 2 && a[1].kind() != K::String) throw EvalError("format() argument 2 must be str");
    return make_string(format_value(a[0], a.size() == 2 ? a[1].as_string() : std::string()));
}

Value callable_(const Args& a) {
    expect_count(a, 1, 1, "callable");
    if (a[0].kind() == K::Object) return dynamic_cast<const TypeObject*>(a[0].as_object().get()) != nullptr;
    return a[0].kind() == K::Callable || a[0].kind() == K::Module || a[0].kind() == K::Snippet;
}

Value type_(const Args& a) {
    expect_count(a, 1, 1, "type");
    const Value& v = a[0];
    std::string name;
    switch (v.kind()) {
    case K::None: name = "NoneType"; break;
    case K::Callable: name = "function"; break;
    default: name = v.type_name();
    }
    // The builtin itself where there is one, so that `type(x) is int` holds.
    if (const Value* b = find_builtin(name); b && b->kind() == K::Object) {
        if (const auto* type = dynamic_cast<const TypeObject*>(b->as_object().get()); type && type->name() == name)
            return *b;
    }
    return Value(std::make_shared<TypeObject>(name, nullptr));
}

Value getattr_(const Args& a) {
    expect_count(a, 2, 3, "getattr");
    if (a[1].kind() != K::String) throw EvalError("getattr(): attribute name must be string");
    try {
        return attribute(a[0], a[1].as_string());
    } catch (const kjarni::Error&) {
        if (a.size() == 3) return a[2];
        throw;
    }
}

Value hasattr_(const Args& a) {
    expect_count(a, 2, 2, "hasattr");
    if (a[1].kind() != K::String) throw EvalError("hasattr(): attribute name must be string");
    try {
        attribute(a[0], a[1].as_string());
        return true;
    } catch (const kjarni::Error&) {
        return false;
    }
}

Value iter_(const Args& a) {
    expect_count(a, 1, 1, "iter");
    const Value& v = a[0];
    if (v.kind() == K::Object && dynamic_cast<const IteratorObject*>(v.as_object().get())) return v;
    if (v.kind() == K::List || v.kind() == K::Tuple) return Value(std::make_shared<IteratorObject>(v));
    return Value(std::make_shared<IteratorObject>(Value::tuple(iterate(v))));
}

Value next_(const Args& a) {
    expect_count(a, 1, 2, "next");
    const auto* it = a[0].kind() == K::Object ? dynamic_cast<const IteratorObject*>(a[0].as_object().get()) : nullptr;
    if (!it) throw EvalError(fmt::format("'{}' object is not an iterator", a[0].type_name()));
    if (const Value* v = it->next()) return *v;
    if (a.size() == 2) return a[1];
    throw EvalError("StopIteration");
}

// The types that are also conversions (`int(x)`, `isinstance(x, int)`, `type(x) is int`).
Value type_value(const char* name, Function make) { return Value(std::make_shared<TypeObject>(name, std::move(make))); }

Value abs_(const Args& a) {
    expect_count(a, 1, 1, "abs");
    const Value& v = a[0];
    if (v.kind() == K::Float) return std::fabs(v.as_float());
    if (const auto c = complex_parts(v)) return std::hypot(c->real, c->imag);
    if (v.kind() == K::Int || v.kind() == K::Bool) {
        if (is_big(v) || v.as_int() == INT64_MIN) return make_int(abs(to_mpz(v)));
        std::int64_t i = v.as_int();
        return i < 0 ? -i : i;
    }
    throw EvalError(fmt::format("bad operand type for abs(): '{}'", v.type_name()));
}

Value enumerate(const Args& a) {
    if (a.size() < 1 || a.size() > 2)
        throw EvalError(fmt::format("enumerate() takes 1 or 2 arguments ({} given)", a.size()));
    std::int64_t start = 0;
    if (a.size() == 2) start = int_arg(a[1], "enumerate");
    if (const Value* s = a.find_keyword("start")) start = int_arg(*s, "enumerate");
    std::vector<Value> out;
    for (auto& item : iterate(a[0])) {
        out.push_back(Value::tuple({Value(start), item}));
        if (start == INT64_MAX) throw EvalError("enumerate() count beyond 64 bits is not supported");
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
    // The sum of a set of ints is exact in any order; of floats it would depend on Python's order.
    std::vector<Value> items = iterate_unordered(a[0]);
    if (a[0].kind() == K::Set && items.size() > 1)
        for (const auto& item : items)
            if (item.kind() != K::Int && item.kind() != K::Bool) items = iterate(a[0]);  // refuses
    for (const auto& item : items) total = binary(BinOp::Add, total, item);
    return total;
}

Value sorted(const Args& a) {
    expect_keywords(a, {"key", "reverse"}, "sorted");
    if (a.size() != 1)
        throw EvalError(fmt::format("sorted() takes exactly 1 positional argument ({} given)", a.size()));
    const Value* reverse = a.find_keyword("reverse");
    const Value* key = a.find_keyword("key");
    // With a key, ties between members of a set would keep Python's hash order: refused.
    const bool ordered = key && !key->is_none();
    return Value::list(
        sort_values(ordered ? iterate(a[0]) : iterate_unordered(a[0]), key, reverse && reverse->truthy()));
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
        {"str", type_value("str", to_str)},
        {"repr", Value(Function(to_repr))},
        {"ascii", Value(Function(to_ascii))},
        {"int", type_value("int", to_int)},
        {"float", type_value("float", to_float)},
        {"bool", type_value("bool", to_bool)},
        {"list", type_value("list", to_list)},
        {"tuple", type_value("tuple", to_tuple)},
        {"set", type_value("set", to_set)},
        {"min", Value(Function([](const Args& a) { return extremum(a, false); }))},
        {"max", Value(Function([](const Args& a) { return extremum(a, true); }))},
        {"abs", Value(Function(abs_))},
        {"complex", Value(Function(complex_builtin))},
        {"enumerate", Value(Function(enumerate))},
        {"zip", Value(Function(zip))},
        {"sum", Value(Function(sum))},
        {"sorted", Value(Function(sorted))},
        {"reversed", Value(Function(reversed))},
        {"any", Value(Function([](const Args& a) { return any_all(a, false); }))},
        {"all", Value(Function([](const Args& a) { return any_all(a, true); }))},
        {"round", Value(Function(round_))},
        {"divmod", Value(Function(divmod_))},
        {"pow", Value(Function(pow_))},
        {"hex", Value(Function([](const Args& a) { return int_in_base(a, "hex", 16); }))},
        {"oct", Value(Function([](const Args& a) { return int_in_base(a, "oct", 8); }))},
        {"bin", Value(Function([](const Args& a) { return int_in_base(a, "bin", 2); }))},
        {"isinstance", Value(Function(isinstance_))},
        {"dict", type_value("dict", to_dict)},
        {"map", Value(Function(map_))},
        {"filter", Value(Function(filter_))},
        {"ord", Value(Function(ord_))},
        {"chr", Value(Function(chr_))},
        {"format", Value(Function(format_))},
        {"callable", Value(Function(callable_))},
        {"type", Value(Function(type_))},
        {"getattr", Value(Function(getattr_))},
        {"hasattr", Value(Function(hasattr_))},
        {"iter", Value(Function(iter_))},
        {"next", Value(Function(next_))},
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
