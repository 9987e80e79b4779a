// The algorithms on Arrays: expressions (Python operators build an Expr; evaluate/assign/fill take
// the queue), elementwise kernels, reductions, BLAS and numpy's array operations.
#include <nanobind/operators.h>
#include <nanobind/stl/complex.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/string_view.h>
#include <nanobind/stl/vector.h>

#include <complex>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <kjarni/array_operations.hpp>
#include <kjarni/blas.hpp>
#include <kjarni/elementwise.hpp>
#include <kjarni/expression.hpp>
#include <kjarni/reduction.hpp>

#include "allocator.hpp"
#include "bindings.hpp"
#include "value_conversion.hpp"

namespace kjarni::python {

namespace {

// A numpy scalar (strong: of its dtype) as an Expr, its dtype `dtype`.
Expr numpy_scalar_expr(nb::handle h, const DType& dtype) {
    nb::object item = h.attr("item")();
    if (PyComplex_Check(item.ptr())) return scalar(nb::cast<std::complex<double>>(item), dtype);
    if (PyFloat_Check(item.ptr())) return scalar(nb::cast<double>(item), dtype);
    int overflow = 0;
    const long long value = PyLong_AsLongLongAndOverflow(item.ptr(), &overflow);
    if (overflow == 0) return scalar_integer(static_cast<std::int64_t>(value), dtype);
    return scalar_unsigned(nb::cast<std::uint64_t>(item), dtype);  // (a uint64 past int64's range)
}

// numpy's numeric scalar types met so far, with their kjarni dtype: finding it through
// kjarni.dtypes costs about 5 us, which made most of the host time of `a * x + b` with a numpy
// scalar `a`. Types whose dtype is fixed only (numpy's bool, integer, floating and complex
// scalars; not numpy.void, datetime64 or 0-d arrays, whose dtypes vary from object to object).
// Where the buffer protocol showed the value inside the object's fixed part, later scalars of the
// type are read from there (as kernel_args.cpp's launches do): `item()` cost 0.3 us a scalar.
struct NumpyScalarType {
    PyTypeObject* type;
    DType dtype;
    char kind;              // numpy's dtype.kind: b, i, u, f or c
    Py_ssize_t offset = 0;  // of the value in the object; 0: read through item()
    Py_ssize_t size = 0;
};
std::vector<NumpyScalarType>& numpy_scalar_types() {  // touched under the GIL only
    static std::vector<NumpyScalarType> types;
    return types;
}

const NumpyScalarType* known_numpy_scalar_type(PyTypeObject* type) {
    for (const NumpyScalarType& known : numpy_scalar_types()) {
        if (known.type == type) return &known;
    }
    return nullptr;
}

template <class T>
T read_value(const char* at) {
    T value;
    std::memcpy(&value, at, sizeof value);
    return value;
}

// The scalar from where its type keeps the value, or nothing (half and extended precision go
// through item()).
std::optional<Expr> read_numpy_scalar(nb::handle h, const NumpyScalarType& t) {
    if (t.offset == 0) return std::nullopt;
    const char* at = reinterpret_cast<const char*>(h.ptr()) + t.offset;
    switch (t.kind) {
    case 'b': return scalar_integer(*at != 0 ? 1 : 0, t.dtype);
    case 'i':
        if (t.size == 1) return scalar_integer(read_value<std::int8_t>(at), t.dtype);
        if (t.size == 2) return scalar_integer(read_value<std::int16_t>(at), t.dtype);
        if (t.size == 4) return scalar_integer(read_value<std::int32_t>(at), t.dtype);
        if (t.size == 8) return scalar_integer(read_value<std::int64_t>(at), t.dtype);
        break;
    case 'u':
        if (t.size == 1) return scalar_integer(read_value<std::uint8_t>(at), t.dtype);
        if (t.size == 2) return scalar_integer(read_value<std::uint16_t>(at), t.dtype);
        if (t.size == 4) return scalar_integer(read_value<std::uint32_t>(at), t.dtype);
        if (t.size == 8) return scalar_unsigned(read_value<std::uint64_t>(at), t.dtype);
        break;
    case 'f':
        if (t.size == 4) return scalar(read_value<float>(at), t.dtype);
        if (t.size == 8) return scalar(read_value<double>(at), t.dtype);
        break;
    case 'c':
        if (t.size == 8) return scalar(std::complex<double>(read_value<std::complex<float>>(at)), t.dtype);
        if (t.size == 16) return scalar(read_value<std::complex<double>>(at), t.dtype);
        break;
    default: break;
    }
    return std::nullopt;
}

Expr known_numpy_scalar_expr(nb::handle h, const NumpyScalarType& t) {
    if (std::optional<Expr> read = read_numpy_scalar(h, t)) return *std::move(read);
    return numpy_scalar_expr(h, t.dtype);
}

void learn_numpy_scalar_type(nb::handle h, const DType& dtype) {
    PyTypeObject* type = Py_TYPE(h.ptr());
    if ((type->tp_flags & Py_TPFLAGS_HEAPTYPE) != 0 || std::strncmp(type->tp_name, "numpy.", 6) != 0 ||
        std::strcmp(type->tp_name, "numpy.ndarray") == 0 || numpy_scalar_types().size() >= 32 ||
        type->tp_itemsize != 0) {
        return;
    }
    const std::string kind = nb::cast<std::string>(h.attr("dtype").attr("kind"));
    if (kind.size() != 1 || std::strchr("biufc", kind[0]) == nullptr) return;
    NumpyScalarType known{type, dtype, kind[0]};
    Py_buffer view;
    if (PyObject_GetBuffer(h.ptr(), &view, PyBUF_SIMPLE) == 0) {
        const auto offset = static_cast<const char*>(view.buf) - reinterpret_cast<const char*>(h.ptr());
        if (offset >= static_cast<Py_ssize_t>(sizeof(PyObject)) && view.len > 0 &&
            offset + view.len <= type->tp_basicsize && static_cast<std::size_t>(view.len) == dtype.itemsize()) {
            known.offset = offset;
            known.size = view.len;
        }
        PyBuffer_Release(&view);
    } else {
        PyErr_Clear();
    }
    numpy_scalar_types().push_back(known);
}

// A Python int as a weak integer: int64's range, then uint64's (numpy 2 takes 2**64 - 1 with a uint64
// array); past both, numpy's OverflowError (nanobind's cast would fail with std::bad_cast).
Expr weak_integer(nb::handle h) {
    int overflow = 0;
    const long long value = PyLong_AsLongLongAndOverflow(h.ptr(), &overflow);
    if (overflow == 0) return Expr(static_cast<std::int64_t>(value));
    if (overflow > 0) {
        const unsigned long long big = PyLong_AsUnsignedLongLong(h.ptr());
        if (!(big == static_cast<unsigned long long>(-1) && PyErr_Occurred() != nullptr))
            return Expr(static_cast<std::uint64_t>(big));
        PyErr_Clear();
    }
    const std::string message = "Python integer " + text_of(nb::str(h)) + " out of bounds for int64 and uint64";
    PyErr_SetString(PyExc_OverflowError, message.c_str());
    throw nb::python_error();
}

// A Python operand of an expression: an Expr, an Array, a MultiArray or a Python number (weak,
// like numpy 2's Python scalars), or a numpy scalar (strong: of its dtype).
Expr to_expr(nb::handle h) {
    if (Expr* e = nullptr; nb::try_cast<Expr*>(h, e) && e != nullptr) return *e;
    if (Array* a = nullptr; nb::try_cast<Array*>(h, a) && a != nullptr) return Expr(*a);
    if (MultiArray* a = nullptr; nb::try_cast<MultiArray*>(h, a) && a != nullptr) return Expr(*a);
    // Exactly Python's own numbers are weak; numpy's (numpy.float64 derives from float) are not.
    if (PyBool_Check(h.ptr())) return Expr(h.ptr() == Py_True);
    if (PyLong_CheckExact(h.ptr())) return weak_integer(h);
    if (PyFloat_CheckExact(h.ptr())) return Expr(nb::cast<double>(h));
    if (PyComplex_CheckExact(h.ptr())) return Expr(nb::cast<std::complex<double>>(h));
    if (const NumpyScalarType* known = known_numpy_scalar_type(Py_TYPE(h.ptr())))
        return known_numpy_scalar_expr(h, *known);
    // A host array of more than one element: kjarni never copies to the device behind the user's back
    // (a hidden transfer per expression is the slowness users cannot see), so it says how to.
    if (nb::hasattr(h, "__array_interface__") && nb::hasattr(h, "ndim") && nb::cast<std::size_t>(h.attr("ndim")) > 0) {
        throw ArgumentError("operand", "a host array (" + text_of(h.type().attr("__name__")) + " of shape " +
                                           text_of(nb::str(h.attr("shape"))) +
                                           ") cannot be part of a device expression: upload it first with "
                                           "kjarni.Array.from_host(queue, array)");
    }
    if (nb::hasattr(h, "dtype") && nb::hasattr(h, "item")) {  // a numpy scalar (or 0-d array): of its dtype
        nb::object kd = nb::module_::import_("kjarni.dtypes").attr("dtype")(h.attr("dtype"));
        const DType dtype = nb::cast<DType>(kd);
        Expr e = numpy_scalar_expr(h, dtype);
        learn_numpy_scalar_type(h, dtype);
        return e;
    }
    throw ArgumentError("operand", "cannot be part of an expression: " + text_of(h.type().attr("__name__")));
}

ReduceOptions reduce_options(const Queue& queue, nb::handle axis, bool keepdims, std::optional<Array> out,
                             const nb::object& allocator) {
    ReduceOptions o;
    // With `out`, nothing is allocated for the result: no pool to look up.
    o.allocator = out ? to_allocator(allocator) : to_allocator(allocator, queue);
    if (!axis.is_none()) {
        if (PyLong_Check(axis.ptr())) o.axes = std::vector<int>{nb::cast<int>(axis)};
        else o.axes = nb::cast<std::vector<int>>(axis);
    }
    o.keepdims = keepdims;
    o.out = std::move(out);
    return o;
}

blas::Op to_op(const std::string& op) {
    if (op == "N" || op == "n") return blas::Op::none;
    if (op == "T" || op == "t") return blas::Op::transpose;
    if (op == "C" || op == "c" || op == "H" || op == "h") return blas::Op::adjoint;
    throw ArgumentError("op", "must be 'N', 'T' or 'C' (conjugate transpose), not '" + op + "'");
}

// A method of `cls` (Expr, or Array bound in array.cpp) taking operands of any kind: what to_expr
// refuses is refused with its message. Array's operators are its own C++ methods, which Python
// calls directly: a Python method making Expr(self) first cost 1.2 us of a 0.5 us operator.
template <class F>
void def_method(nb::handle cls, const char* name, F f) {
    nb::setattr(cls, name,
                nb::cpp_function(std::move(f), nb::scope(cls), nb::name(name), nb::is_method(), nb::is_operator()));
}

// A Python int past 64 bits beside a float or complex operand is the float numpy makes of it (a weak
// Python int takes such an operand's type: float32 ones + 2**64 is 1.8446744e19); beside anything
// else to_expr's OverflowError, as numpy's for integer operands.
bool past_64_bits(nb::handle h) {
    if (!PyLong_CheckExact(h.ptr())) return false;
    int overflow = 0;
    static_cast<void>(PyLong_AsLongLongAndOverflow(h.ptr(), &overflow));
    if (overflow <= 0) return overflow < 0;
    static_cast<void>(PyLong_AsUnsignedLongLong(h.ptr()));
    if (PyErr_Occurred() == nullptr) return false;
    PyErr_Clear();
    return true;
}

Expr to_expr_beside(nb::handle h, const Expr& other) {
    if (past_64_bits(h) && (is_real(other.dtype()) || is_complex(other.dtype()))) {
        const double value = PyLong_AsDouble(h.ptr());  // OverflowError past float64's range, as numpy's
        if (value == -1.0 && PyErr_Occurred() != nullptr) throw nb::python_error();
        return Expr(value);
    }
    return to_expr(h);
}

// The two operands of a binary operator, a Python int past 64 bits read beside the other (a Python
// int on the left is read second; to_expr_beside decides whether it is past 64 bits).
std::pair<Expr, Expr> operand_pair(nb::handle a, nb::handle b) {
    if (PyLong_CheckExact(a.ptr())) {
        Expr y = to_expr(b);
        return {to_expr_beside(a, y), std::move(y)};
    }
    Expr x = to_expr(a);
    Expr y = to_expr_beside(b, x);
    return {std::move(x), std::move(y)};
}

// An expression built by an operator remembers the queue of its first operand that has one (an
// Array's or Expr's `queue`, which kjarni/_numpy.py keeps), as the arrays that the algorithms make
// do: numpy's functions and an Expr's own reductions then know where to run it.
nb::object remembering_queue(Expr e, nb::handle a, nb::handle b = nb::handle()) {
    nb::object result = nb::cast(std::move(e));
    for (const nb::handle operand : {a, b}) {
        if (!operand.is_valid() || !(nb::isinstance<Array>(operand) || nb::isinstance<Expr>(operand))) continue;
        nb::object queue = nb::getattr(operand, "queue", nb::none());
        if (queue.is_none()) continue;
        nb::setattr(result, "queue", queue);
        break;
    }
    return result;
}

template <class F>
void binary(nb::handle cls, const char* name, const char* rname, F f) {
    def_method(cls, name, [f](nb::handle a, nb::handle b) {
        auto [x, y] = operand_pair(a, b);
        return remembering_queue(f(x, y), a, b);
    });
    if (rname != nullptr)
        def_method(cls, rname, [f](nb::handle a, nb::handle b) {
            auto [first, second] = operand_pair(b, a);
            return remembering_queue(f(first, second), a, b);
        });
}

// The operators Expr and Array share (Array's == and != are kjarni/_numpy.py's).
void bind_operators(nb::handle cls) {
    binary(cls, "__add__", "__radd__", [](const Expr& a, const Expr& b) { return a + b; });
    binary(cls, "__sub__", "__rsub__", [](const Expr& a, const Expr& b) { return a - b; });
    binary(cls, "__mul__", "__rmul__", [](const Expr& a, const Expr& b) { return a * b; });
    binary(cls, "__truediv__", "__rtruediv__", [](const Expr& a, const Expr& b) { return a / b; });
    binary(cls, "__mod__", "__rmod__", [](const Expr& a, const Expr& b) { return a % b; });
    binary(cls, "__pow__", "__rpow__", [](const Expr& a, const Expr& b) { return kjarni::pow(a, b); });
    binary(cls, "__lt__", nullptr, [](const Expr& a, const Expr& b) { return a < b; });
    binary(cls, "__le__", nullptr, [](const Expr& a, const Expr& b) { return a <= b; });
    binary(cls, "__gt__", nullptr, [](const Expr& a, const Expr& b) { return a > b; });
    binary(cls, "__ge__", nullptr, [](const Expr& a, const Expr& b) { return a >= b; });
    def_method(cls, "__neg__", [](nb::handle a) { return remembering_queue(-to_expr(a), a); });
    def_method(cls, "__abs__", [](nb::handle a) { return remembering_queue(kjarni::abs(to_expr(a)), a); });
}

}  // namespace

Expr expr_from_python(nb::handle h) { return to_expr(h); }

std::pair<Expr, Expr> operands_from_python(nb::handle a, nb::handle b) { return operand_pair(a, b); }

void bind_algorithms(nb::module_& m) {
    nb::class_<Expr> expr(m, "Expr", nb::dynamic_attr(),
                          "An elementwise expression over arrays: built by Python operators on Arrays, compiled to one "
                          "kernel when evaluated on a queue (kjarni.evaluate / assign).");
    expr.def("__init__", [](Expr* self, nb::handle h) { new (self) Expr(to_expr(h)); })
        .def_prop_ro("_dtype", &Expr::dtype)
        .def_prop_ro("shape", [](const Expr& e) { return nb::tuple(nb::cast(e.shape())); });
    bind_operators(expr);
    binary(expr, "__eq__", nullptr, [](const Expr& a, const Expr& b) { return a == b; });
    binary(expr, "__ne__", nullptr, [](const Expr& a, const Expr& b) { return a != b; });
    bind_operators(nb::type<Array>());

    auto unary = [&m](const char* name, Expr (*f)(const Expr&)) {
        m.def(
            name, [f](nb::handle a) { return f(to_expr(a)); }, nb::arg("x"));
    };
    unary("sqrt", &kjarni::sqrt);
    unary("exp", &kjarni::exp);
    unary("log", &kjarni::log);
    unary("sin", &kjarni::sin);
    unary("cos", &kjarni::cos);
    unary("tanh", &kjarni::tanh);
    unary("absolute", &kjarni::abs);
    m.def("minimum", [](nb::handle a, nb::handle b) { return kjarni::minimum(to_expr(a), to_expr(b)); });
    m.def("maximum", [](nb::handle a, nb::handle b) { return kjarni::maximum(to_expr(a), to_expr(b)); });
    m.def("where",
          [](nb::handle c, nb::handle a, nb::handle b) { return kjarni::where(to_expr(c), to_expr(a), to_expr(b)); });
    m.def("clip", [](nb::handle a, nb::handle lo, nb::handle hi) {
        return kjarni::clip(to_expr(a), to_expr(lo), to_expr(hi));
    });
    m.def("_expr_astype", [](nb::handle a, const DType& d) { return kjarni::astype(to_expr(a), d); });

    m.def(
        "evaluate",
        [](const Queue& q, nb::handle e, const nb::object& allocator) {
            return evaluate(q, to_expr(e), to_allocator(allocator, q));
        },
        nb::arg("queue"), nb::arg("expression"), nb::arg("allocator") = nb::none(),
        "Evaluates an expression into a new array (one kernel).");
    m.def(
        "evaluate",
        [](const MultiQueue& q, nb::handle e, const nb::object& allocator) {
            return evaluate(q, to_expr(e), to_allocator(allocator));
        },
        nb::arg("queue"), nb::arg("expression"), nb::arg("allocator") = nb::none());
    m.def(
        "assign", [](const Queue& q, const Array& out, nb::handle e) { assign(q, out, to_expr(e)); }, nb::arg("queue"),
        nb::arg("out"), nb::arg("expression"), "Evaluates an expression into `out` (any layout).");
    m.def(
        "assign", [](const MultiQueue& q, const MultiArray& out, nb::handle e) { assign(q, out, to_expr(e)); },
        nb::arg("queue"), nb::arg("out"), nb::arg("expression"));
    m.def(
        "fill", [](const Queue& q, const Array& out, nb::handle v) { fill(q, out, to_expr(v)); }, nb::arg("queue"),
        nb::arg("out"), nb::arg("value"));

    refuse_other_constructors(
        nb::class_<ElementwiseKernel>(m, "ElementwiseKernel", "PyOpenCL's ElementwiseKernel: a C statement over `i`.")
            .def(nb::init<const std::string&, std::string>(), nb::arg("arguments"), nb::arg("operation"))
            .def("__call__", [](const ElementwiseKernel& k, const Queue& q, nb::args args) {
                std::vector<Operand> operands;
                for (nb::handle a : args) {
                    if (Array* arr = nullptr; nb::try_cast<Array*>(a, arr) && arr != nullptr)
                        operands.emplace_back(*arr);
                    else if (nb::hasattr(a, "dtype") && nb::hasattr(a, "tobytes")) {  // a numpy scalar
                        const DType dtype =
                            nb::cast<DType>(nb::module_::import_("kjarni.dtypes").attr("dtype")(a.attr("dtype")));
                        nb::bytes raw = nb::borrow<nb::bytes>(a.attr("tobytes")());
                        operands.emplace_back(std::span(static_cast<const std::byte*>(raw.data()), raw.size()), dtype);
                    } else {
                        throw ArgumentError("args", "an ElementwiseKernel takes Arrays and numpy scalars "
                                                    "(numpy.float32(2), ...)");
                    }
                }
                k(q, std::span<const Operand>(operands));
            }));

#define KJARNI_REDUCTION(name)                                                                         \
    m.def(                                                                                             \
        #name,                                                                                         \
        [](const Queue& q, const Array& a, nb::handle axis, bool keepdims, std::optional<Array> out,   \
           const nb::object& allocator) {                                                              \
            return kjarni::name(q, a, reduce_options(q, axis, keepdims, std::move(out), allocator));   \
        },                                                                                             \
        nb::arg("queue"), nb::arg("array"), nb::arg("axis") = nb::none(), nb::arg("keepdims") = false, \
        nb::arg("out") = nb::none(), nb::arg("allocator") = nb::none())
    KJARNI_REDUCTION(min);
    KJARNI_REDUCTION(max);
    KJARNI_REDUCTION(argmin);
    KJARNI_REDUCTION(argmax);
    KJARNI_REDUCTION(any);
    KJARNI_REDUCTION(all);
    KJARNI_REDUCTION(nanmin);
    KJARNI_REDUCTION(nanmax);
    KJARNI_REDUCTION(nanargmin);
    KJARNI_REDUCTION(nanargmax);
#undef KJARNI_REDUCTION
#define KJARNI_TYPED_REDUCTION(name)                                                                        \
    m.def(                                                                                                  \
        #name,                                                                                              \
        [](const Queue& q, const Array& a, nb::handle axis, std::optional<DType> dtype, bool keepdims,      \
           std::optional<Array> out, const nb::object& allocator) {                                         \
            return kjarni::name(q, a, reduce_options(q, axis, keepdims, std::move(out), allocator), dtype); \
        },                                                                                                  \
        nb::arg("queue"), nb::arg("array"), nb::arg("axis") = nb::none(), nb::arg("dtype") = nb::none(),    \
        nb::arg("keepdims") = false, nb::arg("out") = nb::none(), nb::arg("allocator") = nb::none())
    KJARNI_TYPED_REDUCTION(sum);
    KJARNI_TYPED_REDUCTION(prod);
    KJARNI_TYPED_REDUCTION(mean);
    KJARNI_TYPED_REDUCTION(nansum);
    KJARNI_TYPED_REDUCTION(nanprod);
    KJARNI_TYPED_REDUCTION(nanmean);
#undef KJARNI_TYPED_REDUCTION
    // var, std, nanvar and nanstd: numpy's ddof, and dtype (a float or complex type to compute in).
#define KJARNI_MOMENT_REDUCTION(name)                                                                               \
    m.def(                                                                                                          \
        #name,                                                                                                      \
        [](const Queue& q, const Array& a, nb::handle axis, std::optional<DType> dtype, double ddof, bool keepdims, \
           std::optional<Array> out, const nb::object& allocator) {                                                 \
            return kjarni::name(q, a, reduce_options(q, axis, keepdims, std::move(out), allocator), ddof, dtype);   \
        },                                                                                                          \
        nb::arg("queue"), nb::arg("array"), nb::arg("axis") = nb::none(), nb::arg("dtype") = nb::none(),            \
        nb::arg("ddof") = 0.0, nb::arg("keepdims") = false, nb::arg("out") = nb::none(),                            \
        nb::arg("allocator") = nb::none())
    KJARNI_MOMENT_REDUCTION(var);
    KJARNI_MOMENT_REDUCTION(std);
    KJARNI_MOMENT_REDUCTION(nanvar);
    KJARNI_MOMENT_REDUCTION(nanstd);
#undef KJARNI_MOMENT_REDUCTION

    nb::module_ b = m.def_submodule("blas", "BLAS on Arrays through cuBLAS (CUDA) or CLBlast (OpenCL).");
    b.def(
        "dot",
        [](const Queue& q, const Array& x, const Array& y, std::optional<Array> out, bool conjugate_x) {
            return blas::dot(q, x, y, out, conjugate_x);
        },
        nb::arg("queue"), nb::arg("x"), nb::arg("y"), nb::arg("out") = nb::none(), nb::arg("conjugate_x") = false);
    b.def(
        "gemv",
        [](const Queue& q, std::complex<double> alpha, const Array& a, const Array& x, std::complex<double> beta,
           std::optional<Array> y, const std::string& op) { return blas::gemv(q, alpha, a, x, beta, y, to_op(op)); },
        nb::arg("queue"), nb::arg("alpha"), nb::arg("a"), nb::arg("x"), nb::arg("beta") = 0.0,
        nb::arg("y") = nb::none(), nb::arg("op_a") = "N");
    b.def(
        "gemm",
        [](const Queue& q, std::complex<double> alpha, const Array& a, const Array& bm, std::complex<double> beta,
           std::optional<Array> c, const std::string& op_a,
           const std::string& op_b) { return blas::gemm(q, alpha, a, bm, beta, c, to_op(op_a), to_op(op_b)); },
        nb::arg("queue"), nb::arg("alpha"), nb::arg("a"), nb::arg("b"), nb::arg("beta") = 0.0,
        nb::arg("c") = nb::none(), nb::arg("op_a") = "N", nb::arg("op_b") = "N");
    b.def(
        "ger",
        [](const Queue& q, std::complex<double> alpha, const Array& x, const Array& y, std::optional<Array> a) {
            return blas::ger(q, alpha, x, y, a);
        },
        nb::arg("queue"), nb::arg("alpha"), nb::arg("x"), nb::arg("y"), nb::arg("a") = nb::none());
    b.def(
        "gemm_batched",
        [](const Queue& q, std::complex<double> alpha, const Array& a, const Array& bm, std::complex<double> beta,
           std::optional<Array> c, const std::string& op_a,
           const std::string& op_b) { return blas::gemm_batched(q, alpha, a, bm, beta, c, to_op(op_a), to_op(op_b)); },
        nb::arg("queue"), nb::arg("alpha"), nb::arg("a"), nb::arg("b"), nb::arg("beta") = 0.0,
        nb::arg("c") = nb::none(), nb::arg("op_a") = "N", nb::arg("op_b") = "N");

    m.def(
        "concatenate",
        [](const Queue& q, const std::vector<Array>& arrays, std::ptrdiff_t axis) {
            return concatenate(q, arrays, axis);
        },
        nb::arg("queue"), nb::arg("arrays"), nb::arg("axis") = 0);
    m.def(
        "stack",
        [](const Queue& q, const std::vector<Array>& arrays, std::ptrdiff_t axis) { return stack(q, arrays, axis); },
        nb::arg("queue"), nb::arg("arrays"), nb::arg("axis") = 0);
    m.def(
        "split", [](const Array& a, std::size_t sections, std::ptrdiff_t axis) { return split(a, sections, axis); },
        nb::arg("array"), nb::arg("sections"), nb::arg("axis") = 0);
    m.def(
        "take",
        [](const Queue& q, const Array& a, const Array& indices, std::optional<std::ptrdiff_t> axis) {
            return take(q, a, indices, axis);
        },
        nb::arg("queue"), nb::arg("array"), nb::arg("indices"), nb::arg("axis") = nb::none());
    m.def("may_share_memory", &may_share_memory, nb::arg("a"), nb::arg("b"));
}

}  // namespace kjarni::python
