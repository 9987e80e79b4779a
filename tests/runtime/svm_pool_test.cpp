// SVMPool / PooledSVM (PyOpenCL's SVM pool over kjarni's managed memory): blocks used by kernels
// and the host, returned by release() and handed out again from the bins, queue binding, and the
// typed errors. Skipped, with the reason, on devices without managed / shared virtual memory.

#include <gtest/gtest.h>

#include <vector>

#include "support/random_data.hpp"
#include "support/suite_programs.hpp"
#include "support/test_devices.hpp"

namespace kjarni::test {
namespace {

constexpr const char* affine_source = R"(
KERNEL void affine(GLOBAL_MEM int32_t* x, int32_t a, int32_t b)
{
    const SIZE_T i = get_global_id(0);
    x[i] = a * x[i] + b;
}
)";

class SvmPoolTest : public DeviceTest {
protected:
    void SetUp() override {
        const ManagedMemoryCapabilities caps = managed_memory_capabilities(bound_device().device());
        if (!caps.supported()) GTEST_SKIP() << GetParam().name << " has no managed memory: " << caps.missing();
    }

    static SuitePrograms& programs() {
        static auto* programs = new SuitePrograms;
        return *programs;
    }
    static void TearDownTestSuite() { programs().clear(); }
    const Program& program() {
        return programs().get(context(), [&] { return Program(bound_device(), affine_source); });
    }

    void write(const PooledSVM& memory, const std::vector<std::int32_t>& values) {
        ManagedHostAccess scope = memory.memory().host_access(queue(), ManagedMemory::Access::write, 0, memory.size());
        std::copy(values.begin(), values.end(), scope.as_span<std::int32_t>().begin());
    }
    std::vector<std::int32_t> read(const PooledSVM& memory) {
        ManagedHostAccess scope = memory.memory().host_access(queue(), ManagedMemory::Access::read, 0, memory.size());
        const auto values = scope.as_span<std::int32_t>();
        return {values.begin(), values.end()};
    }

    // Fresh random data through the kernel in pooled memory, checked on the host.
    void check_affine(const PooledSVM& memory, const Queue& on) {
        const std::size_t n = memory.size() / 4;
        const auto x = random_vector<std::int32_t>(n, -30000, 30000);
        const auto ab = random_vector<std::int32_t>(2, -1000, 1000);
        write(memory, x);
        program().kernel("affine")(on, {n}, std::nullopt, memory, ab[0], ab[1]);
        on.synchronize();
        const auto y = read(memory);
        for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(y[i], ab[0] * x[i] + ab[1]) << i;
    }
};

TEST_P(SvmPoolTest, KernelsAndHostUsePooledMemory) {
    const SVMPool pool(context());
    PooledSVM memory = pool.allocate(queue(), 1000 * 4);
    ASSERT_TRUE(memory);
    EXPECT_EQ(memory.size(), 4000u);
    EXPECT_GE(memory.memory().size(), 4000u);
    EXPECT_EQ(memory.memory().size(), MemoryPool::allocation_size(4000, pool.leading_bits_in_bin_id()));
    check_affine(memory, queue());
    EXPECT_EQ(pool.active_blocks(), 1u);
    EXPECT_EQ(pool.active_bytes(), 4000u);
}

TEST_P(SvmPoolTest, ReleasedBlocksAreHandedOutAgain) {
    const SVMPool pool(context());
    PooledSVM first = pool.allocate(queue(), 3000 * 4);
    std::byte* const address = first.data();
    check_affine(first, queue());
    first.release();
    EXPECT_FALSE(first);
    EXPECT_EQ(first.data(), nullptr);
    first.release();  // a second release does nothing
    EXPECT_EQ(pool.held_blocks(), 1u);
    EXPECT_EQ(pool.active_blocks(), 0u);
    // A request of the same bin (a little smaller) gets the same block, without allocating.
    PooledSVM second = pool.allocate(queue(), 2990 * 4);
    EXPECT_EQ(second.data(), address);
    EXPECT_EQ(pool.held_blocks(), 0u);
    check_affine(second, queue());
    second.enqueue_release();
    // Another bin allocates anew.
    PooledSVM other = pool.allocate(64);
    EXPECT_NE(other.data(), address);
    EXPECT_EQ(pool.held_blocks(), 1u);
    pool.free_held();
    EXPECT_EQ(pool.held_blocks(), 0u);
    pool.stop_holding();
    other = PooledSVM();  // moved-over: released, and freed since the pool holds nothing now
    EXPECT_EQ(pool.held_blocks(), 0u);
    EXPECT_EQ(pool.managed_bytes(), 0u);
}

TEST_P(SvmPoolTest, QueueBindingOrdersReuse) {
    const SVMPool pool(context());
    const Queue second_queue(bound_device());
    PooledSVM memory = pool.allocate(2048 * 4);  // bound to no queue
    memory.bind_to_queue(queue());
    check_affine(memory, queue());
    std::byte* const address = memory.data();
    memory.release();
    // Handed to another queue behind the first queue's work; the kernels there see the memory.
    PooledSVM reused = pool.allocate(second_queue, 2048 * 4);
    EXPECT_EQ(reused.data(), address);
    check_affine(reused, second_queue);
    reused.unbind_from_queue();
    reused.release();
    // Unbound: handed out to a request without a queue at once.
    PooledSVM again = pool.allocate(2048 * 4);
    EXPECT_EQ(again.data(), address);
}

TEST_P(SvmPoolTest, BadUseIsTyped) {
    const SVMPool pool(context());
    EXPECT_THROW(pool.allocate(0), ArgumentError);
    EXPECT_THROW(SVMPool(context(), {}, 17), ArgumentError);
    PooledSVM memory = pool.allocate(256);
    memory.release();
    EXPECT_THROW(memory.memory(), ArgumentError);
    EXPECT_THROW(memory.bind_to_queue(queue()), ArgumentError);
    EXPECT_THROW(memory.unbind_from_queue(), ArgumentError);
    EXPECT_THROW(program().kernel("affine")(queue(), {1}, std::nullopt, memory, 1, 2), ArgumentError);
}

}  // namespace

KJARNI_INSTANTIATE_DEVICE_TESTS(SvmPoolTest);

}  // namespace kjarni::test
