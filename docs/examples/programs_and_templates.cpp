// The example of docs/programs-and-templates.md: a Program from plain source, kernels prepared and
// launched; a Program from a template with render globals and arguments; a Snippet and a Module;
// a StaticKernel; what a compile error carries. Every result is checked against the CPU; the first
// argument names the device (a device specifier), else the first device is used.

#include <kjarni/kjarni.hpp>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <iostream>
#include <random>
#include <string>
#include <vector>

namespace {

std::mt19937 engine(std::random_device{}());

std::vector<float> random_floats(std::size_t n) {
    std::normal_distribution<float> normal;
    std::vector<float> values(n);
    for (float& v : values) v = normal(engine);
    return values;
}

std::vector<std::int32_t> random_ints(std::size_t n) {
    std::uniform_int_distribution<std::int32_t> uniform(-100000, 100000);
    std::vector<std::int32_t> values(n);
    for (auto& v : values) v = uniform(engine);
    return values;
}

bool report(bool ok, const char* what) {
    std::cout << what << ": " << (ok ? "OK" : "MISMATCH") << '\n';
    return ok;
}

// A kernel from plain source, on Buffers: prepared once, launched twice.
bool plain_source(const kjarni::Queue& queue) {
    const std::size_t n = 1000;
    const std::vector<float> x_host = random_floats(n);
    //! [plain]
    const kjarni::BoundDevice& device = queue.device();
    const kjarni::Program program(device, R"(
KERNEL void scale(GLOBAL_MEM float* y, GLOBAL_MEM const float* x, float a, unsigned int n)
{
    const SIZE_T i = get_global_id(0);
    if (i < n) y[i] = a * x[i];
}
)");
    const kjarni::Buffer x = kjarni::Buffer::allocate(device, n * sizeof(float));
    const kjarni::Buffer y = kjarni::Buffer::allocate(device, n * sizeof(float));
    x.set(queue, std::span<const float>(x_host));

    // The global size must be a multiple of the local size: round n up, the kernel skips the rest.
    const kjarni::Kernel kernel = program.kernel("scale");
    const std::size_t local = 64;
    const std::size_t global = (n + local - 1) / local * local;
    const kjarni::PreparedKernel scale = kernel.prepare({global}, kjarni::Sizes{local});
    scale(queue, y, x, 2.0f, static_cast<unsigned>(n));          // arguments checked against the kernel
    scale.enqueue(queue, y, y, 1.5f, static_cast<unsigned>(n));  // no event: the cheapest launch

    std::vector<float> y_host(n);
    y.get(queue, std::span<float>(y_host));
    //! [plain]
    bool ok = true;  // 2 * x is exact, then one rounding of the product by 1.5: the CPU's bits
    for (std::size_t i = 0; i < n; ++i) ok = ok && y_host[i] == 1.5f * (2.0f * x_host[i]);
    return report(ok, "plain source: y = 1.5 * (2 * x)");
}

// A template: the element type, an unrolled loop and the complex multiplication come from the
// render globals and arguments.
bool from_template(const kjarni::Queue& queue) {
    const std::size_t n = 256;
    const kjarni::DType dtype = kjarni::dtypes::complex64;
    //! [template]
    // The body of a def with arguments `ctype` and `powers`; `mul` and `add` come from the globals
    // (function modules that work for real and complex types alike).
    const kjarni::DefTemplate power_sum = kjarni::DefTemplate::from_string("power_sum", {"ctype", "powers"}, R"(
KERNEL void power_sum(GLOBAL_MEM ${ctype}* y, GLOBAL_MEM const ${ctype}* x)
{
    const SIZE_T i = get_global_id(0);
    const ${ctype} v = x[i];
    ${ctype} p = v;
    ${ctype} total = v;
% for k in range(1, powers):
    p = ${mul}(p, v);  // v^${k + 1}
    total = ${add}(total, p);
% endfor
    y[i] = total;
}
)");
    const kjarni::Program program(queue.device(), power_sum, {kjarni::ctype(dtype), 3},
                                  {{"mul", kjarni::functions::mul({dtype, dtype})},
                                   {"add", kjarni::functions::add({dtype, dtype})}});
    //! [template]
    const std::vector<float> re = random_floats(n), im = random_floats(n);
    std::vector<std::complex<float>> x_host(n);
    for (std::size_t i = 0; i < n; ++i) x_host[i] = {re[i], im[i]};
    const auto x = kjarni::Array::from_host(queue, std::span<const std::complex<float>>(x_host), {n});
    const auto y = kjarni::Array::empty(queue.device(), {n}, dtype);
    program.kernel("power_sum")(queue, {n}, std::nullopt, y, x);
    std::vector<std::complex<float>> y_host(n);
    y.get(queue, std::span<std::complex<float>>(y_host));
    double error = 0, norm = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const std::complex<double> v(x_host[i]);
        const std::complex<double> expected = v + v * v + v * v * v;
        error += std::norm(std::complex<double>(y_host[i]) - expected);
        norm += std::norm(expected);
    }
    // A handful of complex64 operations per element: a relative error of a few float epsilons.
    return report(std::sqrt(error / norm) <= 1e-5, "template: y = x + x^2 + x^3, complex64");
}

