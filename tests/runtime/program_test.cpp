// Programs and kernels: compilation options, kept files, kernel lookup, attributes, multi-device
// launches, and every error a launch can meet.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

#include "support/random_data.hpp"
#include "support/test_devices.hpp"

namespace kjarni::test {
namespace {

constexpr const char* scale_source = R"(
KERNEL void scale(GLOBAL_MEM float* y, GLOBAL_MEM const float* x, float a, unsigned int n)
{
    const SIZE_T i = get_global_id(0);
    if (i < n) y[i] = a * x[i];
}
KERNEL void fill_value(GLOBAL_MEM int32_t* y)
{
    y[get_global_id(0)] = VALUE;
}
)";

class Programs : public DeviceTest {
protected:
    Program& scale_program() {
        if (!program_) {
            ProgramOptions options;
            options.compiler_options = {"-DVALUE=7"};
            program_.emplace(bound_device(), scale_source, options);
        }
        return *program_;
    }

private:
    std::optional<Program> program_;
};

TEST_P(Programs, ScaleByAPowerOfTwoIsExact) {
    const std::size_t n = 4000;
    const auto x = random_vector<float>(n, -100.0f, 100.0f);
    auto xb = Buffer::allocate(bound_device(), n * sizeof(float));
    auto yb = Buffer::allocate(bound_device(), (n + 64) * sizeof(float));
    xb.set(queue(), std::span<const float>(x));
    const std::byte poison{0xFF};
    yb.fill(queue(), std::span(&poison, 1));
    const Event done =
        scale_program().kernel("scale")(queue(), {n}, std::nullopt, yb, xb, 0.25f, static_cast<unsigned>(n));
    done.wait();
    EXPECT_TRUE(done.is_complete());
    std::vector<float> y(n + 64);
    yb.get(queue(), std::span<float>(y));
    for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(y[i], x[i] * 0.25f) << i;
    for (std::size_t i = n; i < n + 64; ++i) ASSERT_TRUE(std::isnan(y[i])) << "written past the end at " << i;
}

TEST_P(Programs, PreparedKernelRunsManyTimesAndOnSubRegions) {
    const std::size_t n = 1024;
    const auto x = random_vector<float>(2 * n, -1.0f, 1.0f);
    auto xb = Buffer::allocate(bound_device(), 2 * n * sizeof(float));
    auto yb = Buffer::allocate(bound_device(), n * sizeof(float));
    xb.set(queue(), std::span<const float>(x));
    const PreparedKernel prepared = scale_program().kernel("scale").prepare({n});
    EXPECT_EQ(prepared.global_size(bound_device().index()), Sizes{n});
    // The second half of x, as a sub-region (its offset, 4 KiB, is aligned for every device).
    const Buffer second_half = xb.get_sub_region(n * sizeof(float), n * sizeof(float));
    for (int round = 0; round < 3; ++round) prepared.enqueue(queue(), yb, second_half, 2.0f, static_cast<unsigned>(n));
    std::vector<float> y(n);
    yb.get(queue(), std::span<float>(y));
    for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(y[i], 2.0f * x[n + i]) << i;
}

// OpenCL launches set only the arguments that differ from the kernel's previous launch: every
// change of a buffer, a region, a scalar, or a buffer made where a released one was, must reach
// the kernel.
TEST_P(Programs, RelaunchesSeeEveryChangedArgument) {
    const std::size_t n = 1024;
    const auto x = random_vector<float>(2 * n, -100.0f, 100.0f);
    auto xb = Buffer::allocate(bound_device(), 2 * n * sizeof(float));
    xb.set(queue(), std::span<const float>(x));
    const Buffer first_half = xb.get_sub_region(0, n * sizeof(float));
    const Buffer second_half = xb.get_sub_region(n * sizeof(float), n * sizeof(float));  // 4 KiB: aligned everywhere
    auto y1 = Buffer::allocate(bound_device(), n * sizeof(float));
    auto y2 = Buffer::allocate(bound_device(), n * sizeof(float));
    const PreparedKernel prepared = scale_program().kernel("scale").prepare({n});
    // Launches y = a * x (a power of two: exact), each checked against the host.
    const auto launch_and_check = [&](const Buffer& y, const Buffer& from, std::size_t x_offset, float a,
                                      const char* what) {
        const std::byte poison{0xFF};
        y.fill(queue(), std::span(&poison, 1));
        prepared.enqueue(queue(), y, from, a, static_cast<unsigned>(n));
        std::vector<float> got(n);
        y.get(queue(), std::span<float>(got));
        for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(got[i], a * x[x_offset + i]) << what << ", element " << i;
    };
    launch_and_check(y1, first_half, 0, 2.0f, "first launch");
    launch_and_check(y1, first_half, 0, 2.0f, "the same arguments again");
    launch_and_check(y1, first_half, 0, 0.25f, "another scalar");
    launch_and_check(y2, first_half, 0, 0.25f, "another output buffer");
    launch_and_check(y2, second_half, n, 0.25f, "another region of the input");
    launch_and_check(y2, xb, 0, 0.25f, "the whole input (its first half read)");
    for (int round = 0; round < 4; ++round) {
        // A buffer made where a released one was may get the released one's handle.
        auto made = Buffer::allocate(bound_device(), n * sizeof(float));
        launch_and_check(made, second_half, n, 4.0f, "a buffer made after one was released");
    }
}

// A bound kernel launches the arguments it was given, checked once, as often as asked, reading
// what the buffers hold at each launch.
TEST_P(Programs, BoundKernelsLaunchTheirArgumentsAgain) {
    const std::size_t n = 1024;
    auto xb = Buffer::allocate(bound_device(), n * sizeof(float));
    auto yb = Buffer::allocate(bound_device(), n * sizeof(float));
    const PreparedKernel prepared = scale_program().kernel("scale").prepare({n});
    const BoundKernel doubled = prepared.bind(queue(), yb, xb, 2.0f, static_cast<unsigned>(n));
    for (int round = 0; round < 3; ++round) {
        const auto x = random_vector<float>(n, -100.0f, 100.0f);
        xb.set(queue(), std::span<const float>(x));
        if (round == 1) doubled().wait();
        else doubled.enqueue();
        std::vector<float> y(n);
        yb.get(queue(), std::span<float>(y));
        for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(y[i], 2.0f * x[i]) << "round " << round << ", element " << i;
    }
    EXPECT_EQ(doubled.queue().device().index(), queue().device().index());
    // Checked when bound: a wrong argument never reaches a launch.
    EXPECT_THROW(prepared.bind(queue(), yb, xb, 2.0, static_cast<unsigned>(n)), ArgumentError);  // a double for a float
    EXPECT_THROW(prepared.bind(queue(), yb, xb, 2.0f), ArgumentError);                           // too few
}

// Launches that passed the checks do not vouch for the next: a buffer of another context or a
// scalar of another type is refused however often the same kernel launched before.
TEST_P(Programs, LaunchesAfterGoodOnesAreCheckedAsTheFirst) {
    const std::size_t n = 256;
    auto xb = Buffer::allocate(bound_device(), n * sizeof(float));
    auto yb = Buffer::allocate(bound_device(), n * sizeof(float));
    const PreparedKernel prepared = scale_program().kernel("scale").prepare({n});
    for (int round = 0; round < 3; ++round) prepared.enqueue(queue(), yb, xb, 2.0f, static_cast<unsigned>(n));
    const Context other = Context::from_devices(GetParam().device());
    const Buffer foreign = Buffer::allocate(other.devices()[0], n * sizeof(float));
    // The argument an error names ("argument 1"; OpenCL adds the parameter's name, which CUDA's
    // driver does not tell).
    const auto refused_as = [&](auto&& launch) -> std::string {
        try {
            launch();
        } catch (const ArgumentError& e) {
            return e.argument().substr(0, std::string_view("argument 0").size());
        }
        return "launched";
    };
    EXPECT_EQ(refused_as([&] { prepared.enqueue(queue(), foreign, xb, 2.0f, static_cast<unsigned>(n)); }),
              "argument 0");
    EXPECT_EQ(refused_as([&] { prepared(queue(), yb, foreign, 2.0f, static_cast<unsigned>(n)); }), "argument 1");
    EXPECT_EQ(refused_as([&] { prepared.enqueue(queue(), yb, xb, 2.0, static_cast<unsigned>(n)); }), "argument 2");
    // And right arguments still launch.
    const auto x = random_vector<float>(n, -100.0f, 100.0f);
    xb.set(queue(), std::span<const float>(x));
    prepared.enqueue(queue(), yb, xb, 0.5f, static_cast<unsigned>(n));
    std::vector<float> y(n);
    yb.get(queue(), std::span<float>(y));
    for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(y[i], 0.5f * x[i]) << i;
}

TEST_P(Programs, OptionsAreCompiledIn) {
    auto out = Buffer::allocate(bound_device(), 64 * sizeof(std::int32_t));
    scale_program().kernel("fill_value")(queue(), {64}, std::nullopt, out);
    std::vector<std::int32_t> back(64);
    out.get(queue(), std::span<std::int32_t>(back));
    EXPECT_EQ(back, std::vector<std::int32_t>(64, 7));
    // Another value is another program (the caches key on the options).
    ProgramOptions options;
    options.compiler_options = {"-DVALUE=-3"};
    Program other(bound_device(), scale_source, options);
    other.kernel("fill_value")(queue(), {64}, std::nullopt, out);
    out.get(queue(), std::span<std::int32_t>(back));
    EXPECT_EQ(back, std::vector<std::int32_t>(64, -3));
}

TEST_P(Programs, SourceAttributesAndKeptFiles) {
    const std::string& source = scale_program().source(bound_device());
    EXPECT_NE(source.find("KERNEL void scale"), std::string::npos);
    EXPECT_NE(source.find(GetParam().api == "cuda" ? "KJARNI_CUDA_API" : "KJARNI_OPENCL_API"), std::string::npos);
    EXPECT_FALSE(scale_program().kept_files(bound_device()).has_value());
    const Kernel kernel = scale_program().kernel("scale");
    EXPECT_EQ(kernel.name(), "scale");
    const KernelAttributes attributes = kernel.attributes(bound_device());
    EXPECT_GT(attributes.max_total_local_size, 0u);
    EXPECT_LE(attributes.max_total_local_size, bound_device().params().max_total_local_size);
    EXPECT_EQ(kernel.max_total_local_sizes(), std::vector<std::size_t>{attributes.max_total_local_size});

    ProgramOptions keep;
    keep.keep = true;
    keep.compiler_options = {"-DVALUE=1"};
    Program kept(bound_device(), scale_source, keep);
    const auto dir = kept.kept_files(bound_device());
    ASSERT_TRUE(dir.has_value());
    EXPECT_TRUE(std::filesystem::exists(*dir / "build.log"));
    std::size_t files = 0;
    for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator(*dir)) ++files;
    EXPECT_GE(files, 3u);  // source, log, binary
    std::filesystem::remove_all(*dir);
}

