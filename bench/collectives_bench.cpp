// Collective bandwidth in nccl-tests' terms (doc/PERFORMANCE.md): algbw = S / t, with S the bytes of
// the collective (all_reduce, broadcast: one rank's buffer; all_gather: the gathered result;
// reduce_scatter: one rank's input), and busbw = algbw x 2(n-1)/n (all_reduce), x (n-1)/n
// (all_gather, reduce_scatter), x 1 (broadcast), n the ranks. One process drives every device of a
// context (one rank per device, kjarni's calls over MultiArrays: one NCCL group per call).
//
//   CUDA: kjarni (Communicator::create_all, NCCL underneath) and NCCL called directly (its own
//         communicators from ncclCommInitRank in a group, on kjarni's streams and buffers), each
//         size run by both, one after the other (interleaved by registration order).
//   OpenCL: kjarni's fallback engine (device copies, or a relay through page-locked host memory
//         where those are slow, and kjarni's kernels). KJARNI_BENCH_COLL_ENGINE=fallback makes
//         CUDA use it too (CUDA without NCCL).
// Rows of the fallback carry the anchors it is bound by (src/collectives/local_engine.cpp derives
// the bounds), measured in the same iterations, interleaved with the collective: device 0 alone
// reading S bytes into page-locked memory (pinned_d2h_GBps) and writing them back
// (pinned_h2d_GBps), each one plain driver transfer (clEnqueueReadBuffer / cuMemcpyDtoHAsync);
// every device doing both at once on two queues (pinned_duplex_GBps: S / t per device and
// direction). vs_pinned = busbw / the slower of pinned_d2h and pinned_h2d; vs_bound = busbw / the
// anchor that bounds the call: pinned_duplex for all_reduce, all_gather and reduce_scatter (every
// device moves bytes both ways at once, and a bus that carries both directions together gives each
// less than alone: ~30 against ~55 GB/s on the H200 pair, NVIDIA's OpenCL, 2026-11-29), the slower
// one-way anchor for broadcast (each device moves one way). vs_bound is the figure to judge the
// relay by; vs_pinned says what the same bytes would take on an idle bus.
// KJARNI_RELAY_CHUNK_MIB sets the relay's chunk (src/collectives/device_steps.cpp).
// float32 sum; sizes from KJARNI_BENCH_COLL_MIN (default 8) to KJARNI_BENCH_COLL_MAX (default 1G on
// CUDA, 16M on OpenCL) by factors of KJARNI_BENCH_COLL_FACTOR (default 4); suffixes K, M, G;
// KJARNI_BENCH_COLL_OPS picks collectives (comma-separated; default all four). A timed iteration
// runs enough calls back to back (one synchronization at the end) to last about a millisecond;
// the reported time is per call, GB/s are 1e9 bytes per second as in nccl-tests. Works with one
// device (n = 1: busbw is 0 for the gathers, as nccl-tests reports it).
//
//   kjarni_bench_collectives --benchmark_counters_tabular=true

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "kjarni/kjarni.hpp"

#ifdef KJARNI_BENCH_RAW_CUDA
#include "raw_cuda.hpp"
#include "vendor/nccl_library.hpp"
#endif

