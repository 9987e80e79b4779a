// Programs and kernels on the CUDA backend, through the internal interface (backend::Context::build,
// Module, Kernel::launch). Tests needing a device skip without one; the NVRTC-only tests run in CI.

#include <gtest/gtest.h>

#ifdef KJARNI_WITH_CUDA

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <variant>
#include <vector>

#include <fmt/format.h>

#include "backend/backend.hpp"
#include "backend/cuda/cuda_program.hpp"
#include "backend/cuda/nvrtc_library.hpp"
#include "kjarni/kjarni.hpp"
#include "program/program_source.hpp"
#include "support/nvrtc_sm90.hpp"
#include "support/random_data.hpp"

namespace kjarni::test {
namespace {

using backend::KernelArg;

const std::string program_source = R"(
extern "C" __global__ void scale(float* x, float a, unsigned n) {
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= a;
}

__constant__ float coeffs[16];

extern "C" __global__ void apply_coeffs(float* out, const float* in, unsigned n) {
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[i] * coeffs[i % 16];
}

// Reverses each block's values through the top end of a dynamic shared region of `floats` floats:
// fails (illegal address) unless the whole region was granted.
extern "C" __global__ void reverse_in_shared(float* out, const float* in, unsigned floats) {
    extern __shared__ float scratch[];
    const unsigned t = threadIdx.x;
    const unsigned i = blockIdx.x * blockDim.x + t;
    scratch[floats - 1 - t] = in[i];
    __syncthreads();
    out[i] = scratch[floats - blockDim.x + t];
}
)";

std::vector<float> random_floats(std::size_t count, float low = -100.0f, float high = 100.0f) {
    std::uniform_real_distribution<float> distribution(low, high);
    std::vector<float> values(count);
    for (float& v : values) {
        do {
            v = distribution(random_engine());
        } while (v == 0.0f);
    }
    return values;
}

/// Distance in units in the last place between two finite floats of the same sign or near zero.
std::int64_t ulp_distance(float a, float b) {
    const auto ordered = [](float f) {
        const auto bits = static_cast<std::int64_t>(std::bit_cast<std::int32_t>(f));
        return bits < 0 ? std::int64_t{INT32_MIN} - bits : bits;
    };
    const std::int64_t d = ordered(a) - ordered(b);
    return d < 0 ? -d : d;
}

KernelArg buffer_arg(const Buffer& buffer) {
    KernelArg arg;
    arg.kind = KernelArg::Kind::buffer;
    arg.buffer = detail::backend_of(buffer).get();
    arg.offset = buffer.offset();
    arg.size = buffer.size();
    return arg;
}

template <class T>
KernelArg scalar_arg(T value) {
    static_assert(sizeof(T) <= 16);
    KernelArg arg;
    arg.kind = KernelArg::Kind::scalar;
    std::memcpy(arg.scalar, &value, sizeof value);
    arg.size = sizeof value;
    return arg;
}

/// NaN everywhere: what a kernel that writes nothing leaves behind is then never mistaken for a
/// result.
void poison(const Queue& queue, const Buffer& buffer) {
    const std::byte pattern[4] = {std::byte{0xFF}, std::byte{0xFF}, std::byte{0xFF}, std::byte{0x7F}};
    buffer.fill(queue, std::span<const std::byte>(pattern, 4));
}

class CudaPrograms : public ::testing::Test {
protected:
    void SetUp() override {
        std::optional<Api> api;
        try {
            api = Api::from_api_id(ApiId::cuda());
        } catch (const ApiUnavailableError& e) {
            GTEST_SKIP() << "CUDA is not available here: " << e.what();
        }
        std::vector<Device> devices;
        for (const Platform& platform : api->platforms()) {
            for (const Device& device : platform.devices()) devices.push_back(device);
        }
        if (devices.empty()) GTEST_SKIP() << "CUDA has no device here";
        context_.emplace(Context::from_devices(devices.front()));
        queue_.emplace(context_->devices()[0]);
    }

    backend::Context& backend_context() { return *detail::backend_of(*context_); }
    BoundDevice device() { return context_->devices()[0]; }
    const Queue& queue() { return *queue_; }
    backend::Queue& backend_queue() { return *detail::backend_of(*queue_); }

