#pragma once
// Owning handles for OpenCL objects: a Handle<cl_program> (etc.) holds one reference and releases it
// when it goes, so that no path, exceptions included, can leak an object or release it twice.
// Move-only; Handle::retain adds a reference for a second owner. Release errors are ignored (a
// destructor cannot report them, and the object is gone for us either way).

#include <utility>

#include "backend/opencl/opencl_error.hpp"
#include "backend/opencl/opencl_library.hpp"

namespace kjarni::backend::opencl {

/// How a handle type is retained and released (one specialization per type below).
template <class T>
struct HandleTraits;

#define KJARNI_OPENCL_HANDLE_TRAITS(type, retain_function, release_function)         \
    template <>                                                                      \
    struct HandleTraits<type> {                                                      \
        static constexpr const char* retain_name = #retain_function;                 \
        static cl_int retain(type handle) { return cl().retain_function(handle); }   \
        static cl_int release(type handle) { return cl().release_function(handle); } \
    };
KJARNI_OPENCL_HANDLE_TRAITS(cl_context, clRetainContext, clReleaseContext)
KJARNI_OPENCL_HANDLE_TRAITS(cl_command_queue, clRetainCommandQueue, clReleaseCommandQueue)
KJARNI_OPENCL_HANDLE_TRAITS(cl_mem, clRetainMemObject, clReleaseMemObject)
KJARNI_OPENCL_HANDLE_TRAITS(cl_program, clRetainProgram, clReleaseProgram)
KJARNI_OPENCL_HANDLE_TRAITS(cl_kernel, clRetainKernel, clReleaseKernel)
KJARNI_OPENCL_HANDLE_TRAITS(cl_event, clRetainEvent, clReleaseEvent)
KJARNI_OPENCL_HANDLE_TRAITS(cl_sampler, clRetainSampler, clReleaseSampler)
#undef KJARNI_OPENCL_HANDLE_TRAITS

template <class T>
class Handle {
public:
    Handle() noexcept = default;
    /// Takes over the one reference that `raw` carries (what a clCreate* call returns).
    explicit Handle(T raw) noexcept : raw_(raw) {}
    /// A second owner of an object owned elsewhere: adds a reference (BackendError if refused).
    static Handle retain(T raw) {
        check(HandleTraits<T>::retain(raw), HandleTraits<T>::retain_name);
        return Handle(raw);
    }

    Handle(Handle&& other) noexcept : raw_(std::exchange(other.raw_, nullptr)) {}
    Handle& operator=(Handle&& other) noexcept {
        if (this != &other) reset(std::exchange(other.raw_, nullptr));
        return *this;
    }
    // A copy would release the one reference twice: use retain() for a second owner.
    Handle(const Handle&) = delete;
    Handle& operator=(const Handle&) = delete;
    ~Handle() { reset(); }

    T get() const noexcept { return raw_; }
    explicit operator bool() const noexcept { return raw_ != nullptr; }
    /// Releases the object held, if any, and takes over `raw`'s reference.
    void reset(T raw = nullptr) noexcept {
        if (raw_ != nullptr) static_cast<void>(HandleTraits<T>::release(raw_));
        raw_ = raw;
    }

private:
    T raw_ = nullptr;
};

}  // namespace kjarni::backend::opencl