TEST_P(Programs, NoPreludeCompilesTheSourceAsItIs) {
    ProgramOptions options;
    options.no_prelude = true;
    const std::string native = GetParam().api == "cuda"
                                   ? "extern \"C\" __global__ void k(int* x) { x[threadIdx.x] = 5; }"
                                   : "__kernel void k(__global int* x) { x[get_global_id(0)] = 5; }";
    Program program(bound_device(), native, options);
    EXPECT_EQ(program.source(bound_device()).find("KERNEL"), std::string::npos);
    auto out = Buffer::allocate(bound_device(), 8 * sizeof(int));
    program.kernel("k")(queue(), {8}, Sizes{8}, out);
    std::vector<int> back(8);
    out.get(queue(), std::span<int>(back));
    EXPECT_EQ(back, std::vector<int>(8, 5));
}

TEST_P(Programs, UnknownKernelNameListsTheKernels) {
    try {
        scale_program().kernel("scael");
        FAIL() << "no exception";
    } catch (const ArgumentError& e) {
        EXPECT_EQ(e.argument(), "name");
        EXPECT_NE(std::string(e.what()).find("scael"), std::string::npos) << e.what();
    }
}

TEST_P(Programs, BadSourceRaisesCompileErrorWithLogAndSource) {
    const std::string bad = "KERNEL void broken(GLOBAL_MEM float* x)\n{\n    x[0] = undeclared_name;\n}\n";
    try {
        Program program(bound_device(), bad);
        FAIL() << "no exception";
    } catch (const CompileError& e) {
        EXPECT_EQ(e.api(), GetParam().api == "cuda" ? "CUDA" : "OpenCL");
        EXPECT_NE(e.log().find("undeclared_name"), std::string::npos) << e.log();
        EXPECT_NE(e.numbered_source().find("x[0] = undeclared_name;"), std::string::npos);
        EXPECT_NE(std::string(e.what()).find("undeclared_name"), std::string::npos);
    }
}

