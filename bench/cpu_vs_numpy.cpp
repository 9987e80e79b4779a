// kjarni's side of bench/cpu_vs_numpy.py: the operations numpy is compared with, one call at a time
// on request, so that the driver can interleave kjarni's repetitions with numpy's in one process
// tree on the same cores. Reads lines "<case> <elements>" on stdin and answers each with the wall
// time of one call in milliseconds (enqueue to completion: numpy's calls are synchronous), or
// "error <message>". Cases (float32 arrays of fresh normal random data, made once per size):
//   copy          y = x (a Buffer copy)               scale   y = 2x (expression)
//   add           y = a + b (expression)              axpb    y = a*x + b (one fused expression)
//   axpb_kernel   the same through ElementwiseKernel
//   sum64         sum(x, dtype=float64) into out      sum32   sum(x) (float32 accumulator) into out
//   cumsum        cumsum(x) into y (float32)
//   copy_step2    y[:n/2] = x[::2] (Array::set from a strided view: the strided-copy kernel)
//   copy_T        y = x.T, both viewed as square C-ordered matrices (n a square: 4^k elements)
// The device: the argument, as KJARNI_TEST names one ("opencl:Portable"), else the first OpenCL
// device. A call's first run (kernel compilation) is made before any answer for that case.
//
//   kjarni_bench_cpu_vs_numpy [device]   (normally started by bench/cpu_vs_numpy.py)

#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "kjarni/kjarni.hpp"

namespace {

struct Arrays {
    kjarni::Array a, b, x, y, sum64, sum32;
};

kjarni::Array random_array(const kjarni::Queue& queue, std::size_t n, std::mt19937& engine) {
    std::normal_distribution<float> normal;
    std::vector<float> values(n);
    for (float& v : values) v = normal(engine);
    return kjarni::Array::from_host(queue, std::span<const float>(values), {n});
}

class Bench {
public:
    explicit Bench(kjarni::Queue queue) : queue_(std::move(queue)) {}

    double time_ms(const std::string& name, std::size_t n) {
        const Arrays& s = arrays(n);
        const auto work = operation(name, s);
        if (warm_.insert({name, n}).second) {  // compiles and warms up outside the timing
            work();
            queue_.synchronize();
        }
        const auto start = std::chrono::steady_clock::now();
        work();
        queue_.synchronize();
        return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    }

private:
    const Arrays& arrays(std::size_t n) {
        auto found = arrays_.find(n);
        if (found != arrays_.end()) return found->second;
        std::mt19937 engine(static_cast<unsigned>(n));
        Arrays s{random_array(queue_, n, engine),
                 random_array(queue_, n, engine),
                 random_array(queue_, n, engine),
                 kjarni::Array::empty(queue_.device(), {n}, kjarni::dtypes::float32),
                 kjarni::Array::empty(queue_.device(), {}, kjarni::dtypes::float64),
                 kjarni::Array::empty(queue_.device(), {}, kjarni::dtypes::float32)};
        return arrays_.emplace(n, std::move(s)).first->second;
    }

    std::function<void()> operation(const std::string& name, const Arrays& s) {
        const kjarni::Queue& q = queue_;
        if (name == "copy") return [&q, &s] { s.y.base().set(q, s.x.base(), true); };
        if (name == "scale") return [&q, &s] { kjarni::assign(q, s.y, 2.0f * s.x); };
        if (name == "add") return [&q, &s] { kjarni::assign(q, s.y, s.a + s.b); };
        if (name == "axpb") return [&q, &s] { kjarni::assign(q, s.y, 2.5f * s.x + s.b); };
        if (name == "axpb_kernel") return [this, &q, &s] { axpb_(q, s.y, s.x, 2.5f, s.b); };
        if (name == "sum64")
            return [&q, &s] { kjarni::sum(q, s.x, kjarni::ReduceOptions{.out = s.sum64}, kjarni::dtypes::float64); };
        if (name == "sum32") return [&q, &s] { kjarni::sum(q, s.x, kjarni::ReduceOptions{.out = s.sum32}); };
        if (name == "cumsum") return [&q, &s] { kjarni::cumsum(q, s.x, std::nullopt, std::nullopt, s.y); };
        if (name == "copy_step2") {
            const auto n = static_cast<std::ptrdiff_t>(s.x.size());
            return [&q, y = s.y[{kjarni::Slice{0, n / 2}}], x = s.x[{kjarni::Slice{std::nullopt, std::nullopt, 2}}]] {
                y.set(q, x);
            };
        }
        if (name == "copy_T") {
            const auto side = static_cast<std::ptrdiff_t>(std::llround(std::sqrt(static_cast<double>(s.x.size()))));
            if (static_cast<std::size_t>(side * side) != s.x.size())
                throw kjarni::ArgumentError("n", "copy_T needs a square number of elements");
            return [&q, y = s.y.reshape({side, side}), x = s.x.reshape({side, side}).transpose()] { y.set(q, x); };
        }
        throw kjarni::ArgumentError("case", fmt::format("unknown case '{}'", name));
    }

    kjarni::Queue queue_;
    std::map<std::size_t, Arrays> arrays_;
    std::set<std::pair<std::string, std::size_t>> warm_;
    kjarni::ElementwiseKernel axpb_{"float *y, const float *x, float a, const float *b", "y[i] = a * x[i] + b[i]"};
};

}  // namespace

int main(int argc, char** argv) {
    try {
        const kjarni::Context context = kjarni::context_from_specifier(argc > 1 ? argv[1] : "opencl");
        Bench bench{kjarni::Queue(context.devices()[0])};
        fmt::print("ready {} / {}\n", context.platform().name(), context.devices()[0].name());
        std::fflush(stdout);
        std::string line;
        while (std::getline(std::cin, line)) {
            std::istringstream words(line);
            std::string name;
            std::size_t n = 0;
            if (!(words >> name >> n) || n == 0) {
                fmt::print("error malformed request '{}'\n", line);
            } else {
                try {
                    fmt::print("{:.6f}\n", bench.time_ms(name, n));
                } catch (const kjarni::Error& e) {
                    fmt::print("error {}\n", e.what());
                }
            }
            std::fflush(stdout);
        }
        return 0;
    } catch (const kjarni::Error& e) {
        fmt::print(stderr, "kjarni_bench_cpu_vs_numpy: {}\n", e.what());
        return 1;
    }
}