namespace {

enum class Op { all_reduce, all_gather, reduce_scatter, broadcast };

const char* op_name(Op op) {
    switch (op) {
    case Op::all_reduce: return "all_reduce";
    case Op::all_gather: return "all_gather";
    case Op::reduce_scatter: return "reduce_scatter";
    case Op::broadcast: return "broadcast";
    }
    return "?";
}

double bus_factor(Op op, std::size_t n) {
    const double ranks = static_cast<double>(n);
    switch (op) {
    case Op::all_reduce: return 2.0 * (ranks - 1) / ranks;
    case Op::all_gather:
    case Op::reduce_scatter: return (ranks - 1) / ranks;
    case Op::broadcast: return 1.0;
    }
    return 1.0;
}

std::size_t parse_bytes(const char* text) {
    std::size_t pos = 0;
    const std::string s(text);
    std::size_t value = std::stoull(s, &pos);
    if (pos < s.size()) {
        switch (s[pos]) {
        case 'K':
        case 'k': value <<= 10; break;
        case 'M':
        case 'm': value <<= 20; break;
        case 'G':
        case 'g': value <<= 30; break;
        default: break;
        }
    }
    return value;
}

std::size_t env_bytes(const char* name, std::size_t fallback) {
    const char* text = std::getenv(name);
    return text != nullptr ? parse_bytes(text) : fallback;
}

std::vector<Op> selected_ops() {
    const char* text = std::getenv("KJARNI_BENCH_COLL_OPS");
    if (text == nullptr) return {Op::all_reduce, Op::all_gather, Op::reduce_scatter, Op::broadcast};
    std::vector<Op> ops;
    std::stringstream list(text);
    std::string name;
    while (std::getline(list, name, ','))
        for (Op op : {Op::all_reduce, Op::all_gather, Op::reduce_scatter, Op::broadcast})
            if (name == op_name(op)) ops.push_back(op);
    return ops;
}

/// Plain page-locked transfers of S bytes: device 0 down and up alone, then every device down and
/// up at once (the downloads on a second queue of each device).
struct Anchor {
    std::vector<kjarni::Queue> queues, second;
    std::vector<kjarni::Buffer> buffers;
    std::vector<kjarni::HostMemory> down, up;
    std::vector<double> d2h, h2d, duplex;  // seconds per timing

    Anchor(const kjarni::MultiQueue& multi, std::size_t bytes) {
        for (const kjarni::Queue& queue : multi.queues()) {
            queues.push_back(queue);
            second.emplace_back(queue.device());
            buffers.push_back(kjarni::Buffer::allocate(queue.device(), bytes));
            down.push_back(kjarni::HostMemory::allocate(queue.device().context(), bytes));
            up.push_back(kjarni::HostMemory::allocate(queue.device().context(), bytes));
            std::fill(up.back().bytes().begin(), up.back().bytes().end(), std::byte{3});
            buffers.back().set(queue, std::span<const std::byte>(up.back().bytes()));
        }
        time();  // first touches outside the timings
        d2h.clear();
        h2d.clear();
        duplex.clear();
    }

