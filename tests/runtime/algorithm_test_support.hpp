#pragma once
// Host side of the reduction and scan tests: random arrays of every dtype, the layout classes
// (views with the same logical contents), elements read back as exact integers or long doubles.

#include <cmath>
#include <complex>
#include <cstdint>
#include <string>
#include <vector>

#include "algorithms/reduction_types.hpp"
#include "dtype/half.hpp"
#include "kjarni/kjarni.hpp"
#include "support/random_data.hpp"

namespace kjarni::test {

using Kind = DType::Kind;
using Complex = std::complex<long double>;

inline bool is_int_kind(const DType& d) {
    switch (d.kind()) {
    case Kind::bool_:
    case Kind::int8:
    case Kind::uint8:
    case Kind::int16:
    case Kind::uint16:
    case Kind::int32:
    case Kind::uint32:
    case Kind::int64:
    case Kind::uint64: return true;
    default: return false;
    }
}

/// The unit roundoff that the reduction and scan checks allow for: 2^-53 for float64 and complex128,
/// float's 2^-24 for the other dtypes.
inline long double unit_roundoff(const DType& d) {
    return d.kind() == Kind::float64 || d.kind() == Kind::complex128 ? std::ldexp(1.0L, -53) : std::ldexp(1.0L, -24);
}

/// What random values to draw: `small` keeps integer sums and products meaningful, `ties` makes
/// equal values frequent, `ones` keeps float products near 1, `sparse` makes zeros frequent.
enum class Values { small, ties, ones, sparse };

/// Element k (C order of a C-contiguous host array) as an exact 64-bit integer (sign-extended).
inline std::uint64_t int_at(const HostArray& a, std::size_t k) {
    const std::byte* p = a.data() + k * a.dtype().itemsize();
    const auto get = [p]<class T>(T) {
        T v;
        std::memcpy(&v, p, sizeof(T));
        return v;
    };
    switch (a.dtype().kind()) {
    case Kind::bool_: return get(std::uint8_t{}) != 0 ? 1 : 0;
    case Kind::int8: return static_cast<std::uint64_t>(static_cast<std::int64_t>(get(std::int8_t{})));
    case Kind::uint8: return get(std::uint8_t{});
    case Kind::int16: return static_cast<std::uint64_t>(static_cast<std::int64_t>(get(std::int16_t{})));
    case Kind::uint16: return get(std::uint16_t{});
    case Kind::int32: return static_cast<std::uint64_t>(static_cast<std::int64_t>(get(std::int32_t{})));
    case Kind::uint32: return get(std::uint32_t{});
    case Kind::int64: return static_cast<std::uint64_t>(get(std::int64_t{}));
    case Kind::uint64: return get(std::uint64_t{});
    default: break;
    }
    throw std::logic_error("int_at: not an integer dtype");
}

/// Element k as a complex long double (exact for every dtype but the widest integers).
inline Complex value_at(const HostArray& a, std::size_t k) {
    const std::byte* p = a.data() + k * a.dtype().itemsize();
    const auto get = [p]<class T>(T) {
        T v;
        std::memcpy(&v, p, sizeof(T));
        return v;
    };
    switch (a.dtype().kind()) {
    case Kind::float16: return detail::half_to_float(get(std::uint16_t{}));
    case Kind::float32: return get(float{});
    case Kind::float64: return get(double{});
    case Kind::complex64: {
        const auto c = get(std::complex<float>{});
        return {c.real(), c.imag()};
    }
    case Kind::complex128: {
        const auto c = get(std::complex<double>{});
        return {c.real(), c.imag()};
    }
    case Kind::uint64: return static_cast<long double>(int_at(a, k));
    default: return static_cast<long double>(static_cast<std::int64_t>(int_at(a, k)));
    }
}

/// A C-contiguous host array of random values.
inline HostArray random_host(const DType& d, std::vector<std::size_t> shape, Values values = Values::small) {
    HostArray a(d, std::move(shape));
    const std::size_t n = a.size();
    auto& rng = random_engine();
    std::uniform_real_distribution<double> real(values == Values::ones ? 0.9 : -1.0,
                                                values == Values::ones ? 1.1 : 1.0);
    const long long low = is_signed(d) ? (values == Values::ties ? -3 : -20) : 0;
    const long long high = values == Values::ties ? 3 : values == Values::ones ? 2 : 40;
    std::uniform_int_distribution<long long> integer(d.kind() == Kind::bool_ ? 0 : low,
                                                     d.kind() == Kind::bool_ ? 1 : high);
    std::bernoulli_distribution zero(values == Values::sparse ? 0.8 : 0.0);
    for (std::size_t k = 0; k < n; ++k) {
        std::byte* p = a.data() + k * d.itemsize();
        const auto put = [p]<class T>(T v) { std::memcpy(p, &v, sizeof(T)); };
        const bool z = zero(rng);
        const long long i = z ? 0 : integer(rng);
        const double r = z ? 0.0 : real(rng), r2 = z ? 0.0 : real(rng);
        switch (d.kind()) {
        case Kind::bool_: put(static_cast<std::uint8_t>(i != 0)); break;
        case Kind::int8: put(static_cast<std::int8_t>(i)); break;
        case Kind::uint8: put(static_cast<std::uint8_t>(i)); break;
        case Kind::int16: put(static_cast<std::int16_t>(i)); break;
        case Kind::uint16: put(static_cast<std::uint16_t>(i)); break;
        case Kind::int32: put(static_cast<std::int32_t>(i)); break;
        case Kind::uint32: put(static_cast<std::uint32_t>(i)); break;
        case Kind::int64: put(static_cast<std::int64_t>(i)); break;
        case Kind::uint64: put(static_cast<std::uint64_t>(i)); break;
        case Kind::float16: put(detail::float_to_half(static_cast<float>(r))); break;
        case Kind::float32: put(static_cast<float>(r)); break;
        case Kind::float64: put(r); break;
        case Kind::complex64: put(std::complex<float>(static_cast<float>(r), static_cast<float>(r2))); break;
        case Kind::complex128: put(std::complex<double>(r, r2)); break;
        case Kind::struct_: break;
        }
    }
    return a;
}

/// The layout classes of the sweeps.
enum class LayoutClass { contiguous, stepped, negative, transposed, broadcast };

inline const char* name_of(LayoutClass c) {
    switch (c) {
    case LayoutClass::contiguous: return "contiguous";
    case LayoutClass::stepped: return "stepped";
    case LayoutClass::negative: return "negative-strided";
    case LayoutClass::transposed: return "transposed";
    case LayoutClass::broadcast: return "broadcast";
    }
    return "?";
}

/// A device view of class `c` whose elements are `host`'s (a C-contiguous 3-d array). For the
/// broadcast class, `host` is replaced by its first plane stretched along axis 0 (a stride 0).
inline Array device_view(const Queue& queue, HostArray& host, LayoutClass c) {
    const auto& s = host.shape();
    switch (c) {
    case LayoutClass::contiguous: return Array::from_host(queue, host);
    case LayoutClass::stepped: {
        HostArray big = random_host(host.dtype(), {2 * s[0], s[1], 2 * s[2] + 1});
        big[{Slice{0, std::nullopt, 2}, Slice{}, Slice{1, std::nullopt, 2}}].assign(host);
        return Array::from_host(queue, big)[{Slice{0, std::nullopt, 2}, Slice{}, Slice{1, std::nullopt, 2}}];
    }
    case LayoutClass::negative: {
        HostArray big = random_host(host.dtype(), s);
        big[{Slice{std::nullopt, std::nullopt, -1}, Slice{}, Slice{std::nullopt, std::nullopt, -1}}].assign(host);
        return Array::from_host(
            queue, big)[{Slice{std::nullopt, std::nullopt, -1}, Slice{}, Slice{std::nullopt, std::nullopt, -1}}];
    }
    case LayoutClass::transposed: {
        HostArray big(host.dtype(), {s[2], s[1], s[0]});
        big.transpose().assign(host);
        return Array::from_host(queue, big).transpose();
    }
    case LayoutClass::broadcast: {
        const HostArray plane = host[{Slice{0, 1}}].copy();
        const Array d = Array::from_host(queue, plane);
        Layout layout = d.layout();
        layout.shape[0] = s[0];
        layout.strides[0] = 0;
        for (std::size_t k = 0; k < s[0]; ++k)
            host[{Slice{static_cast<std::ptrdiff_t>(k), static_cast<std::ptrdiff_t>(k) + 1}}].assign(plane);
        return Array::from_buffer(d.base(), d.dtype(), layout);
    }
    }
    throw std::logic_error("layout class");
}

/// For every output (C order over the kept axes), the flat C-order indices of its reduced
/// elements (C order over the reduced axes).
inline std::vector<std::vector<std::size_t>> reduction_groups(const std::vector<std::size_t>& shape,
                                                              const std::vector<bool>& reduced) {
    std::size_t n_out = 1, n_red = 1;
    for (std::size_t d = 0; d < shape.size(); ++d) (reduced[d] ? n_red : n_out) *= shape[d];
    std::vector<std::vector<std::size_t>> groups(n_out);
    std::size_t total = 1;
    for (auto e : shape) total *= e;
    for (std::size_t flat = 0; flat < total; ++flat) {
        std::size_t rest = flat, o = 0, r = 0, o_scale = 1, r_scale = 1;
        for (std::size_t d = shape.size(); d-- > 0;) {
            const std::size_t c = rest % shape[d];
            rest /= shape[d];
            if (reduced[d]) {
                r += c * r_scale;
                r_scale *= shape[d];
            } else {
                o += c * o_scale;
                o_scale *= shape[d];
            }
        }
        if (groups[o].size() <= r) groups[o].resize(r + 1);
        groups[o][r] = flat;
    }
    if (total == 0)
        for (auto& g : groups) g.clear();
    return groups;
}

inline std::vector<bool> flags(std::size_t ndim, const std::optional<std::vector<int>>& axes) {
    std::vector<bool> out(ndim, !axes.has_value());
    if (axes)
        for (int a : *axes) out[static_cast<std::size_t>(a < 0 ? a + static_cast<int>(ndim) : a)] = true;
    return out;
}

}  // namespace kjarni::test
