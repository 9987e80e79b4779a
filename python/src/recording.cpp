// Recorded launch sequences (kjarni/recording.hpp) for Python: Recorder (also a context manager
// that finishes on a clean exit and abandons on an exception) and Recording. Launches from Python
// (PreparedKernel.__call__, expressions, reductions) reach the C++ launch path and are recorded
// there; nothing here records. A RecordingError becomes kjarni._kjarni.RecordingError, a subclass
// of kjarni.errors.Error with the culprit as `culprit`.
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>

#include <memory>
#include <optional>
#include <utility>

#include <kjarni/recording.hpp>

#include "bindings.hpp"
#include "kernel_args.hpp"

namespace kjarni::python {

namespace {

// The Python class of RecordingError, made once kjarni.errors can be imported.
PyObject* recording_error_class() {
    static PyObject* cls = [] {
        nb::object base = nb::module_::import_("kjarni.errors").attr("Error");
        return PyErr_NewExceptionWithDoc("kjarni._kjarni.RecordingError",
                                         "Work a recording cannot take, or a recording used where it does not "
                                         "belong; `culprit` names the call, queue or argument.",
                                         base.ptr(), nullptr);
    }();
    return cls;
}

void translate_recording_error(const std::exception_ptr& p, void*) {
    try {
        std::rethrow_exception(p);
    } catch (const RecordingError& e) {
        nb::handle cls(recording_error_class());
        nb::object instance = nb::borrow(cls)(e.what());
        instance.attr("culprit") = e.culprit();
        PyErr_SetObject(cls.ptr(), instance.ptr());
    }
}

/// A Recorder that Python can end before it is collected (abandon on an exception).
struct PyRecorder {
    std::optional<Recorder> recorder;
    std::optional<Recording> recording;

    Recorder& live() {
        if (!recorder) throw RecordingError("Recorder", "has finished or been abandoned");
        return *recorder;
    }
    Recording finish() {
        Recording made = live().finish();
        recorder.reset();
        recording = made;
        return made;
    }
};

std::pair<std::size_t, std::size_t> slot_tuple(RecordedArgument slot) { return {slot.launch, slot.argument}; }

}  // namespace

void bind_recording(nb::module_& m) {
    nb::register_exception_translator(&translate_recording_error);
    m.attr("RecordingError") = nb::handle(recording_error_class());

    nb::class_<Recording>(m, "Recording",
                          "Work recorded on a queue, replayed with replay() (see kjarni/recording.hpp).")
        .def("replay", nb::overload_cast<>(&Recording::replay, nb::const_), "Enqueues the recorded work again.")
        .def("replay", nb::overload_cast<const Queue&>(&Recording::replay, nb::const_), nb::arg("queue"))
        .def_prop_ro("queue", &Recording::queue)
        .def_prop_ro("launches", &Recording::launches)
        .def_prop_ro("mechanism", [](const Recording& r) { return std::string(r.mechanism()); })
        .def(
            "set",
            [](const Recording& recording, std::pair<std::size_t, std::size_t> slot, nb::handle value) {
                PackedArgs packed;
                const nb::args args = nb::borrow<nb::args>(nb::make_tuple(value));
                pack_args(args, 0, detail::LaunchTarget{0, recording.queue().device().index()}, packed);
                // The value's Python object keeps its memory (a Buffer's, an Array's) alive.
                auto* kept = new nb::object(nb::borrow(value));
                std::shared_ptr<const void> owner(kept, [](const void* p) {
                    const nb::gil_scoped_acquire gil;
                    delete static_cast<const nb::object*>(p);
                });
                recording.set_packed(RecordedArgument{slot.first, slot.second}, packed.span()[0], std::move(owner));
            },
            nb::arg("slot"), nb::arg("value"),
            "The recorded argument `slot` ((launch, argument), from Recorder.argument) becomes `value` "
            "(a numpy scalar of the recorded size, or a Buffer / Array) for later replays.");

    nb::class_<PyRecorder>(m, "Recorder",
                           "Records the work enqueued on a queue until finish() (or the end of a with block).")
        .def(
            "__init__",
            [](PyRecorder* self, const Queue& queue, bool native) {
                new (self) PyRecorder();
                self->recorder.emplace(queue, RecordingOptions{native});
            },
            nb::arg("queue"), nb::arg("native") = true)
        .def_prop_ro("launches", [](PyRecorder& r) { return r.live().launches(); })
        .def(
            "argument", [](PyRecorder& r, std::size_t argument) { return slot_tuple(r.live().argument(argument)); },
            nb::arg("argument"), "(launch, argument) of an argument of the launch recorded last.")
        .def("finish", &PyRecorder::finish)
        .def_prop_ro("recording", [](const PyRecorder& r) { return r.recording; })
        .def("__enter__", [](nb::handle self) { return nb::borrow(self); })
        .def(
            "__exit__",
            [](PyRecorder& r, nb::handle type, nb::handle, nb::handle) {
                if (!r.recorder) return false;
                if (type.is_none()) {
                    r.finish();
                } else {
                    r.recorder.reset();  // abandoned: the queue runs eagerly again
                }
                return false;
            },
            nb::arg("type").none(), nb::arg("value").none(), nb::arg("traceback").none());
}

}  // namespace kjarni::python
