// The kernel dialect: every id/size function and prelude macro, run on each device and checked
// against a CPU model; the same sources are compiled for CUDA with NVRTC (nvrtc_cross_check.cpp).

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>

#include "support/random_data.hpp"
#include "support/test_devices.hpp"

namespace kjarni::test {
namespace {

constexpr const char* ids_source = R"(
KERNEL void ids(GLOBAL_MEM uint32_t* out)
{
    const SIZE_T flat = get_global_id(0) + get_global_size(0) * (get_global_id(1) + get_global_size(1) * get_global_id(2));
    GLOBAL_MEM uint32_t* o = out + flat * 18;
    for (unsigned int d = 0; d < 3; ++d) {
        o[d * 6 + 0] = (uint32_t)get_local_id(d);
        o[d * 6 + 1] = (uint32_t)get_group_id(d);
        o[d * 6 + 2] = (uint32_t)get_global_id(d);
        o[d * 6 + 3] = (uint32_t)get_local_size(d);
        o[d * 6 + 4] = (uint32_t)get_num_groups(d);
        o[d * 6 + 5] = (uint32_t)get_global_size(d);
    }
}
)";

class Dialect : public DeviceTest {
protected:
    /// Launches `program`'s group_sums (macros_source: each int32 times 3 plus a bias, summed per
    /// group of 64 in local memory) on fresh random input and bias, and checks every sum exactly.
    void expect_exact_group_sums(Program& program, const std::string& what) {
        const std::size_t groups = 37, local = 64, n = groups * local;
        const auto input = random_vector<std::int32_t>(n, -1'000'000, 1'000'000);
        const std::int32_t bias = random_vector<std::int32_t>(1, -50, 50)[0];
        auto in = Buffer::allocate(bound_device(), n * sizeof(std::int32_t));
        auto out = Buffer::allocate(bound_device(), groups * sizeof(std::int64_t));
        in.set(queue(), std::span<const std::int32_t>(input));
        const std::byte poison{0xCD};
        out.fill(queue(), std::span(&poison, 1));
        program.kernel("group_sums")(queue(), {n}, Sizes{local}, out, in, bias);
        std::vector<std::int64_t> back(groups);
        out.get(queue(), std::span<std::int64_t>(back));
        for (std::size_t g = 0; g < groups; ++g) {
            std::int64_t expected = 0;
            for (std::size_t i = 0; i < local; ++i) expected += std::int64_t{input[g * local + i]} * 3 + bias;
            ASSERT_EQ(back[g], expected) << what << ", group " << g;
        }
    }

