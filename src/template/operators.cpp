// Arithmetic with Python's rules (floor division and modulo round towards minus infinity, / is
// true division, int ** negative int is a float), overflow-checked 64-bit integers, sequence
// concatenation and repetition, comparisons and membership.

#include "operators.hpp"

#include "bigint.hpp"
#include "builtins.hpp"
#include "casemap.hpp"
#include "complex.hpp"
#include "errors.hpp"
#include "formatting.hpp"
#include "limits.hpp"
#include "ownership.hpp"
#include "runtime_objects.hpp"
#include "utf8.hpp"

#include <cstring>

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <unordered_map>

namespace kjarni::tmpl {

namespace {

using K = Value::Kind;

bool is_int(const Value& v) { return v.kind() == K::Int || v.kind() == K::Bool; }
bool is_number(const Value& v) { return is_int(v) || v.kind() == K::Float; }
bool is_seq(const Value& v) { return v.kind() == K::List || v.kind() == K::Tuple; }

const char* op_symbol(BinOp op) {
    switch (op) {
    case BinOp::Add: return "+";
    case BinOp::Sub: return "-";
    case BinOp::Mul: return "*";
    case BinOp::Div: return "/";
    case BinOp::FloorDiv: return "//";
    case BinOp::Mod: return "%";
    case BinOp::Pow: return "**";
    case BinOp::BitOr: return "|";
    case BinOp::BitXor: return "^";
    case BinOp::BitAnd: return "&";
    case BinOp::Shl: return "<<";
    case BinOp::Shr: return ">>";
    }
    return "?";
}

[[noreturn]] void unsupported(BinOp op, const Value& a, const Value& b) {
    throw EvalError(
        fmt::format("unsupported operand types for {}: '{}' and '{}'", op_symbol(op), a.type_name(), b.type_name()));
}

// Integers beyond 64 bits (GMP), with Python's rules: // and % round towards minus infinity,
// bitwise operations act on the infinite two's complement, / rounds the exact quotient once.
double true_divide(const mpz_class& x, const mpz_class& y) {
    if (y == 0) throw EvalError("division by zero");
    const bool negative = (x < 0) != (y < 0);
    if (x == 0) return negative ? -0.0 : 0.0;
    // q = |x| * 2^s / |y| with at least 55 significant bits (or, for a quotient below 2^-1022,
    // its bits down to 2^-1076), then rounded once, half to even with the remainder as a sticky
    // bit, to 53 bits or to the unit 2^-1074 of the subnormals, whichever is coarser: the exact
    // quotient rounded once, as Python's int / int, for quotients of any size.
    const mpz_class a = abs(x), b = abs(y);
    const auto bits_of = [](const mpz_class& v) { return static_cast<long>(mpz_sizeinbase(v.get_mpz_t(), 2)); };
    const long s = std::min(55 - (bits_of(a) - bits_of(b)), 1076L);
    mpz_class num = a, den = b;
    if (s >= 0) num <<= static_cast<mp_bitcnt_t>(s);
    else den <<= static_cast<mp_bitcnt_t>(-s);
    mpz_class q, r;
    mpz_tdiv_qr(q.get_mpz_t(), r.get_mpz_t(), num.get_mpz_t(), den.get_mpz_t());
    // At least 2 bits to drop: q has 55 or more (uncapped s), or s - 1074 is 2 (capped).
    const long drop = std::max(bits_of(q) - 53, s - 1074);
    mpz_class low;
    mpz_fdiv_r_2exp(low.get_mpz_t(), q.get_mpz_t(), static_cast<mp_bitcnt_t>(drop));
    q >>= static_cast<mp_bitcnt_t>(drop);
    const mpz_class half = mpz_class(1) << static_cast<mp_bitcnt_t>(drop - 1);
    if (low > half || (low == half && (r != 0 || mpz_odd_p(q.get_mpz_t()) != 0))) q += 1;
    // q has at most 53 bits (2^53 after rounding up): exact as a double, and so is the scaling
    // unless it overflows.
    const double mag = std::ldexp(q.get_d(), static_cast<int>(drop - s));
    if (std::isinf(mag)) throw EvalError("integer division result too large for a float");
    return negative ? -mag : mag;
}

Value big_binary(BinOp op, const Value& a, const Value& b) {
    const mpz_class x = to_mpz(a), y = to_mpz(b);
    auto bits = [](const mpz_class& v) { return mpz_sizeinbase(v.get_mpz_t(), 2); };
    switch (op) {
    case BinOp::Add: return make_int(x + y);
    case BinOp::Sub: return make_int(x - y);
    case BinOp::Mul:
        if (x != 0 && y != 0 && bits(x) + bits(y) > max_int_bits + 1) int_too_large();
        return make_int(x * y);
    case BinOp::Div: return true_divide(x, y);
    case BinOp::FloorDiv: {
        if (y == 0) throw EvalError("integer division by zero");
        mpz_class q;
        mpz_fdiv_q(q.get_mpz_t(), x.get_mpz_t(), y.get_mpz_t());
        return make_int(q);
    }
    case BinOp::Mod: {
        if (y == 0) throw EvalError("integer modulo by zero");
        mpz_class r;
        mpz_fdiv_r(r.get_mpz_t(), x.get_mpz_t(), y.get_mpz_t());
        return make_int(r);
    }
    case BinOp::Pow: {
        if (y < 0) {
            if (x == 0) throw EvalError("0 cannot be raised to a negative power");
            return std::pow(a.as_float(), b.as_float());
        }
        if (x == 0 || x == 1) return make_int(x);
        if (x == -1) return make_int(mpz_class(y % 2 == 0 ? 1 : -1));
        // The result has more than (bits(x) - 1) * y bits: refuse before computing it.
        if (y > static_cast<unsigned long>(max_int_bits) || (bits(x) - 1) * y.get_ui() > max_int_bits) int_too_large();
        mpz_class r;
        mpz_pow_ui(r.get_mpz_t(), x.get_mpz_t(), y.get_ui());
        return make_int(r);
    }
    case BinOp::BitOr: return make_int(x | y);
    case BinOp::BitXor: return make_int(x ^ y);
    case BinOp::BitAnd: return make_int(x & y);
    case BinOp::Shl: {
        if (y < 0) throw EvalError("negative shift count");
        if (x == 0) return Value(std::int64_t{0});
        if (y > static_cast<unsigned long>(max_int_bits)) int_too_large();
        mpz_class r;
        mpz_mul_2exp(r.get_mpz_t(), x.get_mpz_t(), y.get_ui());
        return make_int(r);
    }
    case BinOp::Shr: {
        if (y < 0) throw EvalError("negative shift count");
        if (y > static_cast<unsigned long>(max_int_bits)) return Value(std::int64_t{x < 0 ? -1 : 0});
        mpz_class r;
        mpz_fdiv_q_2exp(r.get_mpz_t(), x.get_mpz_t(), y.get_ui());
        return make_int(r);
    }
    }
    return Value();
}

// The checked 64-bit operations: nullopt when the result does not fit (then GMP computes it).
std::optional<std::int64_t> add(std::int64_t a, std::int64_t b) {
    std::int64_t r;
    if (__builtin_add_overflow(a, b, &r)) return std::nullopt;
    return r;
}
std::optional<std::int64_t> sub(std::int64_t a, std::int64_t b) {
    std::int64_t r;
    if (__builtin_sub_overflow(a, b, &r)) return std::nullopt;
    return r;
}
std::optional<std::int64_t> mul(std::int64_t a, std::int64_t b) {
    std::int64_t r;
    if (__builtin_mul_overflow(a, b, &r)) return std::nullopt;
    return r;
}

std::optional<std::int64_t> int_pow(std::int64_t base, std::int64_t exp) {
    std::int64_t result = 1;
    while (exp > 0) {
        if (exp & 1) {
            auto r = mul(result, base);
            if (!r) return std::nullopt;
            result = *r;
        }
        exp >>= 1;
        if (exp > 0) {
            auto b2 = mul(base, base);
            if (!b2) return std::nullopt;
            base = *b2;
        }
    }
    return result;
}

Value repeat(const std::vector<Value>& items, std::int64_t n, bool tuple) {
    std::vector<Value> out;
    if (n > 0 && !items.empty()) {
        if (static_cast<std::uint64_t>(n) > limits().max_items / items.size())
            throw EvalError("list too long (render limit)");
        out.reserve(items.size() * static_cast<std::size_t>(n));
        for (std::int64_t i = 0; i < n; ++i) out.insert(out.end(), items.begin(), items.end());
    }
    return tuple ? Value::tuple(std::move(out)) : Value::list(std::move(out));
}

Value repeat(const std::string& s, std::int64_t n) {
    if (n <= 0 || s.empty()) return Value(std::string());
    if (static_cast<std::uint64_t>(n) > limits().max_string / s.size())
        throw EvalError("string too long (render limit)");
    std::string out;
    out.reserve(s.size() * static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) out += s;
    return Value(std::move(out));
}

// CPython's float_divmod: the quotient from fmod's exact remainder, snapped to an integer (so
// 4 // 0.2 is 19.0, as 4 is 19 * 0.2 plus a little, where floor(4 / 0.2) would be 20.0), the
// remainder with the divisor's sign (a zero one too: 0.0 % -1.0 is -0.0).
std::pair<double, double> float_divmod(double x, double y) {
    double mod = std::fmod(x, y);
    double div = (x - mod) / y;
    if (mod != 0.0) {
        if ((y < 0) != (mod < 0)) {
            mod += y;
            div -= 1.0;
        }
    } else {
        mod = std::copysign(0.0, y);
    }
    double floordiv;
    if (div != 0.0) {
        floordiv = std::floor(div);
        if (div - floordiv > 0.5) floordiv += 1.0;
    } else {
        floordiv = std::copysign(0.0, x / y);
    }
    return {floordiv, mod};
}

std::optional<std::int64_t> floor_div(std::int64_t a, std::int64_t b) {
    if (b == 0) throw EvalError("integer division by zero");
    if (a == INT64_MIN && b == -1) return std::nullopt;
    std::int64_t q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
    return q;
}

std::int64_t floor_mod(std::int64_t a, std::int64_t b) {
    if (b == 0) throw EvalError("integer modulo by zero");
    if (b == -1) return 0;
    std::int64_t r = a % b;
    if (r != 0 && ((r < 0) != (b < 0))) r += b;
    return r;
}

// Three-way comparison for < <= > >=, as Python orders numbers, strings and sequences.
int order(const Value& a, const Value& b) {
    if (is_number(a) && is_number(b)) {
        if (is_int(a) && is_int(b)) {
            if (is_big(a) || is_big(b)) {
                const int c = cmp(to_mpz(a), to_mpz(b));
                return c < 0 ? -1 : c > 0 ? 1 : 0;
            }
            std::int64_t x = a.as_int(), y = b.as_int();
            return x < y ? -1 : x > y ? 1 : 0;
        }
        if (is_big(a) || is_big(b)) {
            // Exactly, as Python compares a big int with a float.
            const bool float_first = a.kind() == K::Float;
            const double d = (float_first ? a : b).as_float();
            if (std::isnan(d)) return 2;
            int c = std::isinf(d) ? (d > 0 ? -1 : 1) : cmp(to_mpz(float_first ? b : a), d);
            c = c < 0 ? -1 : c > 0 ? 1 : 0;
            return float_first ? -c : c;
        }
        double x = a.as_float(), y = b.as_float();
        if (std::isnan(x) || std::isnan(y)) return 2;  // unordered: every comparison is false
        return x < y ? -1 : x > y ? 1 : 0;
    }
    if (a.kind() == K::String && b.kind() == K::String) {
        int c = a.as_string().compare(b.as_string());
        return c < 0 ? -1 : c > 0 ? 1 : 0;
    }
    if (is_seq(a) && a.kind() == b.kind()) {
        const auto& x = a.as_list();
        const auto& y = b.as_list();
        for (std::size_t i = 0; i < x.size() && i < y.size(); ++i) {
            if (x[i] == y[i]) continue;  // (== stops at Python's recursion depth: so does this)
            return order(x[i], y[i]);
        }
        return x.size() < y.size() ? -1 : x.size() > y.size() ? 1 : 0;
    }
    throw EvalError(fmt::format("'<' not supported between instances of '{}' and '{}'", a.type_name(), b.type_name()));
}

bool contains(const Value& container, const Value& item) {
    switch (container.kind()) {
    case K::String:
        if (item.kind() != K::String)
            throw EvalError(fmt::format("'in <string>' requires string as left operand, not {}", item.type_name()));
        return container.as_string().find(item.as_string()) != std::string::npos;
    case K::List:
    case K::Tuple:
        return std::find(container.as_list().begin(), container.as_list().end(), item) != container.as_list().end();
    case K::Dict: return container.as_dict().find(item) != nullptr;
    case K::Set: {
        check_hashable(item);
        const auto& items = container.as_set();
        return std::find(items.begin(), items.end(), item) != items.end();
    }
    default: throw EvalError(fmt::format("argument of type '{}' is not iterable", container.type_name()));
    }
}

std::int64_t normalize_index(std::int64_t i, std::size_t size) {
    auto n = static_cast<std::int64_t>(size);
    if (i < 0) i += n;
    if (i < 0 || i >= n) throw EvalError("index out of range");
    return i;
}

void expect_args(const Args& args, std::size_t min, std::size_t max, const char* name) {
    if (!args.keyword.empty()) throw EvalError(fmt::format("{}() takes no keyword arguments", name));
    if (args.size() < min || args.size() > max) {
        if (min == max)
            throw EvalError(
                fmt::format("{}() takes {} argument{} ({} given)", name, min, min == 1 ? "" : "s", args.size()));
        throw EvalError(fmt::format("{}() takes {} to {} arguments ({} given)", name, min, max, args.size()));
    }
}

// Byte offset -> index in code points (Python's str indices).
std::int64_t cp_index(const std::string& s, std::size_t byte) {
    return static_cast<std::int64_t>(code_point_count(std::string_view(s).substr(0, byte)));
}

// Python's [start:end] of a str method, as byte offsets.
std::pair<std::size_t, std::size_t> byte_range(const std::string& s, const Args& a, std::size_t first) {
    const auto points = code_points(s);
    const auto n = static_cast<std::int64_t>(points.size());
    auto bound = [&](std::size_t i, std::int64_t dflt) {
        if (a.size() <= i || a[i].is_none()) return dflt;
        std::int64_t v = a[i].as_int();
        if (v < 0) v = std::max<std::int64_t>(v + n, 0);
        return std::min(v, n);
    };
    const std::int64_t b = bound(first, 0);
    const std::int64_t e = std::max(bound(first + 1, n), b);
    std::size_t bb = 0, eb = 0;
    for (std::int64_t i = 0; i < n; ++i) {
        if (i < b) bb += points[static_cast<std::size_t>(i)].size();
        if (i < e) eb += points[static_cast<std::size_t>(i)].size();
    }
    return {bb, eb};
}

// Python's str whitespace (str.isspace, strip() and split() without arguments): the ASCII
// controls \t-\r and \x1c-\x1f, the space, and the Unicode separators (NEL, no-break space,
// ogham space mark, the spaces U+2000-U+200A, line and paragraph separators, narrow no-break,
// medium mathematical and ideographic spaces).
bool is_python_space(std::uint32_t cp) {
    if (cp < 0x80) return (cp >= 0x09 && cp <= 0x0d) || (cp >= 0x1c && cp <= 0x20);
    return cp == 0x85 || cp == 0xa0 || cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200a) || cp == 0x2028 || cp == 0x2029 ||
           cp == 0x202f || cp == 0x205f || cp == 0x3000;
}

// Python's line boundaries (str.splitlines): \n, \r (and \r\n as one), \v, \f, \x1c-\x1e, NEL
// and the line and paragraph separators.
bool is_python_line_break(std::uint32_t cp) {
    return cp == 0x0a || cp == 0x0b || cp == 0x0c || cp == 0x0d || cp == 0x1c || cp == 0x1d || cp == 0x1e ||
           cp == 0x85 || cp == 0x2028 || cp == 0x2029;
}

std::vector<Value> split_on(const std::string& s, const Value* sep, std::int64_t maxsplit, bool from_right) {
    std::vector<std::string> parts;
    if (!sep || sep->is_none()) {
        // Runs of whitespace separate; none at the ends.
        std::vector<std::pair<std::size_t, std::size_t>> words;
        std::size_t word_start = std::string::npos;
        for (std::size_t i = 0; i < s.size();) {
            const std::size_t at = i;
            const bool space = is_python_space(decode_utf8(s, i));
            if (space && word_start != std::string::npos) {
                words.emplace_back(word_start, at);
                word_start = std::string::npos;
            } else if (!space && word_start == std::string::npos) {
                word_start = at;
            }
        }
        if (word_start != std::string::npos) words.emplace_back(word_start, s.size());
        // Python's: once maxsplit words are split off, the rest is one part from its first word to
        // the string's end (rsplit: from the string's start to its last word), keeping the
        // whitespace on that side (' a b '.split(None, 1) is ['a', 'b ']).
        const std::size_t n = words.size();
        const auto word = [&](std::size_t k) { return s.substr(words[k].first, words[k].second - words[k].first); };
        if (maxsplit < 0 || static_cast<std::size_t>(maxsplit) >= n) {
            for (std::size_t k = 0; k < n; ++k) parts.push_back(word(k));
        } else if (!from_right) {
            const auto split_off = static_cast<std::size_t>(maxsplit);
            for (std::size_t k = 0; k < split_off; ++k) parts.push_back(word(k));
            parts.push_back(s.substr(words[split_off].first));
        } else {
            const std::size_t rest_end = n - 1 - static_cast<std::size_t>(maxsplit);
            parts.push_back(s.substr(0, words[rest_end].second));
            for (std::size_t k = rest_end + 1; k < n; ++k) parts.push_back(word(k));
        }
    } else {
        const std::string& p = sep->as_string();
        if (p.empty()) throw EvalError("empty separator");
        std::vector<std::size_t> hits;
        for (std::size_t i = s.find(p); i != std::string::npos; i = s.find(p, i + p.size())) hits.push_back(i);
        if (maxsplit >= 0 && hits.size() > static_cast<std::size_t>(maxsplit)) {
            if (from_right) hits.erase(hits.begin(), hits.end() - maxsplit);
            else hits.resize(static_cast<std::size_t>(maxsplit));
        }
        std::size_t from = 0;
        for (std::size_t h : hits) {
            parts.push_back(s.substr(from, h - from));
            from = h + p.size();
        }
        parts.push_back(s.substr(from));
    }
    std::vector<Value> out;
    for (auto& part : parts) out.emplace_back(std::move(part));
    return out;
}

Value more_string_methods(const std::shared_ptr<const std::string>& s, const std::string& name) {
    auto method = [](auto f) { return Value(Function(std::move(f))); };
    if (name == "find" || name == "rfind" || name == "index" || name == "rindex" || name == "count")
        return method([s, name](const Args& a) {
            expect_args(a, 1, 3, name.c_str());
            const std::string& sub = a[0].as_string();
            auto [b, e] = byte_range(*s, a, 1);
            const std::string_view hay = std::string_view(*s).substr(b, e - b);
            if (name == "count") {
                if (sub.empty()) return Value(static_cast<std::int64_t>(code_point_count(hay)) + 1);
                std::int64_t n = 0;
                for (std::size_t i = hay.find(sub); i != std::string_view::npos; i = hay.find(sub, i + sub.size())) ++n;
                return Value(n);
            }
            const std::size_t at = name[0] == 'r' ? hay.rfind(sub) : hay.find(sub);
            if (at == std::string_view::npos) {
                if (name == "index" || name == "rindex") throw EvalError("substring not found");
                return Value(-1);
            }
            return Value(cp_index(*s, b + at));
        });
    if (name == "replace")
        return method([s](const Args& a) {
            expect_args(a, 2, 3, "replace");
            const std::string& from = a[0].as_string();
            const std::string& to = a[1].as_string();
            std::int64_t count = a.size() == 3 ? a[2].as_int() : -1;
            if (from.empty()) throw EvalError("replace() with an empty pattern is not supported");
            std::string out;
            std::size_t i = 0;
            while (true) {
                std::size_t j = count == 0 ? std::string::npos : s->find(from, i);
                out.append(*s, i, j == std::string::npos ? std::string::npos : j - i);
                if (out.size() > limits().max_string) throw EvalError("string too long (render limit)");
                if (j == std::string::npos) break;
                out += to;
                i = j + from.size();
                if (count > 0) --count;
            }
            return Value(std::move(out));
        });
    if (name == "startswith" || name == "endswith")
        return method([s, starts = name == "startswith"](const Args& a) {
            expect_args(a, 1, 3, starts ? "startswith" : "endswith");
            auto [b, e] = byte_range(*s, a, 1);
            const std::string_view hay = std::string_view(*s).substr(b, e - b);
            std::vector<Value> options = a[0].kind() == K::Tuple ? a[0].as_list() : std::vector<Value>{a[0]};
            for (const Value& o : options) {
                const std::string& p = o.as_string();
                if (p.size() > hay.size()) continue;
                if (starts ? hay.substr(0, p.size()) == p : hay.substr(hay.size() - p.size()) == p) return Value(true);
            }
            return Value(false);
        });
    if (name == "strip" || name == "lstrip" || name == "rstrip")
        return method([s, name](const Args& a) {
            expect_args(a, 0, 1, name.c_str());
            // By code point: the given characters, or Python's whitespace.
            const bool given = a.size() && !a[0].is_none();
            const std::vector<std::string_view> chars =
                given ? code_points(a[0].as_string()) : std::vector<std::string_view>{};
            const auto stripped = [&](std::string_view point) {
                if (given) return std::find(chars.begin(), chars.end(), point) != chars.end();
                std::size_t i = 0;
                return is_python_space(decode_utf8(point, i));
            };
            const std::vector<std::string_view> points = code_points(*s);
            std::size_t first = 0, last = points.size();  // code points [first, last) stay
            if (name != "rstrip")
                while (first < last && stripped(points[first])) ++first;
            if (name != "lstrip")
                while (last > first && stripped(points[last - 1])) --last;
            if (first == last) return Value(std::string());
            return Value(std::string(points[first].data(), points[last - 1].data() + points[last - 1].size()));
        });
    if (name == "split" || name == "rsplit")
        return method([s, right = name == "rsplit"](const Args& a) {
            if (a.size() > 2) throw EvalError("split() takes at most 2 arguments");
            const Value* sep = a.size() >= 1 ? &a[0] : a.find_keyword("sep");
            const Value* maxsplit = a.size() == 2 ? &a[1] : a.find_keyword("maxsplit");
            return Value::list(split_on(*s, sep, maxsplit ? maxsplit->as_int() : -1, right));
        });
    if (name == "splitlines")
        return method([s](const Args& a) {
            expect_args(a, 0, 1, "splitlines");
            const bool keep = a.size() && a[0].truthy();
            std::vector<Value> out;
            std::size_t line = 0;
            for (std::size_t i = 0; i < s->size();) {
                const std::size_t at = i;
                const std::uint32_t cp = decode_utf8(*s, i);
                if (!is_python_line_break(cp)) continue;
                if (cp == '\r' && i < s->size() && (*s)[i] == '\n') ++i;
                out.emplace_back(s->substr(line, (keep ? i : at) - line));
                line = i;
            }
            if (line < s->size()) out.emplace_back(s->substr(line));
            return Value::list(std::move(out));
        });
    if (name == "ljust" || name == "rjust" || name == "center")
        return method([s, name](const Args& a) {
            expect_args(a, 1, 2, name.c_str());
            const std::string fill = a.size() == 2 ? a[1].as_string() : std::string(" ");
            if (code_point_count(fill) != 1) throw EvalError("The fill character must be exactly one character long");
            const std::int64_t width = a[0].as_int();
            const auto len = static_cast<std::int64_t>(code_point_count(*s));
            if (width <= len) return Value(*s);
            if (static_cast<std::size_t>(width) > limits().max_string)
                throw EvalError("string too long (render limit)");
            const auto pad = static_cast<std::size_t>(width - len);
            std::size_t left = name == "ljust"   ? 0
                               : name == "rjust" ? pad
                                                 : pad / 2 + (pad & static_cast<std::size_t>(width) & 1);
            std::string out;
            for (std::size_t i = 0; i < left; ++i) out += fill;
            out += *s;
            for (std::size_t i = left; i < pad; ++i) out += fill;
            return Value(std::move(out));
        });
    if (name == "zfill")
        return method([s](const Args& a) {
            expect_args(a, 1, 1, "zfill");
            const std::int64_t width = a[0].as_int();
            const auto len = static_cast<std::int64_t>(code_point_count(*s));
            if (width <= len) return Value(*s);
            if (static_cast<std::size_t>(width) > limits().max_string)
                throw EvalError("string too long (render limit)");
            std::string out = *s;
            const std::size_t at = !out.empty() && (out[0] == '-' || out[0] == '+') ? 1 : 0;
            out.insert(at, static_cast<std::size_t>(width - len), '0');
            return Value(std::move(out));
        });
    if (name == "partition" || name == "rpartition")
        return method([s, right = name == "rpartition"](const Args& a) {
            expect_args(a, 1, 1, right ? "rpartition" : "partition");
            const std::string& sep = a[0].as_string();
            if (sep.empty()) throw EvalError("empty separator");
            const std::size_t at = right ? s->rfind(sep) : s->find(sep);
            if (at == std::string::npos)
                return right ? Value::tuple({std::string(), std::string(), *s})
                             : Value::tuple({*s, std::string(), std::string()});
            return Value::tuple({s->substr(0, at), sep, s->substr(at + sep.size())});
        });
    if (name == "isalpha" || name == "isdigit" || name == "isalnum" || name == "isspace" || name == "isupper" ||
        name == "islower" || name == "isidentifier" || name == "isdecimal" || name == "isnumeric")
        return method([s, name](const Args& a) {
            expect_args(a, 0, 0, name.c_str());
            if (name == "isspace") {
                bool all = !s->empty();
                for (std::size_t i = 0; all && i < s->size();) all = is_python_space(decode_utf8(*s, i));
                return Value(all);
            }
            if (!is_ascii(*s)) throw EvalError(fmt::format("{}() of non-ASCII text is not supported", name));
            if (name == "isidentifier") {
                if (s->empty() || std::isdigit(static_cast<unsigned char>((*s)[0]))) return Value(false);
                for (char c : *s)
                    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return Value(false);
                return Value(true);
            }
            if (name == "isupper" || name == "islower") {
                bool cased = false;
                for (char c : *s) {
                    const auto u = static_cast<unsigned char>(c);
                    if (name == "isupper" ? std::islower(u) : std::isupper(u)) return Value(false);
                    cased = cased || std::isalpha(u);
                }
                return Value(cased);
            }
            if (s->empty()) return Value(false);
            for (char c : *s) {
                const auto u = static_cast<unsigned char>(c);
                const bool ok = name == "isalpha"   ? std::isalpha(u) != 0
                                : name == "isalnum" ? std::isalnum(u) != 0
                                                    : std::isdigit(u) != 0;
                if (!ok) return Value(false);
            }
            return Value(true);
        });
    if (name == "title" || name == "capitalize" || name == "swapcase")
        return method([s, name](const Args& a) {
            expect_args(a, 0, 0, name.c_str());
            if (!is_ascii(*s)) throw EvalError(fmt::format("{}() of non-ASCII text is not supported", name));
            std::string out = *s;
            bool prev_cased = false;
            for (std::size_t i = 0; i < out.size(); ++i) {
                const auto u = static_cast<unsigned char>(out[i]);
                int c = u;
                if (name == "swapcase") c = std::isupper(u) ? std::tolower(u) : std::toupper(u);
                else if (name == "capitalize") c = i == 0 ? std::toupper(u) : std::tolower(u);
                else c = prev_cased ? std::tolower(u) : std::toupper(u);
                prev_cased = std::isalpha(u) != 0;
                out[i] = static_cast<char>(c);
            }
            return Value(std::move(out));
        });
    if (name == "istitle")
        return method([s](const Args& a) {
            expect_args(a, 0, 0, "istitle");
            if (!is_ascii(*s)) throw EvalError("istitle() of non-ASCII text is not supported");
            // Python's: an uppercase letter only after an uncased character, a lowercase one only
            // after a cased one, and at least one cased letter.
            bool cased = false;
            bool prev_cased = false;
            for (char c : *s) {
                const auto u = static_cast<unsigned char>(c);
                if (std::isupper(u)) {
                    if (prev_cased) return Value(false);
                    prev_cased = cased = true;
                } else if (std::islower(u)) {
                    if (!prev_cased) return Value(false);
                    prev_cased = cased = true;
                } else {
                    prev_cased = false;
                }
            }
            return Value(cased);
        });
    if (name == "casefold")
        return method([s](const Args& a) {
            expect_args(a, 0, 0, "casefold");
            // Beyond ASCII, casefold differs from lower (ß is "ss"), which kjarni's case tables do
            // not hold.
            if (!is_ascii(*s)) throw EvalError("casefold() of non-ASCII text is not supported");
            return make_string(change_case(*s, false));
        });
    if (name == "removeprefix" || name == "removesuffix")
        return method([s, prefix = name == "removeprefix"](const Args& a) {
            expect_args(a, 1, 1, prefix ? "removeprefix" : "removesuffix");
            if (a[0].kind() != K::String)
                throw EvalError(fmt::format("{}() argument must be str, not {}",
                                            prefix ? "removeprefix" : "removesuffix", a[0].type_name()));
            const std::string& part = a[0].as_string();
            if (part.size() > s->size()) return Value(*s);
            if (prefix) return Value(s->compare(0, part.size(), part) == 0 ? s->substr(part.size()) : *s);
            return Value(s->compare(s->size() - part.size(), part.size(), part) == 0
                             ? s->substr(0, s->size() - part.size())
                             : *s);
        });
    if (name == "expandtabs")
        return method([s](const Args& a) {
            expect_args(a, 0, 1, "expandtabs");
            const std::int64_t size = a.size() ? a[0].as_int() : 8;
            // Python's: a tab moves to the next multiple of the tab size (none when it is 0 or
            // less), counting code points from the last line end.
            std::string out;
            std::int64_t column = 0;
            for (char c : *s) {
                if (c == '\t') {
                    if (size > 0) {
                        const std::int64_t n = size - column % size;
                        if (out.size() + static_cast<std::size_t>(n) > limits().max_string)
                            throw EvalError("string too long (render limit)");
                        out.append(static_cast<std::size_t>(n), ' ');
                        column += n;
                    }
                    continue;
                }
                out += c;
                if (c == '\n' || c == '\r') column = 0;
                else if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++column;
            }
            return Value(std::move(out));
        });
    return Value();
}

Value string_method(const std::string& self, const std::string& name) {
    auto s = std::make_shared<const std::string>(self);
    if (name == "join")
        return Value(Function([s](const Args& a) {
            expect_args(a, 1, 1, "join");
            std::string out;
            bool first = true;
            for (const auto& item : iterate(a[0])) {
                if (item.kind() != K::String)
                    throw EvalError(fmt::format("join() expects strings, found {}", item.type_name()));
                if (!first) out += *s;
                first = false;
                out += item.as_string();
                if (out.size() > limits().max_string) throw EvalError("string too long (render limit)");
            }
            return Value(std::move(out));
        }));
    if (name == "upper" || name == "lower")
        return Value(Function([s, upper = name == "upper"](const Args& a) {
            expect_args(a, 0, 0, upper ? "upper" : "lower");
            return make_string(change_case(*s, upper));
        }));
    if (name == "format") return Value(Function([s](const Args& a) { return make_string(str_format(*s, a)); }));
    if (Value m = more_string_methods(s, name); !m.is_none()) return m;
    throw EvalError(fmt::format("'str' object has no attribute '{}'", name));
}

std::int64_t int_of(const Value& v, const char* what) {
    if (!is_int(v))
        throw EvalError(fmt::format("'{}' object cannot be interpreted as an integer ({})", v.type_name(), what));
    return v.as_int();
}

// The methods of lists and tuples. Those that change the list go through mutable_list (which
// refuses a list the render does not own) at call time, so `f = xs.append` still sees later changes.
Value sequence_method(const Value& self, const std::string& name) {
    auto method = [](auto f) { return Value(Function(std::move(f))); };
    const bool tuple = self.kind() == K::Tuple;
    if (name == "index")
        return method([self](const Args& a) {
            expect_args(a, 1, 3, "index");
            const auto& items = self.as_list();
            const auto n = static_cast<std::int64_t>(items.size());
            auto bound = [&](std::size_t i, std::int64_t dflt) {
                if (a.size() <= i) return dflt;
                std::int64_t v = int_of(a[i], "index");
                if (v < 0) v = std::max<std::int64_t>(v + n, 0);
                return std::min(v, n);
            };
            for (std::int64_t i = bound(1, 0), e = bound(2, n); i < e; ++i)
                if (items[static_cast<std::size_t>(i)] == a[0]) return Value(i);
            throw EvalError(fmt::format("{} is not in {}", a[0].repr(), self.type_name()));
        });
    if (name == "count")
        return method([self](const Args& a) {
            expect_args(a, 1, 1, "count");
            const auto& items = self.as_list();
            return Value(static_cast<std::int64_t>(std::count(items.begin(), items.end(), a[0])));
        });
    if (tuple) throw EvalError(fmt::format("'tuple' object has no attribute '{}'", name));
    if (name == "copy")
        return method([self](const Args& a) {
            expect_args(a, 0, 0, "copy");
            return Value::list(self.as_list());
        });
    if (name == "append")
        return method([self](const Args& a) {
            expect_args(a, 1, 1, "append");
            auto& items = mutable_list(self);
            check_no_cycle(self, a[0]);
            if (items.size() >= limits().max_items) throw EvalError("list too long (render limit)");
            items.push_back(a[0]);
            return Value();
        });
    if (name == "extend")
        return method([self](const Args& a) {
            expect_args(a, 1, 1, "extend");
            mutable_list(self);
            std::vector<Value> more = iterate(a[0]);  // before changing: `xs.extend(xs)` doubles xs
            for (const auto& item : more) check_no_cycle(self, item);
            auto& items = mutable_list(self);
            if (items.size() + more.size() > limits().max_items) throw EvalError("list too long (render limit)");
            items.insert(items.end(), more.begin(), more.end());
            return Value();
        });
    if (name == "insert")
        return method([self](const Args& a) {
            expect_args(a, 2, 2, "insert");
            auto& items = mutable_list(self);
            check_no_cycle(self, a[1]);
            const auto n = static_cast<std::int64_t>(items.size());
            std::int64_t i = int_of(a[0], "insert");
            if (i < 0) i = std::max<std::int64_t>(i + n, 0);
            i = std::min(i, n);
            if (items.size() >= limits().max_items) throw EvalError("list too long (render limit)");
            items.insert(items.begin() + i, a[1]);
            return Value();
        });
    if (name == "pop")
        return method([self](const Args& a) {
            expect_args(a, 0, 1, "pop");
            auto& items = mutable_list(self);
            if (items.empty()) throw EvalError("pop from empty list");
            std::int64_t i = a.size() ? int_of(a[0], "pop") : -1;
            const auto n = static_cast<std::int64_t>(items.size());
            if (i < 0) i += n;
            if (i < 0 || i >= n) throw EvalError("pop index out of range");
            Value out = items[static_cast<std::size_t>(i)];
            items.erase(items.begin() + i);
            return out;
        });
    if (name == "remove")
        return method([self](const Args& a) {
            expect_args(a, 1, 1, "remove");
            auto& items = mutable_list(self);
            auto it = std::find(items.begin(), items.end(), a[0]);
            if (it == items.end()) throw EvalError(fmt::format("list.remove(x): {} not in list", a[0].repr()));
            items.erase(it);
            return Value();
        });
    if (name == "clear")
        return method([self](const Args& a) {
            expect_args(a, 0, 0, "clear");
            mutable_list(self).clear();
            return Value();
        });
    if (name == "reverse")
        return method([self](const Args& a) {
            expect_args(a, 0, 0, "reverse");
            auto& items = mutable_list(self);
            std::reverse(items.begin(), items.end());
            return Value();
        });
    if (name == "sort")
        return method([self](const Args& a) {
            if (a.size()) throw EvalError("sort() takes no positional arguments");
            for (const auto& [k, v] : a.keyword)
                if (k != "key" && k != "reverse")
                    throw EvalError(fmt::format("sort() got an unexpected keyword argument '{}'", k));
            mutable_list(self);
            const Value* reverse = a.find_keyword("reverse");
            // Sorted from a copy (the key may look at the list), then stored back.
            std::vector<Value> out = sort_values(self.as_list(), a.find_keyword("key"), reverse && reverse->truthy());
            mutable_list(self) = std::move(out);
            return Value();
        });
    throw EvalError(fmt::format("'list' object has no attribute '{}'", name));
}

// Python's dict.update / dict(...) arguments: a dict, or pairs, then keywords.
void update_dict(const Value& self, const Args& a, const char* name) {
    if (a.size() > 1) throw EvalError(fmt::format("{} expected at most 1 argument, got {}", name, a.size()));
    mutable_dict(self);
    std::vector<std::pair<Value, Value>> add;
    if (a.size() == 1) {
        if (a[0].kind() == K::Dict) {
            for (const auto& [k, v] : a[0].as_dict()) add.emplace_back(k, v);
        } else {
            for (const auto& pair : iterate(a[0])) {
                const auto kv = iterate(pair);
                if (kv.size() != 2)
                    throw EvalError("dictionary update sequence element has the wrong length; 2 is required");
                add.emplace_back(kv[0], kv[1]);
            }
        }
    }
    for (const auto& [k, v] : a.keyword) add.emplace_back(Value(k), v);
    for (auto& [k, v] : add) {
        check_no_cycle(self, k);
        check_no_cycle(self, v);
        mutable_dict(self).set(k, std::move(v));
    }
}

// The members of a set for an operation whose result does not depend on their order.
const std::vector<Value>& members(const Value& v) { return v.as_set(); }

std::vector<Value>& mutable_set(const Value& v) {
    if (v.kind() != K::Set) throw EvalError(fmt::format("expected set, got {}", v.type_name()));
    const auto& p = std::get<std::shared_ptr<const Value::SetData>>(v.storage());
    if (p->owner == 0 || p->owner != current_owner())
        throw SharedMutationError("this set was not made by the template (it comes from the render globals or from "
                                  "C++) and is shared between renders, so it cannot be changed in place: copy it "
                                  "first, e.g. with set(...)");
    return const_cast<Value::SetData&>(*p).items;  // made non-const by Value::set
}

bool has_member(const std::vector<Value>& items, const Value& v) {
    return std::find(items.begin(), items.end(), v) != items.end();
}

// The members of a set, found by hash: for the operations between two sets.
class MemberIndex {
public:
    explicit MemberIndex(const std::vector<Value>& items) : items_(items) {
        for (std::size_t i = 0; i < items.size(); ++i) index_.emplace(hash_value(items[i]), i);
    }
    bool contains(const Value& v) const {
        auto [b, e] = index_.equal_range(hash_value(v));
        for (auto it = b; it != e; ++it)
            if (items_[it->second] == v) return true;
        return false;
    }

private:
    const std::vector<Value>& items_;
    std::unordered_multimap<std::size_t, std::size_t> index_;
};

// a | b, a & b, a - b, a ^ b on sets: the members in Python's insertion sense (a's, then b's).
Value set_binary(BinOp op, const Value& a, const Value& b) {
    const auto& x_items = members(a);
    const auto& y_items = members(b);
    const MemberIndex x(x_items), y(y_items);
    auto has = [](const MemberIndex& m, const Value& v) { return m.contains(v); };
    std::vector<Value> out;
    switch (op) {
    case BinOp::BitOr:
        out = x_items;
        for (const auto& v : y_items)
            if (!has(x, v)) out.push_back(v);
        break;
    case BinOp::BitAnd:
        for (const auto& v : x_items)
            if (has(y, v)) out.push_back(v);
        break;
    case BinOp::Sub:
        for (const auto& v : x_items)
            if (!has(y, v)) out.push_back(v);
        break;
    case BinOp::BitXor:
        for (const auto& v : x_items)
            if (!has(y, v)) out.push_back(v);
        for (const auto& v : y_items)
            if (!has(x, v)) out.push_back(v);
        break;
    default: unsupported(op, a, b);
    }
    return Value::set(out);
}

// Sets' arguments to union(), update()...: any iterable (a set's members, in any order).
std::vector<Value> members_of(const Value& v) { return v.kind() == K::Set ? v.as_set() : iterate(v); }

Value set_method(const Value& self, const std::string& name) {
    auto method = [](auto f) { return Value(Function(std::move(f))); };
    if (name == "add")
        return method([self](const Args& a) {
            expect_args(a, 1, 1, "add");
            auto& items = mutable_set(self);
            check_hashable(a[0]);
            check_no_cycle(self, a[0]);  // a function holding the set
            if (!has_member(items, a[0])) {
                if (items.size() >= limits().max_items) throw EvalError("set too large (render limit)");
                items.push_back(a[0]);
            }
            return Value();
        });
    if (name == "discard" || name == "remove")
        return method([self, name](const Args& a) {
            expect_args(a, 1, 1, name.c_str());
            auto& items = mutable_set(self);
            check_hashable(a[0]);
            auto it = std::find(items.begin(), items.end(), a[0]);
            if (it != items.end()) items.erase(it);
            else if (name == "remove") throw EvalError(fmt::format("KeyError: {}", a[0].repr()));
            return Value();
        });
    if (name == "update")
        return method([self](const Args& a) {
            if (!a.keyword.empty()) throw EvalError("update() takes no keyword arguments");
            mutable_set(self);
            for (const auto& arg : a.positional) {
                Value all = Value::set(members_of(arg));
                for (const auto& item : members(all)) check_no_cycle(self, item);
                mutable_set(self) = members(set_binary(BinOp::BitOr, self, all));
            }
            return Value();
        });
    if (name == "clear")
        return method([self](const Args& a) {
            expect_args(a, 0, 0, "clear");
            mutable_set(self).clear();
            return Value();
        });
    if (name == "copy")
        return method([self](const Args& a) {
            expect_args(a, 0, 0, "copy");
            return Value::set(members(self));
        });
    if (name == "union" || name == "intersection" || name == "difference" || name == "symmetric_difference")
        return method([self, name](const Args& a) {
            if (!a.keyword.empty()) throw EvalError(fmt::format("{}() takes no keyword arguments", name));
            const BinOp op = name == "union"          ? BinOp::BitOr
                             : name == "intersection" ? BinOp::BitAnd
                             : name == "difference"   ? BinOp::Sub
                                                      : BinOp::BitXor;
            if (op == BinOp::BitXor) expect_args(a, 1, 1, name.c_str());
            Value out = Value::set(members(self));
            for (const auto& arg : a.positional) out = set_binary(op, out, Value::set(members_of(arg)));
            return out;
        });
    if (name == "issubset" || name == "issuperset" || name == "isdisjoint")
        return method([self, name](const Args& a) {
            expect_args(a, 1, 1, name.c_str());
            const Value other = Value::set(members_of(a[0]));
            const auto& x = members(self);
            const auto& y = members(other);
            if (name == "isdisjoint")
                return Value(std::none_of(x.begin(), x.end(), [&](const Value& v) { return has_member(y, v); }));
            const auto& small = name == "issubset" ? x : y;
            const auto& large = name == "issubset" ? y : x;
            return Value(std::all_of(small.begin(), small.end(), [&](const Value& v) { return has_member(large, v); }));
        });
    throw EvalError(fmt::format("'set' object has no attribute '{}'", name));
}

Value dict_method(const Value& self, const std::string& name) {
    auto method = [](auto f) { return Value(Function(std::move(f))); };
    if (name == "items" || name == "keys" || name == "values")
        return method([self, name](const Args& a) {
            expect_args(a, 0, 0, name.c_str());
            std::vector<Value> out;
            for (const auto& [k, v] : self.as_dict()) {
                if (name == "items") out.push_back(Value::tuple({Value(k), v}));
                else if (name == "keys") out.emplace_back(k);
                else out.push_back(v);
            }
            return Value::list(std::move(out));
        });
    if (name == "get")
        return method([self](const Args& a) {
            expect_args(a, 1, 2, "get");
            if (const Value* found = self.as_dict().find(a[0])) return *found;
            return a.size() > 1 ? a[1] : Value();
        });
    if (name == "copy")
        return method([self](const Args& a) {
            expect_args(a, 0, 0, "copy");
            return Value::dict(self.as_dict());
        });
    if (name == "update")
        return method([self](const Args& a) {
            update_dict(self, a, "update");
            return Value();
        });
    if (name == "setdefault")
        return method([self](const Args& a) {
            expect_args(a, 1, 2, "setdefault");
            auto& items = mutable_dict(self);
            if (const Value* found = items.find(a[0])) return *found;
            Value v = a.size() > 1 ? a[1] : Value();
            check_no_cycle(self, a[0]);
            check_no_cycle(self, v);
            items.set(a[0], v);
            return v;
        });
    if (name == "pop")
        return method([self](const Args& a) {
            expect_args(a, 1, 2, "pop");
            auto& items = mutable_dict(self);
            if (const Value* found = items.find(a[0])) {
                Value out = *found;
                items.erase(a[0]);
                return out;
            }
            if (a.size() > 1) return a[1];
            throw EvalError(fmt::format("KeyError: {}", a[0].repr()));
        });
    if (name == "popitem")
        return method([self](const Args& a) {
            expect_args(a, 0, 0, "popitem");
            auto& items = mutable_dict(self);
            if (items.empty()) throw EvalError("KeyError: 'popitem(): dictionary is empty'");
            auto last = *(items.end() - 1);
            Value k(last.first);
            items.erase(last.first);
            return Value::tuple({k, last.second});
        });
    if (name == "clear")
        return method([self](const Args& a) {
            expect_args(a, 0, 0, "clear");
            mutable_dict(self) = DictItems();
            return Value();
        });
    throw EvalError(fmt::format("'dict' object has no attribute '{}'", name));
}

}  // namespace

