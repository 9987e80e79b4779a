// Issue 43 items 5, 7 and 18 (arrays): from_host on a device and the ArrayLike concepts (item 5);
// flags (writeable, aligned, owndata), read-only arrays refused as outputs, typecode, order 'A',
// get_common_dtype, Kernel launches with n= and numargs (item 7); results made by a caller's
// allocator wherever an operation makes an array (item 18). Values checked against host
// computations on fresh random data.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <set>
#include <vector>

#include "support/random_data.hpp"
#include "support/test_devices.hpp"

namespace kjarni::test {
namespace parity43_array {

// A user's description of an array: shape and dtype only (grunnur's ArrayMetadataLike).
struct Description {
    std::vector<std::size_t> shape() const { return {3, 5}; }
    DType dtype() const { return dtypes::int16; }
};

static_assert(ArrayMetadataLike<Array>);
static_assert(ArrayMetadataLike<HostArray>);
static_assert(ArrayMetadataLike<ArrayMetadata>);
static_assert(ArrayMetadataLike<Description>);
static_assert(ArrayMetadataLike<Expr>);
static_assert(ArrayLike<Array>);
static_assert(ArrayLike<HostArray>);
static_assert(!ArrayLike<Description>);
static_assert(!ArrayMetadataLike<int>);

// Counts the buffers it makes and remembers their allocations, to tell a result's memory apart.
struct CountingAllocator {
    std::shared_ptr<std::vector<std::uintptr_t>> made = std::make_shared<std::vector<std::uintptr_t>>();
    Allocator allocator() const {
        auto record = made;
        return [record](const BoundDevice& device, std::size_t size) {
            Buffer b = Buffer::allocate(device, size);
            record->push_back(b.size() == 0 ? 0 : b.native_handle());
            return b;
        };
    }
    bool made_it(const Array& a) const {
        if (a.base().size() == 0) return !made->empty();
        return std::find(made->begin(), made->end(), a.base().native_handle()) != made->end();
    }
};

class Parity43Arrays : public DeviceTest {
protected:
    Array random_float32(std::vector<std::size_t> shape, std::vector<float>* host = nullptr) {
        std::size_t n = 1;
        for (auto e : shape) n *= e;
        auto values = random_vector<float>(n, -8.0f, 8.0f);
        if (host) *host = values;
        return Array::from_host(queue(), std::span<const float>(values), std::move(shape));
    }
};

// --- Item 5 ---

TEST_P(Parity43Arrays, Parity43Item5FromHostOnADevice) {
    const auto values = random_vector<std::int32_t>(300, -1000, 1000);
    const Array a = Array::from_host(bound_device(), std::span<const std::int32_t>(values), {20, 15});
    EXPECT_EQ(a.shape(), (std::vector<std::size_t>{20, 15}));
    EXPECT_EQ(a.get(queue()).to_vector<std::int32_t>(), values);
    CountingAllocator counting;
    const Array b = Array::from_host(bound_device(), HostArray::from(values), counting.allocator());
    EXPECT_TRUE(counting.made_it(b));
    EXPECT_EQ(b.get(queue()).to_vector<std::int32_t>(), values);
}

TEST_P(Parity43Arrays, Parity43Item5ArrayLikeDescriptions) {
    // A user's type: shape and dtype, C-contiguous.
    const Array d = Array::empty_like(bound_device(), Description{});
    EXPECT_EQ(d.shape(), (std::vector<std::size_t>{3, 5}));
    EXPECT_EQ(d.dtype(), DType(dtypes::int16));
    EXPECT_TRUE(d.is_c_contiguous());
    // An array's strides and offset are kept (grunnur's ArrayMetadata): a reversed view.
    const Array base = random_float32({4, 6});
    const Array reversed = base[{Slice{std::nullopt, std::nullopt, -1}, Slice{0, 6, 2}}];
    const ArrayMetadata meta = ArrayMetadata::of(reversed);
    EXPECT_EQ(meta.strides(), reversed.strides());
    EXPECT_EQ(meta.offset(), reversed.offset());
    EXPECT_EQ(meta.buffer_size(), reversed.offset() + 2 * 8 + 4);  // its last column element ends the range
    const Array like = Array::empty_like(bound_device(), reversed);
    EXPECT_EQ(like.strides(), reversed.strides());
    EXPECT_EQ(like.shape(), reversed.shape());
    like.set(queue(), reversed);
    EXPECT_EQ(like.get(queue()).to_vector<float>(), reversed.get(queue()).to_vector<float>());
    // zeros_like of a host array, and of an expression's description.
    const HostArray host(dtypes::float64, {7, 2}, Order::F);
    const Array z = Array::zeros_like(queue(), host);
    EXPECT_TRUE(z.is_f_contiguous());
    for (double v : z.get(queue()).to_vector<double>()) EXPECT_EQ(v, 0.0);
    const Array e = Array::empty_like(bound_device(), Expr(base) * 2.0);
    EXPECT_EQ(e.dtype(), DType(dtypes::float32));
    EXPECT_EQ(e.shape(), base.shape());
    EXPECT_THROW(ArrayMetadata(dtypes::float32, {2, 2}, std::vector<std::ptrdiff_t>{4}), ArgumentError);
}

// --- Item 7 ---

TEST_P(Parity43Arrays, Parity43Item7Flags) {
    const Array a = random_float32({6, 8});
    EXPECT_TRUE(a.writeable());
    EXPECT_TRUE(a.aligned());
    EXPECT_TRUE(a.owndata());
    const Array v = a[{Slice{1, 5}, Slice{0, 8, 2}}];
    EXPECT_FALSE(v.owndata());
    EXPECT_TRUE(v.writeable());
    EXPECT_TRUE(v.aligned());
    EXPECT_TRUE(a.copy(queue()).owndata());

    const Array ro = a.read_only();
    EXPECT_FALSE(ro.writeable());
    EXPECT_FALSE(ro.owndata());
    EXPECT_TRUE(a.writeable()) << "read_only() is a view: the array itself stays writeable";
    // Every view of a read-only array is read-only.
    for (const Array& w : {ro[{Slice{1, 3}}], ro.transpose(), ro.reshape({48}), ro.view(dtypes::int32),
                           ro.expand_dims({0}).squeeze(), ro.swapaxes(0, 1), ro.moveaxis(0, 1)}) {
        EXPECT_FALSE(w.writeable());
    }
    EXPECT_FALSE(reshape(queue(), ro, {48}).writeable());  // kjarni::reshape's view
    EXPECT_FALSE(atleast_3d(ro).writeable());
    for (const Array& part : split(ro, 2)) EXPECT_FALSE(part.writeable());
    // Copies are writeable again.
    EXPECT_TRUE(ro.copy(queue()).writeable());
    EXPECT_TRUE(ro.astype(queue(), dtypes::float64).writeable());

    // from_buffer: writeable as asked; aligned from the offset and strides.
    const Buffer bytes = Buffer::allocate(bound_device(), 64);
    EXPECT_FALSE(Array::from_buffer(bytes, dtypes::float32, Layout{{4}, {4}, 0}, false).writeable());
    EXPECT_TRUE(Array::from_buffer(bytes, dtypes::float32, Layout{{4}, {8}, 4}).aligned());
    EXPECT_FALSE(Array::from_buffer(bytes, dtypes::float32, Layout{{4}, {4}, 2}).aligned());
    EXPECT_FALSE(Array::from_buffer(bytes, dtypes::float32, Layout{{4}, {6}, 0}).aligned());
    EXPECT_TRUE(Array::from_buffer(bytes, dtypes::float32, Layout{{1}, {6}, 0}).aligned()) << "one element: no stride";
    EXPECT_TRUE(Array::from_buffer(bytes, dtypes::uint8, Layout{{5}, {3}, 1}).aligned());
}

// Every function that writes an array refuses a read-only one, naming the argument, and writes
// nothing.
TEST_P(Parity43Arrays, Parity43Item7ReadOnlyOutputsAreRefused) {
    std::vector<float> host;
    const Array a = random_float32({4, 4}, &host);
    const Array ro = a.read_only();
    const Array other = random_float32({4, 4});
    auto refused = [&](const char* argument, const std::function<void()>& write) {
        try {
            write();
            ADD_FAILURE() << "a read-only " << argument << " was written";
        } catch (const ArgumentError& e) {
            EXPECT_EQ(e.argument(), argument) << e.what();
        }
    };
    refused("array", [&] { ro.set(queue(), other); });
    refused("array", [&] { ro.set(queue(), other.get(queue())); });
    refused("out", [&] { fill(queue(), ro, 1.0f); });
    refused("out", [&] { assign(queue(), ro, Expr(other) + 1.0f); });
    refused("out", [&] {
        ReduceOptions options;
        options.axes = std::vector<int>{0};
        options.out = ro[{0}];
        sum(queue(), other, options);
    });
    refused("out", [&] { cumsum(queue(), other, 0, std::nullopt, ro); });
    refused("c", [&] { blas::gemm(queue(), 1.0, other, other, 0.0, ro); });
    refused("y", [&] { blas::gemv(queue(), 1.0, other, other[{0}], 0.0, ro[{0}]); });
    refused("a", [&] { blas::ger(queue(), 1.0, other[{0}], other[{1}], ro); });
    refused("out", [&] { blas::dot(queue(), other[{0}], other[{1}], ro[{0, 0}]); });
    refused("out", [&] { concatenate(queue(), {other[{Slice{0, 2}}], other[{Slice{2, 4}}]}, ro); });
    const Array mask = evaluate(queue(), Expr(other) > 0.0f);
    refused("array", [&] { boolean_index_assign(queue(), ro, mask, 0.0f); });
    const auto idx = std::vector<std::int64_t>{0, 2};
    const Array indices = Array::from_host(queue(), std::span<const std::int64_t>(idx), {2});
    refused("array", [&] { integer_index_assign(queue(), ro, indices, 0.0f); });
    EXPECT_EQ(a.get(queue()).to_vector<float>(), host) << "a refused write changed the array";
    // Writing into the writeable original still works.
    fill(queue(), a, 2.5f);
    for (float v : a.get(queue()).to_vector<float>()) EXPECT_EQ(v, 2.5f);
}

TEST_P(Parity43Arrays, Parity43Item7Typecodes) {
    // numpy's type numbers (np.dtype(t).num on Linux x86-64), which are libgpuarray's GA_* codes.
    const std::vector<std::pair<DType, int>> expected{{dtypes::bool_, 0},       {dtypes::int8, 1},
                                                      {dtypes::uint8, 2},       {dtypes::int16, 3},
                                                      {dtypes::uint16, 4},      {dtypes::int32, 5},
                                                      {dtypes::uint32, 6},      {dtypes::int64, 7},
                                                      {dtypes::uint64, 8},      {dtypes::float32, 11},
                                                      {dtypes::float64, 12},    {dtypes::complex64, 14},
                                                      {dtypes::complex128, 15}, {dtypes::float16, 23}};
    ASSERT_EQ(expected.size(), dtypes::all_scalars().size());
    for (const auto& [dtype, code] : expected) {
        EXPECT_EQ(dtype_to_typecode(dtype), code) << dtype.name();
        EXPECT_EQ(typecode_to_dtype(code), dtype) << code;
    }
    EXPECT_EQ(Array::empty(bound_device(), {2}, dtypes::complex64).typecode(), 14);
    EXPECT_THROW(typecode_to_dtype(13), ArgumentError);  // long double: no kjarni dtype
    const DType point = DType::struct_({{"x", dtypes::float32}, {"y", dtypes::float32}});
    EXPECT_THROW(dtype_to_typecode(point), ArgumentError);
}

TEST_P(Parity43Arrays, Parity43Item7OrderA) {
    std::vector<float> host;
    const Array c = random_float32({3, 5}, &host);
    const Array f = c.copy(queue(), Order::F);
    ASSERT_TRUE(f.is_f_contiguous());
    // 'A': Fortran for a Fortran-contiguous source, else C; the values never change.
    EXPECT_TRUE(f.copy(queue(), Order::A).is_f_contiguous());
    EXPECT_TRUE(c.copy(queue(), Order::A).is_c_contiguous());
    EXPECT_TRUE((c[{Slice{}, Slice{0, 5, 2}}].copy(queue(), Order::A).is_c_contiguous()));
    EXPECT_EQ(f.copy(queue(), Order::A).get(queue()).to_vector<float>(), host);
    const Array f64 = f.astype(queue(), dtypes::float64, Order::A);
    EXPECT_TRUE(f64.is_f_contiguous());
    const auto as_double = f64.get(queue()).to_vector<double>();
    for (std::size_t i = 0; i < host.size(); ++i) EXPECT_EQ(as_double[i], static_cast<double>(host[i]));
    // reshape(order='A') of a Fortran array reads in Fortran order (numpy's rule): element (i, j)
    // of the (5, 3) result is the F-order flat element 5 * j + i... of the source's F order.
    const Array r = f.reshape({5, 3}, Order::A);
    const auto rv = r.get(queue()).to_vector<float>();
    for (std::size_t i = 0; i < 5; ++i) {
        for (std::size_t j = 0; j < 3; ++j) {
            const std::size_t flat_f = i + 5 * j;                      // F-order position in the result
            const std::size_t src_i = flat_f % 3, src_j = flat_f / 3;  // the same F-order position in (3, 5)
            EXPECT_EQ(rv[i * 3 + j], host[src_i * 5 + src_j]) << i << "," << j;
        }
    }
    EXPECT_EQ(Layout::contiguous({2, 3}, 4, Order::A).strides, (std::vector<std::ptrdiff_t>{12, 4}));
    EXPECT_EQ(resolve_order(Order::A, f.layout(), 4), Order::F);
    EXPECT_EQ(resolve_order(Order::A, c.layout(), 4), Order::C);
    EXPECT_EQ(HostArray(dtypes::float32, {2, 3}, Order::F).copy(Order::A).is_f_contiguous(), true);
}

TEST_P(Parity43Arrays, Parity43Item7CommonDtype) {
    EXPECT_EQ(get_common_dtype(dtypes::int8, dtypes::int8), DType(dtypes::int8));  // numpy, not the GPU rule
    EXPECT_EQ(get_common_dtype(dtypes::int64, dtypes::uint64), DType(dtypes::float64));
    EXPECT_EQ(get_common_dtype(dtypes::int64, dtypes::uint64, false), DType(dtypes::float32));
    EXPECT_EQ(get_common_dtype(dtypes::float32, dtypes::float64, false), DType(dtypes::float32));
    EXPECT_EQ(get_common_dtype(dtypes::complex64, dtypes::float64), DType(dtypes::complex128));
    EXPECT_EQ(get_common_dtype(dtypes::complex64, dtypes::float64, false), DType(dtypes::complex64));
    EXPECT_EQ(get_common_dtype(dtypes::int32, dtypes::float16, false), DType(dtypes::float32));  // float64 demoted
    const Array x = Array::empty(bound_device(), {4}, dtypes::float32);
    EXPECT_EQ(get_common_dtype(Expr(x), Expr(2.0)), DType(dtypes::float32));  // a weak scalar keeps float32
    EXPECT_EQ(get_common_dtype(Expr(x), Expr(std::complex<double>(1, 1)), false), DType(dtypes::complex64));
    const bool doubles = have_double(bound_device().device());
    EXPECT_EQ(get_common_dtype(dtypes::float32, dtypes::float64, bound_device().device()),
              DType(doubles ? dtypes::float64 : dtypes::float32));
}

constexpr const char* padded_source = R"(
KERNEL void triple(GLOBAL_MEM float* y, GLOBAL_MEM const float* x, unsigned int n)
{
    const SIZE_T i = get_global_id(0);
    if (i < n) y[i] = 3.0f * x[i];
}
)";

TEST_P(Parity43Arrays, Parity43Item7KernelWithTotalSizeAndNumargs) {
    Program program(bound_device(), padded_source);
    const Kernel kernel = program.kernel("triple");
    EXPECT_EQ(kernel.numargs(), 3u);
    for (std::size_t n : {1u, 7u, 1000u, 4099u}) {
        const auto [global, local] = kernel.padded_sizes(bound_device(), TotalSize{n});
        EXPECT_GE(global, n);
        EXPECT_EQ(global % local, 0u);
        EXPECT_LT(global - n, local) << "padded by less than one work group";
        std::vector<float> host;
        const Array x = random_float32({n}, &host);
        const Array y = Array::empty(bound_device(), {n + 16}, dtypes::float32);
        fill(queue(), y, -1.0f);
        kernel(queue(), TotalSize{n}, y, x, static_cast<unsigned>(n));
        const auto result = y.get(queue()).to_vector<float>();
        for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(result[i], 3.0f * host[i]) << i;
        for (std::size_t i = n; i < n + 16; ++i) ASSERT_EQ(result[i], -1.0f) << "written past n at " << i;
    }
    EXPECT_THROW(kernel.prepare_total(TotalSize{0}), ArgumentError);
}

// --- Item 18 ---

TEST_P(Parity43Arrays, Parity43Item18ResultsComeFromTheAllocator) {
    CountingAllocator counting;
    const Allocator alloc = counting.allocator();
    std::vector<float> host;
    const Array a = random_float32({6, 5}, &host);
    const Array t = a.transpose();
    auto check = [&](const char* what, const Array& result) {
        EXPECT_TRUE(counting.made_it(result)) << what << "'s result does not come from the allocator";
    };
    auto values = [&](const Array& x) { return x.get(queue()).to_vector<float>(); };
    // Host reference of the transpose, C order.
    std::vector<float> transposed(30);
    for (std::size_t i = 0; i < 6; ++i)
        for (std::size_t j = 0; j < 5; ++j) transposed[j * 6 + i] = host[i * 5 + j];

    const Array c1 = t.copy(queue(), Order::C, alloc);
    check("copy", c1);
    EXPECT_EQ(values(c1), transposed);
    check("ascontiguous", t.ascontiguous(queue(), alloc));
    check("asfortran", a.asfortran(queue(), alloc));
    const Array d = a.astype(queue(), dtypes::float64, Order::C, true, alloc);
    check("astype", d);
    check("astype F", a.astype(queue(), dtypes::float64, Order::F, true, alloc));
    check("reshape (a copy)", reshape(queue(), t, {30}, Order::C, CopyMode::if_needed, alloc));
    EXPECT_EQ(values(reshape(queue(), t, {30}, Order::C, CopyMode::if_needed, alloc)), transposed);
    check("ascontiguousarray", ascontiguousarray(queue(), t, std::nullopt, alloc));
    check("asfortranarray", asfortranarray(queue(), a, std::nullopt, alloc));
    check("asarray", asarray(queue(), a, DType(dtypes::float64), std::nullopt, alloc));
    check("asarray (host)", asarray(queue(), a.get(queue()), std::nullopt, Order::F, alloc));
    check("transfer", transfer(a, queue(), alloc));
    const Array joined = concatenate(queue(), {a, a}, 0, alloc);
    check("concatenate", joined);
    check("stack", stack(queue(), {a, a}, 1, alloc));
    check("hstack", hstack(queue(), {a, a}, alloc));
    check("vstack", vstack(queue(), {a, a}, alloc));
    const auto idx_host = std::vector<std::int64_t>{4, 0, 2};
    const Array idx = Array::from_host(queue(), std::span<const std::int64_t>(idx_host), {3});
    const Array taken = take(queue(), a, idx, 0, TakeMode::raise, alloc);
    check("take", taken);
    const auto tv = values(taken);
    for (std::size_t k = 0; k < 3; ++k)
        for (std::size_t j = 0; j < 5; ++j)
            EXPECT_EQ(tv[k * 5 + j], host[static_cast<std::size_t>(idx_host[k]) * 5 + j]);
    check("integer_index", integer_index(queue(), a, idx, 0, alloc));

    // Scans, sorting, selection.
    const Array flat = a.reshape({30});
    const Array cs = cumsum(queue(), flat, 0, std::nullopt, std::nullopt, alloc);
    check("cumsum", cs);
    check("cumprod", cumprod(queue(), flat, 0, std::nullopt, std::nullopt, alloc));
    const Array sorted = sort(queue(), flat, -1, alloc);
    check("sort", sorted);
    std::vector<float> sorted_host = host;
    std::sort(sorted_host.begin(), sorted_host.end());
    EXPECT_EQ(values(sorted), sorted_host);
    check("sort along axis 0", sort(queue(), a, 0, alloc));
    check("argsort", argsort(queue(), flat, -1, alloc));
    check("searchsorted", searchsorted(queue(), sorted, flat, Side::left, alloc));
    UniqueOptions unique_options;
    unique_options.return_counts = true;
    unique_options.allocator = alloc;
    const UniqueResult u = unique(queue(), flat, unique_options);
    check("unique values", u.values);
    check("unique counts", *u.counts);
    const Array mask = evaluate(queue(), Expr(a) > 0.0f);
    const Array selected = boolean_index(queue(), a, mask, alloc);
    check("boolean_index", selected);
    std::vector<float> positive;
    for (float v : host)
        if (v > 0.0f) positive.push_back(v);
    EXPECT_EQ(values(selected), positive);
    check("count_nonzero", count_nonzero(queue(), mask, std::nullopt, alloc));
    check("argwhere", argwhere(queue(), mask, alloc));
    for (const Array& n : nonzero(queue(), mask, alloc)) check("nonzero", n);
    check("copy_if", copy_if(queue(), flat, "ary[i] > 0", {}, {}, {}, alloc).out);

    // BLAS results.
    const Array sq = random_float32({5, 5});
    check("gemm", blas::gemm(queue(), 1.0, sq, sq, 0.0, std::nullopt, blas::Op::none, blas::Op::none, alloc));
    check("gemv", blas::gemv(queue(), 1.0, sq, sq[{0}], 0.0, std::nullopt, blas::Op::none, alloc));
    check("ger", blas::ger(queue(), 1.0, sq[{0}], sq[{1}], std::nullopt, alloc));
    check("dot", blas::dot(queue(), sq[{0}], sq[{1}], std::nullopt, false, alloc));
    // And the ones that had it: empty, zeros, evaluate, reductions.
    check("evaluate", evaluate(queue(), Expr(a) * 2.0f, alloc));
    ReduceOptions options;
    options.allocator = alloc;
    check("sum", sum(queue(), a, options));
}

KJARNI_INSTANTIATE_DEVICE_TESTS(Parity43Arrays);

}  // namespace parity43_array
}  // namespace kjarni::test
