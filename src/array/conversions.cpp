// reshape that copies only when it must; ascontiguousarray, asfortranarray, asarray.

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "kjarni/array_operations.hpp"

namespace kjarni {

Array reshape(const Queue& queue, const Array& array, std::span<const std::ptrdiff_t> shape, Order order, CopyMode copy) {
    if (copy != CopyMode::always) {
        if (auto layout = array.layout().try_reshape(shape, array.dtype().itemsize(), order))
            return Array::from_buffer(array.base(), array.dtype(), std::move(*layout));
        if (copy == CopyMode::never)
            throw ArgumentError("copy", fmt::format("is never, but the view of shape ({}) and strides ({}) cannot be reshaped "
                                                    "into ({}) in {} order without a copy",
                                                    fmt::join(array.shape(), ", "), fmt::join(array.strides(), ", "),
                                                    fmt::join(shape, ", "), order == Order::C ? "C" : "Fortran"));
    }
    // Checks the sizes before anything is copied.
    (void)array.layout().resolve_shape(shape);
    // A copy contiguous in `order` reshapes to a view in that order.
    return array.copy(queue, order).reshape(shape, order);
}

namespace {
// numpy's ascontiguousarray and asfortranarray give at least one dimension.
Array as_order(const Queue& queue, const Array& array, const std::optional<DType>& dtype, Order order) {
    const Array a = array.ndim() == 0 ? array[{newaxis}] : array;
    return asarray(queue, a, dtype, order);
}
}  // namespace

Array ascontiguousarray(const Queue& queue, const Array& array, const std::optional<DType>& dtype) {
    return as_order(queue, array, dtype, Order::C);
}

Array asfortranarray(const Queue& queue, const Array& array, const std::optional<DType>& dtype) {
    return as_order(queue, array, dtype, Order::F);
}

Array asarray(const Queue& queue, const Array& array, const std::optional<DType>& dtype, const std::optional<Order>& order) {
    const bool dtype_ok = !dtype || *dtype == array.dtype();
    const bool order_ok = !order || (*order == Order::C ? array.is_c_contiguous() : array.is_f_contiguous());
    if (dtype_ok && order_ok) return array;
    const Order target = order.value_or(Order::C);
    if (dtype_ok) return array.copy(queue, target);
    return array.astype(queue, *dtype, target);
}

Array asarray(const Queue& queue, const HostArray& array, const std::optional<DType>& dtype, const std::optional<Order>& order) {
    const Array device = Array::from_host(queue, array);
    const Array converted = dtype ? device.astype(queue, *dtype, order.value_or(Order::C), false) : device;
    if (order && *order == Order::F && !converted.is_f_contiguous()) return converted.copy(queue, Order::F);
    return converted;
}

}  // namespace kjarni
