#pragma once
// The engine under every reduction: a generated kernel whose strategy follows the shape (see
// reduction_engine.cpp), fed by a ReductionSpec that says what is reduced and how.

#include <cstddef>
#include <string>
#include <vector>

#include "algorithms/c_arguments.hpp"
#include "kjarni/array.hpp"
#include "kjarni/reduction.hpp"
#include "kjarni/template/value.hpp"

namespace kjarni::detail {

struct ReductionSpec {
    /// Names the reduction in messages.
    std::string what;
    std::vector<CArgument> arguments;
    /// The C type of the accumulators and its size in bytes (partial results are stored as such).
    std::string acc_ctype;
    std::size_t acc_size = 0;
    /// The dtype of the result array.
    DType result;
    /// reduction_code()'s output.
    std::string code;
    /// What identifies `code` in a kernel's key, shorter than it: the key of the process's spec
    /// cache (cached_spec) for the built-in reductions; empty where the code itself does.
    std::string identity;
    /// An empty reduced set is an ArgumentError (min, max, argmin, argmax: no identity).
    bool refuse_empty = false;
    /// For a reduction of one array of 4- or 8-byte items whose map reads only the element (the
    /// built-ins): `KJARNI_ACC kjarni_map_value(<storage type> v)`, the map of an element's value,
    /// so that a reduction along contiguous memory may load 16 bytes at a time. Empty otherwise.
    std::string value_code;
    /// For sum, prod and mean of a plain array accumulating in float32 or float64 ('+' or '*'; 0
    /// otherwise, and always for a fused expression, whose elements the kernel must compute): the
    /// reduce is that operator and the map converts the element to the accumulator, so that the
    /// CPU form (reduction_cpu.cpp) may run them on whole OpenCL vectors of the array.
    char float_operator = 0;
};

/// The device functions a reduction kernel calls, rendered once (a template with `render_globals`):
/// the preamble, then
///   KJARNI_ACC kjarni_neutral(), kjarni_reduce(KJARNI_ACC a, KJARNI_ACC b),
///   kjarni_map(KJARNI_IDX i, <arguments>) where every array pointer is shifted so that `x[i]` is
///   the element being reduced,
///   <result compute type> kjarni_finish(KJARNI_ACC a, int64_t count) (`count`: the number of
///   reduced elements), whose value is stored (float16 results are encoded from float).
/// KJARNI_ACC and KJARNI_IDX are defined by the kernel.
std::string reduction_code(const std::vector<CArgument>& arguments, const std::string& preamble,
                           const std::string& neutral, const std::string& reduce_expr, const std::string& map_expr,
                           const std::string& finish_expr, const DType& result, const Globals& render_globals,
                           const std::string& what);

/// The kernel line that stores a finished result, `kjarni_finish(acc, count)`, at res_base[res_o]
/// (float16 results encoded from float): the same in every kernel form.
std::string store_result_code(const ReductionSpec& spec);

/// Whether a reduction split into pieces may combine them in its one kernel (the default) or takes a
/// second kernel (for tests that compare both: the results have the same bits).
void allow_combine_in_kernel(bool allow);

/// Whether devices without warps that kernels can shuffle combine a group's lanes by warps of 32
/// emulated in local memory (for tests that run the shuffled form on CPU devices; off by default,
/// where they combine through a tree in local memory).
void force_lane_shuffles(bool force);

/// Runs the reduction over the broadcast shape of the array arguments (see ReductionKernel).
Array run_reduction(const Queue& queue, const ReductionSpec& spec, const std::vector<Operand>& arguments,
                    const ReduceOptions& options);

}  // namespace kjarni::detail