    void time() {
        using clock = std::chrono::steady_clock;
        auto seconds = [](clock::time_point start) {
            return std::chrono::duration<double>(clock::now() - start).count();
        };
        auto start = clock::now();
        buffers[0].get(queues[0], down[0].bytes(), true);
        queues[0].synchronize();
        d2h.push_back(seconds(start));
        start = clock::now();
        buffers[0].set(queues[0], std::span<const std::byte>(up[0].bytes()), true);
        queues[0].synchronize();
        h2d.push_back(seconds(start));
        start = clock::now();
        for (std::size_t i = 0; i < queues.size(); ++i) {
            buffers[i].get(second[i], down[i].bytes(), true);
            buffers[i].set(queues[i], std::span<const std::byte>(up[i].bytes()), true);
        }
        for (std::size_t i = 0; i < queues.size(); ++i) {
            second[i].synchronize();
            queues[i].synchronize();
        }
        duplex.push_back(seconds(start));
    }
};

double median_of(std::vector<double> values) {
    std::sort(values.begin(), values.end());
    return values.empty() ? 0.0 : values[values.size() / 2];
}

/// The operands of one collective of S bytes over every device, as kjarni's MultiArrays.
struct Setup {
    Op op;
    std::size_t bytes;  // S
    kjarni::MultiQueue queues;
    std::vector<kjarni::Communicator> comms;
    kjarni::MultiArray src, dst;
    std::size_t count;  // elements NCCL's call takes per rank (send count; recv count for reduce_scatter)
};

/// Part p holds p + 1 in every element (small integers: every sum of them is exact in float32),
/// so that check() can tell each rank's bytes apart.
kjarni::MultiArray filled(const kjarni::MultiQueue& queues, std::size_t size,
                          std::shared_ptr<const kjarni::Splay> splay) {
    const kjarni::MultiArray array =
        kjarni::MultiArray::empty(queues.devices(), {size}, kjarni::DType(kjarni::DType::Kind::float32), {},
                                  std::move(splay));
    for (std::size_t i = 0; i < array.parts().size(); ++i) {
        const float value = static_cast<float>(i + 1);
        std::byte pattern[4];
        std::memcpy(pattern, &value, sizeof pattern);
        array.parts()[i].base().fill(queues[array.devices()[i]], pattern);
    }
    return array;
}

std::shared_ptr<Setup> make_setup(Op op, std::size_t bytes, const kjarni::MultiQueue& queues,
                                  const std::vector<kjarni::Communicator>& comms) {
    const std::size_t n = comms.size();
    const auto clone = std::make_shared<kjarni::CloneSplay>();
    const auto equal = std::make_shared<kjarni::EqualSplay>();
    // Element counts: gathers and scatters need a multiple of n elements in all.
    std::size_t total = std::max<std::size_t>(bytes / 4, 1);
    if (op == Op::all_gather || op == Op::reduce_scatter) total = std::max(total / n, std::size_t{1}) * n;
    switch (op) {
    case Op::all_reduce:
        return std::make_shared<Setup>(
            Setup{op, total * 4, queues, comms, filled(queues, total, clone), filled(queues, total, clone), total});
    case Op::broadcast: {
        const auto array = filled(queues, total, clone);
        return std::make_shared<Setup>(Setup{op, total * 4, queues, comms, array, array, total});
    }
    case Op::all_gather:
        return std::make_shared<Setup>(
            Setup{op, total * 4, queues, comms, filled(queues, total, equal), filled(queues, total, clone), total / n});
    case Op::reduce_scatter:
        return std::make_shared<Setup>(
            Setup{op, total * 4, queues, comms, filled(queues, total, clone), filled(queues, total, equal), total / n});
    }
    return nullptr;
}

void kjarni_call(const Setup& s) {
    switch (s.op) {
    case Op::all_reduce: kjarni::all_reduce(s.comms, s.src, s.dst, kjarni::ReduceOp::sum); break;
    case Op::all_gather: kjarni::all_gather(s.comms, s.src, s.dst); break;
    case Op::reduce_scatter: kjarni::reduce_scatter(s.comms, s.src, s.dst, kjarni::ReduceOp::sum); break;
    case Op::broadcast: kjarni::broadcast(s.comms, s.src, 0); break;
    }
}

/// Times `call` (one collective on every device, enqueued): `batch` calls, then every queue is
/// synchronized; the time per call is reported. The first call (connections, kernels) is not timed.
/// Whether every element of every part of the result is what the last call must leave there
/// (filled()'s values; broadcast from rank 0, in place: 1 everywhere).
bool check(const Setup& s) {
    const std::size_t n = s.comms.size();
    const std::size_t ranks_sum = n * (n + 1) / 2;  // 1 + 2 + ... + n, a whole number
    const auto sum = static_cast<float>(ranks_sum);
    const kjarni::MultiArray& result = s.op == Op::broadcast ? s.src : s.dst;
    for (std::size_t p = 0; p < result.parts().size(); ++p) {
        const kjarni::Array& part = result.parts()[p];
        const std::vector<float> values = part.get(s.queues[result.devices()[p]]).to_vector<float>();
        for (std::size_t i = 0; i < values.size(); ++i) {
            float expected = sum;
            if (s.op == Op::broadcast) expected = 1;
            if (s.op == Op::all_gather) {
                const std::size_t block = values.size() / n, rank = i / block;  // whole blocks, by design
                expected = static_cast<float>(rank + 1);
            }
            if (values[i] != expected) {
                fmt::print(stderr, "{}: part {} element {} is {}, expected {}\n", op_name(s.op), p, i, values[i],
                           expected);
                return false;
            }
        }
    }
    return true;
}

/// With `anchored`, each iteration also times the page-locked anchor (Anchor) after the calls.
void run(benchmark::State& state, const std::shared_ptr<Setup>& s, const std::function<void()>& call,
         bool anchored = false) {
    call();
    s->queues.synchronize();
    std::optional<Anchor> anchor;
    if (anchored) anchor.emplace(s->queues, s->bytes);
    const std::size_t batch =
        std::clamp<std::size_t>((std::size_t{1} << 22) / std::max<std::size_t>(s->bytes, 1), 1, 50);
    std::vector<double> times;
    for (auto _ : state) {
        const auto start = std::chrono::steady_clock::now();
        for (std::size_t i = 0; i < batch; ++i) call();
        s->queues.synchronize();
        const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
        state.SetIterationTime(elapsed.count() / static_cast<double>(batch));
        times.push_back(elapsed.count() / static_cast<double>(batch));
        if (anchor) anchor->time();
    }
    // Every element of the result checked once after the timings (cheap beside them, and the
    // only check of the engines on the machines the figures come from).
    if (!check(*s)) state.SkipWithError("wrong result");
    const double algbw = static_cast<double>(s->bytes) / 1e9;
    const double busbw_factor = bus_factor(s->op, s->comms.size());
    state.counters["algbw_GBps"] = benchmark::Counter(algbw, benchmark::Counter::kIsIterationInvariantRate);
    state.counters["busbw_GBps"] =
        benchmark::Counter(algbw * busbw_factor, benchmark::Counter::kIsIterationInvariantRate);
    state.counters["bytes"] = static_cast<double>(s->bytes);
    state.counters["ranks"] = static_cast<double>(s->comms.size());
    if (anchor && !times.empty()) {
        const double gb = static_cast<double>(s->bytes) / 1e9;
        const double d2h = gb / median_of(anchor->d2h), h2d = gb / median_of(anchor->h2d);
        state.counters["pinned_d2h_GBps"] = d2h;
        state.counters["pinned_h2d_GBps"] = h2d;
        const double duplex = gb / median_of(anchor->duplex);
        state.counters["pinned_duplex_GBps"] = duplex;
        // The medians of the same iterations, so that noise hits both alike.
        const double busbw = gb * busbw_factor / median_of(times);
        state.counters["vs_pinned"] = busbw / std::min(d2h, h2d);
        // The bound that holds: every device both downloads and uploads in all_reduce, all_gather
        // and reduce_scatter (the duplex anchor); in broadcast each does one or the other.
        state.counters["vs_bound"] = s->op == Op::broadcast ? busbw / std::min(d2h, h2d) : busbw / duplex;
    }
}

#ifdef KJARNI_BENCH_RAW_CUDA

namespace nccl = kjarni::detail::nccl;

/// NCCL's own communicators, one per device of the context, made directly (ncclGetUniqueId, then
/// ncclCommInitRank for each device in one group, each with its device's context current).
struct RawComms {
    std::vector<nccl::Comm> comms;
};

std::shared_ptr<RawComms> raw_comms(const kjarni::MultiQueue& queues) {
    const nccl::Library* f = nccl::load();
    const kjarni_bench::RawCuda* cuda = kjarni_bench::raw_cuda();
    if (f == nullptr || cuda == nullptr) return nullptr;
    nccl::UniqueId id{};
    if (f->GetUniqueId(&id) != nccl::success) return nullptr;
    auto raw = std::make_shared<RawComms>();
    const int n = static_cast<int>(queues.queues().size());
    raw->comms.assign(queues.queues().size(), nullptr);
    f->GroupStart();
    for (int i = 0; i < n; ++i) {
        const kjarni::BoundDevice& device = queues.queues()[static_cast<std::size_t>(i)].device();
        cuda->set_current(reinterpret_cast<CUcontext>(device.context().native_handle(device.index())));
        f->CommInitRank(&raw->comms[static_cast<std::size_t>(i)], n, id, i);
    }
    if (f->GroupEnd() != nccl::success) return nullptr;
    return raw;
}

void* address(const kjarni::Array& array) {
    return reinterpret_cast<void*>(array.base().native_handle() + array.base().offset() + array.offset());  // NOLINT
}

void raw_call(const Setup& s, const RawComms& raw) {
    const nccl::Library& f = *nccl::load();
    const auto& queues = s.queues.queues();
    f.GroupStart();
    for (std::size_t i = 0; i < queues.size(); ++i) {
        const auto stream = reinterpret_cast<nccl::Stream>(queues[i].native_handle());
        const kjarni::Array& src = s.src.part(queues[i].device());
        const kjarni::Array& dst = s.dst.part(queues[i].device());
        switch (s.op) {
        case Op::all_reduce:
            f.AllReduce(address(src), address(dst), s.count, nccl::float32, nccl::sum, raw.comms[i], stream);
            break;
        case Op::all_gather:
            f.AllGather(address(src), address(dst), s.count, nccl::float32, raw.comms[i], stream);
            break;
        case Op::reduce_scatter:
            f.ReduceScatter(address(src), address(dst), s.count, nccl::float32, nccl::sum, raw.comms[i], stream);
            break;
        case Op::broadcast:
            f.Broadcast(address(src), address(dst), s.count, nccl::float32, 0, raw.comms[i], stream);
            break;
        }
    }
    f.GroupEnd();
}

#endif

}  // namespace

