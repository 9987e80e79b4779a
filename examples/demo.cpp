// The demo: kjarni's first five minutes on the default device (the first API available, CUDA before
// OpenCL, its first device). It walks through grunnur's tutorial in C++ and then the algorithms,
// checking every result against the CPU:
//   1. a kernel from plain source: dest = a * b over float32 Arrays;
//   2. the same over complex64, with the C type and the multiplication coming from the function
//      modules through a template;
//   3. a Snippet and a Module (prefix, render globals, arguments) as the tutorial builds them;
//   4. a StaticKernel over a 2-d virtual grid;
//   5. a fused expression y = a*x + b, a reduction and a device copy of the same bytes, timed with
//      events, their bandwidth side by side.
// An argument names another device, as KJARNI_TEST does: `kjarni_demo opencl:NVIDIA`, `kjarni_demo cuda1`.

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <optional>
#include <random>
#include <vector>

#include "kjarni/kjarni.hpp"

namespace {

std::mt19937 random_engine(std::random_device{}());

std::vector<float> random_floats(std::size_t n) {
    std::normal_distribution<float> normal;
    std::vector<float> values(n);
    for (float& v : values) v = normal(random_engine);
    return values;
}

bool check(bool ok, const std::string& what) {
    fmt::print("  {:<62} {}\n", what, ok ? "OK" : "MISMATCH");
    return ok;
}

// 1. grunnur's first example: a kernel from plain source, launched over N work items.
bool multiply_real(const kjarni::Queue& queue) {
    constexpr std::size_t n = 256;
    const kjarni::Program program(queue.device(), R"(
KERNEL void multiply_them(GLOBAL_MEM float *dest, GLOBAL_MEM float *a, GLOBAL_MEM float *b)
{
    const SIZE_T i = get_global_id(0);
    dest[i] = a[i] * b[i];
}
)");
    const auto a = random_floats(n), b = random_floats(n);
    const auto a_dev = kjarni::Array::from_host(queue, std::span<const float>(a), {n});
    const auto b_dev = kjarni::Array::from_host(queue, std::span<const float>(b), {n});
    const auto dest_dev = kjarni::Array::empty(queue.device(), {n}, kjarni::dtypes::float32);
    program.kernel("multiply_them")(queue, {n}, std::nullopt, dest_dev, a_dev, b_dev);
    std::vector<float> dest(n);
    dest_dev.get(queue, std::span<float>(dest));
    bool equal = true;  // one rounding of the same product on both sides: exactly equal
    for (std::size_t i = 0; i < n; ++i) equal = equal && dest[i] == a[i] * b[i];
    return check(equal, "1. dest = a * b, float32, exact");
}

// 2. The same over complex64: the C type and the multiplication come from the function modules.
bool multiply_complex(const kjarni::Queue& queue) {
    constexpr std::size_t n = 256;
    const kjarni::DType dtype = kjarni::dtypes::complex64;
    const kjarni::Program program(queue.device(), std::string(R"(
KERNEL void multiply_them(GLOBAL_MEM ${ctype} *dest, GLOBAL_MEM ${ctype} *a, GLOBAL_MEM ${ctype} *b)
{
    const SIZE_T i = get_global_id(0);
    dest[i] = ${mul}(a[i], b[i]);
}
)"),
                                  {},
                                  {{"ctype", kjarni::ctype(dtype)}, {"mul", kjarni::functions::mul({dtype, dtype})}});
    const auto r1 = random_floats(n), r2 = random_floats(n);
    std::vector<std::complex<float>> a(n), b(n);
    for (std::size_t i = 0; i < n; ++i) {
        a[i] = {r1[i], r2[i]};
        b[i] = {r1[i], -r2[i]};
    }
    const auto a_dev = kjarni::Array::from_host(queue, std::span<const std::complex<float>>(a), {n});
    const auto b_dev = kjarni::Array::from_host(queue, std::span<const std::complex<float>>(b), {n});
    const auto dest_dev = kjarni::Array::empty(queue.device(), {n}, dtype);
    program.kernel("multiply_them")(queue, {n}, std::nullopt, dest_dev, a_dev, b_dev);
    std::vector<std::complex<float>> dest(n);
    dest_dev.get(queue, std::span<std::complex<float>>(dest));
    double error = 0, norm = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const std::complex<double> expected = std::complex<double>(a[i]) * std::complex<double>(b[i]);
        error += std::norm(std::complex<double>(dest[i]) - expected);
        norm += std::norm(expected);
    }
    // Each product rounds two float products and a sum: a relative error of a few float epsilons.
    return check(std::sqrt(error / norm) <= 1e-6, "2. dest = a * b, complex64 via functions::mul, |err| <= 1e-6");
}

