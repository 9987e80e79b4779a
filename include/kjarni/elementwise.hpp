#pragma once
/// Elementwise kernels (PyOpenCL's ElementwiseKernel, pygpu's GpuElemwise): an operation written in
/// C over the element index `i`, run over arrays of any layout.
///
///     kjarni::ElementwiseKernel axpb("float *y, const float *x, float a, float b", "y[i] = a * x[i] + b");
///     axpb(queue, y, x, 2.0f, 1.0f);
///
/// Arrays may be contiguous, sliced with steps, negatively strided, transposed or broadcast by
/// numpy's rules (size-1 and missing leading axes stretch); `x[i]` always names the element of `x`
/// at broadcast position i, where `i` is the element's C-order index in the broadcast shape. Axes
/// that are contiguous together for every array are merged, so most layouts run as one flat loop;
/// offsets use 32-bit arithmetic whenever every offset fits. Arrays written by the operation (the
/// pointers not declared const) must have the whole broadcast shape.
///
/// One compiled kernel per (argument types, layout class: number of merged axes, index width),
/// kept by the context: calls with other shapes or views of the same class reuse it. Up to 32 axes
/// may remain after merging (past 8 the layout reaches the kernel through a small device table).
///
/// Vector loads. When every array is contiguous or a single broadcast element and starts aligned to
/// 16 bytes (fresh allocations do), and the operation uses every array only as `x[i]` -- read, or
/// written as `x[i] = ...`, `x[i] += ...`, `++x[i]`... -- the kernel reads and writes 16-byte vectors
/// (of the widest element; several elements per work item), as expressions do, and runs the
/// operation once per element of each vector with `i` its index. An array written only by plain
/// assignments is not read, unless the operation has a condition (if, ?:, &&, ||, a loop), in which
/// case it is read first so that elements the operation skips keep their value. Not vectorised:
/// half arrays (LOAD_HALF / STORE_HALF), an array used any other way (`x[i + 1]`, `&x[i]`, `x`
/// passed on), an operation with return / break / continue / goto, or one calling a function-like
/// macro of the preamble (it could write an element passed to it), and a written array whose
/// allocation another argument shares (the same view passed twice). An element written any other
/// way the scan cannot see (through a pointer kept in loop_prep, say) needs vector_loads = false.
///
/// Types: the prelude's scalar types. `bool` arrays are stored as one byte per element (0 or 1) and
/// seen as `uint8_t` by the operation. `half` arrays cannot be dereferenced portably: read and
/// write them with `LOAD_HALF(x, i)` (a float) and `STORE_HALF(y, i, value)`; `half` scalars are
/// passed as `float`. Work is enqueued on the queue given to the call; nothing waits for it. \file

#include <array>
#include <complex>
#include <cstddef>
#include <cstring>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "kjarni/array.hpp"
#include "kjarni/dtype.hpp"
#include "kjarni/multi_array.hpp"
#include "kjarni/operand.hpp"
#include "kjarni/queue.hpp"
#include "kjarni/template/module.hpp"

namespace kjarni {

/// The name, preamble, render globals and compiler options of an ElementwiseKernel.
struct ElementwiseOptions {
    /// The kernel's name (in compiler messages and profiles).
    std::string name = "kjarni_elementwise";
    /// Code placed before the kernel, rendered as a template with `globals`: Modules and Snippets
    /// among the globals are rendered once at the top and callable as `${name}(...)`, also from
    /// the operation. The preamble, the operation, loop_prep and after_loop are rendered each on
    /// its own, as parts of one template (render_parts_with_modules): a `<%def>` or a `<%! %>`
    /// name of one part serves them all; a `<% %>` block's names stay in its part.
    std::string preamble;
    Globals globals;
    /// Statements each work item runs once before its loop over elements, and after it.
    std::string loop_prep;
    std::string after_loop;
    /// Allows vector loads (see the top of this file) where the layout and the operation permit.
    bool vector_loads = true;
};

namespace detail {
struct ElementwiseState;
}

/// A kernel that applies one operation to every index of its array arguments (PyCUDA's
/// ElementwiseKernel), compiled per device on first use and reused.
class ElementwiseKernel {
public:
    /// Arguments as C declarations ("float *y, const float *x, float a"; see parse rules in the
    /// ArgumentError messages): pointers take Arrays of exactly that dtype, the others scalars,
    /// converted to the declared type. ArgumentError for a list that does not parse.
    ElementwiseKernel(const std::string& arguments, std::string operation, ElementwiseOptions options = {});

    /// Arguments named only ("y, x, a"): their types come from what each call passes (a new
    /// kernel per combination of types). Every array may be written.
    static ElementwiseKernel from_names(const std::vector<std::string>& names, std::string operation,
                                        ElementwiseOptions options = {});

    /// Runs on the queue's device; every array must be on it. Empty broadcast shapes launch
    /// nothing.
    void operator()(const Queue& queue, std::span<const Operand> args) const;
    template <class... Args>
        requires(std::is_constructible_v<Operand, const Args&> && ...)
    void operator()(const Queue& queue, const Args&... args) const {
        const std::array<Operand, sizeof...(Args)> list{Operand(args)...};
        (*this)(queue, std::span<const Operand>(list));
    }
    /// Part by part on every device of the multi-queue (each MultiArray gives the part on the
    /// device of each queue).
    void operator()(const MultiQueue& queue, std::span<const MultiOperand> args) const;

private:
    explicit ElementwiseKernel(std::shared_ptr<const detail::ElementwiseState> state) : state_(std::move(state)) {}
    std::shared_ptr<const detail::ElementwiseState> state_;
};

}  // namespace kjarni
