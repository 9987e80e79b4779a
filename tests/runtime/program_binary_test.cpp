// Compiled code in and out: a program's binary taken out and loaded back (from memory and from a
// file), PTX out and PTX in with JIT options (CUDA), an explicit architecture (CUDA), and a
// program's global variables read and written through a Buffer (CUDA); what OpenCL cannot do is
// UnsupportedError.

#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "support/random_data.hpp"
#include "support/test_devices.hpp"

namespace kjarni::test {
namespace {

constexpr const char* affine_source = R"(
KERNEL void affine(GLOBAL_MEM int32_t* y, GLOBAL_MEM const int32_t* x, int32_t a, int32_t b)
{
    const SIZE_T i = get_global_id(0);
    y[i] = a * x[i] + b;
}
)";

ProgramOptions with_arch(std::string arch) {
    ProgramOptions options;
    options.arch = std::move(arch);
    return options;
}

ProgramOptions with_jit(std::optional<unsigned> max_registers, std::optional<unsigned> optimization_level) {
    ProgramOptions options;
    options.jit_max_registers = max_registers;
    options.jit_optimization_level = optimization_level;
    return options;
}

class ProgramBinary : public DeviceTest {
protected:
    // Runs `affine` of the program on fresh random data and checks it exactly (integers).
    void check_affine(const Program& program) {
        const std::size_t n = 1000;
        const auto x = random_vector<std::int32_t>(n, -30000, 30000);
        const auto ab = random_vector<std::int32_t>(2, -1000, 1000);
        Buffer xs = Buffer::allocate(bound_device(), n * 4);
        Buffer ys = Buffer::allocate(bound_device(), n * 4);
        xs.set(queue(), std::span<const std::int32_t>(x));
        program.kernel("affine")(queue(), {n}, std::nullopt, ys, xs, ab[0], ab[1]);
        std::vector<std::int32_t> y(n);
        ys.get(queue(), std::span<std::int32_t>(y));
        for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(y[i], ab[0] * x[i] + ab[1]) << i;
    }

    static std::filesystem::path temp_file(const std::string& name) {
        return std::filesystem::temp_directory_path() /
               ("kjarni-program-binary-" + std::to_string(::getpid()) + "-" + name);
    }
};

TEST_P(ProgramBinary, BinaryOutAndBackIn) {
    const Program source(bound_device(), affine_source);
    const std::vector<std::byte> binary = source.binary(bound_device());
    ASSERT_FALSE(binary.empty());
    check_affine(source);

    const Program loaded = Program::from_binary(bound_device(), binary);
    EXPECT_EQ(loaded.kernel_names(), std::vector<std::string>{"affine"});
    check_affine(loaded);
    EXPECT_EQ(loaded.binary(bound_device()), binary);  // the code it was made from

    const auto path = temp_file("affine.bin");
    {
        std::ofstream file(path, std::ios::binary);
        file.write(reinterpret_cast<const char*>(binary.data()), static_cast<std::streamsize>(binary.size()));
    }
    check_affine(Program::from_file(bound_device(), path));
    std::filesystem::remove(path);

    EXPECT_THROW(Program::from_file(bound_device(), temp_file("missing")), ArgumentError);
    EXPECT_THROW(Program::from_binary(bound_device(), std::span<const std::byte>()), ArgumentError);
    // Code the driver cannot read: an error naming the driver call, never a crash.
    const auto garbage = random_bytes(4096);
    EXPECT_THROW(Program::from_binary(bound_device(), garbage), Error);
}

TEST_P(ProgramBinary, PtxOutAndIn) {
    const Program program(bound_device(), affine_source);
    if (!is_cuda()) {
        EXPECT_THROW(program.ptx(bound_device()), UnsupportedError);
        EXPECT_THROW(Program(bound_device(), affine_source, with_jit(32, std::nullopt)), UnsupportedError);
        return;
    }
    const std::string ptx = program.ptx(bound_device());
    EXPECT_NE(ptx.find(".entry affine"), std::string::npos) << ptx.substr(0, 2000);
    // PTX text in (without its NUL), with the driver's JIT options.
    const auto* first = reinterpret_cast<const std::byte*>(ptx.data());
    const Program from_ptx = Program::from_binary(bound_device(), std::span(first, ptx.size()), with_jit(32, 3));
    check_affine(from_ptx);
    EXPECT_LE(from_ptx.kernel("affine").attributes(bound_device()).registers, 32u);
    EXPECT_EQ(from_ptx.ptx(bound_device()), ptx);
    // A program made from a cubin has no PTX to give.
    EXPECT_THROW(Program::from_binary(bound_device(), program.binary(bound_device())).ptx(bound_device()),
                 UnsupportedError);
}

TEST_P(ProgramBinary, ExplicitArchitecture) {
    if (!is_cuda()) {
        EXPECT_THROW(Program(bound_device(), affine_source, with_arch("sm_80")), UnsupportedError);
        return;
    }
    const auto cc = *bound_device().device().properties().compute_capability;
    const std::string virtual_arch = "compute_" + std::to_string(cc.major * 10 + cc.minor);
    const Program program(bound_device(), affine_source, with_arch(virtual_arch));
    check_affine(program);
    // PTX for the virtual architecture is what was compiled and loaded.
    const auto binary = program.binary(bound_device());
    const std::string text(reinterpret_cast<const char*>(binary.data()), std::min<std::size_t>(binary.size(), 4096));
    EXPECT_NE(text.find(".target sm_" + std::to_string(cc.major * 10 + cc.minor)), std::string::npos);
    EXPECT_THROW(Program(bound_device(), affine_source, with_arch("sm_x")), ArgumentError);
}

TEST_P(ProgramBinary, GlobalVariables) {
    if (!is_cuda()) {
        const Program program(bound_device(), affine_source);
        EXPECT_THROW(program.global(bound_device(), "anything"), UnsupportedError);
        return;
    }
    const Program program(bound_device(), R"(
__device__ int32_t counters[8];
KERNEL void bump(GLOBAL_MEM int32_t* out)
{
    const SIZE_T i = get_global_id(0);
    counters[i] += 1;
    out[i] = counters[i] * 2;
}
)");
    const GlobalVariable counters = program.global(bound_device(), "counters");
    EXPECT_EQ(counters.size, 8 * sizeof(std::int32_t));
    EXPECT_EQ(counters.buffer.size(), counters.size);
    EXPECT_EQ(counters.buffer.native_handle(), counters.address);
    const auto start = random_vector<std::int32_t>(8, -100000, 100000);
    counters.buffer.set(queue(), std::span<const std::int32_t>(start));
    Buffer out = Buffer::allocate(bound_device(), 8 * 4);
    program.kernel("bump")(queue(), {8}, std::nullopt, out);
    std::vector<std::int32_t> doubled(8);
    std::vector<std::int32_t> now(8);
    out.get(queue(), std::span<std::int32_t>(doubled));
    counters.buffer.get(queue(), std::span<std::int32_t>(now));
    for (std::size_t i = 0; i < 8; ++i) {
        EXPECT_EQ(now[i], start[i] + 1) << i;
        EXPECT_EQ(doubled[i], (start[i] + 1) * 2) << i;
    }
    EXPECT_THROW(program.global(bound_device(), "no_such_variable"), ArgumentError);
}

}  // namespace

KJARNI_INSTANTIATE_DEVICE_TESTS(ProgramBinary);

}  // namespace kjarni::test
