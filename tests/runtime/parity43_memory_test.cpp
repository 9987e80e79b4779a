// Issue 43 items 15 and 16: memory flags on buffers (kernel access, host pointers), refused as
// outputs where kjarni writes; shared virtual memory with an alignment, and freed in queue order
// outside SVMPool.

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "support/random_data.hpp"
#include "support/test_devices.hpp"

namespace kjarni::test {
namespace parity43_memory {

constexpr const char* doubling_source = R"(
KERNEL void twice(GLOBAL_MEM float* y, GLOBAL_MEM const float* x, unsigned int n)
{
    const SIZE_T i = get_global_id(0);
    if (i < n) y[i] = 2.0f * x[i];
}
)";

class Parity43Memory : public DeviceTest {};

TEST_P(Parity43Memory, Parity43Item15BufferFlags) {
    const std::size_t n = 777;
    const auto host = random_vector<float>(n, -100.0f, 100.0f);
    const auto bytes = std::as_bytes(std::span<const float>(host));
    // Read-only memory with its contents given at creation (CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR).
    const Buffer input = Buffer::allocate_copy(bound_device(), bytes, BufferFlags{KernelAccess::read_only, false});
    EXPECT_EQ(input.kernel_access(), KernelAccess::read_only);
    EXPECT_EQ(input.get_sub_region(64, 128).kernel_access(), KernelAccess::read_only);
    // Write-only memory, reachable by the host where the driver can (CL_MEM_ALLOC_HOST_PTR).
    const Buffer output =
        Buffer::allocate(bound_device(), n * sizeof(float), BufferFlags{KernelAccess::write_only, true});
    EXPECT_EQ(output.kernel_access(), KernelAccess::write_only);
    Program program(bound_device(), doubling_source);
    program.kernel("twice")(queue(), {n}, std::nullopt, output, input, static_cast<unsigned>(n));
    std::vector<float> result(n);
    output.get(queue(), std::span<float>(result));
    for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(result[i], 2.0f * host[i]) << i;
    // A kernel reads a region of it (an OpenCL sub-buffer inherits the flags).
    const std::size_t offset_elements = 256;  // a multiple of every CL_DEVICE_MEM_BASE_ADDR_ALIGN seen
    const Buffer tail = input.get_sub_region(offset_elements * sizeof(float), (n - offset_elements) * sizeof(float));
    program.kernel("twice")(queue(), {n - offset_elements}, std::nullopt, output, tail,
                            static_cast<unsigned>(n - offset_elements));
    output.get(queue(), std::span<float>(result));
    for (std::size_t i = 0; i + offset_elements < n; ++i) ASSERT_EQ(result[i], 2.0f * host[i + offset_elements]) << i;

    // kjarni refuses to write it through arrays: they are not writeable.
    const Array view = Array::from_buffer(input, dtypes::float32, Layout::contiguous({n}, 4));
    EXPECT_FALSE(view.writeable());
    try {
        fill(queue(), view, 0.0f);
        ADD_FAILURE() << "a read-only buffer was filled by a kernel";
    } catch (const ArgumentError& e) {
        EXPECT_EQ(e.argument(), "out");
        EXPECT_NE(std::string(e.what()).find("read_only"), std::string::npos) << e.what();
    }
    EXPECT_THROW(view.set(queue(), view.copy(queue())), ArgumentError);
    EXPECT_EQ(view.get(queue()).to_vector<float>(), host);
    // Host transfers into it stay allowed (how read-only memory gets its contents).
    const auto other = random_vector<float>(n, -1.0f, 1.0f);
    input.set(queue(), std::span<const float>(other));
    EXPECT_EQ(view.get(queue()).to_vector<float>(), other);
    // Plain buffers are read_write; an empty copy is valid.
    EXPECT_EQ(Buffer::allocate(bound_device(), 16).kernel_access(), KernelAccess::read_write);
    EXPECT_EQ(Buffer::allocate_copy(bound_device(), {}).size(), 0u);
}

class Parity43Svm : public DeviceTest {
protected:
    void SetUp() override {
        DeviceTest::SetUp();
        const ManagedMemoryCapabilities caps = managed_memory_capabilities(bound_device().device());
        if (!caps.supported()) GTEST_SKIP() << GetParam().name << " has no managed memory: " << caps.missing();
    }
};

TEST_P(Parity43Svm, Parity43Item16AlignedAllocations) {
    for (std::size_t alignment : {64u, 4096u, 65536u}) {
        ManagedMemoryFlags flags;
        flags.alignment = alignment;
        const ManagedMemory m = ManagedMemory::allocate(bound_device(), 1000, flags);
        EXPECT_EQ(reinterpret_cast<std::uintptr_t>(m.data()) % alignment, 0u) << alignment;
        EXPECT_EQ(m.flags().alignment, alignment);
        // An SVMPool allocating with those flags hands out aligned blocks.
        const SVMPool pool(bound_device().context(), flags);
        const PooledSVM block = pool.allocate(300);
        EXPECT_EQ(reinterpret_cast<std::uintptr_t>(block.data()) % alignment, 0u) << alignment;
    }
    ManagedMemoryFlags bad;
    bad.alignment = 48;
    try {
        (void)ManagedMemory::allocate(bound_device(), 64, bad);
        ADD_FAILURE() << "alignment 48 accepted";
    } catch (const ArgumentError& e) {
        EXPECT_EQ(e.argument(), "flags.alignment");
    }
}

TEST_P(Parity43Svm, Parity43Item16QueueOrderedRelease) {
    const std::size_t n = 4096;
    const auto host = random_vector<float>(n, -10.0f, 10.0f);
    ManagedMemory memory = ManagedMemory::allocate(bound_device(), n * sizeof(float));
    {
        auto scope = memory.host_access(queue(), ManagedMemory::Access::write);
        std::copy(host.begin(), host.end(), memory.as_span<float>().begin());
    }
    // Refused while another handle uses the memory.
    {
        const ManagedMemory copy = memory;
        try {
            memory.enqueue_release(queue());
            ADD_FAILURE() << "released while a copy is alive";
        } catch (const ArgumentError& e) {
            EXPECT_EQ(e.argument(), "memory");
        }
    }
    // Work enqueued before the release reads the memory; the release follows it in the queue.
    const Buffer result = Buffer::allocate(bound_device(), n * sizeof(float));
    Program program(bound_device(), doubling_source);
    program.kernel("twice")(queue(), {n}, std::nullopt, result, memory, static_cast<unsigned>(n));
    memory.enqueue_release(queue());
    EXPECT_EQ(memory.data(), nullptr);
    EXPECT_EQ(memory.size(), 0u);
    memory.enqueue_release(queue());  // an empty handle: nothing
    std::vector<float> out(n);
    result.get(queue(), std::span<float>(out));
    for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(out[i], 2.0f * host[i]) << i;
}

KJARNI_INSTANTIATE_DEVICE_TESTS(Parity43Memory);
KJARNI_INSTANTIATE_DEVICE_TESTS(Parity43Svm);

}  // namespace parity43_memory
}  // namespace kjarni::test
