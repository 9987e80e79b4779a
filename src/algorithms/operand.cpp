#include <fmt/format.h>

#include "algorithms/scalar_value.hpp"
#include "kjarni/elementwise.hpp"
#include "kjarni/error.hpp"

namespace kjarni {

Operand::Operand(std::span<const std::byte> element, const DType& dtype) : dtype_(dtype) {
    if (dtype.is_struct() || element.size() != dtype.itemsize())
        throw ArgumentError("element",
                            fmt::format("{} bytes of {} are not one scalar element", element.size(), dtype.name()));
    std::memcpy(bytes_.data(), element.data(), element.size());
}

const Array& Operand::array() const {
    if (!array_) throw ArgumentError("operand", fmt::format("a scalar of {} where an array is needed", dtype_.name()));
    return *array_;
}

std::array<std::byte, 16> Operand::converted(const DType& dtype) const {
    return detail::ScalarValue::read(bytes(), dtype_).write(dtype);
}

Operand MultiOperand::on(const BoundDevice& device) const {
    if (array_) return Operand(array_->part(device));
    return *scalar_;
}

}  // namespace kjarni
