// Managed memory (CUDA) / shared virtual memory (OpenCL): kernels writing it and the host reading
// it (and the other way round), host access scopes over parts of it, coarse- and fine-grained
// SVM, copies to and from buffers, prefetch, attachment, the refusals (too large, wrong context,
// kernels during an exclusive host scope), and a context of two devices sharing one allocation.
// managed_memory_fake_test.cpp checks, on fake devices, what allocation decides before any driver
// call (unsupported devices, the free-memory bound, the grain).

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "kjarni/managed_memory.hpp"
#include "support/random_data.hpp"
#include "support/test_devices.hpp"

namespace kjarni::test {
namespace {

constexpr const char* kernels_source = R"(
// y[i] = a * x[i] + b, with y in managed memory or a buffer.
KERNEL void affine(GLOBAL_MEM float* y, GLOBAL_MEM const float* x, float a, float b, unsigned int n)
{
    const SIZE_T i = get_global_id(0);
    if (i < n) y[i] = a * x[i] + b;
}

// In place: v[i] = v[i] * 3 + 1 for i in [first, first + n).
KERNEL void triple_plus_one(GLOBAL_MEM int32_t* v, unsigned int first, unsigned int n)
{
    const SIZE_T i = get_global_id(0);
    if (i < n) v[first + i] = v[first + i] * 3 + 1;
}
)";

// The CPU reference of a * x + b: the device may contract it into one fused multiply-add (OpenCL
// and CUDA both allow it), so either rounding is right and nothing else is.
struct AffineReference {
    std::vector<float> plain, fused;

    ::testing::AssertionResult matches(std::span<const float> result) const {
        if (result.size() != plain.size()) {
            return ::testing::AssertionFailure() << result.size() << " values, expected " << plain.size();
        }
        for (std::size_t i = 0; i < result.size(); ++i) {
            if (result[i] != plain[i] && result[i] != fused[i]) {
                return ::testing::AssertionFailure() << "at " << i << ": " << result[i] << ", expected " << plain[i];
            }
        }
        return ::testing::AssertionSuccess();
    }
};

class ManagedMemoryTest : public DeviceTest {
protected:
    void SetUp() override {
        caps_ = managed_memory_capabilities(bound_device().device());
        if (!caps_.supported()) GTEST_SKIP() << GetParam().name << " has no managed memory: " << caps_.missing();
    }

    Program& program() {
        if (!program_) program_.emplace(bound_device(), kernels_source);
        return *program_;
    }

    // Launches y = a * x + b over n floats of `y` (managed memory or a buffer) and returns the
    // CPU reference.
    template <class Out>
    AffineReference run_affine(const Out& y, std::size_t n) {
        const auto x_host = random_vector<float>(n, -100.0f, 100.0f);
        const auto ab = random_vector<float>(2, -4.0f, 4.0f);
        Buffer x = Buffer::allocate(bound_device(), n * sizeof(float));
        x.set(queue(), std::span<const float>(x_host));
        program().kernel("affine")(queue(), {n}, std::nullopt, y, x, ab[0], ab[1], static_cast<unsigned>(n));
        AffineReference expected{std::vector<float>(n), std::vector<float>(n)};
        for (std::size_t i = 0; i < n; ++i) {
            expected.plain[i] = ab[0] * x_host[i] + ab[1];
            expected.fused[i] = std::fma(ab[0], x_host[i], ab[1]);
        }
        return expected;
    }

