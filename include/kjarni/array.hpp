#pragma once
/// Arrays on one device (grunnur Array; pygpu's GpuArray and
/// its creation and layout functions), and HostArray, their host counterpart (kjarni has no numpy).
///
/// An array is a dtype, a shape, strides in bytes (any sign) and the byte offset of its first
/// element (index 0 along every axis) in a base allocation shared by its views. Views (numpy's basic
/// indexing: integers, slices with any step, newaxis, ellipsis; reshape wherever numpy gives a view;
/// transpose) share the memory of the array they come from, numpy's way.
///
/// Transfers between a device array and a host array of the same shape and dtype work for any
/// layouts on both sides: contiguous data moves in one transfer; a non-contiguous device side is
/// gathered into (or scattered from) a contiguous device temporary by a generated strided-copy
/// kernel, a non-contiguous host side is packed or unpacked on the host. `async = true` makes the
/// call return once the work is enqueued only when no temporary is involved (both sides
/// C-contiguous, or a device-to-device copy without packing); otherwise the call completes before it
/// returns. For asynchronous transfers the host array must stay alive and untouched until the
/// queue has passed that point. Large host transfers from pageable memory are staged through
/// page-locked memory (kjarni/transfer_staging.hpp), which changes those rules as Buffer's header says.
///
/// As a kernel argument an Array passes the memory starting at its first element (a pointer to
/// element [0, 0, ...] in the kernel; the region extends to its last element); the kernel indexes
/// it with the strides it knows. Arrays with negative strides are refused (ArgumentError), and on
/// OpenCL the first element must lie at a multiple of CL_DEVICE_MEM_BASE_ADDR_ALIGN in the
/// allocation (a sub-buffer rule; ArgumentError otherwise): for such views pass `array.base()` and
/// the offset and strides instead. \file

#include <complex>
#include <concepts>
#include <cstddef>
#include <cstring>
#include <functional>
#include <initializer_list>
#include <memory>
#include <optional>
#include <span>
#include <type_traits>
#include <variant>
#include <vector>

#include "kjarni/buffer.hpp"
#include "kjarni/context.hpp"
#include "kjarni/detail/kernel_arg.hpp"
#include "kjarni/dtype.hpp"
#include "kjarni/error.hpp"
#include "kjarni/program.hpp"
#include "kjarni/queue.hpp"

namespace kjarni {

/// numpy's `start:stop:step` on one axis; missing bounds as in Python, negative ones counted from
/// the end. `Slice{}` is `:`; `Slice{2, 5}`, `Slice{std::nullopt, std::nullopt, -1}` is `::-1`.
struct Slice {
    std::optional<std::ptrdiff_t> start = std::nullopt;
    std::optional<std::ptrdiff_t> stop = std::nullopt;
    std::ptrdiff_t step = 1;
};

/// numpy's `np.newaxis` in an index: inserts an axis of extent 1.
struct NewAxis {};
inline constexpr NewAxis newaxis{};
/// numpy's `...` in an index: as many whole axes (`:`) as the other entries leave; at most one.
struct Ellipsis {};
inline constexpr Ellipsis ellipsis{};

/// One entry of numpy's basic indexing `a[i0, i1, ...]`: an integer (picks one position and drops
/// the axis; negative counts from the end; out of range is an ArgumentError), a Slice, newaxis or
/// ellipsis.
class Index {
public:
    template <class I>
        requires std::is_integral_v<I> && (!std::is_same_v<I, bool>)
    Index(I position) : value_(static_cast<std::ptrdiff_t>(position)) {}  // NOLINT: implicit, as in numpy
    Index(Slice slice) : value_(slice) {}                                 // NOLINT
    Index(NewAxis axis) : value_(axis) {}                                 // NOLINT
    Index(Ellipsis dots) : value_(dots) {}                                // NOLINT

