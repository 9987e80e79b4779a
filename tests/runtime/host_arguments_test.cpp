// PyCUDA's In / Out / InOut (host ranges staged through temporary buffers around a launch) and
// pygpu's register_dtype (a struct dtype rendered under the user's C name). One program serves
// both: its kernel takes the registered struct through In, writes through Out, updates through
// InOut.

#include <gtest/gtest.h>

#include <array>
#include <string>
#include <vector>

#include "support/argument_errors.hpp"
#include "support/random_data.hpp"
#include "support/suite_programs.hpp"
#include "support/test_devices.hpp"

namespace kjarni::test {
namespace {

struct Pair {
    std::int32_t a;
    float b;
};

const DType& pair_dtype() {
    static const DType dtype = [] {
        DType made = DType::struct_({{"a", dtypes::int32}, {"b", dtypes::float32}}, {.aligned = true});
        register_dtype(made, "kjarni_test_pair");
        return made;
    }();
    return dtype;
}

// `pairs` is declared with the registered name, `same` through ${T}: one type.
constexpr const char* combine_source = R"(
KERNEL void combine(GLOBAL_MEM float* out, GLOBAL_MEM int32_t* acc, GLOBAL_MEM const kjarni_test_pair* pairs,
                    GLOBAL_MEM const ${T}* same)
{
    const SIZE_T i = get_global_id(0);
    out[i] = pairs[i].b * (float)same[i].a;
    acc[i] += pairs[i].a;
}
)";

class HostArguments : public DeviceTest {
protected:
    static SuitePrograms& programs() {
        static auto* programs = new SuitePrograms;
        return *programs;
    }
    static void TearDownTestSuite() { programs().clear(); }
    const Program& program() {
        return programs().get(context(), [&] {
            return Program(bound_device(), TemplateSource{combine_source}, {}, {{"T", pair_dtype()}});
        });
    }

    static std::vector<Pair> random_pairs(std::size_t n) {
        const auto as = random_vector<std::int32_t>(n, -1000, 1000);
        const auto bs = random_vector<float>(n, -10.0f, 10.0f);
        std::vector<Pair> pairs(n);
        for (std::size_t i = 0; i < n; ++i) pairs[i] = {as[i], bs[i]};
        return pairs;
    }

    // One launch through the wrappers, checked against the CPU.
    void check_launch(std::optional<MemoryPool> pool) {
        const std::size_t n = 1500;
        const std::vector<Pair> pairs = random_pairs(n);
        std::vector<float> out(n, -1.0f);
        std::vector<std::int32_t> acc = random_vector<std::int32_t>(n, -100000, 100000);
        const std::vector<std::int32_t> acc_before = acc;
        program().kernel("combine")(queue(), {n}, std::nullopt, Out(out, pool), InOut(acc, pool), In(pairs, pool),
                                    In(std::span<const Pair>(pairs), pool));
        for (std::size_t i = 0; i < n; ++i) {
            ASSERT_EQ(out[i], pairs[i].b * static_cast<float>(pairs[i].a)) << i;
            ASSERT_EQ(acc[i], acc_before[i] + pairs[i].a) << i;
        }
    }
};

TEST_P(HostArguments, CopiedInAndOutAroundTheLaunch) { check_launch(std::nullopt); }

TEST_P(HostArguments, TemporaryBuffersFromAPool) {
    const MemoryPool pool;
    check_launch(pool);
    check_launch(pool);
    // Every temporary went back to the pool; the second launch reused the first one's blocks.
    EXPECT_EQ(pool.active_blocks(), 0u);
    EXPECT_EQ(pool.held_blocks(), 4u);
}

TEST_P(HostArguments, PreparedAndEnqueuedLaunchesStageToo) {
    const std::size_t n = 256;
    const std::vector<Pair> pairs = random_pairs(n);
    std::vector<float> out(n);
    std::vector<std::int32_t> acc(n, 5);
    const PreparedKernel prepared = program().kernel("combine").prepare({n});
    prepared.enqueue(queue(), Out(out), InOut(acc), In(pairs), In(pairs));
    for (std::size_t i = 0; i < n; ++i) {
        ASSERT_EQ(out[i], pairs[i].b * static_cast<float>(pairs[i].a)) << i;
        ASSERT_EQ(acc[i], 5 + pairs[i].a) << i;
    }
    // A device buffer and host ranges mix in one launch.
    Buffer device_out = Buffer::allocate(bound_device(), n * sizeof(float));
    prepared(queue(), device_out, InOut(acc), In(pairs), In(pairs));
    std::vector<float> from_device(n);
    device_out.get(queue(), std::span<float>(from_device));
    EXPECT_EQ(from_device, out);
    std::vector<float> none;
    EXPECT_THROW(prepared(queue(), Out(none), InOut(acc), In(pairs), In(pairs)), ArgumentError);
}

TEST_P(HostArguments, RegisteredNameIsInTheSource) {
    const std::string& source = program().source(bound_device());
    EXPECT_NE(source.find("} kjarni_test_pair;"), std::string::npos) << source;
    EXPECT_EQ(registered_dtype_name(pair_dtype()), std::optional<std::string>("kjarni_test_pair"));
}

TEST(RegisterDType, BadNamesAndDuplicatesAreTyped) {
    const DType dtype = pair_dtype();
    EXPECT_NO_THROW(register_dtype(dtype, "kjarni_test_pair"));  // the same pair again
    // An equal dtype made anew is the same dtype.
    EXPECT_EQ(registered_dtype_name(DType::struct_({{"a", dtypes::int32}, {"b", dtypes::float32}}, {.aligned = true})),
              std::optional<std::string>("kjarni_test_pair"));
    const DType other = DType::struct_({{"x", dtypes::float64}, {"y", dtypes::uint8}}, {.aligned = true});
    EXPECT_EQ(registered_dtype_name(other), std::nullopt);
    EXPECT_EQ(registered_dtype_name(dtypes::float32), std::nullopt);
    auto argument_of = [](const DType& d, const std::string& name) {
        return argument_named_by([&] { register_dtype(d, name); });
    };
    EXPECT_EQ(argument_of(other, "kjarni_test_pair"), "c_name");  // another dtype's name
    EXPECT_EQ(argument_of(dtype, "kjarni_other_name"), "dtype");  // a second name
    EXPECT_EQ(argument_of(dtypes::int32, "my_int"), "dtype");     // not a struct
    for (const char* bad : {"", "1pair", "pair-t", "pair t", "a.b", "float", "int32_t", "struct", "__x", "_Pair",
                            "KERNEL", "complex64_t", "half", "uint"}) {
        EXPECT_EQ(argument_of(other, bad), "c_name") << bad;
    }
    EXPECT_EQ(registered_dtype_name(other), std::nullopt);  // nothing registered by the failures
    EXPECT_NO_THROW(register_dtype(other, "kjarni_test_other_t"));
    EXPECT_EQ(registered_dtype_name(other), std::optional<std::string>("kjarni_test_other_t"));
}

}  // namespace

KJARNI_INSTANTIATE_DEVICE_TESTS(HostArguments);

}  // namespace kjarni::test
