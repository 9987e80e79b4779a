// CUDA interprocess communication: memory exported with cuIpcGetMemHandle and opened in another
// process with cuIpcOpenMemHandle (closed with cuIpcCloseMemHandle when the last buffer over it
// goes), and interprocess events (CU_EVENT_INTERPROCESS, cuIpcGetEventHandle/cuIpcOpenEventHandle).

#include <cstring>
#include <string>

#include "backend/cuda/cuda_buffer.hpp"
#include "backend/cuda/cuda_context.hpp"
#include "backend/cuda/cuda_error.hpp"
#include "backend/cuda/cuda_queue.hpp"
#include "kjarni/error.hpp"

namespace kjarni::backend::cuda {

namespace {

template <class Handle>
std::vector<std::byte> to_bytes(const Handle& handle) {
    static_assert(sizeof(handle.reserved) == 64);
    std::vector<std::byte> bytes(sizeof(handle.reserved));
    std::memcpy(bytes.data(), handle.reserved, bytes.size());
    return bytes;
}

template <class Handle>
Handle from_bytes(std::span<const std::byte> bytes) {
    Handle handle{};
    if (bytes.size() != sizeof(handle.reserved)) {
        throw ArgumentError("handle", "a CUDA interprocess handle has " + std::to_string(sizeof(handle.reserved)) +
                                          " bytes, not " + std::to_string(bytes.size()));
    }
    std::memcpy(handle.reserved, bytes.data(), bytes.size());
    return handle;
}

}  // namespace

std::vector<std::byte> CudaBuffer::ipc_handle() const {
    if (owner_ != nullptr) {
        throw UnsupportedError("exporting memory: this buffer's memory is not a cuMemAlloc allocation of its own "
                               "(host, managed or opened interprocess memory): cuIpcGetMemHandle cannot export it");
    }
    if (pointer_ == 0) throw UnsupportedError("exporting memory: an empty buffer has no memory to share");
    CurrentContext current(context_->driver(), context_->cu_context(device_index_));
    CUipcMemHandle handle{};
    KJARNI_CU(context_->driver(), IpcGetMemHandle, &handle, pointer_);
    return to_bytes(handle);
}

std::shared_ptr<Buffer> CudaContext::open_ipc_memory(std::size_t device_index, std::span<const std::byte> bytes,
                                                     std::size_t size) {
    const auto handle = from_bytes<CUipcMemHandle>(bytes);
    const CUcontext context = cu_context(device_index);
    CurrentContext current(driver(), context);
    CUdeviceptr pointer = 0;
    // Lazy peer access: the memory may live on another device than the one it is opened on.
    KJARNI_CU(driver(), IpcOpenMemHandle, &pointer, handle,
              static_cast<unsigned int>(CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS));
    const Driver* driver_table = &driver();
    // The mapping is closed when the buffer (the owner's only holder) goes.
    std::shared_ptr<const void> mapping(reinterpret_cast<const void*>(pointer), [driver_table, context](const void* p) {
        try {
            CurrentContext closing(*driver_table, context);
            static_cast<void>(driver_table->IpcCloseMemHandle(reinterpret_cast<CUdeviceptr>(p)));
        } catch (...) {
        }
    });
    // `size` came from the other process with the handle: the mapping must really be that large,
    // or kernels and copies over the buffer would reach past it.
    CUdeviceptr base = 0;
    std::size_t range = 0;
    KJARNI_CU(driver(), MemGetAddressRange, &base, &range, pointer);
    if (base != pointer || range < size) {
        throw ArgumentError("handle", "names an allocation of " + std::to_string(size) +
                                          " bytes, but the memory it "
                                          "opens has " +
                                          std::to_string(range) + " from its start");
    }
    return std::make_shared<CudaBuffer>(std::static_pointer_cast<CudaContext>(shared_from_this()), device_index, size,
                                        pointer, std::move(mapping));
}

std::shared_ptr<Event> CudaContext::create_ipc_event(std::size_t device_index) {
    // cuIpcGetEventHandle requires both flags: an interprocess event cannot time.
    return std::make_shared<CudaEvent>(std::static_pointer_cast<CudaContext>(shared_from_this()), device_index,
                                       static_cast<unsigned int>(CU_EVENT_INTERPROCESS | CU_EVENT_DISABLE_TIMING));
}

std::shared_ptr<Event> CudaContext::open_ipc_event(std::size_t device_index, std::span<const std::byte> bytes) {
    const auto handle = from_bytes<CUipcEventHandle>(bytes);
    CurrentContext current(driver(), cu_context(device_index));
    CUevent event = nullptr;
    KJARNI_CU(driver(), IpcOpenEventHandle, &event, handle);
    return std::make_shared<CudaEvent>(std::static_pointer_cast<CudaContext>(shared_from_this()), device_index, event,
                                       true);
}

std::vector<std::byte> CudaEvent::ipc_handle() const {
    if (!interprocess_) {
        throw UnsupportedError("exporting an event: only an interprocess event (IpcEvent) has a handle");
    }
    CurrentContext current(context_->driver(), context_->cu_context(device_index_));
    CUipcEventHandle handle{};
    KJARNI_CU(context_->driver(), IpcGetEventHandle, &handle, event_);
    return to_bytes(handle);
}

}  // namespace kjarni::backend::cuda
