#pragma once
// Interprocess communication of a backend context (CUDA IPC): memory and events another process
// exported (Buffer::ipc_handle, Event::ipc_handle). Each default throws UnsupportedError
// (ipc_service.cpp).

#include <cstddef>
#include <memory>
#include <span>

#include "backend/context_service.hpp"

namespace kjarni::backend {

class ContextIpc : public virtual ContextService {
public:
    /// Opens memory another process exported (Buffer::ipc_handle's driver bytes) as a buffer of
    /// `size` bytes on device `device_index`; the mapping is closed when the buffer goes.
    virtual std::shared_ptr<Buffer> open_ipc_memory(std::size_t device_index, std::span<const std::byte> handle,
                                                    std::size_t size);
    /// An event other processes can open (no timing), unrecorded.
    virtual std::shared_ptr<Event> create_ipc_event(std::size_t device_index);
    /// Opens an event another process exported (Event::ipc_handle's bytes).
    virtual std::shared_ptr<Event> open_ipc_event(std::size_t device_index, std::span<const std::byte> handle);
};

}  // namespace kjarni::backend