    const std::variant<std::ptrdiff_t, Slice, NewAxis, Ellipsis>& value() const noexcept { return value_; }

private:
    std::variant<std::ptrdiff_t, Slice, NewAxis, Ellipsis> value_;
};

/// Memory order of a new contiguous array: C (last index fastest) or Fortran (first fastest), or
/// A (numpy's and pygpu's 'A'ny): Fortran where the array it is taken from is Fortran-contiguous
/// and not C-contiguous, else C. Where no array is involved (empty, zeros, Layout::contiguous,
/// HostArray's constructor) A is C.
enum class Order { C, F, A };

struct Layout;
/// C or F for `order` with respect to an existing layout (A resolved as above; C and F unchanged).
Order resolve_order(Order order, const Layout& layout, std::size_t itemsize) noexcept;

/// Shape, strides (bytes) and the offset (bytes) of the first element from the base allocation.
struct Layout {
    std::vector<std::size_t> shape;
    std::vector<std::ptrdiff_t> strides;
    std::size_t offset = 0;

    static Layout contiguous(std::vector<std::size_t> shape, std::size_t itemsize, Order order = Order::C);
    std::size_t ndim() const noexcept { return shape.size(); }
    /// Number of elements.
    std::size_t size() const noexcept;
    bool is_c_contiguous(std::size_t itemsize) const noexcept;
    bool is_f_contiguous(std::size_t itemsize) const noexcept;
    /// Byte range [low, high) the elements occupy, relative to the first element (low <= 0); (0, 0)
    /// when there are no elements.
    std::pair<std::ptrdiff_t, std::ptrdiff_t> extent(std::size_t itemsize) const noexcept;
    /// Byte offset of an element from the base.
    std::ptrdiff_t offset_of(std::span<const std::size_t> index) const;

    /// numpy's `a[s0, s1, ...]` with slices only; missing trailing axes are taken whole.
    Layout slice(std::span<const Slice> slices) const;
    /// numpy's basic indexing `a[i0, i1, ...]`: integers drop their axis, slices keep it, newaxis
    /// inserts one of extent 1 (stride 0), ellipsis stands for the whole axes the others leave;
    /// missing trailing axes are taken whole.
    Layout index(std::span<const Index> indices) const;
    /// Axes permuted (`axes[i]` is the old axis of new axis i); empty reverses them.
    Layout transpose(std::span<const std::size_t> axes = {}) const;
    /// The same elements, read in `order`, with another shape (one extent may be -1, inferred), as
    /// a view of the same memory: numpy's reshape without a copy. Whenever numpy can reshape
    /// without copying, so can this, for any strides (not only contiguous layouts): runs of axes
    /// whose strides chain in `order` merge and split freely, axes of extent 1 come and go.
    /// ArgumentError when the sizes differ or no view exists (then the elements must be copied).
    Layout reshape(std::span<const std::ptrdiff_t> new_shape, std::size_t itemsize, Order order = Order::C) const;
    /// numpy's squeeze: the axes of extent 1 removed, all of them or those given (negative from the
    /// end); ArgumentError naming the axis for one out of range, repeated, or of another extent.
    Layout squeeze() const;
    Layout squeeze(std::span<const int> axes) const;
    /// numpy's expand_dims: axes of extent 1 inserted at the given positions of the result (each in
    /// [-result ndim, result ndim), unrepeated; ArgumentError naming the axis otherwise).
    Layout expand_dims(std::span<const int> axes) const;
    /// numpy's moveaxis: axis source[k] moves to position destination[k], the others keep their
    /// order; ArgumentError for lists of different lengths, an axis out of range or repeated.
    Layout moveaxis(std::span<const int> source, std::span<const int> destination) const;
    /// numpy's swapaxes: the two axes exchanged (negative from the end).
    Layout swapaxes(int axis1, int axis2) const;
    /// As reshape, but nullopt where a copy would be needed (sizes that differ still throw).
    std::optional<Layout> try_reshape(std::span<const std::ptrdiff_t> new_shape, std::size_t itemsize,
                                      Order order = Order::C) const;
    /// The shape `new_shape` stands for with this layout's size (its -1 inferred); ArgumentError if
    /// the sizes differ.
    std::vector<std::size_t> resolve_shape(std::span<const std::ptrdiff_t> new_shape) const;
};

/// Host memory with a dtype, a shape and a layout: what Array::get returns and Array::set takes.
/// Copies share the memory (like numpy arrays assigned to another name); views too.
class HostArray {
public:
    /// Zeroed, contiguous.
    HostArray(const DType& dtype, std::vector<std::size_t> shape, Order order = Order::C);
    /// A copy of C-ordered data.
    template <class T>
    static HostArray from(std::span<const T> data, std::vector<std::size_t> shape);
    template <class T>
    static HostArray from(const std::vector<T>& data, std::vector<std::size_t> shape) {
        return from(std::span<const T>(data), std::move(shape));
    }
    /// One-dimensional.
    template <class T>
    static HostArray from(const std::vector<T>& data) {
        return from(std::span<const T>(data), {data.size()});
    }
    /// A C-ordered array over the caller's memory, which must outlive every use of it (no copy).
    template <class T>
    static HostArray wrap(std::span<T> data, std::vector<std::size_t> shape) {
        using U = std::remove_const_t<T>;
        return wrap_bytes(const_cast<U*>(data.data()), data.size_bytes(), DType::of<U>(), std::move(shape));
    }
    static HostArray wrap_bytes(void* data, std::size_t size, const DType& dtype, std::vector<std::size_t> shape);
    /// A contiguous array over memory it owns through `storage` (freed by storage's deleter when
    /// the last copy or view goes); `size` bytes there, which the shape must fill exactly
    /// (ArgumentError otherwise). How aligned_empty (aligned_host_array.hpp) makes its arrays.
    static HostArray adopt(std::shared_ptr<std::byte> storage, std::size_t size, const DType& dtype,
                           std::vector<std::size_t> shape, Order order = Order::C) {
        Layout layout = Layout::contiguous(std::move(shape), dtype.itemsize(), order);
        if (layout.size() * dtype.itemsize() != size)
            throw ArgumentError("size", std::to_string(size) + " bytes for " + std::to_string(layout.size()) +
                                            " elements of " + dtype.name());
        return HostArray(dtype, std::move(layout), std::move(storage), size);
    }