// 3. The tutorial's snippet (x + num) and module (a function x + num + arg, under a fresh prefix).
bool snippets_and_modules(const kjarni::Queue& queue) {
    constexpr std::size_t n = 64;
    const kjarni::Snippet add_snippet =
        kjarni::Snippet::from_callable({"varname"}, [] { return "${varname} + ${num}"; }, "add", {{"num", 1}});
    const kjarni::Module add_module = kjarni::Module::from_callable({"prefix", "arg"},
                                                                    [] {
                                                                        return R"(
FUNCTION int ${prefix}(int x)
{
    return x + ${num} + ${arg};
}
)";
                                                                    },
                                                                    "foobar", {{"num", 1}});
    const kjarni::Program program(queue.device(), std::string(R"(
KERNEL void test(GLOBAL_MEM int *arr)
{
    const SIZE_T idx = get_global_id(0);
    int x = arr[idx];
    arr[idx] = ${add_module(2)}(${add_snippet('x')});
}
)"),
                                  {}, {{"add_snippet", add_snippet}, {"add_module", add_module}});
    std::uniform_int_distribution<std::int32_t> uniform(-1000000, 1000000);
    std::vector<std::int32_t> values(n);
    for (auto& v : values) v = uniform(random_engine);
    const auto arr = kjarni::Array::from_host(queue, std::span<const std::int32_t>(values), {n});
    program.kernel("test")(queue, {n}, std::nullopt, arr);
    std::vector<std::int32_t> result(n);
    arr.get(queue, std::span<std::int32_t>(result));
    bool equal = true;
    for (std::size_t i = 0; i < n; ++i) equal = equal && result[i] == values[i] + 1 + 1 + 2;
    return check(equal, "3. snippet x + 1 into module x + 1 + 2, int32, exact");
}

// 4. A StaticKernel: virtual sizes of any shape, mapped onto what the device takes.
bool static_kernel(const kjarni::Queue& queue) {
    constexpr std::size_t rows = 37, cols = 300;
    const kjarni::StaticKernel kernel(queue.device(), std::string(R"(
KERNEL void index_grid(GLOBAL_MEM int *out)
{
    if (${static.skip}()) return;
    const VSIZE_T row = ${static.global_id}(0);
    const VSIZE_T col = ${static.global_id}(1);
    out[row * ${cols} + col] = (int)(row * 1000 + col);
}
)"),
                                      "index_grid", {rows, cols}, std::nullopt, {}, {{"cols", static_cast<int>(cols)}});
    const auto out = kjarni::Array::empty(queue.device(), {rows, cols}, kjarni::dtypes::int32);
    kernel(queue, out);
    std::vector<std::int32_t> result(rows * cols);
    out.get(queue, std::span<std::int32_t>(result));
    bool equal = true;
    for (std::size_t r = 0; r < rows; ++r) {
        for (std::size_t c = 0; c < cols; ++c) equal = equal && result[r * cols + c] == static_cast<int>(r * 1000 + c);
    }
    return check(equal, fmt::format("4. StaticKernel over a {}x{} virtual grid, every index", rows, cols));
}

// The median time of `repetitions` runs of `work`, each between two events of the queue.
template <class Work>
double median_ms(const kjarni::Queue& queue, Work work, int repetitions = 5) {
    work();  // compiles and warms up outside the timing
    std::vector<double> times;
    for (int k = 0; k < repetitions; ++k) {
        const kjarni::Event start = queue.record_event();
        work();
        const kjarni::Event end = queue.record_event();
        end.wait();
        times.push_back(end.time_since(start));
    }
    std::sort(times.begin(), times.end());
    return times[times.size() / 2];
}

