// The example of docs/discovery.md: which APIs a machine has, its platforms and devices, naming a
// device with a specifier, what it can do, a context and queues on it, and events. It runs on the
// device its first argument names (`kjarni_docs_discovery opencl:Portable`), else on the first
// device, and checks a round trip of random data through every device of a context.

#include <kjarni/kjarni.hpp>

#include <cstdint>
#include <iostream>
#include <random>
#include <string>
#include <vector>

namespace {

int run(const std::string& specifier) {
    //! [status]
    // Every API kjarni knows, and why an unavailable one is unavailable (no driver, no platform).
    for (const kjarni::ApiStatus& status : kjarni::Api::status()) {
        std::cout << status.id.shortcut() << ": " << (status.available ? "available" : status.reason) << '\n';
    }
    //! [status]

    //! [walk]
    for (const kjarni::Api& api : kjarni::Api::all_available()) {
        for (const kjarni::Platform& platform : api.platforms()) {
            std::cout << api.shortcut() << " platform " << platform.name() << " (" << platform.vendor() << ")\n";
            for (const kjarni::Device& device : platform.devices()) {
                const kjarni::DeviceParameters& params = device.params();
                std::cout << "  " << kjarni::device_specifier(device) << ": " << device.name() << ", "
                          << kjarni::to_string(params.type) << ", " << params.compute_units << " compute units, "
                          << (device.properties().total_memory >> 20) << " MiB\n";
            }
        }
    }
    //! [walk]

    //! [specifier]
    // "" names every device of every available API (CUDA first); "cuda1", "opencl0:1",
    // "opencl:Portable", "cuda::H100" or "pci:65:00.0" name particular ones.
    const std::vector<kjarni::Device> named = kjarni::devices_from_specifiers(specifier);
    if (named.empty()) throw kjarni::NotFoundError("no device: no GPU API is available here");
    const kjarni::Device device = named.front();
    std::cout << "running on " << kjarni::device_specifier(device) << ": " << device.name() << '\n';
    //! [specifier]

    //! [errors]
    // A specifier that matches nothing is a NotFoundError (a malformed one an ArgumentError).
    const kjarni::Api api = device.platform().api();
    try {
        kjarni::device_from_specifier(api.shortcut() + ":no platform is called this");
        std::cerr << "a specifier that matches nothing found a device\n";
        return 1;
    } catch (const kjarni::NotFoundError& e) {
        std::cout << "as expected: " << e.what() << '\n';
    }
    //! [errors]

    //! [filters]
    // Devices chosen by criteria: regexes on the platform and device names (here: any platform but
    // Mesa's Clover), devices whose work groups hold more than one work item, and every matching
    // device of the first platform that has one (quantity 0), rather than just the first device.
    kjarni::SelectOptions options;
    options.platform_filter.exclude_masks = {"^Clover$"};
    options.device_filter.exclude_pure_parallel = true;
    options.quantity = 0;
    const std::vector<kjarni::Device> selected = kjarni::select_devices(api, options);
    //! [filters]
    bool one_platform = !selected.empty();
    for (const kjarni::Device& d : selected) one_platform = one_platform && d.platform() == selected.front().platform();
    if (!one_platform) {
        std::cerr << "select_devices gave " << selected.size() << " devices, not all of one platform\n";
        return 1;
    }

    //! [capabilities]
    // Check what a kernel needs before compiling it: float64 is optional on OpenCL devices.
    std::cout << "double precision: " << (kjarni::have_double(device) ? "yes" : "no")
              << ", half-precision arithmetic: " << (kjarni::have_half(device) ? "yes" : "no") << '\n';
    kjarni::require_capabilities(device, {.complex = true});  // complex64: every device has it
    //! [capabilities]

    //! [context]
    // A context over every device of the chosen device's platform (PoCL with
    // POCL_DEVICES="pthread pthread" shows two), one queue per device.
    const kjarni::Context context = kjarni::Context::from_devices(device.platform().devices());
    const kjarni::MultiQueue queues = kjarni::MultiQueue::on_devices(context.devices());
    //! [context]

    // Random data through every device of the context and back.
    std::mt19937 engine(std::random_device{}());
    std::uniform_int_distribution<std::int32_t> uniform(-1000000, 1000000);
    std::vector<std::int32_t> host(1 << 12);
    for (auto& v : host) v = uniform(engine);

    //! [queues]
    for (const kjarni::Queue& queue : queues.queues()) {
        const kjarni::BoundDevice& member = queue.device();
        const kjarni::Buffer buffer = kjarni::Buffer::allocate(member, host.size() * sizeof(std::int32_t));
        const kjarni::Event start = queue.record_event();
        buffer.set(queue, std::span<const std::int32_t>(host), /*async=*/true);  // returns once enqueued
        const kjarni::Event end = queue.record_event();
        std::vector<std::int32_t> back(host.size());
        buffer.get(queue, std::span<std::int32_t>(back));  // synchronous: waits for the queue
        end.wait();
        std::cout << "device " << member.index() << " (" << member.name() << "): upload took " << end.time_since(start)
                  << " ms\n";
        if (back != host) {
            std::cerr << "device " << member.index() << ": the data came back changed\n";
            return 1;
        }
    }
    //! [queues]
    std::cout << "every device of the context returned the data unchanged\n";
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    try {
        return run(argc > 1 ? argv[1] : "");
    } catch (const kjarni::Error& e) {
        std::cerr << "discovery example failed: " << e.what() << '\n';
        return 1;
    }
}
