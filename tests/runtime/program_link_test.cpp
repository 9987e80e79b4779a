// Program::link: units compiled on their own and linked into one program, where a kernel of one
// unit calls a function another unit defines (cuLink on CUDA, clCompileProgram + clLinkProgram on
// OpenCL 1.2+); a function defined nowhere is a LinkError carrying the linker's log.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "program/cache/disk_cache.hpp"
#include "support/random_data.hpp"
#include "support/suite_programs.hpp"
#include "support/test_devices.hpp"

namespace kjarni::test {
namespace {

// The kernel's unit declares `mix` and `offset`; the second unit defines them (and uses a
// helper of its own, to show that a unit's internal calls survive the link).
constexpr const char* caller_unit = R"(
FUNCTION int32_t mix(int32_t x, int32_t a);
FUNCTION int32_t offset(void);

KERNEL void apply(GLOBAL_MEM int32_t* y, GLOBAL_MEM const int32_t* x, int32_t a)
{
    const SIZE_T i = get_global_id(0);
    y[i] = mix(x[i], a) + offset();
}
)";

constexpr const char* callee_unit = R"(
FUNCTION int32_t halve(int32_t x) { return x / 2; }
FUNCTION int32_t mix(int32_t x, int32_t a) { return a * x - halve(x); }
FUNCTION int32_t offset(void) { return 17; }
)";

// Declares a function no unit defines.
constexpr const char* orphan_unit = R"(
FUNCTION int32_t nowhere_defined_kjarni(int32_t x);

KERNEL void orphan(GLOBAL_MEM int32_t* y)
{
    const SIZE_T i = get_global_id(0);
    y[i] = nowhere_defined_kjarni((int32_t)i);
}
)";

class ProgramLink : public DeviceTest {
protected:
    // Linked once per device and shared by the tests (linking costs two compilations).
    static SuitePrograms& programs() {
        static auto* programs = new SuitePrograms;
        return *programs;
    }
    static void TearDownTestSuite() { programs().clear(); }
    const Program& linked() {
        return programs().get(context(), [&] {
            return Program::link(bound_device(), {LinkInput::source(caller_unit), LinkInput::source(callee_unit)});
        });
    }
};

TEST_P(ProgramLink, UnitCallsAnotherUnitsFunction) {
    const Program& program = linked();
    EXPECT_EQ(program.kernel_names(), std::vector<std::string>{"apply"});
    const std::size_t n = 3000;
    const auto x = random_vector<std::int32_t>(n, -40000, 40000);
    const std::int32_t a = random_vector<std::int32_t>(1, -500, 500)[0];
    Buffer xs = Buffer::allocate(bound_device(), n * 4);
    Buffer ys = Buffer::allocate(bound_device(), n * 4);
    xs.set(queue(), std::span<const std::int32_t>(x));
    program.kernel("apply")(queue(), {n}, std::nullopt, ys, xs, a);
    std::vector<std::int32_t> y(n);
    ys.get(queue(), std::span<std::int32_t>(y));
    for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(y[i], a * x[i] - x[i] / 2 + 17) << i;
    // The linked code comes out as a binary, which loads back as an ordinary program.
    const std::vector<std::byte> binary = program.binary(bound_device());
    ASSERT_FALSE(binary.empty());
    const Program loaded = Program::from_binary(bound_device(), binary);
    loaded.kernel("apply")(queue(), {n}, std::nullopt, ys, xs, a);
    std::vector<std::int32_t> again(n);
    ys.get(queue(), std::span<std::int32_t>(again));
    EXPECT_EQ(again, y);
}

// Runs `apply` of a linked program on fresh random data and checks it against the CPU.
void check_apply(const Program& program, const BoundDevice& device, const Queue& queue) {
    const std::size_t n = 2500;
    const auto x = random_vector<std::int32_t>(n, -40000, 40000);
    const std::int32_t a = random_vector<std::int32_t>(1, -500, 500)[0];
    Buffer xs = Buffer::allocate(device, n * 4);
    Buffer ys = Buffer::allocate(device, n * 4);
    xs.set(queue, std::span<const std::int32_t>(x));
    program.kernel("apply")(queue, {n}, std::nullopt, ys, xs, a);
    std::vector<std::int32_t> y(n);
    ys.get(queue, std::span<std::int32_t>(y));
    for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(y[i], a * x[i] - x[i] / 2 + 17) << i;
}

// A unit compiled on its own (relocatable PTX on CUDA, a compiled object on OpenCL) links with a
// source unit, in either order.
TEST_P(ProgramLink, CompiledUnitLinksWithSourceUnit) {
    const std::vector<std::byte> object = Program::compile_unit(bound_device(), callee_unit);
    ASSERT_FALSE(object.empty());
    const Program program = Program::link(bound_device(), {LinkInput::source(caller_unit), LinkInput::binary(object)});
    EXPECT_EQ(program.kernel_names(), std::vector<std::string>{"apply"});
    check_apply(program, bound_device(), queue());
    // Both units compiled beforehand.
    const std::vector<std::byte> caller = Program::compile_unit(bound_device(), caller_unit);
    const Program objects = Program::link(bound_device(), {LinkInput::binary(object), LinkInput::binary(caller)});
    check_apply(objects, bound_device(), queue());
}

