// reshape that copies only when it must; ascontiguousarray, asfortranarray, asarray.

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "kjarni/array_operations.hpp"

namespace kjarni {

Array reshape(const Queue& queue, const Array& array, std::span<const std::ptrdiff_t> shape, Order order, CopyMode copy,
              const Allocator& allocator) {
    order = resolve_order(order, array.layout(), array.dtype().itemsize());
    if (copy != CopyMode::always) {
        if (auto layout = array.layout().try_reshape(shape, array.dtype().itemsize(), order))
            return Array::from_buffer(array.base(), array.dtype(), std::move(*layout), array.writeable());
        if (copy == CopyMode::never)
            throw ArgumentError("copy",
                                fmt::format("is never, but the view of shape ({}) and strides ({}) cannot be reshaped "
                                            "into ({}) in {} order without a copy",
                                            fmt::join(array.shape(), ", "), fmt::join(array.strides(), ", "),
                                            fmt::join(shape, ", "), order == Order::C ? "C" : "Fortran"));
    }
    // Checks the sizes before anything is copied.
    (void)array.layout().resolve_shape(shape);
    // A copy contiguous in `order` reshapes to a view in that order.
    return array.copy(queue, order, allocator).reshape(shape, order);
}

namespace {
// numpy's ascontiguousarray and asfortranarray give at least one dimension.
Array as_order(const Queue& queue, const Array& array, const std::optional<DType>& dtype, Order order,
               const Allocator& allocator) {
    const Array a = array.ndim() == 0 ? array[{newaxis}] : array;
    return asarray(queue, a, dtype, order, allocator);
}
}  // namespace

Array ascontiguousarray(const Queue& queue, const Array& array, const std::optional<DType>& dtype,
                        const Allocator& allocator) {
    return as_order(queue, array, dtype, Order::C, allocator);
}

Array asfortranarray(const Queue& queue, const Array& array, const std::optional<DType>& dtype,
                     const Allocator& allocator) {
    return as_order(queue, array, dtype, Order::F, allocator);
}

Array asarray(const Queue& queue, const Array& array, const std::optional<DType>& dtype,
              const std::optional<Order>& order, const Allocator& allocator) {
    const bool dtype_ok = !dtype || *dtype == array.dtype();
    const bool order_ok =
        !order || *order == Order::A || (*order == Order::C ? array.is_c_contiguous() : array.is_f_contiguous());
    if (dtype_ok && order_ok) return array;
    const Order target = order.value_or(Order::C);
    if (dtype_ok) return array.copy(queue, target, allocator);
    return array.astype(queue, *dtype, target, true, allocator);
}

Array asarray(const Queue& queue, const HostArray& array, const std::optional<DType>& dtype,
              const std::optional<Order>& order, const Allocator& allocator) {
    const bool converts = dtype && !(*dtype == array.dtype());
    // from_host gives a C-contiguous array: Fortran order needs another copy unless that is one too.
    const bool reorders =
        order && *order == Order::F &&
        !Layout::contiguous(array.shape(), array.dtype().itemsize()).is_f_contiguous(array.dtype().itemsize());
    // The array returned comes from `allocator`; intermediate ones (before a conversion or a
    // reordering) from Buffer::allocate.
    const Array device = Array::from_host(queue, array, converts || reorders ? Allocator{} : allocator);
    if (!converts && !reorders) return device;
    if (converts) {
        const Order target = order && *order == Order::F ? Order::F : Order::C;
        return device.astype(queue, *dtype, target, true, allocator);
    }
    return device.copy(queue, Order::F, allocator);
}

}  // namespace kjarni
