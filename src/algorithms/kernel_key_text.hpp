#pragma once
// Kernel cache keys written by appending rather than formatting. The algorithms make their kernel's
// key on every call, to find the compiled kernel; fmt::format of a dozen fields cost a few thousand
// instructions a call (callgrind, PoCL), more than the rest of a small call's host work.

#include <charconv>
#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "algorithms/c_arguments.hpp"
#include "kjarni/dtype.hpp"

namespace kjarni::detail {

/// A key as "<start><name><value>...\n<code>": each call appends its label and the value (numbers in
/// decimal, flags as 1 / 0, dtypes as one letter).
class KeyText {
public:
    /// `code_size`: the size of the code finish() will append, reserved with the rest at once.
    explicit KeyText(std::string_view start, std::size_t code_size = 0) {
        text_.reserve(192 + code_size);
        text_ += start;
    }
    KeyText& number(std::string_view label, std::size_t value) {
        text_ += label;
        char digits[24];
        const auto end = std::to_chars(digits, digits + sizeof digits, value).ptr;
        text_.append(digits, static_cast<std::size_t>(end - digits));
        return *this;
    }
    KeyText& flag(std::string_view label, bool value) {
        text_ += label;
        text_ += value ? '1' : '0';
        return *this;
    }
    KeyText& text(std::string_view label, std::string_view value) {
        text_ += label;
        text_ += value;
        return *this;
    }
    /// A dtype as one letter for a scalar type, its description for a struct (read on every call:
    /// no type name is made).
    KeyText& dtype(std::string_view label, const DType& dtype) {
        text_ += label;
        if (dtype.is_struct()) {
            text_ += dtype.descr();
            text_ += ';';
        } else {
            text_ += static_cast<char>('a' + static_cast<int>(dtype.kind()));
        }
        return *this;
    }
    /// The arguments, each as "[*][const ]<dtype letter> name," (const only `with_const`).
    KeyText& arguments(std::string_view label, std::span<const CArgument> arguments, bool with_const) {
        text_ += label;
        for (const CArgument& a : arguments) {
            if (a.pointer) text_ += '*';
            if (with_const && a.is_const) text_ += "const ";
            dtype("", a.dtype);
            text_ += ' ';
            text_ += a.name;
            text_ += ',';
        }
        return *this;
    }
    /// The key: what was written, a newline, and `code`.
    std::string finish(std::string_view code) {
        text_ += '\n';
        text_ += code;
        return std::move(text_);
    }

private:
    std::string text_;
};

}  // namespace kjarni::detail