TEST_P(ProgramLink, CompileUnitBadInputIsTyped) {
    EXPECT_THROW(Program::compile_unit(bound_device(), "FUNCTION int f( {"), CompileError);
    ProgramOptions keep;
    keep.keep = true;
    EXPECT_THROW(Program::compile_unit(bound_device(), callee_unit, keep), ArgumentError);
    // A linked (executable) binary is not a unit to link again on OpenCL; garbage is refused there too.
    if (context().api().id() != ApiId::cuda()) {
        const std::vector<std::byte> executable = linked().binary(bound_device());
        try {
            Program::link(bound_device(), {LinkInput::binary(executable)});
            FAIL() << "an executable binary was taken as a link unit";
        } catch (const ArgumentError& e) {
            EXPECT_NE(std::string(e.what()).find("unit 0"), std::string::npos) << e.what();
        }
    }
}

// A linked program goes to the disk cache: linking the same units in a fresh context (whose memory
// cache is empty) loads the binary from disk instead of compiling and linking again.
TEST_P(ProgramLink, SecondLinkInFreshContextIsDiskCacheHit) {
    detail::DiskCache& disk = detail::DiskCache::instance();
    if (!disk.enabled()) GTEST_SKIP() << "the disk cache is disabled here";
    const std::vector<LinkInput> units{LinkInput::source(caller_unit), LinkInput::source(callee_unit)};
    {
        const Context first = Context::from_devices(GetParam().device());
        const auto before = disk.statistics();
        const Program program = Program::link(first.devices()[0], units);
        const auto after = disk.statistics();
        // A hit (an earlier run stored it) or a store (linked now).
        EXPECT_EQ(after.hits - before.hits + after.stores - before.stores, 1u);
    }
    const Context fresh = Context::from_devices(GetParam().device());
    const auto before = disk.statistics();
    const Program again = Program::link(fresh.devices()[0], units);
    const auto after = disk.statistics();
    EXPECT_EQ(after.hits - before.hits, 1u);
    EXPECT_EQ(after.stores - before.stores, 0u);
    const Queue fresh_queue(fresh.devices()[0]);
    check_apply(again, fresh.devices()[0], fresh_queue);
    // The same program in that context again: the memory cache, not the disk.
    const auto memory_before = disk.statistics();
    Program::link(fresh.devices()[0], units);
    EXPECT_EQ(disk.statistics().hits, memory_before.hits);
    // Another order of the units is another key.
    const auto reordered_before = disk.statistics();
    Program::link(fresh.devices()[0], {units[1], units[0]});
    const auto reordered_after = disk.statistics();
    EXPECT_EQ(reordered_after.hits - reordered_before.hits + reordered_after.stores - reordered_before.stores, 1u);
}

TEST_P(ProgramLink, MissingFunctionIsLinkErrorWithLog) {
    try {
        Program::link(bound_device(), {LinkInput::source(orphan_unit)});
        FAIL() << "linking a call to a function defined nowhere succeeded";
    } catch (const LinkError& error) {
        EXPECT_FALSE(error.log().empty());
        EXPECT_EQ(error.device(), bound_device().name());
        // CUDA's linker names the missing symbol in its log. PoCL (3.1) fails clLinkProgram without
        // a program to read a log from: the error says that the driver gave none.
        const bool named = error.log().find("nowhere_defined_kjarni") != std::string::npos;
        if (context().api().id() == ApiId::cuda()) {
            EXPECT_TRUE(named) << error.log();
        } else {
            EXPECT_TRUE(named || error.log().find("the driver gave no log") != std::string::npos) << error.log();
        }
    }
}

TEST_P(ProgramLink, BadInputIsTyped) {
    EXPECT_THROW(Program::link(bound_device(), {}), ArgumentError);
    ProgramOptions keep;
    keep.keep = true;
    EXPECT_THROW(Program::link(bound_device(), {LinkInput::source(callee_unit)}, keep), ArgumentError);
    // A unit that does not compile is a CompileError, as for a single source.
    EXPECT_THROW(Program::link(bound_device(), {LinkInput::source("FUNCTION int f( {")}), CompileError);
    const std::vector<std::byte> nothing;
    EXPECT_THROW(Program::link(bound_device(), {LinkInput::binary(nothing)}), ArgumentError);
    if (context().api().id() != ApiId::cuda()) {
        // Not a program binary at all: ArgumentError naming the unit.
        const std::vector<std::byte> code(16, std::byte{1});
        EXPECT_THROW(Program::link(bound_device(), {LinkInput::source(callee_unit), LinkInput::binary(code)}),
                     ArgumentError);
    }
}

}  // namespace

KJARNI_INSTANTIATE_DEVICE_TESTS(ProgramLink);

}  // namespace kjarni::test
