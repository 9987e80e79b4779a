// Array operations (kjarni/array_operations.hpp) against CPU references computed here by index
// arithmetic, on random data in random views (contiguous, transposed, strided, reversed), over
// dtypes of itemsize 1 to 16. Copies must be exact, so bytes are compared.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <array>
#include <map>

#include "kjarni/array_operations.hpp"
#include "support/argument_errors.hpp"
#include "support/array_reference.hpp"
#include "support/random_data.hpp"
#include "support/test_devices.hpp"

namespace kjarni::test {
namespace {

using ::testing::HasSubstr;

// The arrays joined along `axis`, on the CPU.
Reference concatenate_reference(const std::vector<Reference>& parts, std::size_t axis) {
    Shape shape = parts[0].shape;
    shape[axis] = 0;
    for (const auto& p : parts) shape[axis] += p.shape[axis];
    Reference out(shape, parts[0].itemsize);
    std::size_t start = 0;
    for (const auto& p : parts) {
        for_each_index(p.shape, [&](const std::vector<std::size_t>& index) {
            auto at = index;
            at[axis] += start;
            std::memcpy(out.at(at), p.at(index), p.itemsize);
        });
        start += p.shape[axis];
    }
    return out;
}

// A reference with axes of extent 1 inserted (the C-ordered bytes do not change).
Reference with_shape(Reference r, Shape shape) {
    EXPECT_EQ(product(shape), product(r.shape));
    r.shape = std::move(shape);
    return r;
}

class ArrayOperations : public DeviceTest {};

TEST_P(ArrayOperations, ConcatenateAlongEveryAxisOfRandomViews) {
    for (const DType& dtype : sweep_dtypes()) {
        for (std::ptrdiff_t axis : {0, 1, 2, -1}) {
            const std::size_t ax = axis < 0 ? 2 : static_cast<std::size_t>(axis);
            std::vector<Array> inputs;
            std::vector<Reference> references;
            std::string kinds;
            for (std::size_t extent : {std::size_t{3}, std::size_t{0}, std::size_t{5}}) {
                Shape shape{4, 3, 5};
                shape[ax] = extent;
                const ViewKind kind = random_view_kind();
                const ViewPair v = random_view(queue(), dtype, shape, kind);
                inputs.push_back(v.device);
                references.push_back(reference_of(v.host));
                kinds += std::string(name_of(kind)) + " ";
            }
            const Array out = concatenate(queue(), inputs, axis);
            EXPECT_TRUE(out.is_c_contiguous());
            EXPECT_TRUE(same_elements(reference_of(queue(), out), concatenate_reference(references, ax)))
                << dtype.name() << " axis " << axis << " inputs " << kinds;
        }
    }
}

TEST_P(ArrayOperations, ConcatenateOfContiguousArraysAlongAxis0AndIntoAGivenView) {
    // The fast path (one device copy per input) and the strided path into a transposed output.
    const ViewPair a = random_view(queue(), dtypes::float32, {5, 7}, ViewKind::contiguous);
    const ViewPair b = random_view(queue(), dtypes::float32, {2, 7}, ViewKind::contiguous);
    const Reference want = concatenate_reference({reference_of(a.host), reference_of(b.host)}, 0);
    EXPECT_TRUE(same_elements(reference_of(queue(), concatenate(queue(), {a.device, b.device})), want));
    const Array storage = Array::empty(bound_device(), {7, 7}, dtypes::float32);
    const Array out = storage.transpose();
    concatenate(queue(), {a.device, b.device}, out, 0);
    EXPECT_TRUE(same_elements(reference_of(queue(), out), want));
}

TEST_P(ArrayOperations, StackHstackVstackDstack) {
    for (const DType& dtype : {DType(dtypes::int16), DType(dtypes::complex64)}) {
        std::vector<Array> devices1, devices2;
        std::vector<Reference> refs1, refs2;
        for (int k = 0; k < 3; ++k) {
            const ViewPair one = random_view(queue(), dtype, {6}, random_view_kind());
            const ViewPair two = random_view(queue(), dtype, {4, 6}, random_view_kind());
            devices1.push_back(one.device);
            refs1.push_back(reference_of(one.host));
            devices2.push_back(two.device);
            refs2.push_back(reference_of(two.host));
        }
        auto expanded = [](const std::vector<Reference>& refs, auto shape_of) {
            std::vector<Reference> out;
            for (const auto& r : refs) out.push_back(with_shape(r, shape_of(r.shape)));
            return out;
        };
        // stack of (4, 6) arrays along each new axis position: numpy's shapes (3,4,6), (4,3,6), (4,6,3).
        for (std::ptrdiff_t axis : {0, 1, 2, -1}) {
            const std::size_t ax = axis < 0 ? 2 : static_cast<std::size_t>(axis);
            const auto parts = expanded(refs2, [&](Shape s) {
                s.insert(s.begin() + static_cast<std::ptrdiff_t>(ax), 1);
                return s;
            });
            EXPECT_TRUE(
                same_elements(reference_of(queue(), stack(queue(), devices2, axis)), concatenate_reference(parts, ax)))
                << dtype.name() << " stack axis " << axis;
        }
        // hstack: 1-d along axis 0 (18), 2-d along axis 1 (4, 18).
        EXPECT_TRUE(same_elements(reference_of(queue(), hstack(queue(), devices1)), concatenate_reference(refs1, 0)));
        EXPECT_TRUE(same_elements(reference_of(queue(), hstack(queue(), devices2)), concatenate_reference(refs2, 1)));
        // vstack: 1-d become rows (3, 6); 2-d along axis 0 (12, 6).
        EXPECT_TRUE(same_elements(reference_of(queue(), vstack(queue(), devices1)),
                                  concatenate_reference(expanded(refs1,
                                                                 [](Shape s) {
                                                                     return Shape{1, s[0]};
                                                                 }),
                                                        0)));
        EXPECT_TRUE(same_elements(reference_of(queue(), vstack(queue(), devices2)), concatenate_reference(refs2, 0)));
        // dstack: 1-d become (1, 6, 1) -> (1, 6, 3); 2-d (4, 6, 1) -> (4, 6, 3).
        EXPECT_TRUE(same_elements(reference_of(queue(), dstack(queue(), devices1)),
                                  concatenate_reference(expanded(refs1,
                                                                 [](Shape s) {
                                                                     return Shape{1, s[0], 1};
                                                                 }),
                                                        2)));
        EXPECT_TRUE(same_elements(reference_of(queue(), dstack(queue(), devices2)),
                                  concatenate_reference(expanded(refs2,
                                                                 [](Shape s) {
                                                                     return Shape{s[0], s[1], 1};
                                                                 }),
                                                        2)));
    }
}

TEST_P(ArrayOperations, JoiningErrorsNameTheCulprit) {
    const Array a = Array::zeros(queue(), {2, 3}, dtypes::float32);
    const Array b = Array::zeros(queue(), {2, 4}, dtypes::float32);
    const Array c = Array::zeros(queue(), {2, 3}, dtypes::float64);
    const Array d = Array::zeros(queue(), {2, 3, 1}, dtypes::float32);
    const Array scalar = Array::zeros(queue(), {}, dtypes::float32);
    EXPECT_THAT(argument_error_message([&] {
                    concatenate(queue(), {a, b}, 0);
                }),
                AllOf(HasSubstr("arrays[1]"), HasSubstr("(2, 4)"), HasSubstr("(2, 3)")));
    EXPECT_NO_THROW(concatenate(queue(), {a, b}, 1));
    EXPECT_THAT(argument_error_message([&] {
                    concatenate(queue(), {a, c});
                }),
                AllOf(HasSubstr("arrays[1]"), HasSubstr("float64")));
    EXPECT_THAT(argument_error_message([&] {
                    concatenate(queue(), {a, d});
                }),
                AllOf(HasSubstr("arrays[1]"), HasSubstr("3 dimensions")));
    EXPECT_THAT(argument_error_message([&] {
                    concatenate(queue(), {a, a}, 2);
                }),
                AllOf(HasSubstr("axis"), HasSubstr("2 is out of range")));
    EXPECT_THAT(argument_error_message([&] { concatenate(queue(), {a, a}, -3); }), HasSubstr("-3 is out of range"));
    EXPECT_THAT(argument_error_message([&] { concatenate(queue(), {}); }), HasSubstr("empty"));
    EXPECT_THAT(argument_error_message([&] { concatenate(queue(), {scalar, scalar}); }), HasSubstr("zero-dimensional"));
    EXPECT_THAT(argument_error_message([&] {
                    stack(queue(), {a, b});
                }),
                AllOf(HasSubstr("arrays[1]"), HasSubstr("(2, 4)")));
    EXPECT_THAT(argument_error_message([&] { stack(queue(), {a, a}, 3); }), HasSubstr("out of range"));
    const Array wrong = Array::zeros(queue(), {4, 4}, dtypes::float32);
    EXPECT_THAT(argument_error_message([&] {
                    concatenate(queue(), {a, a}, wrong);
                }),
                AllOf(HasSubstr("out"), HasSubstr("(4, 4)"), HasSubstr("(4, 3)")));
    const Array big = Array::zeros(queue(), {8, 3}, dtypes::float32);
    EXPECT_THAT(argument_error_message([&] {
                    concatenate(queue(), {big[{Slice{0, 2}}], a}, big[{Slice{4, 8}}]);
                }),
                HasSubstr("no ArgumentError"));
    EXPECT_THAT(argument_error_message([&] {
                    concatenate(queue(), {big[{Slice{0, 2}}], a}, big[{Slice{1, 5}}]);
                }),
                AllOf(HasSubstr("out"), HasSubstr("arrays[0]")));
    if (Context* other = shared_multi_device_context(); other != nullptr && !(*other == context())) {
        const Queue q(other->devices()[0]);
        const Array elsewhere = Array::zeros(q, {2, 3}, dtypes::float32);
        EXPECT_THAT(argument_error_message([&] {
                        concatenate(queue(), {a, elsewhere});
                    }),
                    AllOf(HasSubstr("arrays[1]"), HasSubstr("context")));
    }
}

TEST_P(ArrayOperations, SplitsAreViewsWithNumpysBounds) {
    const ViewPair v = random_view(queue(), dtypes::float64, {10, 6, 4}, ViewKind::strided);
    const Reference whole = reference_of(v.host);
    // The part [start, start + extent) along `axis` of the reference.
    auto part = [&](std::size_t axis, std::size_t start, std::size_t extent) {
        Shape shape = whole.shape;
        shape[axis] = extent;
        Reference r(shape, whole.itemsize);
        for_each_index(shape, [&](const std::vector<std::size_t>& index) {
            auto at = index;
            at[axis] += start;
            std::memcpy(r.at(index), whole.at(at), whole.itemsize);
        });
        return r;
    };
    auto check = [&](const std::vector<Array>& parts, std::size_t axis,
                     std::vector<std::pair<std::size_t, std::size_t>> want, const char* what) {
        ASSERT_EQ(parts.size(), want.size()) << what;
        for (std::size_t k = 0; k < parts.size(); ++k) {
            EXPECT_TRUE(same_elements(reference_of(queue(), parts[k]), part(axis, want[k].first, want[k].second)))
                << what << " part " << k;
            if (parts[k].size() != 0) {
                EXPECT_TRUE(may_share_memory(parts[k], v.device)) << what;
            }
        }
    };
    check(split(v.device, 5), 0, {{0, 2}, {2, 2}, {4, 2}, {6, 2}, {8, 2}}, "split 5");
    check(array_split(v.device, 3), 0, {{0, 4}, {4, 3}, {7, 3}}, "array_split 3");  // numpy: 4, 3, 3
    check(array_split(v.device, 4, -1), 2, {{0, 1}, {1, 1}, {2, 1}, {3, 1}}, "array_split 4 axis -1");
    // numpy.array_split(np.arange(10), [3, -2, 20, 1]): [0:3], [3:8], [8:20], [20:1], [1:10].
    check(split(v.device, {3, -2, 20, 1}), 0, {{0, 3}, {3, 5}, {8, 2}, {10, 0}, {1, 9}}, "split at");
    check(hsplit(v.device, 2), 1, {{0, 3}, {3, 3}}, "hsplit");
    const std::vector<std::ptrdiff_t> at{1, 3};
    check(vsplit(v.device, at), 0, {{0, 1}, {1, 2}, {3, 7}}, "vsplit at");
    check(dsplit(v.device, 2), 2, {{0, 2}, {2, 2}}, "dsplit");
    const Array flat = v.device[{Slice{}, 0, 0}];
    ASSERT_EQ(flat.ndim(), 1u);
    EXPECT_EQ(hsplit(flat, 5).size(), 5u);  // one-dimensional: along axis 0
    EXPECT_THAT(argument_error_message([&] { split(v.device, 3); }), AllOf(HasSubstr("3"), HasSubstr("extent 10")));
    EXPECT_THAT(argument_error_message([&] { split(v.device, 0); }), HasSubstr("sections"));
    EXPECT_THAT(argument_error_message([&] { split(v.device, 2, 3); }), HasSubstr("out of range"));
    EXPECT_THAT(argument_error_message([&] { vsplit(flat, 2); }), HasSubstr("vsplit"));
    EXPECT_THAT(argument_error_message([&] { dsplit(v.device[{Slice{}, Slice{}, 0}], 2); }), HasSubstr("dsplit"));
    EXPECT_THAT(argument_error_message([&] { hsplit(v.device[{0, 0, 0}], 2); }), HasSubstr("zero-dimensional"));
}

TEST_P(ArrayOperations, AtLeastNdAreViewsOfNumpysShapes) {
    const ViewPair v = random_view(queue(), dtypes::int32, {3, 4, 2}, ViewKind::reversed);
    const Array zero_d = v.device[{1, 2, 0}];
    const Array one_d = v.device[{1, Slice{}, 0}];
    const Array two_d = v.device[{Slice{}, 2}];
    const std::map<std::pair<int, std::size_t>, Shape> want{{{1, 0}, {1}},       {{1, 1}, {4}},
                                                            {{1, 2}, {3, 2}},    {{1, 3}, {3, 4, 2}},
                                                            {{2, 0}, {1, 1}},    {{2, 1}, {1, 4}},
                                                            {{2, 2}, {3, 2}},    {{2, 3}, {3, 4, 2}},
                                                            {{3, 0}, {1, 1, 1}}, {{3, 1}, {1, 4, 1}},
                                                            {{3, 2}, {3, 2, 1}}, {{3, 3}, {3, 4, 2}}};
    const std::vector<Array> arrays{zero_d, one_d, two_d, v.device};
    for (int n = 1; n <= 3; ++n) {
        const auto results = n == 1 ? atleast_1d(arrays) : n == 2 ? atleast_2d(arrays) : atleast_3d(arrays);
        for (std::size_t d = 0; d < arrays.size(); ++d) {
            EXPECT_EQ(results[d].shape(), want.at({n, d})) << "atleast_" << n << "d of " << d << "-d";
            EXPECT_EQ(detail::backend_of(results[d].base()), detail::backend_of(v.device.base()));
            // Same elements in the same C order.
            const auto got = reference_of(queue(), results[d]);
            const auto orig = reference_of(queue(), arrays[d]);
            EXPECT_EQ(got.bytes, orig.bytes);
        }
    }
}

// Index values as an array of `dtype`.
HostArray indices_of(const DType& dtype, const std::vector<std::int64_t>& values, const Shape& shape) {
    HostArray h(dtype, shape);
    for (std::size_t k = 0; k < values.size(); ++k) {
        std::byte* p = h.data() + k * dtype.itemsize();
        const std::int64_t v = values[k];
        switch (dtype.kind()) {
        case DType::Kind::int8: *reinterpret_cast<std::int8_t*>(p) = static_cast<std::int8_t>(v); break;
        case DType::Kind::uint8: *reinterpret_cast<std::uint8_t*>(p) = static_cast<std::uint8_t>(v); break;
        case DType::Kind::int16: *reinterpret_cast<std::int16_t*>(p) = static_cast<std::int16_t>(v); break;
        case DType::Kind::int32: *reinterpret_cast<std::int32_t*>(p) = static_cast<std::int32_t>(v); break;
        case DType::Kind::uint32: *reinterpret_cast<std::uint32_t*>(p) = static_cast<std::uint32_t>(v); break;
        case DType::Kind::int64: *reinterpret_cast<std::int64_t*>(p) = v; break;
        default: ADD_FAILURE() << "no index dtype " << dtype.name();
        }
    }
    return h;
}

// numpy.take on the CPU (positions already checked or wrapped or clipped by the caller's mode).
Reference take_reference(const Reference& a, const std::vector<std::int64_t>& idx, const Shape& idx_shape,
                         std::size_t axis, TakeMode mode) {
    Shape shape(a.shape.begin(), a.shape.begin() + static_cast<std::ptrdiff_t>(axis));
    shape.insert(shape.end(), idx_shape.begin(), idx_shape.end());
    shape.insert(shape.end(), a.shape.begin() + static_cast<std::ptrdiff_t>(axis) + 1, a.shape.end());
    Reference out(shape, a.itemsize);
    const auto n = static_cast<std::int64_t>(a.shape[axis]);
    for_each_index(shape, [&](const std::vector<std::size_t>& index) {
        std::vector<std::size_t> pos(index.begin() + static_cast<std::ptrdiff_t>(axis),
                                     index.begin() + static_cast<std::ptrdiff_t>(axis + idx_shape.size()));
        std::int64_t v = idx[flat_index(idx_shape, pos)];
        if (mode == TakeMode::raise && v < 0) v += n;
        if (mode == TakeMode::wrap) v = ((v % n) + n) % n;
        if (mode == TakeMode::clip) v = std::clamp<std::int64_t>(v, 0, n - 1);
        std::vector<std::size_t> at(index.begin(), index.begin() + static_cast<std::ptrdiff_t>(axis));
        at.push_back(static_cast<std::size_t>(v));
        at.insert(at.end(), index.begin() + static_cast<std::ptrdiff_t>(axis + idx_shape.size()), index.end());
        std::memcpy(out.at(index), a.at(at), a.itemsize);
    });
    return out;
}

TEST_P(ArrayOperations, TakeAlongEveryAxisInEveryMode) {
    const std::vector<DType> index_dtypes{dtypes::int32, dtypes::int64, dtypes::int16, dtypes::uint8};
    std::size_t round = 0;
    for (const DType& dtype : sweep_dtypes()) {
        for (std::optional<std::ptrdiff_t> axis :
             {std::optional<std::ptrdiff_t>(0), std::optional<std::ptrdiff_t>(1), std::optional<std::ptrdiff_t>(-1),
              std::optional<std::ptrdiff_t>()}) {
            {
                // Every (axis, mode) pair comes twice over the dtypes; index dtypes rotate too.
                const TakeMode mode = std::array{TakeMode::raise, TakeMode::wrap, TakeMode::clip}[round % 3];
                const DType index_dtype = index_dtypes[(round++ / 2) % index_dtypes.size()];
                const ViewKind kind = random_view_kind();
                const ViewPair v = random_view(queue(), dtype, {4, 5, 3}, kind);
                Reference a = reference_of(v.host);
                std::size_t ax = 0;
                if (axis) {
                    ax = *axis < 0 ? 2 : static_cast<std::size_t>(*axis);
                } else {
                    a = with_shape(a, {a.bytes.size() / a.itemsize});
                }
                const auto n = static_cast<std::int64_t>(a.shape[ax]);
                // raise: any valid index, negative ones too; wrap and clip: far out of range too.
                const bool unsigned_index = index_dtype == dtypes::uint8;
                const std::int64_t low = unsigned_index ? 0 : mode == TakeMode::raise ? -n : -3 * n;
                const std::int64_t high = unsigned_index            ? (mode == TakeMode::raise ? n - 1 : 3 * n)
                                          : mode == TakeMode::raise ? n - 1
                                                                    : 3 * n;
                const Shape idx_shape = round % 2 == 0 ? Shape{7} : Shape{2, 3};
                const auto values = random_vector<std::int64_t>(product(idx_shape), low, high);
                const Array indices = Array::from_host(queue(), indices_of(index_dtype, values, idx_shape));
                const Array got = take(queue(), v.device, indices, axis, mode);
                EXPECT_TRUE(got.is_c_contiguous());
                EXPECT_TRUE(same_elements(reference_of(queue(), got), take_reference(a, values, idx_shape, ax, mode)))
                    << dtype.name() << " " << name_of(kind) << " axis " << (axis ? std::to_string(*axis) : "none")
                    << " mode " << static_cast<int>(mode) << " indices " << index_dtype.name();
            }
        }
    }
}

TEST_P(ArrayOperations, TakeWithATransposedIndexArrayAndItsErrors) {
    const ViewPair v = random_view(queue(), dtypes::float32, {6, 4}, ViewKind::transposed);
    const auto values = random_vector<std::int64_t>(12, -6, 5);
    const Array idx_storage = Array::from_host(queue(), indices_of(dtypes::int64, values, {3, 4}));
    const Array idx = idx_storage.transpose();  // idx[i, j] = values[j * 4 + i]
    std::vector<std::int64_t> transposed(12);
    for (std::size_t i = 0; i < 4; ++i)
        for (std::size_t j = 0; j < 3; ++j) transposed[i * 3 + j] = values[j * 4 + i];
    EXPECT_TRUE(same_elements(reference_of(queue(), take(queue(), v.device, idx, 0)),
                              take_reference(reference_of(v.host), transposed, {4, 3}, 0, TakeMode::raise)));
    // Out of range under raise: the message names the index.
    const Array bad = Array::from_host(queue(), indices_of(dtypes::int32, {1, 2, 6, 0}, {4}));
    EXPECT_THAT(argument_error_message([&] { take(queue(), v.device, bad, 0); }),
                AllOf(HasSubstr("index 6"), HasSubstr("extent 6")));
    const Array bad_negative = Array::from_host(queue(), indices_of(dtypes::int32, {-7}, {1}));
    EXPECT_THAT(argument_error_message([&] { take(queue(), v.device, bad_negative, 0); }), HasSubstr("index -7"));
    EXPECT_NO_THROW(take(queue(), v.device, bad, 0, TakeMode::wrap));
    const Array floats = Array::zeros(queue(), {3}, dtypes::float32);
    EXPECT_THAT(argument_error_message([&] { take(queue(), v.device, floats, 0); }), HasSubstr("integer"));
    EXPECT_THAT(argument_error_message([&] { take(queue(), v.device, bad, 2); }), HasSubstr("out of range"));
    const Array empty_axis = Array::zeros(queue(), {0, 3}, dtypes::float32);
    EXPECT_THAT(argument_error_message([&] { take(queue(), empty_axis, bad, 0, TakeMode::clip); }), HasSubstr("empty"));
    const Array no_indices = Array::zeros(queue(), {0}, dtypes::int32);
    EXPECT_EQ(take(queue(), empty_axis, no_indices, 0).shape(), (Shape{0, 3}));
}

TEST_P(ArrayOperations, AsarrayAscontiguousAsfortranConvertOnlyWhenNeeded) {
    const auto data = random_vector<std::int32_t>(20, -(1 << 24), 1 << 24);  // exact in float32
    const Array c = Array::from_host(queue(), std::span<const std::int32_t>(data), {4, 5});
    const Array t = c.transpose();
    EXPECT_EQ(detail::backend_of(ascontiguousarray(queue(), c).base()), detail::backend_of(c.base()));
    EXPECT_EQ(detail::backend_of(asfortranarray(queue(), t).base()), detail::backend_of(c.base()));
    EXPECT_EQ(detail::backend_of(asarray(queue(), t).base()), detail::backend_of(c.base()));
    EXPECT_EQ(detail::backend_of(asarray(queue(), c, DType(dtypes::int32), Order::C).base()),
              detail::backend_of(c.base()));
    const Array tc = ascontiguousarray(queue(), t);
    EXPECT_TRUE(tc.is_c_contiguous());
    EXPECT_NE(detail::backend_of(tc.base()), detail::backend_of(c.base()));
    const Array cf = asfortranarray(queue(), c, DType(dtypes::float32));
    EXPECT_TRUE(cf.is_f_contiguous());
    EXPECT_EQ(cf.dtype(), dtypes::float32);
    const auto got = cf.get(queue()).to_vector<float>();
    for (std::size_t k = 0; k < data.size(); ++k) ASSERT_EQ(got[k], static_cast<float>(data[k])) << k;
    const Array d = asarray(queue(), t, DType(dtypes::float64));
    EXPECT_TRUE(d.is_c_contiguous());
    const auto back = d.get(queue()).to_vector<double>();
    for (std::size_t i = 0; i < 5; ++i)
        for (std::size_t j = 0; j < 4; ++j) ASSERT_EQ(back[i * 4 + j], static_cast<double>(data[j * 5 + i]));
    const Array from_host = asarray(queue(), HostArray::from(data, {4, 5}), DType(dtypes::int64), Order::F);
    EXPECT_TRUE(from_host.is_f_contiguous());
    const auto wide = from_host.get(queue()).to_vector<std::int64_t>();
    for (std::size_t k = 0; k < data.size(); ++k) ASSERT_EQ(wide[k], data[k]);
    // numpy gives 0-d arrays one dimension here.
    EXPECT_EQ(ascontiguousarray(queue(), c[{1, 2}]).shape(), (Shape{1}));
    EXPECT_EQ(asfortranarray(queue(), c[{1, 2}]).shape(), (Shape{1}));
}

TEST_P(ArrayOperations, MayShareMemoryByBounds) {
    const Array a = Array::zeros(queue(), {10, 4}, dtypes::float32);
    const Array b = Array::zeros(queue(), {10, 4}, dtypes::float32);
    EXPECT_TRUE(may_share_memory(a, a));
    EXPECT_FALSE(may_share_memory(a, b));
    EXPECT_FALSE(may_share_memory(a[{Slice{0, 5}}], a[{Slice{5}}]));
    EXPECT_TRUE(may_share_memory(a[{Slice{0, 6}}], a[{Slice{5}}]));
    EXPECT_TRUE(may_share_memory(a[{Slice{}, 0}], a[{Slice{}, 1}]));  // interleaved: bounds overlap
    EXPECT_TRUE(may_share_memory(a.transpose(), a[{Slice{9}}]));
    EXPECT_FALSE(may_share_memory(a[{Slice{3, 3}}], a));  // no elements
    // Arrays over regions of one buffer.
    const Buffer buffer = Buffer::allocate(bound_device(), 64);
    const Array low = Array::from_buffer(buffer.get_sub_region(0, 32), dtypes::int32, Layout::contiguous({8}, 4));
    const Array high = Array::from_buffer(buffer.get_sub_region(32, 32), dtypes::int32, Layout::contiguous({8}, 4));
    const Array middle = Array::from_buffer(buffer.get_sub_region(16, 32), dtypes::int32, Layout::contiguous({8}, 4));
    EXPECT_FALSE(may_share_memory(low, high));
    EXPECT_TRUE(may_share_memory(low, middle));
    EXPECT_TRUE(may_share_memory(middle, high));
}

KJARNI_INSTANTIATE_DEVICE_TESTS(ArrayOperations);

// Transfers between the devices of one context and between contexts.
class ArrayTransfersBetweenDevices : public ::testing::Test {
protected:
    void SetUp() override {
        multi_ = shared_multi_device_context();
        if (multi_ == nullptr) GTEST_SKIP() << "no platform with two selected devices";
    }
    Context* multi_ = nullptr;
};

TEST_F(ArrayTransfersBetweenDevices, WithinAContextAndAcrossContexts) {
    const Queue q0(multi_->devices()[0]);
    const Queue q1(multi_->devices()[1]);
    for (const DType& dtype : {DType(dtypes::float64), DType(dtypes::int8)}) {
        const ViewPair v = random_view(q0, dtype, {5, 3, 4}, ViewKind::transposed);
        const Reference want = reference_of(v.host);
        const Array on_1 = transfer(v.device, q1);
        EXPECT_EQ(on_1.device(), multi_->devices()[1]);
        EXPECT_TRUE(on_1.is_c_contiguous());
        EXPECT_TRUE(same_elements(reference_of(q1, on_1), want)) << dtype.name();
        // Another context: the first selected device alone.
        Context& single = shared_context(test_devices().front());
        const Queue qs(single.devices()[0]);
        const Array there = transfer(on_1[{Slice{std::nullopt, std::nullopt, -1}}], qs);
        EXPECT_EQ(there.device().context(), single);
        const Array back = transfer(there, q0);
        Reference reversed(want.shape, want.itemsize);
        for_each_index(want.shape, [&](const std::vector<std::size_t>& index) {
            auto at = index;
            at[0] = want.shape[0] - 1 - index[0];
            std::memcpy(reversed.at(index), want.at(at), want.itemsize);
        });
        EXPECT_TRUE(same_elements(reference_of(qs, there), reversed)) << dtype.name();
        EXPECT_TRUE(same_elements(reference_of(q0, back), reversed)) << dtype.name();
        // Joining arrays of two devices of one context on a queue of one of them.
        const Array joined = concatenate(q0, {v.device, on_1});
        EXPECT_TRUE(same_elements(reference_of(q0, joined), concatenate_reference({want, want}, 0))) << dtype.name();
    }
}

}  // namespace
}  // namespace kjarni::test
