#pragma once
// CPU references for array tests: arrays as C-ordered bytes with a shape, indexed by explicit
// arithmetic (no kjarni Layout code), and random inputs that are views of several kinds.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "kjarni/array.hpp"
#include "support/random_data.hpp"

namespace kjarni::test {

using Shape = std::vector<std::size_t>;

inline std::size_t product(const Shape& shape) {
    std::size_t n = 1;
    for (auto e : shape) n *= e;
    return n;
}

/// Calls f(index) for every index of `shape`, in C order.
template <class F>
void for_each_index(const Shape& shape, F&& f) {
    const std::size_t n = product(shape);
    std::vector<std::size_t> index(shape.size(), 0);
    for (std::size_t k = 0; k < n; ++k) {
        f(static_cast<const std::vector<std::size_t>&>(index));
        for (std::size_t d = shape.size(); d-- > 0;) {
            if (++index[d] < shape[d]) break;
            index[d] = 0;
        }
    }
}

/// Position of `index` in C order (or Fortran order).
inline std::size_t flat_index(const Shape& shape, const std::vector<std::size_t>& index, bool fortran = false) {
    std::size_t flat = 0;
    if (fortran) {
        for (std::size_t d = shape.size(); d-- > 0;) flat = flat * shape[d] + index[d];
    } else {
        for (std::size_t d = 0; d < shape.size(); ++d) flat = flat * shape[d] + index[d];
    }
    return flat;
}

/// An array's elements as C-ordered bytes.
struct Reference {
    Shape shape;
    std::size_t itemsize = 0;
    std::vector<std::byte> bytes;

    Reference(Shape s, std::size_t item) : shape(std::move(s)), itemsize(item), bytes(product(shape) * item) {}
    const std::byte* at(const std::vector<std::size_t>& index) const {
        return bytes.data() + flat_index(shape, index) * itemsize;
    }
    std::byte* at(const std::vector<std::size_t>& index) { return bytes.data() + flat_index(shape, index) * itemsize; }
};

/// The elements of a host array (any layout; HostArray's own host copy).
inline Reference reference_of(const HostArray& host) {
    Reference r(host.shape(), host.dtype().itemsize());
    const HostArray c = host.copy();
    if (!r.bytes.empty()) std::memcpy(r.bytes.data(), c.data(), r.bytes.size());
    return r;
}

/// The elements of a device array, read back.
inline Reference reference_of(const Queue& queue, const Array& device) { return reference_of(device.get(queue)); }

/// Shapes equal and every byte equal; names the first element that differs.
inline ::testing::AssertionResult same_elements(const Reference& got, const Reference& want) {
    if (got.shape != want.shape || got.itemsize != want.itemsize)
        return ::testing::AssertionFailure() << "shape or itemsize differ: got " << ::testing::PrintToString(got.shape)
                                             << " want " << ::testing::PrintToString(want.shape);
    for (std::size_t k = 0; k < got.bytes.size(); ++k) {
        if (got.bytes[k] != want.bytes[k])
            return ::testing::AssertionFailure() << "element " << k / got.itemsize << " (C order) of shape "
                                                 << ::testing::PrintToString(got.shape) << " differs";
    }
    return ::testing::AssertionSuccess();
}

/// What kind of view a random input is.
enum class ViewKind { contiguous, transposed, strided, reversed };
inline const char* name_of(ViewKind kind) {
    switch (kind) {
    case ViewKind::contiguous: return "contiguous";
    case ViewKind::transposed: return "transposed";
    case ViewKind::strided: return "strided";
    case ViewKind::reversed: return "reversed";
    }
    return "?";
}

inline ViewKind random_view_kind() {
    return static_cast<ViewKind>(std::uniform_int_distribution<int>(0, 3)(random_engine()));
}

/// A host array and a device array holding the same random bytes, both seen through the same view
/// of `shape`: contiguous; the transpose of a contiguous array; every other element (from 1) of a
/// larger one; or a larger one read backwards from its second to last element on every axis.
struct ViewPair {
    HostArray host;
    Array device;
};

inline ViewPair random_view(const Queue& queue, const DType& dtype, const Shape& shape, ViewKind kind) {
    Shape base = shape;
    if (kind == ViewKind::transposed) std::reverse(base.begin(), base.end());
    if (kind == ViewKind::strided)
        for (auto& e : base) e = 2 * e + 1;
    if (kind == ViewKind::reversed)
        for (auto& e : base) e += 2;
    HostArray host(dtype, base);
    const auto bytes = random_bytes(host.nbytes());
    if (!bytes.empty()) std::memcpy(host.data(), bytes.data(), bytes.size());
    const Array device = Array::from_host(queue, host);
    std::vector<Slice> slices;
    for (auto e : shape) {
        const auto n = static_cast<std::ptrdiff_t>(e);
        if (kind == ViewKind::strided) slices.push_back(Slice{1, 1 + 2 * n, 2});
        if (kind == ViewKind::reversed) slices.push_back(Slice{n, 0, -1});
    }
    switch (kind) {
    case ViewKind::contiguous: return {host, device};
    case ViewKind::transposed: return {host.transpose(), device.transpose()};
    default: return {host.slice(slices), device.slice(slices)};
    }
}

/// The dtypes the operations are swept over: itemsizes 1, 2, 4, 8, 12 (a struct) and 16.
inline std::vector<DType> sweep_dtypes() {
    return {dtypes::int8,
            dtypes::float16,
            dtypes::float32,
            dtypes::float64,
            DType::struct_({{"a", dtypes::int32}, {"b", dtypes::float32, {2}}}, {.aligned = true}),
            dtypes::complex128};
}

}  // namespace kjarni::test
