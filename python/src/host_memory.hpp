#pragma once
// Host memory handed over from Python: any object with the buffer protocol (numpy arrays,
// bytearray, memoryview), C-contiguous, held for as long as this object lives.
#include <Python.h>

#include <cstddef>
#include <span>

#include <kjarni/error.hpp>

namespace kjarni::python {

class HostBytes {
public:
    /// Throws ArgumentError naming `argument` if the object has no C-contiguous buffer (or a
    /// read-only one when `writable`).
    HostBytes(PyObject* object, bool writable, const char* argument) {
        const int flags = PyBUF_C_CONTIGUOUS | (writable ? PyBUF_WRITABLE : 0);
        if (PyObject_GetBuffer(object, &view_, flags) != 0) {
            PyErr_Clear();
            throw ArgumentError(argument, writable ? "must be a writable C-contiguous host array"
                                                   : "must be a C-contiguous host array (numpy, bytes, memoryview)");
        }
    }
    ~HostBytes() { PyBuffer_Release(&view_); }
    HostBytes(const HostBytes&) = delete;
    HostBytes& operator=(const HostBytes&) = delete;

    std::byte* data() const noexcept { return static_cast<std::byte*>(view_.buf); }
    std::size_t size() const noexcept { return static_cast<std::size_t>(view_.len); }
    std::span<std::byte> bytes() const noexcept { return {data(), size()}; }

private:
    Py_buffer view_{};
};

}  // namespace kjarni::python
