#pragma once
// The one internal interface every backend implements. The public classes in include/kjarni are
// written once against it; a backend folder (cuda/, opencl/) is the only place its vendor's headers
// are included.
//
// Ownership: an Api object lives for the whole process (never destroyed, so nothing is torn down
// while static destructors run), and owns its Platforms, which own their Devices; those may be held
// by raw pointer or reference. Contexts, Queues, Buffers and Events are reference counted: each
// holds a shared_ptr to the Context it belongs to, so the context outlives them all.
//
// Checking arguments against each other (same context, sizes in range, ...) is the public layer's
// job; a backend may assume what the public layer checks and only reports driver failures, through
// the exceptions of kjarni/error.hpp.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "kjarni/api.hpp"
#include "kjarni/device_parameters.hpp"

namespace kjarni::backend {

class Platform;
class Device;
class Context;
class Queue;
class Buffer;
class Event;

class Api {
public:
    virtual ~Api() = default;
    virtual ApiId id() const = 0;
    /// Empty when the API can be used; otherwise why not ("libcuda.so.1 not found: ...").
    virtual const std::string& unavailable_reason() const = 0;
    /// Driver version, as a human-readable string.
    virtual std::string driver_version() const = 0;
    /// Found once, in the order the driver reports them.
    virtual const std::vector<std::shared_ptr<Platform>>& platforms() const = 0;
    /// Finds the Device object wrapping a native device (CUdevice / cl_device_id); NotFoundError.
    virtual std::shared_ptr<Device> device_from_native(std::uintptr_t native) const = 0;
    /// A context over distinct devices of one platform of this API (checked by the caller).
    virtual std::shared_ptr<Context> create_context(std::span<const std::shared_ptr<Device>> devices) = 0;
    /// A context over native contexts (one CUcontext per device / one cl_context).
    virtual std::shared_ptr<Context> context_from_native(std::span<const std::uintptr_t> natives,
                                                         bool take_ownership) = 0;
};

class Platform {
public:
    virtual ~Platform() = default;
    virtual Api& api() const = 0;
    virtual const std::string& name() const = 0;
    virtual const std::string& vendor() const = 0;
    virtual const std::string& version() const = 0;
    virtual const std::vector<std::shared_ptr<Device>>& devices() const = 0;
    /// cl_platform_id, or 0 for CUDA's one platform.
    virtual std::uintptr_t native_handle() const = 0;
};

class Device {
public:
    virtual ~Device() = default;
    virtual Platform& platform() const = 0;
    virtual const std::string& name() const = 0;
    virtual const DeviceParameters& params() const = 0;
    virtual const DeviceProperties& properties() const = 0;
    virtual const std::vector<DeviceAttribute>& attributes() const = 0;
    /// CUdevice ordinal / cl_device_id.
    virtual std::uintptr_t native_handle() const = 0;
};

class Context : public std::enable_shared_from_this<Context> {
public:
    virtual ~Context() = default;
    virtual Api& api() const = 0;
    /// The devices, in the order the context was created with.
    virtual const std::vector<std::shared_ptr<Device>>& devices() const = 0;
    /// CUcontext of that device / the cl_context.
    virtual std::uintptr_t native_handle(std::size_t device_index) const = 0;
    virtual std::shared_ptr<Queue> create_queue(std::size_t device_index) = 0;
    /// `size` may be 0: the result is then a valid buffer whose native handle is 0.
    /// Throws OutOfMemoryError when the driver reports that.
    virtual std::shared_ptr<Buffer> allocate(std::size_t device_index, std::size_t size) = 0;
    /// Whether device `from` can read and write memory of device `to` directly (peer access).
    virtual bool can_access_peer(std::size_t from, std::size_t to) const = 0;
};

class Buffer {
public:
    virtual ~Buffer() = default;
    virtual std::size_t size() const = 0;
    virtual std::size_t device_index() const = 0;
    /// CUdeviceptr / cl_mem of the whole allocation.
    virtual std::uintptr_t native_handle() const = 0;
};

class Event {
public:
    virtual ~Event() = default;
    virtual void wait() = 0;
    virtual bool is_complete() = 0;
    /// Milliseconds from `earlier` to this event; both of the same context and complete.
    virtual double time_since(Event& earlier) = 0;
};

/// Every transfer takes offsets into whole allocations and a non-zero size (the public layer drops
/// empty transfers and checks bounds). `blocking` = false returns once the work is enqueued.
class Queue {
public:
    virtual ~Queue() = default;
    virtual std::size_t device_index() const = 0;
    virtual void synchronize() = 0;
    virtual std::shared_ptr<Event> record_event() = 0;
    virtual void wait_for(Event& event) = 0;
    virtual void write(Buffer& dst, std::size_t dst_offset, const void* src, std::size_t size,
                       bool blocking) = 0;
    virtual void read(void* dst, Buffer& src, std::size_t src_offset, std::size_t size, bool blocking) = 0;
    /// Buffers may be on different devices of the context (peer copy, or staged by the driver).
    virtual void copy(Buffer& dst, std::size_t dst_offset, Buffer& src, std::size_t src_offset,
                      std::size_t size, bool blocking) = 0;
    /// `pattern_size` is a power of two <= 128 dividing `size` and `offset`.
    virtual void fill(Buffer& dst, std::size_t offset, std::size_t size, const void* pattern,
                      std::size_t pattern_size, bool blocking) = 0;
    /// CUstream / cl_command_queue.
    virtual std::uintptr_t native_handle() const = 0;
};

}  // namespace kjarni::backend