    const DType& dtype() const noexcept { return dtype_; }
    const std::vector<std::size_t>& shape() const noexcept { return layout_.shape; }
    const std::vector<std::ptrdiff_t>& strides() const noexcept { return layout_.strides; }
    const Layout& layout() const noexcept { return layout_; }
    std::size_t ndim() const noexcept { return layout_.ndim(); }
    std::size_t size() const noexcept { return layout_.size(); }
    std::size_t nbytes() const noexcept { return size() * dtype_.itemsize(); }
    bool is_c_contiguous() const noexcept { return layout_.is_c_contiguous(dtype_.itemsize()); }
    bool is_f_contiguous() const noexcept { return layout_.is_f_contiguous(dtype_.itemsize()); }

    /// The first element.
    std::byte* data() const noexcept { return storage_.get() + layout_.offset; }
    /// The bytes of a C-contiguous array (ArgumentError otherwise).
    std::span<std::byte> bytes() const;
    /// The element at `index` (itemsize of T must be the dtype's).
    template <class T>
    T& at(std::initializer_list<std::size_t> index) const {
        return at<T>(std::span<const std::size_t>(index.begin(), index.size()));
    }
    template <class T>
    T& at(std::span<const std::size_t> index) const {
        check_type(sizeof(T));
        return *reinterpret_cast<T*>(storage_.get() + layout_.offset_of(index));
    }
    /// The data of a C-contiguous array as T (itemsize of T must be the dtype's).
    template <class T>
    std::span<T> span() const {
        check_type(sizeof(T));
        const auto b = bytes();
        return {reinterpret_cast<T*>(b.data()), size()};
    }
    /// The elements in C order, whatever the layout.
    template <class T>
    std::vector<T> to_vector() const {
        check_type(sizeof(T));
        const HostArray c = copy(Order::C);
        std::vector<T> out(size());
        if (!out.empty()) std::memcpy(out.data(), c.data(), nbytes());
        return out;
    }

    /// Views sharing this memory (Layout's index, slice, transpose and reshape).
    HostArray operator[](std::initializer_list<Index> indices) const {
        return index(std::span<const Index>(indices.begin(), indices.size()));
    }
    HostArray index(std::span<const Index> indices) const;
    HostArray slice(std::span<const Slice> slices) const;
    HostArray transpose(std::span<const std::size_t> axes = {}) const;
    /// A view; ArgumentError where numpy would have to copy.
    HostArray reshape(std::span<const std::ptrdiff_t> shape, Order order = Order::C) const;
    HostArray reshape(std::initializer_list<std::ptrdiff_t> shape, Order order = Order::C) const {
        return reshape(std::span<const std::ptrdiff_t>(shape.begin(), shape.size()), order);
    }
    /// A contiguous copy.
    HostArray copy(Order order = Order::C) const;
    /// Copies the elements of `source` (same shape and itemsize) into this array, any layouts.
    void assign(const HostArray& source) const;

