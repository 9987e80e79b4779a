// Issue 43, items 6, 9, 10, 13 and 14 on real devices: context options (single stream, CUDA flags,
// a kernel cache of the context's own, default compiler options), what a context says of its
// devices (bin_id, largest_memblock, memory), Context::synchronize, CUDA contexts of kjarni's own,
// peer access and copies between contexts, JIT options and kernel attributes, and the
// compilation cache per program. Results are checked against the host on fresh random data. The
// CUDA driver calls themselves are also checked without a GPU in parity43_cuda_fake_driver_test.cpp.

#include <gtest/gtest.h>

#include <fmt/format.h>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "kjarni/peer_access.hpp"
#include "support/random_data.hpp"
#include "support/test_devices.hpp"

namespace kjarni::test::parity43_context {
namespace {

namespace fs = std::filesystem;

// y = CONTEXT_SCALE * x + PROGRAM_SHIFT: the two macros come from the context's and the program's
// compiler options; a nonce in a comment makes each source new to the disk cache.
std::string affine_source(std::uint64_t nonce) {
    return fmt::format(R"(
// nonce {0}
#ifndef CONTEXT_SCALE
#define CONTEXT_SCALE 1.0f
#endif
#ifndef PROGRAM_SHIFT
#define PROGRAM_SHIFT 0.0f
#endif
KERNEL void affine(GLOBAL_MEM float* y, GLOBAL_MEM const float* x, unsigned int n)
{{
    const SIZE_T i = get_global_id(0);
    if (i < n) y[i] = CONTEXT_SCALE * x[i] + PROGRAM_SHIFT;
}}
// The nonce in the code too, so that the PTX differs: the driver's JIT cache keys on the PTX, and
// a load it serves compiles nothing (an empty JIT log, which Item13 checks is not).
KERNEL void nonce_{0}() {{}}
)",
                       nonce);
}

std::uint64_t nonce() { return random_engine()(); }

// ContextOptions with one change (designated initialisers would leave the others unnamed).
template <class Change>
ContextOptions options_with(Change change) {
    ContextOptions options;
    change(options);
    return options;
}

// Runs `affine` of `program` on random data and checks y = scale * x + shift on the host (the
// products and sums of floats of a few units are exact to one rounding: 1e-6 relative).
void check_affine(const Program& program, const BoundDevice& device, float scale, float shift) {
    const Queue queue(device);
    constexpr unsigned n = 1000;
    const std::vector<float> x = random_vector<float>(n, -4.0f, 4.0f);
    const Buffer xb = Buffer::allocate(device, n * sizeof(float));
    const Buffer yb = Buffer::allocate(device, n * sizeof(float));
    xb.set(queue, std::span<const float>(x));
    program.kernel("affine")(queue, {1024}, std::nullopt, yb, xb, n);
    std::vector<float> y(n);
    yb.get(queue, std::span<float>(y));
    for (unsigned i = 0; i < n; ++i) {
        const float expected = scale * x[i] + shift;
        ASSERT_NEAR(y[i], expected, 1e-6f * (1.0f + std::fabs(expected))) << "element " << i;
    }
}

// The entries of an on-disk cache directory (<dir>/<2 hex>/<32 hex>.bin).
std::size_t entries_in(const fs::path& directory) {
    if (!fs::exists(directory)) return 0;
    std::size_t count = 0;
    for (const auto& entry : fs::recursive_directory_iterator(directory)) {
        if (entry.is_regular_file() && entry.path().extension() == ".bin") ++count;
    }
    return count;
}

// A fresh directory under the system's temporary one, removed with the object.
struct TemporaryDirectory {
    fs::path path = fs::temp_directory_path() / fmt::format("kjarni-parity43-{}", random_engine()());
    TemporaryDirectory() { fs::create_directories(path); }
    ~TemporaryDirectory() {
        std::error_code ignored;
        fs::remove_all(path, ignored);
    }
};

class Parity43Context : public DeviceTest {};

TEST_P(Parity43Context, Item6SingleStreamSharesOneQueuePerDevice) {
    ContextOptions options;
    options.single_stream = true;
    const Context context = Context::from_devices(GetParam().device(), options);
    EXPECT_TRUE(context.options().single_stream);
    const BoundDevice device = context.devices()[0];
    const Queue a(device), b(device);
    EXPECT_TRUE(a == b) << "a single_stream context has one queue per device";
    EXPECT_EQ(a.native_handle(), b.native_handle());
    EXPECT_THROW(static_cast<void>(Queue(device, QueueOptions{})), ArgumentError);
    // Work enqueued through either handle runs in one order: a write through one, a copy and a
    // read through the other, all asynchronous until the read.
    constexpr std::size_t n = 4096;
    const std::vector<std::byte> data = random_bytes(n);
    const Buffer x = Buffer::allocate(device, n), y = Buffer::allocate(device, n);
    x.set(a, std::span<const std::byte>(data), true);
    y.set(b, x, true);
    std::vector<std::byte> back(n);
    y.get(a, std::span<std::byte>(back));
    EXPECT_EQ(back, data);
    // A plain context: distinct queues.
    EXPECT_FALSE(Queue(bound_device()) == Queue(bound_device()));
}

TEST_P(Parity43Context, Item6CudaFlagsAreAppliedOnCudaAndRefusedElsewhere) {
    const Device device = GetParam().device();
    const std::uint64_t id = nonce();
    if (!is_cuda()) {
        const auto refused = [&](const ContextOptions& options, const std::string& what) {
            try {
                Context::from_devices(device, options);
                ADD_FAILURE() << what << " was accepted";
            } catch (const UnsupportedError& e) {
                const std::string message = e.what();
                EXPECT_NE(message.find(context().api().shortcut()), std::string::npos) << message;
                EXPECT_NE(message.find(what), std::string::npos) << message;
            }
        };
        refused(options_with([](ContextOptions& o) { o.scheduling = Scheduling::spin; }), "scheduling spin");
        refused(options_with([](ContextOptions& o) { o.map_host = true; }), "map_host");
        refused(options_with([](ContextOptions& o) { o.lmem_resize_to_max = true; }), "lmem_resize_to_max");
        refused(options_with([](ContextOptions& o) { o.shared_memory_banks = SharedMemoryBanks::eight_bytes; }),
                "eight_bytes");
        // OpenCL contexts are always kjarni's own: accepted, and they work.
        const Context own =
            Context::from_devices(device, options_with([](ContextOptions& o) { o.own_contexts = true; }));
        check_affine(Program(own.devices()[0], affine_source(id)), own.devices()[0], 1.0f, 0.0f);
        return;
    }
    // CUDA: contexts of kjarni's own with each scheduling and the other flags run kernels, and are
    // not the primary context.
    for (const Scheduling scheduling :
         {Scheduling::automatic, Scheduling::spin, Scheduling::yield, Scheduling::blocking_sync}) {
        SCOPED_TRACE(to_string(scheduling));
        ContextOptions options;
        options.own_contexts = true;
        options.scheduling = scheduling;
        options.lmem_resize_to_max = scheduling == Scheduling::spin;
        options.map_host = scheduling == Scheduling::yield;
        const Context own = Context::from_devices(device, options);
        EXPECT_NE(own.native_handle(0), context().native_handle(0));
        check_affine(Program(own.devices()[0], affine_source(id)), own.devices()[0], 1.0f, 0.0f);
        own.synchronize();
    }
}

TEST_P(Parity43Context, Item6KernelCachePathAndSizePerContext) {
    const TemporaryDirectory directory;
    const fs::path used = directory.path / "context", bounded = directory.path / "bounded";
    const std::uint64_t id = nonce();
    {
        ContextOptions options;
        options.kernel_cache_dir = used;
        const Context context = Context::from_devices(GetParam().device(), options);
        check_affine(Program(context.devices()[0], affine_source(id)), context.devices()[0], 1.0f, 0.0f);
    }
    EXPECT_EQ(entries_in(used), 1u) << "the program went into the context's cache directory";
    {
        // A fresh context (its memory cache empty) loads it from there: still one entry.
        ContextOptions options;
        options.kernel_cache_dir = used;
        const Context context = Context::from_devices(GetParam().device(), options);
        check_affine(Program(context.devices()[0], affine_source(id)), context.devices()[0], 1.0f, 0.0f);
    }
    EXPECT_EQ(entries_in(used), 1u);
    {
        // A bound smaller than any entry: nothing is stored (an entry over 90% of it never is).
        ContextOptions options;
        options.kernel_cache_dir = bounded;
        options.kernel_cache_max_bytes = 64;
        const Context context = Context::from_devices(GetParam().device(), options);
        check_affine(Program(context.devices()[0], affine_source(nonce())), context.devices()[0], 1.0f, 0.0f);
    }
    EXPECT_EQ(entries_in(bounded), 0u);
    EXPECT_THROW(Context::from_devices(GetParam().device(),
                                       options_with([](ContextOptions& o) { o.kernel_cache_dir = fs::path(); })),
                 ArgumentError);
    EXPECT_THROW(Context::from_devices(GetParam().device(),
                                       options_with([](ContextOptions& o) { o.kernel_cache_max_bytes = 0; })),
                 ArgumentError);
}

TEST_P(Parity43Context, Item6ContextPropertiesBinIdLargestMemblockMemory) {
    const BoundDevice device = bound_device();
    const std::string id = bin_id(device);
    ASSERT_FALSE(id.empty());
    // The same device in another context: the same identity.
    EXPECT_EQ(bin_id(Context::from_devices(GetParam().device()).devices()[0]), id);
    const DeviceProperties& properties = device.device().properties();
    if (is_cuda()) {
        ASSERT_TRUE(properties.compute_capability);
        EXPECT_EQ(id,
                  fmt::format("sm_{}{}", properties.compute_capability->major, properties.compute_capability->minor));
    } else {
        EXPECT_NE(id.find(device.name()), std::string::npos) << id;
    }
    const MemoryInfo memory = memory_info(device);
    EXPECT_EQ(memory.total, properties.total_memory);
    if (memory.free) {
        EXPECT_LE(*memory.free, memory.total);
    }
    const std::optional<std::uint64_t> largest = largest_memblock(device);
    if (is_cuda()) {
        ASSERT_TRUE(largest.has_value());
        EXPECT_GT(*largest, 0u);
        EXPECT_LE(*largest, memory.total);
        // Half of it can be had (the other half may be taken by others meanwhile; the exact figure
        // is checked against a fake driver).
        EXPECT_NO_THROW(Buffer::allocate(device, static_cast<std::size_t>(*largest / 2)));
    } else if (largest) {
        EXPECT_LE(*largest, memory.total);
    }
}

TEST_P(Parity43Context, Item9SynchronizeWaitsForEveryQueue) {
    const Context context = Context::from_devices(GetParam().device());
    const BoundDevice device = context.devices()[0];
    const Queue a(device), b(device);
    constexpr std::size_t n = 1 << 20;
    const std::vector<std::byte> first = random_bytes(n), second = random_bytes(n);
    const Buffer x = Buffer::allocate(device, n), y = Buffer::allocate(device, n);
    x.set(a, std::span<const std::byte>(first), true);
    y.set(b, std::span<const std::byte>(second), true);
    context.synchronize();
    // OpenCL's is_done watches a marker for at most 2 ms (its promise): a loaded CPU device may
    // need a few tries to say that an idle queue is idle.
    const auto idle = [](const Queue& queue) {
        for (int attempt = 0; attempt < 100; ++attempt) {
            if (queue.is_done()) return true;
        }
        return false;
    };
    EXPECT_TRUE(idle(a));
    EXPECT_TRUE(idle(b));
    // Both writes landed (read back on a third queue, which orders after nothing of theirs).
    const Queue c(device);
    std::vector<std::byte> back(n);
    x.get(c, std::span<std::byte>(back));
    EXPECT_EQ(back, first);
    y.get(c, std::span<std::byte>(back));
    EXPECT_EQ(back, second);
}

TEST_P(Parity43Context, Item10PeerAccessWithinAndAcrossContexts) {
    const BoundDevice device = bound_device();
    const Context other = Context::from_devices(GetParam().device());
    EXPECT_TRUE(can_access_peer(device, device));
    EXPECT_TRUE(peer_access_enabled(device, device));
    EXPECT_THROW(enable_peer_access(device, device), ArgumentError);
    const BoundDevice elsewhere = other.devices()[0];
    if (is_cuda()) {
        // The same device in two contexts over its primary context: one CUcontext, access a given.
        EXPECT_TRUE(can_access_peer(device, elsewhere));
        EXPECT_TRUE(peer_access_enabled(device, elsewhere));
        const Context own =
            Context::from_devices(GetParam().device(), options_with([](ContextOptions& o) { o.own_contexts = true; }));
        EXPECT_FALSE(can_access_peer(device, own.devices()[0])) << "another context of the same device";
        EXPECT_THROW(enable_peer_access(device, own.devices()[0]), UnsupportedError);
    } else {
        EXPECT_FALSE(can_access_peer(device, elsewhere));
        EXPECT_FALSE(peer_access_enabled(device, elsewhere));
        EXPECT_THROW(enable_peer_access(device, elsewhere), UnsupportedError);
    }
    // Two devices of one context (KJARNI_TEST with two devices of a platform).
    Context* multi = shared_multi_device_context();
    if (multi == nullptr || multi->api().id() != context().api().id()) return;
    const BoundDevice d0 = multi->devices()[0], d1 = multi->devices()[1];
    if (!can_access_peer(d0, d1)) {
        EXPECT_FALSE(peer_access_enabled(d0, d1));
        EXPECT_THROW(enable_peer_access(d0, d1), UnsupportedError);
        return;
    }
    EXPECT_TRUE(peer_access_enabled(d0, d1)) << "enabled when the context was made";
    if (is_cuda()) {
        disable_peer_access(d0, d1);
        EXPECT_FALSE(peer_access_enabled(d0, d1));
        enable_peer_access(d0, d1);
        EXPECT_TRUE(peer_access_enabled(d0, d1));
    } else {
        enable_peer_access(d0, d1);  // always on: a no-op
        EXPECT_THROW(disable_peer_access(d0, d1), UnsupportedError);
        EXPECT_TRUE(peer_access_enabled(d0, d1));
    }
}

TEST_P(Parity43Context, Item10CopiesBetweenContexts) {
    ContextOptions own;
    own.own_contexts = true;  // on CUDA a context of its own: a real copy between CUcontexts
    const Context source_context = Context::from_devices(GetParam().device(), own);
    const BoundDevice source_device = source_context.devices()[0];
    constexpr std::size_t n = 3 << 18;
    const std::vector<std::byte> data = random_bytes(n);
    const Buffer source = Buffer::allocate(source_device, n);
    source.set(Queue(source_device), std::span<const std::byte>(data));
    const Buffer destination = Buffer::allocate(bound_device(), n + 64);
    const bool direct = copy_between_contexts(queue(), destination.get_sub_region(64, n), source);
    EXPECT_EQ(direct, is_cuda()) << "CUDA copies device to device; OpenCL through the host";
    std::vector<std::byte> back(n);
    destination.get_sub_region(64, n).get(queue(), std::span<std::byte>(back));
    EXPECT_EQ(back, data);
    EXPECT_THROW(copy_between_contexts(queue(), source, destination), ArgumentError);  // not the queue's
    EXPECT_THROW(copy_between_contexts(queue(), Buffer::allocate(bound_device(), 16), source), ArgumentError);
    // transfer() of an array between contexts: device to device on CUDA, equal either way.
    const std::vector<float> values = random_vector<float>(1000, -1.0f, 1.0f);
    const Array array = Array::from_host(Queue(source_device), std::span<const float>(values), {1000});
    const Array moved = transfer(array, queue());
    EXPECT_EQ(moved.device(), bound_device());
    std::vector<float> moved_back(values.size());
    moved.get(queue(), std::span<float>(moved_back));
    EXPECT_EQ(moved_back, values);
}

TEST_P(Parity43Context, Item13JitOptionsAndKernelAttributes) {
    const BoundDevice device = bound_device();
    const std::uint64_t id = nonce();
    const Program program(device, affine_source(id));
    const Kernel kernel = program.kernel("affine");
    // Bad values are refused on every API.
    ProgramOptions zero_threads;
    zero_threads.jit.threads_per_block = 0;
    EXPECT_THROW(Program(device, affine_source(id), zero_threads), ArgumentError);
    ProgramOptions both;
    both.jit.threads_per_block = 128;
    both.jit_max_registers = 32;
    EXPECT_THROW(Program(device, affine_source(id), both), ArgumentError);
    ProgramOptions huge_log;
    huge_log.jit.info_log_bytes = std::size_t{1} << 30;
    EXPECT_THROW(Program(device, affine_source(id), huge_log), ArgumentError);
    if (is_cuda()) {
        EXPECT_THROW(kernel.set_attribute(device, KernelAttribute::preferred_shared_memory_carveout, 101),
                     ArgumentError);
        EXPECT_THROW(kernel.set_attribute(device, KernelAttribute::max_dynamic_shared_bytes, -1), ArgumentError);
        EXPECT_THROW(kernel.set_attribute(device, KernelAttribute::non_portable_cluster_size_allowed, 2),
                     ArgumentError);
    }
    if (!is_cuda()) {
        ProgramOptions jit;
        jit.jit.cache_mode = JitCacheMode::global_l1;
        EXPECT_THROW(Program(device, affine_source(id), jit), UnsupportedError);
        EXPECT_THROW(kernel.set_attribute(device, KernelAttribute::max_dynamic_shared_bytes, 0), UnsupportedError);
        const KernelAttributes attributes = kernel.attributes(device);
        EXPECT_EQ(attributes.ptx_version, 0);
        EXPECT_EQ(attributes.binary_version, 0);
        EXPECT_FALSE(program.jit_report(device).has_value());
        return;
    }
    // CUDA: the program's PTX loaded with every JIT option; the report and attributes checked.
    const DeviceProperties& properties = device.device().properties();
    const int architecture = properties.compute_capability->major * 10 + properties.compute_capability->minor;
    const std::string ptx = program.ptx(device);
    ProgramOptions options;
    options.jit.threads_per_block = 128;
    options.jit.fallback = JitFallback::prefer_ptx;
    options.jit.cache_mode = JitCacheMode::global_l1;
    options.jit.info_log_bytes = 8192;
    options.jit.log_verbose = true;
    const Program loaded = Program::from_binary(device, std::as_bytes(std::span<const char>(ptx)), options);
    const std::optional<JitReport> report = loaded.jit_report(device);
    ASSERT_TRUE(report.has_value());
    EXPECT_GE(report->wall_time_ms, 0.0f);
    EXPECT_FALSE(report->info_log.empty()) << "a verbose JIT says what it compiled";
    EXPECT_GT(report->threads_per_block, 0u);
    const KernelAttributes attributes = loaded.kernel("affine").attributes(device);
    EXPECT_EQ(attributes.binary_version, architecture);
    EXPECT_EQ(attributes.ptx_version, architecture);
    // cache_mode_ca is what the driver reports; it is not asserted: the H200's driver (580, CUDA
    // 13.0) answers false for PTX loaded with CU_JIT_CACHE_MODE CA (L1 caching of global loads is
    // the default there since Volta, so the JIT records no user choice).
    RecordProperty("cache_mode_ca", attributes.cache_mode_ca ? "true" : "false");
    check_affine(loaded, device, 1.0f, 0.0f);
    // Attributes set on the kernel: a dynamic shared memory limit, then a launch within it.
    const Kernel affine = loaded.kernel("affine");
    affine.set_attribute(device, KernelAttribute::max_dynamic_shared_bytes, 64 * 1024);
    affine.set_attribute(device, KernelAttribute::preferred_shared_memory_carveout, 50);
    check_affine(loaded, device, 1.0f, 0.0f);
}

TEST_P(Parity43Context, Item14ProgramCacheDirectoryAndSwitch) {
    const TemporaryDirectory directory;
    const fs::path of_context = directory.path / "context", of_program = directory.path / "program";
    ContextOptions context_options;
    context_options.kernel_cache_dir = of_context;
    const Context context = Context::from_devices(GetParam().device(), context_options);
    const BoundDevice device = context.devices()[0];
    // The switch off: nothing read or written, in the context's directory or anywhere.
    ProgramOptions off;
    off.disk_cache = false;
    check_affine(Program(device, affine_source(nonce()), off), device, 1.0f, 0.0f);
    EXPECT_EQ(entries_in(of_context), 0u);
    // The program's own directory wins over the context's.
    ProgramOptions own;
    own.cache_dir = of_program;
    check_affine(Program(device, affine_source(nonce()), own), device, 1.0f, 0.0f);
    EXPECT_EQ(entries_in(of_program), 1u);
    EXPECT_EQ(entries_in(of_context), 0u);
    // Neither: the context's.
    check_affine(Program(device, affine_source(nonce())), device, 1.0f, 0.0f);
    EXPECT_EQ(entries_in(of_context), 1u);
    ProgramOptions empty_path;
    empty_path.cache_dir = fs::path();
    EXPECT_THROW(Program(device, affine_source(nonce()), empty_path), ArgumentError);
}

TEST_P(Parity43Context, Item14ContextDefaultCompilerOptions) {
    // Random constants, written so that the compiler reads back the same floats.
    std::uniform_int_distribution<int> pick(-40, 40);
    const float scale = static_cast<float>(pick(random_engine())) / 8.0f;
    const float shift = static_cast<float>(pick(random_engine())) / 4.0f;
    ContextOptions options;
    options.compiler_options = {fmt::format("-DCONTEXT_SCALE=({:.3f}f)", scale)};
    const Context context = Context::from_devices(GetParam().device(), options);
    const BoundDevice device = context.devices()[0];
    const std::uint64_t id = nonce();
    check_affine(Program(device, affine_source(id)), device, scale, 0.0f);
    // The program's own options come after the context's.
    ProgramOptions program_options;
    program_options.compiler_options = {fmt::format("-DPROGRAM_SHIFT=({:.3f}f)", shift)};
    check_affine(Program(device, affine_source(id), program_options), device, scale, shift);
    // Another context without them: the defaults of the source.
    check_affine(Program(bound_device(), affine_source(id)), bound_device(), 1.0f, 0.0f);
}

KJARNI_INSTANTIATE_DEVICE_TESTS(Parity43Context);

}  // namespace
}  // namespace kjarni::test::parity43_context
