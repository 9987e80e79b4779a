// kjarni.Statements (kjarni/statements.hpp): assignments checked where they are written and run
// together, lazy values (let) fused into the statements that use them. A context manager: leaving
// the `with` block runs what is pending, as eager calls would already have run it (also when an
// exception leaves the block: the statements before it ran eagerly too).
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <kjarni/statements.hpp>

#include "allocator.hpp"
#include "bindings.hpp"

namespace kjarni::python {

Expr expr_from_python(nb::handle h);  // algorithms.cpp

void bind_statements(nb::module_& m) {
    nb::class_<Statements>(m, "Statements",
                           "Statements evaluated lazily on a queue, with eager evaluation's values and errors: let() "
                           "names a lazy value, computed inside the kernels that use it; assign() and evaluate() "
                           "record stores; run() (or leaving a `with` block) enqueues them.")
        .def(
            "__init__",
            [](Statements* self, const Queue& queue, const nb::object& allocator) {
                new (self) Statements(queue, to_allocator(allocator, queue));
            },
            nb::arg("queue"), nb::arg("allocator") = nb::none())
        .def(
            "let", [](Statements& s, nb::handle e) { return s.let(expr_from_python(e)); }, nb::arg("expression"),
            "A lazy value: the expression's value where let() is written, stored nowhere unless needed.")
        .def(
            "assign", [](Statements& s, const Array& out, nb::handle e) { s.assign(out, expr_from_python(e)); },
            nb::arg("out"), nb::arg("expression"), "out = expression, checked now (as kjarni.assign), run by run().")
        .def(
            "evaluate", [](Statements& s, nb::handle e) { return s.evaluate(expr_from_python(e)); },
            nb::arg("expression"), "A new array holding the expression's value once run() has run.")
        .def("run", &Statements::run, "Enqueues the pending statements in order.")
        .def(
            "plan",
            [](const Statements& s) {
                std::vector<std::tuple<std::string, std::size_t, std::size_t>> kernels;
                for (const FusionPlan::Kernel& k : s.plan().kernels)
                    kernels.emplace_back(k.what, k.bytes_read, k.bytes_written);
                return kernels;
            },
            "The kernels run() would run: (what, bytes read, bytes written) each.")
        .def("describe_plan", [](const Statements& s) { return s.plan().describe(); })
        .def_prop_ro("pending", &Statements::pending)
        .def("__enter__", [](nb::handle self) { return nb::borrow(self); })
        .def("__exit__", [](Statements& s, nb::args) {
            s.run();
            return false;
        });
}

}  // namespace kjarni::python
