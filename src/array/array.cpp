// Arrays on one device: creation, views, transfers, kernel arguments (the strided-copy kernel is in
// strided_copy.cpp).

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "array/overlap.hpp"
#include "array/signed_size.hpp"
#include "core/context_state.hpp"
#include "kjarni/array.hpp"
#include "kjarni/memory_pool.hpp"
#include "kjarni/program.hpp"
#include "kjarni/template.hpp"

namespace kjarni {

using detail::to_signed;

namespace {

// Copies move bytes: the dtypes must be equal, not merely of one item size (int32 bytes read as
// float32 would be garbage). numpy's `a[...] = b` would convert, but a conversion is a kernel with
// a rounding and overflow policy of its own; kjarni asks for it by name (astype), as PyOpenCL's and
// PyCUDA's Array.set refuse a dtype mismatch.
void check_same(const std::vector<std::size_t>& a_shape, const DType& a_dtype, const std::vector<std::size_t>& b_shape,
                const DType& b_dtype, const char* what) {
    if (a_shape != b_shape)
        throw ArgumentError(what, fmt::format("shape ({}) does not match the array's ({})", fmt::join(b_shape, ", "),
                                              fmt::join(a_shape, ", ")));
    if (!(a_dtype == b_dtype))
        throw ArgumentTypeError(what, fmt::format("has dtype {}, the array {}: copies do not convert (use astype)",
                                                  b_dtype.name(), a_dtype.name()));
}

/// Where set() stages the source of an overlapping copy: one pool per context, freed with it.
struct OverlapStagingPool {
    MemoryPool pool;
};

}  // namespace

Array Array::empty(const BoundDevice& device, std::vector<std::size_t> shape, const DType& dtype,
                   std::optional<std::vector<std::ptrdiff_t>> strides, std::size_t first_element_offset,
                   const Allocator& allocator) {
    Layout layout = Layout::contiguous(std::move(shape), dtype.itemsize());
    if (strides) {
        if (strides->size() != layout.shape.size())
            throw ArgumentError("strides",
                                fmt::format("{} strides for {} dimensions", strides->size(), layout.shape.size()));
        layout.strides = *strides;
    }
    layout.offset = first_element_offset;
    const auto [low, high] = layout.extent(dtype.itemsize());
    if (to_signed(first_element_offset) + low < 0)
        throw ArgumentError(
            "first_element_offset",
            fmt::format("{} bytes leave no room for the {} bytes negative strides reach before the first element",
                        first_element_offset, -low));
    const std::size_t bytes = first_element_offset + static_cast<std::size_t>(high);
    Buffer base = allocator ? allocator(device, bytes) : Buffer::allocate(device, bytes);
    if (base.size() < bytes)
        throw ArgumentError("allocator", fmt::format("returned {} bytes, {} are needed", base.size(), bytes));
    return Array(std::move(base), dtype, std::move(layout), true);
}

Array Array::empty(const BoundDevice& device, std::vector<std::size_t> shape, const DType& dtype, Order order,
                   const Allocator& allocator) {
    const Layout layout = Layout::contiguous(std::move(shape), dtype.itemsize(), order);
    return empty(device, layout.shape, dtype, layout.strides, 0, allocator);
}

Array Array::zeros(const Queue& queue, std::vector<std::size_t> shape, const DType& dtype, Order order,
                   const Allocator& allocator) {
    Array a = empty(queue.device(), std::move(shape), dtype, order, allocator);
    if (a.base_.size() != 0) {
        const std::byte zero{0};
        a.base_.fill(queue, std::span(&zero, 1), true);
    }
    return a;
}

Array Array::from_host(const Queue& queue, const HostArray& host, const Allocator& allocator) {
    Array a = empty(queue.device(), host.shape(), host.dtype(), Order::C, allocator);
    a.set(queue, host);
    return a;
}

Array Array::from_host(const BoundDevice& device, const HostArray& host, const Allocator& allocator) {
    const Queue queue(device);
    Array a = from_host(queue, host, allocator);
    queue.synchronize();
    return a;
}

Array Array::empty_like(const BoundDevice& device, const ArrayMetadata& like, const Allocator& allocator) {
    return empty(device, like.shape(), like.dtype(), like.strides(), like.offset(), allocator);
}

Array Array::zeros_like(const Queue& queue, const ArrayMetadata& like, const Allocator& allocator) {
    Array a = empty_like(queue.device(), like, allocator);
    if (a.base_.size() != 0) {
        const std::byte zero{0};
        a.base_.fill(queue, std::span(&zero, 1), true);
    }
    return a;
}

ArrayMetadata::ArrayMetadata(const DType& dtype, std::vector<std::size_t> shape,
                             std::optional<std::vector<std::ptrdiff_t>> strides, std::size_t first_element_offset)
    : dtype_(dtype), layout_(Layout::contiguous(std::move(shape), dtype.itemsize())) {
    if (strides) {
        if (strides->size() != layout_.shape.size())
            throw ArgumentError("strides",
                                fmt::format("{} strides for {} dimensions", strides->size(), layout_.shape.size()));
        layout_.strides = std::move(*strides);
    }
    layout_.offset = first_element_offset;
}

std::size_t ArrayMetadata::buffer_size() const {
    const auto [low, high] = layout_.extent(dtype_.itemsize());
    if (to_signed(layout_.offset) + low < 0)
        throw ArgumentError(
            "first_element_offset",
            fmt::format("{} bytes leave no room for the {} bytes negative strides reach before the first element",
                        layout_.offset, -low));
    return layout_.offset + static_cast<std::size_t>(high);
}

Order resolve_order(Order order, const Layout& layout, std::size_t itemsize) noexcept {
    if (order != Order::A) return order;
    return layout.is_f_contiguous(itemsize) && !layout.is_c_contiguous(itemsize) ? Order::F : Order::C;
}

bool Array::aligned() const noexcept {
    const std::size_t alignment = dtype_.alignment();
    if (alignment <= 1) return true;
    if ((base_.offset() + layout_.offset) % alignment != 0) return false;
    for (std::size_t k = 0; k < layout_.ndim(); ++k) {
        if (layout_.shape[k] > 1 && layout_.strides[k] % static_cast<std::ptrdiff_t>(alignment) != 0) return false;
    }
    return true;
}

Array Array::read_only() const {
    Array view(base_, dtype_, layout_);
    view.writeable_ = false;
    return view;
}

void Array::require_writeable(const char* argument) const {
    if (writeable()) return;
    throw ArgumentError(argument,
                        base_.kernel_access() == KernelAccess::read_only
                            ? "is over memory kernels may only read (KernelAccess::read_only): it cannot be written"
                            : "is read-only (not writeable): it cannot be written");
}

Array Array::from_buffer(const Buffer& base, const DType& dtype, Layout layout, bool writeable) {
    if (layout.strides.size() != layout.shape.size())
        throw ArgumentError("layout", "strides and shape differ in length");
    const auto [low, high] = layout.extent(dtype.itemsize());
    const auto o = to_signed(layout.offset);
    if (layout.size() != 0 && (o + low < 0 || o + high > to_signed(base.size())))
        throw ArgumentError("layout", "reaches outside the buffer");
    Array a(base, dtype, std::move(layout));
    a.writeable_ = writeable;
    return a;
}

namespace {

// The bytes [first, first + size) of its base buffer that an array's elements span (data()'s
// region), with get_sub_region's checks.
std::pair<std::size_t, std::size_t> array_element_region(const Buffer& base, const Layout& layout,
                                                         std::size_t itemsize) {
    for (auto s : layout.strides) {
        if (s < 0)
            throw ArgumentError("array", "has negative strides: pass array.base() and the offsets to a kernel instead");
    }
    const auto size = static_cast<std::size_t>(layout.extent(itemsize).second);
    if (layout.offset > base.size() || size > base.size() - layout.offset) {
        throw ArgumentError("array", fmt::format("spans {} bytes at {}, past the end of its buffer of {} bytes", size,
                                                 layout.offset, base.size()));
    }
    return {layout.offset, size};
}

}  // namespace

Buffer Array::data() const {
    const auto [first, size] = array_element_region(base_, layout_, dtype_.itemsize());
    return base_.get_sub_region(first, size);
}

detail::KernelArg pack_kernel_arg(const Array& array, const detail::LaunchTarget&) {
    // data()'s region, packed without making that Buffer: one per argument per launch cost more
    // than the launch's own checks (its shared owner counted up and down, the recorder's hook).
    const auto [first, size] = array_element_region(array.base(), array.layout(), array.dtype().itemsize());
    return detail::pack_buffer_region(array.base(), array.base().offset() + first, size);
}

// --- Views ---

Array Array::slice(std::span<const Slice> slices) const { return view_with(dtype_, layout_.slice(slices)); }
Array Array::transpose(std::span<const std::size_t> axes) const { return view_with(dtype_, layout_.transpose(axes)); }
Array Array::index(std::span<const Index> indices) const { return view_with(dtype_, layout_.index(indices)); }
Array Array::reshape(std::span<const std::ptrdiff_t> shape, Order order) const {
    return view_with(dtype_, layout_.reshape(shape, dtype_.itemsize(), order));
}
Array Array::view(const DType& dtype) const {
    if (dtype.itemsize() != dtype_.itemsize())
        throw ArgumentError("dtype", fmt::format("{} has another itemsize than {}", dtype.name(), dtype_.name()));
    return view_with(dtype, layout_);
}

// --- Transfers ---

HostArray Array::get(const Queue& queue, bool async) const {
    HostArray out(dtype_, shape());
    get(queue, out, async);
    return out;
}

void Array::get(const Queue& queue, const HostArray& dest, bool async) const {
    check_same(shape(), dtype_, dest.shape(), dest.dtype(), "dest");
    if (size() == 0) return;
    if (is_c_contiguous() && dest.is_c_contiguous()) {
        base_.get_sub_region(layout_.offset, nbytes()).get(queue, std::span<std::byte>(dest.data(), nbytes()), async);
        return;
    }
    // Gather on the device if needed, unpack on the host if needed.
    Array contiguous = is_c_contiguous() ? *this : copy(queue);
    HostArray staging = dest.is_c_contiguous() ? dest : HostArray(dtype_, shape());
    contiguous.base_.get_sub_region(contiguous.layout_.offset, nbytes())
        .get(queue, std::span<std::byte>(staging.data(), nbytes()), false);
    if (!dest.is_c_contiguous()) dest.assign(staging);
}

void Array::set(const Queue& queue, const HostArray& source, bool async) const {
    require_writeable("array");
    check_same(shape(), dtype_, source.shape(), source.dtype(), "source");
    if (size() == 0) return;
    if (is_c_contiguous() && source.is_c_contiguous()) {
        base_.get_sub_region(layout_.offset, nbytes())
            .set(queue, std::span<const std::byte>(source.data(), nbytes()), async);
        return;
    }
    const HostArray packed = source.is_c_contiguous() ? source : source.copy();
    if (is_c_contiguous()) {
        base_.get_sub_region(layout_.offset, nbytes())
            .set(queue, std::span<const std::byte>(packed.data(), nbytes()), false);
        return;
    }
    Array staging = empty(device(), shape(), dtype_);
    staging.base_.set(queue, std::span<const std::byte>(packed.data(), nbytes()), false);
    detail::strided_copy(queue, base_, layout_, staging.base_, staging.layout_, dtype_.itemsize());
}

void Array::set(const Queue& queue, const Array& source, bool async) const {
    require_writeable("array");
    check_same(shape(), dtype_, source.shape(), source.dtype(), "source");
    if (size() == 0) return;
    if (!(source.device() == device())) {
        // Across devices: a contiguous copy on the source's device, one peer copy, then scatter.
        const Queue source_queue(source.device());
        const Array packed = source.ascontiguous(source_queue);
        source_queue.synchronize();
        const Array target = is_c_contiguous() ? *this : empty(device(), shape(), dtype_);
        target.base_.get_sub_region(target.layout_.offset, nbytes())
            .set(queue, packed.base_.get_sub_region(packed.layout_.offset, nbytes()), false);
        if (!is_c_contiguous())
            detail::strided_copy(queue, base_, layout_, target.base_, target.layout_, dtype_.itemsize());
        return;
    }
    switch (detail::memory_overlap(*this, source)) {
    case detail::Overlap::same_view: return;  // every element onto itself
    case detail::Overlap::partial: {
        // numpy's result is as if the source were read whole before any element is written;
        // work items of one kernel run in no fixed order, so the source goes through a copy.
        // The copy is a block of the context's staging pool, reused in queue order: a fresh
        // allocation and free of a large array cost more than both copies (a[1:] = a[:-1] on
        // 2^28 float32 through an H200: 27% of a device copy's speed, 50% being the bound).
        const MemoryPool& pool = detail::state_of(queue.device().context()).service<OverlapStagingPool>().pool;
        const Array staged = empty(device(), source.shape(), dtype_, std::nullopt, 0,
                                   [&pool, &queue](const BoundDevice&, std::size_t bytes) {
                                       return pool.allocate(queue, std::max<std::size_t>(bytes, 16));
                                   });
        staged.set(queue, source, true);
        set(queue, staged, true);
        queue.synchronize();  // as before: the call returns once the copy is done
        return;
    }
    case detail::Overlap::none: break;
    }
    if (is_c_contiguous() && source.is_c_contiguous()) {
        base_.get_sub_region(layout_.offset, nbytes())
            .set(queue, source.base_.get_sub_region(source.layout_.offset, nbytes()), async);
        return;
    }
    detail::strided_copy(queue, base_, layout_, source.base_, source.layout_, dtype_.itemsize());
}

// --- Copies ---

Array Array::copy(const Queue& queue, Order order, const Allocator& allocator) const {
    Array out = empty(queue.device(), shape(), dtype_, resolve_order(order, layout_, dtype_.itemsize()), allocator);
    out.set(queue, *this);
    return out;
}

Array Array::ascontiguous(const Queue& queue, const Allocator& allocator) const {
    return is_c_contiguous() ? *this : copy(queue, Order::C, allocator);
}
Array Array::asfortran(const Queue& queue, const Allocator& allocator) const {
    return is_f_contiguous() ? *this : copy(queue, Order::F, allocator);
}

}  // namespace kjarni
