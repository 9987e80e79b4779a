#include "algorithms/device_code.hpp"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "algorithms/c_arguments.hpp"
#include "algorithms/iteration_space.hpp"
#include "algorithms/kernel_templates.hpp"
#include "algorithms/tuning_settings.hpp"
#include "core/context_state.hpp"
#include "dtype/dtype_impl.hpp"
#include "kjarni/context.hpp"
#include "kjarni/device_parameters.hpp"
#include "kjarni/error.hpp"
#include "program/inline_ptx.hpp"

namespace kjarni::detail {

namespace {

// One text for both APIs (the prelude defines KJARNI_CUDA_API or KJARNI_OPENCL_API), so that a
// generated source is the same whichever API compiles it. PTX's conversions are exact IEEE ones
// (cvt.rn rounds to nearest even); vload_half / vstore_half need no cl_khr_fp16. kj_d2h rounds a
// double to float16 once (through float first, a value just beside a halfway point could round
// twice, the wrong way): numpy's float64 -> float16. KJARNI_INF_F and
// KJARNI_INF_D are the infinities (the neutral elements of min and max).
//
// kj_f2*: float -> integer conversions as numpy computes them on x86-64, where C and OpenCL C leave
// them undefined (NaN, infinities, out of range) and devices differ: cvttss2si/cvttsd2si give the
// "integer indefinite" INT_MIN (or INT64_MIN) for every value out of range and NaN; narrower
// integers truncate the 32-bit result, uint32 the 64-bit one, and uint64 takes values from 2^63 up
// through x - 2^63 with the top bit flipped (what compilers emit for a C cast to uint64_t).
// kj_div_count_f: a float mean's division, correctly rounded: OpenCL C lets float division err by
// 2.5 ulp (NVIDIA's OpenCL does, which put a float32 mean of 70000 elements just outside numpy's
// bound), double division is exact to half an ulp, and rounding that to float is innocuous (the
// count below 2^29: the quotient then never lies within 2^-53 of a float's halfway point without
// being on it).
// (kjarni's kernels ask for -cl-fp32-correctly-rounded-divide-sqrt where the device offers it,
// program/kernel_cache.cpp; these two serve the devices that do not.)
// kj_opaque_u32: the value itself, through an asm copy on NVIDIA's compilers (CUDA, and NVIDIA's
// OpenCL, whose generated programs define KJARNI_INLINE_PTX: program/kernel_cache.cpp), where the
// compiler cannot see through it. 8- and
// 16-bit negations (wrapping_negation) go through it: LLVM narrows 0 - (uint32_t)x, converted back
// to int16, into a 16-bit negation (PTX neg.s16), and ptxas (CUDA 13.0, driver 580) computes that
// on the sign-extended 32-bit value and then takes the result as still sign-extended, so that
// -(int16)-32768 widened to int64 in the same kernel was +32768 (numpy: -32768); abs the same.
// Through the copy the negation stays 32-bit and the narrowing sign-extends its low bits.
// kj_lane_s8 / kj_lane_s16: a signed 8- or 16-bit lane of a loaded vector (read_lane), through
// kj_opaque_u32 on NVIDIA's OpenCL, whose compiler (driver 580) drops the sign extension of such a
// lane in arithmetic narrowed back to its type: int8 lanes -1, -2 of one 32-bit word plus 3 gave
// (int16)0xfeff + 3 = -254, not 2 (PTX add.s16 on the word's low half, then cvt.rn.f32.s16
// without the cvt.s16.s8 the scalar loop has), so cos(a + 3) of int8 differed from numpy in the
// first lane. Through the copy the lane is a whole 32-bit value that the narrowing sign-extends.
// NVRTC's code for CUDA is right: there they are the lane itself.
// kj_div_rn_f: a float division correctly rounded on any conforming device, for results numpy
// gives exactly (round's scaling back). CUDA has it (__fdiv_rn, whatever --prec-div says). OpenCL C
// lets a / b err by 2.5 ulp without -cl-fp32-correctly-rounded-divide-sqrt, and dividing in double
// does not help: LLVM-based compilers (NVIDIA's among them) fold (float)((double)a / (double)b)
// back into a float division, since the double rounding is innocuous (InstCombine's visitFPTrunc),
// and that division is again the approximate one (NVIDIA's OpenCL gave 29.429998f, one ulp low, for
// round(29.4339f, 2)). So the approximate quotient is corrected with residuals a - q b, which fma
// (correctly rounded in OpenCL C) gives exactly once q is within an ulp of a / b: step towards the
// quotient (the residual's sign, with b's, says which side it lies on) until the residual changes
// sign, then keep the neighbour with the smaller residual (a quotient of two floats is never a
// halfway point, so there is no tie). 2.5 ulp is at most 3 steps (6 where the quotient lies just
// past a power of two and q below it); 8 bound the loop. NaN, infinite or zero operands and an overflowed q give a residual that is
// NaN, infinite or zero: q stands. Exact for normal quotients (residuals of subnormal ones may round).
// kj_div_rn_from_f(a, b, q) is that correction of any q within a few ulps (tests give it q off by
// up to 5 ulps, which a device that divides correctly never shows them).
// kj_order_i64_u64: the exact order of an int64 and a uint64 (numpy's ufunc loops compare those
// exactly, although their promoted type is float64), -1, 0 or 1.
constexpr const char* preamble_text = R"(#ifndef KJARNI_ALGORITHM_PREAMBLE
#define KJARNI_ALGORITHM_PREAMBLE
#if defined(KJARNI_CUDA_API) || defined(KJARNI_INLINE_PTX)
FUNCTION INLINE uint32_t kj_opaque_u32(uint32_t x) { uint32_t y; asm("mov.b32 %0, %1;" : "=r"(y) : "r"(x)); return y; }
#else
#define kj_opaque_u32(x) (x)
#endif
#if defined(KJARNI_INLINE_PTX)
#define kj_lane_s8(x) ((int8_t)kj_opaque_u32((uint32_t)(x)))
#define kj_lane_s16(x) ((int16_t)kj_opaque_u32((uint32_t)(x)))
#else
#define kj_lane_s8(x) (x)
#define kj_lane_s16(x) (x)
#endif
#ifdef KJARNI_CUDA_API
typedef struct { unsigned short bits; } half;
FUNCTION INLINE float kjarni_h2f(uint16_t h)
{ float f; asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h)); return f; }
FUNCTION INLINE uint16_t kjarni_f2h(float f)
{ uint16_t h; asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f)); return h; }
FUNCTION INLINE uint16_t kj_d2h(double d)
{ uint16_t h; asm("cvt.rn.f16.f64 %0, %1;" : "=h"(h) : "d"(d)); return h; }
#define LOAD_HALF(p, i) kjarni_h2f((p)[i].bits)
#define STORE_HALF(p, i, v) ((p)[i].bits = kjarni_f2h(v))
#else
INLINE float kjarni_h2f(uint16_t h) { return vload_half(0, (const half*)&h); }
INLINE uint16_t kjarni_f2h(float f) { uint16_t h; vstore_half_rte(f, 0, (half*)&h); return h; }
#if defined(cl_khr_fp64)
INLINE uint16_t kj_d2h(double d) { uint16_t h; vstore_half_rte(d, 0, (half*)&h); return h; }
#endif
#define LOAD_HALF(p, i) vload_half((i), (p))
#define STORE_HALF(p, i, v) vstore_half_rte((v), (i), (p))
#endif
#ifdef KJARNI_CUDA_API
#define KJARNI_INF_F __int_as_float(0x7f800000)
#define KJARNI_INF_D __longlong_as_double(0x7ff0000000000000LL)
#else
#define KJARNI_INF_F INFINITY
#define KJARNI_INF_D ((double)INFINITY)
#endif
FUNCTION INLINE int32_t kj_f2i32_f(float x)
{ return (x >= -2147483648.0f && x < 2147483648.0f) ? (int32_t)x : (int32_t)0x80000000u; }
FUNCTION INLINE int64_t kj_f2i64_f(float x)
{ return (x >= -9223372036854775808.0f && x < 9223372036854775808.0f) ? (int64_t)x : (int64_t)0x8000000000000000UL; }
FUNCTION INLINE uint64_t kj_f2u64_f(float x)
{ return x >= 9223372036854775808.0f ? ((uint64_t)kj_f2i64_f(x - 9223372036854775808.0f) ^ 0x8000000000000000UL)
                                     : (uint64_t)kj_f2i64_f(x); }
