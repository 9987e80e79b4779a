#pragma once
// CUevents kept for reuse, one pool per device of a context. cuEventCreate costs about 2 us, as
// much as the launch it would mark, so a launch that returns an event takes one from here and its
// Event gives it back when the last reference goes. Reusing an event is safe: a stream or host that
// waited on it captured the recording it saw, and a new cuEventRecord starts a new one.

#include <cuda.h>

#include <atomic>
#include <mutex>
#include <vector>

namespace kjarni::backend::cuda {

class Driver;

class CudaEventPool {
public:
    CudaEventPool(const Driver& driver, CUcontext context) : driver_(&driver), context_(context) {}
    CudaEventPool(const CudaEventPool&) = delete;
    CudaEventPool& operator=(const CudaEventPool&) = delete;
    /// Destroys the events kept (the context must still be alive: CudaContext destroys its pools first).
    ~CudaEventPool();

    /// A free event (timing on: Event::time_since needs it), made when none is kept; the context
    /// must be current. Throws BackendError.
    CUevent take();
    /// Keeps the event for a later take(); never throws.
    void give_back(CUevent event) noexcept;

private:
    // More than this many idle events are destroyed rather than kept.
    static constexpr std::size_t max_kept = 1024;

    const Driver* driver_;
    CUcontext context_;
    /// The event given back last, taken without the lock: a loop that launches with an event and
    /// drops it before the next launch passes one event through here, an atomic exchange each
    /// way where the mutex would cost two atomic operations each way (about 50 ns a launch).
    std::atomic<CUevent> spare_{nullptr};
    std::mutex mutex_;
    std::vector<CUevent> free_;
};

}  // namespace kjarni::backend::cuda
