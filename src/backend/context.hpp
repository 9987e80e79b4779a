#pragma once
// A backend context: devices of one platform sharing memory, and the services it provides, each
// an interface of its own header that a backend implements in files of the same job:
//   ContextMemory (memory_service.hpp)     buffers, host, managed, foreign and pitched memory
//   ContextQueues (queue_service.hpp)      queues, waiting for the whole context
//   ContextPeers (peer_service.hpp)        peer access within and across contexts
//   ContextIpc (ipc_service.hpp)           memory and events of other processes
//   ContextImages (image_service.hpp)      images and the formats the devices hold
//   ContextPrograms (program_service.hpp)  compiling, loading and linking modules
//   ContextSettings (settings_service.hpp) driver limits, cache preference, profiler
// Callers that need one service may take it alone (ContextPrograms&, ...); a Context is all of them.

#include <cstddef>
#include <cstdint>
#include <memory>

#include "backend/image_service.hpp"
#include "backend/ipc_service.hpp"
#include "backend/memory_service.hpp"
#include "backend/peer_service.hpp"
#include "backend/program_service.hpp"
#include "backend/queue_service.hpp"
#include "backend/settings_service.hpp"

namespace kjarni::backend {

/// A device's native context made current on the calling thread, for as long as the object lives;
/// then the one that was current before is current again. For vendor libraries that take their
/// device from the thread's current context (NCCL), so that their callers name no backend.
class CurrentScope {
public:
    virtual ~CurrentScope() = default;
};

class Context : public std::enable_shared_from_this<Context>,
                public ContextMemory,
                public ContextQueues,
                public ContextPeers,
                public ContextIpc,
                public ContextImages,
                public ContextPrograms,
                public ContextSettings {
public:
    ~Context() override = default;
    /// CUcontext of that device / the cl_context.
    virtual std::uintptr_t native_handle(std::size_t device_index) const = 0;
    /// Makes that device's native context current on the calling thread until the scope goes
    /// (CUDA: cuCtxSetCurrent, undone afterwards); throws BackendError if it cannot. nullptr where
    /// the API has no current context (OpenCL): there is nothing to do.
    virtual std::unique_ptr<CurrentScope> make_current(std::size_t /*device_index*/) const { return nullptr; }
};

}  // namespace kjarni::backend