Value make_string(std::string s) {
    if (s.size() > limits().max_string) throw EvalError("string too long (render limit)");
    return Value(std::move(s));
}

Value binary(BinOp op, const Value& a, const Value& b) {
    if (a.kind() == K::Object || b.kind() == K::Object)
        if (auto c = complex_binary(op, a, b)) return *c;
    if (is_int(a) && is_int(b)) {
        if (is_big(a) || is_big(b)) return big_binary(op, a, b);
        std::int64_t x = a.as_int(), y = b.as_int();
        std::optional<std::int64_t> r;
        switch (op) {
        case BinOp::Add: r = add(x, y); break;
        case BinOp::Sub: r = sub(x, y); break;
        case BinOp::Mul: r = mul(x, y); break;
        case BinOp::Div:
            if (y == 0) throw EvalError("division by zero");
            // Exact in doubles up to 2^53; beyond, rounded once from the exact quotient.
            if (std::abs(x) < (std::int64_t{1} << 53) && std::abs(y) < (std::int64_t{1} << 53))
                return static_cast<double>(x) / static_cast<double>(y);
            return big_binary(op, a, b);
        case BinOp::FloorDiv: r = floor_div(x, y); break;
        case BinOp::Mod: return floor_mod(x, y);
        case BinOp::Pow:
            if (y < 0) {
                if (x == 0) throw EvalError("0 cannot be raised to a negative power");
                return std::pow(static_cast<double>(x), static_cast<double>(y));
            }
            r = int_pow(x, y);
            break;
        case BinOp::BitOr: return x | y;
        case BinOp::BitXor: return x ^ y;
        case BinOp::BitAnd: return x & y;
        case BinOp::Shl:
            if (y < 0) throw EvalError("negative shift count");
            if (x == 0) return std::int64_t{0};
            if (y < 63 && x <= (INT64_MAX >> y) && x >= (INT64_MIN >> y))
                return static_cast<std::int64_t>(static_cast<std::uint64_t>(x) << y);
            break;
        case BinOp::Shr:
            if (y < 0) throw EvalError("negative shift count");
            return y >= 63 ? (x < 0 ? std::int64_t{-1} : std::int64_t{0}) : x >> y;
        }
        if (r) return *r;
        return big_binary(op, a, b);
    }
    if (is_number(a) && is_number(b)) {
        double x = a.as_float(), y = b.as_float();
        switch (op) {
        case BinOp::Add: return x + y;
        case BinOp::Sub: return x - y;
        case BinOp::Mul: return x * y;
        case BinOp::Div:
            if (y == 0.0) throw EvalError("float division by zero");
            return x / y;
        case BinOp::FloorDiv:
            if (y == 0.0) throw EvalError("float floor division by zero");
            return float_divmod(x, y).first;
        case BinOp::Mod:
            if (y == 0.0) throw EvalError("float modulo by zero");
            return float_divmod(x, y).second;
        case BinOp::Pow: {
            if (x == 0.0 && y < 0) throw EvalError("0.0 cannot be raised to a negative power");
            // Python 3: a negative number to a non-integral power is complex.
            if (x < 0 && std::isfinite(x) && std::isfinite(y) && y != std::floor(y))
                return *complex_binary(BinOp::Pow, make_complex(x, 0.0), make_complex(y, 0.0));
            const double r = std::pow(x, y);
            if (std::isinf(r) && std::isfinite(x) && std::isfinite(y))
                throw EvalError("OverflowError: (34, 'Numerical result out of range')");
            return r;
        }
        default: unsupported(op, a, b);
        }
    }
    if (op == BinOp::Add) {
        if (a.kind() == K::String && b.kind() == K::String) return make_string(a.as_string() + b.as_string());
        if (is_seq(a) && a.kind() == b.kind()) {
            if (a.as_list().size() + b.as_list().size() > limits().max_items)
                throw EvalError("list too long (render limit)");
            std::vector<Value> items = a.as_list();
            items.insert(items.end(), b.as_list().begin(), b.as_list().end());
            return a.kind() == K::Tuple ? Value::tuple(std::move(items)) : Value::list(std::move(items));
        }
    }
    if (op == BinOp::Mod && a.kind() == K::String) return make_string(percent_format(a.as_string(), b));
    if (a.kind() == K::Set && b.kind() == K::Set) return set_binary(op, a, b);
    if (op == BinOp::Mul) {
        if (a.kind() == K::String && is_int(b)) return repeat(a.as_string(), b.as_int());
        if (is_int(a) && b.kind() == K::String) return repeat(b.as_string(), a.as_int());
        if (is_seq(a) && is_int(b)) return repeat(a.as_list(), b.as_int(), a.kind() == K::Tuple);
        if (is_int(a) && is_seq(b)) return repeat(b.as_list(), a.as_int(), b.kind() == K::Tuple);
    }
    unsupported(op, a, b);
}

