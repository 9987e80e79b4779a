#pragma once
// What a built-in reduction (sum, prod, mean, min, max, argmin, argmax, any, all, var, std)
// reduces: the elements of one array, or the values of an expression computed inside the
// reduction's loads (fused_reduction.cpp), nothing stored in between. The reductions' specs see
// one element's value through `element`, so that an expression's reduction is the reduction of
// the array the expression would have been evaluated into, value for value.

#include <optional>
#include <string>
#include <vector>

#include "algorithms/c_arguments.hpp"
#include "kjarni/array.hpp"
#include "kjarni/operand.hpp"
#include "kjarni/reduction.hpp"

namespace kjarni::detail {

struct ReductionSource {
    /// The dtype of the values reduced (the array's, or the expression's result dtype).
    DType dtype;
    /// The reduction's C arguments and what is passed for them.
    std::vector<CArgument> arguments;
    std::vector<Operand> operands;
    /// A C expression of element `i`'s value as an array of `dtype` stores it (float16: its bits,
    /// bool: a uint8_t 0 or 1), over the arguments (each array pointer shifted so that `p[i]` is
    /// the element being reduced, as in a ReductionKernel's map).
    std::string element = "x[i]";
    /// Device code that `element` needs, placed before the reduction's own code (not a template).
    std::string code;
    /// Tells apart the specs of sources of the same dtype (empty for one array).
    std::string key;
    /// One array read as is: the 16-byte loads of ReductionSpec::value_code may be used.
    bool plain = true;
};

/// The source of one array `x` (ArgumentError naming `what` for struct arrays).
ReductionSource array_source(const std::string& what, const Array& array);

// The built-in reductions of a source (reduction.cpp, reduction_moments.cpp): the same dtype
// rules, specs and kernels as for an array of source.dtype.
Array reduce_arithmetic(const Queue& queue, const ReductionSource& source, const ReduceOptions& options,
                        const std::optional<DType>& dtype, bool multiply, bool mean, const char* what);
Array reduce_extremum(const Queue& queue, const ReductionSource& source, const ReduceOptions& options, bool maximum);
Array reduce_arg_extremum(const Queue& queue, const ReductionSource& source, const ReduceOptions& options,
                          bool maximum);
Array reduce_logical(const Queue& queue, const ReductionSource& source, const ReduceOptions& options, bool all);
Array reduce_variance(const Queue& queue, const ReductionSource& source, const ReduceOptions& options, double ddof,
                      const std::optional<DType>& dtype, bool root);

}  // namespace kjarni::detail