FUNCTION INLINE int32_t kj_f2i32_d(double x)
{ return (x > -2147483649.0 && x < 2147483648.0) ? (int32_t)x : (int32_t)0x80000000u; }
FUNCTION INLINE int64_t kj_f2i64_d(double x)
{ return (x >= -9223372036854775808.0 && x < 9223372036854775808.0) ? (int64_t)x : (int64_t)0x8000000000000000UL; }
FUNCTION INLINE uint64_t kj_f2u64_d(double x)
{ return x >= 9223372036854775808.0 ? ((uint64_t)kj_f2i64_d(x - 9223372036854775808.0) ^ 0x8000000000000000UL)
                                    : (uint64_t)kj_f2i64_d(x); }
FUNCTION INLINE float kj_div_count_f(float a, int64_t count)
{
#if defined(KJARNI_CUDA_API) || defined(cl_khr_fp64)
    return (float)((double)a / (double)count);
#else
    return a / (float)count;
#endif
}
#ifdef KJARNI_CUDA_API
#define KJ_FMA_F fmaf
#define KJ_NEXTAFTER_F nextafterf
#define KJ_FABS_F fabsf
#else
#define KJ_FMA_F fma
#define KJ_NEXTAFTER_F nextafter
#define KJ_FABS_F fabs
#endif
FUNCTION INLINE float kj_div_rn_from_f(float a, float b, float q)
{
    float r = KJ_FMA_F(-q, b, a);
    if (r == 0.0f || !isfinite(r)) return q;
    const float toward = (r > 0.0f) == (b > 0.0f) ? KJARNI_INF_F : -KJARNI_INF_F;
    for (int k = 0; k < 8; ++k) {
        const float next = KJ_NEXTAFTER_F(q, toward);
        const float rn = KJ_FMA_F(-next, b, a);
        if (rn == 0.0f) return next;
        if ((rn > 0.0f) != (r > 0.0f)) return KJ_FABS_F(rn) < KJ_FABS_F(r) ? next : q;
        q = next;
        r = rn;
    }
    return q;
}
#ifdef KJARNI_CUDA_API
FUNCTION INLINE float kj_div_rn_f(float a, float b) { return __fdiv_rn(a, b); }
#else
INLINE float kj_div_rn_f(float a, float b) { return kj_div_rn_from_f(a, b, a / b); }
#endif
FUNCTION INLINE int kj_order_i64_u64(int64_t a, uint64_t b)
{ return a < 0 ? -1 : ((uint64_t)a < b ? -1 : ((uint64_t)a > b ? 1 : 0)); }
#endif
)";

}  // namespace