Value unary(UnOp op, const Value& a) {
    if (op == UnOp::Not) return !a.truthy();
    if (is_big(a)) {
        const mpz_class x = to_mpz(a);
        if (op == UnOp::Neg) return make_int(-x);
        if (op == UnOp::Pos) return a;
        if (op == UnOp::Invert) return make_int(-x - 1);
    }
    if (is_int(a)) {
        std::int64_t x = a.as_int();
        switch (op) {
        case UnOp::Neg:
            if (x == INT64_MIN) return make_int(-to_mpz(a));
            return -x;
        case UnOp::Pos: return x;
        case UnOp::Invert: return ~x;
        default: break;
        }
    }
    if (a.kind() == K::Float) {
        if (op == UnOp::Neg) return -a.as_float();
        if (op == UnOp::Pos) return a.as_float();
    }
    if (const auto c = complex_parts(a)) {
        if (op == UnOp::Neg) return make_complex(-c->real, -c->imag);
        if (op == UnOp::Pos) return make_complex(c->real, c->imag);
    }
    const char* sym = op == UnOp::Neg ? "-" : op == UnOp::Pos ? "+" : "~";
    throw EvalError(fmt::format("bad operand type for unary {}: '{}'", sym, a.type_name()));
}

bool compare(CmpOp op, const Value& a, const Value& b) {
    switch (op) {
    case CmpOp::Eq: return a == b;
    case CmpOp::Ne: return !(a == b);
    case CmpOp::Lt: return order(a, b) == -1;
    case CmpOp::Le: {
        int o = order(a, b);
        return o == -1 || o == 0;
    }
    case CmpOp::Gt: return order(a, b) == 1;
    case CmpOp::Ge: {
        int o = order(a, b);
        return o == 1 || o == 0;
    }
    case CmpOp::In: return contains(b, a);
    case CmpOp::NotIn: return !contains(b, a);
    case CmpOp::Is:
    case CmpOp::IsNot: {
        // Identity: None, booleans and shared objects compare by identity; other values by kind
        // and equality (what a template can observe of identity anyway).
        bool same =
            a.kind() == b.kind() && (a.kind() == K::None || a.kind() == K::Bool ? a == b : a.storage() == b.storage());
        return op == CmpOp::Is ? same : !same;
    }
    }
    return false;
}

