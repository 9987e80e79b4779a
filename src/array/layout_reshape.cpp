// Layout::reshape: another shape over the same memory wherever the strides allow it, numpy's rule.

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "array/signed_size.hpp"
#include "kjarni/array.hpp"

namespace kjarni {

using detail::to_signed;

namespace {

// The strides of `new_shape` over the elements of `layout` (size > 0) read in `order`, or nullopt.
//
// Axes of extent 1 are left out of the old layout (their strides never matter). Then old and new
// axes are walked together in groups whose extents have equal products; within a group the old
// axes must chain (in C order each stride is the next one's times its extent, in F order the other
// way round), so the group is one evenly strided run of elements, which the new axes of the group
// can divide as they like. New axes of extent 1 after the last group get any stride.
std::optional<std::vector<std::ptrdiff_t>> strides_without_copy(const Layout& layout,
                                                                const std::vector<std::size_t>& new_shape,
                                                                std::size_t itemsize, Order order) {
    std::vector<std::size_t> old_shape;
    std::vector<std::ptrdiff_t> old_strides;
    for (std::size_t d = 0; d < layout.ndim(); ++d) {
        if (layout.shape[d] == 1) continue;
        old_shape.push_back(layout.shape[d]);
        old_strides.push_back(layout.strides[d]);
    }
    const bool c = order == Order::C;
    const std::size_t old_n = old_shape.size(), new_n = new_shape.size();
    std::vector<std::ptrdiff_t> strides(new_n, 0);
    // Group [old_i, old_j) of the old axes against [new_i, new_j) of the new ones.
    std::size_t old_i = 0, new_i = 0;
    while (new_i < new_n && old_i < old_n) {
        std::size_t old_j = old_i + 1, new_j = new_i + 1;
        std::size_t new_product = new_shape[new_i], old_product = old_shape[old_i];
        while (new_product != old_product) {
            // Both products divide the total size (> 0), so neither runs past its end.
            if (new_product < old_product) {
                new_product *= new_shape[new_j++];
            } else {
                old_product *= old_shape[old_j++];
            }
        }
        for (std::size_t k = old_i; k + 1 < old_j; ++k) {
            const bool chained = c ? old_strides[k] == to_signed(old_shape[k + 1]) * old_strides[k + 1]
                                   : old_strides[k + 1] == to_signed(old_shape[k]) * old_strides[k];
            if (!chained) return std::nullopt;
        }
        if (c) {
            strides[new_j - 1] = old_strides[old_j - 1];
            for (std::size_t k = new_j - 1; k > new_i; --k) strides[k - 1] = strides[k] * to_signed(new_shape[k]);
        } else {
            strides[new_i] = old_strides[old_i];
            for (std::size_t k = new_i + 1; k < new_j; ++k) strides[k] = strides[k - 1] * to_signed(new_shape[k - 1]);
        }
        new_i = new_j;
        old_i = old_j;
    }
    // Trailing axes of extent 1: numpy's choice of stride, for strides equal to numpy's.
    std::ptrdiff_t last = new_i >= 1 ? strides[new_i - 1] : to_signed(itemsize);
    if (!c && new_i >= 1) last *= to_signed(new_shape[new_i - 1]);
    for (std::size_t k = new_i; k < new_n; ++k) strides[k] = last;
    return strides;
}

}  // namespace

std::vector<std::size_t> Layout::resolve_shape(std::span<const std::ptrdiff_t> new_shape) const {
    std::vector<std::size_t> result(new_shape.size());
    std::size_t known = 1;
    std::optional<std::size_t> inferred;
    for (std::size_t i = 0; i < new_shape.size(); ++i) {
        if (new_shape[i] == -1) {
            if (inferred) throw ArgumentError("shape", "more than one -1");
            inferred = i;
        } else if (new_shape[i] < 0) {
            throw ArgumentError("shape", fmt::format("negative extent {}", new_shape[i]));
        } else {
            result[i] = static_cast<std::size_t>(new_shape[i]);
            known *= result[i];
        }
    }
    if (inferred) {
        if (known == 0 || size() % known != 0)
            throw ArgumentError("shape", fmt::format("cannot infer the -1 of ({}) for {} elements",
                                                     fmt::join(new_shape, ", "), size()));
        result[*inferred] = size() / known;
        known *= result[*inferred];
    }
    if (known != size())
        throw ArgumentError("shape", fmt::format("{} elements of shape ({}) cannot be reshaped into ({})", size(),
                                                 fmt::join(shape, ", "), fmt::join(result, ", ")));
    return result;
}

std::optional<Layout> Layout::try_reshape(std::span<const std::ptrdiff_t> new_shape, std::size_t itemsize,
                                          Order order) const {
    order = resolve_order(order, *this, itemsize);  // numpy's reshape(order='A')
    std::vector<std::size_t> resolved = resolve_shape(new_shape);
    const bool contiguous = order == Order::C ? is_c_contiguous(itemsize) : is_f_contiguous(itemsize);
    if (contiguous || size() == 0) {
        Layout out = Layout::contiguous(std::move(resolved), itemsize, order);
        out.offset = offset;
        return out;
    }
    auto new_strides = strides_without_copy(*this, resolved, itemsize, order);
    if (!new_strides) return std::nullopt;
    Layout out;
    out.shape = std::move(resolved);
    out.strides = std::move(*new_strides);
    out.offset = offset;
    return out;
}

Layout Layout::reshape(std::span<const std::ptrdiff_t> new_shape, std::size_t itemsize, Order order) const {
    order = resolve_order(order, *this, itemsize);
    auto out = try_reshape(new_shape, itemsize, order);
    if (!out)
        throw ArgumentError("shape",
                            fmt::format("a view of shape ({}) and strides ({}) cannot be reshaped into ({}) in {} "
                                        "order without a copy",
                                        fmt::join(shape, ", "), fmt::join(strides, ", "), fmt::join(new_shape, ", "),
                                        order == Order::C ? "C" : "Fortran"));
    return *out;
}

}  // namespace kjarni