    /// A view with the given layout of the same memory (checked to lie inside it).
    HostArray view(const DType& dtype, const Layout& layout) const;

private:
    HostArray(DType dtype, Layout layout, std::shared_ptr<std::byte> storage, std::size_t capacity)
        : dtype_(std::move(dtype)), layout_(std::move(layout)), storage_(std::move(storage)), capacity_(capacity) {}
    void check_type(std::size_t size) const;

    DType dtype_;
    Layout layout_;
    std::shared_ptr<std::byte> storage_;  // the start of the memory (owned, or the caller's)
    std::size_t capacity_ = 0;            // its bytes
};

template <class T>
HostArray HostArray::from(std::span<const T> data, std::vector<std::size_t> shape) {
    HostArray a(DType::of<T>(), std::move(shape));
    if (a.size() != data.size())
        throw ArgumentError("data",
                            "has " + std::to_string(data.size()) + " elements, the shape " + std::to_string(a.size()));
    if (!data.empty()) std::memcpy(a.data(), data.data(), data.size_bytes());
    return a;
}

/// The field at `path` (see flatten_dtype) of every element of a struct array: a new array of the
/// field's dtype, with the field's array dimensions appended to the shape.
HostArray extract_field(const HostArray& array, const FieldPath& path);

/// Makes the buffer of an array: (device, bytes) -> Buffer. Buffer::allocate when not given.
/// Every function that makes a new device array takes one, as its last parameter or in its options
/// (kjarni/array_operations.hpp says which): the array's memory then comes from it (a MemoryPool's
/// allocator(), a VirtualManager's, a counting one); temporaries a function needs on the way are
/// not the result and may come from elsewhere.
using Allocator = std::function<Buffer(const BoundDevice&, std::size_t)>;

/// grunnur's ArrayMetadataLike: anything with a shape and a dtype (Array, HostArray, MultiArray's
/// parts, ArrayMetadata, a user's type): usable wherever kjarni wants a description of an array
/// (Array::empty_like, zeros_like, ArrayMetadata::of). Strides (in bytes) and an offset are taken
/// too where the type has `strides()` (and `offset()`).
// clang-format off
template <class T>
concept ArrayMetadataLike = requires(const T& a) {
    { a.shape() } -> std::convertible_to<std::vector<std::size_t>>;
    { a.dtype() } -> std::convertible_to<DType>;
};
// clang-format on

/// grunnur's ArrayLike: ArrayMetadataLike with views by numpy's basic indexing (`a[{...}]`, as
/// Array and HostArray give) of the same type.
// clang-format off
template <class T>
concept ArrayLike = ArrayMetadataLike<T> && requires(const T& a, std::initializer_list<Index> indices) {
    { a[indices] } -> std::convertible_to<T>;
};
// clang-format on

/// grunnur's ArrayMetadata: a shape, a dtype and, optionally, strides in bytes and the offset of
/// the first element; what a kernel template or an allocation needs to know of an array without
/// the array. It is ArrayMetadataLike itself.
class ArrayMetadata {
public:
    /// C-contiguous without strides. ArgumentError when strides and shape differ in length.
    ArrayMetadata(const DType& dtype, std::vector<std::size_t> shape,
                  std::optional<std::vector<std::ptrdiff_t>> strides = std::nullopt,
                  std::size_t first_element_offset = 0);
    /// The description of any ArrayMetadataLike object (its strides and offset where it has them).
    template <ArrayMetadataLike T>
    static ArrayMetadata of(const T& like) {
        std::optional<std::vector<std::ptrdiff_t>> strides;
        std::size_t offset = 0;
        if constexpr (requires { std::vector<std::ptrdiff_t>(like.strides()); }) strides.emplace(like.strides());
        if constexpr (requires { std::size_t(like.offset()); }) offset = like.offset();
        return ArrayMetadata(DType(like.dtype()), std::vector<std::size_t>(like.shape()), std::move(strides), offset);
    }