    backend::BuildOutput build(const std::string& source, const backend::BuildOptions& options = {}) {
        return backend_context().build(0, source, options);
    }

    /// Launches a 1D kernel over `n` items (rounded up to whole blocks of 256).
    std::shared_ptr<backend::Event> launch(backend::Kernel& kernel, std::size_t n, std::span<const KernelArg> args,
                                           std::size_t dynamic_local_mem = 0, bool want_event = false) {
        const std::size_t local = 256;
        const std::size_t global = (n + local - 1) / local * local;
        return kernel.launch(backend_queue(), 1, &global, &local, dynamic_local_mem, args, want_event);
    }

    /// Runs `scale` with a random factor over random data and checks the result.
    void check_scale(backend::Module& module, float factor, std::int64_t max_ulps) {
        auto kernel = module.kernel("scale");
        ASSERT_NE(kernel, nullptr);
        const unsigned n = 1000 + static_cast<unsigned>(random_engine()() % 1000);
        const std::vector<float> input = random_floats(n);
        // One element past each end is poisoned and must stay so.
        auto buffer = Buffer::allocate(device(), (n + 2) * sizeof(float));
        poison(queue(), buffer);
        auto region = buffer.get_sub_region(sizeof(float), n * sizeof(float));
        region.set(queue(), std::span<const float>(input));
        const KernelArg args[] = {buffer_arg(region), scalar_arg(factor), scalar_arg(n)};
        launch(*kernel, n, args);
        std::vector<float> output(n + 2, 0.0f);
        buffer.get(queue(), std::span<float>(output));
        EXPECT_TRUE(std::isnan(output.front()));
        EXPECT_TRUE(std::isnan(output.back()));
        for (unsigned i = 0; i < n; ++i) {
            const float expected = input[i] * factor;
            ASSERT_LE(ulp_distance(output[i + 1], expected), max_ulps)
                << "at " << i << ": " << output[i + 1] << " != " << expected;
        }
    }

