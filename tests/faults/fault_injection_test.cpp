// Faults at every driver call site of a set of public operations, one at a time (issue 16, item 2).
//
// A run of the operations with no fault counts the driver calls that can fail (allocation,
// compilation, module load, launch, copy, event, queue and context creation: faults/opencl_faults
// .hpp). Then, for each call N, the operations run again with call N failing, and:
// - what escapes is a kjarni::Error (any other exception, a crash or a hang is a defect);
// - the objects involved stay usable: the same operations, on the same context and queue, then run
//   with no fault and give the right results;
// - nothing leaks: the OpenCL handles kjarni holds afterwards are those a clean run leaves (the
//   context's caches and pools), and LeakSanitizer sees the heap when the binary is built with the
//   sanitize preset (cmake --preset sanitize; cmake --build build-sanitize --target kjarni_fault_tests;
//   POCL_DEVICES=pthread build-sanitize/tests/kjarni_fault_tests: about 2 minutes, no report). CI
//   runs it in the plain test step: the ASan build of the library it needs would cost CI about
//   8 minutes more.
// kjarni's disk cache is off (KJARNI_CACHE=0, set by main below) so that every run compiles.

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <numeric>
#include <vector>

#include "faults/opencl_faults.hpp"
#include "kjarni/kjarni.hpp"
#include "support/random_data.hpp"

