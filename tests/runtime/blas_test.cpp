// kjarni::blas against CPU references: every call, every dtype, operands in C and Fortran order,
// sliced (a larger leading dimension), with non-unit inner strides and reversed (copied first),
// every transpose; and the errors for bad arguments.
//
// Tolerances come from the standard bound for a computed inner product of length n (Higham,
// "Accuracy and Stability of Numerical Algorithms", 3.1): |fl(x.y) - x.y| <= gamma_n |x|.|y| with
// gamma_n = n u / (1 - n u) and u = eps / 2 the unit roundoff. alpha (op(A) op(B)) and the
// addition of beta C add two more roundings, the final rounding to the dtype one more, and a
// complex product costs at most sqrt(5) u instead of u. So each element of
//   alpha op(A) op(B) + beta C
// is checked against |alpha| (|op(A)| |op(B)|)_ij + |beta| |C_ij| times 2 eps (n + 3) (2 eps = 4 u
// covers the sqrt(5) u of a complex product and the 1/(1 - n u) factor at these sizes). The
// reference is computed in double from the values read back from the device (for float16 those
// are the rounded inputs), so only the library's arithmetic is measured. For float16, CLBlast
// accumulates in half precision, which the bound with eps = 2^-10 covers; cuBLAS accumulates in
// float32, which it covers with room to spare.

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstring>
#include <iostream>
#include <string>
#include <tuple>
#include <vector>

#include "dtype/half.hpp"
#include "kjarni/blas.hpp"
#include "kjarni/kjarni.hpp"
#include "support/random_data.hpp"
#include "support/test_devices.hpp"
#include "vendor/clblast_tuning.hpp"