TEST_P(Programs, SizesBeyondTheLimitsNameBothLimits) {
    const Kernel kernel = scale_program().kernel("scale");
    const std::size_t too_many = bound_device().params().max_total_local_size * 2;
    try {
        kernel.prepare({too_many * 4}, Sizes{too_many});
        FAIL() << "no exception";
    } catch (const ArgumentError& e) {
        EXPECT_EQ(e.argument(), "local_size");
        EXPECT_NE(std::string(e.what()).find(std::to_string(too_many)), std::string::npos) << e.what();
    }
    EXPECT_THROW(kernel.prepare({100}, Sizes{7}), ArgumentError);     // 7 does not divide 100
    EXPECT_THROW(kernel.prepare({1, 1, 1, 1}), ArgumentError);        // four dimensions
    EXPECT_THROW(kernel.prepare({0}), ArgumentError);                 // empty
    EXPECT_THROW(kernel.prepare({64, 64}, Sizes{8}), ArgumentError);  // dimension counts differ
    const std::size_t too_wide = bound_device().params().max_local_sizes[0] + 1;
    EXPECT_THROW(kernel.prepare({too_wide}, Sizes{too_wide}), ArgumentError);
}

TEST_P(Programs, WrongArgumentsAreRefusedBeforeLaunch) {
    const PreparedKernel prepared = scale_program().kernel("scale").prepare({64});
    auto y = Buffer::allocate(bound_device(), 64 * sizeof(float));
    auto x = Buffer::allocate(bound_device(), 64 * sizeof(float));
    try {
        prepared(queue(), y, x, 1.0f);  // one missing
        FAIL() << "no exception";
    } catch (const ArgumentError& e) {
        EXPECT_EQ(e.argument(), "args");
        EXPECT_NE(std::string(e.what()).find("takes 4 arguments, 3 given"), std::string::npos) << e.what();
    }
    // A scalar where a buffer goes.
    EXPECT_THROW(prepared(queue(), y, 1.0f, 1.0f, 64u), ArgumentError);
    // A double (8 bytes) where a float (4 bytes) goes.
    try {
        prepared(queue(), y, x, 1.0, 64u);
        FAIL() << "no exception";
    } catch (const ArgumentError& e) {
        EXPECT_NE(std::string(e.what()).find("argument 2"), std::string::npos) << e.what();
    }
    if (GetParam().api == "opencl") {
        // OpenCL reports pointer parameters: a buffer where a scalar goes is caught too. (CUDA only
        // knows sizes, and a pointer is as large as this unsigned int... it is not: 8 vs 4.)
        EXPECT_THROW(prepared(queue(), y, x, 1.0f, x), ArgumentError);
    } else {
        EXPECT_THROW(prepared(queue(), y, x, 1.0f, x), ArgumentError);  // 8-byte pointer for a 4-byte uint
    }
}

