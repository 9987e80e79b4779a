// Value: construction, accessors, and Python's str/repr/==/truthiness.

#include <kjarni/template/module.hpp>
#include <kjarni/template/value.hpp>

#include "bigint.hpp"
#include "complex.hpp"
#include "errors.hpp"
#include "limits.hpp"
#include "ownership.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <unordered_map>

namespace kjarni {

namespace {

[[noreturn]] void wrong_kind(const Value& v, const char* wanted) {
    throw tmpl::EvalError(fmt::format("expected {}, got {}", wanted, v.type_name()));
}

// Python's repr of a float: the shortest digits that round-trip, in fixed notation between 1e-4
// and 1e16 (with ".0" when integral), otherwise scientific with a two-digit exponent.
std::string format_float(double d) {
    if (std::isnan(d)) return "nan";
    if (std::isinf(d)) return d > 0 ? "inf" : "-inf";
    char buf[64];
    auto r = std::to_chars(buf, buf + sizeof(buf), d, std::chars_format::scientific);
    std::string sci(buf, r.ptr);  // e.g. "-1.5e+00"
    std::size_t e = sci.find('e');
    int exponent = std::atoi(sci.c_str() + e + 1);
    std::string mantissa = sci.substr(0, e);
    bool negative = mantissa[0] == '-';
    if (negative) mantissa.erase(0, 1);
    std::string digits;
    for (char c : mantissa)
        if (c != '.') digits += c;
    std::string out = negative ? "-" : "";
    if (exponent < -4 || exponent >= 16) {
        out += digits.substr(0, 1);
        if (digits.size() > 1) out += "." + digits.substr(1);
        out += fmt::format("e{}{:02d}", exponent < 0 ? '-' : '+', std::abs(exponent));
        return out;
    }
    if (exponent < 0) {
        out += "0." + std::string(static_cast<std::size_t>(-exponent - 1), '0') + digits;
        return out;
    }
    auto point = static_cast<std::size_t>(exponent) + 1;
    if (digits.size() <= point) {
        out += digits + std::string(point - digits.size(), '0') + ".0";
    } else {
        out += digits.substr(0, point) + "." + digits.substr(point);
    }
    return out;
}

/// Whether Python's repr escapes the code point `cp` (at least 0x80; str.isprintable() false):
/// the Latin-1 range exactly (the C1 controls, the no-break space, the soft hyphen), and beyond it
/// the format, separator and private-use characters; other unassigned ones are written as they are.
bool escaped_by_repr(std::uint32_t cp) {
    if (cp < 0x100) return cp <= 0xA0 || cp == 0xAD;
    return cp == 0x061C || cp == 0x1680 || cp == 0x180E || (cp >= 0x2000 && cp <= 0x200F) ||
           (cp >= 0x2028 && cp <= 0x202F) || (cp >= 0x205F && cp <= 0x206F) || cp == 0x3000 ||
           (cp >= 0xE000 && cp <= 0xF8FF) || cp == 0xFEFF || (cp >= 0xFFF9 && cp <= 0xFFFB) || cp >= 0xF0000;
}

std::string quote(const std::string& s) {
    char q = (s.find('\'') != std::string::npos && s.find('"') == std::string::npos) ? '"' : '\'';
    std::string out(1, q);
    for (std::size_t i = 0; i < s.size(); ++i) {
        const char c = s[i];
        const auto lead = static_cast<unsigned char>(c);
        if (lead >= 0xC0) {
            // A UTF-8 sequence (the text is valid UTF-8): escaped as Python's repr escapes it, else
            // kept as it is.
            const std::size_t length = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : 2;
            std::uint32_t cp = lead & (length == 2 ? 0x1Fu : length == 3 ? 0x0Fu : 0x07u);
            for (std::size_t k = 1; k < length && i + k < s.size(); ++k)
                cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3Fu);
            if (escaped_by_repr(cp)) {
                out += cp < 0x100     ? fmt::format("\\x{:02x}", cp)
                       : cp < 0x10000 ? fmt::format("\\u{:04x}", cp)
                                      : fmt::format("\\U{:08x}", cp);
            } else {
                out.append(s, i, length);
            }
            i += length - 1;
            continue;
        }
        switch (c) {
        case '\\': out += "\\\\"; break;
        case '\n': out += "\\n"; break;
        case '\t': out += "\\t"; break;
        case '\r': out += "\\r"; break;
        default:
            if (c == q) {
                out += '\\';
                out += c;
            } else if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
                out += fmt::format("\\x{:02x}", static_cast<unsigned char>(c));
            } else {
                out += c;
            }
        }
    }
    out += q;
    return out;
}

void check_size(const std::string& s) {
    if (s.size() > tmpl::limits().max_string) throw tmpl::EvalError("string too long (render limit)");
}

}  // namespace

