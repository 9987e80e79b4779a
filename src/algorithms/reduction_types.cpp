#include "algorithms/reduction_types.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <complex>
#include <cstring>

#include <fmt/format.h>

#include "kjarni/error.hpp"

namespace kjarni::detail {

using Kind = DType::Kind;

std::string storage_ctype(const DType& dtype) {
    if (dtype.kind() == Kind::bool_) return "uint8_t";
    if (dtype.kind() == Kind::float16) return "uint16_t";
    return c_type_name(dtype);
}

std::string compute_ctype(const DType& dtype) {
    if (dtype.kind() == Kind::float16) return "float";
    return storage_ctype(dtype);
}

const char* algorithm_helpers() {
    // float16 by its bits, so that it works without cl_khr_fp16 and without cuda_fp16.h.
    return R"(#ifndef KJARNI_ALGORITHM_HELPERS
#define KJARNI_ALGORITHM_HELPERS
#ifdef KJARNI_CUDA_API
#define KJARNI_AS_FLOAT(x) __uint_as_float(x)
#define KJARNI_AS_UINT(x) __float_as_uint(x)
#define KJARNI_RINTF(x) rintf(x)
#define KJARNI_INF_F __int_as_float(0x7f800000)
#define KJARNI_INF_D __longlong_as_double(0x7ff0000000000000LL)
#else
#define KJARNI_AS_FLOAT(x) as_float(x)
#define KJARNI_AS_UINT(x) as_uint(x)
#define KJARNI_RINTF(x) rint(x)
#define KJARNI_INF_F INFINITY
#define KJARNI_INF_D ((double)INFINITY)
#endif
FUNCTION INLINE float kjarni_half_to_float(uint16_t h)
{
    const uint32_t s = ((uint32_t)h & 0x8000u) << 16;
    const uint32_t e = ((uint32_t)h >> 10) & 0x1fu;
    const uint32_t m = (uint32_t)h & 0x3ffu;
    if (e == 0x1fu) return KJARNI_AS_FLOAT(s | 0x7f800000u | (m << 13));
    if (e != 0u) return KJARNI_AS_FLOAT(s | ((e + 112u) << 23) | (m << 13));
    const float f = (float)m * 5.9604644775390625e-8f;  /* m * 2^-24, exact */
    return s != 0u ? -f : f;
}
FUNCTION INLINE uint16_t kjarni_float_to_half(float value)
{
    const uint32_t x = KJARNI_AS_UINT(value);
    const uint32_t s = (x >> 16) & 0x8000u;
    const uint32_t ax = x & 0x7fffffffu;
    if (ax > 0x7f800000u) return (uint16_t)(s | 0x7e00u);
    if (ax >= 0x477ff000u) return (uint16_t)(s | 0x7c00u);  /* rounds to 65520 or more: infinity */
    if (ax < 0x38800000u) {                                 /* below 2^-14: subnormal or zero */
        const float v = KJARNI_AS_FLOAT(ax) * 16777216.0f;  /* in units of 2^-24, exact */
        return (uint16_t)(s | (uint32_t)KJARNI_RINTF(v));  /* 1024 becomes the smallest normal */
    }
    uint32_t h = (((ax >> 23) - 112u) << 10) | ((ax & 0x7fffffu) >> 13);
    const uint32_t rest = ax & 0x1fffu;
    if (rest > 0x1000u || (rest == 0x1000u && (h & 1u) != 0u)) h += 1u;
    return (uint16_t)(s | h);
}
#endif
)";
}

float half_to_float(std::uint16_t h) {
    const std::uint32_t s = (std::uint32_t{h} & 0x8000u) << 16;
    const std::uint32_t e = (std::uint32_t{h} >> 10) & 0x1fu;
    const std::uint32_t m = std::uint32_t{h} & 0x3ffu;
    if (e == 0x1fu) return std::bit_cast<float>(s | 0x7f800000u | (m << 13));
    if (e != 0u) return std::bit_cast<float>(s | ((e + 112u) << 23) | (m << 13));
    const float f = static_cast<float>(m) * 5.9604644775390625e-8f;
    return s != 0u ? -f : f;
}

