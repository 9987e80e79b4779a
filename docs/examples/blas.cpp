// The example of docs/blas.md: gemm (C-ordered operands, a transposed view, alpha and beta into an
// existing output), gemv with a strided vector, ger, dot and vdot, gemm_batched, and the errors of
// bad input. Every result is checked against the same product computed on the CPU in double
// precision from the same random values. The first argument names the device (a device
// specifier), else the first device is used. Without a BLAS library for the device's API the
// example says so and exits with 77 (the test counts that as skipped).

#include <kjarni/kjarni.hpp>

#include <cmath>
#include <complex>
#include <cstdint>
#include <iostream>
#include <random>
#include <vector>

namespace {

std::mt19937 engine(std::random_device{}());

template <class T>
std::vector<T> random_values(std::size_t n) {
    std::uniform_real_distribution<double> uniform(-1.0, 1.0);
    std::vector<T> values(n);
    for (auto& v : values) {
        if constexpr (std::is_same_v<T, std::complex<float>>)
            v = T(static_cast<float>(uniform(engine)), static_cast<float>(uniform(engine)));
        else v = static_cast<T>(uniform(engine));
    }
    return values;
}

bool report(bool ok, const char* what) {
    std::cout << what << ": " << (ok ? "OK" : "MISMATCH") << '\n';
    return ok;
}

// Each result element is a sum of `terms` products; a float32 sum of n terms differs from the exact
// one by at most n * 2^-24 times the sum of the terms' magnitudes (in any order of summation, FMA
// or not), which is what `magnitude` carries.
bool close(double got, double exact, double magnitude, std::size_t terms) {
    return std::abs(got - exact) <= static_cast<double>(terms + 1) * std::ldexp(1.0, -24) * magnitude + 1e-30;
}

int run(const kjarni::Queue& queue) {
    constexpr std::size_t m = 37, n = 29, k = 53;
    bool ok = true;
    const std::vector<float> a_host = random_values<float>(m * k);  // a: m x k, C order
    const std::vector<float> b_host = random_values<float>(n * k);  // bt: n x k, C order; b = bt^T
    const std::vector<float> c_host = random_values<float>(m * n);
    const auto a_at = [&](std::size_t i, std::size_t l) { return static_cast<double>(a_host[i * k + l]); };
    const auto b_at = [&](std::size_t l, std::size_t j) { return static_cast<double>(b_host[j * k + l]); };

    //! [gemm]
    // c = a b for a C-ordered a (m x k) and b the transposed view of a C-ordered n x k array: both
    // are used where they lie (a transpose is a BLAS operation), and a new C-ordered m x n array
    // holds the product.
    const kjarni::Array a = kjarni::Array::from_host(queue, std::span<const float>(a_host), {m, k});
    const kjarni::Array bt = kjarni::Array::from_host(queue, std::span<const float>(b_host), {n, k});
    const kjarni::Array product = kjarni::blas::gemm(queue, 1.0, a, bt.transpose());

    // c = 2 a b + 0.5 c into an existing array; Op::transpose says the same as the view above.
    const kjarni::Array c = kjarni::Array::from_host(queue, std::span<const float>(c_host), {m, n});
    kjarni::blas::gemm(queue, 2.0, a, bt, 0.5, c, kjarni::blas::Op::none, kjarni::blas::Op::transpose);
    //! [gemm]
    {
        const std::vector<float> got = product.get(queue).to_vector<float>();
        const std::vector<float> got_c = c.get(queue).to_vector<float>();
        bool gemm_ok = product.shape() == std::vector<std::size_t>{m, n} && product.is_c_contiguous();
        for (std::size_t i = 0; i < m; ++i) {
            for (std::size_t j = 0; j < n; ++j) {
                double exact = 0, magnitude = 0;
                for (std::size_t l = 0; l < k; ++l) {
                    exact += a_at(i, l) * b_at(l, j);
                    magnitude += std::abs(a_at(i, l) * b_at(l, j));
                }
                const double c_old = c_host[i * n + j];
                gemm_ok =
                    gemm_ok && close(got[i * n + j], exact, magnitude, k) &&
                    close(got_c[i * n + j], 2 * exact + 0.5 * c_old, 2 * magnitude + 0.5 * std::abs(c_old), k + 1);
            }
        }
        ok = report(gemm_ok, "gemm: a b^T by a view and by Op::transpose, alpha and beta") && ok;
    }

    //! [gemv_ger]
    // y = a x with x every other element of a longer vector (a strided vector is used in place),
    // then a copy of a plus 0.25 y x^T (ger: numpy's outer product, added).
    const std::vector<float> x_host = random_values<float>(2 * k);
    const kjarni::Array x_long = kjarni::Array::from_host(queue, std::span<const float>(x_host), {2 * k});
    const kjarni::Array x = x_long[{kjarni::Slice{std::nullopt, std::nullopt, 2}}];  // x_long[::2]: k elements
    const kjarni::Array y = kjarni::blas::gemv(queue, 1.0, a, x);                    // a new array of m
    const kjarni::Array updated = a.copy(queue);
    kjarni::blas::ger(queue, 0.25, y, x, updated);
    //! [gemv_ger]
    {
        const std::vector<float> got_y = y.get(queue).to_vector<float>();
        const std::vector<float> got_a = updated.get(queue).to_vector<float>();
        bool gemv_ok = true;
        for (std::size_t i = 0; i < m; ++i) {
            double exact = 0, magnitude = 0;
            for (std::size_t l = 0; l < k; ++l) {
                exact += a_at(i, l) * x_host[2 * l];
                magnitude += std::abs(a_at(i, l) * x_host[2 * l]);
            }
            gemv_ok = gemv_ok && close(got_y[i], exact, magnitude, k);
        }
        ok = report(gemv_ok, "gemv over a strided vector") && ok;
        bool ger_ok = true;
        for (std::size_t i = 0; i < m; ++i) {
            for (std::size_t l = 0; l < k; ++l) {
                // One product and one sum of the device's y: two roundings.
                const double term = 0.25 * got_y[i] * x_host[2 * l];
                ger_ok = ger_ok && close(got_a[i * k + l], a_at(i, l) + term, std::abs(a_at(i, l)) + std::abs(term), 2);
            }
        }
        ok = report(ger_ok, "ger: a + 0.25 y x^T") && ok;
    }

    //! [dot]
    // x . y in float64, and x^H y (numpy's vdot) in complex64; each result is a 0-d array.
    const std::vector<double> u_host = random_values<double>(1000), v_host = random_values<double>(1000);
    const kjarni::Array u = kjarni::Array::from_host(queue, std::span<const double>(u_host), {1000});
    const kjarni::Array v = kjarni::Array::from_host(queue, std::span<const double>(v_host), {1000});
    const double uv = kjarni::blas::dot(queue, u, v).get(queue).to_vector<double>()[0];

    using complex = std::complex<float>;
    const std::vector<complex> p_host = random_values<complex>(300), q_host = random_values<complex>(300);
    const kjarni::Array p = kjarni::Array::from_host(queue, std::span<const complex>(p_host), {300});
    const kjarni::Array q = kjarni::Array::from_host(queue, std::span<const complex>(q_host), {300});
    const complex pq =
        kjarni::blas::dot(queue, p, q, std::nullopt, /*conjugate_x=*/true).get(queue).to_vector<complex>()[0];
    //! [dot]
    {
        double exact = 0, magnitude = 0;
        for (std::size_t i = 0; i < 1000; ++i) {
            exact += u_host[i] * v_host[i];
            magnitude += std::abs(u_host[i] * v_host[i]);
        }
        // float64: 2^-53 per term instead of 2^-24.
        const bool dot_ok = std::abs(uv - exact) <= 1001 * std::ldexp(1.0, -53) * magnitude;
        std::complex<double> exact_c = 0;
        double magnitude_c = 0;
        for (std::size_t i = 0; i < 300; ++i) {
            const std::complex<double> term =
                std::conj(std::complex<double>(p_host[i])) * std::complex<double>(q_host[i]);
            exact_c += term;
            magnitude_c += std::abs(term);
        }
        // A complex product adds two real products: twice the terms of a real sum.
        const bool vdot_ok = close(pq.real(), exact_c.real(), 2 * magnitude_c, 600) &&
                             close(pq.imag(), exact_c.imag(), 2 * magnitude_c, 600);
        ok = report(dot_ok && vdot_ok, "dot (float64) and vdot (complex64)") && ok;
    }

    //! [batched]
    // Four independent products a[i] b[i] of 8 x 5 by 5 x 6 matrices in one call.
    constexpr std::size_t batch = 4, bm = 8, bk = 5, bn = 6;
    const std::vector<float> ba_host = random_values<float>(batch * bm * bk),
                             bb_host = random_values<float>(batch * bk * bn);
    const kjarni::Array ba = kjarni::Array::from_host(queue, std::span<const float>(ba_host), {batch, bm, bk});
    const kjarni::Array bb = kjarni::Array::from_host(queue, std::span<const float>(bb_host), {batch, bk, bn});
    const kjarni::Array bc = kjarni::blas::gemm_batched(queue, 1.0, ba, bb);  // shape {4, 8, 6}
    //! [batched]
    {
        const std::vector<float> got = bc.get(queue).to_vector<float>();
        bool batched_ok = bc.shape() == std::vector<std::size_t>{batch, bm, bn};
        for (std::size_t b = 0; b < batch; ++b) {
            for (std::size_t i = 0; i < bm; ++i) {
                for (std::size_t j = 0; j < bn; ++j) {
                    double exact = 0, magnitude = 0;
                    for (std::size_t l = 0; l < bk; ++l) {
                        const double t =
                            static_cast<double>(ba_host[(b * bm + i) * bk + l]) * bb_host[(b * bk + l) * bn + j];
                        exact += t;
                        magnitude += std::abs(t);
                    }
                    batched_ok = batched_ok && close(got[(b * bm + i) * bn + j], exact, magnitude, bk);
                }
            }
        }
        ok = report(batched_ok, "gemm_batched: four products in one call") && ok;
    }

    //! [errors]
    // Shapes that do not multiply, or an integer dtype: an ArgumentError naming the argument.
    bool errors_ok = false;
    try {
        kjarni::blas::gemm(queue, 1.0, a, bt);  // (37, 53) by (29, 53)
    } catch (const kjarni::ArgumentError& e) {
        std::cout << "refused: " << e.what() << '\n';  // names "b": op(a) is 37 x 53, op(b) 29 x 53
        errors_ok = e.argument() == "b";
    }
    try {
        const kjarni::Array counts = kjarni::Array::zeros(queue, {4}, kjarni::dtypes::int32);
        kjarni::blas::dot(queue, counts, counts);
        errors_ok = false;
    } catch (const kjarni::ArgumentError& e) {
        errors_ok = errors_ok && e.argument() == "x";
    }
    //! [errors]
    ok = report(errors_ok, "errors name the culprit") && ok;
    return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
    try {
        const std::vector<kjarni::Device> devices = kjarni::devices_from_specifiers(argc > 1 ? argv[1] : "");
        if (devices.empty()) throw kjarni::NotFoundError("no device: no GPU API is available here");
        const kjarni::Context context = kjarni::Context::from_devices(devices.front());
        return run(kjarni::Queue(context.devices()[0]));
    } catch (const kjarni::UnsupportedError& e) {
        // No cuBLAS / CLBlast for this device's API (or a dtype the device lacks): not a wrong result.
        std::cerr << "blas example skipped: " << e.what() << '\n';
        return 77;
    } catch (const kjarni::Error& e) {
        std::cerr << "blas example failed: " << e.what() << '\n';
        return 1;
    }
}
