// Array::astype, defined here rather than in src/array/ because it is an expression (one
// generated kernel, any layout): the conversions are the expressions' (numpy's), float16 included.

#include "kjarni/array.hpp"
#include "kjarni/expression.hpp"

namespace kjarni {

Array Array::astype(const Queue& queue, const DType& dtype, Order order, bool copy_always,
                    const Allocator& allocator) const {
    order = resolve_order(order, layout_, dtype_.itemsize());  // 'A': the source's order
    if (dtype == dtype_ && !copy_always) return *this;
    if (dtype == dtype_) return copy(queue, order, allocator);
    if (order == Order::C) return evaluate(queue, kjarni::astype(Expr(*this), dtype), allocator);
    const Array converted = empty(queue.device(), shape(), dtype, order, allocator);
    fill(queue, converted, Expr(*this));  // fill converts whatever the kinds (astype's "unsafe" casting)
    return converted;
}

}  // namespace kjarni