Value index(const Value& target, const Value& key) {
    switch (target.kind()) {
    case K::List:
    case K::Tuple: {
        if (!is_int(key))
            throw EvalError(fmt::format("{} indices must be integers, not {}", target.type_name(), key.type_name()));
        const auto& items = target.as_list();
        return items[static_cast<std::size_t>(normalize_index(key.as_int(), items.size()))];
    }
    case K::String: {
        if (!is_int(key)) throw EvalError(fmt::format("string indices must be integers, not {}", key.type_name()));
        const auto points = code_points(target.as_string());
        return Value(std::string(points[static_cast<std::size_t>(normalize_index(key.as_int(), points.size()))]));
    }
    case K::Dict: {
        const Value* found = target.as_dict().find(key);
        if (!found) throw EvalError(fmt::format("key {} not found", key.repr()));
        return *found;
    }
    case K::Object: {
        // An object subscripted (Mako's context['n']): through its __getitem__.
        Value getitem;
        try {
            getitem = target.as_object()->attribute("__getitem__");
        } catch (const EvalError&) {
            throw EvalError(fmt::format("'{}' object is not subscriptable", target.type_name()));
        }
        return getitem.as_function()(Args{{key}, {}});
    }
    default: throw EvalError(fmt::format("'{}' object is not subscriptable", target.type_name()));
    }
}

