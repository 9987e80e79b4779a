#include "bench_command.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <limits>
#include <random>
#include <span>
#include <vector>

#include "common.hpp"
#include "kjarni/buffer.hpp"
#include "kjarni/error.hpp"
#include "kjarni/event.hpp"
#include "kjarni/program.hpp"
#include "kjarni/queue.hpp"

namespace kjarni::tool {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

// The best of `repetitions` runs of `run` (which returns its own seconds): the least disturbed.
template <class Run>
double best_seconds(std::size_t repetitions, Run run) {
    double best = std::numeric_limits<double>::infinity();
    for (std::size_t i = 0; i < repetitions; ++i) best = std::min(best, run());
    return best;
}

double gigabytes_per_second(std::size_t bytes, double seconds) { return static_cast<double>(bytes) / seconds * 1e-9; }

}  // namespace

nlohmann::json run_bench(const BenchRequest& request) {
    if (request.bytes < sizeof(std::uint32_t)) throw ArgumentError("--bytes", "must be at least 4");
    if (request.launches == 0 || request.repetitions == 0) {
        throw ArgumentError("--launches/--repetitions", "must be at least 1");
    }
    Progress progress("kjarni bench", 5);
    progress.step("context and kernel");
    const BoundDevice device = choose_device(request.device);
    const Queue queue(device);
    const Program program(
        device,
        std::string_view("KERNEL void touch(GLOBAL_MEM unsigned int* p) { if (get_global_id(0) == 0) p[0] += 1u; }\n"));
    const PreparedKernel touch = program.kernel("touch").prepare({1});
    const Buffer counter = Buffer::allocate(device, sizeof(std::uint32_t));
    counter.set(queue, std::span<const std::uint32_t>(std::vector<std::uint32_t>{0}));

    // Launch overhead: back-to-back launches of a kernel that does (almost) nothing, timed on the
    // host including the final wait: what a launch costs when launches are the work.
    progress.step("launch overhead");
    touch.enqueue(queue, counter);  // warm up
    queue.synchronize();
    auto start = Clock::now();
    for (std::size_t i = 0; i < request.launches; ++i) touch.enqueue(queue, counter);
    queue.synchronize();
    const double launch_seconds = seconds_since(start);
    std::vector<std::uint32_t> count(1);
    counter.get(queue, std::span<std::uint32_t>(count));
    if (count[0] != request.launches + 1) {
        throw Error(fmt::format("bench: {} launches ran {} times", request.launches + 1, count[0]));
    }

    // Copies of random data (never zeros, so that a copy that did nothing shows).
    const std::size_t words = request.bytes / sizeof(std::uint32_t);
    const std::size_t bytes = words * sizeof(std::uint32_t);
    std::vector<std::uint32_t> host(words);
    std::mt19937 generator(std::random_device{}());
    for (auto& word : host) word = static_cast<std::uint32_t>(generator());
    std::vector<std::uint32_t> back(words);
    const Buffer a = Buffer::allocate(device, bytes);
    const Buffer b = Buffer::allocate(device, bytes);

    progress.step("host to device");
    const double h2d = best_seconds(request.repetitions, [&] {
        const auto t = Clock::now();
        a.set(queue, std::span<const std::uint32_t>(host));
        return seconds_since(t);
    });
    progress.step("device to device");
    a.set(queue, std::span<const std::uint32_t>(host));
    // Device copies are timed by events on the device: the host's clock would add a wait.
    const double d2d = best_seconds(request.repetitions, [&] {
        const Event before = queue.record_event();
        b.set(queue, a, /*async=*/true);
        const Event after = queue.record_event();
        after.wait();
        return after.time_since(before) * 1e-3;
    });
    progress.step("device to host");
    const double d2h = best_seconds(request.repetitions, [&] {
        const auto t = Clock::now();
        b.get(queue, std::span<std::uint32_t>(back));
        return seconds_since(t);
    });
    if (back != host) throw Error("bench: the data came back changed from host -> device -> device -> host");

    return {{"device", device.name()},
            {"api", device.context().api().id().shortcut()},
            {"launch",
             {{"launches", request.launches},
              {"microseconds_per_launch", launch_seconds * 1e6 / static_cast<double>(request.launches)}}},
            {"copy",
             {{"bytes", bytes},
              {"repetitions", request.repetitions},
              {"host_to_device_gb_per_s", gigabytes_per_second(bytes, h2d)},
              {"device_to_device_gb_per_s", gigabytes_per_second(bytes, d2d)},
              {"device_to_host_gb_per_s", gigabytes_per_second(bytes, d2h)}}}};
}

void print_bench_report(const nlohmann::json& report, std::ostream& out) {
    const auto& copy = report["copy"];
    fmt::print(out, "{} ({})\n", report["device"].get<std::string>(), report["api"].get<std::string>());
    fmt::print(out, "  launch overhead  {:8.2f} us per launch ({} launches)\n",
               report["launch"]["microseconds_per_launch"].get<double>(),
               report["launch"]["launches"].get<std::size_t>());
    fmt::print(out, "  host -> device   {:8.2f} GB/s\n", copy["host_to_device_gb_per_s"].get<double>());
    fmt::print(out, "  device -> device {:8.2f} GB/s (read + write: twice the bytes cross the memory)\n",
               copy["device_to_device_gb_per_s"].get<double>());
    fmt::print(out, "  device -> host   {:8.2f} GB/s\n", copy["device_to_host_gb_per_s"].get<double>());
    fmt::print(out, "  ({} bytes per copy, best of {})\n", copy["bytes"].get<std::size_t>(),
               copy["repetitions"].get<std::size_t>());
}

}  // namespace kjarni::tool
