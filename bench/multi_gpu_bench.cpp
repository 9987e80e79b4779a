// The figures that need several GPUs, printed as one Markdown table (and CSV with --csv):
//   scaling    y = a*x + b over float32 on an EqualSplay MultiArray over the first GPU of a platform
//              and over all of its GPUs (CUDA, and every OpenCL platform with GPUs). x and y hold
//              KJARNI_BENCH_SCALING_MIB MiB each in all (default 4096: 8 GiB touched per step), so
//              every device's share shrinks as devices are added, as strong scaling does.
//   peer copy  device 0 -> device 1 of one context through Buffer::set, against the raw call on the
//              same buffers and queue (cuMemcpyPeerAsync / clEnqueueCopyBuffer), 64 MiB and 1 GiB.
//   fresh copy the same after device 0 rewrote its buffer: Buffer::set (on OpenCL GPUs relayed
//              through page-locked slots), the driver's own copy (clEnqueueCopyBuffer /
//              cuMemcpyPeerAsync) and two plain transfers through page-locked host memory
//              (add_fresh_copy_cases says why).
//   contexts   64 MiB from device 0 to device 1 of two contexts of one device each:
//              copy_between_contexts (CUDA: device to device; OpenCL: relayed through page-locked
//              slots), transfer() of an Array (a new array each time), the way OpenCL copied before
//              (through a pageable vector, staged both ways), and the anchors: one plain transfer
//              between a device and page-locked memory of its own context, each way, and of the
//              other context (what the relay's writes read from), and both at once on the two
//              devices (the relay's bound: see add_cross_context_cases).
// KJARNI_BENCH_MULTI_ROWS=contexts,fresh (any of scaling, peer, fresh, contexts) runs only those
// groups. KJARNI_RELAY_CHUNK_MIB sets the relays' chunk (src/staging/transfer_stager.hpp).
// Every figure is the median of interleaved rounds: each round times every configuration once,
// so that all of them see the same machine noise. KJARNI_BENCH_ANY_DEVICE=1 takes CPU devices too.
// With one GPU the scaling rows still run (1 of 1)
// and the peer-copy rows are left out.
//
//   kjarni_bench_multi_gpu [--rounds N] [--csv]

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "kjarni/kjarni.hpp"

#ifdef KJARNI_BENCH_RAW_CUDA
#include "raw_cuda.hpp"
#endif
#ifdef KJARNI_BENCH_RAW_OPENCL
#include <CL/cl.h>
#endif

