#pragma once
/// Reductions of arrays over any set of axes (PyOpenCL's and pygpu's ReductionKernel), and numpy's
/// reductions built on them: sum prod min max argmin argmax any all mean, and the vector dot.
///
/// Every reduction is deterministic: the same input on the same device gives the same bits on every
/// run. Values are combined in an order fixed by the shape and the device (several independent
/// accumulators per work item, then a tree in local memory, then, when one output is split over
/// several work groups, a second kernel that combines the groups' partial results in order); no
/// atomics. The reduce expression must be associative and commutative (floating-point addition is
/// treated as such: the order differs from numpy's, so float results agree with numpy within the
/// rounding bound of the summation, not bit for bit).
///
/// Work is enqueued on the caller's queue and not waited for; a result array is allocated on the
/// queue's device. An empty input launches nothing but the fill of the neutral element: the
/// reduction of an empty axis is the neutral element (min, max, argmin and argmax of an empty axis
/// raise ArgumentError, as numpy raises ValueError). \file

#include <complex>
#include <cstddef>
#include <cstring>
#include <functional>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "kjarni/array.hpp"
#include "kjarni/dtype.hpp"
#include "kjarni/multi_array.hpp"
#include "kjarni/operand.hpp"
#include "kjarni/queue.hpp"
#include "kjarni/template/value.hpp"

namespace kjarni {

/// Which axes to reduce and where the result goes.
struct ReduceOptions {
    /// The axes (negative ones count from the end; each at most once). Not given: all of them.
    std::optional<std::vector<int>> axes = std::nullopt;
    /// Keep the reduced axes in the result with extent 1 (numpy's keepdims).
    bool keepdims = false;
    /// Write the result here (its shape must be the result's; any layout) instead of a new array.
    /// Any dtype, as numpy's reductions take out=: the result is cast into it unsafely (astype's
    /// conversions: np.sum(float64_array, out=int8_array) truncates and wraps). sum and prod
    /// without `dtype` compute in numpy's loop for out, np.promote_types(out, array) (an int64 sum
    /// into float32 in float64); mean as numpy's (the sum cast into out, then divided in out's
    /// dtype); the others compute their own result, then convert it (a dtype other than the
    /// result's costs a temporary). min, max, nanmin and nanmax as numpy's, which cast each
    /// output's first element into out and compare the others with that value: where out cannot
    /// hold it, it competes by its cast value (max of int16 [300, 100] into int8 is 100, 300 being
    /// 44 in int8; float64 [NaN, 1] into int32 is 1). argmin, argmax, nanargmin and nanargmax
    /// take bool and the integer types that convert to int64 safely (not uint64), as numpy;
    /// another dtype is an ArgumentError naming `out`. nansum and nanprod as sum and prod;
    /// nanmean, var, std, nanvar and nanstd as numpy's: the sum (of squared deviations) cast into
    /// out, then divided in float64 (complex128) and cast again, std's square root taken in out's
    /// dtype; std and nanstd, and nanmean and nanvar of float and complex arrays, take a float or
    /// complex out only, as numpy (ArgumentError naming `out`). dot, ReductionKernel and the
    /// reductions of expressions (kjarni/fusion.hpp) want the result's dtype.
    std::optional<Array> out = std::nullopt;
    /// Makes the result's buffer when `out` is not given (a MemoryPool, so that repeated reductions
    /// reuse memory as PyTorch's and CuPy's caching allocators do). Buffer::allocate when empty.
    Allocator allocator = {};
};

/// A reduction over the broadcast shape of its array arguments:
///   result = reduce(neutral, map(0), map(1), ...) over the reduced axes, for every kept position.
///
/// - `arguments`: C declarations, "const float *x, const float *y, float a" (kjarni/dtypes's C
///   names or numpy's). Every pointer is an array; all arrays broadcast together by numpy's rules
///   and are read, never written. bool arrays are seen as `uint8_t`, float16 arrays as `uint16_t`
///   (their bits): read them with `kjarni_h2f(x[i])`.
/// - `map_expr`: the value of one element, an expression of type `dtype_out` over the arguments,
///   where `x[i]` is the element of array `x` at the position being reduced (whatever the array's
///   strides or broadcasting). `i` is also that position's flat index over the reduced axes (C
///   order of the axes as given), so `i` itself may be used as a value (e.g. argmin).
/// - `reduce_expr`: combines two partial results `a` and `b` of type `dtype_out`; must be
///   associative and commutative.
/// - `neutral`: a C expression of `dtype_out`, the identity of reduce_expr.
/// - `preamble`: code placed before the kernel (functions, macros); with the other strings it is a
///   template rendered once with `render_globals`, so Modules and Snippets can be used there
///   (`${mul}(a, b)` with `{"mul", functions::mul(...)}`).
///
/// The result has dtype `dtype_out` (struct types are refused); a float16 result is accumulated in
/// float (`a`, `b` and map_expr's value are floats) and stored as float16.
class ReductionKernel {
public:
    ReductionKernel(const DType& dtype_out, std::string neutral, std::string reduce_expr, std::string map_expr,
                    const std::string& arguments, std::string preamble = {}, Globals render_globals = {},
                    std::string name = "reduction");