    const DType& dtype() const noexcept { return dtype_; }
    const std::vector<std::size_t>& shape() const noexcept { return layout_.shape; }
    const std::vector<std::ptrdiff_t>& strides() const noexcept { return layout_.strides; }
    /// The offset of the first element, bytes from the start of the allocation.
    std::size_t offset() const noexcept { return layout_.offset; }
    const Layout& layout() const noexcept { return layout_; }
    std::size_t ndim() const noexcept { return layout_.ndim(); }
    std::size_t size() const noexcept { return layout_.size(); }
    /// Bytes an allocation needs to hold every element at these strides and offset (ArgumentError
    /// when negative strides reach before the start of the allocation).
    std::size_t buffer_size() const;
    friend bool operator==(const ArrayMetadata& a, const ArrayMetadata& b) {
        return a.dtype_ == b.dtype_ && a.layout_.shape == b.layout_.shape && a.layout_.strides == b.layout_.strides &&
               a.layout_.offset == b.layout_.offset;
    }

private:
    DType dtype_;
    Layout layout_;
};

/// An n-dimensional array on one device (numpy's ndarray on the GPU): a Buffer with a shape, a dtype,
/// strides in bytes and an offset. Copies share the memory; views (slices, reshapes) share it too.
class Array {
public:
    /// An uninitialized array. Without strides it is C-contiguous. With strides, the allocation
    /// holds every element: `first_element_offset` bytes before the first element (enough for the
    /// elements that negative strides put there) and the rest after it.
    static Array empty(const BoundDevice& device, std::vector<std::size_t> shape, const DType& dtype,
                       std::optional<std::vector<std::ptrdiff_t>> strides = std::nullopt,
                       std::size_t first_element_offset = 0, const Allocator& allocator = {});
    /// Contiguous in the given order.
    static Array empty(const BoundDevice& device, std::vector<std::size_t> shape, const DType& dtype, Order order,
                       const Allocator& allocator = {});
    /// Zero bytes everywhere (pygpu's zeros).
    static Array zeros(const Queue& queue, std::vector<std::size_t> shape, const DType& dtype, Order order = Order::C,
                       const Allocator& allocator = {});
    /// A C-contiguous device copy of a host array; the transfer is synchronous.
    static Array from_host(const Queue& queue, const HostArray& host, const Allocator& allocator = {});
    template <class T>
    static Array from_host(const Queue& queue, std::span<const T> data, std::vector<std::size_t> shape) {
        return from_host(queue, HostArray::from(data, std::move(shape)));
    }
    /// The same on a device rather than a queue (grunnur's from_host(queue_or_device, ...)): the
    /// transfer goes through a queue of the device's own, made for it and finished before this returns.
    static Array from_host(const BoundDevice& device, const HostArray& host, const Allocator& allocator = {});
    template <class T>
    static Array from_host(const BoundDevice& device, std::span<const T> data, std::vector<std::size_t> shape) {
        return from_host(device, HostArray::from(data, std::move(shape)));
    }
    /// An array over an existing buffer (pygpu's from_gpudata); the layout must lie inside it. With
    /// `writeable` false the array (and its views) may not be written by kjarni (see writeable()).
    static Array from_buffer(const Buffer& base, const DType& dtype, Layout layout, bool writeable = true);
    /// An uninitialized array described by `like` (its dtype, shape and, where it has them, its
    /// strides and offset: numpy's empty_like with the strides kept); zeros_like zeroes its bytes.
    template <ArrayMetadataLike T>
    static Array empty_like(const BoundDevice& device, const T& like, const Allocator& allocator = {}) {
        return empty_like(device, ArrayMetadata::of(like), allocator);
    }
    static Array empty_like(const BoundDevice& device, const ArrayMetadata& like, const Allocator& allocator = {});
    template <ArrayMetadataLike T>
    static Array zeros_like(const Queue& queue, const T& like, const Allocator& allocator = {}) {
        return zeros_like(queue, ArrayMetadata::of(like), allocator);
    }
    static Array zeros_like(const Queue& queue, const ArrayMetadata& like, const Allocator& allocator = {});