const std::string& algorithm_preamble() {
    static const std::string text = preamble_text;
    return text;
}

std::string render_user_code(const std::string& text, const Globals& globals, const std::string& what) {
    try {
        return render_with_modules(TemplateSource{text}, {}, globals);
    } catch (const Error& e) {
        throw ArgumentError("expressions",
                            fmt::format("{}: the preamble or an expression does not render: {}", what, e.what()));
    }
}

namespace {

// The names of storage_type(), storage_ctype() and compute_ctype(), as literals. A struct dtype
// has none: c_type_name() throws the ArgumentError that names it.
const char* storage_type_name(const DType& dtype) {
    if (dtype.kind() == DType::Kind::bool_) return "uint8_t";
    if (dtype.is_struct()) static_cast<void>(c_type_name(dtype));
    return scalar_c_name(dtype.kind());
}

const char* storage_ctype_name(const DType& dtype) {
    if (dtype.kind() == DType::Kind::float16) return "uint16_t";
    return storage_type_name(dtype);
}

}  // namespace

std::string storage_type(const DType& dtype) { return storage_type_name(dtype); }

std::string storage_ctype(const DType& dtype) { return storage_ctype_name(dtype); }

const char* compute_ctype_name(const DType& dtype) {
    if (dtype.kind() == DType::Kind::float16) return "float";
    return storage_ctype_name(dtype);
}

std::string compute_ctype(const DType& dtype) { return compute_ctype_name(dtype); }

std::string scalar_parameter_type(const DType& dtype) { return c_type_name(scalar_parameter_dtype(dtype)); }

std::string wrapping_arithmetic(const DType& t, char op, const std::string& a, const std::string& b) {
    if (!is_integer(t)) {
        std::string value;  // "(a op b)", appended into one allocation
        value.reserve(a.size() + b.size() + 5);
        value.append("(").append(a).append(" ").append(1, op).append(" ").append(b).append(")");
        return value;
    }
    const char* wide = t.itemsize() == 8 ? "uint64_t" : "uint32_t";
    return fmt::format("(({})(({})({}) {} ({})({})))", compute_ctype_name(t), wide, a, op, wide, b);
}

std::string rounded_to_float16(const std::string& value, const DType& from) {
    if (from.kind() == DType::Kind::float64 || from.kind() == DType::Kind::complex128)
        return fmt::format("kjarni_h2f(kj_d2h({}))", value);
    return fmt::format("kjarni_h2f(kjarni_f2h((float)({})))", value);
}

std::string wrapping_negation(const DType& t, const std::string& a) {
    if (!is_signed(t) || t.itemsize() >= 4) return wrapping_arithmetic(t, '-', "0", a);
    return fmt::format("(({})kj_opaque_u32((uint32_t)0 - (uint32_t)({})))", compute_ctype_name(t), a);
}

