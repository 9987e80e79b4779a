#pragma once
/// The one value type that crosses from C++ into templates. It mirrors the Python values a grunnur
/// template sees (None, bool, int, float, str, list, tuple, dict, callables, objects), so that
/// templates written for grunnur evaluate the same way. Copying a Value is cheap: aggregates are
/// shared, by reference, as Python's are. Those made from C++ are immutable (safe to share between
/// threads and renders); a template changes in place only the lists and dicts its own render made
/// (src/template/ownership.hpp tells why). \file

#include <concepts>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include <kjarni/template_fwd.hpp>

namespace kjarni {

class Value;
class DictItems;
class Module;
class Snippet;

namespace detail {
struct ModuleImpl;
struct SnippetImpl;
struct BigInt;  // an integer beyond 64 bits (src/template/bigint.hpp)
}  // namespace detail

struct Args;

/// A C++ function callable from a template as `${f(1, x=2)}`. Throwing kjarni::Error (or any
/// std::exception) from it becomes a RenderError at the call's position.
using Function = std::function<Value(const Args&)>;

/// Customization point for user types (and dtypes): what a template may do with the object.
/// Held by shared_ptr<const Object> inside a Value.
class Object {
public:
    virtual ~Object() = default;
    /// Name shown in error messages ("int", "MyStruct"...).
    virtual std::string type_name() const = 0;
    /// `${obj}` and `str(obj)`. A dtype returns its C type name here.
    virtual std::string to_string() const = 0;
    /// `obj.name`; throw kjarni::Error (e.g. via the default) when there is no such attribute.
    virtual Value attribute(const std::string& name) const;
    /// `obj(...)`; by default an object is not callable.
    virtual Value call(const Args& args) const;
    /// The role of grunnur's `__process_modules__`: return a new object in which `process` has been
    /// applied to every member that may hold a Module or a Snippet, or nullptr (the default) when
    /// the object holds none, in which case it is used unchanged.
    virtual std::shared_ptr<const Object> process_modules(const std::function<Value(const Value&)>& process) const;
};

/// A value of the template language (None, bool, int, float, string, list, tuple, dict, set,
/// callable, object, Module, Snippet), as Python has them. Copies are cheap (shared data).
class Value {
public:
    /// Int covers every integer: those that fit in 64 bits are held as std::int64_t, larger ones
    /// (made by template arithmetic, as Python's ints grow) as detail::BigInt.
    enum class Kind { None, Bool, Int, Float, String, List, Tuple, Dict, Callable, Object, Module, Snippet, Set };

    /// The items of a list or tuple Value and the render allowed to change them.
    struct ListData {
        std::vector<Value> items;
        bool tuple = false;
        /// The render that may change the list in place (0: made by C++, immutable).
        std::uint64_t owner = 0;
        /// Frees the items iteratively: a list nested a million deep must not exhaust the stack.
        ~ListData();
    };
    struct DictData;
    /// A set's members in insertion order (Python iterates a set in hash order, which kjarni does
    /// not reproduce: a template may iterate a set of more than one member only through sorted()
    /// or an order-free builtin such as len, min, sum or any).
    struct SetData {
        std::vector<Value> items;
        /// The render that may change the set in place (0: made by C++, immutable).
        std::uint64_t owner = 0;
        ~SetData();  // iteratively, as ~ListData
    };
    using Storage = std::variant<std::monostate, bool, std::int64_t, double, std::shared_ptr<const std::string>,
                                 std::shared_ptr<const ListData>, std::shared_ptr<const DictData>,
                                 std::shared_ptr<const Function>, std::shared_ptr<const Object>,
                                 std::shared_ptr<const detail::ModuleImpl>, std::shared_ptr<const detail::SnippetImpl>,
                                 std::shared_ptr<const SetData>, std::shared_ptr<const detail::BigInt>>;

    /// None.
    Value() noexcept = default;
    Value(std::nullptr_t) noexcept {}
    Value(bool b) noexcept : storage_(b) {}
    template <std::integral T>
        requires(!std::same_as<T, bool> && !std::same_as<T, char>)
    Value(T i) : storage_(int_storage(i)) {}
    Value(double d) noexcept : storage_(d) {}
    Value(float f) noexcept : storage_(static_cast<double>(f)) {}
    Value(const char* s) : storage_(std::make_shared<const std::string>(s)) {}
    Value(std::string s) : storage_(std::make_shared<const std::string>(std::move(s))) {}
    Value(std::string_view s) : storage_(std::make_shared<const std::string>(s)) {}
    /// A list.
    Value(std::initializer_list<Value> items) : Value(list(std::vector<Value>(items))) {}
    template <class T>
        requires std::is_convertible_v<const T&, Value>
    Value(const std::vector<T>& items) {
        std::vector<Value> v;
        v.reserve(items.size());
        for (const auto& item : items) v.emplace_back(item);
        *this = list(std::move(v));
    }
    /// A dict (in key order).
    template <class T>
        requires std::is_convertible_v<const T&, Value>
    Value(const std::map<std::string, T>& items);
    Value(Function f) : storage_(std::make_shared<const Function>(std::move(f))) {}
    template <class F>
        requires(std::is_invocable_r_v<Value, const F&, const Args&> && !std::is_same_v<std::decay_t<F>, Value> &&
                 !std::is_same_v<std::decay_t<F>, Function>)
    Value(F f) : Value(Function(std::move(f))) {}
    template <class T>
        requires std::is_base_of_v<Object, T>
    Value(std::shared_ptr<T> object) : storage_(std::shared_ptr<const Object>(std::move(object))) {}
    Value(const Module& module);
    Value(const Snippet& snippet);