Value slice(const Value& target, const std::optional<std::int64_t>& start, const std::optional<std::int64_t>& stop,
            const std::optional<std::int64_t>& step_opt) {
    std::int64_t step = step_opt.value_or(1);
    if (step == 0) throw EvalError("slice step cannot be zero");
    std::size_t size;
    std::vector<std::string_view> points;
    if (target.kind() == K::String) {
        points = code_points(target.as_string());
        size = points.size();
    } else if (is_seq(target)) size = target.as_list().size();
    else throw EvalError(fmt::format("'{}' object is not subscriptable", target.type_name()));
    auto n = static_cast<std::int64_t>(size);
    auto clamp = [&](std::optional<std::int64_t> v, std::int64_t dflt) {
        if (!v) return dflt;
        std::int64_t i = *v;
        if (i < 0) i = std::max<std::int64_t>(i + n, step > 0 ? 0 : -1);
        return std::min<std::int64_t>(i, step > 0 ? n : n - 1);
    };
    std::int64_t b = clamp(start, step > 0 ? 0 : n - 1);
    std::int64_t e = clamp(stop, step > 0 ? n : -1);
    std::vector<std::size_t> picks;
    for (std::int64_t i = b; step > 0 ? i < e : i > e; i += step) {
        picks.push_back(static_cast<std::size_t>(i));
        if (step > 0 ? i > INT64_MAX - step : i < INT64_MIN - step) break;
    }
    if (target.kind() == K::String) {
        std::string out;
        for (auto i : picks) out += points[i];
        return Value(std::move(out));
    }
    std::vector<Value> out;
    for (auto i : picks) out.push_back(target.as_list()[i]);
    return target.kind() == K::Tuple ? Value::tuple(std::move(out)) : Value::list(std::move(out));
}