TEST_P(Programs, BufferOfAnotherContextOrDeviceIsRefused) {
    const PreparedKernel prepared = scale_program().kernel("scale").prepare({64});
    const Context other = Context::from_devices(GetParam().device());
    Queue other_queue(other.devices()[0]);
    auto y = Buffer::allocate(bound_device(), 64 * sizeof(float));
    EXPECT_THROW(prepared(other_queue, y, y, 1.0f, 64u), ArgumentError);
}

TEST_P(Programs, ConstantArraysOnOpenClAreUnsupported) {
    if (GetParam().api != "opencl") GTEST_SKIP() << "OpenCL only";
    ProgramOptions options;
    options.constant_arrays["coeffs"] = {"float", 4, 16};
    EXPECT_THROW(Program(bound_device(), scale_source, options), UnsupportedError);
}

TEST_P(Programs, ConstantArraysOnCuda) {
    if (GetParam().api != "cuda") GTEST_SKIP() << "CUDA only";
    ProgramOptions options;
    options.constant_arrays["coeffs"] = {"float", 4, 16};
    Program program(bound_device(), R"(
KERNEL void use(GLOBAL_MEM float* y) { const SIZE_T i = get_global_id(0); y[i] = coeffs[i] * 2.0f; }
)",
                    options);
    const auto values = random_vector<float>(16, -10.0f, 10.0f);
    program.set_constant_array(queue(), "coeffs", std::span<const float>(values));
    auto y = Buffer::allocate(bound_device(), 16 * sizeof(float));
    program.kernel("use")(queue(), {16}, std::nullopt, y);
    std::vector<float> back(16);
    y.get(queue(), std::span<float>(back));
    for (std::size_t i = 0; i < 16; ++i) EXPECT_EQ(back[i], values[i] * 2.0f);
    // From a buffer, and with a wrong size.
    const auto more = random_vector<float>(16, -10.0f, 10.0f);
    auto source = Buffer::allocate(bound_device(), 16 * sizeof(float));
    source.set(queue(), std::span<const float>(more));
    program.set_constant_array(queue(), "coeffs", source);
    program.kernel("use")(queue(), {16}, std::nullopt, y);
    y.get(queue(), std::span<float>(back));
    for (std::size_t i = 0; i < 16; ++i) EXPECT_EQ(back[i], more[i] * 2.0f);
    EXPECT_THROW(program.set_constant_array(queue(), "coeffs", std::span<const float>(values).first(3)), ArgumentError);
    EXPECT_THROW(program.set_constant_array(queue(), "nothing", std::span<const float>(values)), ArgumentError);
}