namespace kjarni::test {
namespace {

constexpr std::size_t kLength = 300;

/// The public operations under test, on `context`'s first device and `queue`, results checked
/// against the CPU. Each step reaches the driver differently.
void operations(const Context& context, const Queue& queue, const std::vector<std::int32_t>& data) {
    const BoundDevice device = context.devices()[0];

    // A buffer: allocation, a write, a device copy, a fill, a read.
    const Buffer a = Buffer::allocate(device, kLength * sizeof(std::int32_t));
    a.set(queue, std::span<const std::int32_t>(data));
    const Buffer b = Buffer::allocate(device, kLength * sizeof(std::int32_t));
    b.set(queue, a);
    const Buffer pad = Buffer::allocate(device, 64);
    const std::byte zero{0};
    pad.fill(queue, std::span(&zero, 1));
    std::vector<std::int32_t> back(kLength);
    b.get(queue, std::span<std::int32_t>(back));
    if (back != data) throw std::logic_error("buffer round trip differs");

    // A fresh context (context and queue creation) for what a context keeps once made: its
    // compiled programs and the algorithms' temporaries. Every run compiles.
    const Context other = Context::from_devices(device.device());
    const BoundDevice fresh = other.devices()[0];
    const Queue fresh_queue(fresh);
    const Buffer xs = Buffer::allocate(fresh, kLength * sizeof(std::int32_t));
    xs.set(fresh_queue, std::span<const std::int32_t>(data));
    const Buffer y = Buffer::allocate(fresh, kLength * sizeof(std::int32_t));

    // A program: compilation, a kernel, a launch, an event.
    const Program program(fresh, R"(
KERNEL void twice_plus(GLOBAL_MEM int* y, GLOBAL_MEM const int* x, int c, int n)
{
    const SIZE_T i = get_global_id(0);
    if (i < (SIZE_T)n) y[i] = 2 * x[i] + c;
}
)");
    const Kernel kernel = program.kernel("twice_plus");
    kernel(fresh_queue, {kLength}, std::nullopt, y, xs, std::int32_t{7}, static_cast<std::int32_t>(kLength));
    const Event done = fresh_queue.record_event();
    done.wait();
    y.get(fresh_queue, std::span<std::int32_t>(back));
    for (std::size_t i = 0; i < kLength; ++i) {
        if (back[i] != 2 * data[i] + 7) throw std::logic_error("kernel result differs");
    }

    // A pooled allocation and the algorithms (generated kernels, temporaries from the context's pool).
    const MemoryPool pool;
    const Buffer pooled = pool.allocate(fresh_queue, 256);
    pooled.set(fresh_queue, xs.get_sub_region(0, 256));
    const Array x = Array::from_host(fresh_queue, std::span<const std::int32_t>(data), {kLength});
    const std::int64_t total = sum(fresh_queue, x).get(fresh_queue).to_vector<std::int64_t>().at(0);
    if (total != std::accumulate(data.begin(), data.end(), std::int64_t{0})) throw std::logic_error("sum differs");
    const std::vector<std::int64_t> scanned = cumsum(fresh_queue, x).get(fresh_queue).to_vector<std::int64_t>();
    std::int64_t running = 0;
    for (std::size_t i = 0; i < kLength; ++i) {
        running += data[i];
        if (scanned.at(i) != running) throw std::logic_error("cumsum differs");
    }

    fresh_queue.synchronize();
}

Device pocl_device() {
    const std::vector<Device> devices = select_devices(Api::from_api_id(ApiId::opencl()));
    return devices.at(0);
}

TEST(FaultInjection, EveryDriverCallSiteFailsCleanly) {
    faults::install();
    const Context context = Context::from_devices(pocl_device());
    const Queue queue(context.devices()[0]);
    // Never zeros: a result that is not written would show.
    const std::vector<std::int32_t> data = random_vector<std::int32_t>(kLength, 1, 1000);

    // A first run fills what the shared context keeps (pool blocks); the second counts the sites.
    ASSERT_NO_THROW(operations(context, queue, data));
    faults::reset();
    ASSERT_NO_THROW(operations(context, queue, data));
    const std::size_t sites = faults::calls();
    ASSERT_GT(sites, 20U) << "the operations reach the driver at too few sites to be a fair test";
    // A second clean run: what the context keeps (module cache, pool blocks) is its steady state.
    faults::reset();
    ASSERT_NO_THROW(operations(context, queue, data));
    const faults::LiveHandles steady = faults::live_handles();

    std::vector<std::size_t> per_kind(static_cast<std::size_t>(faults::CallKind::count));
    std::size_t unreached = 0;
    std::string recovered;
    for (std::size_t n = 1; n <= sites; ++n) {
        faults::reset(n);
        std::string outcome = "no exception";
        try {
            operations(context, queue, data);
        } catch (const Error& e) {
            outcome = "";
        } catch (const std::exception& e) {
            outcome = std::string("a non-kjarni exception: ") + e.what();
        }
        if (!faults::fired()) {
            // Fewer calls this time: the pools' and queues' state after the previous faults (a
            // cached block, a completed marker) took a shorter path. The call sites it skipped are
            // failed in the neighbouring runs.
            ++unreached;
            continue;
        }
        const std::string site =
            std::string(faults::fired_function()) + " (" + faults::name(faults::fired_kind()) + ")";
        ++per_kind[static_cast<std::size_t>(faults::fired_kind())];
        // A fault that does not surface is acceptable only when kjarni recovered from it: the
        // operations check every result, so a swallowed failure that left garbage would throw.
        // (The memory pools free their cached blocks and allocate again after a failed allocation.)
        if (outcome == "no exception") {
            recovered += site + ", ";
            outcome = "";
        }
        EXPECT_EQ(outcome, "") << "call " << n << ", " << site;
        // The same context and queue work afterwards, with the right results.
        faults::reset();
        try {
            operations(context, queue, data);
        } catch (const std::exception& e) {
            ADD_FAILURE() << "after a failure at call " << n << ", " << site
                          << ", the context is unusable: " << e.what();
        }
        EXPECT_EQ(faults::live_handles(), steady)
            << "after a failure at call " << n << ", " << site << ": " << faults::live_handles().describe()
            << " live instead of " << steady.describe();
    }
    std::string summary;
    for (std::size_t k = 0; k < per_kind.size(); ++k) {
        if (per_kind[k] != 0)
            summary +=
                std::string(faults::name(static_cast<faults::CallKind>(k))) + " " + std::to_string(per_kind[k]) + ", ";
    }
    std::cout << "fault injection: " << sites << " call sites failed one at a time: " << summary << unreached
              << " not reached; recovered without an error: " << (recovered.empty() ? "none" : recovered) << '\n';
    // Nearly every site must have been failed for the test to mean something.
    EXPECT_LE(unreached * 10, sites) << unreached << " of " << sites << " call sites were never reached";
    for (const faults::CallKind kind : {faults::CallKind::allocation, faults::CallKind::compilation,
                                        faults::CallKind::module_load, faults::CallKind::launch, faults::CallKind::copy,
                                        faults::CallKind::event, faults::CallKind::queue, faults::CallKind::context}) {
        EXPECT_GT(per_kind[static_cast<std::size_t>(kind)], 0U) << "no call site of kind " << faults::name(kind);
    }
}

}  // namespace
}  // namespace kjarni::test

int main(int argc, char** argv) {
    // Every run compiles (the disk cache would turn compilations into module loads after the first).
    setenv("KJARNI_CACHE", "0", 1);
    testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}