    Program& ids_program() {
        if (!ids_) ids_.emplace(bound_device(), ids_source);
        return *ids_;
    }

private:
    std::optional<Program> ids_;
};

// Checks every work item's ids and sizes against the model of OpenCL semantics (dimensions past
// the launch's: id 0, size 1). Dimensions past the third are not checked: PoCL 3.1 answers 0 for
// get_local_size(3), where the specification says 1.
void check_ids(const std::vector<std::uint32_t>& out, const Sizes& global, const Sizes& local) {
    std::array<std::size_t, 3> g{1, 1, 1}, l{1, 1, 1};
    for (std::size_t d = 0; d < global.size(); ++d) {
        g[d] = global[d];
        l[d] = local[d];
    }
    for (std::size_t z = 0; z < g[2]; ++z) {
        for (std::size_t y = 0; y < g[1]; ++y) {
            for (std::size_t x = 0; x < g[0]; ++x) {
                const std::size_t flat = x + g[0] * (y + g[1] * z);
                const std::array<std::size_t, 3> id{x, y, z};
                for (std::size_t d = 0; d < 3; ++d) {
                    const std::size_t gs = g[d], ls = l[d];
                    const std::uint32_t* o = out.data() + flat * 18 + d * 6;
                    const std::array<std::size_t, 6> expected{id[d] % ls, id[d] / ls, id[d], ls, gs / ls, gs};
                    for (std::size_t k = 0; k < 6; ++k) {
                        ASSERT_EQ(o[k], expected[k])
                            << "item (" << x << "," << y << "," << z << ") dim " << d << " function " << k;
                    }
                }
            }
        }
    }
}

TEST_P(Dialect, IdAndSizeFunctionsFollowOpenClSemantics) {
    const std::vector<std::pair<Sizes, std::optional<Sizes>>> cases = {
        {{37}, std::nullopt},    {{1000}, std::nullopt},       {{256}, Sizes{64}},         {{12, 10}, Sizes{4, 5}},
        {{33, 7}, std::nullopt}, {{6, 10, 9}, Sizes{3, 2, 3}}, {{5, 7, 11}, std::nullopt}, {{1}, Sizes{1}},
    };
    Kernel kernel = ids_program().kernel("ids");
    for (const auto& [global, local] : cases) {
        const std::size_t items = std::accumulate(global.begin(), global.end(), std::size_t{1}, std::multiplies<>());
        auto out = Buffer::allocate(bound_device(), items * 18 * sizeof(std::uint32_t));
        const std::byte poison{0xFF};
        out.fill(queue(), std::span(&poison, 1));
        const PreparedKernel prepared = kernel.prepare(global, local);
        const Sizes used_local = prepared.local_size(bound_device().index());
        if (local) {
            EXPECT_EQ(used_local, *local);
        }
        for (std::size_t d = 0; d < global.size(); ++d) ASSERT_EQ(global[d] % used_local[d], 0u);
        prepared(queue(), out).wait();
        std::vector<std::uint32_t> back(items * 18);
        out.get(queue(), std::span<std::uint32_t>(back));
        SCOPED_TRACE(testing::PrintToString(global));
        check_ids(back, global, used_local);
    }
}

constexpr const char* macros_source = R"(
typedef struct { char ALIGN(8) tag; int64_t value; } tagged_t;

FUNCTION INLINE int64_t mix(int64_t a, int32_t b) { return a * 3 + (int64_t)b; }

KERNEL void group_sums(GLOBAL_MEM int64_t* out, CONSTANT_MEM int32_t* in, int32_t bias)
{
    LOCAL_MEM_DECL int64_t scratch[64];
    const SIZE_T lid = get_local_id(0);
    scratch[lid] = mix((int64_t)in[get_global_id(0)], bias);
    LOCAL_BARRIER;
    for (SIZE_T stride = 32; stride > 0; stride /= 2) {
        if (lid < stride) scratch[lid] += scratch[lid + stride];
        LOCAL_BARRIER;
    }
    if (lid == 0) out[get_group_id(0)] = scratch[0];
}

KERNEL void layout(GLOBAL_MEM int32_t* out)
{
    tagged_t t;
    out[0] = (int32_t)sizeof(tagged_t);
    out[1] = (int32_t)((GLOBAL_MEM char*)0 == 0 ? (int32_t)((char*)&t.value - (char*)&t) : -1);
    out[2] = (int32_t)sizeof(int8_t) + 10 * (int32_t)sizeof(int16_t) + 100 * (int32_t)sizeof(int32_t)
        + 1000 * (int32_t)sizeof(int64_t);
    out[3] = (int32_t)sizeof(uint8_t) + 10 * (int32_t)sizeof(uint16_t) + 100 * (int32_t)sizeof(uint32_t)
        + 1000 * (int32_t)sizeof(uint64_t);
#ifdef KJARNI_FAST_MATH
    out[4] = 1;
#else
    out[4] = 0;
#endif
#if defined(KJARNI_CUDA_API) && !defined(KJARNI_OPENCL_API)
    out[5] = 1;
#elif defined(KJARNI_OPENCL_API) && !defined(KJARNI_CUDA_API)
    out[5] = 2;
#else
    out[5] = 0;
#endif
}

KERNEL void saxpy_norm(GLOBAL_MEM float* y, GLOBAL_MEM const float* x, float a, float b)
{
    const SIZE_T i = get_global_id(0);
    const complex64_t c = COMPLEX64_CTR(x[i], b);
    y[i] = a * x[i] + c.x * c.y + c.y * c.y;
}
)";

