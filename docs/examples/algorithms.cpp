// The example of docs/algorithms.md: fused expressions, an ElementwiseKernel, numpy's reductions and
// a ReductionKernel, cumsum and a ScanKernel (a stream compaction). Every result is checked against
// the CPU; the first argument names the device (a device specifier), else the first device is used.

#include <kjarni/kjarni.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <random>
#include <vector>

namespace {

std::mt19937 engine(std::random_device{}());

bool report(bool ok, const char* what) {
    std::cout << what << ": " << (ok ? "OK" : "MISMATCH") << '\n';
    return ok;
}

// A float32 result computed in a different order, or contracted to a fused multiply-add, differs
// from the CPU's by a few roundings at most.
bool within_roundings(float value, double expected) {
    return std::fabs(value - expected) <= 4 * std::ldexp(1.0, -24) * std::max(1.0, std::fabs(expected));
}

int run(const kjarni::Queue& queue) {
    constexpr std::size_t rows = 37, cols = 129;
    constexpr std::size_t n = rows * cols;
    std::normal_distribution<float> normal;
    std::uniform_int_distribution<std::int32_t> uniform(-50, 50);
    std::vector<float> x_host(n), b_host(n);
    std::vector<std::int32_t> k_host(n);
    for (std::size_t i = 0; i < n; ++i) {
        x_host[i] = normal(engine);
        b_host[i] = normal(engine);
        k_host[i] = uniform(engine);
    }
    const kjarni::Array x = kjarni::Array::from_host(queue, std::span<const float>(x_host), {rows, cols});
    const kjarni::Array b = kjarni::Array::from_host(queue, std::span<const float>(b_host), {rows, cols});
    const kjarni::Array k = kjarni::Array::from_host(queue, std::span<const std::int32_t>(k_host), {rows, cols});
    bool ok = true;

    //! [expressions]
    // One kernel per evaluation, whatever the number of operations: y is read and written once.
    kjarni::Array y = kjarni::evaluate(queue, 2.0f * x + b);              // float32 (2.0f is weak)
    kjarni::assign(queue, y, kjarni::where(y > 0, kjarni::sqrt(y), -y));  // in place
    const kjarni::Array row_sums = kjarni::evaluate(queue, x + b[{0}]);   // b's row 0 broadcast
    const kjarni::Array halves = kjarni::evaluate(queue, k / 2);          // true division: float64
    //! [expressions]
    const std::vector<float> y_values = y.get(queue).to_vector<float>();
    const std::vector<float> row_values = row_sums.get(queue).to_vector<float>();
    const std::vector<double> half_values = halves.get(queue).to_vector<double>();
    bool expressions_ok = halves.dtype() == kjarni::dtypes::float64;
    for (std::size_t i = 0; i < n; ++i) {
        const double v = 2.0 * x_host[i] + b_host[i];
        expressions_ok = expressions_ok && within_roundings(y_values[i], v > 0 ? std::sqrt(v) : -v) &&
                         row_values[i] == x_host[i] + b_host[i % cols] && half_values[i] == k_host[i] / 2.0;
    }
    ok = report(expressions_ok, "expressions: where(y > 0, sqrt(y), -y), broadcasting, k / 2") && ok;

    //! [elementwise]
    // PyOpenCL's ElementwiseKernel: C over the element index i, for arrays of any layout.
    const kjarni::ElementwiseKernel axpb("float *z, const float *x, float a, const float *b", "z[i] = a * x[i] + b[i]");
    const kjarni::Array z = kjarni::Array::empty(queue.device(), {cols, rows}, kjarni::dtypes::float32);
    axpb(queue, z, x.transpose(), 3.0f, b.transpose());  // transposed views: no copy
    //! [elementwise]
    const std::vector<float> z_values = z.get(queue).to_vector<float>();
    bool elementwise_ok = true;
    for (std::size_t c = 0; c < cols; ++c) {
        for (std::size_t r = 0; r < rows; ++r) {
            elementwise_ok = elementwise_ok && within_roundings(z_values[c * rows + r],
                                                                3.0 * x_host[r * cols + c] + b_host[r * cols + c]);
        }
    }
    ok = report(elementwise_ok, "ElementwiseKernel over transposed views") && ok;

    //! [reductions]
    // numpy's reductions, enqueued on the queue; the result is a new (0-d or smaller) array.
    const kjarni::Array total = kjarni::sum(queue, k);                                         // int32 sums in int64
    const kjarni::Array column_max = kjarni::max(queue, k, {.axes = std::vector<int>{0}});     // {cols}
    const kjarni::Array row_argmin = kjarni::argmin(queue, x, {.axes = std::vector<int>{1}});  // int64, {rows}
    const kjarni::Array row_means = kjarni::mean(queue, x, {.axes = std::vector<int>{1}, .keepdims = true},
                                                 kjarni::dtypes::float64);  // {rows, 1}, in float64
    //! [reductions]
    std::int64_t expected_total = 0;
    for (const std::int32_t v : k_host) expected_total += v;
    const std::vector<std::int64_t> total_value = total.get(queue).to_vector<std::int64_t>();
    const std::vector<std::int32_t> max_values = column_max.get(queue).to_vector<std::int32_t>();
    const std::vector<std::int64_t> argmin_values = row_argmin.get(queue).to_vector<std::int64_t>();
    const std::vector<double> mean_values = row_means.get(queue).to_vector<double>();
    bool reductions_ok = total.dtype() == kjarni::dtypes::int64 && total_value.at(0) == expected_total &&
                         row_means.shape() == std::vector<std::size_t>{rows, 1};
    for (std::size_t c = 0; c < cols; ++c) {
        std::int32_t m = k_host[c];
        for (std::size_t r = 0; r < rows; ++r) m = std::max(m, k_host[r * cols + c]);
        reductions_ok = reductions_ok && max_values[c] == m;
    }
    for (std::size_t r = 0; r < rows; ++r) {
        const auto first = x_host.begin() + static_cast<std::ptrdiff_t>(r * cols);
        const auto lowest = std::min_element(first, first + static_cast<std::ptrdiff_t>(cols));  // the first minimum
        double row_sum = 0, magnitude = 0;
        for (auto it = first; it != first + static_cast<std::ptrdiff_t>(cols); ++it) {
            row_sum += *it;
            magnitude += std::fabs(*it);
        }
        // Two float64 sums of the same float32 values in different orders differ by at most
        // 2 * cols * 2^-53 * sum |x|; the mean divides that by cols, and rounds once more.
        const double expected_mean = row_sum / static_cast<double>(cols);
        const double bound = 2 * std::ldexp(1.0, -53) * magnitude + std::ldexp(1.0, -52) * std::fabs(expected_mean);
        reductions_ok =
            reductions_ok && argmin_values[r] == lowest - first && std::fabs(mean_values[r] - expected_mean) <= bound;
    }
    ok = report(reductions_ok, "sum, max over axis 0, argmin and mean over axis 1") && ok;

    //! [reduction_kernel]
    // A reduction of one's own: the largest |x - b| (map, then reduce, from the neutral element).
    const kjarni::ReductionKernel max_distance(kjarni::dtypes::float32, "0.0f", "fmax(a, b)", "fabs(x[i] - y[i])",
                                               "const float *x, const float *y");
    const float distance = max_distance(queue, {x, b}).get(queue).to_vector<float>().at(0);
    //! [reduction_kernel]
    float expected_distance = 0;
    for (std::size_t i = 0; i < n; ++i)
        expected_distance = std::max(expected_distance, std::fabs(x_host[i] - b_host[i]));
    ok = report(distance == expected_distance, "ReductionKernel: max |x - b|") && ok;

    //! [scans]
    // Running sums along an axis (numpy's cumsum); int32 accumulates in int64.
    const kjarni::Array running = kjarni::cumsum(queue, k, 1);
    //! [scans]
    const std::vector<std::int64_t> running_values = running.get(queue).to_vector<std::int64_t>();
    bool scans_ok = true;
    for (std::size_t r = 0; r < rows; ++r) {
        std::int64_t s = 0;
        for (std::size_t c = 0; c < cols; ++c) {
            s += k_host[r * cols + c];
            scans_ok = scans_ok && running_values[r * cols + c] == s;
        }
    }
    ok = report(scans_ok, "cumsum along axis 1") && ok;

    //! [scan_kernel]
    // A stream compaction: the positions of the positive elements of k, in order. The exclusive
    // prefix count of "positive" is the slot each positive element goes to; a kernel of one's own
    // then scatters them (the scan's x[i] names position i only, so it writes no other slot).
    const kjarni::Array flat_k = k.reshape({-1});
    const kjarni::Array slots = kjarni::Array::empty(queue.device(), {n}, kjarni::dtypes::int32);
    const kjarni::ScanKernel count_positive(kjarni::dtypes::int32, "0", "a + b", "k[i] > 0 ? 1 : 0",
                                            "slot[i] = prev_item;", "const int *k, int *slot");
    count_positive(queue, {flat_k, slots}, 0);
    const kjarni::Program scatter(queue.device(), R"(
KERNEL void scatter(GLOBAL_MEM int* positions, GLOBAL_MEM const int* k, GLOBAL_MEM const int* slot)
{
    const SIZE_T i = get_global_id(0);
    if (k[i] > 0) positions[slot[i]] = (int)i;
}
)");
    const kjarni::Array positions = kjarni::Array::zeros(queue, {n}, kjarni::dtypes::int32);
    scatter.kernel("scatter")(queue, {n}, std::nullopt, positions, flat_k, slots);
    const std::vector<std::int32_t> slot_values = slots.get(queue).to_vector<std::int32_t>();
    const std::size_t found = static_cast<std::size_t>(slot_values.back() + (k_host.back() > 0 ? 1 : 0));
    //! [scan_kernel]
    std::vector<std::int32_t> expected_positions;
    for (std::size_t i = 0; i < n; ++i) {
        if (k_host[i] > 0) expected_positions.push_back(static_cast<std::int32_t>(i));
    }
    const std::vector<std::int32_t> position_values = positions.get(queue).to_vector<std::int32_t>();
    const bool compact_ok = found == expected_positions.size() &&
                            std::equal(expected_positions.begin(), expected_positions.end(), position_values.begin());
    ok = report(compact_ok, "ScanKernel: the positions of the positive elements") && ok;
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
        std::cerr << "algorithms example failed: " << e.what() << '\n';
        return 1;
    }
}
