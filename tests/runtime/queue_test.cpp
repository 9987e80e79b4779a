// Queues, multi-queues and events: ordering, completion, timing, cross-queue waits.

#include <gtest/gtest.h>

#include "support/random_data.hpp"
#include "support/test_devices.hpp"

namespace kjarni::test {
namespace {

class Queues : public DeviceTest {};

TEST_P(Queues, EventsCompleteAndTimeForwards) {
    Queue queue(bound_device());
    EXPECT_EQ(queue.device(), bound_device());
    EXPECT_NE(queue.native_handle(), 0u);
    const std::size_t size = std::size_t{8} << 20;
    auto a = Buffer::allocate(bound_device(), size);
    auto b = Buffer::allocate(bound_device(), size);
    const auto data = random_bytes(size);
    a.set(queue, std::span<const std::byte>(data));

    const Event start = queue.record_event();
    b.set(queue, a, true);
    const Event end = queue.record_event();
    end.wait();
    EXPECT_TRUE(start.is_complete());
    EXPECT_TRUE(end.is_complete());
    const double ms = end.time_since(start);
    EXPECT_GE(ms, 0.0);
    EXPECT_LT(ms, 60'000.0);
    EXPECT_DOUBLE_EQ(start.time_till(end), ms);

    std::vector<std::byte> back(size);
    b.get(queue, std::span<std::byte>(back));
    EXPECT_EQ(back, data);
    queue.synchronize();
}

TEST_P(Queues, AQueueWaitsForAnotherQueuesEvent) {
    // q1 copies a -> b; q2 waits for q1's event, then copies b -> c. Without the wait, c could get
    // the stale contents of b (its poison).
    Queue q1(bound_device());
    Queue q2(bound_device());
    const std::size_t size = std::size_t{16} << 20;
    auto a = Buffer::allocate(bound_device(), size);
    auto b = Buffer::allocate(bound_device(), size);
    auto c = Buffer::allocate(bound_device(), size);
    const auto data = random_bytes(size);
    a.set(q1, std::span<const std::byte>(data));
    const std::byte poison{0xEE};
    b.fill(q1, std::span(&poison, 1));
    c.fill(q1, std::span(&poison, 1));
    q1.synchronize();

    b.set(q1, a, true);
    const Event copied = q1.record_event();
    q2.wait_for(copied);
    c.set(q2, b, true);
    std::vector<std::byte> back(size);
    c.get(q2, std::span<std::byte>(back));
    EXPECT_EQ(back, data);
}

TEST_P(Queues, EventsStillHeldAreNeverRecordedAgain) {
    // A queue may record an event that nothing holds any more over again (CUDA reuses the event of
    // launches and record_event that way); one still held must keep marking its own point.
    Queue queue(bound_device());
    const std::size_t size = std::size_t{8} << 20;
    auto a = Buffer::allocate(bound_device(), size);
    auto b = Buffer::allocate(bound_device(), size);
    const auto data = random_bytes(size);
    a.set(queue, std::span<const std::byte>(data));

    for (int i = 0; i < 3; ++i) static_cast<void>(queue.record_event());  // dropped at once
    const Event first = queue.record_event();
    const Event second = queue.record_event();
    EXPECT_NE(first, second);
    for (int i = 0; i < 3; ++i) {
        b.set(queue, a, true);
        const Event dropped = queue.record_event();
        EXPECT_NE(dropped, first);
        EXPECT_NE(dropped, second);
    }
    const Event last = queue.record_event();
    EXPECT_NE(last, first);
    EXPECT_NE(last, second);
    last.wait();
    EXPECT_TRUE(first.is_complete());
    EXPECT_TRUE(second.is_complete());
    // Three 8 MiB copies lie between `second` and `last`: their times are of two points in order.
    EXPECT_GE(last.time_since(second), 0.0);
    EXPECT_GE(second.time_since(first), 0.0);
    std::vector<std::byte> back(size);
    b.get(queue, std::span<std::byte>(back));
    EXPECT_EQ(back, data);
}

KJARNI_INSTANTIATE_DEVICE_TESTS(Queues);

TEST(MultiQueues, OnDevicesAndLookup) {
    Context* context = shared_multi_device_context();
    if (context == nullptr) GTEST_SKIP() << "no platform with two selected devices";
    const MultiQueue mq = MultiQueue::on_devices(context->devices());
    ASSERT_EQ(mq.queues().size(), context->device_count());
    EXPECT_EQ(mq.devices(), context->devices());
    for (std::size_t i = 0; i < context->device_count(); ++i) {
        EXPECT_EQ(mq[context->devices()[i]].device(), context->devices()[i]);
    }
    mq.synchronize();

    // Two queues of one device, or queues of different contexts, are refused.
    const BoundDevice d0 = context->devices()[0];
    EXPECT_THROW(MultiQueue(std::vector<Queue>{Queue(d0), Queue(d0)}), ArgumentError);
    const Context single = Context::from_devices(d0.device());
    EXPECT_THROW(MultiQueue(std::vector<Queue>{Queue(d0), Queue(single.devices()[0])}), ArgumentError);
    EXPECT_THROW(MultiQueue(std::vector<Queue>{}), ArgumentError);
    const std::size_t first[] = {0};
    const MultiQueue partial = MultiQueue::on_devices(context->devices().subset(first));
    EXPECT_THROW(partial[context->devices()[1]], ArgumentError);
}

TEST(MultiQueues, EveryDeviceWorksOnItsOwnQueue) {
    Context* context = shared_multi_device_context();
    if (context == nullptr) GTEST_SKIP() << "no platform with two selected devices";
    const MultiQueue mq = MultiQueue::on_devices(context->devices());
    std::vector<Buffer> buffers;
    std::vector<std::vector<std::byte>> data;
    for (const Queue& q : mq.queues()) {
        data.push_back(random_bytes(1 << 20));
        buffers.push_back(Buffer::allocate(q.device(), data.back().size()));
        buffers.back().set(q, std::span<const std::byte>(data.back()), true);
    }
    mq.synchronize();
    for (std::size_t i = 0; i < buffers.size(); ++i) {
        std::vector<std::byte> back(data[i].size());
        buffers[i].get(mq.queues()[i], std::span<std::byte>(back));
        EXPECT_EQ(back, data[i]) << "device " << i;
    }
}

}  // namespace
}  // namespace kjarni::test