// A Snippet (text pasted where it is used) and a Module (a function rendered once at the top).
bool snippets_and_modules(const kjarni::Queue& queue) {
    const std::size_t n = 512;
    const std::vector<std::int32_t> x_host = random_ints(n);
    //! [modules]
    // A Module: its def's first argument is a unique prefix, the name the template calls it by.
    const kjarni::Module clamp = kjarni::Module::from_callable(
        {"prefix", "low", "high"},
        [] {
            return R"(
FUNCTION int ${prefix}(int v)
{
    return v < ${low} ? ${low} : (v > ${high} ? ${high} : v);
}
)";
        },
        "clamp");
    // A Snippet: rendered in place with its arguments, with globals of its own (`scale`).
    const kjarni::Snippet scaled =
        kjarni::Snippet::from_callable({"value"}, [] { return "(${value} * ${scale})"; }, "scaled", {{"scale", 3}});

    const kjarni::Program program(queue.device(), std::string(R"(
KERNEL void transform(GLOBAL_MEM int* y, GLOBAL_MEM const int* x)
{
    const SIZE_T i = get_global_id(0);
    y[i] = ${clamp(-1000, 1000)}(${scaled('x[i]')});
}
)"),
                                  {}, {{"clamp", clamp}, {"scaled", scaled}});
    //! [modules]
    const auto x = kjarni::Array::from_host(queue, std::span<const std::int32_t>(x_host), {n});
    const auto y = kjarni::Array::empty(queue.device(), {n}, kjarni::dtypes::int32);
    program.kernel("transform")(queue, {n}, std::nullopt, y, x);
    std::vector<std::int32_t> y_host(n);
    y.get(queue, std::span<std::int32_t>(y_host));
    bool ok = true;
    for (std::size_t i = 0; i < n; ++i) ok = ok && y_host[i] == std::clamp(3 * x_host[i], -1000, 1000);
    return report(ok, "snippet and module: y = clamp(3 * x, -1000, 1000), int32");
}

// A StaticKernel: a virtual 2-d grid of any extents, no padding arithmetic in the caller.
bool static_kernel(const kjarni::Queue& queue) {
    const std::size_t rows = 19, cols = 301;
    //! [static]
    const kjarni::StaticKernel table(queue.device(), std::string(R"(
KERNEL void table(GLOBAL_MEM int* out)
{
    if (${static.skip}()) return;
    const VSIZE_T col = ${static.global_id}(0);  // dimension 0 varies fastest
    const VSIZE_T row = ${static.global_id}(1);
    out[row * ${cols} + col] = (int)(row * col);
}
)"),
                                     "table", {cols, rows}, std::nullopt, {}, {{"cols", static_cast<int>(cols)}});
    const auto out = kjarni::Array::empty(queue.device(), {rows, cols}, kjarni::dtypes::int32);
    table(queue, out);
    //! [static]
    const std::vector<std::int32_t> result = out.get(queue).to_vector<std::int32_t>();
    bool ok = true;
    for (std::size_t r = 0; r < rows; ++r) {
        for (std::size_t c = 0; c < cols; ++c) ok = ok && result[r * cols + c] == static_cast<std::int32_t>(r * c);
    }
    return report(ok, "static kernel: a 19 x 301 multiplication table");
}

// What a compile error carries.
bool compile_error(const kjarni::Queue& queue) {
    //! [errors]
    try {
        const kjarni::Program broken(queue.device(), "KERNEL void f(GLOBAL_MEM int* y) { y[0] = undeclared; }");
        return report(false, "a broken source compiled");
    } catch (const kjarni::CompileError& e) {
        // e.log(): the compiler's messages; e.numbered_source(): the source they refer to.
        std::cout << "compile error on " << e.device() << ", log:\n" << e.log() << '\n';
    }
    try {
        const kjarni::Program unrendered(queue.device(), std::string("${undefined_name}"), {}, {});
        return report(false, "a template with an undefined name rendered");
    } catch (const kjarni::RenderError& e) {
        std::cout << "render error at line " << e.line() << ", column " << e.column() << ": " << e.message() << '\n';
    }
    //! [errors]
    return report(true, "compile and render errors");
}

}  // namespace

int main(int argc, char** argv) {
    try {
        const std::vector<kjarni::Device> devices = kjarni::devices_from_specifiers(argc > 1 ? argv[1] : "");
        if (devices.empty()) throw kjarni::NotFoundError("no device: no GPU API is available here");
        const kjarni::Context context = kjarni::Context::from_devices(devices.front());
        const kjarni::Queue queue(context.devices()[0]);
        bool ok = plain_source(queue);
        ok = from_template(queue) && ok;
        ok = snippets_and_modules(queue) && ok;
        ok = static_kernel(queue) && ok;
        ok = compile_error(queue) && ok;
        return ok ? 0 : 1;
    } catch (const kjarni::Error& e) {
        std::cerr << "programs example failed: " << e.what() << '\n';
        return 1;
    }
}
