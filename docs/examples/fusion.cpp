// The example of docs/fusion.md: a reduction of an expression in one kernel, a softmax and a
// layer normalisation written with kjarni's operations, planned into one kernel on a GPU, and three
// statements evaluated lazily in one kernel. Every result is
// checked against the CPU; the first argument names the device (a device specifier), else the
// first device is used.

#include <kjarni/fusion.hpp>
#include <kjarni/kjarni.hpp>
#include <kjarni/statements.hpp>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <random>
#include <vector>

namespace {

std::mt19937 engine(std::random_device{}());

bool report(bool ok, const char* what) {
    std::cout << what << ": " << (ok ? "OK" : "MISMATCH") << '\n';
    return ok;
}

int run(const kjarni::Queue& queue) {
    constexpr std::size_t rows = 64, cols = 500;
    std::uniform_real_distribution<float> uniform(-1, 1);
    std::vector<float> x_host(rows * cols), b_host(rows * cols), gamma_host(cols), beta_host(cols);
    for (float& v : x_host) v = uniform(engine);
    for (float& v : b_host) v = uniform(engine);
    for (float& v : gamma_host) v = uniform(engine);
    for (float& v : beta_host) v = uniform(engine);
    const kjarni::Array x = kjarni::Array::from_host(queue, std::span<const float>(x_host), {rows, cols});
    const kjarni::Array b = kjarni::Array::from_host(queue, std::span<const float>(b_host), {rows, cols});
    const kjarni::Array gamma = kjarni::Array::from_host(queue, std::span<const float>(gamma_host), {cols});
    const kjarni::Array beta = kjarni::Array::from_host(queue, std::span<const float>(beta_host), {cols});
    const double u = std::ldexp(1.0, -24);
    bool ok = true;

    //! [fused_reduction]
    // One kernel: 3x + b is computed in the sum's loads, never stored.
    const kjarni::Array total = kjarni::sum(queue, 3.0f * x + b);
    //! [fused_reduction]
    double expected_total = 0, magnitude = 0;
    for (std::size_t i = 0; i < rows * cols; ++i) {
        expected_total += 3.0 * x_host[i] + b_host[i];
        magnitude += std::fabs(3.0 * x_host[i]) + std::fabs(b_host[i]);
    }
    ok = report(std::fabs(total.get(queue).to_vector<float>()[0] - expected_total) <= (rows * cols + 4) * u * magnitude,
                "sum(3x + b) in one kernel") &&
         ok;

    //! [softmax]
    // Lazy reductions broadcast back along the rows: on a GPU one kernel reads x once and writes y
    // once (the plan printed says which kernels run on this device).
    const kjarni::Expr e = kjarni::exp(x - kjarni::max(x, -1, true));
    const kjarni::Expr softmax = e / kjarni::sum(e, -1, true);
    std::cout << kjarni::fusion_plan(queue, softmax).describe();
    const kjarni::Array y = kjarni::evaluate(queue, softmax);
    //! [softmax]
    const std::vector<float> y_host = y.get(queue).to_vector<float>();
    bool softmax_ok = true;
    for (std::size_t r = 0; r < rows; ++r) {
        const double top = *std::max_element(x_host.begin() + static_cast<std::ptrdiff_t>(r * cols),
                                             x_host.begin() + static_cast<std::ptrdiff_t>((r + 1) * cols));
        double denominator = 0;
        for (std::size_t c = 0; c < cols; ++c) denominator += std::exp(x_host[r * cols + c] - top);
        for (std::size_t c = 0; c < cols; ++c) {
            const double expected = std::exp(x_host[r * cols + c] - top) / denominator;
            softmax_ok =
                softmax_ok && std::fabs(y_host[r * cols + c] - expected) <= (cols + 16) * u * (expected + 1.0 / cols);
        }
    }
    ok = report(softmax_ok, "softmax (one kernel on a GPU)") && ok;

    //! [layer_norm]
    const kjarni::Expr centred = x - kjarni::mean(x, -1, true);
    const kjarni::Expr normalised = centred / kjarni::sqrt(kjarni::var(x, -1, true) + 1e-5f) * gamma + beta;
    const kjarni::Array z = kjarni::evaluate(queue, normalised);  // on a GPU one kernel: x, gamma, beta read once
    //! [layer_norm]
    const std::vector<float> z_host = z.get(queue).to_vector<float>();
    bool norm_ok = true;
    for (std::size_t r = 0; r < rows; ++r) {
        double average = 0, squares = 0;
        for (std::size_t c = 0; c < cols; ++c) average += x_host[r * cols + c];
        average /= cols;
        for (std::size_t c = 0; c < cols; ++c)
            squares += (x_host[r * cols + c] - average) * (x_host[r * cols + c] - average);
        const double scale = 1 / std::sqrt(squares / cols + 1e-5);
        for (std::size_t c = 0; c < cols; ++c) {
            const double expected = (x_host[r * cols + c] - average) * scale * gamma_host[c] + beta_host[c];
            norm_ok = norm_ok && std::fabs(z_host[r * cols + c] - expected) <= (cols + 32) * u * 8;
        }
    }
    ok = report(norm_ok, "layer normalisation (one kernel on a GPU)") && ok;

    //! [statements]
    // y = 3x + b; z = y*y; s = sum(z): nothing runs until run(), then one kernel; y and z are
    // never stored, and s is the value the three statements give one by one.
    kjarni::Statements block(queue);
    const kjarni::Expr y_value = block.let(3.0f * x + b);
    const kjarni::Expr z_value = block.let(y_value * y_value);
    const kjarni::Array s = block.evaluate(kjarni::sum(z_value));
    std::cout << block.plan().describe();  // kernel 1: statement 3: sum over axes (0, 1) ...
    block.run();
    //! [statements]
    double expected_s = 0, rounding = 0;
    for (std::size_t i = 0; i < rows * cols; ++i) {
        const double v = 3.0 * x_host[i] + b_host[i];
        expected_s += v * v;
        // y within 2u(|3x| + |b|) of v, so y*y within 5u |v| (|3x| + |b|) (and its own rounding) of v^2
        rounding += 5 * u * std::fabs(v) * (std::fabs(3.0 * x_host[i]) + std::fabs(b_host[i])) + u * v * v;
    }
    // the sum of n values adds at most (n - 1) u sum |z| (z = v^2 nearly)
    const double bound = (rows * cols + 4) * u * expected_s + 2 * rounding;
    ok = report(std::fabs(s.get(queue).to_vector<float>()[0] - expected_s) <= bound,
                "y = 3x + b; z = y*y; s = sum(z) in one kernel") &&
         ok;
    return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
    try {
        const std::vector<kjarni::Device> devices = kjarni::devices_from_specifiers(argc > 1 ? argv[1] : "");
        if (devices.empty()) throw kjarni::NotFoundError("no device: no GPU API is available here");
        const kjarni::Context context = kjarni::Context::from_devices(devices.front());
        return run(kjarni::Queue(context.devices()[0]));
    } catch (const kjarni::Error& e) {
        std::cerr << "fusion example failed: " << e.what() << '\n';
        return 1;
    }
}
