// The demo: finds the default device (the first API available, CUDA before OpenCL, its first
// device), then moves random data host -> device -> device -> host, fills, times the transfers
// with events, and checks every byte against the host's copy.

#include <fmt/format.h>

#include <cstdint>
#include <cstdlib>
#include <random>
#include <vector>

#include "kjarni/kjarni.hpp"

namespace {

int run() {
    const auto apis = kjarni::Api::all_available();
    if (apis.empty()) {
        for (const auto& status : kjarni::Api::status()) fmt::print("{}: {}\n", status.id.shortcut(), status.reason);
        fmt::print("no GPU API is available\n");
        return 1;
    }
    const kjarni::Api& api = apis.front();
    kjarni::Context context = kjarni::Context::from_criteria(api);
    kjarni::BoundDevice device = context.devices()[0];
    const auto& params = device.params();
    fmt::print("kjarni {} on {} / {} / {}\n", kjarni::version(), api.shortcut(), context.platform().name(),
               device.name());
    fmt::print("  {} compute units, warp size {}, max local size {}, {} KiB local memory, {} MiB global memory\n",
               params.compute_units, params.warp_size, params.max_total_local_size, params.local_mem_size / 1024,
               device.device().properties().total_memory >> 20);

    constexpr std::size_t count = std::size_t{1} << 24;  // 64 MiB of uint32
    std::vector<std::uint32_t> host(count);
    std::mt19937 random(std::random_device{}());
    for (auto& x : host) x = static_cast<std::uint32_t>(random());

    kjarni::Queue queue(device);
    const std::size_t bytes = count * sizeof(std::uint32_t);
    auto a = kjarni::Buffer::allocate(device, bytes);
    auto b = kjarni::Buffer::allocate(device, bytes);

    const auto t0 = queue.record_event();
    a.set(queue, std::span<const std::uint32_t>(host), true);
    const auto t1 = queue.record_event();
    b.set(queue, a, true);
    const auto t2 = queue.record_event();
    std::vector<std::uint32_t> back(count);
    b.get(queue, std::span<std::uint32_t>(back), true);
    const auto t3 = queue.record_event();
    t3.wait();

    const double mib = static_cast<double>(bytes) / (1 << 20);
    fmt::print("  host->device {:.1f} MiB in {:.3f} ms, device->device {:.3f} ms, device->host {:.3f} ms\n", mib,
               t1.time_since(t0), t2.time_since(t1), t3.time_since(t2));
    if (back != host) {
        fmt::print("  round trip: MISMATCH\n");
        return 1;
    }

    const std::uint32_t pattern = 0xC0FFEE42u;
    b.get_sub_region(bytes / 2, bytes / 4).fill(queue, std::as_bytes(std::span(&pattern, 1)));
    b.get(queue, std::span<std::uint32_t>(back));
    for (std::size_t i = 0; i < count; ++i) {
        const bool in_fill = i >= count / 8 * 4 && i < count / 8 * 6;
        if (back[i] != (in_fill ? pattern : host[i])) {
            fmt::print("  fill: element {} is {:#x}\n", i, back[i]);
            return 1;
        }
    }
    fmt::print("  round trip and fill of a sub-region: every element checked, OK\n");
    return 0;
}

}  // namespace

int main() {
    try {
        return run();
    } catch (const kjarni::Error& e) {
        fmt::print(stderr, "demo failed: {}\n", e.what());
        return 1;
    }
}
