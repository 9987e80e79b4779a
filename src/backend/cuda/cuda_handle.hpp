#pragma once
// Owning handles for the driver objects kjarni creates in a context (CUmodule, CUstream, CUevent):
// a DriverHandle destroys its object, with the object's context made current, when it goes, so
// that no path can leak one or destroy it twice. Move-only. Destruction errors are ignored: a
// destructor cannot report them, and at process exit the driver may already be shut down.

#include <cuda.h>

#include <utility>

namespace kjarni::backend::cuda {

class Driver;

template <class T>
class DriverHandle {
public:
    DriverHandle() noexcept = default;
    /// Takes over `raw`, created through `driver` in `context`.
    DriverHandle(const Driver& driver, CUcontext context, T raw) noexcept
        : driver_(&driver), context_(context), raw_(raw) {}

    DriverHandle(DriverHandle&& other) noexcept
        : driver_(other.driver_), context_(other.context_), raw_(std::exchange(other.raw_, nullptr)) {}
    DriverHandle& operator=(DriverHandle&& other) noexcept {
        if (this != &other) {
            reset();
            driver_ = other.driver_;
            context_ = other.context_;
            raw_ = std::exchange(other.raw_, nullptr);
        }
        return *this;
    }
    // A copy would destroy the object twice.
    DriverHandle(const DriverHandle&) = delete;
    DriverHandle& operator=(const DriverHandle&) = delete;
    ~DriverHandle() { reset(); }

    T get() const noexcept { return raw_; }
    explicit operator bool() const noexcept { return raw_ != nullptr; }
    /// Destroys the object held, if any (cuModuleUnload, cuStreamDestroy, cuEventDestroy).
    void reset() noexcept;

private:
    const Driver* driver_ = nullptr;
    CUcontext context_ = nullptr;
    T raw_ = nullptr;
};

extern template class DriverHandle<CUmodule>;
extern template class DriverHandle<CUstream>;
extern template class DriverHandle<CUevent>;

}  // namespace kjarni::backend::cuda