namespace {

using clock_type = std::chrono::steady_clock;

std::size_t scaling_bytes() {
    const char* mib = std::getenv("KJARNI_BENCH_SCALING_MIB");
    const long value = mib != nullptr ? std::atol(mib) : 0;
    return (value > 0 ? static_cast<std::size_t>(value) : 4096) << 20;
}

// Whether the group of rows `group` (scaling, peer, fresh, contexts) runs: all of them, or those
// named in KJARNI_BENCH_MULTI_ROWS (comma-separated).
bool wanted(const std::string& group) {
    const char* list = std::getenv("KJARNI_BENCH_MULTI_ROWS");
    if (list == nullptr) return true;
    const std::string text = std::string(",") + list + ",";
    return text.find("," + group + ",") != std::string::npos;
}

// One timed configuration: `step` enqueues the work, `wait` waits for it; `bytes` moved per step.
struct Case {
    std::string name;
    std::string baseline;  // the name of the case this one is compared with ("" for none)
    double bytes = 0;
    std::function<void()> step;
    std::function<void()> wait;
    std::vector<double> seconds;
};

double median(std::vector<double> values) {
    std::sort(values.begin(), values.end());
    const std::size_t n = values.size();
    return n % 2 == 1 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

// Each timing covers `batch` steps so that the final wait costs little.
constexpr int batch = 10;

void time_once(Case& c) {
    const auto start = clock_type::now();
    for (int k = 0; k < batch; ++k) c.step();
    c.wait();
    c.seconds.push_back(std::chrono::duration<double>(clock_type::now() - start).count() / batch);
}

// The GPUs of a platform; every device with KJARNI_BENCH_ANY_DEVICE=1 (to try the bench on PoCL).
std::vector<kjarni::Device> gpus_of(const kjarni::Platform& platform) {
    const char* any = std::getenv("KJARNI_BENCH_ANY_DEVICE");
    const bool any_device = any != nullptr && std::strcmp(any, "1") == 0;
    std::vector<kjarni::Device> gpus;
    for (const kjarni::Device& device : platform.devices()) {
        if (any_device || device.params().type == kjarni::DeviceType::gpu) gpus.push_back(device);
    }
    return gpus;
}

// y = a*x + b on an EqualSplay MultiArray over `devices`.
Case scaling_case(const std::string& platform_name, std::span<const kjarni::Device> devices,
                  const std::string& baseline) {
    const kjarni::Context context = kjarni::Context::from_devices(devices);
    const kjarni::MultiQueue queue = kjarni::MultiQueue::on_devices(context.devices());
    const std::size_t n = scaling_bytes() / sizeof(float);
    const auto x = kjarni::MultiArray::empty(context.devices(), {n}, kjarni::dtypes::float32);
    const auto y = kjarni::MultiArray::empty(context.devices(), {n}, kjarni::dtypes::float32);
    for (const kjarni::Queue& q : queue.queues()) kjarni::fill(q, x.part(q.device()), 1.25);
    const kjarni::Expr expression = 2.5f * kjarni::Expr(x) + 0.5f;
    Case c;
    c.name = fmt::format("scaling {} x{}", platform_name, devices.size());
    c.baseline = baseline;
    c.bytes = 2.0 * static_cast<double>(n * sizeof(float));
    c.step = [queue, y, expression] { kjarni::assign(queue, y, expression); };
    c.wait = [queue] { queue.synchronize(); };
    c.step();  // compiles the kernel on every device outside the timing
    c.wait();
    return c;
}

// Buffer::set from device 0 to device 1 of one context, and the raw call on the same objects.
// On NVIDIA's OpenCL these rows do not measure a driver that already holds unchanged data on both
// devices: the two rows alternate on the same buffers, the raw copy runs on device 0's queue (it
// leaves dest's latest contents on device 0) and the relay writes dest on device 1 (it leaves them
// there), so each row likely starts with the driver moving dest over at its own slow rate. The
// H200 pair's figures fit that (64 MiB, 2026-11-29): raw 7.66 ms (the driver's move and copy),
// kjarni 9.41 ms ~ 7.66 + the relay's 1.76 ms of a fresh copy (the rows below).
void add_peer_cases(std::vector<Case>& cases, const std::string& platform_name,
                    std::span<const kjarni::Device> devices) {
    const kjarni::Context context = kjarni::Context::from_devices(devices.first(2));
    const kjarni::Queue queue(context.devices()[0]);
    for (const std::size_t size : {std::size_t{64} << 20, std::size_t{1} << 30}) {
        const auto source = kjarni::Buffer::allocate(context.devices()[0], size);
        const auto dest = kjarni::Buffer::allocate(context.devices()[1], size);
        const std::byte pattern[4] = {std::byte{1}, std::byte{2}, std::byte{3}, std::byte{4}};
        source.fill(queue, pattern);
        const std::string label = fmt::format("peer copy {} {} MiB", platform_name, size >> 20);
        Case k;
        k.name = label + " kjarni";
        k.bytes = static_cast<double>(size);
        k.step = [queue, source, dest] { dest.set(queue, source, true); };
        k.wait = [queue] { queue.synchronize(); };
        Case raw;
        raw.name = label + " raw";
        raw.bytes = k.bytes;
        raw.wait = k.wait;
        const kjarni::Api api = context.api();
        if (api.shortcut() == "cuda") {
#ifdef KJARNI_BENCH_RAW_CUDA
            const auto* cu = kjarni_bench::raw_cuda();
            if (cu == nullptr || cu->copy_peer_async == nullptr) continue;
            const auto to_context = reinterpret_cast<CUcontext>(context.native_handle(1));
            const auto from_context = reinterpret_cast<CUcontext>(context.native_handle(0));
            const auto stream = reinterpret_cast<CUstream>(queue.native_handle());
            raw.step = [=] {
                cu->set_current(from_context);
                cu->copy_peer_async(static_cast<CUdeviceptr>(dest.native_handle()), to_context,
                                    static_cast<CUdeviceptr>(source.native_handle()), from_context, size, stream);
            };
#endif
        } else {
#ifdef KJARNI_BENCH_RAW_OPENCL
            const auto cl_queue = reinterpret_cast<cl_command_queue>(queue.native_handle());
            const auto from = reinterpret_cast<cl_mem>(source.native_handle());
            const auto to = reinterpret_cast<cl_mem>(dest.native_handle());
            raw.step = [=] { clEnqueueCopyBuffer(cl_queue, from, to, 0, 0, size, 0, nullptr, nullptr); };
#endif
        }
        k.step();
        k.wait();
        if (raw.step) {
            k.baseline = raw.name;
            raw.step();
            raw.wait();
            cases.push_back(std::move(raw));
        }
        cases.push_back(std::move(k));
    }
}

// Device 0 rewrites its buffer (a device-local copy, as a collective's kernels do) and device 1
// then takes it: by Buffer::set between the devices ("direct": relayed through page-locked slots
// between OpenCL GPUs), by the driver's own copy ("driver", where the raw API is linked), and
// staged through page-locked host memory in two plain transfers one after the other ("staged");
// "local" is the rewrite alone. A driver
// that keeps a buffer of a multi-device context valid on several devices (NVIDIA's OpenCL) shows its
// real cross-device cost only with fresh data: the "peer copy" rows above copy unchanged data.
void add_fresh_copy_cases(std::vector<Case>& cases, const std::string& platform_name,
                          std::span<const kjarni::Device> devices) {
    const kjarni::Context context = kjarni::Context::from_devices(devices.first(2));
    const kjarni::Queue from_queue(context.devices()[0]);
    const kjarni::Queue to_queue(context.devices()[1]);
    const std::size_t size = std::size_t{64} << 20;
    const auto origin = kjarni::Buffer::allocate(context.devices()[0], size);
    const auto source = kjarni::Buffer::allocate(context.devices()[0], size);
    const auto dest = kjarni::Buffer::allocate(context.devices()[1], size);
    const auto host = kjarni::HostMemory::allocate(context, size);
    const std::byte pattern[4] = {std::byte{5}, std::byte{6}, std::byte{7}, std::byte{8}};
    origin.fill(from_queue, pattern);
    const std::string label = fmt::format("fresh copy {} {} MiB", platform_name, size >> 20);
    const auto rewrite = [=] { source.set(from_queue, origin, true); };
    const auto wait = [=] {
        from_queue.synchronize();
        to_queue.synchronize();
    };
    Case local{label + " local", "", static_cast<double>(size), rewrite, wait, {}};
    Case direct{label + " direct",
                label + " local",
                static_cast<double>(size),
                [=] {
                    from_queue.wait_for(to_queue.record_event());  // one step at a time, as a collective's
                    rewrite();
                    to_queue.wait_for(from_queue.record_event());
                    dest.set(to_queue, source, true);
                },
                wait,
                {}};
    Case staged{label + " staged",
                label + " local",
                static_cast<double>(size),
                [=] {
                    from_queue.wait_for(to_queue.record_event());
                    rewrite();
                    source.get(from_queue, host.bytes(), true);
                    to_queue.wait_for(from_queue.record_event());
                    dest.set(to_queue, std::span<const std::byte>(host.bytes()), true);
                },
                wait,
                {}};
    Case driver{label + " driver", label + " local", static_cast<double>(size), nullptr, wait, {}};
    if (context.api().id() == kjarni::ApiId::cuda()) {
#ifdef KJARNI_BENCH_RAW_CUDA
        const auto* cu = kjarni_bench::raw_cuda();
        if (cu != nullptr && cu->copy_peer_async != nullptr) {
            const auto to_context = reinterpret_cast<CUcontext>(context.native_handle(1));
            const auto from_context = reinterpret_cast<CUcontext>(context.native_handle(0));
            const auto stream = reinterpret_cast<CUstream>(to_queue.native_handle());
            driver.step = [=] {
                from_queue.wait_for(to_queue.record_event());
                rewrite();
                to_queue.wait_for(from_queue.record_event());
                cu->set_current(to_context);
                cu->copy_peer_async(static_cast<CUdeviceptr>(dest.native_handle()), to_context,
                                    static_cast<CUdeviceptr>(source.native_handle()), from_context, size, stream);
            };
        }
#endif
    } else {
#ifdef KJARNI_BENCH_RAW_OPENCL
        const auto cl_queue = reinterpret_cast<cl_command_queue>(to_queue.native_handle());
        const auto from = reinterpret_cast<cl_mem>(source.native_handle());
        const auto to = reinterpret_cast<cl_mem>(dest.native_handle());
        driver.step = [=] {
            from_queue.wait_for(to_queue.record_event());
            rewrite();
            to_queue.wait_for(from_queue.record_event());
            clEnqueueCopyBuffer(cl_queue, from, to, 0, 0, size, 0, nullptr, nullptr);
        };
#endif
    }
    for (Case* c : {&local, &direct, &driver, &staged}) {
        if (!c->step) continue;
        c->step();
        c->wait();
    }
    cases.push_back(std::move(local));
    cases.push_back(std::move(direct));
    if (driver.step) cases.push_back(std::move(driver));
    cases.push_back(std::move(staged));
}

// Two contexts, one device each (add_cross_context_cases in the header comment).
void add_cross_context_cases(std::vector<Case>& cases, const std::string& platform_name,
                             std::span<const kjarni::Device> devices) {
    kjarni::ContextOptions own;
    own.own_contexts = true;  // on CUDA too: two CUcontexts, a real copy between contexts
    const kjarni::Context from_context = kjarni::Context::from_devices(devices.first(1), own);
    const kjarni::Context to_context = kjarni::Context::from_devices(devices.subspan(1, 1), own);
    const kjarni::Queue from_queue(from_context.devices()[0]);
    const kjarni::Queue to_queue(to_context.devices()[0]);
    const std::size_t size = std::size_t{64} << 20;
    const auto source = kjarni::Buffer::allocate(from_context.devices()[0], size);
    const auto dest = kjarni::Buffer::allocate(to_context.devices()[0], size);
    const auto from_host = kjarni::HostMemory::allocate(from_context, size);
    const auto to_host = kjarni::HostMemory::allocate(to_context, size);
    const std::byte pattern[4] = {std::byte{9}, std::byte{10}, std::byte{11}, std::byte{12}};
    source.fill(from_queue, pattern);
    from_queue.synchronize();
    const kjarni::Array array = kjarni::Array::empty(from_context.devices()[0], {size / 4}, kjarni::dtypes::float32);
    kjarni::fill(from_queue, array, 0.75);
    const std::string label = fmt::format("contexts {} {} MiB", platform_name, size >> 20);
    const std::string anchor = label + " pinned d2h (own context)";
    const auto wait = [=] {
        from_queue.synchronize();
        to_queue.synchronize();
    };
    const double bytes = static_cast<double>(size);
    cases.push_back({anchor, "", bytes, [=] { source.get(from_queue, from_host.bytes(), true); }, wait, {}});
    cases.push_back({label + " pinned h2d (own context)",
                     anchor,
                     bytes,
                     [=] { dest.set(to_queue, std::span<const std::byte>(to_host.bytes()), true); },
                     wait,
                     {}});
    cases.push_back({label + " pinned d2h (other context's)",
                     anchor,
                     bytes,
                     [=] { source.get(from_queue, to_host.bytes(), true); },
                     wait,
                     {}});
    cases.push_back({label + " pinned h2d (other context's)",
                     anchor,
                     bytes,
                     [=] { dest.set(to_queue, std::span<const std::byte>(from_host.bytes()), true); },
                     wait,
                     {}});
    // The relay's own bound: its reads and writes run at once on the two devices, so the host's
    // memory and the buses carry both directions together. On the H200 pair (2026-11-29) one
    // device did only ~30 GB/s each way with both directions at once, against ~55 alone; this row
    // is the same for two devices, one direction each, the most copy_between_contexts can reach.
    cases.push_back({label + " pinned d2h + h2d at once (two devices)",
                     anchor,
                     bytes,
                     [=] {
                         source.get(from_queue, from_host.bytes(), true);
                         dest.set(to_queue, std::span<const std::byte>(to_host.bytes()), true);
                     },
                     wait,
                     {}});
    cases.push_back({label + " copy_between_contexts",
                     anchor,
                     bytes,
                     [=] { kjarni::copy_between_contexts(to_queue, dest, source, true); },
                     wait,
                     {}});
    cases.push_back({label + " transfer (new array)",
                     anchor,
                     bytes,
                     [=] {
                         // Each result is dropped at once; its memory returns to the pool in queue order.
                         (void)kjarni::transfer(array, to_queue);
                     },
                     wait,
                     {}});
    cases.push_back({label + " before: pageable vector",
                     anchor,
                     bytes,
                     [=] {
                         std::vector<std::byte> staged(size);
                         source.get(from_queue, std::span<std::byte>(staged));
                         dest.set(to_queue, std::span<const std::byte>(staged));
                     },
                     wait,
                     {}});
    // The first step of each outside the timings: slots, pools, first touches.
    for (auto it = cases.end() - 8; it != cases.end(); ++it) {
        it->step();
        it->wait();
    }
}

}  // namespace

int main(int argc, char** argv) {
    int rounds = 7;
    bool csv = false;
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--rounds") == 0 && i + 1 < argc) {
            rounds = std::max(1, std::atoi(argv[++i]));
        } else if (std::strcmp(argv[i], "--csv") == 0) {
            csv = true;
        } else {
            fmt::print(stderr, "usage: {} [--rounds N] [--csv]\n", argv[0]);
            return 2;
        }
    }
    std::vector<Case> cases;
    for (const kjarni::Api& api : kjarni::Api::all_available()) {
        for (const kjarni::Platform& platform : kjarni::Platform::all(api)) {
            const std::vector<kjarni::Device> gpus = gpus_of(platform);
            if (gpus.empty()) continue;
            const std::string name = fmt::format("{}/{}", api.shortcut(), platform.name());
            try {
                if (wanted("scaling")) {
                    cases.push_back(scaling_case(name, std::span(gpus).first(1), ""));
                    if (gpus.size() > 1) cases.push_back(scaling_case(name, gpus, cases.back().name));
                }
                if (gpus.size() > 1) {
                    if (wanted("peer")) add_peer_cases(cases, name, gpus);
                    if (wanted("fresh")) add_fresh_copy_cases(cases, name, gpus);
                    if (wanted("contexts")) add_cross_context_cases(cases, name, gpus);
                }
            } catch (const kjarni::Error& e) {
                fmt::print(stderr, "{}: skipped: {}\n", name, e.what());
            }
        }
    }
    for (int round = 0; round < rounds; ++round) {
        for (Case& c : cases) time_once(c);
    }
    auto find = [&](const std::string& name) -> const Case* {
        for (const Case& c : cases) {
            if (c.name == name) return &c;
        }
        return nullptr;
    };
    if (csv) {
        fmt::print("case,median_ms,GB_per_s,baseline,ratio\n");
    } else {
        fmt::print("| case | median ms | GB/s | against | ratio |\n| --- | --- | --- | --- | --- |\n");
    }
    for (const Case& c : cases) {
        const double t = median(c.seconds);
        const double rate = c.bytes / t * 1e-9;
        const Case* base = c.baseline.empty() ? nullptr : find(c.baseline);
        // Scaling compares throughput with one device's; a copy compares with the raw call's.
        const std::string ratio = base != nullptr ? fmt::format("{:.3f}", median(base->seconds) / t) : "";
        const std::string against = base != nullptr ? base->name : "";
        if (csv) {
            fmt::print("{},{:.4f},{:.1f},{},{}\n", c.name, t * 1e3, rate, against, ratio);
        } else {
            fmt::print("| {} | {:.4f} | {:.1f} | {} | {} |\n", c.name, t * 1e3, rate, against, ratio);
        }
    }
    return 0;
}
