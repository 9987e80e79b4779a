#pragma once
// Pieces of device code every generated algorithm kernel shares: storage types of bool and half
// arrays, half <-> float conversions on both APIs, and the launch grid.

#include <cstddef>
#include <string>
#include <vector>

#include "algorithms/generated_kernel.hpp"
#include "kjarni/dtype.hpp"
#include "kjarni/template/module.hpp"

namespace kjarni::detail {

/// Definitions placed before a generated kernel, the same text for both APIs: on CUDA a
/// storage-only `half` type; everywhere `float kjarni_h2f(uint16_t)`, `uint16_t kjarni_f2h(float)`
/// (round to nearest even) and the `LOAD_HALF(p, i)` / `STORE_HALF(p, i, v)` macros over `half`
/// pointers.
const std::string& algorithm_preamble();
/// The same text as a C string, for code that builds sources with fmt.
inline const char* algorithm_helpers() { return algorithm_preamble().c_str(); }

/// A kernel template holding the user's preamble and expressions, rendered with their globals
/// (Modules and Snippets land once at the top); a RenderError becomes an ArgumentError naming `what`.
std::string render_user_code(const std::string& text, const Globals& globals, const std::string& what);

/// The C type of an array element in memory as a pointer-style kernel (ElementwiseKernel, whose
/// operation indexes arrays itself) declares it: "uint8_t" for bool (numpy's one byte; OpenCL
/// takes no bool pointers), "half" for float16 (read through LOAD_HALF), else c_type_name().
std::string storage_type(const DType& dtype);
/// The same for value-style kernels (expressions, reductions, scans), which load elements
/// themselves: float16 as its bits, "uint16_t".
std::string storage_ctype(const DType& dtype);
/// The C type a value of `dtype` is computed in: float16 in float, the others as storage_ctype().
std::string compute_ctype(const DType& dtype);
/// compute_ctype() without making a string: the code generators ask it several times for every
/// operation of every call.
const char* compute_ctype_name(const DType& dtype);
/// The type a scalar kernel parameter of `dtype` is passed as: bool as uint8_t (OpenCL forbids
/// bool parameters), float16 as float, else c_type_name().
std::string scalar_parameter_type(const DType& dtype);
/// The dtype a scalar parameter's bytes must be in (scalar_parameter_type's).
DType scalar_parameter_dtype(const DType& dtype);

/// `a op b` (op '+', '-' or '*') of two values of compute type `t`, wrapping for integers as
/// numpy's loops do: signed overflow is undefined behaviour in C, OpenCL C and CUDA (a compiler may
/// keep the wider value, or drop a check), and 8- and 16-bit operands promote to a signed int
/// (uint16 65535 * 65535 overflows it). So integers compute in the unsigned type of their width, at
/// least 32 bits, where C defines the wrap, and convert back (two's complement on every device
/// kjarni runs on). Other types: the plain operator.
std::string wrapping_arithmetic(const DType& t, char op, const std::string& a, const std::string& b);
/// `-a` of an integer of compute type `t`, wrapping (-MIN is MIN) as numpy's: 0 - a by
/// wrapping_arithmetic, and for 8- and 16-bit signed types through kj_opaque_u32 (the algorithm
/// preamble says why).
std::string wrapping_negation(const DType& t, const std::string& a);
/// A real `value` of dtype `from` (not float16) as float16 computes: rounded to float16 once
/// (float64 and complex128's parts directly, kj_d2h; the others through float, exact for bool and
/// integers of up to 24 bits and numpy's casts otherwise), as float.
std::string rounded_to_float16(const std::string& value, const DType& from);

/// The unsigned C type of `bytes` bytes (1, 2, 4, 8 or 16) that vector loads of that size use.
const char* vector_type(std::size_t bytes);

/// Vectors per work item per round in vector_loop. Measured (2 GiB float32, GB/s, medians of 3
/// interleaved, the range over CUDA and NVIDIA OpenCL), 1 / 4 / 8 vectors: H100 y = 2x
/// 3018-3025 / 3011-3020 / 3007-3015, a + b 3057-3066 / 3073-3077 / 3086-3087; H200 y = 2x
/// 4238-4256 / 4091-4094 / 4109-4114, a + b 4381-4390 / 4373-4392 / 4430-4440. PyTorch in the
/// same calls: H100 3011 and 3051, H200 4211 and 4389. More vectors help a + b a little and cost
/// y = 2x 4% on the H200; one keeps both within 0.2% of PyTorch or above it on both machines.
/// At 4-16 MiB (H200, 2026-12-01, a + b, GB/s, one round, CUDA / NVIDIA OpenCL; groups of 128 /
/// 256 / 512 with 1 vector, then 2): 4 MiB 2062 / 2016 / 1916 and 2007 / 1985 / 1579 through CUDA,
/// 1588 / 1608 / 1478 and 1496 / 1533 / 1455 through OpenCL; 16 MiB 3659-3793 through CUDA and
/// 3591-3691 through OpenCL for all six: no shape stands out of the noise, so groups of 256 and one
/// vector stay.
inline constexpr std::size_t vector_unroll = 1;
/// Names the way vector_loop assigns vectors to work items, for cache keys that do not hold the
/// generated text (a kernel compiled with an earlier assignment computes the same values, but at
/// its own speed).
inline constexpr const char* vector_loop_version = "blocked-1-rolled";

/// One array of vector_loop: the kernel's `GLOBAL_MEM <ctype> *<base>` with its first element at
/// element offset `<off>` and element step `<step>` (names of kernel values; the step is 1, or 0 for
/// an array that is one broadcast element, which is read from memory once per use instead).
struct VectorArray {
    std::string base;
    std::string off;
    std::string step;
    std::string ctype;
    std::size_t itemsize = 0;
    bool load = true;    // read as vectors before the elements are computed
    bool store = false;  // written back as vectors after them (never a broadcast element)
};

/// The value of `lane`, a lane of a loaded vector of `ctype` elements: through kj_lane_s8 /
/// kj_lane_s16 for signed 8- and 16-bit elements (the preamble says why), else the lane itself.
std::string read_lane(const std::string& lane, const std::string& ctype);

/// The element of array `k` of vector_loop as the element code sees it: an lvalue of its ctype for
/// arrays that are stored, else its value (read_lane), which for arrays that may be one broadcast
/// element (`broadcast_possible`) reads that element from memory.
std::string vector_element(const VectorArray& array, std::size_t k, bool broadcast_possible = true);

/// The body of a kernel over `n` elements (its parameter `n`) in vectors of `v` elements: each
/// work group takes vector_unroll * local size consecutive vectors per round, each work item every
/// local-size-th of them, and a work item issues all its loads (one
/// `v * itemsize`-byte load per array) before computing any element. `element` runs once per
/// element with `kj_j` (the vector's index, type `idx`) and `kj_q` (the lane) defined; then stored
/// arrays are written back as vectors. The n % v elements left over run `tail`, statements in which
/// `start` (of type `idx`) is this work item's first leftover element (grid-stride from there).
/// Every name the loop declares starts with kj_, so that user code in `element` sees its own.
std::string vector_loop(const std::vector<VectorArray>& arrays, std::size_t v, const char* idx,
                        const std::string& element, const std::string& tail);

/// A statement (CUDA: __threadfence(); OpenCL: one of OpenCL C) that fences this work item's
/// accesses to global memory for every work group of the device: its stores before are seen before
/// its later stores and atomics, and its later loads see the stores that it learnt of through an
/// atomic before. nullptr where a kernel of OpenCL C 1.2 has none on the device (kernels then take
/// a second kernel instead of signalling between groups): OpenCL C 1.2's mem_fence orders a work
/// item's accesses only as its own group sees them (NVIDIA's OpenCL compiles it to membar.cta).
const char* device_wide_fence(const BoundDevice& device);

/// Whether the device's groups can signal one another with a single acquire-release atomic (PTX's
/// atom.acq_rel.gpu: compute capability 7.0 and later, through CUDA or NVIDIA's OpenCL), in place
/// of device_wide_fence's fence, relaxed atomic, fence.
bool counts_acquire_release(const BoundDevice& device);

/// A 1-D grid for `n` items handled by a grid-stride loop: work groups of up to 256 items (within
/// the kernel's limit), at least one. On a GPU one item per work item (as many groups as that takes,
/// up to 2^30 work items): the groups a compute unit keeps resident depend on the kernel's registers,
/// and a grid of a few groups per unit leaves a last, partly idle wave (measured on an H100: a
/// register-heavy `a + b` at 8 groups per unit ran at 95% of a copy). Elsewhere (a CPU device, whose
/// work items are loop iterations of a few threads) at most 8 groups per compute unit.
struct Grid {
    std::size_t global = 0;
    std::size_t local = 0;
};
Grid grid_for(const GeneratedKernel& kernel, std::size_t n);

/// Elements per work item and round of the scalar (flat and strided) expression loops, whose
/// work items issue the loads of all of them before any store. Measured on `a[::2] + b` (2 GiB
/// float32 out, GB/s of counted bytes, medians of 3 interleaved, CUDA and NVIDIA OpenCL alike):
/// 1 / 2 / 4 / 8 elements H200 2859 / 3350 / 3331 / 3307 (groups of 128: 3348 for 2), H100 2215 /
/// 2343 for 1 / 2; PyTorch in the same runs 3064 and 2311. (Why one element is slower is not
/// known for sure: probably too few loads in flight while each warp load fetches sectors it only
/// half uses.)
inline constexpr std::size_t scalar_unroll = 2;
/// The grid of a loop whose work items take `unroll` elements per round (see grid_for): on a GPU
/// one round covers every element (up to 2^30 elements), elsewhere at most 8 groups per compute unit.
Grid blocked_grid(const GeneratedKernel& kernel, std::size_t n, std::size_t unroll);

}  // namespace kjarni::detail