std::uint16_t float_to_half(float value) {
    const auto x = std::bit_cast<std::uint32_t>(value);
    const std::uint32_t s = (x >> 16) & 0x8000u;
    const std::uint32_t ax = x & 0x7fffffffu;
    if (ax > 0x7f800000u) return static_cast<std::uint16_t>(s | 0x7e00u);
    if (ax >= 0x477ff000u) return static_cast<std::uint16_t>(s | 0x7c00u);
    if (ax < 0x38800000u) {
        const float v = std::bit_cast<float>(ax) * 16777216.0f;
        return static_cast<std::uint16_t>(s | static_cast<std::uint32_t>(std::nearbyint(v)));
    }
    std::uint32_t h = (((ax >> 23) - 112u) << 10) | ((ax & 0x7fffffu) >> 13);
    const std::uint32_t rest = ax & 0x1fffu;
    if (rest > 0x1000u || (rest == 0x1000u && (h & 1u) != 0u)) h += 1u;
    return static_cast<std::uint16_t>(s | h);
}

namespace {

template <class T>
T read_as(const std::byte* bytes) {
    T v;
    std::memcpy(&v, bytes, sizeof(T));
    return v;
}

template <class T>
void write_as(std::vector<std::byte>& out, T value) {
    out.resize(sizeof(T));
    std::memcpy(out.data(), &value, sizeof(T));
}

}  // namespace

std::vector<std::byte> convert_scalar(const ScalarArgument& scalar, const DType& dtype) {
    const std::byte* b = scalar.bytes();
    // Integers are carried exactly as 64-bit values, the rest as complex<double>.
    bool integral = true;
    bool is_unsigned = false;
    std::int64_t i = 0;
    std::uint64_t u = 0;
    std::complex<double> c;
    switch (scalar.dtype().kind()) {
        case Kind::bool_: i = read_as<bool>(b) ? 1 : 0; break;
        case Kind::int8: i = read_as<std::int8_t>(b); break;
        case Kind::uint8: i = read_as<std::uint8_t>(b); break;
        case Kind::int16: i = read_as<std::int16_t>(b); break;
        case Kind::uint16: i = read_as<std::uint16_t>(b); break;
        case Kind::int32: i = read_as<std::int32_t>(b); break;
        case Kind::uint32: i = read_as<std::uint32_t>(b); break;
        case Kind::int64: i = read_as<std::int64_t>(b); break;
        case Kind::uint64: u = read_as<std::uint64_t>(b); is_unsigned = true; break;
        case Kind::float16: integral = false; c = half_to_float(read_as<std::uint16_t>(b)); break;
        case Kind::float32: integral = false; c = read_as<float>(b); break;
        case Kind::float64: integral = false; c = read_as<double>(b); break;
        case Kind::complex64: integral = false; c = read_as<std::complex<float>>(b); break;
        case Kind::complex128: integral = false; c = read_as<std::complex<double>>(b); break;
        case Kind::struct_: throw ArgumentError("scalar", "a struct scalar cannot be converted");
    }
    if (integral) c = is_unsigned ? static_cast<double>(u) : static_cast<double>(i);
    if (integral && !is_unsigned) u = static_cast<std::uint64_t>(i);
    const auto as_int = [&]() -> std::int64_t { return integral ? static_cast<std::int64_t>(u) : static_cast<std::int64_t>(c.real()); };
    std::vector<std::byte> out;
    switch (dtype.kind()) {
        case Kind::bool_: write_as<std::uint8_t>(out, integral ? u != 0 : c != 0.0); break;
        case Kind::int8: write_as(out, static_cast<std::int8_t>(as_int())); break;
        case Kind::uint8: write_as(out, static_cast<std::uint8_t>(as_int())); break;
        case Kind::int16: write_as(out, static_cast<std::int16_t>(as_int())); break;
        case Kind::uint16: write_as(out, static_cast<std::uint16_t>(as_int())); break;
        case Kind::int32: write_as(out, static_cast<std::int32_t>(as_int())); break;
        case Kind::uint32: write_as(out, static_cast<std::uint32_t>(as_int())); break;
        case Kind::int64: write_as(out, as_int()); break;
        case Kind::uint64: write_as(out, integral ? u : static_cast<std::uint64_t>(c.real())); break;
        case Kind::float16: write_as(out, float_to_half(static_cast<float>(c.real()))); break;
        case Kind::float32: write_as(out, static_cast<float>(c.real())); break;
        case Kind::float64: write_as(out, c.real()); break;
        case Kind::complex64: write_as(out, std::complex<float>(c)); break;
        case Kind::complex128: write_as(out, c); break;
        case Kind::struct_: throw ArgumentError("dtype", "a struct scalar argument is not supported");
    }
    return out;
}