KJARNI_INSTANTIATE_DEVICE_TESTS(Programs);

TEST(MultiDevicePrograms, OneLaunchOnAMultiQueueWithPerDeviceArguments) {
    Context* context = shared_multi_device_context();
    if (context == nullptr) GTEST_SKIP() << "no platform with two selected devices";
    const BoundMultiDevice devices = context->devices();
    ProgramOptions options;
    options.compiler_options = {"-DVALUE=1"};
    Program program(devices, scale_source, options);
    const MultiQueue mq = MultiQueue::on_devices(devices);
    const std::size_t n = 512;
    PerDevice<Buffer> xs, ys;
    std::vector<std::vector<float>> inputs;
    for (std::size_t i = 0; i < devices.size(); ++i) {
        inputs.push_back(random_vector<float>(n, -5.0f, 5.0f));
        xs.values.push_back(Buffer::allocate(devices[i], n * sizeof(float)));
        ys.values.push_back(Buffer::allocate(devices[i], n * sizeof(float)));
        xs.values.back().set(mq.queues()[i], std::span<const float>(inputs.back()));
    }
    const auto events = program.kernel("scale").prepare({n})(mq, ys, xs, 4.0f, static_cast<unsigned>(n));
    ASSERT_EQ(events.size(), devices.size());
    for (const Event& e : events) e.wait();
    for (std::size_t i = 0; i < devices.size(); ++i) {
        std::vector<float> back(n);
        ys.values[i].get(mq.queues()[i], std::span<float>(back));
        for (std::size_t k = 0; k < n; ++k) ASSERT_EQ(back[k], 4.0f * inputs[i][k]) << "device " << i;
    }
    // A per-device argument without a value for every device is refused.
    PerDevice<Buffer> short_list{{ys.values[0]}};
    EXPECT_THROW(program.kernel("scale").prepare({n})(mq, short_list, xs, 1.0f, static_cast<unsigned>(n)),
                 ArgumentError);
    // Launched on the first device already, the same argument types with a buffer of the other
    // device are still refused.
    const PreparedKernel both = program.kernel("scale").prepare({n});
    both.enqueue(mq.queues()[0], ys.values[0], xs.values[0], 1.0f, static_cast<unsigned>(n));
    EXPECT_THROW(both.enqueue(mq.queues()[0], ys.values[0], xs.values[1], 1.0f, static_cast<unsigned>(n)),
                 ArgumentError);
    // Prepared for one device only: launching on the other is refused.
    const PreparedKernel only_first = program.kernel("scale").prepare({{devices[0].index(), Sizes{n}}});
    EXPECT_THROW(only_first(mq.queues()[1], ys.values[1], xs.values[1], 1.0f, static_cast<unsigned>(n)), ArgumentError);
}

}  // namespace
}  // namespace kjarni::test

namespace kjarni::test {
namespace {

class ProgramShapes : public DeviceTest {};

TEST_P(ProgramShapes, KernelWithoutParametersCompilesAndRuns) {
    Program program(bound_device(),
                    "KERNEL void nothing() {}\nKERNEL void one(GLOBAL_MEM int32_t* x) { x[0] = 42; }\n");
    Queue queue(bound_device());
    program.kernel("nothing")(queue, {32}, Sizes{32}).wait();
    auto x = Buffer::allocate(bound_device(), sizeof(std::int32_t));
    program.kernel("one")(queue, {1}, Sizes{1}, x);
    std::int32_t back = 0;
    x.get(queue, std::span(&back, 1));
    EXPECT_EQ(back, 42);
}

KJARNI_INSTANTIATE_DEVICE_TESTS(ProgramShapes);

}  // namespace
}  // namespace kjarni::test

