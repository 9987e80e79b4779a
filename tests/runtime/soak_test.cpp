// Soak: 8 threads at once allocating, copying, compiling and launching on every device of a
// multi-device context (two PoCL devices in CI), every result checked, and the process's memory
// flat once warm. A few seconds in CI; KJARNI_SOAK_SECONDS=600 (say) for the long run.
//
// Exactness: x holds integers in [-1000, 1000] and y = 2 * x + k with k in [0, 7]; every value is
// far below 2^24, so float arithmetic is exact and results are compared with ==.

#include <gtest/gtest.h>

#include <unistd.h>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "kjarni/kjarni.hpp"
#include "kjarni/memory_pool.hpp"
#include "support/random_data.hpp"
#include "support/test_devices.hpp"

namespace kjarni::test {
namespace {

double soak_seconds() {
    const char* text = std::getenv("KJARNI_SOAK_SECONDS");
    if (text == nullptr || *text == '\0') return 3.0;
    return std::strtod(text, nullptr);
}

/// Resident memory of the process in bytes (/proc/self/statm), 0 where unknown.
std::size_t resident_bytes() {
    std::ifstream statm("/proc/self/statm");
    std::size_t pages = 0;
    std::size_t resident = 0;
    if (!(statm >> pages >> resident)) return 0;
    return resident * static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
}

/// The kernel a thread compiles: one of 8 variants (k), so that compiles and the module cache's
/// hits both happen while other threads launch.
std::string source(int k) {
    return "KERNEL void affine(GLOBAL_MEM float* y, GLOBAL_MEM const float* x, unsigned n)\n"
           "{\n"
           "    const SIZE_T i = get_global_id(0);\n"
           "    if (i < n) y[i] = 2.0f * x[i] + " +
           std::to_string(k) + ".0f;\n}\n";
}

struct Round {
    std::size_t failures = 0;
    std::size_t launches = 0;
    std::string first_failure;
};

Round soak_one_thread(const Context& context, unsigned seed, std::chrono::steady_clock::time_point until) {
    Round round;
    std::mt19937 engine(seed);
    const auto devices = context.devices();
    const MemoryPool pool;
    while (std::chrono::steady_clock::now() < until && round.failures == 0) {
        const BoundDevice device = devices[engine() % devices.size()];
        const Queue queue(device);
        const int k = static_cast<int>(engine() % 8);
        const std::size_t n = 1 + engine() % 5000;
        std::vector<float> x(n);
        std::uniform_int_distribution<int> value(-1000, 1000);
        for (float& v : x) v = static_cast<float>(value(engine));
        // Half the buffers from a pool (queue-ordered reuse), half fresh.
        const bool pooled = (engine() & 1) != 0;
        const Buffer xb =
            pooled ? pool.allocate(queue, n * sizeof(float)) : Buffer::allocate(device, n * sizeof(float));
        const Buffer yb =
            pooled ? pool.allocate(queue, n * sizeof(float)) : Buffer::allocate(device, n * sizeof(float));
        xb.set(queue, std::span<const float>(x));
        const Program program(device, source(k));
        program.kernel("affine")(queue, {n}, std::nullopt, yb, xb, static_cast<unsigned>(n));
        std::vector<float> y(n);
        yb.get(queue, std::span<float>(y));
        ++round.launches;
        for (std::size_t i = 0; i < n; ++i) {
            if (y[i] != 2.0f * x[i] + static_cast<float>(k)) {
                ++round.failures;
                round.first_failure = "k " + std::to_string(k) + " n " + std::to_string(n) + " at " +
                                      std::to_string(i) + ": " + std::to_string(y[i]) + " instead of " +
                                      std::to_string(2.0f * x[i] + static_cast<float>(k));
                break;
            }
        }
    }
    return round;
}

class Soak : public DeviceTest {};

TEST_P(Soak, EightThreadsAllocateCopyCompileAndLaunchWithFlatMemory) {
    // Every device of the multi-device context when there is one (two PoCL devices in CI), else this
    // device; the sweep over devices adds nothing here, so only the first device runs it.
    if (GetParam().device_index != test_devices().front().device_index ||
        GetParam().platform_index != test_devices().front().platform_index ||
        GetParam().api != test_devices().front().api) {
        GTEST_SKIP() << "runs once, on the first device's platform";
    }
    const Context* multi = shared_multi_device_context();
    const Context& context = multi != nullptr ? *multi : this->context();
    constexpr unsigned thread_count = 8;
    const double seconds = soak_seconds();
    const auto run_for = [&](double s, unsigned seed_base) {
        const auto until =
            std::chrono::steady_clock::now() +
            std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(s));
        std::vector<Round> rounds(thread_count);
        std::vector<std::thread> threads;
        for (unsigned t = 0; t < thread_count; ++t) {
            threads.emplace_back([&, t] {
                try {
                    rounds[t] = soak_one_thread(context, seed_base + t, until);
                } catch (const std::exception& e) {
                    rounds[t].failures = 1;
                    rounds[t].first_failure = std::string("exception: ") + e.what();
                }
            });
        }
        for (auto& thread : threads) thread.join();
        std::size_t launches = 0;
        for (const Round& r : rounds) {
            EXPECT_EQ(r.failures, 0U) << r.first_failure;
            launches += r.launches;
        }
        return launches;
    };
    // Warm-up: every variant compiled, pools and the driver's own caches filled.
    const unsigned seed = static_cast<unsigned>(random_engine()());
    run_for(std::min(1.0, seconds / 3), seed);
    const std::size_t warm = resident_bytes();
    const std::size_t launches = run_for(seconds, seed + 100);
    const std::size_t after = resident_bytes();
    std::cout << "soak: " << launches << " launches by " << thread_count << " threads on " << context.device_count()
              << " device(s) in " << seconds << " s; resident " << warm / (1 << 20) << " MiB warm, "
              << after / (1 << 20) << " MiB after\n";
    EXPECT_GT(launches, 0U);
    // Flat: what a thread holds at a time is a few buffers of at most 20 KB and a Program; allow
    // 64 MiB for the allocator's and the driver's arenas settling (a leak of one buffer or program
    // per launch grows far past that in minutes, and past it in seconds under ASan's quarantine
    // only when it is a real leak, which LeakSanitizer then names).
    // Under AddressSanitizer freed memory waits in its quarantine (256 MiB by default) before it is
    // reused, so the resident size grows by up to that much without a leak; LeakSanitizer, which
    // runs at the process's end in that build, is then what finds leaks.
#if defined(__SANITIZE_ADDRESS__)
    constexpr std::size_t quarantine = std::size_t{256} << 20;
#else
    constexpr std::size_t quarantine = 0;
#endif
    if (warm != 0) {
        EXPECT_LT(after, warm + (std::size_t{64} << 20) + quarantine) << "memory grew while soaking";
    }
}

KJARNI_INSTANTIATE_DEVICE_TESTS(Soak);

}  // namespace
}  // namespace kjarni::test
