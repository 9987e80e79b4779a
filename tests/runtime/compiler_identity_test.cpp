// The compiler identity (part of every program cache key) is asked of the backend once per process
// and device, not once per context (src/core/context.cpp, process_compiler_identity).

#include <gtest/gtest.h>

#include <memory>
#include <thread>
#include <vector>

#include "core/context_state.hpp"
#include "kjarni/context.hpp"
#include "support/fake_backend.hpp"

namespace kjarni::test {
namespace {

TEST(ProgramCacheCompilerIdentity, AskedOncePerProcessAndDevice) {
    static FakeApi fake;  // lives for the process, like real backends
    const long before = FakeContext::identity_asks.load();
    {
        const Context first = Context::from_devices(fake.device());
        EXPECT_EQ(detail::state_of(first).compiler_identity(0), "fake");
    }
    const long asked = FakeContext::identity_asks.load() - before;
    EXPECT_LE(asked, 1);  // 0 when an earlier test in this process asked already

    // New contexts over the same device, from several threads at once: none asks the backend.
    std::vector<std::thread> threads;
    std::vector<std::string> seen(8);
    for (std::size_t t = 0; t < seen.size(); ++t) {
        threads.emplace_back([&seen, t] {
            for (int i = 0; i < 20; ++i) {
                const Context context = Context::from_devices(fake.device());
                seen[t] = detail::state_of(context).compiler_identity(0);
            }
        });
    }
    for (std::thread& thread : threads) thread.join();
    for (const std::string& identity : seen) EXPECT_EQ(identity, "fake");
    EXPECT_EQ(FakeContext::identity_asks.load() - before, asked);
}

TEST(ProgramCacheCompilerIdentity, ADeviceThatDiedIsNotTakenForANewOne) {
    // A new backend device is asked afresh, also after an older one died. (Its address may only
    // repeat a dead one's when the device was allocated apart from its shared_ptr control block:
    // the cache's weak pointer keeps a make_shared device's memory, as here; the cache checks that
    // the pointer it holds has not expired for the other case.)
    for (int round = 0; round < 3; ++round) {
        auto api = std::make_unique<FakeApi>();
        const long before = FakeContext::identity_asks.load();
        {
            const Context context = Context::from_devices(api->device());
            EXPECT_EQ(detail::state_of(context).compiler_identity(0), "fake");
            const Context again = Context::from_devices(api->device());
            EXPECT_EQ(detail::state_of(again).compiler_identity(0), "fake");
        }
        EXPECT_EQ(FakeContext::identity_asks.load() - before, 1) << "round " << round;
        api.reset();  // its device dies with it, after the contexts
    }
}

}  // namespace
}  // namespace kjarni::test
