// Templates, defs, snippets and modules (grunnur's Template, DefTemplate, Snippet, Module and the
// rendering of modules at the root of a source). Callables as sources are turned into defs by the
// Python side (kjarni/_templates.py), which reads their parameter names.
#include <nanobind/stl/filesystem.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/string_view.h>
#include <nanobind/stl/variant.h>
#include <nanobind/stl/vector.h>

#include <kjarni/template.hpp>

#include "bindings.hpp"
#include "value_conversion.hpp"

namespace kjarni::python {

namespace {

Args to_args(const nb::args& args, const nb::kwargs& kwargs) {
    Args a;
    for (nb::handle x : args) a.positional.push_back(to_value(x));
    for (auto [k, v] : kwargs) a.keyword.emplace_back(text_of(k), to_value(v));
    return a;
}

Globals to_globals(const nb::handle& mapping) {
    Globals out;
    if (mapping.is_none()) return out;
    nb::object d = nb::module_::import_("builtins").attr("dict")(mapping);
    PyObject* key = nullptr;
    PyObject* value = nullptr;
    Py_ssize_t position = 0;
    while (PyDict_Next(d.ptr(), &position, &key, &value)) {
        if (!PyUnicode_Check(key)) throw ArgumentError("render_globals", "keys must be strings");
        Py_ssize_t size = 0;
        const char* text = PyUnicode_AsUTF8AndSize(key, &size);
        out[std::string(text, static_cast<std::size_t>(size))] = to_value(nb::handle(value));
    }
    return out;
}

}  // namespace

Globals globals_from_python(const nb::handle& mapping) { return to_globals(mapping); }

void bind_templates(nb::module_& m) {
    nb::class_<ObjectHandle>(m, "TemplateObject", "A C++ template object (e.g. a dtype as templates see it).")
        .def("__str__", [](const ObjectHandle& h) { return h.object->to_string(); })
        .def("__getattr__",
             [](const ObjectHandle& h, const std::string& name) {
                 if (name.starts_with("__")) throw nb::attribute_error(name.c_str());
                 return from_value(h.object->attribute(name));
             })
        .def("__call__", [](const ObjectHandle& h, nb::args args, nb::kwargs kwargs) {
            return from_value(h.object->call(to_args(args, kwargs)));
        });

    nb::class_<DefTemplate>(m, "DefTemplate", "A def of a template: a function of named arguments over template text.")
        .def_static("from_string", &DefTemplate::from_string, nb::arg("name"), nb::arg("argnames"), nb::arg("source"))
        .def(
            "render",
            [](const DefTemplate& d, nb::args args, nb::kwargs globals) {
                Args a;
                for (nb::handle x : args) a.positional.push_back(to_value(x));
                return d.render(a, to_globals(globals));
            },
            "Renders with positional arguments; keyword arguments are render globals.")
        .def_prop_ro("name", &DefTemplate::name)
        .def_prop_ro("argnames", &DefTemplate::argnames)
        .def_prop_ro("source", &DefTemplate::source);

    nb::class_<Template>(m, "Template", "A whole template: its top-level text and its <%def>s.")
        .def_static("from_string", &Template::from_string, nb::arg("source"), nb::arg("name") = "<string>")
        .def_static("from_file", &Template::from_file, nb::arg("path"))
        .def_static("from_associated_file", &Template::from_associated_file, nb::arg("filename"),
                    "The .mako file beside `filename` (pass __file__).")
        .def("get_def", &Template::get_def, nb::arg("name"))
        .def("render", [](const Template& t, nb::kwargs globals) { return t.render(to_globals(globals)); })
        .def_prop_ro("main_def", &Template::main_def)
        .def_prop_ro("name", &Template::name)
        .def_prop_ro("source", &Template::source);

    refuse_other_constructors(
        nb::class_<Snippet>(m, "Snippet", "A def with its own render globals, rendered in place where it is used.")
            .def(
                "__init__",
                [](Snippet* self, const DefTemplate& def, nb::handle render_globals) {
                    new (self) Snippet(def, to_globals(render_globals));
                },
                nb::arg("template_src"), nb::arg("render_globals") = nb::none())
            .def_static(
                "from_string",
                [](const std::string& source, nb::handle render_globals, std::string name) {
                    return Snippet::from_string(source, std::move(name), to_globals(render_globals));
                },
                nb::arg("source"), nb::arg("render_globals") = nb::none(), nb::arg("name") = "_snippet")
            .def_prop_ro("template_def", &Snippet::template_def)
            .def_prop_ro("render_globals", [](const Snippet& s) { return s.render_globals(); }));

    refuse_other_constructors(
        nb::class_<Module>(m, "Module",
                           "A def rendered once at the root of the source with a unique prefix as its first argument.")
            .def(
                "__init__",
                [](Module* self, const DefTemplate& def, nb::handle render_globals) {
                    new (self) Module(def, to_globals(render_globals));
                },
                nb::arg("template_src"), nb::arg("render_globals") = nb::none())
            .def_static(
                "from_string",
                [](const std::string& source, nb::handle render_globals, std::string name) {
                    return Module::from_string(source, std::move(name), to_globals(render_globals));
                },
                nb::arg("source"), nb::arg("render_globals") = nb::none(), nb::arg("name") = "_module")
            .def_prop_ro("template_def", &Module::template_def)
            .def_prop_ro("render_globals", [](const Module& s) { return s.render_globals(); })
            .def("__eq__", [](const Module& a, const Module& b) { return a.impl() == b.impl(); })
            .def("__hash__", [](const Module& a) { return std::hash<const void*>{}(a.impl().get()); }));

    m.def(
        "render_with_modules",
        [](const TemplateSource& source, const std::vector<Value>& render_args, nb::handle render_globals) {
            return render_with_modules(source, render_args, to_globals(render_globals));
        },
        nb::arg("source"), nb::arg("render_args") = std::vector<Value>{}, nb::arg("render_globals") = nb::none(),
        "The code a Program compiles from a template source: modules rendered at the top, then the main code.");
}

}  // namespace kjarni::python
