// ContextMemo and first_arg_dependent_memoize (issue 43, item 17; PyOpenCL's tools): one value per
// context and key, made once, shared between threads, dropped when the context dies (or on erase /
// clear), and what keeps a context alive and what does not.

#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "kjarni/context_memo.hpp"
#include "support/test_devices.hpp"

namespace kjarni::test {
namespace {

class ContextMemoTest : public DeviceTest {};

TEST_P(ContextMemoTest, MakesOncePerContextAndKey) {
    const Context a = Context::from_devices(GetParam().device());
    const Context b = Context::from_devices(GetParam().device());
    ASSERT_FALSE(a == b);
    const ContextMemo<int, std::string> memo;
    int made = 0;
    const auto value = [&](const Context& c, int key) {
        return memo.get(c, key, [&] {
            ++made;
            return std::string(&c == &a ? "a" : "b") + std::to_string(key);
        });
    };
    EXPECT_EQ(value(a, 1), "a1");
    EXPECT_EQ(value(a, 1), "a1");
    EXPECT_EQ(value(a, 2), "a2");
    EXPECT_EQ(value(b, 1), "b1");  // another context: its own entries
    EXPECT_EQ(made, 3);
    EXPECT_EQ(memo.size(a), 2u);
    EXPECT_EQ(memo.size(b), 1u);
    EXPECT_EQ(memo.find(a, 2), std::optional<std::string>("a2"));
    EXPECT_FALSE(memo.find(b, 2).has_value());
    // A copy of a Context is the same context; a copy of the memo shares its entries.
    const Context a_again = a;
    const ContextMemo<int, std::string> copy = memo;
    EXPECT_EQ(copy.get(a_again, 1, [] { return std::string("never made"); }), "a1");
    // Another memo has entries of its own.
    const ContextMemo<int, std::string> other;
    EXPECT_EQ(other.get(a, 1, [] { return std::string("other"); }), "other");
    // An exception from make is the caller's, and nothing is kept.
    EXPECT_THROW(memo.get(a, 7, []() -> std::string { throw ArgumentError("x", "no"); }), ArgumentError);
    EXPECT_FALSE(memo.find(a, 7).has_value());
    memo.erase(a);
    EXPECT_EQ(memo.size(a), 0u);
    EXPECT_EQ(memo.size(b), 1u);
    memo.clear();
    EXPECT_EQ(memo.size(b), 0u);
}

TEST_P(ContextMemoTest, EntriesDieWithTheContext) {
    const ContextMemo<int, std::shared_ptr<int>> memo;
    std::weak_ptr<int> value;
    std::weak_ptr<backend::Context> backend;
    {
        const Context context = Context::from_devices(GetParam().device());
        backend = detail::backend_of(context);
        const auto made = memo.get(context, 3, [] { return std::make_shared<int>(42); });
        value = made;
        EXPECT_EQ(*memo.get(context, 3, [] { return std::make_shared<int>(0); }), 42);
    }
    EXPECT_TRUE(value.expired()) << "the entry outlived its context";
    EXPECT_TRUE(backend.expired()) << "the memo kept the context alive";
    // Entries the memo's end drops, with the context alive.
    std::weak_ptr<int> second;
    {
        const ContextMemo<int, std::shared_ptr<int>> short_lived;
        second = short_lived.get(context(), 1, [] { return std::make_shared<int>(1); });
        EXPECT_FALSE(second.expired());
    }
    EXPECT_TRUE(second.expired()) << "the memo's end left its entries in the context";
}

TEST_P(ContextMemoTest, ValueHoldingTheContextGoesWithEraseOrClear) {
    // A Buffer holds its context: the entry keeps it alive (as PyOpenCL's cached kernels do)
    // until erase() or clear() drops the entry.
    const ContextMemo<int, Buffer> memo;
    {
        std::weak_ptr<backend::Context> backend;
        {
            const Context context = Context::from_devices(GetParam().device());
            backend = detail::backend_of(context);
            (void)memo.get(context, 0, [&] { return Buffer::allocate(context.devices()[0], 256); });
        }
        EXPECT_FALSE(backend.expired()) << "the entry holds its context";
        memo.clear();
        EXPECT_TRUE(backend.expired()) << "clear";
    }
    // erase(context) itself, with the user's handle kept.
    std::weak_ptr<backend::Context> backend;
    {
        const Context context = Context::from_devices(GetParam().device());
        backend = detail::backend_of(context);
        (void)memo.get(context, 0, [&] { return Buffer::allocate(context.devices()[0], 256); });
        memo.erase(context);
    }
    EXPECT_TRUE(backend.expired()) << "erase";
}

TEST_P(ContextMemoTest, ThreadsShareOneValuePerKey) {
    const ContextMemo<int, std::shared_ptr<const int>> memo;
    constexpr std::size_t threads = 8;
    constexpr int keys = 16, calls = 400;
    std::atomic<int> made{0};
    std::vector<std::map<int, const int*>> seen(threads);
    std::vector<std::thread> workers;
    const unsigned seed = std::random_device{}();
    for (std::size_t t = 0; t < threads; ++t) {
        workers.emplace_back([&, t] {
            std::mt19937 rng(seed + static_cast<unsigned>(t));
            for (int i = 0; i < calls; ++i) {
                const int key = static_cast<int>(rng() % keys);
                const auto v = memo.get(context(), key, [&] {
                    ++made;
                    return std::make_shared<const int>(key * 10);
                });
                EXPECT_EQ(*v, key * 10);
                auto [it, first] = seen[t].emplace(key, v.get());
                EXPECT_EQ(it->second, v.get()) << "one thread saw two values of key " << key;
            }
        });
    }
    for (auto& w : workers) w.join();
    for (std::size_t t = 1; t < threads; ++t) {
        for (const auto& [key, pointer] : seen[t]) {
            if (seen[0].count(key)) {
                EXPECT_EQ(seen[0][key], pointer) << "threads saw two values of key " << key;
            }
        }
    }
    EXPECT_EQ(memo.size(context()), static_cast<std::size_t>(keys));
    EXPECT_GE(made.load(), keys);
    EXPECT_LE(made.load(), keys * static_cast<int>(threads));  // racing misses may each make one, never more
    memo.erase(context());
}

TEST_P(ContextMemoTest, FirstArgDependentMemoize) {
    int calls = 0;
    const auto describe = first_arg_dependent_memoize<std::string, int, std::string>(
        [&calls](const Context& c, int n, const std::string& what) {
            ++calls;
            return c.devices()[0].name() + "/" + std::to_string(n) + "/" + what;
        });
    const std::string name = bound_device().name();
    EXPECT_EQ(describe(context(), 4, "x"), name + "/4/x");
    EXPECT_EQ(describe(context(), 4, "x"), name + "/4/x");
    EXPECT_EQ(describe(context(), 5, "x"), name + "/5/x");
    EXPECT_EQ(describe(context(), 4, "y"), name + "/4/y");
    EXPECT_EQ(calls, 3);
    const Context other = Context::from_devices(GetParam().device());
    EXPECT_EQ(describe(other, 4, "x"), name + "/4/x");
    EXPECT_EQ(calls, 4);
}

KJARNI_INSTANTIATE_DEVICE_TESTS(ContextMemoTest);

}  // namespace
}  // namespace kjarni::test