    /// The reduction of the arguments (arrays on the queue's device) over `options.axes`.
    /// ArgumentError naming the culprit for: a wrong argument count or kind, arrays whose shapes do
    /// not broadcast, an array of another context or device, an axis out of range or repeated, an
    /// `out` of the wrong shape or dtype.
    Array operator()(const Queue& queue, const std::vector<Operand>& arguments,
                     const ReduceOptions& options = {}) const;

    struct Impl;

private:
    std::shared_ptr<const Impl> impl_;
};

// ---- numpy's reductions --------------------------------------------------------------------------
//
// Result dtypes are numpy's (64-bit platform): sum and prod of bool and of signed integers narrower
// than 64 bits give int64, of unsigned ones uint64; float16 is accumulated in float32 and stored as
// float16; float32, float64 and the complex types accumulate in their own type. mean of integers
// and bool gives float64, of floats and complex their own dtype (float16: accumulated in float32).
// min and max propagate NaN (a NaN anywhere in a reduced set gives NaN); argmin and argmax give the
// first occurrence (first NaN when there is one) as int64: the flat C-order index over the reduced
// axes (numpy's argmin takes one axis or all: with one axis it is the index along it). complex
// values are ordered lexicographically (real part, then imaginary part), as numpy orders them. any
// and all give bool (non-zero is true). `dtype` overrides the accumulation and result dtype of
// sum, prod and mean.

Array sum(const Queue& queue, const Array& array, const ReduceOptions& options = {},
          const std::optional<DType>& dtype = std::nullopt);
Array prod(const Queue& queue, const Array& array, const ReduceOptions& options = {},
           const std::optional<DType>& dtype = std::nullopt);
Array min(const Queue& queue, const Array& array, const ReduceOptions& options = {});
Array max(const Queue& queue, const Array& array, const ReduceOptions& options = {});
Array argmin(const Queue& queue, const Array& array, const ReduceOptions& options = {});
Array argmax(const Queue& queue, const Array& array, const ReduceOptions& options = {});
Array any(const Queue& queue, const Array& array, const ReduceOptions& options = {});
Array all(const Queue& queue, const Array& array, const ReduceOptions& options = {});
Array mean(const Queue& queue, const Array& array, const ReduceOptions& options = {},
           const std::optional<DType>& dtype = std::nullopt);
// ---- numpy's NaN-aware reductions and the moments ------------------------------------------------
//
// nansum, nanprod, nanmin, nanmax, nanargmin, nanargmax, nanmean: as the plain ones with the NaN
// elements left out (complex: an element with a NaN part); integer and bool arrays, which hold no
// NaN, give the plain reduction's result. nansum/nanprod of a slice of NaN only give 0 / 1. nanmin
// and nanmax of a slice of NaN only give NaN (numpy warns "All-NaN slice encountered"; kjarni does
// not warn); of an empty slice an ArgumentError (numpy's ValueError). nanargmin and nanargmax of a
// slice of NaN only are an ArgumentError (numpy's ValueError): they wait for their result to check
// it (the result is written, to `out` when given, before the error). nanmean of a slice of NaN only
// is NaN (numpy warns). `dtype`: nansum and nanprod take any, as numpy's sum of the array with
// its NaNs replaced does (an integer or bool dtype, or a real one for complex elements, converts
// each element as astype); nanmean a float or complex type to accumulate and return in (a real
// one of a complex array: the mean of the real parts of the elements that are not NaN, as numpy's),
// else ArgumentError (numpy's TypeError).
//
// var, std (numpy's, `ddof` the delta degrees of freedom: the sum of squared deviations from the
// mean is divided by max(n - ddof, 0), so 0 / 0 gives NaN as numpy, whose warning kjarni leaves
// out), nanvar, nanstd (the same over the non-NaN elements): one reduction each, by Chan, Golub and
// LeVeque's pairwise update of (count, mean, squared deviations), as sound numerically as numpy's
// two passes (never E[x^2] - E[x]^2). Computed in float64 for integers and bool, in float32 for
// float16 (stored as float16: numpy computes partly in float16, so float16 results may differ by
// an ulp of float16), else in the array's dtype or `dtype` (a float or complex type; a real one of
// a complex array takes numpy's formula: the real parts' mean, |x - mean|^2 = (re - mean)^2 + im^2
// summed). var and std also take an integer or bool `dtype` of a real, integer or bool array, in
// numpy's steps: the mean, the squared deviations and the result truncated into it (std then only
// into a one-element result or a float out, as numpy; ArgumentError otherwise, and for a bool
// array in bool). The result is real: float64 for integers and bool, the real type of complex
// values; with a complex `dtype` it is that complex type, its imaginary part 0 (numpy sums the
// squared deviations in `dtype`). Axes, keepdims, out and allocator as in ReduceOptions.
Array nansum(const Queue& queue, const Array& array, const ReduceOptions& options = {},
             const std::optional<DType>& dtype = std::nullopt);
Array nanprod(const Queue& queue, const Array& array, const ReduceOptions& options = {},
              const std::optional<DType>& dtype = std::nullopt);
Array nanmin(const Queue& queue, const Array& array, const ReduceOptions& options = {});
Array nanmax(const Queue& queue, const Array& array, const ReduceOptions& options = {});
Array nanargmin(const Queue& queue, const Array& array, const ReduceOptions& options = {});
Array nanargmax(const Queue& queue, const Array& array, const ReduceOptions& options = {});
Array nanmean(const Queue& queue, const Array& array, const ReduceOptions& options = {},
              const std::optional<DType>& dtype = std::nullopt);
Array var(const Queue& queue, const Array& array, const ReduceOptions& options = {}, double ddof = 0,
          const std::optional<DType>& dtype = std::nullopt);
Array std(const Queue& queue, const Array& array, const ReduceOptions& options = {}, double ddof = 0,
          const std::optional<DType>& dtype = std::nullopt);
Array nanvar(const Queue& queue, const Array& array, const ReduceOptions& options = {}, double ddof = 0,
             const std::optional<DType>& dtype = std::nullopt);
Array nanstd(const Queue& queue, const Array& array, const ReduceOptions& options = {}, double ddof = 0,
             const std::optional<DType>& dtype = std::nullopt);

/// The dot product of two 1-d arrays of the same length, sum of a[i] * b[i] (no conjugation), as a
/// 0-d array of numpy's np.dot dtype: the inputs' promoted dtype as numpy promotes them (int8 with
/// int8 is int8, uint8 with int8 int16, float16 with float16 float16; no GPU widening). As numpy's
/// dot, integer products are summed in 64 bits and the total stored wrapped into that dtype; bool
/// gives whether any a[i] and b[i] are both true; float16 products are summed in float32 and the
/// total rounded once; other dtypes are computed in themselves.
Array dot(const Queue& queue, const Array& a, const Array& b, const std::optional<Array>& out = std::nullopt);

/// A MultiArray reduced part by part, each device on its own part: allowed when the reduced axes
/// leave the axis the parts split (the outermost) untouched, with every part's result the part of
/// a MultiArray of the same splay. UnsupportedError otherwise (a reduction across the parts: see
/// reduce_whole).
/// `reduction` is any of the functions above, e.g. `[](auto& q, auto& a, auto& o) { return sum(q, a, o); }`;
/// `options.out` must not be given.
using PartReduction = std::function<Array(const Queue&, const Array&, const ReduceOptions&)>;
MultiArray reduce_parts(const MultiQueue& queue, const MultiArray& array, const PartReduction& reduction,
                        const ReduceOptions& options = {});

/// The built-in reductions, by name, for reduce_whole.
enum class Reduction { sum, prod, min, max, argmin, argmax, any, all, mean };

/// A reduction of a whole MultiArray over `options.axes`, which must include every axis its parts
/// split (axis 0 for EqualSplay; any axes for CloneSplay, whose first part is reduced alone): the
/// result, as the single-device function gives it (same dtype and shape, `dtype` as there: for
/// sum, prod and mean only), is one Array on the array's first device (`options.out`, when given,
/// must live there). Each device reduces its own part on its queue of `queue`; the partial results
/// go to the first device (its queue waits for the others' events: no host wait), where the same
/// reduction combines them along the parts in their order: sum and prod accumulate the partials in
/// the accumulation type (float16 in float32), mean combines sums and divides by the whole count,
/// argmin and argmax take the first occurrence over the whole array (parts' indices are mapped to
/// the whole's on the host: a small read per part). Deterministic: the same parts give the same
/// bits on every run (but not necessarily those of the single-device reduction of the whole,
/// which adds in another order). Returns once the result is computed (the partials are freed).
/// UnsupportedError when an axis the parts split is kept (reduce_parts keeps the parts apart);
/// ArgumentError as for the single-device functions, and for a `dtype` given to min, max, argmin,
/// argmax, any or all.
Array reduce_whole(const MultiQueue& queue, const MultiArray& array, Reduction reduction,
                   const ReduceOptions& options = {}, const std::optional<DType>& dtype = std::nullopt);

}  // namespace kjarni
