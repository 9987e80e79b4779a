// The public BLAS calls: checks the arguments, maps each array's layout onto a column-major BLAS
// operand (leading dimension, transpose, offset) without copying where BLAS allows, copies where it
// does not, and hands the column-major problem to the vendor library of the queue's API.
//
// The mapping: a 2-d array X is stored either as a column-major S (X = S: unit stride on axis 0)
// or as the transpose of one (X = S^T: unit stride on axis 1, a C-ordered array). An operation
// on X then becomes an operation on S with the transposes combined; only "conjugate without
// transpose" has no BLAS form, and that operand is copied to the other order. When the output is
// stored transposed, the whole product is transposed instead: C^T = op(B)^T op(A)^T.

#include "kjarni/blas.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <climits>
#include <string>
#include <vector>

#include "blas/gemm_choice.hpp"
#include "blas/gemm_engine.hpp"
#include "vendor/blas_vendor.hpp"

namespace kjarni::blas {

namespace {

using detail::Matrix;
using detail::Memory;
using detail::Vector;

std::string shape_string(const std::vector<std::size_t>& shape) {
    if (shape.size() == 1) return fmt::format("({},)", shape[0]);
    return fmt::format("({})", fmt::join(shape, ", "));
}

bool is_complex_kind(DType::Kind kind) { return kind == DType::Kind::complex64 || kind == DType::Kind::complex128; }

/// What every call checks first: one supported dtype, arrays on the queue's device, scalars that
/// the dtype can hold.
struct Checks {
    const Queue& queue;
    DType::Kind kind;

