#include "algorithms/c_arguments.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <sstream>

#include <fmt/format.h>

#include "dtype/dtype_impl.hpp"
#include "kjarni/error.hpp"

namespace kjarni::detail {

namespace {

using Kind = DType::Kind;

// Every spelling of a scalar type an argument list may use.
const std::map<std::string, Kind>& type_names() {
    // clang-format off
    static const std::map<std::string, Kind> names = {
        {"bool", Kind::bool_},
        {"int8_t", Kind::int8}, {"int8", Kind::int8}, {"char", Kind::int8}, {"signed char", Kind::int8},
        {"uint8_t", Kind::uint8}, {"uint8", Kind::uint8}, {"uchar", Kind::uint8}, {"unsigned char", Kind::uint8},
        {"int16_t", Kind::int16}, {"int16", Kind::int16}, {"short", Kind::int16},
        {"uint16_t", Kind::uint16}, {"uint16", Kind::uint16}, {"ushort", Kind::uint16},
        {"unsigned short", Kind::uint16},
        {"int32_t", Kind::int32}, {"int32", Kind::int32}, {"int", Kind::int32},
        {"uint32_t", Kind::uint32}, {"uint32", Kind::uint32}, {"uint", Kind::uint32}, {"unsigned", Kind::uint32},
        {"unsigned int", Kind::uint32},
        // `long` is 64 bits in OpenCL C, the dialect the argument lists come from.
        {"int64_t", Kind::int64}, {"int64", Kind::int64}, {"long", Kind::int64}, {"long long", Kind::int64},
        {"uint64_t", Kind::uint64}, {"uint64", Kind::uint64}, {"ulong", Kind::uint64}, {"unsigned long", Kind::uint64},
        {"unsigned long long", Kind::uint64}, {"size_t", Kind::uint64},
        {"half", Kind::float16}, {"float16", Kind::float16},
        {"float", Kind::float32}, {"float32", Kind::float32},
        {"double", Kind::float64}, {"float64", Kind::float64},
        {"complex64_t", Kind::complex64}, {"complex64", Kind::complex64}, {"float2", Kind::complex64},
        {"complex128_t", Kind::complex128}, {"complex128", Kind::complex128}, {"double2", Kind::complex128},
    };
    // clang-format on
    return names;
}

std::string trim(const std::string& s) {
    const auto begin = s.find_first_not_of(" \t\n\r");
    if (begin == std::string::npos) return {};
    const auto end = s.find_last_not_of(" \t\n\r");
    return s.substr(begin, end - begin + 1);
}

bool is_identifier(const std::string& s) {
    if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
    return std::all_of(s.begin(), s.end(),
                       [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

CArgument parse_one(const std::string& declaration, const std::string& what) {
    // Split the pointer stars off the words: "const float *x" -> const, float, *, x.
    std::string spaced;
    for (const char c : declaration) {
        if (c == '*') spaced += " * ";
        else spaced += c;
    }
    std::istringstream words(spaced);
    std::vector<std::string> tokens;
    for (std::string w; words >> w;) tokens.push_back(w);
    CArgument arg;
    std::vector<std::string> type_words;
    for (std::size_t k = 0; k + 1 < tokens.size(); ++k) {
        const std::string& t = tokens[k];
        if (t == "const") arg.is_const = true;
        else if (t == "*") {
            if (arg.pointer)
                throw ArgumentError(what, fmt::format("'{}': pointers to pointers are not arguments", declaration));
            arg.pointer = true;
        } else if (t == "GLOBAL_MEM" || t == "__global" || t == "global" || t == "restrict" || t == "__restrict__" ||
                   t == "volatile") {
            // Address-space and aliasing qualifiers: the generator writes its own.
        } else {
            type_words.push_back(t);
        }
    }
    if (tokens.empty() || !is_identifier(tokens.back()) || type_words.empty())
        throw ArgumentError(what, fmt::format("'{}' is not a declaration 'type name' or 'type *name'", declaration));
    arg.name = tokens.back();
    std::string type;
    for (const auto& w : type_words) type += (type.empty() ? "" : " ") + w;
    const auto found = type_names().find(type);
    if (found == type_names().end())
        throw ArgumentError(what,
                            fmt::format("'{}': unknown type '{}' (scalar types only: bool, int8_t ... uint64_t, half, "
                                        "float, double, complex64_t, complex128_t)",
                                        declaration, type));
    arg.dtype = found->second;
    arg.ctype = c_type_name(arg.dtype);
    return arg;
}

}  // namespace

std::vector<CArgument> parse_c_arguments(const std::string& declarations, const std::string& what) {
    std::vector<CArgument> out;
    if (trim(declarations).empty()) return out;
    std::istringstream list(declarations);
    for (std::string item; std::getline(list, item, ',');) {
        CArgument arg = parse_one(trim(item), what);
        for (const auto& previous : out) {
            if (previous.name == arg.name)
                throw ArgumentError(what, fmt::format("the name '{}' is declared twice", arg.name));
        }
        out.push_back(std::move(arg));
    }
    return out;
}

std::string c_type_name(const DType& dtype) {
    if (dtype.is_struct()) throw ArgumentError("dtype", fmt::format("{} is not a scalar type", dtype.name()));
    // The dtype layer's C names ("int32_t", "half", "complex64_t", ...), as ctype() gives them.
    return scalar_c_name(dtype.kind());
}

}  // namespace kjarni::detail