// 5. The algorithms: a fused expression and a reduction beside a device copy of the same bytes.
bool algorithms(const kjarni::Queue& queue) {
    constexpr std::size_t n = std::size_t{1} << 24;  // 64 MiB of float32 per array
    const auto x_host = random_floats(n), b_host = random_floats(n);
    const auto x = kjarni::Array::from_host(queue, std::span<const float>(x_host), {n});
    const auto b = kjarni::Array::from_host(queue, std::span<const float>(b_host), {n});
    const auto y = kjarni::Array::empty(queue.device(), {n}, kjarni::dtypes::float32);
    const float a = 2.5f;

    const double copy_ms = median_ms(queue, [&] { y.data().set(queue, x.data(), true); });
    const double axpb_ms = median_ms(queue, [&] { kjarni::assign(queue, y, a * kjarni::Expr(x) + b); });
    std::optional<kjarni::Array> total;
    // Accumulated in float64 (numpy's dtype= argument): the result is then checkable tightly.
    const double sum_ms = median_ms(queue, [&] { total = kjarni::sum(queue, x, {}, kjarni::dtypes::float64); });

    std::vector<float> y_host(n);
    y.get(queue, std::span<float>(y_host));
    bool axpb_ok = true;
    // The device may contract a*x + b into one fused multiply-add: either rounding is right.
    for (std::size_t i = 0; i < n; ++i) {
        const float expected = a * x_host[i] + b_host[i];
        const float fused = std::fma(a, x_host[i], b_host[i]);
        axpb_ok = axpb_ok && (y_host[i] == expected || y_host[i] == fused);
    }
    double device_sum = 0;
    total->get(queue, std::span<double>(&device_sum, 1));
    double exact = 0, magnitude = 0;
    for (const float v : x_host) {
        exact += v;
        magnitude += std::fabs(v);
    }
    // Summing n terms in float64 in any order errs by at most (n - 1) * 2^-53 * sum|x| (the same
    // bound holds for the CPU's sum), so twice that separates them.
    const double bound = 2.0 * static_cast<double>(n) * std::ldexp(1.0, -53) * magnitude;
    const bool sum_ok = std::fabs(device_sum - exact) <= bound;

    const double mb = static_cast<double>(n * sizeof(float)) * 1e-6;
    fmt::print("  5. {} MiB float32 per array, median of 5, timed with events:\n", n * sizeof(float) >> 20);
    fmt::print("     device copy y = x        {:8.3f} ms  {:7.1f} GB/s\n", copy_ms, 2 * mb / copy_ms);
    fmt::print("     expression y = a*x + b   {:8.3f} ms  {:7.1f} GB/s  (one kernel)\n", axpb_ms, 3 * mb / axpb_ms);
    fmt::print("     reduction sum(x)         {:8.3f} ms  {:7.1f} GB/s  (float64 accumulator)\n", sum_ms, mb / sum_ms);
    const bool ok1 = check(axpb_ok, "   y = a*x + b, every element within one rounding");
    const bool ok2 = check(sum_ok, fmt::format("   sum(x) = {:.6f}, CPU {:.6f}", device_sum, exact));
    return ok1 && ok2;
}

int run(const char* specifier) {
    const auto apis = kjarni::Api::all_available();
    if (apis.empty()) {
        for (const auto& status : kjarni::Api::status()) fmt::print("{}: {}\n", status.id.shortcut(), status.reason);
        fmt::print("no GPU API is available\n");
        return 1;
    }
    const kjarni::Context context =
        specifier != nullptr ? kjarni::context_from_specifier(specifier) : kjarni::Context::from_criteria(apis.front());
    const kjarni::Api api = context.api();
    const kjarni::BoundDevice device = context.devices()[0];
    const auto& params = device.params();
    fmt::print("kjarni {} on {} / {} / {}\n", kjarni::version(), api.shortcut(), context.platform().name(),
               device.name());
    fmt::print("  {} compute units, warp size {}, max local size {}, {} KiB local memory, {} MiB global memory\n",
               params.compute_units, params.warp_size, params.max_total_local_size, params.local_mem_size / 1024,
               device.device().properties().total_memory >> 20);
    const kjarni::Queue queue(device);
    bool ok = multiply_real(queue);
    ok = multiply_complex(queue) && ok;
    ok = snippets_and_modules(queue) && ok;
    ok = static_kernel(queue) && ok;
    ok = algorithms(queue) && ok;
    fmt::print("{}\n", ok ? "every result checked against the CPU: OK" : "some results differ from the CPU");
    return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
    try {
        return run(argc > 1 ? argv[1] : nullptr);
    } catch (const kjarni::Error& e) {
        fmt::print(stderr, "demo failed: {}\n", e.what());
        return 1;
    }
}