const Value& Args::operator[](std::size_t i) const {
    if (i >= positional.size())
        throw tmpl::EvalError(fmt::format("argument {} requested but only {} given", i + 1, positional.size()));
    return positional[i];
}

const Value* Args::find_keyword(std::string_view name) const noexcept {
    for (const auto& [k, v] : keyword)
        if (k == name) return &v;
    return nullptr;
}

Value Object::attribute(const std::string& name) const {
    throw tmpl::EvalError(fmt::format("'{}' object has no attribute '{}'", type_name(), name));
}
Value Object::call(const Args&) const {
    throw tmpl::EvalError(fmt::format("'{}' object is not callable", type_name()));
}
std::shared_ptr<const Object> Object::process_modules(const std::function<Value(const Value&)>&) const {
    return nullptr;
}

Value::Storage Value::big_storage(std::uint64_t u) {
    mpz_class x(static_cast<unsigned long>(u >> 32));
    x <<= 32;
    x += static_cast<unsigned long>(u & 0xffffffffu);
    return tmpl::make_int(x).storage();
}

Value::Value(const Module& module) : storage_(module.impl()) {}
Value::Value(const Snippet& snippet) : storage_(snippet.impl()) {}

namespace {

// Values whose last reference is being dropped, freed one after another instead of recursively:
// the first container destroyed on a thread drains the queue; those destroyed meanwhile only add
// their items to it.
thread_local std::vector<Value>* dying = nullptr;

void free_iteratively(std::vector<Value>&& items) {
    if (dying) {
        for (auto& v : items) dying->push_back(std::move(v));
        items.clear();
        return;
    }
    std::vector<Value> queue = std::move(items);
    dying = &queue;
    while (!queue.empty()) {
        Value v = std::move(queue.back());
        queue.pop_back();
        // v's destructor runs here: a container it frees appends its items to the queue.
    }
    dying = nullptr;
}

}  // namespace

Value::ListData::~ListData() { free_iteratively(std::move(items)); }

Value::SetData::~SetData() { free_iteratively(std::move(items)); }

Value::DictData::~DictData() {
    auto pairs = items.release();
    std::vector<Value> flat;
    flat.reserve(pairs.size() * 2);
    for (auto& [k, v] : pairs) {
        flat.push_back(std::move(k));
        flat.push_back(std::move(v));
    }
    free_iteratively(std::move(flat));
}

// The data are made non-const (and stored as pointers to const): the render that owns them may
// change them in place (ownership.cpp), which is defined behaviour only for non-const objects.
Value Value::list(std::vector<Value> items) {
    return Value(Storage(std::shared_ptr<const ListData>(
        std::make_shared<ListData>(ListData{std::move(items), false, tmpl::current_owner()}))));
}
Value Value::tuple(std::vector<Value> items) {
    return Value(
        Storage(std::shared_ptr<const ListData>(std::make_shared<ListData>(ListData{std::move(items), true, 0}))));
}
Value Value::set(const std::vector<Value>& items) {
    auto data = std::make_shared<SetData>(SetData{{}, tmpl::current_owner()});
    // Members found by hash (a set of n members costs n lookups, not n^2 comparisons).
    std::unordered_multimap<std::size_t, std::size_t> index;
    for (const auto& item : items) {
        check_hashable(item);
        const std::size_t h = tmpl::hash_value(item);
        auto [b, e] = index.equal_range(h);
        bool found = false;
        for (auto it = b; it != e && !found; ++it) found = data->items[it->second] == item;
        if (found) continue;
        index.emplace(h, data->items.size());
        data->items.push_back(item);
    }
    return Value(Storage(std::shared_ptr<const SetData>(std::move(data))));
}
Value Value::dict(DictItems items) {
    return Value(Storage(std::shared_ptr<const DictData>(
        std::make_shared<DictData>(DictData{std::move(items), tmpl::current_owner()}))));
}

DictItems::DictItems(const Globals& globals) {
    items_.reserve(globals.size());
    for (const auto& kv : globals) items_.emplace_back(Value(kv.first), kv.second);
}

DictItems::DictItems(std::initializer_list<value_type> items) {
    for (const auto& [k, v] : items) set(k, v);
}

const Value* DictItems::find(std::string_view key) const noexcept {
    for (const auto& kv : items_)
        if (kv.first.kind() == Value::Kind::String && kv.first.as_string() == key) return &kv.second;
    return nullptr;
}

const Value* DictItems::find(const Value& key) const {
    check_hashable(key);
    if (key.kind() == Value::Kind::String) return find(std::string_view(key.as_string()));
    for (const auto& kv : items_)
        if (kv.first == key) return &kv.second;
    return nullptr;
}

void DictItems::set(Value key, Value value) {
    if (Value* found = const_cast<Value*>(find(key))) {
        *found = std::move(value);
        return;
    }
    items_.emplace_back(std::move(key), std::move(value));
}