    ManagedMemoryCapabilities caps_;
    std::optional<Program> program_;
};

TEST_P(ManagedMemoryTest, CapabilitiesAreConsistent) {
    if (is_cuda()) {
        EXPECT_TRUE(caps_.managed_memory);
        EXPECT_FALSE(caps_.svm_coarse_grain_buffer);
        EXPECT_EQ(caps_.prefetch, caps_.concurrent_managed_access);
    } else {
        EXPECT_FALSE(caps_.managed_memory);
        EXPECT_TRUE(caps_.svm_coarse_grain_buffer);  // every SVM device has it (OpenCL 2.0)
        if (caps_.svm_atomics) {
            EXPECT_TRUE(caps_.svm_fine_grain_buffer);
        }
    }
    EXPECT_EQ(caps_.missing(), "");
}

TEST_P(ManagedMemoryTest, KernelWritesHostReads) {
    const std::size_t n = 100003;
    ManagedMemory y = ManagedMemory::allocate(context(), n * sizeof(float));
    ASSERT_EQ(y.size(), n * sizeof(float));
    ASSERT_NE(y.data(), nullptr);
    EXPECT_EQ(y.fine_grained(), is_cuda() || caps_.svm_fine_grain_buffer);
    const auto expected = run_affine(y, n);
    {
        ManagedHostAccess scope = y.host_access(queue(), ManagedMemory::Access::read);
        ASSERT_TRUE(scope.is_open());
        ASSERT_EQ(scope.data(), y.data());
        EXPECT_TRUE(expected.matches(scope.as_span<float>()));
    }
    if (y.fine_grained()) {
        // Coherent memory: once the queue is done, data() itself shows the results.
        EXPECT_TRUE(expected.matches(y.as_span<float>()));
    }
}

TEST_P(ManagedMemoryTest, HostWritesKernelReadsAndUpdatesInPlace) {
    const std::size_t n = 65537;
    const auto values = random_vector<std::int32_t>(n, -1000000, 1000000);
    ManagedMemory v = ManagedMemory::allocate(bound_device(), n * sizeof(std::int32_t));
    {
        ManagedHostAccess scope = v.host_access(queue(), ManagedMemory::Access::write);
        std::copy(values.begin(), values.end(), scope.as_span<std::int32_t>().begin());
        scope.end();
        EXPECT_FALSE(scope.is_open());
        scope.end();  // ending twice does nothing
    }
    program().kernel("triple_plus_one")(queue(), {n}, std::nullopt, v, 0u, static_cast<unsigned>(n));
    // Read back through a buffer (a transfer, not the host pointer) ...
    Buffer out = Buffer::allocate(bound_device(), n * sizeof(std::int32_t));
    v.copy_to(queue(), out);
    std::vector<std::int32_t> back(n);
    out.get(queue(), std::span<std::int32_t>(back));
    for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(back[i], values[i] * 3 + 1) << i;
    // ... and through the host.
    const ManagedHostAccess scope = v.host_access(queue(), ManagedMemory::Access::read);
    const auto result = scope.as_span<std::int32_t>();
    for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(result[i], values[i] * 3 + 1) << i;
}

// A scope over part of the memory: only that part is the host's; the kernel updates another part.
TEST_P(ManagedMemoryTest, PartialScopesAndCoarseGrain) {
    const std::size_t n = 40000;
    const std::size_t first = 10000, count = 20000;  // the middle half
    const auto values = random_vector<std::int32_t>(n, -1000000, 1000000);
    const auto patch = random_vector<std::int32_t>(count, -1000000, 1000000);
    ManagedMemory v = ManagedMemory::allocate(context(), n * sizeof(std::int32_t), {.coarse_grain = true});
    EXPECT_TRUE(v.flags().coarse_grain);
    if (!is_cuda()) {
        EXPECT_FALSE(v.fine_grained());
    }
    {
        auto scope = v.host_access(queue());
        std::copy(values.begin(), values.end(), scope.as_span<std::int32_t>().begin());
    }
    {
        auto scope = v.host_access(queue(), ManagedMemory::Access::read_write, first * sizeof(std::int32_t),
                                   count * sizeof(std::int32_t));
        ASSERT_EQ(scope.size(), count * sizeof(std::int32_t));
        ASSERT_EQ(scope.data(), v.data() + first * sizeof(std::int32_t));
        std::copy(patch.begin(), patch.end(), scope.as_span<std::int32_t>().begin());
    }
    // The kernel adds to the first quarter only; not while the host holds coarse-grained memory.
    if (!v.fine_grained()) {
        auto scope = v.host_access(queue(), ManagedMemory::Access::read, 0, 64);
        EXPECT_THROW(program().kernel("triple_plus_one")(queue(), {first}, std::nullopt, v, 0u, 1u), ArgumentError);
    }
    program().kernel("triple_plus_one")(queue(), {first}, std::nullopt, v, 0u, static_cast<unsigned>(first));
    std::vector<std::int32_t> expected = values;
    std::copy(patch.begin(), patch.end(), expected.begin() + static_cast<std::ptrdiff_t>(first));
    for (std::size_t i = 0; i < first; ++i) expected[i] = expected[i] * 3 + 1;
    // A moved scope is the one that ends the access.
    ManagedHostAccess moved = v.host_access(queue(), ManagedMemory::Access::read);
    ManagedHostAccess scope = std::move(moved);
    EXPECT_FALSE(moved.is_open());  // NOLINT(bugprone-use-after-move): checking the moved-from state
    ASSERT_TRUE(scope.is_open());
    const auto result = scope.as_span<std::int32_t>();
    for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(result[i], expected[i]) << i;
}

TEST_P(ManagedMemoryTest, CopiesToAndFromBuffers) {
    const std::size_t size = (1 << 20) + 12;
    const std::size_t offset = 4096 + 8;
    const auto data = random_bytes(size);
    const auto first_part = random_bytes(offset);
    ManagedMemory memory = ManagedMemory::allocate(context(), offset + size);
    {
        auto scope = memory.host_access(queue(), ManagedMemory::Access::write, 0, offset);
        std::copy(first_part.begin(), first_part.end(), scope.data());
    }
    Buffer source = Buffer::allocate(bound_device(), size);
    source.set(queue(), std::span<const std::byte>(data));
    memory.copy_from(queue(), source, offset);
    Buffer whole = Buffer::allocate(bound_device(), offset + size);
    memory.copy_to(queue(), whole, 0, true);
    queue().synchronize();
    std::vector<std::byte> back(offset + size);
    whole.get(queue(), std::span<std::byte>(back));
    ASSERT_TRUE(std::equal(first_part.begin(), first_part.end(), back.begin()));
    ASSERT_TRUE(std::equal(data.begin(), data.end(), back.begin() + static_cast<std::ptrdiff_t>(offset)));
    // The host sees what the copy wrote.
    const auto scope = memory.host_access(queue(), ManagedMemory::Access::read, offset, size);
    ASSERT_TRUE(std::equal(data.begin(), data.end(), scope.data()));
}

TEST_P(ManagedMemoryTest, DeviceBufferSharesTheMemoryAndKeepsItAlive) {
    const std::size_t n = 3001;
    std::optional<Buffer> as_buffer;
    AffineReference expected;
    {
        ManagedMemory y = ManagedMemory::allocate(context(), n * sizeof(float));
        as_buffer = y.device_buffer(bound_device());
        EXPECT_EQ(as_buffer->size(), y.size());
        // A kernel writes through the buffer; the managed memory shows it.
        expected = run_affine(*as_buffer, n);
        const auto scope = y.host_access(queue(), ManagedMemory::Access::read);
        EXPECT_TRUE(expected.matches(scope.as_span<float>()));
        const ManagedMemory copy = y;  // handles share the allocation
        EXPECT_EQ(copy.data(), y.data());
    }
    std::vector<float> back(n);
    as_buffer->get(queue(), std::span<float>(back));
    EXPECT_TRUE(expected.matches(back));
}

TEST_P(ManagedMemoryTest, Prefetch) {
    const auto data = random_bytes(1 << 20);
    ManagedMemory memory = ManagedMemory::allocate(context(), data.size());
    {
        auto scope = memory.host_access(queue(), ManagedMemory::Access::write);
        std::copy(data.begin(), data.end(), scope.data());
    }
    if (!caps_.prefetch) {
        EXPECT_THROW(memory.prefetch(queue()), UnsupportedError);
        EXPECT_THROW(memory.prefetch_to_host(queue()), UnsupportedError);
        return;
    }
    // A hint: the contents do not change, wherever they go.
    memory.prefetch(queue());
    Buffer copy = Buffer::allocate(bound_device(), data.size());
    memory.copy_to(queue(), copy);
    std::vector<std::byte> back(data.size());
    copy.get(queue(), std::span<std::byte>(back));
    EXPECT_EQ(back, data);
    memory.prefetch_to_host(queue());
    const auto scope = memory.host_access(queue(), ManagedMemory::Access::read);
    EXPECT_TRUE(std::equal(data.begin(), data.end(), scope.data()));
}

TEST_P(ManagedMemoryTest, AttachToHostAndQueues) {
    const std::size_t n = 5000;
    ManagedMemory y = ManagedMemory::allocate(context(), n * sizeof(float), {.attach_host = true});
    EXPECT_TRUE(y.flags().attach_host);
    if (!is_cuda()) {
        EXPECT_THROW(y.attach(queue(), ManagedMemory::Attach::single), UnsupportedError);
        return;
    }
    // Attached to this queue only, its kernels may use it whatever the device's capabilities.
    y.attach(queue(), ManagedMemory::Attach::single);
    auto expected = run_affine(y, n);
    {
        const auto scope = y.host_access(queue(), ManagedMemory::Access::read);
        EXPECT_TRUE(expected.matches(scope.as_span<float>()));
    }
    y.attach(queue(), ManagedMemory::Attach::global);
    expected = run_affine(y, n);
    {
        const auto scope = y.host_access(queue(), ManagedMemory::Access::read);
        EXPECT_TRUE(expected.matches(scope.as_span<float>()));
    }
    y.attach(queue(), ManagedMemory::Attach::host);
    queue().synchronize();
    const auto values = random_vector<float>(n, -1.0f, 1.0f);
    std::copy(values.begin(), values.end(), y.as_span<float>().begin());  // the host's now
    EXPECT_TRUE(std::equal(values.begin(), values.end(), y.as_span<float>().begin()));
}

TEST_P(ManagedMemoryTest, EmptyMemory) {
    ManagedMemory empty = ManagedMemory::allocate(context(), 0);
    EXPECT_EQ(empty.size(), 0u);
    EXPECT_EQ(empty.data(), nullptr);
    EXPECT_TRUE(empty.bytes().empty());
    EXPECT_EQ(empty.device_buffer(bound_device()).size(), 0u);
    auto scope = empty.host_access(queue());
    EXPECT_EQ(scope.size(), 0u);
    scope.end();
    // A null pointer argument, which the kernel does not touch for n = 0.
    program().kernel("triple_plus_one")(queue(), {1}, std::nullopt, empty, 0u, 0u);
    queue().synchronize();
}

TEST_P(ManagedMemoryTest, TooLargeIsRefusedBeforeAllocating) {
    const DeviceProperties& properties = bound_device().device().properties();
    const std::uint64_t limit = std::max(properties.max_allocation_size, properties.total_memory);
    const auto requested = static_cast<std::size_t>(limit + 1);
    for (const bool whole_context : {true, false}) {
        try {
            if (whole_context) {
                ManagedMemory::allocate(context(), requested);
            } else {
                ManagedMemory::allocate(bound_device(), requested);
            }
            FAIL() << "allocated " << requested << " bytes";
        } catch (const OutOfMemoryError& e) {
            const std::string message = e.what();
            EXPECT_NE(message.find(std::to_string(requested) + " bytes"), std::string::npos) << message;
            EXPECT_NE(message.find(bound_device().name()), std::string::npos) << message;
            EXPECT_NE(message.find("refused before allocating"), std::string::npos) << message;
        }
    }
    // Beyond the largest single allocation but within the memory (OpenCL: 2 GiB of 6 on PoCL).
    if (properties.max_allocation_size < properties.total_memory) {
        try {
            ManagedMemory::allocate(context(), static_cast<std::size_t>(properties.max_allocation_size + 1));
            FAIL() << "allocated more than CL_DEVICE_MAX_MEM_ALLOC_SIZE";
        } catch (const OutOfMemoryError& e) {
            EXPECT_NE(std::string(e.what()).find(std::to_string(properties.max_allocation_size) + " bytes"),
                      std::string::npos)
                << e.what();
        }
    }
}

TEST_P(ManagedMemoryTest, Errors) {
    ManagedMemory memory = ManagedMemory::allocate(context(), 1024);
    EXPECT_THROW(memory.host_access(queue(), ManagedMemory::Access::read, 1000, 100), ArgumentError);
    EXPECT_THROW(memory.host_access(queue(), ManagedMemory::Access::read, 1025), ArgumentError);
    Buffer big = Buffer::allocate(bound_device(), 2048);
    EXPECT_THROW(memory.copy_from(queue(), big), ArgumentError);
    EXPECT_THROW(memory.copy_to(queue(), Buffer::allocate(bound_device(), 1000), 100), ArgumentError);

    // Another context: its queues and kernels cannot use this memory.
    const Context other = Context::from_devices(bound_device().device());
    Queue other_queue(other.devices()[0]);
    EXPECT_THROW(memory.host_access(other_queue), ArgumentError);
    EXPECT_THROW(memory.prefetch(other_queue), ArgumentError);
    EXPECT_THROW(memory.copy_to(other_queue, Buffer::allocate(other.devices()[0], 16)), ArgumentError);
    EXPECT_THROW(memory.device_buffer(other.devices()[0]), ArgumentError);
    Program other_program(other.devices()[0], kernels_source);
    try {
        other_program.kernel("triple_plus_one")(other_queue, {256}, std::nullopt, memory, 0u, 256u);
        FAIL() << "launched with managed memory of another context";
    } catch (const ArgumentError& e) {
        EXPECT_NE(std::string(e.what()).find("another context"), std::string::npos) << e.what();
    }
}

KJARNI_INSTANTIATE_DEVICE_TESTS(ManagedMemoryTest);

// ---- Two devices of one context ----------------------------------------------------------------

TEST(ManagedMemoryMultiDevice, BothDevicesWriteOneAllocation) {
    Context* context = shared_multi_device_context();
    if (context == nullptr) GTEST_SKIP() << "no platform with two selected devices";
    const BoundDevice d0 = context->devices()[0];
    const BoundDevice d1 = context->devices()[1];
    if (!managed_memory_capabilities(d0.device()).supported() ||
        !managed_memory_capabilities(d1.device()).supported()) {
        EXPECT_THROW(ManagedMemory::allocate(*context, 64), UnsupportedError);
        return;
    }
    const std::size_t half = 50000;
    const auto values = random_vector<std::int32_t>(2 * half, -1000000, 1000000);
    std::optional<ManagedMemory> made;
    try {
        made = ManagedMemory::allocate(*context, 2 * half * sizeof(std::int32_t));
    } catch (const UnsupportedError& e) {
        // A driver known to crash here refuses instead (quirk nvidia_svm_several_devices).
        ASSERT_NE(std::string(e.what()).find("nvidia_svm_several_devices"), std::string::npos) << e.what();
        GTEST_SKIP() << e.what();
    }
    ManagedMemory& v = *made;
    Queue q0(d0);
    Queue q1(d1);
    {
        auto scope = v.host_access(q0, ManagedMemory::Access::write);
        std::copy(values.begin(), values.end(), scope.as_span<std::int32_t>().begin());
    }
    const Program program(context->devices(), kernels_source);
    // Device 0 updates the first half, device 1 the second: at the same time where both devices may
    // use managed memory concurrently (CUDA's concurrentManagedAccess, fine-grained SVM); one after
    // the other otherwise, as coarse-grained SVM allows only between synchronization points (NVIDIA's
    // OpenCL crashes on two H200s when both devices write one coarse-grained buffer at once).
    const auto concurrent = [](const BoundDevice& d) {
        const ManagedMemoryCapabilities c = managed_memory_capabilities(d.device());
        return c.concurrent_managed_access || c.svm_fine_grain_buffer;
    };
    program.kernel("triple_plus_one")(q0, {half}, std::nullopt, v, 0u, static_cast<unsigned>(half));
    if (!concurrent(d0) || !concurrent(d1)) q1.wait_for(q0.record_event());
    program.kernel("triple_plus_one")(q1, {half}, std::nullopt, v, static_cast<unsigned>(half),
                                      static_cast<unsigned>(half));
    q0.synchronize();
    q1.synchronize();
    {
        const auto scope = v.host_access(q1, ManagedMemory::Access::read);
        const auto result = scope.as_span<std::int32_t>();
        for (std::size_t i = 0; i < 2 * half; ++i) ASSERT_EQ(result[i], values[i] * 3 + 1) << i;
    }
    // Memory allocated for one device is still the context's: device 1 copies it to its buffer.
    ManagedMemory w = ManagedMemory::allocate(d1, half * sizeof(std::int32_t));
    {
        auto scope = w.host_access(q1, ManagedMemory::Access::write);
        std::copy(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(half),
                  scope.as_span<std::int32_t>().begin());
    }
    Buffer on_d1 = Buffer::allocate(d1, half * sizeof(std::int32_t));
    w.copy_to(q1, on_d1);
    std::vector<std::int32_t> back(half);
    on_d1.get(q1, std::span<std::int32_t>(back));
    EXPECT_TRUE(std::equal(back.begin(), back.end(), values.begin()));
}

}  // namespace
}  // namespace kjarni::test
