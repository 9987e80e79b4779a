// Python's formatting rules, written from its documentation (the Format Specification
// Mini-Language and printf-style String Formatting). Floats go through snprintf, whose e, f and g
// conversions with glibc are correctly rounded, as Python's are.

#include "formatting.hpp"

#include "bigint.hpp"
#include "complex.hpp"

#include "errors.hpp"
#include "limits.hpp"
#include "operators.hpp"
#include "utf8.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string_view>

namespace kjarni::tmpl {

namespace {

using K = Value::Kind;

struct Spec {
    std::string fill = " ";
    char align = 0;  // < > ^ =, 0: the type's default
    char sign = '-';
    bool sign_given = false;  // written in the spec (a '-' too, which a str refuses)
    bool z = false;           // 'z': a float that rounds to -0 prints as 0
    bool alt = false;
    bool zero = false;
    std::size_t width = 0;
    char group = 0;  // ',' or '_'
    int precision = -1;
    char type = 0;
};

std::size_t parse_number(const std::string& s, std::size_t& i) {
    std::size_t v = 0;
    const std::size_t start = i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
        v = v * 10 + static_cast<std::size_t>(s[i] - '0');
        if (v > limits().max_string) throw EvalError("format width or precision too big");
        ++i;
    }
    (void)start;
    return v;
}

Spec parse_spec(const std::string& s) {
    Spec spec;
    std::size_t i = 0;
    auto is_align = [](char c) { return c == '<' || c == '>' || c == '^' || c == '='; };
    // A fill may be any code point; it is known by the align after it.
    const auto points = code_points(s);
    bool fill_given = false;
    if (points.size() >= 2 && points[1].size() == 1 && is_align(points[1][0])) {
        spec.fill = std::string(points[0]);
        spec.align = points[1][0];
        fill_given = true;
        i = points[0].size() + 1;
    } else if (!s.empty() && is_align(s[0])) {
        spec.align = s[0];
        i = 1;
    }
    if (i < s.size() && (s[i] == '+' || s[i] == '-' || s[i] == ' ')) {
        spec.sign = s[i++];
        spec.sign_given = true;
    }
    if (i < s.size() && s[i] == 'z') {
        spec.z = true;
        ++i;
    }
    if (i < s.size() && s[i] == '#') {
        spec.alt = true;
        ++i;
    }
    if (i < s.size() && s[i] == '0') {
        spec.zero = true;
        // CPython: the '0' flag fills with '0' unless a fill is given, an align or not ('<05'
        // pads a str with zeros).
        if (!fill_given) spec.fill = "0";
        ++i;
    }
    spec.width = parse_number(s, i);
    if (i < s.size() && (s[i] == ',' || s[i] == '_')) spec.group = s[i++];
    if (spec.group && i < s.size() && (s[i] == ',' || s[i] == '_')) {
        if (s[i] != spec.group) throw EvalError("Cannot specify both ',' and '_'.");
        throw EvalError(fmt::format("Cannot specify '{}' with '{}'.", spec.group, spec.group));
    }
    if (i < s.size() && s[i] == '.') {
        ++i;
        if (i >= s.size() || s[i] < '0' || s[i] > '9') throw EvalError("Format specifier missing precision");
        spec.precision = static_cast<int>(parse_number(s, i));
    }
    if (i < s.size()) spec.type = s[i++];
    if (i != s.size()) throw EvalError("Invalid format specifier");
    return spec;
}

std::string group_digits(const std::string& digits, char sep, std::size_t every) {
    std::string out;
    const std::size_t n = digits.size();
    for (std::size_t i = 0; i < n; ++i) {
        if (i > 0 && (n - i) % every == 0) out += sep;
        out += digits[i];
    }
    return out;
}

// CPython's zero padding of a grouped number ('0' fill with '=' alignment): the padding zeros
// are digits, grouped too, up to `min_width` (a group never starts with the separator: one more
// zero then), so format(255, '+010,') is '+0,000,255'.
std::string group_digits_padded(std::string digits, char sep, std::size_t every, std::size_t min_width) {
    std::string grouped = group_digits(digits, sep, every);
    while (grouped.size() < min_width) {
        digits.insert(0, 1, '0');
        grouped = group_digits(digits, sep, every);
    }
    return grouped;
}

// Whether the spec pads a number with zeros between its sign and digits.
bool zero_padded(const Spec& spec) { return spec.fill == "0" && (spec.align == '=' || (!spec.align && spec.zero)); }

// The width the digits of a grouped number must reach for zero padding (0 when not padded).
std::size_t grouped_min_width(const Spec& spec, std::size_t other_chars) {
    if (!zero_padded(spec) || spec.width <= other_chars) return 0;
    return spec.width - other_chars;
}

// Pads `sign + body` to the width; '=' puts the padding between them.
std::string pad(const std::string& sign, const std::string& body, const Spec& spec, char default_align) {
    const std::string fill = spec.zero && !spec.align ? "0" : spec.fill;
    const char align = spec.align ? spec.align : spec.zero ? '=' : default_align;
    const std::size_t len = code_point_count(sign) + code_point_count(body);
    if (spec.width <= len) return sign + body;
    const std::size_t n = spec.width - len;
    auto repeat = [&](std::size_t k) {
        std::string r;
        for (std::size_t j = 0; j < k; ++j) r += fill;
        return r;
    };
    switch (align) {
    case '<': return sign + body + repeat(n);
    case '^': return repeat(n / 2) + sign + body + repeat(n - n / 2);
    case '=': return sign + repeat(n) + body;
    default: return repeat(n) + sign + body;
    }
}

std::string sign_of(bool negative, char sign) {
    if (negative) return "-";
    if (sign == '+') return "+";
    if (sign == ' ') return " ";
    return "";
}

std::string format_int(const mpz_class& v, const Spec& spec, int min_digits = -1) {
    const bool negative = v < 0;
    const mpz_class mag = abs(v);
    std::string digits;
    std::string prefix;
    switch (spec.type) {
    case 0:
    case 'd':
    case 'n': digits = int_to_decimal(mag); break;
    case 'x':
        digits = mag.get_str(16);
        prefix = spec.alt ? "0x" : "";
        break;
    case 'X':
        digits = mag.get_str(16);
        for (char& c : digits) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
        prefix = spec.alt ? "0X" : "";
        break;
    case 'o':
        digits = mag.get_str(8);
        prefix = spec.alt ? "0o" : "";
        break;
    case 'b':
        digits = mag.get_str(2);
        prefix = spec.alt ? "0b" : "";
        break;
    case 'c': {
        if (negative || mag > 0x10FFFF) throw EvalError("%c arg not in range(0x110000)");
        std::string out;
        append_utf8(out, static_cast<std::uint32_t>(mag.get_ui()));
        return pad("", out, spec, '>');
    }
    default: throw EvalError(fmt::format("Unknown format code '{}' for object of type 'int'", spec.type));
    }
    if (min_digits > 0 && digits.size() < static_cast<std::size_t>(min_digits))
        digits.insert(0, static_cast<std::size_t>(min_digits) - digits.size(), '0');
    const std::string sign = sign_of(negative, spec.sign) + prefix;
    if (spec.group)
        digits = group_digits_padded(digits, spec.group, spec.type == 0 || spec.type == 'd' || spec.type == 'n' ? 3 : 4,
                                     grouped_min_width(spec, code_point_count(sign)));
    return pad(sign, digits, spec, '>');
}

std::string printf_double(char conv, int precision, bool alt, double v) {
    const std::string f = fmt::format("%{}.{}{}", alt ? "#" : "", precision, conv);
    const int n = std::snprintf(nullptr, 0, f.c_str(), v);
    if (n < 0) throw EvalError("float formatting failed");
    std::string out(static_cast<std::size_t>(n) + 1, '\0');
    std::snprintf(out.data(), out.size(), f.c_str(), v);
    out.resize(static_cast<std::size_t>(n));
    return out;
}

std::string format_double(double v, const Spec& spec) {
    const bool negative = std::signbit(v) && !std::isnan(v);
    const double mag = std::fabs(v);
    std::string body;
    char type = spec.type;
    if (spec.precision > 1000) throw EvalError("format precision too big");
    if (type != 0 && std::string_view("eEfFgGn%").find(type) == std::string_view::npos)
        throw EvalError(fmt::format("Unknown format code '{}' for object of type 'float'", type));
    if (std::isinf(mag) || std::isnan(mag)) {
        body = std::isnan(mag) ? "nan" : "inf";
        if (type == 'E' || type == 'F' || type == 'G') body = std::isnan(mag) ? "NAN" : "INF";
        if (type == '%') body += "%";
    } else if (type == 0 && spec.precision < 0) {
        body = Value(mag).str();
        // '#': the point is always written (format(1e16, '#') is '1.e+16').
        if (spec.alt && body.find('.') == std::string::npos) body.insert(std::min(body.find('e'), body.size()), ".");
    } else if (type == 0 || type == 'n') {
        // Like 'g', but a fixed-point result keeps a digit after the point; and (CPython's
        // Py_DTSF_ADD_DOT_0) without a type the exponent form starts one digit earlier: a number
        // whose rounded exponent is precision - 1 is written with it (format(2.5, '.0') is
        // '2e+00', format(12.5, '.2') is '1.2e+01', where 'g' gives '2' and '12').
        const int p = spec.precision < 0 ? 6 : std::max(spec.precision, 1);
        std::string e_form = printf_double('e', p - 1, spec.alt, mag);
        const int exponent = std::atoi(e_form.c_str() + e_form.find('e') + 1);
        if (type == 0 && exponent == p - 1) {
            if (!spec.alt) {  // %g drops the mantissa's trailing zeros (and a bare point)
                const std::size_t e = e_form.find('e');
                std::string mantissa = e_form.substr(0, e);
                if (mantissa.find('.') != std::string::npos) {
                    mantissa.erase(mantissa.find_last_not_of('0') + 1);
                    if (mantissa.back() == '.') mantissa.pop_back();
                }
                e_form = mantissa + e_form.substr(e);
            }
            body = e_form;
        } else {
            body = printf_double('g', p, spec.alt, mag);
            if (body.find_first_of(".e") == std::string::npos && type == 0) body += ".0";
        }
    } else if (type == '%') {
        body = printf_double('f', spec.precision < 0 ? 6 : spec.precision, spec.alt, mag * 100) + "%";
    } else if (type == 'e' || type == 'E' || type == 'f' || type == 'F' || type == 'g' || type == 'G') {
        body = printf_double(type, spec.precision < 0 ? 6 : spec.precision, spec.alt, mag);
    } else {
        throw EvalError(fmt::format("Unknown format code '{}' for object of type 'float'", type));
    }
    if (spec.group) {
        std::size_t end = body.find_first_not_of("0123456789");
        if (end == std::string::npos) end = body.size();
        const std::size_t others = (negative || spec.sign != '-' ? 1 : 0) + code_point_count(body.substr(end));
        body =
            group_digits_padded(body.substr(0, end), spec.group, 3, grouped_min_width(spec, others)) + body.substr(end);
    }
    // 'z': a negative number whose digits all rounded to 0 prints as positive.
    const std::string mantissa = body.substr(0, body.find_first_of("eE"));
    if (spec.z && negative && mantissa.find_first_of("0123456789") != std::string::npos &&
        mantissa.find_first_of("123456789") == std::string::npos)
        return pad(sign_of(false, spec.sign), body, spec, '>');
    return pad(sign_of(negative, spec.sign), body, spec, '>');
}

std::string format_string(const std::string& s, const Spec& spec) {
    if (spec.type != 0 && spec.type != 's')
        throw EvalError(fmt::format("Unknown format code '{}' for object of type 'str'", spec.type));
    if (spec.sign != '-') throw EvalError("Sign not allowed in string format specifier");
    if (spec.align == '=') throw EvalError("'=' alignment not allowed in string format specifier");
    std::string body = s;
    if (spec.precision >= 0) {
        const auto points = code_points(s);
        body.clear();
        for (std::size_t i = 0; i < points.size() && i < static_cast<std::size_t>(spec.precision); ++i)
            body += points[i];
    }
    Spec str_spec = spec;
    if (!spec.align && spec.zero) str_spec.align = '<';
    return pad("", body, str_spec, '<');
}

// format(complex, spec) as CPython 3.11's format_complex_internal: each part formatted as a float
// (the imaginary one always signed, unless the real one is left out), then padded as a whole. No
// type: repr's digits (or 'g' with a precision), the real part left out when it is +0, else
// parentheses around both.
std::string format_complex(ComplexParts c, const Spec& spec) {
    if (spec.align == '=') throw EvalError("Alignment flag '=' not allowed in complex format specifier");
    if (spec.fill == "0") throw EvalError("Zero padding is not allowed in complex format specifier");
    Spec part = spec;
    part.width = 0;
    part.align = 0;
    part.fill = " ";
    bool skip_re = false;
    bool parens = false;
    bool repr_digits = false;
    switch (spec.type) {
    case 0:
        skip_re = c.real == 0.0 && !std::signbit(c.real);
        parens = !skip_re;
        if (spec.precision < 0) repr_digits = true;
        else part.type = 'g';
        break;
    case 'n': part.type = 'g'; break;
    case 'e':
    case 'E':
    case 'f':
    case 'F':
    case 'g':
    case 'G': break;
    default: throw EvalError(fmt::format("Unknown format code '{}' for object of type 'complex'", spec.type));
    }
    auto one = [&](double d, char sign) {
        if (!repr_digits) {
            Spec p = part;
            p.sign = sign;
            return format_double(d, p);
        }
        std::string r = complex_repr(ComplexParts{0.0, d});
        r.pop_back();  // the 'j'
        if (spec.alt && std::isfinite(d) && r.find('.') == std::string::npos)
            r.insert(std::min(r.find('e'), r.size()), ".");
        if (r[0] != '-' && sign != '-') r = std::string(1, sign) + r;
        return r;
    };
    std::string body;
    if (!skip_re) body = one(c.real, spec.sign);
    body += one(c.imag, skip_re ? spec.sign : '+') + "j";
    if (parens) body = "(" + body + ")";
    return pad("", body, spec, '>');
}

// format()'s checks of a spec against the value's type, as CPython's: thousands separators only
// with the types that take them (the type a str or an int takes when none is given counts), and
// what str and int specs refuse.
void check_spec(const Value& v, const Spec& spec) {
    const bool is_str = v.kind() == K::String;
    const bool is_int = v.kind() == K::Int || v.kind() == K::Bool;
    const char type = spec.type ? spec.type : is_str ? 's' : is_int ? 'd' : 0;
    if (spec.group && type != 0 && std::string_view("defgEG%F").find(type) == std::string_view::npos) {
        const bool underscore_ok = spec.group == '_' && std::string_view("boxX").find(type) != std::string_view::npos;
        if (!underscore_ok) throw EvalError(fmt::format("Cannot specify '{}' with '{}'.", spec.group, type));
    }
    if (is_str) {
        if (spec.sign_given) throw EvalError("Sign not allowed in string format specifier");
        if (spec.z) throw EvalError("Negative zero coercion (z) not allowed in string format specifier");
        if (spec.alt) throw EvalError("Alternate form (#) not allowed in string format specifier");
    }
    if (is_int && (spec.type == 0 || std::string_view("bcdoxXn").find(spec.type) != std::string_view::npos)) {
        if (spec.z) throw EvalError("Negative zero coercion (z) not allowed in integer format specifier");
        if (spec.type == 'c' && spec.sign_given) throw EvalError("Sign not allowed with integer format specifier 'c'");
        if (spec.type == 'c' && spec.alt)
            throw EvalError("Alternate form (#) not allowed with integer format specifier 'c'");
    }
}

std::string format_with(const Value& v, const Spec& spec, const std::string& raw) {
    if (!raw.empty()) check_spec(v, spec);
    if (const auto c = complex_parts(v)) return format_complex(*c, spec);
    switch (v.kind()) {
    case K::Bool:
        if (raw.empty()) return v.str();
        [[fallthrough]];
    case K::Int:
        if (spec.type == 'e' || spec.type == 'E' || spec.type == 'f' || spec.type == 'F' || spec.type == 'g' ||
            spec.type == 'G' || spec.type == '%')
            return format_double(v.as_float(), spec);
        if (spec.precision >= 0) throw EvalError("Precision not allowed in integer format specifier");
        return format_int(to_mpz(v), spec);
    case K::Float: return format_double(v.as_float(), spec);
    case K::String: return format_string(v.as_string(), spec);
    default:
        if (!raw.empty())
            throw EvalError(fmt::format("unsupported format string passed to {}.__format__", v.type_name()));
        return v.str();
    }
}

}  // namespace

