// Virtual buffers: statistics after each step, dependency forms, and — on real data — that
// allocations declared dependent never share memory, through pipelines of random shapes.

#include <gtest/gtest.h>

#include <list>
#include <random>

#include "kjarni/array.hpp"
#include "kjarni/virtual_buffers.hpp"
#include "support/random_data.hpp"
#include "support/test_devices.hpp"

namespace kjarni::test {

// A user type exposing its virtual allocations (found by argument-dependent lookup).
struct Workspace {
    std::vector<Array> temporaries;
};
std::vector<Array> virtual_allocations(const Workspace& w) { return w.temporaries; }

namespace {

class VirtualBuffers : public DeviceTest {
protected:
    // Poisons the buffer, then writes fresh random bytes; returns them.
    std::vector<std::byte> write_random(const Buffer& buffer) {
        const std::byte poison[1] = {std::byte{0xA5}};
        buffer.fill(queue(), poison);
        auto data = random_bytes(buffer.size());
        buffer.set(queue(), std::span<const std::byte>(data));
        return data;
    }

    std::vector<std::byte> read(const Buffer& buffer) {
        std::vector<std::byte> out(buffer.size());
        buffer.get(queue(), std::span<std::byte>(out));
        return out;
    }
};

VirtualAllocationStatistics expected(std::vector<std::size_t> real, std::vector<std::size_t> virt) {
    VirtualAllocationStatistics s;
    for (auto size : real) {
        ++s.real_num;
        s.real_size_total += size;
        ++s.real_sizes[size];
    }
    for (auto size : virt) {
        ++s.virtual_num;
        s.virtual_size_total += size;
        ++s.virtual_sizes[size];
    }
    return s;
}

TEST_P(VirtualBuffers, ZeroOffsetStatisticsAfterEachStep) {
    ZeroOffsetManager manager(bound_device());
    EXPECT_EQ(manager.statistics(), expected({}, {}));
    std::optional<Buffer> a = manager.allocate(1000);
    EXPECT_EQ(manager.statistics(), expected({1000}, {1000}));
    EXPECT_EQ(a->size(), 1000u);
    // Dependent: its own real allocation.
    std::optional<Buffer> b = manager.allocate(500, *a);
    EXPECT_EQ(manager.statistics(), expected({1000, 500}, {1000, 500}));
    // Dependent on b only: shares a's real allocation (the smallest that fits and is allowed).
    std::optional<Buffer> c = manager.allocate(800, *b);
    EXPECT_EQ(manager.statistics(), expected({1000, 500}, {1000, 500, 800}));
    EXPECT_EQ(c->native_handle(), a->native_handle());
    EXPECT_EQ(c->offset(), 0u);
    // A sub-region keeps its allocation alive.
    const Buffer part = a->get_sub_region(10, 20);
    EXPECT_EQ(virtual_allocation_id(part), virtual_allocation_id(*a));
    a.reset();
    EXPECT_EQ(manager.statistics(), expected({1000, 500}, {1000, 500, 800}));
    // Freed virtual allocations leave their real ones for reuse.
    b.reset();
    EXPECT_EQ(manager.statistics(), expected({1000, 500}, {1000, 800}));
    // An unused real allocation too small for a request is replaced by one of its size.
    std::optional<Buffer> d = manager.allocate(2000, part);
    EXPECT_EQ(manager.statistics(), expected({1000, 2000}, {1000, 800, 2000}));
    d.reset();
    c.reset();
    EXPECT_EQ(manager.statistics(), expected({1000, 2000}, {1000}));
    manager.pack(queue());
    EXPECT_EQ(manager.statistics(), expected({1000}, {1000}));
}

TEST_P(VirtualBuffers, TrivialStatisticsAfterEachStep) {
    TrivialManager manager(bound_device());
    std::optional<Buffer> a = manager.allocate(1000);
    std::optional<Buffer> b = manager.allocate(1000);  // independent, yet its own allocation
    EXPECT_EQ(manager.statistics(), expected({1000, 1000}, {1000, 1000}));
    EXPECT_NE(a->native_handle(), b->native_handle());
    a.reset();
    EXPECT_EQ(manager.statistics(), expected({1000}, {1000}));
    b.reset();
    EXPECT_EQ(manager.statistics(), expected({}, {}));
}

TEST_P(VirtualBuffers, DependencyForms) {
    ZeroOffsetManager manager(bound_device());
    const Array a = Array::empty(bound_device(), {64}, dtypes::float32, Order::C, manager.allocator());
    const Array b = Array::empty(bound_device(), {64}, dtypes::float32, Order::C, manager.allocator(a));
    const Array persistent = Array::empty(bound_device(), {64}, dtypes::float32);
    ASSERT_TRUE(virtual_allocation_id(a.base()));
    EXPECT_FALSE(virtual_allocation_id(persistent.base()));
    EXPECT_TRUE(VirtualDependencies(persistent).ids().empty());  // persistent: ignored

    const auto id_a = *virtual_allocation_id(a.base());
    const auto id_b = *virtual_allocation_id(b.base());
    const std::vector<VirtualAllocationId> both = id_a < id_b ? std::vector{id_a, id_b} : std::vector{id_b, id_a};
    EXPECT_EQ(VirtualDependencies({a, b, persistent}).ids(), both);
    EXPECT_EQ(VirtualDependencies(std::vector<Array>{a, b}).ids(), both);
    EXPECT_EQ(VirtualDependencies(std::list<std::vector<Array>>{{a}, {b, a}}).ids(), both);
    EXPECT_EQ(VirtualDependencies(Workspace{{a, b}}).ids(), both);
    EXPECT_EQ(VirtualDependencies(std::vector<Workspace>{{{a}}, {{b}}}).ids(), both);
    EXPECT_EQ(VirtualDependencies({Workspace{{a}}, b.base().get_sub_region(0, 4)}).ids(), both);
    EXPECT_EQ(manager.allocator(Workspace{{a, b}}).dependencies().ids(), both);

    // Views of a virtual array count as it.
    EXPECT_EQ(VirtualDependencies(a[{Slice{1, 10}}]).ids(), std::vector{id_a});

    // Dependent on both: a third real allocation; on neither: shares one.
    const Array c = Array::empty(bound_device(), {64}, dtypes::float32, Order::C, manager.allocator(Workspace{{a, b}}));
    EXPECT_EQ(manager.statistics().real_num, 3u);
    const Array d = Array::empty(bound_device(), {64}, dtypes::float32, Order::C, manager.allocator({a, b, c}));
    EXPECT_EQ(manager.statistics().real_num, 4u);
    const Array e = Array::empty(bound_device(), {64}, dtypes::float32, Order::C, manager.allocator(a));
    EXPECT_EQ(manager.statistics().real_num, 4u);
    EXPECT_NE(e.base().native_handle(), a.base().native_handle());
}

TEST_P(VirtualBuffers, WrongDeviceOrQueueIsRejected) {
    Context* multi = shared_multi_device_context();
    if (!multi) GTEST_SKIP() << "needs a context of two devices";
    ZeroOffsetManager manager(multi->devices()[0]);
    EXPECT_THROW(manager.allocator()(multi->devices()[1], 16), ArgumentError);
    EXPECT_THROW(manager.pack(Queue(multi->devices()[1])), ArgumentError);
}

TEST_P(VirtualBuffers, AllocationsOutliveTheirManager) {
    std::optional<ZeroOffsetManager> manager(std::in_place, bound_device());
    const Buffer a = manager->allocate(256);
    const auto data = write_random(a);
    manager.reset();
    EXPECT_EQ(read(a), data);
}

// A pipeline of stages: each stage's outputs depend on each other and on the stage's inputs (all used
// at once); the inputs then go. Every buffer of a stage holds distinct random data, checked after
// all are written: a shared byte would show as clobbered data.
void run_pipeline(const VirtualManager& manager, std::mt19937_64& rng, int stages,
                  const std::function<std::vector<std::byte>(const Buffer&)>& write,
                  const std::function<std::vector<std::byte>(const Buffer&)>& read) {
    std::uniform_int_distribution<int> count(1, 4);
    std::uniform_int_distribution<std::size_t> size(1, 64);
    std::vector<Buffer> inputs;
    for (int stage = 0; stage < stages; ++stage) {
        std::vector<Buffer> outputs;
        const int n = count(rng);
        for (int i = 0; i < n; ++i) {
            std::vector<Buffer> dependencies = inputs;
            dependencies.insert(dependencies.end(), outputs.begin(), outputs.end());
            outputs.push_back(manager.allocator(dependencies)(manager.device(), size(rng) * 16));
        }
        std::vector<Buffer> group = inputs;
        group.insert(group.end(), outputs.begin(), outputs.end());
        std::vector<std::vector<std::byte>> written;
        for (const auto& b : group) written.push_back(write(b));
        for (std::size_t i = 0; i < group.size(); ++i) {
            ASSERT_EQ(read(group[i]), written[i]) << "stage " << stage << ", buffer " << i << " was clobbered";
        }
        const auto stats = manager.statistics();
        std::size_t live = 0;
        for (const auto& b : group) live += b.size();
        EXPECT_EQ(stats.virtual_num, group.size());
        EXPECT_EQ(stats.virtual_size_total, live);
        EXPECT_GE(stats.real_size_total, live);
        inputs = std::move(outputs);
    }
}

TEST_P(VirtualBuffers, DependentAllocationsNeverOverlapOnRealData) {
    std::mt19937_64 rng(random_engine()());
    auto write = [this](const Buffer& b) { return write_random(b); };
    auto reader = [this](const Buffer& b) { return read(b); };
    for (int round = 0; round < 8; ++round) {
        SCOPED_TRACE(testing::Message() << "round " << round);
        ZeroOffsetManager zero(bound_device());
        run_pipeline(zero, rng, 12, write, reader);
        if (HasFatalFailure()) return;
        TrivialManager trivial(bound_device());
        run_pipeline(trivial, rng, 4, write, reader);
        if (HasFatalFailure()) return;
        EXPECT_EQ(trivial.statistics().real_num, 0u);  // all freed with their virtual allocations
    }
}

TEST_P(VirtualBuffers, ZeroOffsetUsesFewerRealBytesThanTrivial) {
    // A chain: each temporary depends only on the previous one (read one, write the next).
    ZeroOffsetManager zero(bound_device());
    TrivialManager trivial(bound_device());
    std::vector<Buffer> zs, ts;
    for (int i = 0; i < 8; ++i) {
        zs.push_back(zs.empty() ? zero.allocate(4096) : zero.allocate(4096, zs.back()));
        ts.push_back(ts.empty() ? trivial.allocate(4096) : trivial.allocate(4096, ts.back()));
    }
    EXPECT_EQ(zero.statistics().real_size_total, 2u * 4096);
    EXPECT_EQ(trivial.statistics().real_size_total, 8u * 4096);
    EXPECT_EQ(zero.statistics().virtual_size_total, trivial.statistics().virtual_size_total);
    // Neighbours hold distinct data at once.
    for (std::size_t i = 1; i < zs.size(); ++i) {
        const auto first = write_random(zs[i - 1]);
        const auto second = write_random(zs[i]);
        ASSERT_EQ(read(zs[i - 1]), first);
        ASSERT_EQ(read(zs[i]), second);
    }
}

TEST_P(VirtualBuffers, PackKeepsLiveDataAndFreesTheRest) {
    ZeroOffsetManager manager(bound_device());
    std::optional<Buffer> a = manager.allocate(3000);
    const Buffer b = manager.allocate(1000, *a);
    std::optional<Buffer> c = manager.allocate(2000, {*a, b});
    const auto data = write_random(b);
    a.reset();
    c.reset();
    EXPECT_EQ(manager.statistics(), expected({3000, 1000, 2000}, {1000}));
    manager.pack(queue());
    EXPECT_EQ(manager.statistics(), expected({1000}, {1000}));
    EXPECT_EQ(read(b), data);
}

}  // namespace

KJARNI_INSTANTIATE_DEVICE_TESTS(VirtualBuffers);

}  // namespace kjarni::test
