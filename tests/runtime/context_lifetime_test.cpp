// A context the user lets go is freed, with everything kjarni keeps for it (compiled programs, the
// algorithms' temporaries, the staging slots, BLAS handles): nothing of kjarni's outlives it, so a
// leak checker run at exit (LeakSanitizer, compute-sanitizer --leak-check full) reports nothing.

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <numeric>
#include <vector>

#include "kjarni/kjarni.hpp"
#include "kjarni/reduction.hpp"
#include "kjarni/scan.hpp"
#include "support/random_data.hpp"
#include "support/test_devices.hpp"

namespace kjarni::test {
namespace {

class ContextLifetime : public DeviceTest {};

TEST_P(ContextLifetime, ContextIsFreedAfterReductionsScansAndStagedTransfers) {
    std::weak_ptr<backend::Context> backend;
    {
        Context context = Context::from_devices(GetParam().device());
        backend = detail::backend_of(context);
        const Queue queue(context.devices()[0]);
        // Small integers: sums are exact whatever the order of additions.
        const std::vector<std::int32_t> host = random_vector<std::int32_t>(100000, -1000, 1000);
        const Array x = Array::from_host(queue, HostArray::from(host, {host.size()}));
        // Large enough to split into partial results, which live in the algorithms' temporaries.
        const auto total = sum(queue, x).get(queue).to_vector<std::int64_t>();
        ASSERT_EQ(total.size(), 1u);
        EXPECT_EQ(total[0], std::accumulate(host.begin(), host.end(), std::int64_t{0}));
        const auto running = cumsum(queue, x).get(queue).to_vector<std::int64_t>();
        ASSERT_EQ(running.size(), host.size());
        std::int64_t expected = 0;
        for (std::size_t i = 0; i < host.size(); ++i) {
            expected += host[i];
            ASSERT_EQ(running[i], expected) << i;
        }
        // Above the staging threshold (1 MiB): goes through the context's page-locked slots.
        const std::vector<std::byte> big = random_bytes(std::size_t{6} << 20);
        Buffer buffer = Buffer::allocate(context.devices()[0], big.size());
        buffer.set(queue, std::span<const std::byte>(big));
        std::vector<std::byte> back(big.size());
        buffer.get(queue, std::span<std::byte>(back));
        EXPECT_TRUE(back == big);
        queue.synchronize();
    }
    EXPECT_TRUE(backend.expired()) << "something kjarni keeps outlives the context";
}

KJARNI_INSTANTIATE_DEVICE_TESTS(ContextLifetime);

}  // namespace
}  // namespace kjarni::test
