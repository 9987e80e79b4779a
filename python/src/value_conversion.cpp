// Python values to and from kjarni::Value (see value_conversion.hpp).
#include "value_conversion.hpp"

#include <nanobind/stl/vector.h>

#include <kjarni/dtype.hpp>
#include <kjarni/error.hpp>
#include <kjarni/template/module.hpp>

namespace kjarni::python {

namespace nb = nanobind;

namespace {

// A Python object inside a template: attributes and calls go back to Python.
class PythonObject final : public Object {
public:
    explicit PythonObject(nb::object object) : object_(std::move(object)) {}
    ~PythonObject() override {
        nb::gil_scoped_acquire gil;
        object_.reset();
    }
    std::string type_name() const override {
        nb::gil_scoped_acquire gil;
        return text_of(object_.type().attr("__name__"));
    }
    std::string to_string() const override {
        nb::gil_scoped_acquire gil;
        return guarded([&] { return text_of(object_); });
    }
    Value attribute(const std::string& name) const override {
        nb::gil_scoped_acquire gil;
        if (!nb::hasattr(object_, name.c_str())) return Object::attribute(name);
        return guarded([&] { return to_value(object_.attr(name.c_str())); });
    }
    Value call(const Args& args) const override {
        nb::gil_scoped_acquire gil;
        if (!PyCallable_Check(object_.ptr())) return Object::call(args);
        return guarded([&] {
            nb::list positional;
            for (const Value& v : args.positional) positional.append(from_value(v));
            nb::dict keywords;
            for (const auto& [k, v] : args.keyword) keywords[k.c_str()] = from_value(v);
            return to_value(object_(*nb::tuple(positional), **keywords));
        });
    }
    std::shared_ptr<const Object> process_modules(const std::function<Value(const Value&)>& process) const override {
        nb::gil_scoped_acquire gil;
        if (!nb::hasattr(object_, "__process_modules__")) return nullptr;
        nb::object py_process = nb::cpp_function([process](nb::handle x) { return from_value(process(to_value(x))); });
        return guarded(
            [&] { return std::make_shared<const PythonObject>(object_.attr("__process_modules__")(py_process)); });
    }
    const nb::object& object() const noexcept { return object_; }

private:
    // A Python exception raised by the object becomes a kjarni::Error: the template engine turns it
    // into a RenderError at the position of the expression.
    template <class F>
    static auto guarded(F&& f) -> decltype(f()) {
        try {
            return f();
        } catch (const nb::python_error& e) {
            throw Error(std::string("Python: ") + e.what());
        }
    }
    nb::object object_;
};

// A Python callable as a template Function.
Value python_function(nb::object callable) {
    auto holder = std::shared_ptr<nb::object>(new nb::object(std::move(callable)), [](nb::object* o) {
        nb::gil_scoped_acquire gil;
        delete o;
    });
    return Value(Function([holder](const Args& args) -> Value {
        nb::gil_scoped_acquire gil;
        try {
            nb::list positional;
            for (const Value& v : args.positional) positional.append(from_value(v));
            nb::dict keywords;
            for (const auto& [k, v] : args.keyword) keywords[k.c_str()] = from_value(v);
            return to_value((*holder)(*nb::tuple(positional), **keywords));
        } catch (const nb::python_error& e) {
            throw Error(std::string("Python: ") + e.what());
        }
    }));
}

// numpy's dtype and scalar types, when numpy is loaded (never imported here).
bool is_numpy_dtype_like(nb::handle object) {
    nb::handle modules = PyImport_GetModuleDict();
    PyObject* np = PyDict_GetItemString(modules.ptr(), "numpy");
    if (np == nullptr) return false;
    nb::handle numpy(np);
    if (nb::isinstance(object, numpy.attr("dtype"))) return true;
    return PyType_Check(object.ptr()) && PyObject_IsSubclass(object.ptr(), numpy.attr("generic").ptr()) == 1;
}

bool is_numpy_scalar(nb::handle object) {
    nb::handle modules = PyImport_GetModuleDict();
    PyObject* np = PyDict_GetItemString(modules.ptr(), "numpy");
    return np != nullptr && nb::isinstance(object, nb::handle(np).attr("generic"));
}

}  // namespace

std::string text_of(nb::handle object) {
    nb::object text = PyUnicode_Check(object.ptr()) ? nb::borrow(object) : nb::steal(PyObject_Str(object.ptr()));
    if (!text.is_valid()) throw nb::python_error();
    Py_ssize_t size = 0;
    const char* data = PyUnicode_AsUTF8AndSize(text.ptr(), &size);
    if (data == nullptr) throw nb::python_error();
    return std::string(data, static_cast<std::size_t>(size));
}

Value to_value(nb::handle object) {
    if (object.is_none()) return Value();
    if (PyBool_Check(object.ptr())) return Value(object.ptr() == Py_True);
    if (PyLong_Check(object.ptr())) {
        int overflow = 0;
        const long long v = PyLong_AsLongLongAndOverflow(object.ptr(), &overflow);
        if (overflow != 0) throw ArgumentError("render value", "an integer beyond 64 bits cannot enter a template");
        return Value(static_cast<std::int64_t>(v));
    }
    if (PyFloat_Check(object.ptr())) return Value(PyFloat_AsDouble(object.ptr()));
    if (PyUnicode_Check(object.ptr())) return Value(text_of(object));
    DType* dtype = nullptr;
    if (nb::try_cast<DType*>(object, dtype) && dtype != nullptr) return Value(*dtype);
    Module* module = nullptr;
    if (nb::try_cast<Module*>(object, module) && module != nullptr) return Value(*module);
    Snippet* snippet = nullptr;
    if (nb::try_cast<Snippet*>(object, snippet) && snippet != nullptr) return Value(*snippet);
    if (PyList_Check(object.ptr()) || PyTuple_Check(object.ptr())) {
        std::vector<Value> items;
        for (nb::handle item : object) items.push_back(to_value(item));
        return PyTuple_Check(object.ptr()) ? Value::tuple(std::move(items)) : Value::list(std::move(items));
    }
    if (PyDict_Check(object.ptr())) {
        DictItems items;
        for (auto [k, v] : nb::borrow<nb::dict>(object)) items.set(to_value(k), to_value(v));
        return Value::dict(std::move(items));
    }
    if (is_numpy_dtype_like(object)) {
        nb::object converted = nb::module_::import_("kjarni.dtypes").attr("dtype")(object);
        return Value(nb::cast<DType>(converted));
    }
    if (is_numpy_scalar(object)) {
        // A float16 or float32 scalar renders as numpy prints it, its shortest text (np.float32(0.1)
        // is 0.1, as in grunnur's templates), not as the double it holds (0.10000000149011612).
        nb::handle numpy(PyDict_GetItemString(PyImport_GetModuleDict(), "numpy"));
        if (nb::isinstance(object, numpy.attr("floating")) && nb::cast<std::size_t>(object.attr("itemsize")) < 8)
            return Value(nb::cast<double>(nb::float_(nb::str(object))));
        return to_value(object.attr("item")());
    }
    // Wrapped template objects coming back (e.g. a function module's result) go in unchanged.
    ObjectHandle* handle = nullptr;
    if (nb::try_cast<ObjectHandle*>(object, handle) && handle != nullptr) return Value(handle->object);
    if (PyFunction_Check(object.ptr()) || PyMethod_Check(object.ptr()) || PyCFunction_Check(object.ptr())) {
        return python_function(nb::borrow(object));
    }
    return Value(std::make_shared<PythonObject>(nb::borrow(object)));
}

nb::object from_value(const Value& value) {
    switch (value.kind()) {
    case Value::Kind::None: return nb::none();
    case Value::Kind::Bool: return nb::bool_(value.as_bool());
    case Value::Kind::Int: {
        // Beyond 64 bits (a template's big int): through its decimal digits.
        const std::string digits = value.str();
        PyObject* i = PyLong_FromString(digits.c_str(), nullptr, 10);
        if (i == nullptr) throw nb::python_error();
        return nb::steal(i);
    }
    case Value::Kind::Float: return nb::float_(value.as_float());
    case Value::Kind::String: return nb::str(value.as_string().c_str(), value.as_string().size());
    case Value::Kind::List:
    case Value::Kind::Tuple: {
        nb::list out;
        for (const Value& v : value.as_list()) out.append(from_value(v));
        if (value.kind() == Value::Kind::Tuple) return nb::tuple(out);
        return std::move(out);
    }
    case Value::Kind::Dict: {
        nb::dict out;
        for (const auto& [k, v] : value.as_dict()) out[from_value(k)] = from_value(v);
        return std::move(out);
    }
    case Value::Kind::Set: {
        nb::set out;
        for (const Value& v : value.as_set()) out.add(from_value(v));
        return std::move(out);
    }
    case Value::Kind::Callable: {
        const Function f = value.as_function();
        return nb::cpp_function([f](nb::args args, nb::kwargs kwargs) {
            Args a;
            for (nb::handle x : args) a.positional.push_back(to_value(x));
            for (auto [k, v] : kwargs) a.keyword.emplace_back(text_of(k), to_value(v));
            return from_value(f(a));
        });
    }
    case Value::Kind::Object: {
        if (auto p = std::dynamic_pointer_cast<const PythonObject>(value.as_object())) return p->object();
        return nb::cast(ObjectHandle{value.as_object()});
    }
    case Value::Kind::Module: return nb::cast(value.as_module());
    case Value::Kind::Snippet: return nb::cast(value.as_snippet());
    }
    return nb::none();
}

}  // namespace kjarni::python