DType scalar_parameter_dtype(const DType& dtype) {
    if (dtype.kind() == DType::Kind::bool_) return dtypes::uint8;
    if (dtype.kind() == DType::Kind::float16) return dtypes::float32;
    return dtype;
}

const char* vector_type(std::size_t bytes) {
    switch (bytes) {
    case 1: return "uint8_t";
    case 2: return "uint16_t";
    case 4: return "uint32_t";
    case 8: return "uint2";
    default: return "uint4";
    }
}

std::string read_lane(const std::string& lane, const std::string& ctype) {
    if (ctype == "int8_t") return fmt::format("kj_lane_s8({})", lane);
    if (ctype == "int16_t") return fmt::format("kj_lane_s16({})", lane);
    return lane;
}

std::string vector_element(const VectorArray& array, std::size_t k, bool broadcast_possible) {
    std::string lane = fmt::format("kj_l{}[kj_u].e[kj_q]", k);
    if (array.store) return lane;
    std::string value = read_lane(lane, array.ctype);
    if (!broadcast_possible) return value;
    return fmt::format("({} != 0 ? {} : {}[{}])", array.step, value, array.base, array.off);
}

Value vector_loop_arrays(const std::vector<VectorArray>& arrays, std::size_t v) {
    std::vector<Value> out;
    for (const VectorArray& a : arrays)
        out.push_back(Value(std::map<std::string, Value>{{"base", Value(a.base)},
                                                         {"off", Value(a.off)},
                                                         {"step", Value(a.step)},
                                                         {"ctype", Value(a.ctype)},
                                                         {"vtype", Value(vector_type(v * a.itemsize))},
                                                         {"load", Value(a.load)},
                                                         {"store", Value(a.store)}}));
    return Value::list(std::move(out));
}

std::string vector_loop(const std::vector<VectorArray>& arrays, std::size_t v, const char* idx,
                        const std::string& element, const std::string& tail) {
    return render_kernel_template("vector_loop.mako", {{"arrays", vector_loop_arrays(arrays, v)},
                                                       {"v", v},
                                                       {"idx", idx},
                                                       {"unroll", vector_unroll},
                                                       {"element", element},
                                                       {"tail", tail}});
}

Grid blocked_grid(const GeneratedKernel& kernel, std::size_t n, std::size_t unroll) {
    // KJARNI_ELEMENTWISE_GROUP: another group size, for measuring (read once a process; a launch
    // parameter only, so the kernels stay the same).
    // KJARNI_ELEMENTWISE_GROUPS_PER_UNIT: at most that many groups per compute unit on a GPU too
    // (the grid-stride loop takes the rest), for measuring.
    static const std::size_t group_setting = tuning_count("KJARNI_ELEMENTWISE_GROUP", 1024);
    static const std::size_t per_unit_setting = tuning_count("KJARNI_ELEMENTWISE_GROUPS_PER_UNIT", 1 << 16);
    std::size_t local = group_setting != 0 ? group_setting : 256;
    while (local > 1 && local > kernel.max_local_size) local /= 2;
    const std::size_t round = local * unroll;
    const std::size_t wanted = std::max<std::size_t>(1, (n + round - 1) / round);
    std::size_t most = kernel.gpu ? std::max<std::size_t>(1, most_grid_items / round)
                                  : std::max<std::size_t>(1, kernel.compute_units * 8);
    if (kernel.gpu && per_unit_setting != 0)
        most = std::min(most, std::max<std::size_t>(1, kernel.compute_units * per_unit_setting));
    return Grid{std::min(wanted, most) * local, local};
}

const char* device_wide_fence(const BoundDevice& device) {
    if (is_cuda(device.context())) return "__threadfence()";
    // NVIDIA's OpenCL: membar.gl is what __threadfence gives through CUDA.
    if (takes_inline_ptx(device)) return "asm volatile(\"membar.gl;\" ::: \"memory\")";
    // A CPU's caches are coherent across its cores: a fence that keeps the compiler and the core from
    // moving the work item's accesses across it is enough.
    if (device.params().type == DeviceType::cpu) return "mem_fence(CLK_GLOBAL_MEM_FENCE)";
    return nullptr;
}

bool counts_acquire_release(const BoundDevice& device) {
    const auto& cc = device.device().properties().compute_capability;
    return takes_inline_ptx(device) && cc && cc->major >= 7;
}

Grid grid_for(const GeneratedKernel& kernel, std::size_t n) { return blocked_grid(kernel, n, 1); }

}  // namespace kjarni::detail
