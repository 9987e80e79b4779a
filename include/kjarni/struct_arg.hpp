#pragma once
/// Structs passed to kernels by value (StructArg, struct_arg). \file

#include <cstddef>
#include <type_traits>

#include "kjarni/dtype.hpp"

namespace kjarni {

/// A value of a trivially copyable C++ type passed to a kernel by value, as the C struct that the
/// struct dtype `dtype` describes (make it with struct_arg). The layouts are checked as far as C++
/// lets them be: sizeof(T) must be the dtype's itemsize and alignof(T) at least its alignment
/// (ArgumentError otherwise); the kernel's parameter size too, where the API reports it. Field by
/// field agreement is the caller's (declare T with the dtype's fields, in order).
/// The StructArg refers to `value`: use it within the launch's full expression.
class StructArg {
public:
    template <class T>
    StructArg(const T& value, const DType& dtype) : bytes_(&value), size_(sizeof(T)) {
        static_assert(std::is_trivially_copyable_v<T>, "a kernel takes trivially copyable values only");
        check(sizeof(T), alignof(T), dtype);
    }
    const void* bytes() const noexcept { return bytes_; }
    std::size_t size() const noexcept { return size_; }

private:
    static void check(std::size_t size, std::size_t alignment, const DType& dtype);
    const void* bytes_;
    std::size_t size_;
};

/// `value` as the struct `dtype` describes, for a kernel argument by value.
template <class T>
StructArg struct_arg(const T& value, const DType& dtype) {
    return StructArg(value, dtype);
}

}  // namespace kjarni