TEST_P(Dialect, IntegerGroupReductionWithLocalMemoryIsExact) {
    Program program(bound_device(), macros_source);
    expect_exact_group_sums(program, "default options");
}

// INLINE is `static inline` in OpenCL C 1.2 and later (the compiler drops the helpers a program
// leaves unused before any work on them) and plain `inline` before 1.2, which has no `static`:
// a program with FUNCTION INLINE helpers builds and runs under every language version.
TEST_P(Dialect, InlineHelpersUnderEveryOpenClCVersion) {
    if (GetParam().api == "cuda") GTEST_SKIP() << "-cl-std is OpenCL's";
    for (const char* standard : {"-cl-std=CL1.1", "-cl-std=CL1.2"}) {
        ProgramOptions options;
        options.compiler_options = {standard};
        Program program(bound_device(), macros_source, options);
        expect_exact_group_sums(program, standard);
        if (HasFatalFailure()) return;
    }
}

TEST_P(Dialect, TypesLayoutAndApiMacros) {
    for (bool fast_math : {false, true}) {
        ProgramOptions options;
        options.fast_math = fast_math;
        Program program(bound_device(), macros_source, options);
        auto out = Buffer::allocate(bound_device(), 6 * sizeof(std::int32_t));
        const std::byte poison{0x7F};
        out.fill(queue(), std::span(&poison, 1));
        program.kernel("layout")(queue(), {1}, Sizes{1}, out);
        std::vector<std::int32_t> back(6);
        out.get(queue(), std::span<std::int32_t>(back));
        EXPECT_EQ(back[0], 16);  // char aligned to 8, then an int64
        EXPECT_EQ(back[1], 8);
        EXPECT_EQ(back[2], 1 + 20 + 400 + 8000);
        EXPECT_EQ(back[3], 1 + 20 + 400 + 8000);
        EXPECT_EQ(back[4], fast_math ? 1 : 0);
        EXPECT_EQ(back[5], GetParam().api == "cuda" ? 1 : 2);
    }
}

TEST_P(Dialect, FloatArithmeticWithinRounding) {
    Program program(bound_device(), macros_source);
    const std::size_t n = 10'000;
    const auto x = random_vector<float>(n, -4.0f, 4.0f);
    const float a = random_vector<float>(1, 0.5f, 2.0f)[0];
    const float b = random_vector<float>(1, -1.0f, 1.0f)[0];
    auto x_buffer = Buffer::allocate(bound_device(), n * sizeof(float));
    auto y_buffer = Buffer::allocate(bound_device(), n * sizeof(float));
    x_buffer.set(queue(), std::span<const float>(x));
    const std::byte poison{0xFF};  // NaN pattern
    y_buffer.fill(queue(), std::span(&poison, 1));
    program.kernel("saxpy_norm")(queue(), {n}, std::nullopt, y_buffer, x_buffer, a, b);
    std::vector<float> y(n);
    y_buffer.get(queue(), std::span<float>(y));
    for (std::size_t i = 0; i < n; ++i) {
        // Three products and two sums, each rounded once (or fused): the error is below a few
        // ulp of the largest term, |a x| + |x b| + b^2 < 8 + 4 + 1.
        const double expected = double{a} * x[i] + double{x[i]} * b + double{b} * b;
        const double bound = 4 * std::numeric_limits<float>::epsilon() *
                             (std::abs(double{a} * x[i]) + std::abs(double{x[i]} * b) + double{b} * b);
        ASSERT_NEAR(y[i], expected, bound) << "element " << i;
    }
}

