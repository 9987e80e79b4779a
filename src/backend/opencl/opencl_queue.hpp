#pragma once

#include <mutex>
#include "backend/backend.hpp"

#include "backend/opencl/opencl_context.hpp"
#include "backend/opencl/opencl_copy_kernel.hpp"

namespace kjarni::backend::opencl {

class OpenClEvent final : public Event {
public:
    OpenClEvent(std::shared_ptr<OpenClContext> context, Handle<cl_event> event);
    OpenClEvent(const OpenClEvent&) = delete;
    OpenClEvent& operator=(const OpenClEvent&) = delete;

    void wait() override;
    bool is_complete() override;
    double time_since(Event& earlier) override;
    cl_event handle() const noexcept { return event_.get(); }

private:
    cl_ulong end_time_ns();
    std::shared_ptr<OpenClContext> context_;
    Handle<cl_event> event_;
};

/// An in-order command queue with profiling on (events need it for timing).
class OpenClQueue final : public Queue {
public:
    OpenClQueue(std::shared_ptr<OpenClContext> context, std::size_t device_index);
    ~OpenClQueue() override;
    OpenClQueue(const OpenClQueue&) = delete;
    OpenClQueue& operator=(const OpenClQueue&) = delete;

    std::size_t device_index() const override { return device_index_; }
    void synchronize() override;
    std::shared_ptr<Event> record_event() override;
    /// OpenCL cannot ask a queue whether it is idle: a marker is enqueued, flushed and watched for
    /// at most idle_answer_wait. NVIDIA's driver takes tens of microseconds to complete a marker on
    /// an idle queue, so without the wait a queue that is done would read as busy.
    bool is_done() override;
    void wait_for(Event& event) override;
    void write(Buffer& dst, std::size_t dst_offset, const void* src, std::size_t size, bool blocking) override;
    void read(void* dst, Buffer& src, std::size_t src_offset, std::size_t size, bool blocking) override;
    void copy(Buffer& dst, std::size_t dst_offset, Buffer& src, std::size_t src_offset, std::size_t size,
              bool blocking) override;
    void fill(Buffer& dst, std::size_t offset, std::size_t size, const void* pattern, std::size_t pattern_size,
              bool blocking) override;
    std::uintptr_t native_handle() const override { return reinterpret_cast<std::uintptr_t>(queue_.get()); }
    cl_command_queue handle() const noexcept { return queue_.get(); }

    // Pitched transfers (opencl_rect_copy.cpp): clEnqueue{Read,Write,Copy}BufferRect; a 2-D fill is
    // one clEnqueueFillBuffer of the first row, doubled by rectangular copies.
    void fill_2d(Buffer& dst, std::size_t offset, std::size_t pitch, std::size_t width, std::size_t height,
                 const void* pattern, std::size_t pattern_size, bool blocking) override;
    void write_rect(Buffer& dst, const RectLayout& dst_layout, const void* src, const RectLayout& src_layout,
                    const RectExtent& extent, bool blocking) override;
    void read_rect(void* dst, const RectLayout& dst_layout, Buffer& src, const RectLayout& src_layout,
                   const RectExtent& extent, bool blocking) override;
    void copy_rect(Buffer& dst, const RectLayout& dst_layout, Buffer& src, const RectLayout& src_layout,
                   const RectExtent& extent, bool blocking) override;

private:
    void finish_if(bool blocking);
    /// This queue's copy kernel (opencl_copy_kernel.hpp); null until the first copy that takes it,
    /// and after it where the program could not be built.
    cl_kernel copy_kernel();
    std::shared_ptr<OpenClContext> context_;
    std::size_t device_index_;
    Handle<cl_command_queue> queue_;
    std::mutex copy_mutex_;  // the copy kernel's arguments: set and enqueued by one thread at a time
    bool copy_kernel_tried_ = false;
    Handle<cl_kernel> copy_kernel_;
    CopyKernelArguments copy_arguments_;  // what copy_kernel_ was last given
};

}  // namespace kjarni::backend::opencl
