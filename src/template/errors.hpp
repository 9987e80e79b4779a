#pragma once
// Internal exceptions of the template engine. Operations on values know no source position, so
// they throw EvalError; the evaluator adds the position of the expression being evaluated
// (PositionedError), and the render entry point turns that into the public RenderError, which
// also needs the template's name and the globals.

#include <kjarni/error.hpp>

#include <cstdint>
#include <string>

namespace kjarni::tmpl {

/// A failure with no position yet (a bad operand type, a wrong argument count...).
class EvalError : public Error {
public:
    using Error::Error;
};

/// A failure at a known offset in the template source.
class PositionedError : public Error {
public:
    PositionedError(const std::string& message, std::uint32_t offset) : Error(message), offset_(offset) {}
    std::uint32_t offset() const noexcept { return offset_; }

private:
    std::uint32_t offset_;
};

}  // namespace kjarni::tmpl