    std::optional<Context> context_;
    std::optional<Queue> queue_;
};

TEST_F(CudaPrograms, BuildsAndListsKernels) {
    const auto output = build(program_source);
    ASSERT_NE(output.module, nullptr);
    EXPECT_FALSE(output.binary.empty());
    EXPECT_EQ(output.module->device_index(), 0u);

    auto names = output.module->kernel_names();
    // Empty only where the driver predates cuModuleEnumerateFunctions (CUDA 12.4).
    if (!names.empty()) {
        std::sort(names.begin(), names.end());
        EXPECT_EQ(names, (std::vector<std::string>{"apply_coeffs", "reverse_in_shared", "scale"}));
    }
    EXPECT_EQ(output.module->kernel("no_such_kernel"), nullptr);
    auto first = output.module->kernel("scale");
    auto second = output.module->kernel("scale");
    ASSERT_NE(first, nullptr);
    EXPECT_EQ(first, second);
}

TEST_F(CudaPrograms, ReportsParamsAndAttributes) {
    const auto output = build(program_source);
    auto kernel = output.module->kernel("scale");
    ASSERT_NE(kernel, nullptr);

    const auto& params = kernel->params();
    // Empty only where the driver predates cuFuncGetParamInfo (CUDA 12.4).
    if (!params.empty()) {
        ASSERT_EQ(params.size(), 3u);
        EXPECT_EQ(params[0].size, 8u);
        EXPECT_EQ(params[0].kind, backend::ParamInfo::Kind::unknown);
        EXPECT_EQ(params[1].size, 4u);
        EXPECT_EQ(params[1].kind, backend::ParamInfo::Kind::scalar);
        EXPECT_EQ(params[2].size, 4u);
        EXPECT_EQ(params[2].kind, backend::ParamInfo::Kind::scalar);
    }
    const auto& attributes = kernel->attributes();
    EXPECT_GT(attributes.max_total_local_size, 0u);
    EXPECT_LE(attributes.max_total_local_size, device().params().max_total_local_size);
    EXPECT_GT(attributes.registers, 0u);
    EXPECT_EQ(attributes.preferred_local_size_multiple, device().params().warp_size);
    EXPECT_EQ(attributes.shared_bytes, 0u);
}

TEST_F(CudaPrograms, LaunchesWithScalarAndBufferArguments) {
    const auto output = build(program_source);
    // A power of two: exact.
    check_scale(*output.module, 4.0f, 0);
    check_scale(*output.module, 0.125f, 0);
    // Any factor: one correctly rounded multiplication.
    check_scale(*output.module, random_floats(1, 0.5f, 3.0f)[0], 1);
}

// Launches without an event skip making their context current (cuda_kernel.cpp): they must run
// on their own context with another context of the same device current, and with none.
TEST_F(CudaPrograms, LaunchesRunWhicheverContextIsCurrent) {
    const auto output = build(program_source);
    ContextOptions own;
    own.own_contexts = true;  // a CUcontext apart from the primary one this fixture's context uses
    const Context other = Context::from_devices(device().device(), own);
    std::thread([&] {
        // The first CUDA call of this thread: the other context's allocation leaves it current
        // (kjarni restores no context where none was), and this context's launches run beside it.
        const Buffer elsewhere = Buffer::allocate(other.devices()[0], 64);
        check_scale(*output.module, 4.0f, 0);
        check_scale(*output.module, random_floats(1, 0.5f, 3.0f)[0], 1);
    }).join();

    auto kernel = output.module->kernel("scale");
    const unsigned n = 3000;
    const std::vector<float> input = random_floats(n);
    auto buffer = Buffer::allocate(device(), n * sizeof(float));
    buffer.set(queue(), std::span<const float>(input));
    const KernelArg args[] = {buffer_arg(buffer), scalar_arg(2.0f), scalar_arg(n)};
    // A thread whose first CUDA call is the launch: no context current.
    std::thread([&] { launch(*kernel, n, args); }).join();
    std::vector<float> result(n, 0.0f);
    buffer.get(queue(), std::span<float>(result));
    for (unsigned i = 0; i < n; ++i) ASSERT_EQ(result[i], input[i] * 2.0f) << "at " << i;
}

TEST_F(CudaPrograms, LaunchReturnsAnEventWhenAsked) {
    const auto output = build(program_source);
    auto kernel = output.module->kernel("scale");
    const unsigned n = 4096;
    auto buffer = Buffer::allocate(device(), n * sizeof(float));
    buffer.set(queue(), std::span<const float>(random_floats(n)));
    const KernelArg args[] = {buffer_arg(buffer), scalar_arg(2.0f), scalar_arg(n)};
    EXPECT_EQ(launch(*kernel, n, args, 0, false), nullptr);
    auto event = launch(*kernel, n, args, 0, true);
    ASSERT_NE(event, nullptr);
    event->wait();
    EXPECT_TRUE(event->is_complete());
    // The queue records a dropped launch's event again, never one still held.
    static_cast<void>(launch(*kernel, n, args, 0, true));
    auto later = launch(*kernel, n, args, 0, true);
    ASSERT_NE(later, nullptr);
    EXPECT_NE(later, event);
    later->wait();
    EXPECT_TRUE(event->is_complete());
}

TEST_F(CudaPrograms, SetsConstantsFromHostAndFromBuffers) {
    const auto output = build(program_source);
    auto& module = *output.module;
    EXPECT_EQ(module.constant_size("coeffs"), std::optional<std::size_t>(16 * sizeof(float)));
    EXPECT_EQ(module.constant_size("no_such_constant"), std::nullopt);
    auto kernel = module.kernel("apply_coeffs");
    ASSERT_NE(kernel, nullptr);

    const unsigned n = 3000;
    const std::vector<float> input = random_floats(n);
    auto in = Buffer::allocate(device(), n * sizeof(float));
    auto out = Buffer::allocate(device(), n * sizeof(float));
    in.set(queue(), std::span<const float>(input));
    const KernelArg args[] = {buffer_arg(out), buffer_arg(in), scalar_arg(n)};

    const auto run_and_check = [&](const std::vector<float>& coeffs) {
        poison(queue(), out);
        launch(*kernel, n, args);
        std::vector<float> result(n, 0.0f);
        out.get(queue(), std::span<float>(result));
        for (unsigned i = 0; i < n; ++i) {
            const float expected = input[i] * coeffs[i % 16];
            ASSERT_LE(ulp_distance(result[i], expected), 1) << "at " << i << ": " << result[i] << " != " << expected;
        }
    };

    {
        // From host memory that is gone right after the call.
        std::vector<float> coeffs = random_floats(16, 0.5f, 4.0f);
        const std::vector<float> kept = coeffs;
        module.set_constant(backend_queue(), "coeffs", coeffs.data(), coeffs.size() * sizeof(float));
        std::fill(coeffs.begin(), coeffs.end(), -1.0f);
        coeffs.clear();
        coeffs.shrink_to_fit();
        run_and_check(kept);
    }
    {
        // From a region of a buffer, in queue order.
        const std::vector<float> coeffs = random_floats(16, 0.5f, 4.0f);
        auto source = Buffer::allocate(device(), (16 + 8) * sizeof(float));
        auto region = source.get_sub_region(8 * sizeof(float), 16 * sizeof(float));
        region.set(queue(), std::span<const float>(coeffs));
        module.set_constant(backend_queue(), "coeffs", *detail::backend_of(source), region.offset(),
                            coeffs.size() * sizeof(float));
        run_and_check(coeffs);
    }
}

TEST_F(CudaPrograms, DynamicSharedMemoryBeyond48KiB) {
    std::int64_t optin = 0;
    for (const auto& attribute : device().device().attributes()) {
        if (attribute.name == "MAX_SHARED_MEMORY_PER_BLOCK_OPTIN") optin = std::get<std::int64_t>(attribute.value);
    }
    const std::size_t bytes = 64 * 1024;
    if (optin < static_cast<std::int64_t>(bytes)) GTEST_SKIP() << "the device grants " << optin << " bytes at most";

    const auto output = build(program_source);
    auto kernel = output.module->kernel("reverse_in_shared");
    ASSERT_NE(kernel, nullptr);
    const unsigned blocks = 8, local = 256, n = blocks * local;
    const unsigned floats = bytes / sizeof(float);
    const std::vector<float> input = random_floats(n);
    auto in = Buffer::allocate(device(), n * sizeof(float));
    auto out = Buffer::allocate(device(), n * sizeof(float));
    in.set(queue(), std::span<const float>(input));
    poison(queue(), out);
    const KernelArg args[] = {buffer_arg(out), buffer_arg(in), scalar_arg(floats)};
    // Twice: the second launch finds the limit raised already.
    for (int round = 0; round < 2; ++round) {
        launch(*kernel, n, args, bytes);
        std::vector<float> result(n, 0.0f);
        out.get(queue(), std::span<float>(result));
        for (unsigned i = 0; i < n; ++i) {
            const unsigned block = i / local, t = i % local;
            ASSERT_EQ(result[i], input[block * local + (local - 1 - t)]) << "at " << i;
        }
    }
}

TEST_F(CudaPrograms, LoadsItsOwnBinary) {
    const auto output = build(program_source);
    auto module = backend_context().load(0, output.binary, {});
    ASSERT_NE(module, nullptr);
    check_scale(*module, 2.0f, 0);

    // A truncated binary (a damaged cache file) is refused before the driver sees it.
    const std::span<const std::byte> truncated(output.binary.data(), output.binary.size() / 2);
    EXPECT_THROW(backend_context().load(0, truncated, {}), Error);
    // So is one the driver cannot use.
    std::vector<std::byte> garbage = random_bytes(4096);
    garbage.back() = std::byte{0};
    EXPECT_THROW(backend_context().load(0, garbage, {}), Error);
}

TEST_F(CudaPrograms, CompileErrorsCarryTheLogAndTheSource) {
    const std::string source = "extern \"C\" __global__ void broken(float* x) {\n"
                               "    x[0] = 1.0f;\n"
                               "    x[1] = this_is_not_declared;\n"
                               "}\n";
    backend::BuildOptions options;
    options.compiler_options = {"-DKJARNI_TEST_MACRO=1"};
    try {
        build(source, options);
        FAIL() << "no exception";
    } catch (const CompileError& e) {
        EXPECT_EQ(e.api(), "CUDA");
        EXPECT_EQ(e.device(), device().name());
        EXPECT_FALSE(e.log().empty());
        EXPECT_NE(e.log().find("this_is_not_declared"), std::string::npos) << e.log();
        EXPECT_NE(e.numbered_source().find("x[1] = this_is_not_declared;"), std::string::npos) << e.numbered_source();
        EXPECT_EQ(e.source(), source);
        // kjarni's options first, the user's verbatim at the end.
        ASSERT_FALSE(e.options().empty());
        EXPECT_EQ(e.options().back(), "-DKJARNI_TEST_MACRO=1");
        EXPECT_EQ(e.options().front().rfind("--gpu-architecture=", 0), 0u) << e.options().front();
    }
}

TEST_F(CudaPrograms, HonoursIncludeDirsAndFastMath) {
    const auto dir =
        std::filesystem::temp_directory_path() / ("kjarni_cuda_include_" + std::to_string(random_engine()()));
    std::filesystem::create_directories(dir);
    {
        std::FILE* header = std::fopen((dir / "factor.h").c_str(), "w");
        ASSERT_NE(header, nullptr);
        std::fputs("#define FACTOR 8.0f\n", header);
        std::fclose(header);
    }
    backend::BuildOptions options;
    options.include_dirs = {dir.string()};
    options.fast_math = true;
    const auto output = build("#include \"factor.h\"\n"
                              "extern \"C\" __global__ void scale(float* x, float a, unsigned n) {\n"
                              "    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                              "    if (i < n) x[i] *= a * FACTOR / 8.0f;\n"
                              "}\n",
                              options);
    std::filesystem::remove_all(dir);
    // a * 8 / 8 with a power of two is exact even with fast math.
    check_scale(*output.module, 0.5f, 0);
}

TEST_F(CudaPrograms, KeepsIntermediateFiles) {
    const auto dir = std::filesystem::temp_directory_path() / ("kjarni_cuda_keep_" + std::to_string(random_engine()()));
    std::filesystem::create_directories(dir);
    backend::BuildOptions options;
    options.keep_dir = dir;
    const auto output = build(program_source, options);
    for (const char* name : {"program.cu", "program.cubin", "program.ptx"}) {
        EXPECT_TRUE(std::filesystem::is_regular_file(dir / name)) << name;
        EXPECT_GT(std::filesystem::file_size(dir / name), 0u) << name;
    }
    EXPECT_TRUE(std::filesystem::is_regular_file(dir / "build.log"));
    EXPECT_EQ(std::filesystem::file_size(dir / "program.cubin"), output.binary.size());
    std::filesystem::remove_all(dir);
}

TEST_F(CudaPrograms, CompilerIdentityNamesTheDeviceArchitectureAndDriver) {
    const std::string identity = backend_context().compiler_identity(0);
    EXPECT_NE(identity.find(device().name()), std::string::npos) << identity;
    EXPECT_NE(identity.find("compute capability"), std::string::npos) << identity;
    EXPECT_NE(identity.find("driver"), std::string::npos) << identity;
    EXPECT_EQ(identity, backend_context().compiler_identity(0));
}

// ---- NVRTC only: no device needed (runs in CI) ---------------------------------------------------

class CudaProgramsNvrtc : public ::testing::Test {
protected:
    void SetUp() override {
        std::string why_not;
        nvrtc_ = test::nvrtc_for_sm90(why_not);
        if (nvrtc_ == nullptr) GTEST_SKIP() << why_not;
    }
    const backend::cuda::NvrtcLibrary* nvrtc_ = nullptr;
};

TEST_F(CudaProgramsNvrtc, CompilesTheTestProgramForSm90) {
    const std::vector<std::string> options = {"--gpu-architecture=sm_90", "--std=c++17"};
    const auto output = nvrtc_->compile(program_source, "program.cu", options, {}, true);
    ASSERT_TRUE(output.compiled) << output.log;
    ASSERT_FALSE(output.cubin.empty());
    EXPECT_NE(output.ptx.find(".entry scale"), std::string::npos);

    // What load() accepts: the complete cubin, not a truncated one.
    const auto image = std::as_bytes(std::span(output.cubin));
    EXPECT_TRUE(backend::cuda::is_loadable_image(image));
    EXPECT_FALSE(backend::cuda::is_loadable_image(image.first(image.size() - 1)));
    EXPECT_FALSE(backend::cuda::is_loadable_image(image.first(image.size() / 2)));
    EXPECT_FALSE(backend::cuda::is_loadable_image(image.first(40)));
    EXPECT_FALSE(backend::cuda::is_loadable_image({}));
}

TEST_F(CudaProgramsNvrtc, CompilesPtxForAVirtualArchitecture) {
    const std::vector<std::string> options = {"--gpu-architecture=compute_90", "--std=c++17"};
    const auto output = nvrtc_->compile(program_source, "program.cu", options, {}, true);
    ASSERT_TRUE(output.compiled) << output.log;
    EXPECT_TRUE(output.cubin.empty());
    EXPECT_NE(output.ptx.find(".entry apply_coeffs"), std::string::npos);
    std::vector<std::byte> text(output.ptx.size() + 1);
    std::memcpy(text.data(), output.ptx.c_str(), text.size());
    EXPECT_TRUE(backend::cuda::is_loadable_image(text));
    text.pop_back();  // without its NUL the driver would read past the end
    EXPECT_FALSE(backend::cuda::is_loadable_image(text));
}

TEST_F(CudaProgramsNvrtc, LogLineNumbersPointAtTheNumberedSource) {
    // What a Program compiles through CUDA is the prelude followed by the source (full_source), and
    // CompileError numbers that whole text: every "program.cu(N): error" of NVRTC's log must name
    // the line N of numbered_source() that holds the mistake, with and without fast math.
    const std::string source =
        "KERNEL void broken(GLOBAL_MEM float* x)\n{\n    x[0] = -INFINITY;\n"
        "    x[1] = first_undeclared_name;\n    x[2] = MAXFLOAT;\n    x[3] = second_undeclared_name;\n}\n";
    for (const bool fast_math : {false, true}) {
        ProgramOptions options;
        options.fast_math = fast_math;
        const std::string full = detail::full_source(ApiId::cuda(), source, options);
        std::vector<std::string> nvrtc_options = {"--gpu-architecture=sm_90", "--std=c++17"};
        if (fast_math) nvrtc_options.emplace_back("--use_fast_math");
        const auto output = nvrtc_->compile(full, "program.cu", nvrtc_options);
        ASSERT_FALSE(output.compiled);
        const CompileError error("CUDA", "sm_90", output.log, nvrtc_options, full);
        std::vector<std::string> numbered;
        std::istringstream lines(error.numbered_source());
        for (std::string line; std::getline(lines, line);) numbered.push_back(line);
        std::size_t errors = 0;
        for (std::size_t at = output.log.find("program.cu("); at != std::string::npos;
             at = output.log.find("program.cu(", at + 1)) {
            const std::size_t n = std::stoul(output.log.substr(at + 11));
            const std::size_t end = output.log.find('\n', at);
            const std::string message = output.log.substr(at, end - at);
            const std::string name = message.find("first_undeclared_name") != std::string::npos
                                         ? "first_undeclared_name"
                                         : "second_undeclared_name";
            ASSERT_LE(n, numbered.size()) << message;
            EXPECT_NE(numbered[n - 1].find(name), std::string::npos) << message << " points at: " << numbered[n - 1];
            EXPECT_EQ(numbered[n - 1].find(fmt::format("{:5} |", n)), 0u) << numbered[n - 1];
            ++errors;
        }
        EXPECT_EQ(errors, 2u) << output.log;  // the OpenCL constants compile (the prelude defines them)
    }
}

TEST_F(CudaProgramsNvrtc, PicksTheBestSupportedArchitecture) {
    EXPECT_EQ(nvrtc_->best_architecture(90), 90);
    // An architecture between two supported ones gets the lower.
    EXPECT_EQ(nvrtc_->best_architecture(91), 90);
    EXPECT_EQ(nvrtc_->best_architecture(0), 0);
    const auto& archs = nvrtc_->supported_architectures();
    EXPECT_EQ(nvrtc_->best_architecture(1000), *std::max_element(archs.begin(), archs.end()));
}

}  // namespace
}  // namespace kjarni::test

#else

TEST(CudaPrograms, NeedsTheCudaBackend) { GTEST_SKIP() << "this build of kjarni has no CUDA backend"; }

#endif