Value attribute(const Value& target, const std::string& name) {
    switch (target.kind()) {
    case K::Object: return target.as_object()->attribute(name);
    case K::String: return string_method(target.as_string(), name);
    case K::Dict: return dict_method(target, name);
    case K::List:
    case K::Tuple: return sequence_method(target, name);
    case K::Set: return set_method(target, name);
    default: throw EvalError(fmt::format("'{}' object has no attribute '{}'", target.type_name(), name));
    }
}

std::vector<Value> iterate(const Value& v) {
    switch (v.kind()) {
    case K::List:
    case K::Tuple: return v.as_list();
    case K::String: {
        std::vector<Value> out;
        for (auto c : code_points(v.as_string())) out.emplace_back(std::string(c));
        return out;
    }
    case K::Dict: {
        std::vector<Value> out;
        for (const auto& kv : v.as_dict()) out.emplace_back(kv.first);
        return out;
    }
    case K::Set:
        if (v.as_set().size() > 1)
            throw EvalError("iterating over a set of more than one member is not supported (Python iterates a set in "
                            "hash order, which kjarni does not reproduce): iterate over sorted(...) instead");
        return v.as_set();
    case K::Object:
        if (const auto* it = dynamic_cast<const IteratorObject*>(v.as_object().get())) return it->rest();
        throw EvalError(fmt::format("'{}' object is not iterable", v.type_name()));
    default: throw EvalError(fmt::format("'{}' object is not iterable", v.type_name()));
    }
}

std::vector<Value> iterate_unordered(const Value& v) { return v.kind() == K::Set ? v.as_set() : iterate(v); }

}  // namespace kjarni::tmpl