bool DictItems::erase(const Value& key) {
    check_hashable(key);
    for (auto it = items_.begin(); it != items_.end(); ++it) {
        if (it->first == key) {
            items_.erase(it);
            return true;
        }
    }
    return false;
}

void check_hashable(const Value& v) {
    switch (v.kind()) {
    case Value::Kind::List:
    case Value::Kind::Dict:
    case Value::Kind::Set: throw tmpl::EvalError(fmt::format("unhashable type: '{}'", v.type_name()));
    case Value::Kind::Tuple:
        for (const auto& item : v.as_list()) check_hashable(item);
        return;
    default: return;
    }
}

bool operator==(const DictItems& a, const DictItems& b) {
    if (a.size() != b.size()) return false;
    for (const auto& [k, v] : a) {
        const Value* other = b.find(k);
        if (!other || !(*other == v)) return false;
    }
    return true;
}

Value::Kind Value::kind() const noexcept {
    switch (storage_.index()) {
    case 0: return Kind::None;
    case 1: return Kind::Bool;
    case 2: return Kind::Int;
    case 3: return Kind::Float;
    case 4: return Kind::String;
    case 5: return std::get<5>(storage_)->tuple ? Kind::Tuple : Kind::List;
    case 6: return Kind::Dict;
    case 7: return Kind::Callable;
    case 8: return Kind::Object;
    case 9: return Kind::Module;
    case 10: return Kind::Snippet;
    case 11: return Kind::Set;
    default: return Kind::Int;  // a BigInt
    }
}

std::string Value::type_name() const {
    switch (kind()) {
    case Kind::None: return "NoneType";
    case Kind::Bool: return "bool";
    case Kind::Int: return "int";
    case Kind::Float: return "float";
    case Kind::String: return "str";
    case Kind::List: return "list";
    case Kind::Tuple: return "tuple";
    case Kind::Dict: return "dict";
    case Kind::Callable: return "function";
    case Kind::Object: return std::get<8>(storage_)->type_name();
    case Kind::Module: return "Module";
    case Kind::Snippet: return "Snippet";
    case Kind::Set: return "set";
    }
    return "?";
}

bool Value::as_bool() const {
    if (kind() != Kind::Bool) wrong_kind(*this, "bool");
    return std::get<bool>(storage_);
}
std::int64_t Value::as_int() const {
    if (kind() == Kind::Bool) return std::get<bool>(storage_) ? 1 : 0;
    if (kind() != Kind::Int) wrong_kind(*this, "int");
    if (tmpl::is_big(*this)) throw tmpl::EvalError(fmt::format("integer {} does not fit in 64 bits", repr()));
    return std::get<std::int64_t>(storage_);
}
double Value::as_float() const {
    if (kind() == Kind::Float) return std::get<double>(storage_);
    if (tmpl::is_big(*this)) return tmpl::int_to_double(tmpl::to_mpz(*this));
    if (kind() == Kind::Int || kind() == Kind::Bool) return static_cast<double>(as_int());
    wrong_kind(*this, "float");
}
const std::string& Value::as_string() const {
    if (kind() != Kind::String) wrong_kind(*this, "str");
    return *std::get<4>(storage_);
}
const std::vector<Value>& Value::as_list() const {
    if (storage_.index() != 5) wrong_kind(*this, "list");
    return std::get<5>(storage_)->items;
}
const DictItems& Value::as_dict() const {
    if (kind() != Kind::Dict) wrong_kind(*this, "dict");
    return std::get<6>(storage_)->items;
}
const std::vector<Value>& Value::as_set() const {
    if (kind() != Kind::Set) wrong_kind(*this, "set");
    return std::get<11>(storage_)->items;
}
const Function& Value::as_function() const {
    if (kind() != Kind::Callable) wrong_kind(*this, "function");
    return *std::get<7>(storage_);
}
const std::shared_ptr<const Object>& Value::as_object() const {
    if (kind() != Kind::Object) wrong_kind(*this, "object");
    return std::get<8>(storage_);
}
Module Value::as_module() const {
    if (kind() != Kind::Module) wrong_kind(*this, "Module");
    return Module(std::get<9>(storage_));
}
Snippet Value::as_snippet() const {
    if (kind() != Kind::Snippet) wrong_kind(*this, "Snippet");
    return Snippet(std::get<10>(storage_));
}

bool Value::truthy() const {
    switch (kind()) {
    case Kind::None: return false;
    case Kind::Bool: return std::get<bool>(storage_);
    case Kind::Int: return tmpl::is_big(*this) || std::get<std::int64_t>(storage_) != 0;
    case Kind::Float: return std::get<double>(storage_) != 0.0;
    case Kind::String: return !as_string().empty();
    case Kind::List:
    case Kind::Tuple: return !as_list().empty();
    case Kind::Dict: return !as_dict().empty();
    case Kind::Set: return !as_set().empty();
    case Kind::Object:
        if (const auto c = tmpl::complex_parts(*this)) return c->real != 0.0 || c->imag != 0.0;
        return true;
    default: return true;
    }
}