    /// A new C-contiguous host array with the contents.
    HostArray get(const Queue& queue, bool async = false) const;
    /// Into an existing host array of the same shape and dtype (any layout).
    void get(const Queue& queue, const HostArray& dest, bool async = false) const;
    /// Into C-ordered host memory of size() elements.
    template <class T>
    void get(const Queue& queue, std::span<T> dest, bool async = false) const {
        get(queue, HostArray::wrap(dest, shape()), async);
    }
    /// From a host array of the same shape and dtype (any layout).
    void set(const Queue& queue, const HostArray& source, bool async = false) const;
    /// From another array of the same shape and dtype (any layouts, any device of the context).
    /// A different dtype is an ArgumentError naming `source`, even of the same item size: a copy
    /// never converts (astype does); this is stricter than numpy's same_kind rule for `a[...] = b`
    /// (kjarni::assign follows that one). Views of one allocation may overlap in any way
    /// (`a.set(q, a.transpose())`, `a[1:]` from `a[:-1]`, a reversed view into its base): the
    /// result is numpy's, as if the source were copied first, which it is when the two share bytes
    /// (and are not the same view, which copies nothing). That copy makes the call synchronous.
    void set(const Queue& queue, const Array& source, bool async = false) const;
    template <class T>
    void set(const Queue& queue, std::span<const T> source, bool async = false) const {
        set(queue, HostArray::wrap(source, shape()), async);
    }

    const BoundDevice& device() const noexcept { return base_.device(); }
    const DType& dtype() const noexcept { return dtype_; }
    const std::vector<std::size_t>& shape() const noexcept { return layout_.shape; }
    const std::vector<std::ptrdiff_t>& strides() const noexcept { return layout_.strides; }
    /// Bytes from the start of base() to the first element.
    std::size_t offset() const noexcept { return layout_.offset; }
    const Layout& layout() const noexcept { return layout_; }
    std::size_t ndim() const noexcept { return layout_.ndim(); }
    std::size_t size() const noexcept { return layout_.size(); }
    std::size_t nbytes() const noexcept { return size() * dtype_.itemsize(); }
    bool is_c_contiguous() const noexcept { return layout_.is_c_contiguous(dtype_.itemsize()); }
    bool is_f_contiguous() const noexcept { return layout_.is_f_contiguous(dtype_.itemsize()); }
    /// The whole allocation, shared by the views.
    const Buffer& base() const noexcept { return base_; }

    /// Flags (numpy's and pygpu's `flags`).
    /// writeable: kjarni may write the elements. False for read_only() views and their views, for
    /// arrays from_buffer(..., false), and for arrays over memory kernels may only read
    /// (KernelAccess::read_only, kjarni/buffer.hpp). Every kjarni function that writes an array
    /// (set, fill, copies into it, evaluate's and assign's out, reductions', scans', BLAS's and
    /// sorting's outputs, ...) refuses one that is not with an ArgumentError naming the argument.
    bool writeable() const noexcept { return writeable_ && base_.kernel_access() != KernelAccess::read_only; }
    /// aligned: the first element and every stride (of axes of more than one element) are
    /// multiples of the dtype's alignment, counted from the start of the allocation (which the
    /// drivers align to far more).
    bool aligned() const noexcept;
    /// owndata: the array made its allocation (empty, zeros, copies, from_host, results of
    /// operations); false for views, for from_buffer and for read_only() views. (pygpu says
    /// always True, its data being reference counted; kjarni answers numpy's question: whether
    /// this array is a view of another's memory.)
    bool owndata() const noexcept { return owndata_; }
    /// A view of the same memory that kjarni may not write (numpy's `setflags(write=False)` on a
    /// view; the array itself stays writeable).
    Array read_only() const;
    /// Throws ArgumentError naming `argument` when the array is not writeable(): what functions
    /// that write an array call first.
    void require_writeable(const char* argument) const;
    /// pygpu's typecode: dtype_to_typecode(dtype()) (kjarni/dtype.hpp).
    int typecode() const { return dtype_to_typecode(dtype_); }
    /// The region from the first element to the last (what a kernel gets); ArgumentError with
    /// negative strides.
    Buffer data() const;

