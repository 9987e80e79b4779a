// Sorting and selection beside the device-to-device copy of the same keys, in one run, on the
// first device of every available API (the peers' script, bench/peers/sorting_peers.py, times the
// same cases through PyTorch and CuPy):
//   copy                   Buffer copy of the n float32 keys
//   sort_float32           sort of n random float32 (NaN-free, both signs)
//   sort_uint32            sort of n random uint32
//   argsort_float32        stable argsort of the float32 keys (int64 positions)
//   argsort_uint32         stable argsort of the uint32 keys
//   boolean_index_float32  x[mask] with a random mask of 50% true (the count read back)
//   overlap_set_float32    a[1:].set(a[:-1]) on n float32: overlapping views of one allocation, so
//                          the source goes through a temporary (every byte moved twice; issue 38
//                          asks for at least 45% of `copy`'s Gkeys/s)
//   overlap_assign_float32 assign(a[1:], a[:-1]), the expression road to the same result
// Gkeys/s = n / time for every case. n = 2^KJARNI_BENCH_SORT_LOG2 keys (default 28; give a small
// value on CPU devices). Each iteration enqueues `batch` operations then waits. With
// KJARNI_BENCH_SORT_CHECK=1 the sort and argsort results of both key sets are checked on the host
// first, on every device (argsort a permutation that orders the keys, equal keys in their
// original order; sort's values the keys in that order), and a failure ends the run with status 1.
//
// Sweeps of the sort's settings (sort_onesweep.cpp: KJARNI_SORT_RANK, _WARP, _ITEMS, _GROUP) in one
// run: KJARNI_BENCH_SORT_CONFIGS lists configurations separated by ';', each settings separated by
// ',' (a name without the KJARNI_ prefix gets KJARNI_SORT_), e.g.
//   KJARNI_BENCH_SORT_CONFIGS='RANK=nibble;RANK=match,ITEMS=12;RANK=match,ITEMS=20'
// Every configuration then has its own sort and argsort cases, named with it in brackets, which set
// exactly its settings (the others unset) before they run; each configuration's results are first
// checked on the host (as KJARNI_BENCH_SORT_CHECK does, on 2^22 random float32, random uint32 and
// uint32 of 1000 values, for ties), a failure ending the run with status 1. KJARNI_BENCH_SORT_API,
// where set, keeps only the devices whose "api/device" tag contains it (e.g. "cuda", "NVIDIA").
//
//   kjarni_bench_sorting --benchmark_repetitions=5 --benchmark_enable_random_interleaving=true
//       --benchmark_report_aggregates_only=true

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "kjarni/kjarni.hpp"

