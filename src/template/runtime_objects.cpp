// Mako's runtime objects, with the behaviour of Mako's runtime.py and filters.py.

#include "runtime_objects.hpp"

#include "bigint.hpp"
#include "builtins.hpp"
#include "errors.hpp"
#include "operators.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

namespace kjarni::tmpl {

namespace {

class LoopContext final : public Object {
public:
    LoopContext(std::size_t index, std::size_t length, Value parent)
        : index_(index), length_(length), parent_(std::move(parent)) {}
    std::string type_name() const override { return "LoopContext"; }
    std::string to_string() const override { return "<mako.runtime.LoopContext object>"; }
    Value attribute(const std::string& name) const override {
        if (name == "index") return Value(index_);
        // Signed: in a for's else body the index is past the last item (reverse_index -1).
        if (name == "reverse_index")
            return Value(static_cast<std::int64_t>(length_) - static_cast<std::int64_t>(index_) - 1);
        if (name == "first") return Value(index_ == 0);
        if (name == "last") return Value(index_ + 1 == length_);
        if (name == "even") return Value(index_ % 2 == 0);
        if (name == "odd") return Value(index_ % 2 == 1);
        if (name == "parent") {
            if (parent_.is_none()) throw EvalError("No parent loop context is established");
            return parent_;
        }
        if (name == "cycle") {
            const std::size_t index = index_;
            return Value(Function([index](const Args& a) {
                if (!a.keyword.empty()) throw EvalError("cycle() takes no keyword arguments");
                if (a.positional.empty()) throw EvalError("You must provide values to cycle through");
                return a.positional[index % a.positional.size()];
            }));
        }
        if (name == "__len__") {
            const std::size_t length = length_;
            return Value(Function([length](const Args&) { return Value(length); }));
        }
        return Object::attribute(name);
    }

private:
    std::size_t index_;
    std::size_t length_;
    Value parent_;
};

class Context final : public Object {
public:
    Context(std::shared_ptr<const Globals> globals, Function write, InheritedNames inherited)
        : globals_(std::move(globals)), write_(std::move(write)),
          inherited_(std::make_shared<const InheritedNames>(std::move(inherited))) {}
    std::string type_name() const override { return "Context"; }
    std::string to_string() const override { return "<mako.runtime.Context object>"; }
    Value attribute(const std::string& name) const override {
        auto g = globals_;
        auto inherited = inherited_;
        // A name's value: what inheritance set (parent, next), a render global, else a builtin
        // (Mako's get and [] fall back on Python's builtins: context.get('len') is len).
        const auto find = [g, inherited](const std::string& key) -> const Value* {
            for (const auto& [own, value] : *inherited)
                if (own == key) return &value;
            if (auto it = g->find(key); it != g->end()) return &it->second;
            return find_builtin(key);
        };
        if (name == "get")
            return Value(Function([find](const Args& a) {
                if (!a.keyword.empty() || a.size() < 1 || a.size() > 2)
                    throw EvalError("context.get() takes a name and an optional default");
                if (a[0].kind() == Value::Kind::String)
                    if (const Value* v = find(a[0].as_string())) return *v;
                return a.size() > 1 ? a[1] : Value();
            }));
        if (name == "keys")
            return Value(Function([g, inherited](const Args& a) {
                if (a.size() || !a.keyword.empty()) throw EvalError("context.keys() takes no arguments");
                std::vector<Value> keys;
                for (const auto& kv : *g) keys.emplace_back(kv.first);
                // The names Mako's context holds besides the render globals.
                for (const char* own : {"capture", "caller", "self", "local"})
                    if (!g->count(own)) keys.emplace_back(own);
                for (const auto& [own, value] : *inherited)
                    if (!g->count(own)) keys.emplace_back(own);
                return Value::list(std::move(keys));
            }));
        if (name == "__getitem__")  // context['n']: as get, else a KeyError
            return Value(Function([find](const Args& a) {
                if (a.size() != 1 || !a.keyword.empty()) throw EvalError("context[] takes one key");
                if (a[0].kind() == Value::Kind::String)
                    if (const Value* v = find(a[0].as_string())) return *v;
                throw EvalError(fmt::format("KeyError: {}", a[0].repr()));
            }));
        if (name == "write" && write_) return Value(write_);
        if (name == "kwargs") return Value::dict(DictItems(*g));
        return Object::attribute(name);
    }

private:
    std::shared_ptr<const Globals> globals_;
    Function write_;  // context.write(text): writes to the output being rendered
    std::shared_ptr<const InheritedNames> inherited_;
};

class Undefined final : public Object {
public:
    std::string type_name() const override { return "Undefined"; }
    std::string to_string() const override { throw EvalError("Undefined"); }
};

std::string xml_escape(const std::string& s) {
    std::string out;
    for (char c : s) {
        switch (c) {
        case '&': out += "&amp;"; break;
        case '<': out += "&lt;"; break;
        case '>': out += "&gt;"; break;
        case '"': out += "&#34;"; break;
        case '\'': out += "&#39;"; break;
        default: out += c;
        }
    }
    return out;
}

// urllib.parse.quote_plus of the UTF-8 bytes: letters, digits and _.-~ stay, space becomes +.
std::string url_escape(const std::string& s) {
    std::string out;
    for (char c : s) {
        const auto u = static_cast<unsigned char>(c);
        if ((u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z') || (u >= '0' && u <= '9') || c == '_' || c == '.' ||
            c == '-' || c == '~')
            out += c;
        else if (c == ' ') out += '+';
        else out += fmt::format("%{:02X}", u);
    }
    return out;
}

std::string trim(const std::string& s) {
    const char* ws = " \t\n\r\f\v";
    const std::size_t b = s.find_first_not_of(ws);
    if (b == std::string::npos) return {};
    return s.substr(b, s.find_last_not_of(ws) - b + 1);
}

// `any_value`: the filter takes any value (str() of it), as Mako's h (markupsafe's escape) and
// str do; Mako's x, u and trim call str methods, so a value that is no str (after the `n` filter)
// fails there.
Function string_filter(std::string (*f)(const std::string&), const char* name, bool any_value) {
    return [f, name, any_value](const Args& a) {
        if (a.size() != 1 || !a.keyword.empty())
            throw EvalError(fmt::format("the filter '{}' takes one argument", name));
        if (!any_value && a[0].kind() != Value::Kind::String)
            throw EvalError(fmt::format("the filter '{}' takes a str, not {} (Mako's filters call str methods)", name,
                                        a[0].type_name()));
        return Value(f(a[0].kind() == Value::Kind::String ? a[0].as_string() : a[0].str()));
    };
}

std::string to_str(const std::string& s) { return s; }

}  // namespace

Value make_loop_context(std::size_t index, std::size_t length, Value parent) {
    return Value(std::make_shared<LoopContext>(index, length, std::move(parent)));
}

Value make_context(std::shared_ptr<const Globals> globals, Function write, InheritedNames inherited) {
    return Value(std::make_shared<Context>(std::move(globals), std::move(write), std::move(inherited)));
}

const Value& undefined_value() {
    static const Value undefined(std::make_shared<Undefined>());
    return undefined;
}

const Function* find_escape_filter(const std::string& name) {
    static const std::map<std::string, Function> filters = {
        {"h", string_filter(xml_escape, "h", true)},  {"x", string_filter(xml_escape, "x", false)},
        {"u", string_filter(url_escape, "u", false)}, {"trim", string_filter(trim, "trim", false)},
        {"str", string_filter(to_str, "str", true)},  {"unicode", string_filter(to_str, "unicode", true)},
    };
    auto it = filters.find(name);
    return it == filters.end() ? nullptr : &it->second;
}

Value TypeObject::attribute(const std::string& name) const {
    if (name == "__name__") return Value(name_);
    // A method of the type, unbound (`str.lower`, as in sorted(xs, key=str.lower)): called with the
    // instance first.
    static const std::map<std::string, Value::Kind, std::less<>> kinds = {{"str", Value::Kind::String},
                                                                          {"list", Value::Kind::List},
                                                                          {"tuple", Value::Kind::Tuple},
                                                                          {"dict", Value::Kind::Dict},
                                                                          {"set", Value::Kind::Set}};
    const auto kind = kinds.find(name_);
    if (kind == kinds.end()) return Object::attribute(name);
    const Value empty = kind->second == Value::Kind::String  ? Value(std::string())
                        : kind->second == Value::Kind::List  ? Value::list({})
                        : kind->second == Value::Kind::Tuple ? Value::tuple({})
                        : kind->second == Value::Kind::Dict  ? Value::dict({})
                                                             : Value::set({});
    try {
        static_cast<void>(tmpl::attribute(empty, name));
    } catch (const EvalError&) {
        throw EvalError(fmt::format("type object '{}' has no attribute '{}'", name_, name));
    }
    return Value(Function([type = name_, want = kind->second, name](const Args& a) {
        if (a.positional.empty()) throw EvalError(fmt::format("unbound method {}.{}() needs an argument", type, name));
        const Value& self = a.positional[0];
        if (self.kind() != want)
            throw EvalError(fmt::format("descriptor '{}' for '{}' objects doesn't apply to a '{}' object", name, type,
                                        self.type_name()));
        const Args rest{{a.positional.begin() + 1, a.positional.end()}, a.keyword};
        return call_value(tmpl::attribute(self, name), rest);
    }));
}

Value TypeObject::call(const Args& args) const {
    if (!make_) throw EvalError(fmt::format("cannot create '{}' instances", name_));
    return make_(args);
}

std::string IteratorObject::type_name() const {
    return source_.kind() == Value::Kind::Tuple ? "tuple_iterator" : "list_iterator";
}

const Value* IteratorObject::next() const {
    const auto& items = source_.as_list();
    if (index_ >= items.size()) return nullptr;
    return &items[index_++];
}

std::vector<Value> IteratorObject::rest() const {
    const auto& items = source_.as_list();
    std::vector<Value> out(items.begin() + static_cast<std::ptrdiff_t>(std::min(index_, items.size())), items.end());
    index_ = items.size();
    return out;
}

namespace {

double real(const Value& v, const char* fn) {
    if (v.kind() != Value::Kind::Int && v.kind() != Value::Kind::Bool && v.kind() != Value::Kind::Float)
        throw EvalError(fmt::format("math.{}(): must be real number, not {}", fn, v.type_name()));
    return v.as_float();
}

/// math.hypot as Python's: the correctly rounded sqrt(x^2 + y^2), where C's hypot may be an ulp
/// off (hypot(3.14159, 10.3618): 10.827579922037058, glibc's ...057). Both are scaled by the power
/// of two that puts the larger in [0.5, 1) (no overflow or underflow in between), squared exactly
/// (fma) and summed in two doubles; the root is then corrected by one Newton step on its residual.
double python_hypot(double x, double y) {
    x = std::fabs(x);
    y = std::fabs(y);
    if (std::isinf(x) || std::isinf(y)) return std::numeric_limits<double>::infinity();
    if (std::isnan(x) || std::isnan(y)) return std::numeric_limits<double>::quiet_NaN();
    const double big = std::max(x, y), small = std::min(x, y);
    if (small == 0.0) return big;
    int e = 0;
    static_cast<void>(std::frexp(big, &e));
    const double a = std::ldexp(big, -e), b = std::ldexp(small, -e);
    const double a2 = a * a, a2_error = std::fma(a, a, -a2);
    const double b2 = b * b, b2_error = std::fma(b, b, -b2);
    const double sum = a2 + b2;
    const double sum_error = ((a2 - sum) + b2) + (a2_error + b2_error);  // a2 >= b2: the sum's error is exact
    double h = std::sqrt(sum + sum_error);
    const double h2 = h * h, h2_error = std::fma(h, h, -h2);
    h += (((sum - h2) + sum_error) - h2_error) / (2.0 * h);
    return std::ldexp(h, e);
}

void arity(const Args& a, std::size_t n, const char* fn) {
    if (!a.keyword.empty() || a.size() != n)
        throw EvalError(
            fmt::format("math.{}() takes exactly {} argument{} ({} given)", fn, n, n == 1 ? "" : "s", a.size()));
}

// A float result, checked as Python's math module checks it: NaN from a number is a domain error,
// infinity from finite numbers an overflow.
Value checked(double r, double x, double y = 0.0) {
    if (std::isnan(r) && !std::isnan(x) && !std::isnan(y)) throw EvalError("math domain error");
    if (std::isinf(r) && std::isfinite(x) && std::isfinite(y)) throw EvalError("math range error");
    return Value(r);
}

class MathModule final : public Object {
public:
    std::string type_name() const override { return "module"; }
    std::string to_string() const override { return "<module 'math' (built-in)>"; }
    Value attribute(const std::string& name) const override {
        if (name == "pi") return 3.141592653589793;
        if (name == "e") return 2.718281828459045;
        if (name == "tau") return 6.283185307179586;
        if (name == "inf") return HUGE_VAL;
        if (name == "nan") return std::nan("");
        using F1 = double (*)(double);
        static const std::map<std::string, F1> unary = {
            {"sqrt", [](double x) { return std::sqrt(x); }},
            {"exp", [](double x) { return std::exp(x); }},
            {"log2", [](double x) { return std::log2(x); }},
            {"log10", [](double x) { return std::log10(x); }},
            {"sin", [](double x) { return std::sin(x); }},
            {"cos", [](double x) { return std::cos(x); }},
            {"tan", [](double x) { return std::tan(x); }},
            {"asin", [](double x) { return std::asin(x); }},
            {"acos", [](double x) { return std::acos(x); }},
            {"atan", [](double x) { return std::atan(x); }},
            {"sinh", [](double x) { return std::sinh(x); }},
            {"cosh", [](double x) { return std::cosh(x); }},
            {"tanh", [](double x) { return std::tanh(x); }},
            {"fabs", [](double x) { return std::fabs(x); }},
            {"log1p", [](double x) { return std::log1p(x); }},
            {"expm1", [](double x) { return std::expm1(x); }},
            {"radians", [](double x) { return x * (std::acos(-1.0) / 180.0); }},
            {"degrees", [](double x) { return x * (180.0 / std::acos(-1.0)); }},
        };
        if (auto it = unary.find(name); it != unary.end()) {
            const F1 f = it->second;
            return Value(Function([f, name](const Args& a) {
                arity(a, 1, name.c_str());
                const double x = real(a[0], name.c_str());
                if ((name == "log2" || name == "log10") && x <= 0) throw EvalError("math domain error");
                return checked(f(x), x);
            }));
        }
        if (name == "floor" || name == "ceil" || name == "trunc")
            return Value(Function([name](const Args& a) {
                arity(a, 1, name.c_str());
                if (a[0].kind() == Value::Kind::Int || a[0].kind() == Value::Kind::Bool)
                    return is_big(a[0]) ? a[0] : Value(a[0].as_int());
                const double x = real(a[0], name.c_str());
                return int_of_double(name == "floor" ? std::floor(x) : name == "ceil" ? std::ceil(x) : std::trunc(x));
            }));
        if (name == "log")
            return Value(Function([](const Args& a) {
                if (!a.keyword.empty() || a.size() < 1 || a.size() > 2)
                    throw EvalError("math.log() takes 1 or 2 arguments");
                const double x = real(a[0], "log");
                if (x <= 0) throw EvalError("math domain error");
                if (a.size() == 1) return Value(std::log(x));
                const double b = real(a[1], "log");
                if (b <= 0 || b == 1) throw EvalError(b == 1 ? "float division by zero" : "math domain error");
                return Value(std::log(x) / std::log(b));
            }));
        if (name == "pow" || name == "atan2" || name == "hypot" || name == "fmod" || name == "copysign")
            return Value(Function([name](const Args& a) {
                arity(a, 2, name.c_str());
                const double x = real(a[0], name.c_str()), y = real(a[1], name.c_str());
                if (name == "pow") return checked(std::pow(x, y), x, y);
                if (name == "atan2") return Value(std::atan2(x, y));
                if (name == "hypot") return checked(python_hypot(x, y), x, y);
                if (name == "fmod") {
                    if (y == 0.0 || std::isinf(x)) throw EvalError("math domain error");
                    return Value(std::fmod(x, y));
                }
                return Value(std::copysign(x, y));
            }));
        if (name == "isnan" || name == "isinf" || name == "isfinite")
            return Value(Function([name](const Args& a) {
                arity(a, 1, name.c_str());
                const double x = real(a[0], name.c_str());
                return Value(name == "isnan" ? std::isnan(x) : name == "isinf" ? std::isinf(x) : std::isfinite(x));
            }));
        if (name == "gcd" || name == "lcm")
            return Value(Function([name](const Args& a) {
                if (!a.keyword.empty()) throw EvalError(fmt::format("math.{}() takes no keyword arguments", name));
                mpz_class r = name == "gcd" ? 0 : 1;
                for (const auto& v : a.positional) {
                    if (v.kind() != Value::Kind::Int && v.kind() != Value::Kind::Bool)
                        throw EvalError(fmt::format("'{}' object cannot be interpreted as an integer", v.type_name()));
                    const mpz_class x = to_mpz(v);
                    if (name == "gcd") mpz_gcd(r.get_mpz_t(), r.get_mpz_t(), x.get_mpz_t());
                    else mpz_lcm(r.get_mpz_t(), r.get_mpz_t(), x.get_mpz_t());
                }
                return make_int(r);
            }));
        if (name == "factorial")
            return Value(Function([](const Args& a) {
                arity(a, 1, "factorial");
                if (a[0].kind() != Value::Kind::Int && a[0].kind() != Value::Kind::Bool)
                    throw EvalError("factorial() only accepts integral values");
                const std::int64_t n = a[0].as_int();
                if (n < 0) throw EvalError("factorial() not defined for negative values");
                if (n > 20000) throw EvalError("factorial() argument too large (render limit)");
                mpz_class r;
                mpz_fac_ui(r.get_mpz_t(), static_cast<unsigned long>(n));
                return make_int(r);
            }));
        if (name == "isqrt")
            return Value(Function([](const Args& a) {
                arity(a, 1, "isqrt");
                if (a[0].kind() != Value::Kind::Int && a[0].kind() != Value::Kind::Bool)
                    throw EvalError(fmt::format("'{}' object cannot be interpreted as an integer", a[0].type_name()));
                const mpz_class x = to_mpz(a[0]);
                if (x < 0) throw EvalError("isqrt() argument must be nonnegative");
                mpz_class r;
                mpz_sqrt(r.get_mpz_t(), x.get_mpz_t());
                return make_int(r);
            }));
        throw EvalError(fmt::format("module 'math' has no attribute '{}'", name));
    }
};

}  // namespace

const Value& math_module() {
    static const Value m(std::make_shared<MathModule>());
    return m;
}

}  // namespace kjarni::tmpl
