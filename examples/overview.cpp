// The program on the README's first screen: arrays, a fused expression, a reduction and a kernel of
// one's own, on the default device (the first CUDA GPU, else the first OpenCL device), each result
// checked against the same arithmetic on the CPU. Built as kjarni_overview and run as a test.
#include <kjarni/kjarni.hpp>

#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

int main() {
    // --- as on the README's first screen ---
    kjarni::Context context = kjarni::Context::from_criteria(kjarni::Api::all_available().at(0));
    kjarni::Queue queue(context.devices()[0]);

    std::vector<float> host_x(1 << 16);
    std::mt19937 random(std::random_device{}());
    for (float& v : host_x) v = std::uniform_real_distribution<float>(0.0f, 4.0f)(random);

    kjarni::Array x = kjarni::Array::from_host(queue, std::span<const float>(host_x), {host_x.size()});
    kjarni::Array y = kjarni::evaluate(queue, 2.0f * x + kjarni::sqrt(x));     // one fused kernel
    kjarni::Array total = kjarni::sum(queue, y, {}, kjarni::dtypes::float64);  // deterministic

    kjarni::Program program(queue.device(), R"(
KERNEL void scale(GLOBAL_MEM float* y, GLOBAL_MEM const float* x, float a)
{ const SIZE_T i = get_global_id(0); y[i] = a * x[i]; }
)");
    kjarni::Array z = kjarni::Array::empty(queue.device(), x.shape(), x.dtype());
    program.kernel("scale").prepare({x.size()})(queue, z, x, 3.0f);
    // --- end of the README's part ---

    std::vector<float> got_y(host_x.size()), got_z(host_x.size());
    y.get(queue, std::span<float>(got_y));
    z.get(queue, std::span<float>(got_z));
    double got_total = 0;
    total.get(queue, std::span<double>(&got_total, 1));

    double expected_total = 0;
    for (std::size_t i = 0; i < host_x.size(); ++i) {
        const float expected_y = 2.0f * host_x[i] + std::sqrt(host_x[i]);
        // Two roundings of float32 arithmetic and sqrt's (correctly rounded on CUDA, 3 ulp in
        // OpenCL C): a relative 1e-6 covers them for values in [0, 12].
        if (std::fabs(got_y[i] - expected_y) > 1e-6f * std::fabs(expected_y) + 1e-6f || got_z[i] != 3.0f * host_x[i]) {
            std::printf("mismatch at %zu: y %g (expected %g), z %g (expected %g)\n", i, got_y[i], expected_y, got_z[i],
                        3.0f * host_x[i]);
            return 1;
        }
        expected_total += got_y[i];
    }
    // The sum of the device's own y in float64: only the order of additions differs.
    if (std::fabs(got_total - expected_total) > 1e-12 * expected_total * std::log2(double(host_x.size()))) {
        std::printf("sum %.17g, expected %.17g\n", got_total, expected_total);
        return 1;
    }
    std::printf("%s: fused expression, sum and kernel OK (sum %.6g)\n", queue.device().name().c_str(), got_total);
    return 0;
}