    static Value list(std::vector<Value> items);
    static Value tuple(std::vector<Value> items);
    static Value dict(DictItems items);
    /// A set of `items` (duplicates, by Python's ==, dropped; each must be hashable).
    static Value set(const std::vector<Value>& items);
    static Value function(Function f) { return Value(std::move(f)); }

    Kind kind() const noexcept;
    bool is_none() const noexcept { return kind() == Kind::None; }
    /// Python's type name ("int", "str", "list"...; an Object's type_name()).
    std::string type_name() const;

    // Accessors: throw kjarni::Error when the value is of another kind.
    bool as_bool() const;
    std::int64_t as_int() const;  // throws when the integer does not fit in 64 bits
    double as_float() const;      // ints convert
    const std::string& as_string() const;
    const std::vector<Value>& as_list() const;  // lists and tuples
    const DictItems& as_dict() const;
    const std::vector<Value>& as_set() const;  // the members, in insertion order
    const Function& as_function() const;
    const std::shared_ptr<const Object>& as_object() const;
    Module as_module() const;
    Snippet as_snippet() const;

    /// Python truthiness.
    bool truthy() const;
    /// Python's str(): `1.5`, `2.0`, `True`, `None`, `[1, 'a']`...
    std::string str() const;
    /// Python's repr(): as str() but strings are quoted.
    std::string repr() const;

    /// Python's ==.
    friend bool operator==(const Value& a, const Value& b);

    const Storage& storage() const noexcept { return storage_; }
    explicit Value(Storage s) : storage_(std::move(s)) {}

private:
    template <class T>
    static Storage int_storage(T i) {
        if constexpr (std::is_unsigned_v<T> && sizeof(T) >= sizeof(std::int64_t)) {
            if (i > static_cast<T>(INT64_MAX)) return big_storage(static_cast<std::uint64_t>(i));
        }
        return Storage(static_cast<std::int64_t>(i));
    }
    // An unsigned 64-bit integer beyond INT64_MAX (held as a detail::BigInt).
    static Storage big_storage(std::uint64_t u);

    Storage storage_;
};

/// The items of a template dict, in insertion order (Python's dicts iterate in the order their keys
/// were first inserted). Keys are hashable values as in Python: None, bools, numbers, strings and
/// tuples of them, compared with Python's == (so 1, 1.0 and True are one key). Lookups are linear:
/// template dicts are small.
class DictItems {
public:
    using value_type = std::pair<Value, Value>;
    using const_iterator = std::vector<value_type>::const_iterator;

    DictItems() = default;
    /// The items of `globals`, in its key order.
    DictItems(const Globals& globals);  // NOLINT(google-explicit-constructor): a map is a dict
    DictItems(std::initializer_list<value_type> items);

    /// The value of the string key `key`, or nullptr.
    const Value* find(std::string_view key) const noexcept;
    const Value* find(const char* key) const noexcept { return find(std::string_view(key)); }
    const Value* find(const std::string& key) const noexcept { return find(std::string_view(key)); }
    /// The value of `key`, or nullptr. Throws kjarni::Error when `key` is not hashable.
    const Value* find(const Value& key) const;
    std::size_t count(std::string_view key) const noexcept { return find(key) ? 1 : 0; }
    std::size_t count(const char* key) const noexcept { return find(key) ? 1 : 0; }
    std::size_t count(const std::string& key) const noexcept { return find(key) ? 1 : 0; }
    /// Sets `key`: in place when present (its position and first spelling are kept, as Python
    /// keeps them), else at the end. Throws kjarni::Error when `key` is not hashable.
    void set(Value key, Value value);
    /// Removes `key`; false when absent.
    bool erase(const Value& key);

    std::size_t size() const noexcept { return items_.size(); }
    bool empty() const noexcept { return items_.empty(); }
    const_iterator begin() const noexcept { return items_.begin(); }
    const_iterator end() const noexcept { return items_.end(); }

    /// Python's == for dicts: the same keys with equal values, whatever the order.
    friend bool operator==(const DictItems& a, const DictItems& b);

    /// Moves the items out (what ~DictData frees iteratively).
    std::vector<value_type> release() noexcept { return std::move(items_); }

private:
    std::vector<value_type> items_;
};

/// Throws kjarni::Error unless `v` may be a dict key or a set member in Python (not a list, dict,
/// set, or a tuple holding one).
void check_hashable(const Value& v);

/// The items of a dict Value and the render allowed to change them.
struct Value::DictData {
    DictItems items;
    /// The render that may change the dict in place (0: made by C++, immutable).
    std::uint64_t owner = 0;
    ~DictData();  // iteratively, as ~ListData
};

template <class T>
    requires std::is_convertible_v<const T&, Value>
Value::Value(const std::map<std::string, T>& items) {
    Globals g;
    for (const auto& [k, v] : items) g.emplace(k, Value(v));
    *this = dict(DictItems(g));
}

/// Arguments of a call from a template: positional ones, then keyword ones in the order written.
struct Args {
    std::vector<Value> positional;
    std::vector<std::pair<std::string, Value>> keyword;

    std::size_t size() const noexcept { return positional.size(); }
    const Value& operator[](std::size_t i) const;  // throws kjarni::Error when out of range
    /// The keyword argument `name`, or nullptr when not given.
    const Value* find_keyword(std::string_view name) const noexcept;
};

}  // namespace kjarni