    Checks(const Queue& q, const char* name, const Array& first) : queue(q), kind(first.dtype().kind()) {
        switch (kind) {
        case DType::Kind::float16:
        case DType::Kind::float32:
        case DType::Kind::float64:
        case DType::Kind::complex64:
        case DType::Kind::complex128: break;
        default:
            throw ArgumentTypeError(name, "has dtype " + first.dtype().name() +
                                              "; BLAS takes float16, float32, float64, complex64 or complex128");
        }
        array(name, first);
    }
    void array(const char* name, const Array& a) const {
        if (a.dtype().kind() != kind)
            throw ArgumentTypeError(name, fmt::format("has dtype {}, the other operands {}", a.dtype().name(),
                                                      detail::kind_name(kind)));
        if (!(a.device() == queue.device()))
            throw ArgumentError(name, "lies on " + a.device().name() + ", not on the queue's device");
    }
    void ndim(const char* name, const Array& a, std::size_t expected) const {
        if (a.ndim() != expected)
            throw ArgumentError(name, fmt::format("must be {}-d, has shape {}", expected, shape_string(a.shape())));
    }
    void scalar(const char* name, Scalar value) const {
        if (!is_complex_kind(kind) && value.imag() != 0.0)
            throw ArgumentError(name, fmt::format("is complex ({}+{}j) for the real dtype {}", value.real(),
                                                  value.imag(), detail::kind_name(kind)));
    }
};

Memory memory_of(const Array& a) { return Memory{a.base().native_handle(), a.base().offset() + a.offset()}; }

bool whole_elements(std::ptrdiff_t bytes, std::size_t itemsize) {
    return bytes % static_cast<std::ptrdiff_t>(itemsize) == 0;
}

/// The last two axes of `a` as a column-major matrix S, with X = S (`transposed` false) or
/// X = S^T; for a 3-d array also the batch stride in elements. nullopt when BLAS cannot read it so.
struct Stored {
    std::size_t ld;
    std::size_t batch_stride;
};
std::optional<Stored> store_as(const Array& a, bool transposed, bool output) {
    const std::size_t e = a.dtype().itemsize();
    const auto ie = static_cast<std::ptrdiff_t>(e);
    const std::size_t nd = a.ndim();
    if (memory_of(a).offset % e != 0) return std::nullopt;
    // S's rows run along axis `inner` (unit stride), its columns along `outer` (stride ld).
    const std::size_t inner = transposed ? nd - 1 : nd - 2;
    const std::size_t outer = transposed ? nd - 2 : nd - 1;
    const std::size_t rows = a.shape()[inner];
    const std::size_t cols = a.shape()[outer];
    if (rows > 1 && a.strides()[inner] != ie) return std::nullopt;
    std::size_t ld = std::max<std::size_t>(rows, 1);
    if (cols > 1) {
        const std::ptrdiff_t s = a.strides()[outer];
        if (s <= 0 || !whole_elements(s, e) || static_cast<std::size_t>(s / ie) < rows) return std::nullopt;
        ld = static_cast<std::size_t>(s / ie);
    }
    std::size_t batch_stride = 0;
    if (nd == 3 && a.shape()[0] > 1) {
        const std::ptrdiff_t s = a.strides()[0];
        if (s < 0 || !whole_elements(s, e)) return std::nullopt;
        batch_stride = static_cast<std::size_t>(s / ie);
        // Matrices of an output must not overlap one another.
        if (output && batch_stride < ld * std::max<std::size_t>(cols, 1)) return std::nullopt;
    }
    return Stored{ld, batch_stride};
}

std::optional<Vector> vector_of(const Array& v) {
    const std::size_t e = v.dtype().itemsize();
    const Memory memory = memory_of(v);
    if (memory.offset % e != 0) return std::nullopt;
    if (v.shape()[0] <= 1) return Vector{memory, 1};
    const std::ptrdiff_t s = v.strides()[0];
    if (s <= 0 || !whole_elements(s, e)) return std::nullopt;
    return Vector{memory, static_cast<std::size_t>(s / static_cast<std::ptrdiff_t>(e))};
}

/// Swaps the last two axes (a matrix transpose of every matrix of the batch).
Array swap_last(const Array& a) {
    if (a.ndim() == 2) return a.transpose({1, 0});
    return a.transpose({0, 2, 1});
}

/// Tracks the temporaries of one call: they must outlive the enqueued work.
struct Temporaries {
    const Queue& queue;
    bool any = false;
    /// Called once the work is enqueued: waits for it when temporaries are involved.
    void release() const {
        if (any) queue.synchronize();
    }
};

/// An input operand of gemm as the vendor gets it.
struct Operand {
    Array array;
    Matrix matrix;
    Op op;
    std::size_t batch_stride;
};

/// X with `op` applied, seen from a product whose output is stored transposed when `flip`.
Operand input_operand(const Array& x, Op op, bool flip, Temporaries& temps) {
    const bool conjugate = op == Op::adjoint && is_complex_kind(x.dtype().kind());
    auto attempt = [&](const Array& candidate, bool transposed) -> std::optional<Operand> {
        const auto stored = store_as(candidate, transposed, false);
        if (!stored) return std::nullopt;
        const bool transpose = (transposed != (op != Op::none)) != flip;
        if (conjugate && !transpose) return std::nullopt;  // conj(S): no BLAS operation
        const Op final_op = !transpose ? Op::none : (conjugate ? Op::adjoint : Op::transpose);
        return Operand{candidate, Matrix{memory_of(candidate), stored->ld}, final_op, stored->batch_stride};
    };
    if (auto o = attempt(x, false)) return *o;
    if (auto o = attempt(x, true)) return *o;
    temps.any = true;
    // A C-ordered copy is stored transposed, a per-matrix Fortran-ordered one is not; one of the two
    // always has a BLAS form.
    const Array c_order = x.copy(temps.queue, Order::C);
    if (auto o = attempt(c_order, true)) return *o;
    const Array f_order = swap_last(swap_last(x).copy(temps.queue, Order::C));
    if (auto o = attempt(f_order, false)) return *o;
    throw Error("kjarni::blas: internal error, no BLAS form for a contiguous operand");
}

/// The output of gemm: the caller's array, or a C-ordered temporary written back at the end.
struct Output {
    Array user;
    Array work;
    bool flip = false;  // stored transposed: the product is computed transposed
    Matrix matrix;
    std::size_t batch_stride = 0;
    bool temporary = false;

