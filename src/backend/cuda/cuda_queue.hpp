#pragma once
// A queue is a non-blocking CUDA stream; an event is a CUevent recorded in one.

#include <cuda.h>

#include <atomic>
#include <memory>

#include "backend/backend.hpp"
#include "backend/cuda/cuda_handle.hpp"

namespace kjarni::backend::cuda {

class CudaContext;

class CudaEvent final : public Event {
public:
    /// An (unrecorded) event in the context of device `device_index`; `flags` as cuEventCreate
    /// takes them. The default (timing on) comes from the device's event pool.
    CudaEvent(std::shared_ptr<CudaContext> context, std::size_t device_index, unsigned int flags = CU_EVENT_DEFAULT);
    /// Adopts `event` (an interprocess event opened here), destroyed with this object.
    CudaEvent(std::shared_ptr<CudaContext> context, std::size_t device_index, CUevent event, bool interprocess);
    /// With flags (timing off: CU_EVENT_DISABLE_TIMING; CU_EVENT_BLOCKING_SYNC).
    CudaEvent(std::shared_ptr<CudaContext> context, std::size_t device_index, const EventFlags& flags);
    /// The tag of the constructor for callers that hold the device's context current already.
    struct ContextIsCurrent {};
    /// A default event from the pool, made where the context of `device_index` is current already
    /// (a launch's CurrentContext holds it): no second cuCtxGetCurrent on the launch path.
    CudaEvent(std::shared_ptr<CudaContext> context, std::size_t device_index, ContextIsCurrent);
    /// That event, its memory recycled (SpareBlockAllocator): what launches and record_event make.
    static std::shared_ptr<CudaEvent> make_while_current(const std::shared_ptr<CudaContext>& context,
                                                         std::size_t device_index);
    CudaEvent(const CudaEvent&) = delete;
    CudaEvent& operator=(const CudaEvent&) = delete;
    /// Gives a pooled CUevent back to the pool.
    ~CudaEvent() override;

    void wait() override;
    bool is_complete() override;
    double time_since(Event& earlier) override;
    std::vector<std::byte> ipc_handle() const override;

    CUevent event() const noexcept { return event_; }

private:
    std::shared_ptr<CudaContext> context_;
    std::size_t device_index_;
    CUevent event_ = nullptr;
    /// Events not from the pool (other flags, adopted ones) are destroyed with this object.
    DriverHandle<CUevent> owned_;
    bool pooled_ = false;
    bool interprocess_ = false;
};

class CudaQueue final : public Queue {
public:
    CudaQueue(std::shared_ptr<CudaContext> context, std::size_t device_index);
    /// A stream of the given priority (cuStreamCreateWithPriority).
    CudaQueue(std::shared_ptr<CudaContext> context, std::size_t device_index, const QueueFlags& flags);
    CudaQueue(const CudaQueue&) = delete;
    CudaQueue& operator=(const CudaQueue&) = delete;

    std::size_t device_index() const override { return device_index_; }
    void synchronize() override;
    std::shared_ptr<Event> record_event() override;
    void record(Event& event) override;
    std::shared_ptr<Event> record_event_with(const EventFlags& flags) override;
    /// cuStreamQuery.
    bool is_done() override;
    void wait_for(Event& event) override;
    void write(Buffer& dst, std::size_t dst_offset, const void* src, std::size_t size, bool blocking) override;
    void read(void* dst, Buffer& src, std::size_t src_offset, std::size_t size, bool blocking) override;
    void copy(Buffer& dst, std::size_t dst_offset, Buffer& src, std::size_t src_offset, std::size_t size,
              bool blocking) override;
    void fill(Buffer& dst, std::size_t offset, std::size_t size, const void* pattern, std::size_t pattern_size,
              bool blocking) override;
    std::uintptr_t native_handle() const override { return reinterpret_cast<std::uintptr_t>(stream_.get()); }
    /// cuMemcpyPeerAsync from another CUDA context's buffer (cuda_peer_access.cpp).
    bool copy_from_context(Buffer& dst, std::size_t dst_offset, Context& src_context, Buffer& src,
                           std::size_t src_offset, std::size_t size, bool blocking) override;

    // Pitched transfers (cuda_rect_copy.cpp): cuMemsetD2D*Async, cuMemcpy3DAsync / cuMemcpy3DPeerAsync.
    void fill_2d(Buffer& dst, std::size_t offset, std::size_t pitch, std::size_t width, std::size_t height,
                 const void* pattern, std::size_t pattern_size, bool blocking) override;
    void write_rect(Buffer& dst, const RectLayout& dst_layout, const void* src, const RectLayout& src_layout,
                    const RectExtent& extent, bool blocking) override;
    void read_rect(void* dst, const RectLayout& dst_layout, Buffer& src, const RectLayout& src_layout,
                   const RectExtent& extent, bool blocking) override;
    void copy_rect(Buffer& dst, const RectLayout& dst_layout, Buffer& src, const RectLayout& src_layout,
                   const RectExtent& extent, bool blocking) override;

    CUstream stream() const noexcept { return stream_.get(); }
    const std::shared_ptr<CudaContext>& context() const noexcept { return context_; }
    /// An event recorded in the stream now, by a caller that holds the device's context current
    /// (a launch, record_event). The event of an earlier call again where nothing else holds it
    /// any more: a loop that launches with an Event and drops it records one event over and over
    /// instead of making and freeing one each time (an allocation, a pool's CUevent and five
    /// atomic operations a launch).
    std::shared_ptr<CudaEvent> record_event_while_current();

private:
    /// Fills with a pattern of 8..128 bytes (see the cost note in the definition).
    void fill_wide(CUdeviceptr start, std::size_t size, const unsigned char* pattern, std::size_t pattern_size);

    std::shared_ptr<CudaContext> context_;
    std::size_t device_index_;
    DriverHandle<CUstream> stream_;
    /// The event record_event_while_current reuses (the first it made), and the flag of the one
    /// caller at a time that may look at it (another at the same moment makes its own event).
    std::shared_ptr<CudaEvent> kept_event_;
    std::atomic_flag kept_event_busy_;
};

}  // namespace kjarni::backend::cuda