    /// Views: numpy's basic indexing (`a[{1, Slice{2, 5}, newaxis, ellipsis}]`, see Index), slices,
    /// transposes.
    Array operator[](std::initializer_list<Index> indices) const {
        return index(std::span<const Index>(indices.begin(), indices.size()));
    }
    Array index(std::span<const Index> indices) const;
    Array slice(std::span<const Slice> slices) const;
    Array transpose(std::span<const std::size_t> axes = {}) const;
    Array transpose(std::initializer_list<std::size_t> axes) const {
        return transpose(std::span<const std::size_t>(axes.begin(), axes.size()));
    }
    /// numpy's squeeze, expand_dims, moveaxis and swapaxes (Layout's): views of the same memory,
    /// never a copy; negative axes count from the end; an axis out of range, repeated, or (squeeze)
    /// of an extent other than 1 is an ArgumentError naming it. transpose(axes) above is numpy's
    /// transpose with axes (a permutation; none reverses the axes).
    Array squeeze() const { return view_with(dtype_, layout_.squeeze()); }
    Array squeeze(const std::vector<int>& axes) const { return view_with(dtype_, layout_.squeeze(axes)); }
    Array expand_dims(const std::vector<int>& axes) const { return view_with(dtype_, layout_.expand_dims(axes)); }
    Array moveaxis(int source, int destination) const {
        return moveaxis(std::vector<int>{source}, std::vector<int>{destination});
    }
    Array moveaxis(const std::vector<int>& source, const std::vector<int>& destination) const {
        return view_with(dtype_, layout_.moveaxis(source, destination));
    }
    Array swapaxes(int axis1, int axis2) const { return view_with(dtype_, layout_.swapaxes(axis1, axis2)); }
    /// A view with another shape, the elements read in `order` (Layout::reshape: whenever numpy
    /// would give a view, of any strides); ArgumentError where a copy would be needed. The
    /// kjarni::reshape function (kjarni/array_operations.hpp) copies then, unless told not to.
    Array reshape(std::span<const std::ptrdiff_t> shape, Order order = Order::C) const;
    Array reshape(std::initializer_list<std::ptrdiff_t> shape, Order order = Order::C) const {
        return reshape(std::span<const std::ptrdiff_t>(shape.begin(), shape.size()), order);
    }
    /// The same memory seen as another dtype of the same itemsize (pygpu's view).
    Array view(const DType& dtype) const;

    /// Copies (pygpu's copy, ascontiguousarray, asfortranarray, astype); all on `queue`'s device,
    /// enqueued asynchronously; the new memory from `allocator` when given.
    Array copy(const Queue& queue, Order order = Order::C, const Allocator& allocator = {}) const;
    /// This array when C-contiguous, else a C-contiguous copy.
    Array ascontiguous(const Queue& queue, const Allocator& allocator = {}) const;
    /// This array when Fortran-contiguous, else a Fortran-contiguous copy.
    Array asfortran(const Queue& queue, const Allocator& allocator = {}) const;
    /// A copy converted element by element to `dtype`, any dtypes but structs (numpy's astype with
    /// its "unsafe" casting; the conversions of kjarni::astype in kjarni/expression.hpp: a complex
    /// to a real takes the real part, float16 rounds to nearest even, a float to an integer gives
    /// numpy's x86-64 result even for NaN, infinities and values out of range). With copy = false
    /// the array itself when the dtype is already `dtype`.
    Array astype(const Queue& queue, const DType& dtype, Order order = Order::C, bool copy = true,
                 const Allocator& allocator = {}) const;

private:
    Array(Buffer base, DType dtype, Layout layout, bool owndata = false)
        : base_(std::move(base)), dtype_(std::move(dtype)), layout_(std::move(layout)), owndata_(owndata) {}
    /// A view of the same memory (not owning it) with this array's writeability.
    Array view_with(const DType& dtype, Layout layout) const {
        Array view(base_, dtype, std::move(layout));
        view.writeable_ = writeable_;
        return view;
    }

    Buffer base_;
    DType dtype_;
    Layout layout_;
    bool writeable_ = true;
    bool owndata_ = false;
};

/// The kernel argument of an array (found by detail::pack through ADL).
detail::KernelArg pack_kernel_arg(const Array& array, const detail::LaunchTarget& target);

namespace detail {
/// Copies the elements of `src` to `dst` (same shape, same itemsize) on the queue's device, both
/// in buffers of that device, with a generated kernel; any strides. Enqueued; temporaries are kept
/// alive until the kernel is done by synchronizing the queue.
void strided_copy(const Queue& queue, const Buffer& dst_base, const Layout& dst, const Buffer& src_base,
                  const Layout& src, std::size_t itemsize);
}  // namespace detail

}  // namespace kjarni