// OpenCL C's constants of <math.h>, <float.h> and <limits.h> through both APIs (NVRTC has no
// standard headers: the CUDA prelude defines them; the cross-check compiles this for CUDA).
constexpr const char* constants_source = R"(
KERNEL void constants(GLOBAL_MEM float* f, GLOBAL_MEM int64_t* i)
{
    f[0] = INFINITY; f[1] = -INFINITY; f[2] = NAN; f[3] = HUGE_VALF; f[4] = MAXFLOAT; f[5] = FLT_MAX;
    f[6] = FLT_MIN; f[7] = FLT_EPSILON; f[8] = M_PI_F; f[9] = M_E_F; f[10] = M_SQRT2_F; f[11] = (float)FLT_MANT_DIG;
    i[0] = INT_MAX; i[1] = INT_MIN; i[2] = UINT_MAX; i[3] = SHRT_MIN; i[4] = UCHAR_MAX; i[5] = LONG_MAX; i[6] = LONG_MIN;
    i[7] = CHAR_BIT;
}
)";

TEST_P(Dialect, MathFloatAndLimitsConstantsOfOpenClC) {
    Program program(bound_device(), constants_source);
    auto f = Buffer::allocate(bound_device(), 12 * sizeof(float));
    auto i = Buffer::allocate(bound_device(), 8 * sizeof(std::int64_t));
    program.kernel("constants")(queue(), {1}, Sizes{1}, f, i);
    std::vector<float> fv(12);
    std::vector<std::int64_t> iv(8);
    f.get(queue(), std::span<float>(fv));
    i.get(queue(), std::span<std::int64_t>(iv));
    const float inf = std::numeric_limits<float>::infinity();
    EXPECT_EQ(fv[0], inf);
    EXPECT_EQ(fv[1], -inf);
    EXPECT_TRUE(std::isnan(fv[2]));
    EXPECT_EQ(fv[3], inf);
    EXPECT_EQ(fv[4], std::numeric_limits<float>::max());
    EXPECT_EQ(fv[5], std::numeric_limits<float>::max());
    EXPECT_EQ(fv[6], std::numeric_limits<float>::min());
    EXPECT_EQ(fv[7], std::numeric_limits<float>::epsilon());
    EXPECT_EQ(fv[8], static_cast<float>(M_PI));
    EXPECT_EQ(fv[9], static_cast<float>(M_E));
    EXPECT_EQ(fv[10], static_cast<float>(M_SQRT2));
    EXPECT_EQ(fv[11], 24.0f);
    EXPECT_EQ(iv[0], std::numeric_limits<std::int32_t>::max());
    EXPECT_EQ(iv[1], std::numeric_limits<std::int32_t>::min());
    EXPECT_EQ(iv[2], std::numeric_limits<std::uint32_t>::max());
    EXPECT_EQ(iv[3], std::numeric_limits<std::int16_t>::min());
    EXPECT_EQ(iv[4], 255);
    EXPECT_EQ(iv[5], std::numeric_limits<std::int64_t>::max());
    EXPECT_EQ(iv[6], std::numeric_limits<std::int64_t>::min());
    EXPECT_EQ(iv[7], 8);
}

TEST_P(Dialect, ReductionKernelWithInfiniteNeutral) {
    // The max of random floats with the neutral -INFINITY (written as OpenCL C spells it).
    const auto values = random_vector<float>(1000, -50.0f, 50.0f);
    const Array x = Array::from_host(queue(), std::span<const float>(values), {values.size()});
    const ReductionKernel max_kernel(dtypes::float32, "-INFINITY", "fmax(a, b)", "x[i]", "const float *x");
    const float got = max_kernel(queue(), {x}).get(queue()).to_vector<float>().at(0);
    EXPECT_EQ(got, *std::max_element(values.begin(), values.end()));
}

KJARNI_INSTANTIATE_DEVICE_TESTS(Dialect);

}  // namespace
}  // namespace kjarni::test
