// C interop of dtypes: C type names, struct modules, constants, and DType as a template value.

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <mutex>

#include "dtype/dtype_impl.hpp"
#include "kjarni/dtype.hpp"
#include "kjarni/error.hpp"
#include "kjarni/template/module.hpp"  // ctype_struct() makes Modules, ctype() Values
#include "kjarni/template/value.hpp"

namespace kjarni {

namespace {

using Kind = DType::Kind;

}  // namespace

const char* detail::scalar_c_name(Kind kind) noexcept {
    switch (kind) {
    case Kind::bool_: return "bool";
    case Kind::int8: return "int8_t";
    case Kind::uint8: return "uint8_t";
    case Kind::int16: return "int16_t";
    case Kind::uint16: return "uint16_t";
    case Kind::int32: return "int32_t";
    case Kind::uint32: return "uint32_t";
    case Kind::int64: return "int64_t";
    case Kind::uint64: return "uint64_t";
    case Kind::float16: return "half";
    case Kind::float32: return "float";
    case Kind::float64: return "double";
    case Kind::complex64: return "complex64_t";
    case Kind::complex128: return "complex128_t";
    case Kind::struct_: break;
    }
    return "";
}

namespace {

// register_dtype's table: descr -> name and back.
struct Registry {
    std::mutex mutex;
    std::map<std::string, std::string> names;   // descr -> C name
    std::map<std::string, std::string> owners;  // C name -> descr
};

Registry& registry() {
    static Registry instance;
    return instance;
}

bool is_identifier(const std::string& name) {
    if (name.empty() || (name[0] >= '0' && name[0] <= '9')) return false;
    for (const char c : name) {
        const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
        if (!ok) return false;
    }
    return true;
}

// Names a struct must not take: C / C++ / OpenCL C keywords and built-in types, the prelude's
// typedefs, and the macros of the prelude (a typedef named KERNEL would be rewritten by it).
bool is_reserved(const std::string& name) {
    if (name.starts_with("__") || (name.size() >= 2 && name[0] == '_' && name[1] >= 'A' && name[1] <= 'Z')) return true;
    // clang-format off
    static const char* const reserved[] = {
        "auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else", "enum", "extern",
        "float", "for", "goto", "if", "inline", "int", "long", "register", "restrict", "return", "short", "signed",
        "sizeof", "static", "struct", "switch", "typedef", "union", "unsigned", "void", "volatile", "while", "bool",
        "true", "false", "class", "namespace", "template", "typename", "operator", "new", "delete", "this",
        "public", "private", "protected", "virtual", "friend", "using", "constexpr", "decltype", "nullptr",
        "half", "uchar", "ushort", "uint", "ulong", "size_t", "ptrdiff_t", "intptr_t", "uintptr_t", "kernel",
        "global", "local", "constant", "private", "int8_t", "uint8_t", "int16_t", "uint16_t", "int32_t", "uint32_t",
        "int64_t", "uint64_t", "complex64_t", "complex128_t", "float2", "double2", "KERNEL", "FUNCTION",
        "GLOBAL_MEM", "LOCAL_MEM", "LOCAL_MEM_DECL", "LOCAL_MEM_DYNAMIC", "CONSTANT_MEM", "CONSTANT_MEM_DECL",
        "INLINE", "SIZE_T", "VSIZE_T", "ALIGN", "LOCAL_BARRIER", "get_global_id", "get_local_id", "get_group_id",
        "get_global_size", "get_local_size", "get_num_groups"};
    // clang-format on
    for (const char* word : reserved) {
        if (name == word) return true;
    }
    return false;
}

Module make_struct_module(const DType& dtype, bool ignore_alignment) {
    const auto& data = *dtype.struct_data();
    detail::CLayout layout;
    // Any struct whose offsets and itemsize ALIGN() attributes can produce, aligned (numpy's
    // isalignedstruct) or not: the offsets decide, as in grunnur 0.6.
    if (!ignore_alignment) {
        layout = detail::c_layout(data.fields, data.itemsize);
        if (!layout.error.empty()) throw ArgumentError("dtype", "ctype_struct: " + layout.error);
    }
    // grunnur's text, byte for byte but for the scalar types' names and the struct's own ALIGN()
    // (docs/porting.md), so that a program renders as grunnur's does: the tag ${prefix}_ (CUDA has
    // failed to compile the brace initialisation of an untagged struct nested in another,
    // `mystruct x = {0, {0, 0}, 0};`), ALIGN() before each declarator, grunnur's spaces where there
    // is none, no newline at the end, and the module named as grunnur's Module.from_string names it.
    // The struct's ALIGN() goes before its tag: after the closing brace, where grunnur writes it,
    // NVRTC does not apply it to the struct (sizeof stays that of the fields).
    const auto align = [ignore_alignment](std::size_t alignment) {
        return !ignore_alignment && alignment != 0 ? fmt::format("ALIGN({})", alignment) : std::string();
    };
    Globals globals;
    const std::string struct_align = align(layout.struct_alignment);
    std::string body = "typedef struct " + (struct_align.empty() ? "" : struct_align + " ") + "${prefix}_ {";
    for (std::size_t i = 0; i < data.fields.size(); ++i) {
        const auto& f = data.fields[i];
        std::string type;
        if (f.dtype().is_struct()) {
            // grunnur builds a new module for each nested struct field (only its top-level ctype()
            // is cached), so a struct type nested twice is declared twice, under two prefixes; a
            // registered struct keeps its one module (its name can be declared only once).
            const std::string key = "typename_" + f.name;
            const bool registered = registered_dtype_name(f.dtype()).has_value();
            globals.emplace(key, Value(registered ? ctype_struct(f.dtype(), ignore_alignment)
                                                  : make_struct_module(f.dtype(), ignore_alignment)));
            type = "${" + key + "}";
        } else {
            type = detail::scalar_c_name(f.dtype().kind());
        }
        body += fmt::format("\n    {} {} {}", type, ignore_alignment ? "" : align(layout.field_alignments[i]), f.name);
        for (auto e : f.shape) body += fmt::format("[{}]", e);
        body += ";";
    }
    const std::optional<std::string> name = registered_dtype_name(dtype);
    if (name) {
        // The user's name is the struct's; the prefix that templates see is an alias of it.
        body += fmt::format("\n}} {};\ntypedef {} ${{prefix}};", *name, *name);
    } else {
        body += "\n}  ${prefix};";
    }
    return Module::from_string(body, "_module", std::move(globals));
}

}  // namespace

Module ctype_struct(const DType& dtype, bool ignore_alignment) {
    if (!dtype.is_struct()) throw ArgumentError("dtype", "ctype_struct: " + dtype.name() + " is not a struct type");
    static std::mutex mutex;
    static std::map<std::pair<std::string, bool>, Module> cache;
    // The registered name is part of the key: a registration made after a module of the anonymous
    // struct gives a module of its own.
    const auto key = std::make_pair(dtype.descr() + "|" + registered_dtype_name(dtype).value_or(""), ignore_alignment);
    {
        const std::lock_guard lock(mutex);
        if (auto it = cache.find(key); it != cache.end()) return it->second;
    }
    Module module = make_struct_module(dtype, ignore_alignment);  // may recurse into ctype_struct
    const std::lock_guard lock(mutex);
    return cache.emplace(key, module).first->second;
}

void register_dtype(const DType& dtype, const std::string& c_name) {
    if (!dtype.is_struct()) {
        throw ArgumentError("dtype",
                            "register_dtype: " + dtype.name() + " is not a struct type (scalars have their C names)");
    }
    if (!is_identifier(c_name)) throw ArgumentError("c_name", "register_dtype: '" + c_name + "' is not a C identifier");
    if (is_reserved(c_name)) {
        throw ArgumentError("c_name",
                            "register_dtype: '" + c_name + "' is reserved by the kernel languages or the prelude");
    }
    const std::string descr = dtype.descr();
    Registry& table = registry();
    const std::lock_guard lock(table.mutex);
    if (const auto owner = table.owners.find(c_name); owner != table.owners.end() && owner->second != descr) {
        throw ArgumentError("c_name", "register_dtype: '" + c_name + "' is already the name of another dtype (" +
                                          owner->second + ")");
    }
    if (const auto named = table.names.find(descr); named != table.names.end() && named->second != c_name) {
        throw ArgumentError("dtype", "register_dtype: the dtype is already registered as '" + named->second + "'");
    }
    table.names[descr] = c_name;
    table.owners[c_name] = descr;
}

std::optional<std::string> registered_dtype_name(const DType& dtype) {
    if (!dtype.is_struct()) return std::nullopt;
    Registry& table = registry();
    const std::lock_guard lock(table.mutex);
    const auto found = table.names.find(dtype.descr());
    if (found == table.names.end()) return std::nullopt;
    return found->second;
}

Value ctype(const DType& dtype) {
    if (dtype.is_struct()) return Value(ctype_struct(dtype));
    return Value(std::string(detail::scalar_c_name(dtype.kind())));
}

std::string complex_ctr(const DType& dtype) {
    if (dtype.kind() == Kind::complex64) return "COMPLEX64_CTR";
    if (dtype.kind() == Kind::complex128) return "COMPLEX128_CTR";
    throw ArgumentError("dtype", "complex_ctr: " + dtype.name() + " is not a complex type");
}

// --- Constants ---

namespace {

std::string float_constant(double value, bool single) {
    if (!std::isfinite(value)) throw ArgumentError("value", "c_constant: a non-finite float has no C constant");
    std::string s = single ? fmt::format("{}", static_cast<float>(value)) : fmt::format("{}", value);
    if (s.find_first_of(".e") == std::string::npos) s += ".0";
    if (single) s += 'f';
    return s;
}

template <class T>
T load(std::span<const std::byte> bytes) {
    T value;
    std::memcpy(&value, bytes.data(), sizeof(T));
    return value;
}

std::string int_constant(std::int64_t v, const char* suffix) {
    if (v == std::numeric_limits<std::int64_t>::min()) return fmt::format("(-9223372036854775807{} - 1)", suffix);
    return fmt::format("{}{}", v, suffix);
}

}  // namespace

std::string c_constant(std::span<const std::byte> element, const DType& dtype) {
    if (element.size() < dtype.itemsize())
        throw ArgumentError("element", fmt::format("{} bytes given for a {}-byte {}", element.size(), dtype.itemsize(),
                                                   dtype.name()));
    switch (dtype.kind()) {
    case Kind::bool_: return load<std::uint8_t>(element) != 0 ? "1" : "0";
    case Kind::int8: return int_constant(load<std::int8_t>(element), "");
    case Kind::uint8: return fmt::format("{}", load<std::uint8_t>(element));
    case Kind::int16: return int_constant(load<std::int16_t>(element), "");
    case Kind::uint16: return fmt::format("{}", load<std::uint16_t>(element));
    case Kind::int32: return int_constant(load<std::int32_t>(element), "");
    case Kind::uint32: return fmt::format("{}u", load<std::uint32_t>(element));
    case Kind::int64: return int_constant(load<std::int64_t>(element), "l");
    case Kind::uint64: return fmt::format("{}ul", load<std::uint64_t>(element));
    case Kind::float16: {
        // Decode the half to a float; rendered as a float constant (converted where used).
        const auto bits = load<std::uint16_t>(element);
        const int exponent = (bits >> 10) & 0x1f;
        const int mantissa = bits & 0x3ff;
        double v = exponent == 0    ? std::ldexp(mantissa, -24)
                   : exponent == 31 ? std::numeric_limits<double>::infinity()
                                    : std::ldexp(mantissa + 1024, exponent - 25);
        if (exponent == 31 && mantissa != 0) v = std::numeric_limits<double>::quiet_NaN();
        return float_constant((bits & 0x8000) ? -v : v, true);
    }
    case Kind::float32: return float_constant(load<float>(element), true);
    case Kind::float64: return float_constant(load<double>(element), false);
    case Kind::complex64: {
        const auto v = load<std::complex<float>>(element);
        return fmt::format("COMPLEX64_CTR({}, {})", float_constant(v.real(), true), float_constant(v.imag(), true));
    }
    case Kind::complex128: {
        const auto v = load<std::complex<double>>(element);
        return fmt::format("COMPLEX128_CTR({}, {})", float_constant(v.real(), false), float_constant(v.imag(), false));
    }
    case Kind::struct_: {
        std::string s = "{";
        bool first = true;
        for (const auto& f : dtype.fields()) {
            if (!first) s += ", ";
            first = false;
            const auto fbytes = element.subspan(f.offset);
            if (f.shape.empty()) {
                s += c_constant(fbytes, f.dtype());
                continue;
            }
            // A (multi-dimensional) array: nested braces per dimension.
            std::vector<std::size_t> index(f.shape.size(), 0);
            const std::size_t n = f.count();
            for (std::size_t k = 0; k < n; ++k) {
                std::size_t open = 0;
                for (std::size_t d = index.size(); d-- > 0 && index[d] == 0;) ++open;
                if (k != 0) s += ", ";
                s.append(open, '{');
                s += c_constant(fbytes.subspan(k * f.dtype().itemsize()), f.dtype());
                std::size_t close = 0;
                for (std::size_t d = index.size(); d-- > 0;) {
                    if (++index[d] < f.shape[d]) break;
                    index[d] = 0;
                    ++close;
                }
                s.append(close, '}');
            }
        }
        return s + "}";
    }
    }
    return {};
}

namespace {

// One dimension of an array initialiser and the ones inside it; `at` is the byte offset of its
// first element, `block` the bytes one item of this dimension spans.
void append_array(std::string& out, std::span<const std::byte> data, const DType& dtype,
                  std::span<const std::size_t> shape, std::size_t at, std::size_t block) {
    if (shape.empty()) {
        out += c_constant(data.subspan(at, dtype.itemsize()), dtype);
        return;
    }
    const std::size_t inner = shape[0] == 0 ? 0 : block / shape[0];
    out += '{';
    for (std::size_t i = 0; i < shape[0]; ++i) {
        if (i != 0) out += ", ";
        append_array(out, data, dtype, shape.subspan(1), at + i * inner, inner);
    }
    out += '}';
}

}  // namespace

std::string c_constant(std::span<const std::byte> data, const DType& dtype, std::span<const std::size_t> shape) {
    std::size_t count = 1;
    for (const std::size_t extent : shape) {
        if (extent != 0 &&
            count > std::numeric_limits<std::size_t>::max() / extent / std::max<std::size_t>(dtype.itemsize(), 1))
            throw ArgumentError("shape", "c_constant: the array's size overflows");
        count *= extent;
    }
    const std::size_t bytes = count * dtype.itemsize();
    if (data.size() != bytes)
        throw ArgumentError("data", fmt::format("c_constant: {} bytes given for {} elements of {} ({} bytes)",
                                                data.size(), count, dtype.name(), bytes));
    std::string out;
    append_array(out, data, dtype, shape, 0, bytes);
    return out;
}

namespace {
template <class T>
std::complex<double> to_complex(T value) {
    if constexpr (std::is_same_v<T, std::complex<double>>) return value;
    else return {static_cast<double>(value), 0.0};
}

template <class T>
std::string constant_of(T value, const DType& dtype) {
    auto as = [&](auto v) { return c_constant(std::as_bytes(std::span(&v, 1)), dtype); };
    auto to = [&](auto target) {
        using U = decltype(target);
        if constexpr (std::is_same_v<T, std::complex<double>>) return static_cast<U>(value.real());
        else return static_cast<U>(value);
    };
    switch (dtype.kind()) {
    case Kind::bool_: return as(static_cast<std::uint8_t>(value != T{} ? 1 : 0));
    case Kind::int8: return as(to(std::int8_t{}));
    case Kind::uint8: return as(to(std::uint8_t{}));
    case Kind::int16: return as(to(std::int16_t{}));
    case Kind::uint16: return as(to(std::uint16_t{}));
    case Kind::int32: return as(to(std::int32_t{}));
    case Kind::uint32: return as(to(std::uint32_t{}));
    case Kind::int64: return as(to(std::int64_t{}));
    case Kind::uint64: return as(to(std::uint64_t{}));
    case Kind::float16:
    case Kind::float32: return float_constant(to(0.0), true);
    case Kind::float64: return float_constant(to(0.0), false);
    case Kind::complex64: return as(static_cast<std::complex<float>>(to_complex(value)));
    case Kind::complex128: return as(to_complex(value));
    case Kind::struct_: break;
    }
    throw ArgumentError("dtype", "c_constant: a number cannot be a constant of struct type " + dtype.name());
}
}  // namespace

std::string c_constant(std::int64_t value, const DType& dtype) { return constant_of(value, dtype); }
std::string c_constant(std::uint64_t value, const DType& dtype) { return constant_of(value, dtype); }
std::string c_constant(double value, const DType& dtype) { return constant_of(value, dtype); }
std::string c_constant(std::complex<double> value, const DType& dtype) { return constant_of(value, dtype); }

// --- DType as a template value ---

namespace {

class DTypeObject final : public Object {
public:
    DTypeObject(DType dtype, Value ctype_value, Value fields, Value offsets)
        : dtype_(std::move(dtype)), ctype_(std::move(ctype_value)), fields_(std::move(fields)),
          offsets_(std::move(offsets)) {}
    // Field dtypes are values too, so that nested struct modules get processed with this one.
    static std::shared_ptr<const DTypeObject> make(const DType& dtype) {
        Globals fields, offsets;
        for (const auto& f : dtype.fields()) {
            fields.emplace(f.name, Value(f.dtype()));
            offsets.emplace(f.name, Value(f.offset));
        }
        return std::make_shared<const DTypeObject>(dtype, ctype(dtype), Value::dict(std::move(fields)),
                                                   Value::dict(std::move(offsets)));
    }
    std::string type_name() const override { return "dtype"; }
    std::string to_string() const override { return ctype_.str(); }
    Value attribute(const std::string& name) const override {
        if (name == "itemsize") return Value(dtype_.itemsize());
        if (name == "alignment") return Value(dtype_.alignment());
        if (name == "name") return Value(dtype_.name());
        if (name == "ctype") return ctype_;
        if (name == "is_complex") return Value(is_complex(dtype_));
        if (name == "is_real") return Value(is_real(dtype_));
        if (name == "is_integer") return Value(is_integer(dtype_));
        if (name == "is_double") return Value(is_double(dtype_));
        if (name == "is_signed") return Value(is_signed(dtype_));
        if (name == "is_struct") return Value(dtype_.is_struct());
        if (name == "complex_ctr") return Value(complex_ctr(dtype_));
        if (name == "real") return Value(real_for(dtype_));
        if (name == "complex") return Value(complex_for(dtype_));
        if (name == "fields") return fields_;
        if (name == "offsets") return offsets_;
        return Object::attribute(name);
    }
    std::shared_ptr<const Object> process_modules(const std::function<Value(const Value&)>& process) const override {
        if (!dtype_.is_struct()) return nullptr;
        return std::make_shared<const DTypeObject>(dtype_, process(ctype_), process(fields_), offsets_);
    }

private:
    DType dtype_;
    Value ctype_;
    Value fields_;
    Value offsets_;
};

}  // namespace

DType::operator Value() const { return Value(DTypeObject::make(*this)); }

}  // namespace kjarni
