// kjarni's C++ exceptions become the Python classes of kjarni.errors, with their data as attributes.
// Errors that are not kjarni's keep nanobind's own translation (std::bad_alloc -> MemoryError...).
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <stdexcept>

#include <kjarni/error.hpp>
#include <kjarni/rendezvous.hpp>
#include <kjarni/template.hpp>

#include "bindings.hpp"

namespace kjarni::python {

namespace {

// The class `name` of kjarni.errors (imported on first use; the module stays alive for the process).
nb::object error_class(const char* name) {
    static nb::object* module = new nb::object(nb::module_::import_("kjarni.errors"));
    return module->attr(name);
}

void raise(const nb::object& cls, const nb::object& instance) { PyErr_SetObject(cls.ptr(), instance.ptr()); }

void translate(const std::exception_ptr& p, void*) {
    try {
        std::rethrow_exception(p);
    } catch (const CompileError& e) {
        nb::object cls = error_class("CompileError");
        raise(cls, cls(e.what(), e.api(), e.device(), e.log(), e.options(), e.source()));
    } catch (const LinkError& e) {
        nb::object cls = error_class("LinkError");
        raise(cls, cls(e.what(), e.api(), e.device(), e.log()));
    } catch (const ArgumentTypeError& e) {
        nb::object cls = error_class("ArgumentTypeError");
        raise(cls, cls(e.what(), e.argument()));
    } catch (const AxisError& e) {
        nb::object cls = error_class("AxisError");
        raise(cls, cls(e.what(), e.argument()));
    } catch (const IndexOutOfBoundsError& e) {
        nb::object cls = error_class("IndexOutOfBoundsError");
        raise(cls, cls(e.what(), e.argument()));
    } catch (const ScalarOverflowError& e) {
        nb::object cls = error_class("ScalarOverflowError");
        raise(cls, cls(e.what(), e.argument()));
    } catch (const ArgumentError& e) {
        nb::object cls = error_class("ArgumentError");
        raise(cls, cls(e.what(), e.argument()));
    } catch (const RenderError& e) {
        nb::object cls = error_class("RenderError");
        raise(cls,
              cls(e.what(), e.template_name(), e.line(), e.column(), e.message(), e.global_names(), e.source_line()));
    } catch (const OutOfMemoryError& e) {
        nb::object cls = error_class("OutOfMemoryError");
        raise(cls, cls(e.what(), e.api(), e.call(), e.code(), e.code_name()));
    } catch (const BackendError& e) {
        nb::object cls = error_class("BackendError");
        raise(cls, cls(e.what(), e.api(), e.call(), e.code(), e.code_name()));
    } catch (const ApiUnavailableError& e) {
        nb::object cls = error_class("ApiUnavailableError");
        raise(cls, cls(e.what()));
    } catch (const NotFoundError& e) {
        nb::object cls = error_class("NotFoundError");
        raise(cls, cls(e.what()));
    } catch (const PeerError& e) {
        nb::object cls = error_class("PeerError");
        raise(cls, cls(e.what(), e.peer()));
    } catch (const UnsupportedError& e) {
        nb::object cls = error_class("UnsupportedError");
        raise(cls, cls(e.what()));
    } catch (const Error& e) {
        nb::object cls = error_class("Error");
        raise(cls, cls(e.what()));
    }
}

}  // namespace

void refuse_construction(nb::handle cls, const nb::args& args, const nb::kwargs& kwargs) {
    nb::module_::import_("kjarni._signatures").attr("refuse_construction")(cls, args, kwargs);
    throw std::logic_error("kjarni._signatures.refuse_construction returned");  // it always raises
}

void bind_errors(nb::module_&) { nb::register_exception_translator(&translate); }

}  // namespace kjarni::python
