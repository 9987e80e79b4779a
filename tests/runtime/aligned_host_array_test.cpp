// Aligned host arrays (issue 43, item 11; PyCUDA's aligned_empty, aligned_zeros, *_like): the
// address, the layout, the zeroing, and the refusals.

#include <gtest/gtest.h>

#include "kjarni/aligned_host_array.hpp"

#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

namespace kjarni::test {
namespace {

using namespace kjarni::dtypes;

bool aligned(const void* p, std::size_t alignment) { return reinterpret_cast<std::uintptr_t>(p) % alignment == 0; }

TEST(AlignedHostArray, AlignedEmptyAndZerosAtEveryAlignment) {
    std::mt19937 rng(std::random_device{}());
    for (std::size_t alignment = 1; alignment <= (std::size_t{1} << 16); alignment *= 2) {
        for (const DType& dtype : {DType(int8), DType(float32), DType(complex128)}) {
            const std::vector<std::size_t> shape{1 + rng() % 5, 1 + rng() % 7};
            // Memory handed back just before, filled with noise, so that zeros must really zero it.
            {
                HostArray noise = aligned_empty(dtype, shape, Order::C, alignment);
                for (auto& b : noise.bytes()) b = static_cast<std::byte>(1 + rng() % 255);
            }
            for (const Order order : {Order::C, Order::F}) {
                const HostArray e = aligned_empty(dtype, shape, order, alignment);
                const HostArray z = aligned_zeros(dtype, shape, order, alignment);
                for (const HostArray* a : {&e, &z}) {
                    EXPECT_TRUE(aligned(a->data(), alignment)) << alignment;
                    EXPECT_EQ(a->dtype(), dtype);
                    EXPECT_EQ(a->shape(), shape);
                    EXPECT_EQ(a->nbytes(), shape[0] * shape[1] * dtype.itemsize());
                    EXPECT_EQ(a->is_c_contiguous(), order == Order::C || shape[0] == 1 || shape[1] == 1);
                    EXPECT_EQ(a->is_f_contiguous(), order == Order::F || shape[0] == 1 || shape[1] == 1);
                }
                const std::byte* bytes = z.data();
                for (std::size_t i = 0; i < z.nbytes(); ++i) ASSERT_EQ(bytes[i], std::byte{0}) << "byte " << i;
                // The memory is the array's own: writing all of it and reading it back holds.
                std::vector<std::byte> pattern(e.nbytes());
                for (auto& b : pattern) b = static_cast<std::byte>(rng());
                std::memcpy(e.data(), pattern.data(), pattern.size());
                EXPECT_EQ(std::memcmp(e.data(), pattern.data(), pattern.size()), 0);
            }
        }
    }
}

TEST(AlignedHostArray, LikeKeepsDtypeShapeAndOrder) {
    const HostArray c = aligned_zeros(float64, {3, 5});
    const std::size_t axes[] = {1, 0};
    const HostArray f = c.transpose(axes);  // Fortran-contiguous view
    ASSERT_TRUE(f.is_f_contiguous());
    for (const std::size_t alignment : {std::size_t{64}, std::size_t{8192}}) {
        const HostArray fc = aligned_empty_like(f, alignment);
        EXPECT_EQ(fc.shape(), (std::vector<std::size_t>{5, 3}));
        EXPECT_TRUE(fc.is_f_contiguous());
        EXPECT_FALSE(fc.is_c_contiguous());
        EXPECT_TRUE(aligned(fc.data(), alignment));
        EXPECT_NE(fc.data(), f.data());
        const HostArray cz = aligned_zeros_like(c, alignment);
        EXPECT_TRUE(cz.is_c_contiguous());
        EXPECT_EQ(cz.dtype(), DType(float64));
        EXPECT_TRUE(aligned(cz.data(), alignment));
        for (const double v : cz.to_vector<double>()) EXPECT_EQ(v, 0.0);
    }
    // Default: a page.
    EXPECT_TRUE(aligned(aligned_empty_like(c).data(), 4096));
    // An empty array still has an aligned address of its own.
    EXPECT_TRUE(aligned(aligned_empty(int32, {0, 4}, Order::C, 256).data(), 256));
}

TEST(AlignedHostArray, RefusesBadAlignmentsAndSizes) {
    for (const std::size_t bad : {std::size_t{0}, std::size_t{3}, std::size_t{96}}) {
        try {
            (void)aligned_empty(float32, {4}, Order::C, bad);
            FAIL() << bad;
        } catch (const ArgumentError& e) {
            EXPECT_EQ(e.argument(), "alignment");
        }
    }
    const std::size_t huge = std::numeric_limits<std::size_t>::max() / 2;
    try {
        (void)aligned_zeros(float64, {huge, 4});
        FAIL() << "overflow";
    } catch (const ArgumentError& e) {
        EXPECT_EQ(e.argument(), "shape");
    }
}

}  // namespace
}  // namespace kjarni::test
