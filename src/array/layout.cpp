// Layouts (shape, strides, offset) and their views; HostArray.

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <numeric>

#include "array/signed_size.hpp"
#include "kjarni/array.hpp"

namespace kjarni {

using detail::to_signed;

Layout Layout::contiguous(std::vector<std::size_t> shape, std::size_t itemsize, Order order) {
    if (order == Order::A) order = Order::C;  // no array to follow: A is C
    Layout l;
    // Built by push_back: g++ 12 at -O2 sees a null pointer in a resize() of it inlined here.
    l.strides.reserve(shape.size());
    std::ptrdiff_t stride = to_signed(itemsize);
    for (std::size_t k = 0; k < shape.size(); ++k) {
        const std::size_t d = order == Order::C ? shape.size() - 1 - k : k;
        l.strides.push_back(stride);
        stride *= to_signed(std::max<std::size_t>(shape[d], 1));
    }
    if (order == Order::C) std::reverse(l.strides.begin(), l.strides.end());
    l.shape = std::move(shape);
    return l;
}

std::size_t Layout::size() const noexcept {
    std::size_t n = 1;
    for (auto e : shape) n *= e;
    return n;
}

namespace {
// Contiguous in the given order: axes of extent 1 may have any stride (numpy's rule).
bool contiguous_in(const Layout& l, std::size_t itemsize, Order order) {
    if (l.size() == 0) return true;
    std::ptrdiff_t expected = to_signed(itemsize);
    for (std::size_t k = 0; k < l.shape.size(); ++k) {
        const std::size_t d = order == Order::C ? l.shape.size() - 1 - k : k;
        if (l.shape[d] == 1) continue;
        if (l.strides[d] != expected) return false;
        expected *= to_signed(l.shape[d]);
    }
    return true;
}
}  // namespace

bool Layout::is_c_contiguous(std::size_t itemsize) const noexcept { return contiguous_in(*this, itemsize, Order::C); }
bool Layout::is_f_contiguous(std::size_t itemsize) const noexcept { return contiguous_in(*this, itemsize, Order::F); }

std::pair<std::ptrdiff_t, std::ptrdiff_t> Layout::extent(std::size_t itemsize) const noexcept {
    if (size() == 0) return {0, 0};
    std::ptrdiff_t low = 0, high = 0;
    for (std::size_t d = 0; d < shape.size(); ++d) {
        const std::ptrdiff_t span = to_signed(shape[d] - 1) * strides[d];
        (span < 0 ? low : high) += span;
    }
    return {low, high + to_signed(itemsize)};
}

std::ptrdiff_t Layout::offset_of(std::span<const std::size_t> index) const {
    if (index.size() != shape.size())
        throw IndexOutOfBoundsError("index", fmt::format("{} indices for {} dimensions", index.size(), shape.size()));
    std::ptrdiff_t o = to_signed(offset);
    for (std::size_t d = 0; d < shape.size(); ++d) {
        if (index[d] >= shape[d])
            throw IndexOutOfBoundsError("index",
                                        fmt::format("{} out of range for axis {} of extent {}", index[d], d, shape[d]));
        o += to_signed(index[d]) * strides[d];
    }
    return o;
}

namespace {
// One axis of extent n sliced: the position of the first element taken and how many (Python's
// slice.indices()).
struct AxisSlice {
    std::ptrdiff_t start = 0;
    std::size_t count = 0;
};

AxisSlice slice_axis(std::size_t extent, const Slice& s) {
    if (s.step == 0) throw ArgumentError("slices", "a step of 0");
    const std::ptrdiff_t n = to_signed(extent);
    auto clamp = [&](std::optional<std::ptrdiff_t> v, std::ptrdiff_t fallback) {
        if (!v) return fallback;
        std::ptrdiff_t x = *v < 0 ? *v + n : *v;
        if (s.step > 0) return std::clamp<std::ptrdiff_t>(x, 0, n);
        return std::clamp<std::ptrdiff_t>(x, -1, n - 1);
    };
    const std::ptrdiff_t start = clamp(s.start, s.step > 0 ? 0 : n - 1);
    const std::ptrdiff_t stop = clamp(s.stop, s.step > 0 ? n : -1);
    std::ptrdiff_t count = 0;
    if (s.step > 0 && stop > start) count = (stop - start + s.step - 1) / s.step;
    if (s.step < 0 && stop < start) count = (start - stop - s.step - 1) / -s.step;
    return {start, static_cast<std::size_t>(count)};
}
}  // namespace

Layout Layout::slice(std::span<const Slice> slices) const {
    if (slices.size() > shape.size())
        throw ArgumentError("slices", fmt::format("{} slices for {} dimensions", slices.size(), shape.size()));
    std::vector<Index> indices(slices.begin(), slices.end());
    return index(indices);
}

Layout Layout::index(std::span<const Index> indices) const {
    std::size_t consumed = 0;  // axes the entries other than ellipsis and newaxis take
    std::size_t ellipses = 0;
    for (const Index& i : indices) {
        if (std::holds_alternative<Ellipsis>(i.value())) ++ellipses;
        else if (!std::holds_alternative<NewAxis>(i.value())) ++consumed;
    }
    if (ellipses > 1) throw ArgumentError("indices", fmt::format("{} ellipses: at most one is allowed", ellipses));
    if (consumed > shape.size())
        throw IndexOutOfBoundsError("indices", fmt::format("{} indices for {} dimensions", consumed, shape.size()));
    Layout out;
    out.offset = offset;
    std::ptrdiff_t new_offset = to_signed(offset);
    std::size_t axis = 0;  // the next axis of this layout
    auto keep_whole = [&](std::size_t count) {
        for (std::size_t k = 0; k < count; ++k, ++axis) {
            out.shape.push_back(shape[axis]);
            out.strides.push_back(strides[axis]);
        }
    };
    for (std::size_t position = 0; position < indices.size(); ++position) {
        const auto& v = indices[position].value();
        if (std::holds_alternative<Ellipsis>(v)) {
            keep_whole(shape.size() - consumed);
        } else if (std::holds_alternative<NewAxis>(v)) {
            // numpy gives the new axis stride 0.
            out.shape.push_back(1);
            out.strides.push_back(0);
        } else if (const auto* s = std::get_if<Slice>(&v)) {
            const AxisSlice taken = slice_axis(shape[axis], *s);
            out.shape.push_back(taken.count);
            out.strides.push_back(strides[axis] * s->step);
            if (taken.count > 0) new_offset += taken.start * strides[axis];
            ++axis;
        } else {
            const std::ptrdiff_t i = std::get<std::ptrdiff_t>(v);
            const std::ptrdiff_t n = to_signed(shape[axis]);
            if (i < -n || i >= n)
                throw IndexOutOfBoundsError("indices",
                                            fmt::format("index {} (entry {}) is out of range for axis {} of extent {}",
                                                        i, position, axis, n));
            new_offset += (i < 0 ? i + n : i) * strides[axis];
            ++axis;
        }
    }
    keep_whole(shape.size() - axis);
    // As slice(): an empty view keeps the original offset (no element is addressed).
    out.offset = out.size() == 0 ? offset : static_cast<std::size_t>(new_offset);
    return out;
}

Layout Layout::transpose(std::span<const std::size_t> axes) const {
    std::vector<std::size_t> order(shape.size());
    if (axes.empty()) {
        std::iota(order.rbegin(), order.rend(), std::size_t{0});
    } else {
        if (axes.size() != shape.size())
            throw ArgumentError("axes", fmt::format("{} axes for {} dimensions", axes.size(), shape.size()));
        std::vector<bool> seen(shape.size(), false);
        for (std::size_t i = 0; i < axes.size(); ++i) {
            // numpy's two errors: an axis the array lacks (AxisError), one given twice (ValueError).
            if (axes[i] >= shape.size())
                throw AxisError("axes", fmt::format("not a permutation: {} (axis {} is out of range for an array of "
                                                    "{} dimensions)",
                                                    fmt::join(axes, ", "), axes[i], shape.size()));
            if (seen[axes[i]]) throw ArgumentError("axes", fmt::format("not a permutation: {}", fmt::join(axes, ", ")));
            seen[axes[i]] = true;
            order[i] = axes[i];
        }
    }
    Layout out = *this;
    for (std::size_t i = 0; i < order.size(); ++i) {
        out.shape[i] = shape[order[i]];
        out.strides[i] = strides[order[i]];
    }
    return out;
}

// --- HostArray ---

HostArray::HostArray(const DType& dtype, std::vector<std::size_t> shape, Order order)
    : dtype_(dtype), layout_(Layout::contiguous(std::move(shape), dtype.itemsize(), order)),
      storage_(new std::byte[std::max<std::size_t>(layout_.size() * dtype.itemsize(), 1)](),
               std::default_delete<std::byte[]>()),
      capacity_(layout_.size() * dtype.itemsize()) {}

HostArray HostArray::wrap_bytes(void* data, std::size_t size, const DType& dtype, std::vector<std::size_t> shape) {
    Layout layout = Layout::contiguous(std::move(shape), dtype.itemsize());
    if (layout.size() * dtype.itemsize() != size)
        throw ArgumentError("data", fmt::format("{} bytes for {} elements of {}", size, layout.size(), dtype.name()));
    return HostArray(dtype, std::move(layout),
                     std::shared_ptr<std::byte>(static_cast<std::byte*>(data), [](std::byte*) {}), size);
}

void HostArray::check_type(std::size_t size) const {
    if (size != dtype_.itemsize())
        throw ArgumentError("T", fmt::format("a {}-byte type for elements of {} ({} bytes)", size, dtype_.name(),
                                             dtype_.itemsize()));
}

std::span<std::byte> HostArray::bytes() const {
    if (!is_c_contiguous()) throw ArgumentError("array", "is not C-contiguous");
    return {data(), nbytes()};
}

HostArray HostArray::view(const DType& dtype, const Layout& layout) const {
    const auto [low, high] = layout.extent(dtype.itemsize());
    const auto o = static_cast<std::ptrdiff_t>(layout.offset);
    if (layout.size() != 0 && (o + low < 0 || o + high > static_cast<std::ptrdiff_t>(capacity_)))
        throw ArgumentError("layout", "reaches outside the memory of the array");
    return HostArray(dtype, layout, storage_, capacity_);
}

HostArray HostArray::slice(std::span<const Slice> slices) const { return view(dtype_, layout_.slice(slices)); }
HostArray HostArray::transpose(std::span<const std::size_t> axes) const {
    return view(dtype_, layout_.transpose(axes));
}
HostArray HostArray::index(std::span<const Index> indices) const { return view(dtype_, layout_.index(indices)); }
HostArray HostArray::reshape(std::span<const std::ptrdiff_t> shape, Order order) const {
    return view(dtype_, layout_.reshape(shape, dtype_.itemsize(), order));
}

namespace {
// Calls f(dst_offset, src_offset) for every element, in C order of the shape.
template <class F>
void for_each_element(const Layout& a, const Layout& b, F&& f) {
    const std::size_t n = a.size();
    if (n == 0) return;
    std::vector<std::size_t> index(a.ndim(), 0);
    std::ptrdiff_t oa = static_cast<std::ptrdiff_t>(a.offset), ob = static_cast<std::ptrdiff_t>(b.offset);
    for (std::size_t k = 0; k < n; ++k) {
        f(oa, ob);
        for (std::size_t d = index.size(); d-- > 0;) {
            oa += a.strides[d];
            ob += b.strides[d];
            if (++index[d] < a.shape[d]) break;
            oa -= a.strides[d] * static_cast<std::ptrdiff_t>(a.shape[d]);
            ob -= b.strides[d] * static_cast<std::ptrdiff_t>(b.shape[d]);
            index[d] = 0;
        }
    }
}
}  // namespace

void HostArray::assign(const HostArray& source) const {
    if (source.shape() != shape() || source.dtype().itemsize() != dtype_.itemsize())
        throw ArgumentError("source",
                            fmt::format("shape ({}) and {} do not match ({}) and {}", fmt::join(source.shape(), ", "),
                                        source.dtype().name(), fmt::join(shape(), ", "), dtype_.name()));
    const std::size_t item = dtype_.itemsize();
    if (is_c_contiguous() && source.is_c_contiguous()) {
        if (nbytes() != 0) std::memmove(data(), source.data(), nbytes());
        return;
    }
    std::byte* dst = storage_.get();
    const std::byte* src = source.storage_.get();
    for_each_element(layout_, source.layout_,
                     [&](std::ptrdiff_t d, std::ptrdiff_t s) { std::memmove(dst + d, src + s, item); });
}

HostArray HostArray::copy(Order order) const {
    HostArray out(dtype_, shape(), resolve_order(order, layout_, dtype_.itemsize()));
    out.assign(*this);
    return out;
}

HostArray extract_field(const HostArray& array, const FieldPath& path) {
    const auto [offset, field_dtype] = field_at(array.dtype(), path);
    // A whole array field: its remaining dimensions are appended.
    std::vector<std::size_t> extra;
    {
        DType current = array.dtype();
        std::size_t i = 0;
        while (i < path.size()) {
            const auto& name = std::get<std::string>(path[i]);
            const auto& fields = current.fields();
            const auto it = std::find_if(fields.begin(), fields.end(), [&](const Field& f) { return f.name == name; });
            ++i;
            std::size_t used = 0;
            while (i < path.size() && std::holds_alternative<std::size_t>(path[i])) {
                ++i;
                ++used;
            }
            extra.assign(it->shape.begin() + static_cast<std::ptrdiff_t>(used), it->shape.end());
            current = it->dtype();
        }
    }
    Layout layout = array.layout();
    layout.offset += offset;
    std::vector<std::ptrdiff_t> extra_strides(extra.size());
    std::ptrdiff_t stride = static_cast<std::ptrdiff_t>(field_dtype.itemsize());
    for (std::size_t d = extra.size(); d-- > 0;) {
        extra_strides[d] = stride;
        stride *= static_cast<std::ptrdiff_t>(extra[d]);
    }
    layout.shape.insert(layout.shape.end(), extra.begin(), extra.end());
    layout.strides.insert(layout.strides.end(), extra_strides.begin(), extra_strides.end());
    return array.view(field_dtype, layout).copy();
}

}  // namespace kjarni