int main(int argc, char** argv) {
    benchmark::Initialize(&argc, argv);
    const std::vector<Op> ops = selected_ops();
    for (const kjarni::Api& api : kjarni::Api::all_available()) {
        for (const kjarni::Platform& platform : api.platforms()) {
            if (platform.devices().empty()) continue;
            try {
                const bool cuda = api.id() == kjarni::ApiId::cuda();
                const auto context = kjarni::Context::from_devices(platform.devices());
                const kjarni::MultiQueue queues = kjarni::MultiQueue::on_devices(context.devices());
                const char* engine_name = std::getenv("KJARNI_BENCH_COLL_ENGINE");
                const bool fallback = engine_name != nullptr && std::string(engine_name) == "fallback";
                const std::vector<kjarni::Communicator> comms =
                    kjarni::Communicator::create_all(queues, fallback ? kjarni::CollectiveEngine::fallback
                                                                      : kjarni::CollectiveEngine::automatic);
                const bool anchored = comms[0].engine() == "fallback";
                const std::size_t min = env_bytes("KJARNI_BENCH_COLL_MIN", 8);
                const std::size_t max =
                    env_bytes("KJARNI_BENCH_COLL_MAX", cuda ? std::size_t{1} << 30 : std::size_t{16} << 20);
                const std::size_t factor = std::max<std::size_t>(env_bytes("KJARNI_BENCH_COLL_FACTOR", 4), 2);
                const std::string where = fmt::format("{}/{}x{}/{}", api.shortcut(), comms.size(),
                                                      context.devices()[0].name(), comms[0].engine());
                fmt::print(stderr, "{}: {} ranks, engine {}\n", platform.name(), comms.size(), comms[0].engine());
#ifdef KJARNI_BENCH_RAW_CUDA
                const std::shared_ptr<RawComms> raw = cuda ? raw_comms(queues) : nullptr;
                if (cuda && raw == nullptr)
                    fmt::print(stderr, "no direct NCCL baseline: libnccl.so.2 or libcuda missing\n");
#endif
                for (Op op : ops) {
                    for (std::size_t bytes = min; bytes <= max; bytes *= factor) {
                        // The operands are made when the benchmark runs and freed after it: every size
                        // at once would not fit.
                        const std::string tag = fmt::format("{}/{}", where, bytes);
                        benchmark::RegisterBenchmark(fmt::format("{}/kjarni/{}", op_name(op), tag).c_str(),
                                                     [=](benchmark::State& state) {
                                                         const auto setup = make_setup(op, bytes, queues, comms);
                                                         run(
                                                             state, setup, [&] { kjarni_call(*setup); }, anchored);
                                                     })
                            ->UseManualTime()
                            ->Unit(benchmark::kMicrosecond);
#ifdef KJARNI_BENCH_RAW_CUDA
                        if (raw != nullptr)
                            benchmark::RegisterBenchmark(fmt::format("{}/nccl_direct/{}", op_name(op), tag).c_str(),
                                                         [=](benchmark::State& state) {
                                                             const auto setup = make_setup(op, bytes, queues, comms);
                                                             run(state, setup, [&] { raw_call(*setup, *raw); });
                                                         })
                                ->UseManualTime()
                                ->Unit(benchmark::kMicrosecond);
#endif
                        if (bytes > max / factor) break;  // no overflow past max
                    }
                }
            } catch (const kjarni::Error& e) {
                fmt::print(stderr, "skipping {}: {}\n", platform.name(), e.what());
            }
        }
    }
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