void check_device(const Queue& queue, const Array& array, const std::string& name) {
    if (!(array.device().context() == queue.device().context()))
        throw ArgumentError(name, "is an array of another context than the queue's");
    if (!(array.device() == queue.device()))
        throw ArgumentError(name, fmt::format("lives on device {} of the context, the queue on device {}",
                                              array.device().index(), queue.device().index()));
}

std::vector<ArrayOperand> check_arguments(const Queue& queue, const std::vector<CArgument>& declarations,
                                          const std::vector<AlgorithmArgument>& arguments, const std::string& what) {
    if (arguments.size() != declarations.size())
        throw ArgumentError("arguments", fmt::format("{} takes {} arguments, {} were given", what, declarations.size(),
                                                     arguments.size()));
    std::vector<ArrayOperand> arrays;
    for (std::size_t k = 0; k < arguments.size(); ++k) {
        const CArgument& d = declarations[k];
        const Array* array = std::get_if<Array>(&arguments[k]);
        if (d.pointer != (array != nullptr))
            throw ArgumentError(d.name, fmt::format("{}: declared as {}, given {}", what, d.pointer ? "an array" : "a scalar",
                                                    array ? "an array" : "a scalar"));
        if (!array) continue;
        check_device(queue, *array, d.name);
        if (!(array->dtype() == d.dtype))
            throw ArgumentError(d.name, fmt::format("{}: declared {}, given an array of {}", what, d.dtype.name(),
                                                    array->dtype().name()));
        arrays.push_back({k, array});
    }
    return arrays;
}

std::vector<bool> reduced_axes(const std::optional<std::vector<int>>& axes, std::size_t ndim, const std::string& what) {
    std::vector<bool> reduced(ndim, !axes.has_value());
    if (!axes) return reduced;
    for (const int axis : *axes) {
        const long long n = static_cast<long long>(ndim);
        if (axis < -n || axis >= n)
            throw ArgumentError("axes", fmt::format("{}: axis {} is out of range for an array of {} dimensions", what,
                                                    axis, ndim));
        const auto a = static_cast<std::size_t>(axis < 0 ? axis + n : axis);
        if (reduced[a]) throw ArgumentError("axes", fmt::format("{}: axis {} is repeated", what, axis));
        reduced[a] = true;
    }
    return reduced;
}

Buffer temporary_buffer(const Queue& queue, std::size_t size) {
    // Never destroyed: blocks may return to it during static destruction, and what it holds is
    // small (partial results).
    static const MemoryPool* const pool = new MemoryPool();
    return pool->allocate(queue, std::max<std::size_t>(size, 16));
}

void pad_axes(IterationSpace& space) {
    const std::size_t n = space.ndim();
    const std::size_t target = n <= 1 ? 1 : n <= 4 ? 4 : 8;
    const std::size_t extra = target - n;
    space.shape.insert(space.shape.begin(), extra, 1);
    space.reduced.insert(space.reduced.begin(), extra, false);
    for (auto& st : space.strides) st.insert(st.begin(), extra, 0);
}

std::size_t floor_pow2(std::size_t value) { return std::bit_floor(std::max<std::size_t>(value, 1)); }

}  // namespace kjarni::detail
