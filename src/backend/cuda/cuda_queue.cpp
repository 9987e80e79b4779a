#include "backend/cuda/cuda_queue.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "backend/cuda/cuda_buffer.hpp"
#include "backend/cuda/cuda_context.hpp"
#include "backend/cuda/cuda_error.hpp"
#include "backend/cuda/spare_block_allocator.hpp"

namespace kjarni::backend::cuda {

// ---- CudaEvent ---------------------------------------------------------------------------------

CudaEvent::CudaEvent(std::shared_ptr<CudaContext> context, std::size_t device_index, unsigned int flags)
    : context_(std::move(context)), device_index_(device_index), interprocess_((flags & CU_EVENT_INTERPROCESS) != 0) {
    CurrentContext current(context_->driver(), context_->cu_context(device_index_));
    if (flags == CU_EVENT_DEFAULT) {
        event_ = context_->event_pool(device_index_).take();
        pooled_ = true;
        return;
    }
    CUevent event = nullptr;
    KJARNI_CU(context_->driver(), EventCreate, &event, flags);
    owned_ = DriverHandle<CUevent>(context_->driver(), context_->cu_context(device_index_), event);
    event_ = event;
}

CudaEvent::CudaEvent(std::shared_ptr<CudaContext> context, std::size_t device_index, ContextIsCurrent)
    : context_(std::move(context)), device_index_(device_index), event_(context_->event_pool(device_index_).take()),
      pooled_(true) {}

std::shared_ptr<CudaEvent> CudaEvent::make_while_current(const std::shared_ptr<CudaContext>& context,
                                                         std::size_t device_index) {
    return std::allocate_shared<CudaEvent>(SpareBlockAllocator<CudaEvent>{}, context, device_index, ContextIsCurrent{});
}

CudaEvent::CudaEvent(std::shared_ptr<CudaContext> context, std::size_t device_index, CUevent event, bool interprocess)
    : context_(std::move(context)), device_index_(device_index), event_(event),
      owned_(context_->driver(), context_->cu_context(device_index_), event), interprocess_(interprocess) {}

CudaEvent::~CudaEvent() {
    if (pooled_) context_->event_pool(device_index_).give_back(event_);
}

namespace {

unsigned int cu_event_flags(const EventFlags& flags) {
    unsigned int cu_flags = CU_EVENT_DEFAULT;
    if (!flags.timing) cu_flags |= CU_EVENT_DISABLE_TIMING;
    if (flags.blocking_sync) cu_flags |= CU_EVENT_BLOCKING_SYNC;
    return cu_flags;
}

}  // namespace

CudaEvent::CudaEvent(std::shared_ptr<CudaContext> context, std::size_t device_index, const EventFlags& flags)
    : CudaEvent(std::move(context), device_index, cu_event_flags(flags)) {}

void CudaEvent::wait() {
    CurrentContext current(context_->driver(), context_->cu_context(device_index_));
    KJARNI_CU(context_->driver(), EventSynchronize, event_);
}

bool CudaEvent::is_complete() {
    CurrentContext current(context_->driver(), context_->cu_context(device_index_));
    const CUresult result = context_->driver().EventQuery(event_);
    if (result == CUDA_SUCCESS) return true;
    if (result == CUDA_ERROR_NOT_READY) return false;
    throw_cuda_error(context_->driver(), result, "cuEventQuery");
}

double CudaEvent::time_since(Event& earlier) {
    // The public layer checks that both events belong to this context.
    auto& start = static_cast<CudaEvent&>(earlier);
    CurrentContext current(context_->driver(), context_->cu_context(device_index_));
    float milliseconds = 0.0f;
    KJARNI_CU(context_->driver(), EventElapsedTime, &milliseconds, start.event_, event_);
    return static_cast<double>(milliseconds);
}

// ---- CudaQueue ---------------------------------------------------------------------------------

CudaQueue::CudaQueue(std::shared_ptr<CudaContext> context, std::size_t device_index)
    : context_(std::move(context)), device_index_(device_index) {
    CurrentContext current(context_->driver(), context_->cu_context(device_index_));
    // Non-blocking: work in this stream never waits for the legacy default stream, which the CUDA
    // runtime and other libraries in the process may be using.
    CUstream stream = nullptr;
    KJARNI_CU(context_->driver(), StreamCreate, &stream, static_cast<unsigned int>(CU_STREAM_NON_BLOCKING));
    stream_ = DriverHandle<CUstream>(context_->driver(), context_->cu_context(device_index_), stream);
}

CudaQueue::CudaQueue(std::shared_ptr<CudaContext> context, std::size_t device_index, const QueueFlags& flags)
    : context_(std::move(context)), device_index_(device_index) {
    CurrentContext current(context_->driver(), context_->cu_context(device_index_));
    CUstream stream = nullptr;
    KJARNI_CU(context_->driver(), StreamCreateWithPriority, &stream, static_cast<unsigned int>(CU_STREAM_NON_BLOCKING),
              flags.priority);
    stream_ = DriverHandle<CUstream>(context_->driver(), context_->cu_context(device_index_), stream);
}

std::shared_ptr<Event> CudaQueue::record_event_with(const EventFlags& flags) {
    auto event = std::make_shared<CudaEvent>(context_, device_index_, flags);
    CurrentContext current(context_->driver(), context_->cu_context(device_index_));
    KJARNI_CU(context_->driver(), EventRecord, event->event(), stream_.get());
    return event;
}

bool CudaQueue::is_done() {
    CurrentContext current(context_->driver(), context_->cu_context(device_index_));
    const CUresult result = context_->driver().StreamQuery(stream_.get());
    if (result == CUDA_SUCCESS) return true;
    if (result == CUDA_ERROR_NOT_READY) return false;
    throw_cuda_error(context_->driver(), result, "cuStreamQuery");
}

void CudaQueue::synchronize() {
    CurrentContext current(context_->driver(), context_->cu_context(device_index_));
    KJARNI_CU(context_->driver(), StreamSynchronize, stream_.get());
}

std::shared_ptr<Event> CudaQueue::record_event() {
    CurrentContext current(context_->driver(), context_->cu_context(device_index_));
    return record_event_while_current();
}

std::shared_ptr<CudaEvent> CudaQueue::record_event_while_current() {
    std::shared_ptr<CudaEvent> event;
    if (!kept_event_busy_.test_and_set(std::memory_order_acquire)) {
        // Only this caller reads or copies kept_event_ now, so a use count of 1 (the queue's own)
        // stays 1 until the copy below: nobody else can see the event to be recorded again.
        if (kept_event_ == nullptr) {
            try {
                kept_event_ = CudaEvent::make_while_current(context_, device_index_);
            } catch (...) {
                kept_event_busy_.clear(std::memory_order_release);
                throw;
            }
            event = kept_event_;
        } else if (kept_event_.use_count() == 1) {
            // The count is read relaxed: the fence puts this after the last other holder's release
            // (its waits and queries of the event).
            std::atomic_thread_fence(std::memory_order_acquire);
            event = kept_event_;
        }
        kept_event_busy_.clear(std::memory_order_release);
    }
    if (event == nullptr) event = CudaEvent::make_while_current(context_, device_index_);
    KJARNI_CU(context_->driver(), EventRecord, event->event(), stream_.get());
    return event;
}

void CudaQueue::record(Event& event) {
    // The public layer passes only events of this context (CudaEvents).
    CurrentContext current(context_->driver(), context_->cu_context(device_index_));
    KJARNI_CU(context_->driver(), EventRecord, static_cast<CudaEvent&>(event).event(), stream_.get());
}

void CudaQueue::wait_for(Event& event) {
    // The event may come from another device of the context: streams can wait on those.
    auto& cuda_event = static_cast<CudaEvent&>(event);
    CurrentContext current(context_->driver(), context_->cu_context(device_index_));
    KJARNI_CU(context_->driver(), StreamWaitEvent, stream_.get(), cuda_event.event(), 0u);
}

void CudaQueue::write(Buffer& dst, std::size_t dst_offset, const void* src, std::size_t size, bool blocking) {
    auto& buffer = static_cast<CudaBuffer&>(dst);
    const Driver& driver = context_->driver();
    CurrentContext current(driver, context_->cu_context(device_index_));
    // Non-blocking: `src` must stay untouched until the queue passes this point (the public layer
    // documents that rule); the driver may also copy pageable memory before returning.
    KJARNI_CU(driver, MemcpyHtoDAsync, buffer.at(dst_offset), src, size, stream_.get());
    if (blocking) KJARNI_CU(driver, StreamSynchronize, stream_.get());
}

void CudaQueue::read(void* dst, Buffer& src, std::size_t src_offset, std::size_t size, bool blocking) {
    auto& buffer = static_cast<CudaBuffer&>(src);
    const Driver& driver = context_->driver();
    CurrentContext current(driver, context_->cu_context(device_index_));
    KJARNI_CU(driver, MemcpyDtoHAsync, dst, buffer.at(src_offset), size, stream_.get());
    if (blocking) KJARNI_CU(driver, StreamSynchronize, stream_.get());
}

void CudaQueue::copy(Buffer& dst, std::size_t dst_offset, Buffer& src, std::size_t src_offset, std::size_t size,
                     bool blocking) {
    auto& to = static_cast<CudaBuffer&>(dst);
    auto& from = static_cast<CudaBuffer&>(src);
    const Driver& driver = context_->driver();
    CurrentContext current(driver, context_->cu_context(device_index_));
    if (to.device_index() == from.device_index()) {
        KJARNI_CU(driver, MemcpyDtoDAsync, to.at(dst_offset), from.at(src_offset), size, stream_.get());
    } else {
        // Between devices: direct over NVLink/PCIe when peer access is on, else staged by the driver.
        KJARNI_CU(driver, MemcpyPeerAsync, to.at(dst_offset), context_->cu_context(to.device_index()),
                  from.at(src_offset), context_->cu_context(from.device_index()), size, stream_.get());
    }
    if (blocking) KJARNI_CU(driver, StreamSynchronize, stream_.get());
}

void CudaQueue::fill(Buffer& dst, std::size_t offset, std::size_t size, const void* pattern, std::size_t pattern_size,
                     bool blocking) {
    auto& buffer = static_cast<CudaBuffer&>(dst);
    const auto* bytes = static_cast<const unsigned char*>(pattern);
    // A pattern made of two equal halves is its half repeated: eight zero bytes become a memset of
    // 32-bit zeros. The smaller pattern still divides `size` and `offset`.
    while (pattern_size > 1 && std::memcmp(bytes, bytes + pattern_size / 2, pattern_size / 2) == 0) {
        pattern_size /= 2;
    }
    // cuMemAlloc's allocations are aligned to at least 256 bytes and `offset` is a multiple of the
    // pattern, so `start` is aligned to it (up to 128) and the 16/32-bit memsets apply.
    const CUdeviceptr start = buffer.at(offset);
    const Driver& driver = context_->driver();
    CurrentContext current(driver, context_->cu_context(device_index_));
    // The values are passed to the memsets by value, so nothing of `pattern` is read after return.
    switch (pattern_size) {
    case 1: KJARNI_CU(driver, MemsetD8Async, start, bytes[0], size, stream_.get()); break;
    case 2: {
        std::uint16_t value = 0;
        std::memcpy(&value, bytes, sizeof value);
        KJARNI_CU(driver, MemsetD16Async, start, value, size / 2, stream_.get());
        break;
    }
    case 4: {
        std::uint32_t value = 0;
        std::memcpy(&value, bytes, sizeof value);
        KJARNI_CU(driver, MemsetD32Async, start, value, size / 4, stream_.get());
        break;
    }
    default: fill_wide(start, size, bytes, pattern_size); break;
    }
    if (blocking) KJARNI_CU(driver, StreamSynchronize, stream_.get());
}

// The driver has no memset wider than 32 bits. A pattern of 8..128 bytes is written in two steps,
// all in the stream and without host memory that would have to outlive the call:
//  1. a seed block of up to 4 KiB: for each 32-bit word of the pattern, one strided 2D memset
//     (pitch = pattern size, width = one word) writes that word into every pattern-sized row;
//  2. the filled part is doubled with device-to-device copies (seed, 2x, 4x, ...) until the region
//     is full.
// Cost: pattern_size / 4 small memsets plus log2(size / 4 KiB) copies that move about `size` bytes
// in all (each byte written once, read at most once): roughly twice the memory traffic of a plain
// memset, and up to ~32 + log2(size / 4 KiB) enqueued operations for a 128-byte pattern.
void CudaQueue::fill_wide(CUdeviceptr start, std::size_t size, const unsigned char* pattern, std::size_t pattern_size) {
    constexpr std::size_t seed_bytes = 4096;
    const Driver& driver = context_->driver();
    const std::size_t rows = size / pattern_size;
    const std::size_t seed_rows = std::min(rows, std::max<std::size_t>(1, seed_bytes / pattern_size));
    for (std::size_t word = 0; word < pattern_size / 4; ++word) {
        std::uint32_t value = 0;
        std::memcpy(&value, pattern + word * 4, sizeof value);
        KJARNI_CU(driver, MemsetD2D32Async, start + word * 4, pattern_size, value, std::size_t{1}, seed_rows,
                  stream_.get());
    }
    std::size_t filled = seed_rows * pattern_size;
    while (filled < size) {
        // Source and destination never overlap, and the stream orders each copy after the last.
        const std::size_t chunk = std::min(filled, size - filled);
        KJARNI_CU(driver, MemcpyDtoDAsync, start + filled, start, chunk, stream_.get());
        filled += chunk;
    }
}

}  // namespace kjarni::backend::cuda