    void finish(const Queue& queue) const {
        if (temporary) user.set(queue, work, true);
    }
};

Output output_matrix(const Array& c, bool read, Temporaries& temps) {
    Output out{c, c, false, Matrix{}, 0, false};
    for (const bool transposed : {false, true}) {
        if (const auto stored = store_as(c, transposed, true)) {
            out.flip = transposed;
            out.matrix = Matrix{memory_of(c), stored->ld};
            out.batch_stride = stored->batch_stride;
            return out;
        }
    }
    temps.any = true;
    out.temporary = true;
    out.work = read ? c.copy(temps.queue, Order::C) : Array::zeros(temps.queue, c.shape(), c.dtype());
    const auto stored = store_as(out.work, true, true);
    out.flip = true;
    out.matrix = Matrix{memory_of(out.work), stored->ld};
    out.batch_stride = stored->batch_stride;
    return out;
}

/// The output vector of gemv, or a contiguous temporary written back at the end.
struct OutputVector {
    Array user;
    Array work;
    Vector vector;
    bool temporary = false;
};

OutputVector output_vector(const Array& y, bool read, Temporaries& temps) {
    if (const auto v = vector_of(y)) return OutputVector{y, y, *v, false};
    temps.any = true;
    Array work = read ? y.copy(temps.queue, Order::C) : Array::zeros(temps.queue, y.shape(), y.dtype());
    return OutputVector{y, work, *vector_of(work), true};
}

Vector input_vector(const Array& v, Temporaries& temps, Array& keep) {
    if (const auto vec = vector_of(v)) return *vec;
    temps.any = true;
    keep = v.copy(temps.queue, Order::C);
    return *vector_of(keep);
}

/// The tiles of kjarni's own GEMM kernel where it runs this product (OpenCL, float32 or float64,
/// chosen by gemm_choice.hpp), nullopt for the vendor library.
std::optional<detail::GemmTiles> own_gemm_tiles(const Queue& queue, DType::Kind kind) {
    if (queue.device().context().api().id() != ApiId::opencl()) return std::nullopt;
    if (kind != DType::Kind::float32 && kind != DType::Kind::float64) return std::nullopt;
    bool vendor_available = true;
    try {
        detail::vendor_for(queue);
    } catch (const UnsupportedError&) {
        vendor_available = false;
    }
    return detail::kjarni_gemm_choice(queue, kind, vendor_available);
}

std::pair<std::size_t, std::size_t> op_shape(const Array& a, Op op) {
    const std::size_t nd = a.ndim();
    const std::size_t r = a.shape()[nd - 2];
    const std::size_t c = a.shape()[nd - 1];
    return op == Op::none ? std::pair{r, c} : std::pair{c, r};
}

Array gemm_any(const Queue& queue, Scalar alpha, const Array& a_in, const Array& b_in, Scalar beta,
               const std::optional<Array>& c_in, Op op_a, Op op_b, bool batched, const Allocator& allocator) {
    const std::size_t nd = batched ? 3 : 2;
    const Checks checks(queue, "a", a_in);
    checks.array("b", b_in);
    checks.ndim("a", a_in, nd);
    checks.ndim("b", b_in, nd);
    checks.scalar("alpha", alpha);
    checks.scalar("beta", beta);
    const auto [m, k] = op_shape(a_in, op_a);
    const auto [k2, n] = op_shape(b_in, op_b);
    if (k != k2 || (batched && a_in.shape()[0] != b_in.shape()[0]))
        throw ArgumentError("b", fmt::format("shapes {} and {} do not multiply: op(a) is {} x {}, op(b) {} x {}",
                                             shape_string(a_in.shape()), shape_string(b_in.shape()), m, k, k2, n));
    std::vector<std::size_t> c_shape{m, n};
    const std::size_t batch = batched ? a_in.shape()[0] : 1;
    if (batched) c_shape.insert(c_shape.begin(), batch);
    if (c_in) {
        checks.array("c", *c_in);
        c_in->require_writeable("c");
        if (c_in->shape() != c_shape)
            throw ArgumentError("c", fmt::format("has shape {}, the product of {} and {} has shape {}",
                                                 shape_string(c_in->shape()), shape_string(a_in.shape()),
                                                 shape_string(b_in.shape()), shape_string(c_shape)));
    }
    const Array c = c_in ? *c_in : Array::zeros(queue, c_shape, a_in.dtype(), Order::C, allocator);
    if (!c_in) beta = 0.0;
    if (m == 0 || n == 0 || batch == 0) return c;

    Temporaries temps{queue};
    Array a = a_in;
    Array b = b_in;
    std::size_t kk = k;
    if (k == 0) {
        // BLAS libraries refuse k = 0 (CLBlast) or treat it unevenly; a product of zeros with k = 1
        // leaves exactly beta * C.
        temps.any = true;
        std::vector<std::size_t> a_shape{m, 1};
        std::vector<std::size_t> b_shape{1, n};
        if (batched) {
            a_shape.insert(a_shape.begin(), batch);
            b_shape.insert(b_shape.begin(), batch);
        }
        a = Array::zeros(queue, a_shape, a_in.dtype());
        b = Array::zeros(queue, b_shape, a_in.dtype());
        op_a = op_b = Op::none;
        kk = 1;
    }

    const Output out = output_matrix(c, beta != 0.0, temps);
    const Operand oa = input_operand(a, op_a, out.flip, temps);
    const Operand ob = input_operand(b, op_b, out.flip, temps);
    // Stored transposed, the output is C^T = op(B)^T op(A)^T: the operands swap.
    const Operand& first = out.flip ? ob : oa;
    const Operand& second = out.flip ? oa : ob;
    const std::size_t rows = out.flip ? n : m;
    const std::size_t cols = out.flip ? m : n;
    // kjarni's kernel takes 32-bit extents; larger products stay with the vendor.
    const bool fits_32_bits = std::max({rows, cols, kk}) <= static_cast<std::size_t>(INT_MAX);
    if (const auto tiles = fits_32_bits ? own_gemm_tiles(queue, checks.kind) : std::nullopt) {
        const std::size_t e = a.dtype().itemsize();
        const auto matrix = [&](const Array& array, const Matrix& mat, std::size_t stride) {
            return detail::GemmMatrix{array, mat.memory.offset / e, mat.ld, stride};
        };
        detail::kjarni_gemm(queue, checks.kind, *tiles, first.op != Op::none, second.op != Op::none, rows, cols, kk,
                            alpha.real(), matrix(first.array, first.matrix, first.batch_stride),
                            matrix(second.array, second.matrix, second.batch_stride), beta.real(),
                            matrix(out.work, out.matrix, out.batch_stride), batched ? batch : 1);
        out.finish(queue);
        temps.release();
        return c;
    }
    detail::Vendor& vendor = detail::vendor_for(queue);
    // A batch of one is one product: CLBlast's strided-batched routines refuse it (its batch
    // strides are 0 then: CLBlastInvalidDimension), and the plain routine is the one tuned for it.
    if (batched && batch > 1)
        vendor.gemm_strided_batched(queue, checks.kind, first.op, second.op, rows, cols, kk, alpha, first.matrix,
                                    first.batch_stride, second.matrix, second.batch_stride, beta, out.matrix,
                                    out.batch_stride, batch);
    else
        vendor.gemm(queue, checks.kind, first.op, second.op, rows, cols, kk, alpha, first.matrix, second.matrix, beta,
                    out.matrix);
    out.finish(queue);
    temps.release();
    return c;
}

}  // namespace

Array gemm(const Queue& queue, Scalar alpha, const Array& a, const Array& b, Scalar beta, const std::optional<Array>& c,
           Op op_a, Op op_b, const Allocator& allocator) {
    return gemm_any(queue, alpha, a, b, beta, c, op_a, op_b, false, allocator);
}

Array gemm_batched(const Queue& queue, Scalar alpha, const Array& a, const Array& b, Scalar beta,
                   const std::optional<Array>& c, Op op_a, Op op_b, const Allocator& allocator) {
    return gemm_any(queue, alpha, a, b, beta, c, op_a, op_b, true, allocator);
}

Array gemv(const Queue& queue, Scalar alpha, const Array& a_in, const Array& x_in, Scalar beta,
           const std::optional<Array>& y_in, Op op_a, const Allocator& allocator) {
    const Checks checks(queue, "a", a_in);
    checks.array("x", x_in);
    checks.ndim("a", a_in, 2);
    checks.ndim("x", x_in, 1);
    checks.scalar("alpha", alpha);
    checks.scalar("beta", beta);
    const auto [m, n] = op_shape(a_in, op_a);
    if (x_in.shape()[0] != n)
        throw ArgumentError("x", fmt::format("shapes {} and {} do not multiply: op(a) is {} x {}",
                                             shape_string(a_in.shape()), shape_string(x_in.shape()), m, n));
    if (y_in) {
        checks.array("y", *y_in);
        y_in->require_writeable("y");
        if (y_in->shape() != std::vector<std::size_t>{m})
            throw ArgumentError("y", fmt::format("has shape {}, op(a) {} x {} times x of shape {} has shape ({},)",
                                                 shape_string(y_in->shape()), m, n, shape_string(x_in.shape()), m));
    }
    const Array y = y_in ? *y_in : Array::zeros(queue, {m}, a_in.dtype(), Order::C, allocator);
    if (!y_in) beta = 0.0;
    if (m == 0) return y;

    Temporaries temps{queue};
    Array a = a_in;
    Array x = x_in;
    std::size_t nn = n;
    if (n == 0) {  // as in gemm: a zero product with n = 1 leaves beta * y
        temps.any = true;
        a = Array::zeros(queue, {m, 1}, a_in.dtype());
        x = Array::zeros(queue, {1}, a_in.dtype());
        op_a = Op::none;
        nn = 1;
    }
    const OutputVector out = output_vector(y, beta != 0.0, temps);
    // A gemv output is a column: never flipped.
    const Operand oa = input_operand(a, op_a, false, temps);
    Array x_keep = x;
    const Vector xv = input_vector(x, temps, x_keep);
    // The vendor's m x n are those of S, the stored matrix, before its operation.
    const bool op_transposes = oa.op != Op::none;
    const std::size_t s_rows = op_transposes ? nn : m;
    const std::size_t s_cols = op_transposes ? m : nn;
    detail::vendor_for(queue).gemv(queue, checks.kind, oa.op, s_rows, s_cols, alpha, oa.matrix, xv, beta, out.vector);
    if (out.temporary) out.user.set(queue, out.work, true);
    temps.release();
    return y;
}

Array ger(const Queue& queue, Scalar alpha, const Array& x_in, const Array& y_in, const std::optional<Array>& a_in,
          const Allocator& allocator) {
    const Checks checks(queue, "x", x_in);
    checks.array("y", y_in);
    checks.ndim("x", x_in, 1);
    checks.ndim("y", y_in, 1);
    checks.scalar("alpha", alpha);
    const std::vector<std::size_t> shape{x_in.shape()[0], y_in.shape()[0]};
    if (a_in) {
        checks.array("a", *a_in);
        a_in->require_writeable("a");
        if (a_in->shape() != shape)
            throw ArgumentError("a", fmt::format("has shape {}, the outer product of x {} and y {} has shape {}",
                                                 shape_string(a_in->shape()), shape_string(x_in.shape()),
                                                 shape_string(y_in.shape()), shape_string(shape)));
    }
    const Array a = a_in ? *a_in : Array::zeros(queue, shape, x_in.dtype(), Order::C, allocator);
    if (shape[0] == 0 || shape[1] == 0) return a;

    Temporaries temps{queue};
    const Output out = output_matrix(a, true, temps);
    Array x_keep = x_in;
    Array y_keep = y_in;
    const Vector xv = input_vector(x_in, temps, x_keep);
    const Vector yv = input_vector(y_in, temps, y_keep);
    // Stored transposed, A^T += alpha y x^T.
    if (out.flip) detail::vendor_for(queue).ger(queue, checks.kind, shape[1], shape[0], alpha, yv, xv, out.matrix);
    else detail::vendor_for(queue).ger(queue, checks.kind, shape[0], shape[1], alpha, xv, yv, out.matrix);
    out.finish(queue);
    temps.release();
    return a;
}

Array dot(const Queue& queue, const Array& x_in, const Array& y_in, const std::optional<Array>& out_in,
          bool conjugate_x, const Allocator& allocator) {
    const Checks checks(queue, "x", x_in);
    checks.array("y", y_in);
    checks.ndim("x", x_in, 1);
    checks.ndim("y", y_in, 1);
    if (x_in.shape() != y_in.shape())
        throw ArgumentError("y", fmt::format("has shape {}, x has shape {}", shape_string(y_in.shape()),
                                             shape_string(x_in.shape())));
    if (out_in) {
        checks.array("out", *out_in);
        out_in->require_writeable("out");
        if (out_in->size() != 1)
            throw ArgumentError("out",
                                fmt::format("must have one element, has shape {}", shape_string(out_in->shape())));
    }
    const Array out =
        out_in ? *out_in : Array::zeros(queue, std::vector<std::size_t>{}, x_in.dtype(), Order::C, allocator);
    Temporaries temps{queue};
    // A one-element array is a "vector" of length one whatever its strides; only its offset matters.
    // An empty sum is zero: a zeroed temporary copied into `out`.
    Array work = out;
    const bool temporary = memory_of(out).offset % out.dtype().itemsize() != 0 || x_in.shape()[0] == 0;
    if (temporary) {
        temps.any = true;
        work = Array::zeros(queue, out.shape(), out.dtype());
    }
    // The copies input_vector may make are read by the enqueued dot: they live until release().
    Array x_keep = x_in;
    Array y_keep = y_in;
    if (x_in.shape()[0] != 0) {
        const Vector xv = input_vector(x_in, temps, x_keep);
        const Vector yv = input_vector(y_in, temps, y_keep);
        detail::vendor_for(queue).dot(queue, checks.kind, conjugate_x && is_complex_kind(checks.kind), x_in.shape()[0],
                                      xv, yv, memory_of(work));
    }
    if (temporary) out.set(queue, work, true);
    temps.release();
    return out;
}

namespace detail {

Vendor& vendor_for(const Queue& queue) {
    const ApiId id = queue.device().context().api().id();
    if (id == ApiId::cuda()) return cublas_vendor();
    if (id == ApiId::opencl()) return clblast_vendor();
    throw UnsupportedError("kjarni::blas: no BLAS library for the API " + id.shortcut());
}

}  // namespace detail

}  // namespace kjarni::blas