namespace {

constexpr int batch = 3;

std::size_t elements() {
    const char* log2 = std::getenv("KJARNI_BENCH_SORT_LOG2");
    const int bits = log2 != nullptr && std::atoi(log2) > 0 ? std::atoi(log2) : 28;
    return std::size_t{1} << bits;
}

/// splitmix64: fast, good enough for benchmark keys.
std::uint64_t next(std::uint64_t& state) {
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

struct Setup {
    kjarni::Queue queue;
    kjarni::Array floats, uints, mask, copy_target, shifted;
};

std::shared_ptr<Setup> make_setup(const kjarni::Api& api) {
    auto context = kjarni::Context::from_criteria(api);
    kjarni::Queue queue(context.devices()[0]);
    const std::size_t n = elements();
    std::vector<float> f(n);
    std::vector<std::uint32_t> u(n);
    std::vector<std::uint8_t> m(n);
    std::uint64_t state = 12345;
    for (std::size_t k = 0; k < n; ++k) {
        const std::uint64_t r = next(state);
        u[k] = static_cast<std::uint32_t>(r);
        // Uniform in (-1, 1): 24 random mantissa bits and a random sign.
        f[k] = static_cast<float>(static_cast<std::uint32_t>(r >> 32) >> 8) * 0x1p-24f * ((r & 1) ? -1.0f : 1.0f);
        m[k] = static_cast<std::uint8_t>((r >> 1) & 1);
    }
    auto setup = std::make_shared<Setup>(
        Setup{queue, kjarni::Array::from_host(queue, std::span<const float>(f), {n}),
              kjarni::Array::from_host(queue, std::span<const std::uint32_t>(u), {n}),
              kjarni::Array::from_host(queue, kjarni::HostArray::wrap_bytes(m.data(), n, kjarni::dtypes::bool_, {n})),
              kjarni::Array::empty(queue.device(), {n}, kjarni::dtypes::float32),
              kjarni::Array::empty(queue.device(), {n}, kjarni::dtypes::float32)});
    setup->shifted.set(queue, setup->floats);
    queue.synchronize();
    return setup;
}

template <class Work>
void run(benchmark::State& state, const Setup& s, std::size_t keys, Work work) {
    work();  // compiles and warms up outside the timing
    s.queue.synchronize();
    for (auto _ : state) {
        for (int k = 0; k < batch; ++k) work();
        s.queue.synchronize();
    }
    state.counters["Gkeys/s"] =
        benchmark::Counter(static_cast<double>(keys) * batch * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}

/// The check KJARNI_BENCH_SORT_CHECK asks for, of one key set (no NaNs: < and == are numpy's order).
template <class T>
bool check_sorts(const Setup& s, const kjarni::Array& x, const std::string& what) {
    const std::size_t n = x.size();
    const std::vector<T> keys = x.get(s.queue).to_vector<T>();
    const std::vector<std::int64_t> positions = kjarni::argsort(s.queue, x).get(s.queue).to_vector<std::int64_t>();
    const std::vector<T> sorted = kjarni::sort(s.queue, x).get(s.queue).to_vector<T>();
    std::vector<bool> seen(n);
    const auto fail = [&](std::size_t i, const char* why) {
        fmt::print("check {}: FAILED at position {} of {}: {}\n", what, i, n, why);
        return false;
    };
    for (std::size_t i = 0; i < n; ++i) {
        const std::int64_t p = positions[i];
        if (p < 0 || static_cast<std::size_t>(p) >= n || seen[static_cast<std::size_t>(p)])
            return fail(i, "not a permutation");
        seen[static_cast<std::size_t>(p)] = true;
        const T key = keys[static_cast<std::size_t>(p)];
        if (i > 0) {
            const T before = keys[static_cast<std::size_t>(positions[i - 1])];
            if (key < before) return fail(i, "argsort out of order");
            if (key == before && positions[i - 1] > p) return fail(i, "argsort not stable");
        }
        if (!(sorted[i] == key)) return fail(i, "sort differs from the keys in argsort's order");
    }
    fmt::print("check {}: sort and argsort of {} keys ok\n", what, n);
    return true;
}

/// One configuration of KJARNI_BENCH_SORT_CONFIGS: its text and its settings.
struct Config {
    std::string text;
    std::map<std::string, std::string> settings;
};

std::vector<Config> configs() {
    std::vector<Config> all;
    const char* list = std::getenv("KJARNI_BENCH_SORT_CONFIGS");
    if (list == nullptr) return all;
    const auto split = [](const std::string& text, char by) {
        std::vector<std::string> parts;
        std::size_t from = 0;
        for (std::size_t at = text.find(by);; at = text.find(by, from)) {
            const std::string part = text.substr(from, at == std::string::npos ? std::string::npos : at - from);
            if (!part.empty()) parts.push_back(part);
            if (at == std::string::npos) break;
            from = at + 1;
        }
        return parts;
    };
    for (const std::string& text : split(list, ';')) {
        Config c{text, {}};
        for (const std::string& setting : split(text, ',')) {
            const std::size_t eq = setting.find('=');
            if (eq == std::string::npos) {
                fmt::print(stderr, "KJARNI_BENCH_SORT_CONFIGS: '{}' is not NAME=VALUE\n", setting);
                std::exit(2);
            }
            std::string name = setting.substr(0, eq);
            if (name.rfind("KJARNI_", 0) != 0) name = "KJARNI_SORT_" + name;
            c.settings[name] = setting.substr(eq + 1);
        }
        all.push_back(c);
    }
    return all;
}

/// Sets `c`'s settings, unsetting the other names any configuration sets.
void apply(const Config& c, const std::vector<Config>& all) {
    std::set<std::string> names;
    for (const Config& other : all)
        for (const auto& [name, value] : other.settings) names.insert(name);
    for (const std::string& name : names) unsetenv(name.c_str());
    for (const auto& [name, value] : c.settings) setenv(name.c_str(), value.c_str(), 1);
}

/// Arrays for the per-configuration checks (2^22 keys).
struct CheckArrays {
    kjarni::Array floats, uints, few;
};

CheckArrays check_arrays(const kjarni::Queue& queue) {
    const std::size_t n = std::size_t{1} << 22;
    std::vector<float> f(n);
    std::vector<std::uint32_t> u(n), few(n);
    std::uint64_t state = 777;
    for (std::size_t k = 0; k < n; ++k) {
        const std::uint64_t r = next(state);
        u[k] = static_cast<std::uint32_t>(r);
        few[k] = static_cast<std::uint32_t>((r >> 32) % 1000);
        f[k] = static_cast<float>(static_cast<std::uint32_t>(r >> 32) >> 8) * 0x1p-24f * ((r & 1) ? -1.0f : 1.0f);
    }
    return {kjarni::Array::from_host(queue, std::span<const float>(f), {n}),
            kjarni::Array::from_host(queue, std::span<const std::uint32_t>(u), {n}),
            kjarni::Array::from_host(queue, std::span<const std::uint32_t>(few), {n})};
}

}  // namespace

int main(int argc, char** argv) {
    benchmark::Initialize(&argc, argv);
    const std::size_t n = elements();
    const std::vector<Config> sweep = configs();
    const char* only = std::getenv("KJARNI_BENCH_SORT_API");
    bool failed = false;
    for (const kjarni::Api& api : kjarni::Api::all_available()) {
        if (only != nullptr) {
            const auto context = kjarni::Context::from_criteria(api);
            const std::string tag = fmt::format("{}/{}", api.shortcut(), context.devices()[0].name());
            if (tag.find(only) == std::string::npos) continue;
        }
        const auto s = make_setup(api);
        const std::string tag = fmt::format("{}/{}", api.shortcut(), s->queue.device().name());
        if (std::getenv("KJARNI_BENCH_SORT_CHECK") != nullptr &&
            !(check_sorts<float>(*s, s->floats, "float32/" + tag) &&
              check_sorts<std::uint32_t>(*s, s->uints, "uint32/" + tag)))
            return 1;
        auto add = [&](const std::string& name, auto work) {
            benchmark::RegisterBenchmark((name + "/" + tag).c_str(), [s, n, work](benchmark::State& state) {
                run(state, *s, n, work);
            })->UseRealTime();
        };
        if (!sweep.empty()) {
            // Each configuration checked at 2^22, then its cases; the other cases are left out.
            const CheckArrays small = check_arrays(s->queue);
            for (const Config& c : sweep) {
                apply(c, sweep);
                const std::string at = fmt::format("[{}]/{}", c.text, tag);
                // A configuration that fails (wrong results, or an error such as a compilation that
                // the driver refuses) is left out of the timings; the run goes on, ending with status 1.
                bool ok = false;
                try {
                    ok = check_sorts<float>(*s, small.floats, "float32" + at) &&
                         check_sorts<std::uint32_t>(*s, small.uints, "uint32" + at) &&
                         check_sorts<std::uint32_t>(*s, small.few, "uint32 of 1000 values" + at);
                } catch (const std::exception& e) {
                    fmt::print("check {}: FAILED: {}\n", at, e.what());
                }
                if (!ok) {
                    failed = true;
                    continue;
                }
                const auto add_config = [&](const std::string& name, auto work) {
                    benchmark::RegisterBenchmark((name + "[" + c.text + "]/" + tag).c_str(),
                                                 [s, n, work, c, sweep](benchmark::State& state) {
                                                     apply(c, sweep);
                                                     run(state, *s, n, work);
                                                 })
                        ->UseRealTime();
                };
                add_config("sort_float32", [s] { kjarni::sort(s->queue, s->floats); });
                add_config("sort_uint32", [s] { kjarni::sort(s->queue, s->uints); });
                add_config("argsort_float32", [s] { kjarni::argsort(s->queue, s->floats); });
                add_config("argsort_uint32", [s] { kjarni::argsort(s->queue, s->uints); });
            }
            continue;
        }
        add("copy", [s] { s->copy_target.base().set(s->queue, s->floats.base(), true); });
        add("sort_float32", [s] { kjarni::sort(s->queue, s->floats); });
        add("sort_uint32", [s] { kjarni::sort(s->queue, s->uints); });
        add("argsort_float32", [s] { kjarni::argsort(s->queue, s->floats); });
        add("argsort_uint32", [s] { kjarni::argsort(s->queue, s->uints); });
        add("boolean_index_float32", [s] { kjarni::boolean_index(s->queue, s->floats, s->mask); });
        // a[1:] = a[:-1]: n - 1 elements, counted as n (the difference is below the noise).
        const std::vector<kjarni::Slice> tail{kjarni::Slice{1, std::nullopt, 1}};
        const std::vector<kjarni::Slice> head{kjarni::Slice{std::nullopt, -1, 1}};
        add("overlap_set_float32",
            [s, tail, head] { s->shifted.slice(tail).set(s->queue, s->shifted.slice(head), true); });
        add("overlap_assign_float32", [s, tail, head] {
            kjarni::assign(s->queue, s->shifted.slice(tail), kjarni::Expr(s->shifted.slice(head)));
        });
    }
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return failed ? 1 : 0;
}