namespace kjarni::test {
namespace {

class DynamicLocalMemory : public DeviceTest {};

// Each group stages its slice in dynamically sized local memory and writes it back reversed.
constexpr const char* reverse_source = R"(
KERNEL void reverse_groups(GLOBAL_MEM float* y, GLOBAL_MEM const float* x)
{
#ifdef KJARNI_CUDA_API
    LOCAL_MEM_DYNAMIC float staged[];
    const SIZE_T lid = get_local_id(0), n = get_local_size(0), base = get_group_id(0) * n;
    staged[lid] = x[base + lid];
    LOCAL_BARRIER;
    y[base + lid] = staged[n - 1 - lid];
#endif
}
)";

TEST_P(DynamicLocalMemory, SizedAtPrepareTime) {
    Program program(bound_device(), reverse_source);
    const Kernel kernel = program.kernel("reverse_groups");
    const std::size_t local = 128, groups = 9, n = local * groups;
    if (GetParam().api != "cuda") {
        // OpenCL has no such memory (reference: LOCAL_MEM_DYNAMIC is CUDA only): refused at launch.
        Queue queue(bound_device());
        auto buffer = Buffer::allocate(bound_device(), n * sizeof(float));
        EXPECT_THROW(kernel.prepare({n}, Sizes{local}, local * sizeof(float))(queue, buffer, buffer), UnsupportedError);
        return;
    }
    Queue queue(bound_device());
    const auto x = random_vector<float>(n, -1.0f, 1.0f);
    auto xb = Buffer::allocate(bound_device(), n * sizeof(float));
    auto yb = Buffer::allocate(bound_device(), n * sizeof(float));
    xb.set(queue, std::span<const float>(x));
    kernel.prepare({n}, Sizes{local}, local * sizeof(float))(queue, yb, xb);
    std::vector<float> y(n);
    yb.get(queue, std::span<float>(y));
    for (std::size_t g = 0; g < groups; ++g) {
        for (std::size_t i = 0; i < local; ++i) ASSERT_EQ(y[g * local + i], x[g * local + local - 1 - i]);
    }
    // Beyond the 48 KiB every kernel may use, kjarni opts in up to the device's limit (227 KiB on
    // sm_90): the same kernel with 100 KiB more than it touches still runs and reverses correctly.
    const std::size_t limit = kernel.attributes(bound_device()).max_dynamic_local_bytes;
    EXPECT_GE(limit, 48u * 1024 - kernel.attributes(bound_device()).shared_bytes);
    if (limit >= 150u * 1024) {
        std::vector<float> z(n);
        auto zb = Buffer::allocate(bound_device(), n * sizeof(float));
        kernel.prepare({n}, Sizes{local}, 150u * 1024)(queue, zb, xb);
        zb.get(queue, std::span<float>(z));
        EXPECT_EQ(z, y);
    }
    // More than the device has is refused when preparing, naming what is left.
    EXPECT_THROW(kernel.prepare({n}, Sizes{local}, limit + 1), ArgumentError);
}

KJARNI_INSTANTIATE_DEVICE_TESTS(DynamicLocalMemory);

}  // namespace
}  // namespace kjarni::test

namespace kjarni::test {
namespace {

class IncludeDirectories : public DeviceTest {};

TEST_P(IncludeDirectories, HeadersAreFoundAndNotServedStaleFromTheCache) {
    const auto dir = std::filesystem::temp_directory_path() /
                     ("kjarni-include-" + std::to_string(random_vector<std::uint32_t>(1, 0, 1u << 30)[0]));
    std::filesystem::create_directories(dir);
    const char* source = "#include \"answer.h\"\nKERNEL void answer(GLOBAL_MEM int32_t* y) { y[0] = ANSWER; }\n";
    ProgramOptions options;
    options.include_dirs = {dir.string()};
    Queue queue(bound_device());
    auto y = Buffer::allocate(bound_device(), sizeof(std::int32_t));
    std::int32_t back = 0;
    for (const int answer : {41, 42}) {
        // The same source and options with a changed header: the result must follow the header.
        std::ofstream(dir / "answer.h") << "#define ANSWER " << answer << "\n";
        Program program(bound_device(), source, options);
        program.kernel("answer")(queue, {1}, Sizes{1}, y);
        y.get(queue, std::span(&back, 1));
        EXPECT_EQ(back, answer);
    }
    std::filesystem::remove_all(dir);
}

KJARNI_INSTANTIATE_DEVICE_TESTS(IncludeDirectories);

}  // namespace
}  // namespace kjarni::test
