#include "backend/opencl/opencl_queue.hpp"

#include <chrono>
#include <thread>

#include "backend/opencl/opencl_error.hpp"
#include "backend/opencl/opencl_platform.hpp"

namespace kjarni::backend::opencl {

OpenClEvent::OpenClEvent(std::shared_ptr<OpenClContext> context, Handle<cl_event> event)
    : context_(std::move(context)), event_(std::move(event)) {}

void OpenClEvent::wait() {
    const cl_event event = event_.get();
    check(cl().clWaitForEvents(1, &event), "clWaitForEvents");
}

bool OpenClEvent::is_complete() {
    cl_int status = CL_QUEUED;
    check(cl().clGetEventInfo(event_.get(), CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, nullptr),
          "clGetEventInfo");
    // A negative status is the error that aborted the command.
    if (status < 0) throw_error(status, "clGetEventInfo(CL_EVENT_COMMAND_EXECUTION_STATUS)");
    return status == CL_COMPLETE;
}

cl_ulong OpenClEvent::end_time_ns() {
    cl_ulong t = 0;
    check(cl().clGetEventProfilingInfo(event_.get(), CL_PROFILING_COMMAND_END, sizeof t, &t, nullptr),
          "clGetEventProfilingInfo");
    return t;
}

double OpenClEvent::time_since(Event& earlier) {
    const auto start = static_cast<OpenClEvent&>(earlier).end_time_ns();
    const auto end = end_time_ns();
    // Signed: "since" a later event is negative, as with cuEventElapsedTime.
    return (static_cast<double>(end) - static_cast<double>(start)) * 1e-6;
}

OpenClQueue::OpenClQueue(std::shared_ptr<OpenClContext> context, std::size_t device_index)
    : context_(std::move(context)), device_index_(device_index) {
    cl_int status = CL_SUCCESS;
    const cl_device_id device = context_->device_id(device_index);
    const auto& platform = static_cast<const OpenClPlatform&>(context_->devices()[device_index]->platform());
    if (platform.version_number() >= 200 && cl().clCreateCommandQueueWithProperties != nullptr) {
        const cl_queue_properties properties[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_PROFILING_ENABLE, 0};
        queue_.reset(cl().clCreateCommandQueueWithProperties(context_->handle(), device, properties, &status));
        check(status, "clCreateCommandQueueWithProperties");
    } else {
        queue_.reset(cl().clCreateCommandQueue(context_->handle(), device, CL_QUEUE_PROFILING_ENABLE, &status));
        check(status, "clCreateCommandQueue");
    }
}

OpenClQueue::~OpenClQueue() {
    // Work still queued must finish before its buffers may go (they hold references, but the
    // queue's own release does not wait).
    if (queue_) cl().clFinish(queue_.get());
}

void OpenClQueue::synchronize() { check(cl().clFinish(queue_.get()), "clFinish"); }

void OpenClQueue::finish_if(bool blocking) {
    if (blocking) {
        synchronize();
    } else {
        // Submit now: otherwise a driver may hold the commands until the next flush, and a host
        // thread polling an event would wait forever.
        check(cl().clFlush(queue_.get()), "clFlush");
    }
}

std::shared_ptr<Event> OpenClQueue::record_event() {
    cl_event event = nullptr;
    check(cl().clEnqueueMarkerWithWaitList(queue_.get(), 0, nullptr, &event), "clEnqueueMarkerWithWaitList");
    auto result = std::make_shared<OpenClEvent>(context_, Handle<cl_event>(event));
    check(cl().clFlush(queue_.get()), "clFlush");
    return result;
}

bool OpenClQueue::is_done() {
    constexpr auto idle_answer_wait = std::chrono::milliseconds(2);
    const std::shared_ptr<Event> marker = record_event();
    const auto give_up = std::chrono::steady_clock::now() + idle_answer_wait;
    while (!marker->is_complete()) {
        if (std::chrono::steady_clock::now() >= give_up) return false;
        std::this_thread::yield();
    }
    return true;
}

void OpenClQueue::wait_for(Event& event) {
    const cl_event handle = static_cast<OpenClEvent&>(event).handle();
    check(cl().clEnqueueBarrierWithWaitList(queue_.get(), 1, &handle, nullptr), "clEnqueueBarrierWithWaitList");
}

void OpenClQueue::write(Buffer& dst, std::size_t dst_offset, const void* src, std::size_t size, bool blocking) {
    check(cl().clEnqueueWriteBuffer(queue_.get(), mem_of(dst), blocking ? CL_TRUE : CL_FALSE, dst_offset, size, src, 0,
                                    nullptr, nullptr),
          "clEnqueueWriteBuffer");
    if (!blocking) finish_if(false);
}

void OpenClQueue::read(void* dst, Buffer& src, std::size_t src_offset, std::size_t size, bool blocking) {
    check(cl().clEnqueueReadBuffer(queue_.get(), mem_of(src), blocking ? CL_TRUE : CL_FALSE, src_offset, size, dst, 0,
                                   nullptr, nullptr),
          "clEnqueueReadBuffer");
    if (!blocking) finish_if(false);
}

cl_kernel OpenClQueue::copy_kernel() {
    if (!copy_kernel_tried_) {
        copy_kernel_tried_ = true;
        copy_kernel_ = context_->copy_kernel_programs().kernel(*context_, device_index_);
    }
    return copy_kernel_.get();
}

void OpenClQueue::copy(Buffer& dst, std::size_t dst_offset, Buffer& src, std::size_t src_offset, std::size_t size,
                       bool blocking) {
    const Device& device = *context_->devices()[device_index_];
    if (copy_by_kernel(device, size, dst_offset, src_offset)) {
        const std::lock_guard lock(copy_mutex_);
        if (cl_kernel kernel = copy_kernel()) {
            enqueue_copy_kernel(device, queue_.get(), kernel, copy_arguments_, static_cast<OpenClBuffer&>(dst),
                                dst_offset, static_cast<OpenClBuffer&>(src), src_offset, size);
            finish_if(blocking);
            return;
        }
    }
    check(cl().clEnqueueCopyBuffer(queue_.get(), mem_of(src), mem_of(dst), src_offset, dst_offset, size, 0, nullptr,
                                   nullptr),
          "clEnqueueCopyBuffer");
    finish_if(blocking);
}

void OpenClQueue::fill(Buffer& dst, std::size_t offset, std::size_t size, const void* pattern, std::size_t pattern_size,
                       bool blocking) {
    // clEnqueueFillBuffer copies the pattern when it is enqueued, so the caller's may go at once.
    check(cl().clEnqueueFillBuffer(queue_.get(), mem_of(dst), pattern, pattern_size, offset, size, 0, nullptr, nullptr),
          "clEnqueueFillBuffer");
    finish_if(blocking);
}

}  // namespace kjarni::backend::opencl
