// A program that uses kjarni as a package (tests/package/README.md): renders a kernel from a
// template, runs it on the default device and checks the result against the CPU.
#include <kjarni/kjarni.hpp>

#include <cmath>
#include <cstddef>
#include <iostream>
#include <random>
#include <span>
#include <vector>

int main() {
    const kjarni::Api api = kjarni::Api::all_available().at(0);  // CUDA if present, else OpenCL
    const kjarni::Context context = kjarni::Context::from_criteria(api);
    const kjarni::BoundDevice device = context.devices()[0];
    const kjarni::Queue queue(device);

    constexpr std::size_t n = 4096;
    std::mt19937 generator(std::random_device{}());
    std::uniform_real_distribution<float> distribution(-1.0f, 1.0f);
    std::vector<float> x(n);
    for (float& v : x) v = distribution(generator);
    const float a = distribution(generator);
    const int b = 3;

    const kjarni::Program program(device,
                                  kjarni::TemplateSource{std::string(
                                      "KERNEL void axpb(GLOBAL_MEM float* y, GLOBAL_MEM const float* x, float a)\n"
                                      "{ const SIZE_T i = get_global_id(0); y[i] = a * x[i] + ${b}; }\n")},
                                  {}, {{"b", b}});
    const kjarni::Buffer x_device = kjarni::Buffer::allocate(device, n * sizeof(float));
    const kjarni::Buffer y_device = kjarni::Buffer::allocate(device, n * sizeof(float));
    x_device.set(queue, std::span<const float>(x));
    program.kernel("axpb").prepare({n})(queue, y_device, x_device, a);
    std::vector<float> y(n, NAN);
    y_device.get(queue, std::span<float>(y));

    // One multiply and one add: a fused multiply-add on the device differs from the CPU's two
    // roundings by at most one rounding of |a*x + b| <= 4, so 4 * 2^-23 bounds the difference.
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < n; ++i) {
        if (!(std::fabs(y[i] - (a * x[i] + static_cast<float>(b))) <= 4.0f / 8388608.0f)) ++wrong;
    }
    std::cout << "kjarni " << kjarni::version() << " on " << device.name() << ": "
              << (wrong == 0 ? "axpb OK" : "axpb WRONG") << '\n';
    return wrong == 0 ? 0 : 1;
}