std::string Value::str() const {
    switch (kind()) {
    case Kind::String: return as_string();
    case Kind::Object: return std::get<8>(storage_)->to_string();
    default: return repr();
    }
}

namespace {

// Python's recursion limit (1000) stops repr and == of deeply nested containers; kjarni stops them
// there too, with Python's message, rather than overflowing the stack.
thread_local std::size_t nesting = 0;

struct NestingGuard {
    explicit NestingGuard(const char* what) {
        if (++nesting > 1000) {
            --nesting;
            throw tmpl::EvalError(fmt::format("maximum recursion depth exceeded {}", what));
        }
    }
    ~NestingGuard() { --nesting; }
    NestingGuard(const NestingGuard&) = delete;
    NestingGuard& operator=(const NestingGuard&) = delete;
};

}  // namespace

std::string Value::repr() const {
    NestingGuard guard("while getting the repr of an object");
    switch (kind()) {
    case Kind::None: return "None";
    case Kind::Bool: return std::get<bool>(storage_) ? "True" : "False";
    case Kind::Int:
        if (tmpl::is_big(*this)) return tmpl::int_to_decimal(tmpl::to_mpz(*this));
        return fmt::format("{}", std::get<std::int64_t>(storage_));
    case Kind::Float: return format_float(std::get<double>(storage_));
    case Kind::String: return quote(as_string());
    case Kind::List:
    case Kind::Tuple: {
        bool is_tuple = kind() == Kind::Tuple;
        const auto& items = as_list();
        std::string out = is_tuple ? "(" : "[";
        for (std::size_t i = 0; i < items.size(); ++i) {
            if (i) out += ", ";
            out += items[i].repr();
            check_size(out);
        }
        if (is_tuple && items.size() == 1) out += ",";
        out += is_tuple ? ")" : "]";
        return out;
    }
    case Kind::Dict: {
        std::string out = "{";
        bool first = true;
        for (const auto& [k, v] : as_dict()) {
            if (!first) out += ", ";
            first = false;
            out += k.repr() + ": " + v.repr();
            check_size(out);
        }
        return out + "}";
    }
    case Kind::Set: {
        const auto& items = as_set();
        if (items.empty()) return "set()";
        // Python prints a set in hash order; kjarni has the insertion order only.
        if (items.size() > 1)
            throw tmpl::EvalError("printing a set of more than one member is not supported (Python prints it in hash "
                                  "order, which kjarni does not reproduce): print sorted(...) instead");
        return "{" + items[0].repr() + "}";
    }
    case Kind::Callable: return "<function>";
    case Kind::Object: return std::get<8>(storage_)->to_string();
    case Kind::Module: return fmt::format("<Module {}>", std::get<9>(storage_)->def.name());
    case Kind::Snippet: return fmt::format("<Snippet {}>", std::get<10>(storage_)->def.name());
    }
    return "?";
}

bool operator==(const Value& a, const Value& b) {
    using K = Value::Kind;
    NestingGuard guard("in comparison");
    K ka = a.kind();
    K kb = b.kind();
    auto numeric = [](K k) { return k == K::Bool || k == K::Int || k == K::Float; };
    if (numeric(ka) && numeric(kb)) {
        const bool big = tmpl::is_big(a) || tmpl::is_big(b);
        if (ka == K::Float || kb == K::Float) {
            if (!big) return a.as_float() == b.as_float();
            // Exactly, as Python compares an int with a float.
            const Value& i = ka == K::Float ? b : a;
            const double d = (ka == K::Float ? a : b).as_float();
            return std::isfinite(d) && cmp(tmpl::to_mpz(i), d) == 0;
        }
        if (big) return tmpl::to_mpz(a) == tmpl::to_mpz(b);
        return a.as_int() == b.as_int();
    }
    if (ka == K::Object || kb == K::Object)
        if (const auto c = tmpl::complex_equal(a, b)) return *c;
    if (ka != kb) return false;
    switch (ka) {
    case K::None: return true;
    case K::String: return a.as_string() == b.as_string();
    case K::List:
    case K::Tuple: return a.as_list() == b.as_list();
    case K::Dict: return a.as_dict() == b.as_dict();
    case K::Set: {
        const auto& x = a.as_set();
        const auto& y = b.as_set();
        if (x.size() != y.size()) return false;
        for (const auto& item : x)
            if (std::find(y.begin(), y.end(), item) == y.end()) return false;
        return true;
    }
    default: return a.storage() == b.storage();  // identity of the shared object
    }
}

}  // namespace kjarni
