#pragma once
/// What the algorithm kernels (ElementwiseKernel, ReductionKernel, ScanKernel) take at a call: an
/// Array for an argument declared as a pointer, a scalar with its dtype for the others. \file

#include <array>
#include <complex>
#include <cstddef>
#include <cstring>
#include <optional>
#include <span>
#include <type_traits>

#include "kjarni/array.hpp"
#include "kjarni/dtype.hpp"
#include "kjarni/multi_array.hpp"

namespace kjarni {

/// What an algorithm kernel takes at a call: an Array, or a scalar with its dtype.
class Operand {
public:
    Operand(const Array& array) : array_(array), dtype_(array.dtype()) {}  // NOLINT: implicit on purpose
    template <class T>
        requires(std::is_arithmetic_v<T> || std::is_same_v<T, std::complex<float>> ||
                 std::is_same_v<T, std::complex<double>> || std::is_same_v<T, float16_t>)
    Operand(T value) : dtype_(DType::of<T>()) {  // NOLINT: implicit on purpose
        static_assert(sizeof(T) <= 16);
        std::memcpy(bytes_.data(), &value, sizeof(T));
    }
    /// A scalar of `dtype` from the bytes of one element.
    Operand(std::span<const std::byte> element, const DType& dtype);

    bool is_array() const noexcept { return array_.has_value(); }
    /// ArgumentError for a scalar.
    const Array& array() const;
    const DType& dtype() const noexcept { return dtype_; }
    /// The scalar's bytes (itemsize of dtype()).
    std::span<const std::byte> bytes() const noexcept { return {bytes_.data(), dtype_.itemsize()}; }
    /// The scalar converted to `dtype` (C's conversions; complex to real takes the real part).
    std::array<std::byte, 16> converted(const DType& dtype) const;

private:
    std::optional<Array> array_;
    DType dtype_;
    alignas(16) std::array<std::byte, 16> bytes_{};
};

/// What a MultiQueue call takes: a MultiArray (each device gets its part) or a scalar.
class MultiOperand {
public:
    MultiOperand(const MultiArray& array) : array_(array) {}  // NOLINT: implicit on purpose
    template <class T>
        requires std::is_constructible_v<Operand, T> && (!std::is_same_v<std::decay_t<T>, Array>)
    MultiOperand(T value) : scalar_(Operand(value)) {}  // NOLINT: implicit on purpose

    /// The operand for the part at `position` of the multi-queue (the part on that device).
    Operand on(const BoundDevice& device) const;

private:
    std::optional<MultiArray> array_;
    std::optional<Operand> scalar_;
};

}  // namespace kjarni