std::string ascii_repr(const Value& v) {
    const std::string r = v.repr();
    std::string out;
    for (const std::string_view c : code_points(r)) {
        if (static_cast<unsigned char>(c[0]) < 0x80) {
            out += c;
            continue;
        }
        // The code point of a UTF-8 sequence (the text is valid UTF-8).
        const auto b = [&](std::size_t i) { return static_cast<std::uint32_t>(static_cast<unsigned char>(c[i])); };
        const std::uint32_t cp =
            c.size() == 2   ? ((b(0) & 0x1F) << 6) | (b(1) & 0x3F)
            : c.size() == 3 ? ((b(0) & 0x0F) << 12) | ((b(1) & 0x3F) << 6) | (b(2) & 0x3F)
                            : ((b(0) & 0x07) << 18) | ((b(1) & 0x3F) << 12) | ((b(2) & 0x3F) << 6) | (b(3) & 0x3F);
        out += cp < 0x100     ? fmt::format("\\x{:02x}", cp)
               : cp < 0x10000 ? fmt::format("\\u{:04x}", cp)
                              : fmt::format("\\U{:08x}", cp);
    }
    return out;
}

std::string format_value(const Value& value, const std::string& spec) {
    return format_with(value, parse_spec(spec), spec);
}

std::string percent_format(const std::string& format, const Value& args) {
    // CPython's PyUnicode_Format: a tuple gives the arguments in order; any other value is the one
    // argument, used once (so '%s' % {1: 2} formats the dict), after which more conversions have
    // none; a %(key) conversion takes its key from a mapping (dicts; a list is a mapping to Python
    // too) and leaves no argument for a later plain conversion; a mapping never leaves arguments
    // "not converted".
    const bool is_tuple = args.kind() == K::Tuple;
    const bool mapping = args.kind() == K::Dict || args.kind() == K::List;
    const std::vector<Value> items = is_tuple ? args.as_list() : std::vector<Value>{};
    std::int64_t arglen = is_tuple ? static_cast<std::int64_t>(items.size()) : -1;
    std::int64_t argidx = is_tuple ? 0 : -2;
    Value current = args;
    const auto next_arg = [&]() -> Value {
        if (argidx >= arglen) throw EvalError("not enough arguments for format string");
        const std::int64_t at = argidx++;
        return arglen < 0 ? current : items[static_cast<std::size_t>(at)];
    };
    std::string out;
    for (std::size_t i = 0; i < format.size(); ++i) {
        if (format[i] != '%') {
            out += format[i];
            continue;
        }
        if (++i >= format.size()) throw EvalError("incomplete format");
        if (format[i] == '(') {
            const std::size_t close = format.find(')', i);
            if (close == std::string::npos) throw EvalError("incomplete format key");
            if (!mapping) throw EvalError("format requires a mapping");
            if (args.kind() != K::Dict) throw EvalError("list indices must be integers or slices, not str");
            const Value* found = args.as_dict().find(format.substr(i + 1, close - i - 1));
            if (!found) throw EvalError(fmt::format("key '{}' not found", format.substr(i + 1, close - i - 1)));
            current = *found;
            arglen = -1;
            argidx = -2;
            i = close + 1;
        }
        Spec spec;
        for (; i < format.size(); ++i) {
            const char c = format[i];
            if (c == '-') spec.align = '<';
            else if (c == '0') spec.zero = true;
            else if (c == '+') spec.sign = '+';
            else if (c == ' ') {
                if (spec.sign != '+') spec.sign = ' ';
            } else if (c == '#') spec.alt = true;
            else break;
        }
        if (i < format.size() && format[i] == '*') throw EvalError("'*' in a %-format is not supported");
        spec.width = parse_number(format, i);
        if (i < format.size() && format[i] == '.') {
            ++i;
            spec.precision = static_cast<int>(parse_number(format, i));
        }
        if (i >= format.size()) throw EvalError("incomplete format");
        const char conv = format[i];
        if (conv == '%') {
            out += '%';
            continue;
        }
        const Value v = next_arg();
        switch (conv) {
        case 'd':
        case 'i':
        case 'u': {
            mpz_class n;
            if (v.kind() == K::Float) {
                n = to_mpz(int_of_double(v.as_float()));
            } else if (v.kind() == K::Int || v.kind() == K::Bool) {
                n = to_mpz(v);
            } else {
                throw EvalError(fmt::format("%{} format: a real number is required, not {}", conv, v.type_name()));
            }
            Spec s = spec;
            s.type = 'd';
            if (s.align == '<') s.zero = false;
            out += format_int(n, s, spec.precision);
            break;
        }
        case 'x':
        case 'X':
        case 'o': {
            if (v.kind() != K::Int && v.kind() != K::Bool)
                throw EvalError(fmt::format("%{} format: an integer is required, not {}", conv, v.type_name()));
            Spec s = spec;
            s.type = conv;
            if (s.align == '<') s.zero = false;
            out += format_int(to_mpz(v), s, spec.precision);
            break;
        }
        case 'c': {
            Spec s = spec;
            s.zero = false;
            if (v.kind() == K::String) {
                if (code_point_count(v.as_string()) != 1) throw EvalError("%c requires an int or a unicode character");
                out += pad("", v.as_string(), s, '>');
            } else {
                s.type = 'c';
                if (!s.align) s.align = '>';
                out += format_int(to_mpz(v), s);
            }
            break;
        }
        case 'e':
        case 'E':
        case 'f':
        case 'F':
        case 'g':
        case 'G': {
            if (v.kind() != K::Float && v.kind() != K::Int && v.kind() != K::Bool)
                throw EvalError(fmt::format("must be real number, not {}", v.type_name()));
            Spec s = spec;
            s.type = conv;
            if (s.precision < 0) s.precision = 6;
            if (s.align == '<') s.zero = false;
            out += format_double(v.as_float(), s);
            break;
        }
        case 's':
        case 'r':
        case 'a': {
            Spec s = spec;
            s.zero = false;
            s.sign = '-';
            if (!s.align) s.align = '>';
            out += format_string(conv == 's' ? v.str() : conv == 'r' ? v.repr() : ascii_repr(v), s);
            break;
        }
        default: throw EvalError(fmt::format("unsupported format character '{}'", conv));
        }
        if (out.size() > limits().max_string) throw EvalError("string too long (render limit)");
    }
    if (!mapping && argidx < arglen) throw EvalError("not all arguments converted during string formatting");
    return out;
}

