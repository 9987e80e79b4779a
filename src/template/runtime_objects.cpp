// Mako's runtime objects, with the behaviour of Mako's runtime.py and filters.py.

#include "runtime_objects.hpp"

#include "errors.hpp"
#include "operators.hpp"

#include <fmt/format.h>

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
        if (name == "reverse_index") return Value(length_ - index_ - 1);
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
    explicit Context(std::shared_ptr<const Globals> globals) : globals_(std::move(globals)) {}
    std::string type_name() const override { return "Context"; }
    std::string to_string() const override { return "<mako.runtime.Context object>"; }
    Value attribute(const std::string& name) const override {
        auto g = globals_;
        if (name == "get")
            return Value(Function([g](const Args& a) {
                if (!a.keyword.empty() || a.size() < 1 || a.size() > 2)
                    throw EvalError("context.get() takes a name and an optional default");
                if (a[0].kind() == Value::Kind::String) {
                    if (auto it = g->find(a[0].as_string()); it != g->end()) return it->second;
                }
                return a.size() > 1 ? a[1] : Value();
            }));
        if (name == "keys")
            return Value(Function([g](const Args& a) {
                if (a.size() || !a.keyword.empty()) throw EvalError("context.keys() takes no arguments");
                std::vector<Value> keys;
                for (const auto& kv : *g) keys.emplace_back(kv.first);
                return Value::list(std::move(keys));
            }));
        if (name == "kwargs") return Value::dict(DictItems(*g));
        return Object::attribute(name);
    }

private:
    std::shared_ptr<const Globals> globals_;
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
        else if (c == ' ')
            out += '+';
        else
            out += fmt::format("%{:02X}", u);
    }
    return out;
}

std::string trim(const std::string& s) {
    const char* ws = " \t\n\r\f\v";
    const std::size_t b = s.find_first_not_of(ws);
    if (b == std::string::npos) return {};
    return s.substr(b, s.find_last_not_of(ws) - b + 1);
}

Function string_filter(std::string (*f)(const std::string&), const char* name) {
    return [f, name](const Args& a) {
        if (a.size() != 1 || !a.keyword.empty()) throw EvalError(fmt::format("the filter '{}' takes one argument", name));
        return Value(f(a[0].kind() == Value::Kind::String ? a[0].as_string() : a[0].str()));
    };
}

std::string to_str(const std::string& s) { return s; }

}  // namespace

Value make_loop_context(std::size_t index, std::size_t length, Value parent) {
    return Value(std::make_shared<LoopContext>(index, length, std::move(parent)));
}

Value make_context(std::shared_ptr<const Globals> globals) { return Value(std::make_shared<Context>(std::move(globals))); }

const Value& undefined_value() {
    static const Value undefined(std::make_shared<Undefined>());
    return undefined;
}

const Function* find_escape_filter(const std::string& name) {
    static const std::map<std::string, Function> filters = {
        {"h", string_filter(xml_escape, "h")},   {"x", string_filter(xml_escape, "x")},
        {"u", string_filter(url_escape, "u")},   {"trim", string_filter(trim, "trim")},
        {"str", string_filter(to_str, "str")},   {"unicode", string_filter(to_str, "unicode")},
    };
    auto it = filters.find(name);
    return it == filters.end() ? nullptr : &it->second;
}

Value TypeObject::attribute(const std::string& name) const {
    if (name == "__name__") return Value(name_);
    return Object::attribute(name);
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

}  // namespace kjarni::tmpl
