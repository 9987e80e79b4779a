#pragma once
// Internal exceptions of the template engine. Operations on values know no source position, so
// they throw EvalError; the evaluator adds the position of the expression being evaluated
// (PositionedError), and the render entry point turns that into the public RenderError, which
// also needs the template's name and the globals.

#include <kjarni/error.hpp>

#include <cstdint>
#include <exception>
#include <string>

namespace kjarni::tmpl {

/// A failure with no position yet (a bad operand type, a wrong argument count...).
class EvalError : public Error {
public:
    using Error::Error;
};

/// A failure at a known offset in the template source. `cause` is the exception it was made from
/// (a C++ callable's, an EvalError), kept for RenderError::exception(); null when the engine found
/// the failure there itself.
class PositionedError : public Error {
public:
    PositionedError(const std::string& message, std::uint32_t offset, std::exception_ptr cause = {})
        : Error(message), offset_(offset), cause_(std::move(cause)) {}
    std::uint32_t offset() const noexcept { return offset_; }
    const std::exception_ptr& cause() const noexcept { return cause_; }

private:
    std::uint32_t offset_;
    std::exception_ptr cause_;
};

}  // namespace kjarni::tmpl