std::string str_format(const std::string& format, const Args& args) {
    std::string out;
    std::size_t auto_index = 0;
    bool manual = false;
    bool automatic = false;
    for (std::size_t i = 0; i < format.size(); ++i) {
        const char c = format[i];
        if (c == '}') {
            if (i + 1 < format.size() && format[i + 1] == '}') {
                out += '}';
                ++i;
                continue;
            }
            throw EvalError("Single '}' encountered in format string");
        }
        if (c != '{') {
            out += c;
            continue;
        }
        if (i + 1 < format.size() && format[i + 1] == '{') {
            out += '{';
            ++i;
            continue;
        }
        const std::size_t close = format.find('}', i);
        if (close == std::string::npos) throw EvalError("Single '{' encountered in format string");
        std::string field = format.substr(i + 1, close - i - 1);
        if (field.find('{') != std::string::npos) throw EvalError("nested replacement fields are not supported");
        i = close;
        std::string spec;
        char conversion = 0;
        if (auto colon = field.find(':'); colon != std::string::npos) {
            spec = field.substr(colon + 1);
            field.resize(colon);
        }
        if (auto bang = field.find('!'); bang != std::string::npos) {
            if (bang + 2 != field.size()) throw EvalError("expected ':' after conversion specifier");
            conversion = field[bang + 1];
            field.resize(bang);
        }
        std::size_t k = 0;
        while (k < field.size() && field[k] != '.' && field[k] != '[') ++k;
        const std::string head = field.substr(0, k);
        Value v;
        if (head.empty()) {
            if (manual) throw EvalError("cannot switch from manual field specification to automatic field numbering");
            automatic = true;
            if (auto_index >= args.positional.size())
                throw EvalError(fmt::format("Replacement index {} out of range for positional args tuple", auto_index));
            v = args.positional[auto_index++];
        } else if (head.find_first_not_of("0123456789") == std::string::npos) {
            if (automatic)
                throw EvalError("cannot switch from automatic field numbering to manual field specification");
            manual = true;
            std::size_t p = 0;
            const std::size_t index = parse_number(head, p);
            if (index >= args.positional.size())
                throw EvalError(fmt::format("Replacement index {} out of range for positional args tuple", index));
            v = args.positional[index];
        } else {
            const Value* kw = args.find_keyword(head);
            if (!kw) throw EvalError(fmt::format("KeyError: '{}'", head));
            v = *kw;
        }
        while (k < field.size()) {
            if (field[k] == '.') {
                std::size_t e = k + 1;
                while (e < field.size() && field[e] != '.' && field[e] != '[') ++e;
                v = attribute(v, field.substr(k + 1, e - k - 1));
                k = e;
            } else {
                const std::size_t e = field.find(']', k);
                if (e == std::string::npos) throw EvalError("Missing ']' in format string");
                const std::string key = field.substr(k + 1, e - k - 1);
                if (!key.empty() && key.find_first_not_of("0123456789") == std::string::npos) {
                    std::size_t p = 0;
                    v = index(v, Value(static_cast<std::int64_t>(parse_number(key, p))));
                } else {
                    v = index(v, Value(key));
                }
                k = e + 1;
            }
        }
        if (conversion == 'r') v = Value(v.repr());
        else if (conversion == 'a') v = Value(ascii_repr(v));
        else if (conversion == 's') v = Value(v.str());
        else if (conversion != 0) throw EvalError(fmt::format("Unknown conversion specifier {}", conversion));
        out += format_value(v, spec);
        if (out.size() > limits().max_string) throw EvalError("string too long (render limit)");
    }
    return out;
}

}  // namespace kjarni::tmpl