namespace kjarni::test {
namespace {

using Cx = std::complex<double>;
using blas::Op;

const std::vector<DType> blas_dtypes{DType::Kind::float32, DType::Kind::float64, DType::Kind::complex64,
                                     DType::Kind::complex128, DType::Kind::float16};

bool complex_kind(const DType& d) { return d.kind() == DType::Kind::complex64 || d.kind() == DType::Kind::complex128; }

double eps_of(const DType& d) {
    switch (d.kind()) {
    case DType::Kind::float16: return std::ldexp(1.0, -10);
    case DType::Kind::float32:
    case DType::Kind::complex64: return std::ldexp(1.0, -23);
    default: return std::ldexp(1.0, -52);
    }
}

HostArray host_from(const DType& d, const std::vector<Cx>& v, std::vector<std::size_t> shape) {
    HostArray h(d, std::move(shape));
    for (std::size_t i = 0; i < v.size(); ++i) {
        std::byte* p = h.data() + i * d.itemsize();
        switch (d.kind()) {
        case DType::Kind::float16: {
            const float16_t x{kjarni::detail::float_to_half(static_cast<float>(v[i].real()))};
            std::memcpy(p, &x, sizeof x);
            break;
        }
        case DType::Kind::float32: {
            const auto x = static_cast<float>(v[i].real());
            std::memcpy(p, &x, sizeof x);
            break;
        }
        case DType::Kind::float64: {
            const double x = v[i].real();
            std::memcpy(p, &x, sizeof x);
            break;
        }
        case DType::Kind::complex64: {
            const std::complex<float> x(v[i]);
            std::memcpy(p, &x, sizeof x);
            break;
        }
        default: std::memcpy(p, &v[i], sizeof v[i]); break;
        }
    }
    return h;
}

/// The elements in C order, as complex doubles.
std::vector<Cx> read(const Queue& q, const Array& a) {
    const HostArray h = a.get(q);
    std::vector<Cx> out(h.size());
    for (std::size_t i = 0; i < out.size(); ++i) {
        const std::byte* p = h.data() + i * a.dtype().itemsize();
        switch (a.dtype().kind()) {
        case DType::Kind::float16: {
            std::uint16_t x = 0;
            std::memcpy(&x, p, sizeof x);
            out[i] = kjarni::detail::half_to_float(x);
            break;
        }
        case DType::Kind::float32: {
            float x = 0;
            std::memcpy(&x, p, sizeof x);
            out[i] = x;
            break;
        }
        case DType::Kind::float64: {
            double x = 0;
            std::memcpy(&x, p, sizeof x);
            out[i] = x;
            break;
        }
        case DType::Kind::complex64: {
            std::complex<float> x;
            std::memcpy(&x, p, sizeof x);
            out[i] = Cx(x);
            break;
        }
        default: std::memcpy(&out[i], p, sizeof(Cx)); break;
        }
    }
    return out;
}

/// A C-ordered device array of random values in [-1, 1) (both parts for complex dtypes).
Array random_array(const Queue& q, const DType& d, const std::vector<std::size_t>& shape) {
    std::size_t n = 1;
    for (const auto s : shape) n *= s;
    const auto re = random_vector<double>(n, -1.0, 1.0);
    const auto im = random_vector<double>(n, -1.0, 1.0);
    std::vector<Cx> v(n);
    for (std::size_t i = 0; i < n; ++i) v[i] = Cx(re[i], complex_kind(d) ? im[i] : 0.0);
    return Array::from_host(q, host_from(d, v, shape));
}

/// How an operand is laid out in memory.
enum class Lay {
    c,         // C-ordered
    f,         // each matrix Fortran-ordered (the batch axis stays first)
    sliced,    // a window of a larger C-ordered array: leading dimension > extent, offset > 0
    strided,   // every other element along the last axis: copied before the call
    reversed,  // the first matrix axis reversed (negative stride): copied before the call
};

const char* lay_name(Lay l) {
    switch (l) {
    case Lay::c: return "C";
    case Lay::f: return "F";
    case Lay::sliced: return "sliced";
    case Lay::strided: return "strided";
    case Lay::reversed: return "reversed";
    }
    return "?";
}

/// A view of `shape` with the given layout over random data.
Array make(const Queue& q, const DType& d, std::vector<std::size_t> shape, Lay lay) {
    const std::size_t nd = shape.size();
    switch (lay) {
    case Lay::c: return random_array(q, d, shape);
    case Lay::f: {
        if (nd == 1) return random_array(q, d, shape);
        std::swap(shape[nd - 1], shape[nd - 2]);
        const Array base = random_array(q, d, shape);
        return nd == 2 ? base.transpose({1, 0}) : base.transpose({0, 2, 1});
    }
    case Lay::sliced: {
        std::vector<std::size_t> big = shape;
        std::vector<Slice> window;
        for (std::size_t i = 0; i < nd; ++i) {
            const std::size_t before = i + 1;
            big[i] += before + 2;
            window.push_back(
                Slice{static_cast<std::ptrdiff_t>(before), static_cast<std::ptrdiff_t>(before + shape[i])});
        }
        return random_array(q, d, big).slice(window);
    }
    case Lay::strided: {
        std::vector<std::size_t> big = shape;
        big[nd - 1] *= 2;
        std::vector<Slice> window(nd);
        window[nd - 1].step = 2;
        return random_array(q, d, big).slice(window);
    }
    case Lay::reversed: {
        std::vector<Slice> window(nd);
        window[nd == 1 ? 0 : nd - 2].step = -1;
        return random_array(q, d, shape).slice(window);
    }
    }
    return random_array(q, d, shape);
}

Cx alpha_for(const DType& d) { return complex_kind(d) ? Cx(0.75, 0.25) : Cx(0.75, 0.0); }
Cx beta_for(const DType& d) { return complex_kind(d) ? Cx(-0.5, 0.125) : Cx(-0.5, 0.0); }

/// op(M) (i, j) of a rows x cols C-ordered matrix starting at `base`.
Cx op_at(const std::vector<Cx>& m, std::size_t base, std::size_t cols, Op op, std::size_t i, std::size_t j) {
    if (op == Op::none) return m[base + i * cols + j];
    const Cx v = m[base + j * cols + i];
    return op == Op::adjoint ? std::conj(v) : v;
}

/// Compares `got` (C order) with alpha op(A) op(B) + beta C0 per matrix of the batch, with the
/// tolerance of the header comment.
void expect_gemm(const std::vector<Cx>& got, const std::vector<Cx>& a, const std::vector<Cx>& b,
                 const std::vector<Cx>& c0, Cx alpha, Cx beta, Op op_a, Op op_b, std::size_t batch, std::size_t m,
                 std::size_t n, std::size_t k, double eps, const std::string& what) {
    const std::size_t a_cols = op_a == Op::none ? k : m;
    const std::size_t b_cols = op_b == Op::none ? n : k;
    int failures = 0;
    for (std::size_t p = 0; p < batch; ++p)
        for (std::size_t i = 0; i < m; ++i)
            for (std::size_t j = 0; j < n; ++j) {
                Cx sum = 0;
                double magnitude = 0;
                for (std::size_t l = 0; l < k; ++l) {
                    const Cx x = op_at(a, p * m * k, a_cols, op_a, i, l);
                    const Cx y = op_at(b, p * k * n, b_cols, op_b, l, j);
                    sum += x * y;
                    magnitude += std::abs(x) * std::abs(y);
                }
                const std::size_t at = p * m * n + i * n + j;
                const Cx expected = alpha * sum + beta * c0[at];
                const double tolerance = 2 * eps * static_cast<double>(k + 3) *
                                             (std::abs(alpha) * magnitude + std::abs(beta) * std::abs(c0[at])) +
                                         1e-300;
                if (std::abs(got[at] - expected) > tolerance && failures++ < 3)
                    ADD_FAILURE() << what << ": element [" << p << ", " << i << ", " << j << "] is " << got[at]
                                  << ", expected " << expected << " (tolerance " << tolerance << ")";
            }
}

class BlasTest : public DeviceTest {
protected:
    /// Runs `body`; returns false (and records why) when the device or library lacks the dtype.
    template <class Body>
    bool supported(const DType& d, const char* call, Body&& body) {
        try {
            body();
            return true;
        } catch (const UnsupportedError& e) {
            // Only float16 (no cl_khr_fp16, or no such cuBLAS routine) and float64 (no fp64) may be missing.
            EXPECT_TRUE(d.kind() == DType::Kind::float16 || d.kind() == DType::Kind::float64)
                << call << " " << d.name() << ": " << e.what();
            std::cout << "[ note ] " << call << " " << d.name() << " unsupported here: " << e.what() << "\n";
            return false;
        }
    }
};

TEST_P(BlasTest, GemmEveryDtypeOperationAndLayout) {
    const std::size_t m = 7, n = 5, k = 9;
    // Each case: the operations, and the layouts of A, B and C (C absent: a new C).
    struct Case {
        Op op_a, op_b;
        Lay a, b;
        std::optional<Lay> c;
    };
    const std::vector<Case> cases{
        {Op::none, Op::none, Lay::c, Lay::c, std::nullopt},
        {Op::none, Op::none, Lay::c, Lay::c, Lay::c},
        {Op::none, Op::none, Lay::f, Lay::f, Lay::f},
        {Op::transpose, Op::none, Lay::c, Lay::f, Lay::c},
        {Op::none, Op::transpose, Lay::f, Lay::c, Lay::f},
        {Op::transpose, Op::transpose, Lay::sliced, Lay::sliced, Lay::sliced},
        {Op::adjoint, Op::none, Lay::c, Lay::c, Lay::c},     // conj of a C-ordered A under a C-ordered C: a BLAS op
        {Op::adjoint, Op::adjoint, Lay::c, Lay::f, Lay::f},  // conj(A) under an F-ordered C: A copied to F order
        {Op::none, Op::adjoint, Lay::sliced, Lay::c, Lay::f},
        {Op::none, Op::none, Lay::strided, Lay::reversed, Lay::strided},  // copies in and out
        {Op::transpose, Op::adjoint, Lay::reversed, Lay::strided, Lay::reversed},
    };
    for (const DType& d : blas_dtypes) {
        const Cx alpha = alpha_for(d);
        for (const Case& cs : cases) {
            const std::string what =
                fmt::format("gemm {} op_a={} op_b={} A {} B {} C {}", d.name(), static_cast<int>(cs.op_a),
                            static_cast<int>(cs.op_b), lay_name(cs.a), lay_name(cs.b), cs.c ? lay_name(*cs.c) : "new");
            SCOPED_TRACE(what);
            const Array a =
                make(queue(), d, cs.op_a == Op::none ? std::vector<std::size_t>{m, k} : std::vector<std::size_t>{k, m},
                     cs.a);
            const Array b =
                make(queue(), d, cs.op_b == Op::none ? std::vector<std::size_t>{k, n} : std::vector<std::size_t>{n, k},
                     cs.b);
            std::optional<Array> c;
            if (cs.c) c = make(queue(), d, {m, n}, *cs.c);
            const Cx beta = c ? beta_for(d) : Cx(0);
            const auto av = read(queue(), a);
            const auto bv = read(queue(), b);
            const auto cv = c ? read(queue(), *c) : std::vector<Cx>(m * n, 0.0);
            Array result = a;
            if (!supported(d, "gemm", [&] { result = blas::gemm(queue(), alpha, a, b, beta, c, cs.op_a, cs.op_b); }))
                break;
            ASSERT_EQ(result.shape(), (std::vector<std::size_t>{m, n}));
            if (c) {
                EXPECT_EQ(result.base().native_handle(), c->base().native_handle());
            }
            expect_gemm(read(queue(), result), av, bv, cv, alpha, beta, cs.op_a, cs.op_b, 1, m, n, k, eps_of(d), what);
        }
    }
}

TEST_P(BlasTest, GemmBatched) {
    // A batch of one too: CLBlast's strided-batched routines refused it (CLBlastInvalidDimension).
    const std::size_t m = 6, n = 4, k = 5;
    struct Case {
        Op op_a, op_b;
        Lay a, b;
        std::optional<Lay> c;
    };
    const std::vector<Case> cases{
        {Op::none, Op::none, Lay::c, Lay::c, std::nullopt},
        {Op::transpose, Op::adjoint, Lay::f, Lay::sliced, Lay::c},
        {Op::adjoint, Op::none, Lay::sliced, Lay::f, Lay::f},
        {Op::none, Op::transpose, Lay::strided, Lay::reversed, Lay::sliced},
    };
    for (const std::size_t batch : {std::size_t{3}, std::size_t{1}})
        for (const DType& d : blas_dtypes) {
            const Cx alpha = alpha_for(d);
            for (const Case& cs : cases) {
                const std::string what = fmt::format("gemm_batched of {} {} op_a={} op_b={} A {} B {} C {}", batch,
                                                     d.name(), static_cast<int>(cs.op_a), static_cast<int>(cs.op_b),
                                                     lay_name(cs.a), lay_name(cs.b), cs.c ? lay_name(*cs.c) : "new");
                SCOPED_TRACE(what);
                const Array a = make(queue(), d,
                                     cs.op_a == Op::none ? std::vector<std::size_t>{batch, m, k}
                                                         : std::vector<std::size_t>{batch, k, m},
                                     cs.a);
                const Array b = make(queue(), d,
                                     cs.op_b == Op::none ? std::vector<std::size_t>{batch, k, n}
                                                         : std::vector<std::size_t>{batch, n, k},
                                     cs.b);
                std::optional<Array> c;
                if (cs.c) c = make(queue(), d, {batch, m, n}, *cs.c);
                const Cx beta = c ? beta_for(d) : Cx(0);
                const auto av = read(queue(), a);
                const auto bv = read(queue(), b);
                const auto cv = c ? read(queue(), *c) : std::vector<Cx>(batch * m * n, 0.0);
                Array result = a;
                if (!supported(d, "gemm_batched",
                               [&] { result = blas::gemm_batched(queue(), alpha, a, b, beta, c, cs.op_a, cs.op_b); }))
                    break;
                ASSERT_EQ(result.shape(), (std::vector<std::size_t>{batch, m, n}));
                expect_gemm(read(queue(), result), av, bv, cv, alpha, beta, cs.op_a, cs.op_b, batch, m, n, k, eps_of(d),
                            what);
            }
        }
}

TEST_P(BlasTest, Gemv) {
    const std::size_t rows = 6, cols = 9;
    struct Case {
        Op op;
        Lay a, x;
        std::optional<Lay> y;
    };
    const std::vector<Case> cases{
        {Op::none, Lay::c, Lay::c, std::nullopt},           {Op::none, Lay::f, Lay::strided, Lay::c},
        {Op::transpose, Lay::c, Lay::sliced, Lay::strided}, {Op::adjoint, Lay::f, Lay::c, Lay::c},
        {Op::adjoint, Lay::c, Lay::c, Lay::reversed},       {Op::none, Lay::strided, Lay::reversed, Lay::sliced},
    };
    for (const DType& d : blas_dtypes) {
        const Cx alpha = alpha_for(d);
        for (const Case& cs : cases) {
            const std::string what = fmt::format("gemv {} op={} A {} x {} y {}", d.name(), static_cast<int>(cs.op),
                                                 lay_name(cs.a), lay_name(cs.x), cs.y ? lay_name(*cs.y) : "new");
            SCOPED_TRACE(what);
            const std::size_t m = cs.op == Op::none ? rows : cols;  // op(A) is m x kk
            const std::size_t kk = cs.op == Op::none ? cols : rows;
            const Array a = make(queue(), d, {rows, cols}, cs.a);
            const Array x = make(queue(), d, {kk}, cs.x);
            std::optional<Array> y;
            if (cs.y) y = make(queue(), d, {m}, *cs.y);
            const Cx beta = y ? beta_for(d) : Cx(0);
            const auto av = read(queue(), a);
            const auto xv = read(queue(), x);
            const auto yv = y ? read(queue(), *y) : std::vector<Cx>(m, 0.0);
            Array result = a;
            if (!supported(d, "gemv", [&] { result = blas::gemv(queue(), alpha, a, x, beta, y, cs.op); })) break;
            ASSERT_EQ(result.shape(), (std::vector<std::size_t>{m}));
            // y is a gemm with n = 1: A as stored (rows x cols) with op, x a column.
            expect_gemm(read(queue(), result), av, xv, yv, alpha, beta, cs.op, Op::none, 1, m, 1, kk, eps_of(d), what);
        }
    }
}

TEST_P(BlasTest, Ger) {
    const std::size_t m = 7, n = 4;
    const std::vector<std::tuple<Lay, Lay, std::optional<Lay>>> cases{
        {Lay::c, Lay::c, std::nullopt}, {Lay::strided, Lay::c, Lay::c},
        {Lay::c, Lay::sliced, Lay::f},  {Lay::reversed, Lay::strided, Lay::sliced},
        {Lay::c, Lay::c, Lay::strided},
    };
    for (const DType& d : blas_dtypes) {
        const Cx alpha = alpha_for(d);
        for (const auto& [lx, ly, la] : cases) {
            const std::string what =
                fmt::format("ger {} x {} y {} A {}", d.name(), lay_name(lx), lay_name(ly), la ? lay_name(*la) : "new");
            SCOPED_TRACE(what);
            const Array x = make(queue(), d, {m}, lx);
            const Array y = make(queue(), d, {n}, ly);
            std::optional<Array> a;
            if (la) a = make(queue(), d, {m, n}, *la);
            const auto xv = read(queue(), x);
            const auto yv = read(queue(), y);
            const auto av = a ? read(queue(), *a) : std::vector<Cx>(m * n, 0.0);
            Array result = x;
            if (!supported(d, "ger", [&] { result = blas::ger(queue(), alpha, x, y, a); })) break;
            ASSERT_EQ(result.shape(), (std::vector<std::size_t>{m, n}));
            // A + alpha x y^T is a gemm with k = 1 and beta = 1.
            expect_gemm(read(queue(), result), xv, yv, av, alpha, 1.0, Op::none, Op::none, 1, m, n, 1, eps_of(d), what);
        }
    }
}

TEST_P(BlasTest, Dot) {
    const std::size_t n = 37;
    const std::vector<std::tuple<Lay, Lay, bool, bool>> cases{
        // layouts of x and y, conjugate x, into a given 1-element array at an offset
        {Lay::c, Lay::c, false, false},
        {Lay::strided, Lay::sliced, true, true},
        {Lay::reversed, Lay::c, false, true},
        {Lay::c, Lay::reversed, true, false},
    };
    for (const DType& d : blas_dtypes) {
        for (const auto& [lx, ly, conjugate, given] : cases) {
            const std::string what = fmt::format("dot {} x {} y {} conjugate {} out {}", d.name(), lay_name(lx),
                                                 lay_name(ly), conjugate, given ? "given" : "new");
            SCOPED_TRACE(what);
            const Array x = make(queue(), d, {n}, lx);
            const Array y = make(queue(), d, {n}, ly);
            std::optional<Array> out;
            if (given) out = make(queue(), d, {3}, Lay::c)[{Slice{1, 2}}];
            const auto xv = read(queue(), x);
            const auto yv = read(queue(), y);
            Array result = x;
            if (!supported(d, "dot", [&] { result = blas::dot(queue(), x, y, out, conjugate); })) break;
            EXPECT_EQ(result.size(), 1U);
            // x^T y as a 1 x n by n x 1 gemm; conjugating x is op adjoint on the n x 1 column x.
            expect_gemm(read(queue(), result), xv, yv, {0.0}, 1.0, 0.0, conjugate ? Op::adjoint : Op::transpose,
                        Op::none, 1, 1, 1, n, eps_of(d), what);
        }
    }
}

TEST_P(BlasTest, EmptyInnerDimensionScalesC) {
    const DType d = DType::Kind::float32;
    const Array a = Array::zeros(queue(), {4, 0}, d);
    const Array b = Array::zeros(queue(), {0, 3}, d);
    const Array c = make(queue(), d, {4, 3}, Lay::c);
    const auto before = read(queue(), c);
    blas::gemm(queue(), 2.0, a, b, -0.5, c);
    const auto after = read(queue(), c);
    for (std::size_t i = 0; i < before.size(); ++i) EXPECT_EQ(after[i], -0.5 * before[i]) << i;  // exact: a power of 2
    // An empty sum is zero.
    const Array out = blas::dot(queue(), Array::zeros(queue(), {0}, d), Array::zeros(queue(), {0}, d));
    EXPECT_EQ(read(queue(), out), std::vector<Cx>{0.0});
}

TEST_P(BlasTest, BadArgumentsNameTheCulprit) {
    const DType f = DType::Kind::float32;
    const Array a = make(queue(), f, {3, 4}, Lay::c);
    const Array b = make(queue(), f, {5, 2}, Lay::c);
    try {
        blas::gemm(queue(), 1.0, a, b);
        ADD_FAILURE() << "no exception";
    } catch (const ArgumentError& e) {
        EXPECT_EQ(e.argument(), "b");
        EXPECT_NE(std::string(e.what()).find("(3, 4)"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("(5, 2)"), std::string::npos) << e.what();
    }
    const Array d64 = make(queue(), DType::Kind::float64, {4, 2}, Lay::c);
    EXPECT_THROW(blas::gemm(queue(), 1.0, a, d64), ArgumentError);
    EXPECT_THROW(blas::gemm(queue(), Cx(1.0, 1.0), a, make(queue(), f, {4, 2}, Lay::c)), ArgumentError);
    EXPECT_THROW(blas::gemm(queue(), 1.0, a, make(queue(), f, {4, 2}, Lay::c), 1.0, make(queue(), f, {2, 3}, Lay::c)),
                 ArgumentError);
    EXPECT_THROW(blas::gemm_batched(queue(), 1.0, a, a), ArgumentError);
    EXPECT_THROW(blas::gemv(queue(), 1.0, a, make(queue(), f, {3}, Lay::c)), ArgumentError);
    EXPECT_THROW(blas::dot(queue(), make(queue(), f, {3}, Lay::c), make(queue(), f, {4}, Lay::c)), ArgumentError);
    const Array ints = Array::zeros(queue(), {3, 3}, DType::Kind::int32);
    EXPECT_THROW(blas::gemm(queue(), 1.0, ints, ints), ArgumentError);
}

KJARNI_INSTANTIATE_DEVICE_TESTS(BlasTest);

TEST(BlasTuning, ParsesParameterFilesAndRefusesMalformedOnes) {
    const auto parsed = blas::detail::parse_tuned_parameters(
        R"({"device": "Some GPU", "kernels": [{"kernel": "Xgemm", "precision": 32,
            "parameters": {"KWG": 32, "MWG": 64}}]})",
        "test");
    EXPECT_EQ(parsed.device, "Some GPU");
    ASSERT_EQ(parsed.kernels.size(), 1U);
    EXPECT_EQ(parsed.kernels[0].kernel, "Xgemm");
    EXPECT_EQ(parsed.kernels[0].precision, 32);
    EXPECT_EQ(parsed.kernels[0].parameters,
              (std::vector<std::pair<std::string, std::size_t>>{{"KWG", 32}, {"MWG", 64}}));
    EXPECT_THROW(blas::detail::parse_tuned_parameters("{", "test"), ArgumentError);
    EXPECT_THROW(blas::detail::parse_tuned_parameters(R"({"kernels": []})", "test"), ArgumentError);
    EXPECT_THROW(blas::detail::parse_tuned_parameters(
                     R"({"device": "x", "kernels": [{"kernel": "Xgemm", "precision": 32, "parameters": {"KWG": -1}}]})",
                     "test"),
                 ArgumentError);
    // Every file compiled in from data/clblast parses.
    for (const auto& [name, text] : blas::detail::embedded_tuned_parameters())
        EXPECT_NO_THROW(blas::detail::parse_tuned_parameters(text, std::string(name))) << name;
}

}  // namespace
}  // namespace kjarni::test
