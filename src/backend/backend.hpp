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

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "kjarni/api.hpp"
#include "kjarni/detail/kernel_arg.hpp"
#include "kjarni/device_parameters.hpp"
#include "kjarni/kernel_attributes.hpp"

namespace kjarni::backend {

class Platform;
class Device;
class Context;
class Queue;
class Buffer;
class Event;
class Module;
class Kernel;
class HostAllocation;
class ManagedAllocation;

/// Page-locked host memory options (the public kjarni::HostMemoryFlags, repeated here so that the
/// backends need not include the public header).
struct HostAllocationFlags {
    bool portable = false;        // usable by every context / device (CUDA: CU_MEMHOSTALLOC_PORTABLE)
    bool mapped = false;          // addressable by kernels (CUDA: CU_MEMHOSTALLOC_DEVICEMAP)
    bool write_combined = false;  // CUDA: CU_MEMHOSTALLOC_WRITECOMBINED; UnsupportedError on OpenCL
};

/// Managed memory (CUDA) / shared virtual memory (OpenCL) options, decided by the public layer
/// from the devices' capabilities (kjarni/managed_memory.hpp).
struct ManagedAllocationFlags {
    bool attach_host = false;  // CUDA: CU_MEM_ATTACH_HOST instead of CU_MEM_ATTACH_GLOBAL
    bool fine_grain = false;   // OpenCL: CL_MEM_SVM_FINE_GRAIN_BUFFER (else coarse-grained)
    bool atomics = false;      // OpenCL: CL_MEM_SVM_ATOMICS (fine-grained only)
};

/// How to compile a program for one device. The source is complete (prelude included).
struct BuildOptions {
    bool fast_math = false;
    /// Passed to the compiler verbatim, after kjarni's own options.
    std::vector<std::string> compiler_options;
    std::vector<std::string> include_dirs;
    /// When set, the backend writes its intermediate files (source, log, binary, PTX where there
    /// is one) into this existing directory and leaves them there.
    std::optional<std::filesystem::path> keep_dir;
};

struct BuildOutput {
    std::shared_ptr<Module> module;
    /// What load() accepts to recreate the module without compiling (cubin / OpenCL program
    /// binary); empty if the backend cannot give one (then nothing is cached on disk).
    std::vector<std::byte> binary;
    /// The compiler's log, warnings included (may be empty).
    std::string log;
};

/// One kernel parameter as the compiled kernel declares it, as far as the API can tell.
struct ParamInfo {
    enum class Kind : std::uint8_t {
        global_pointer,  // a buffer argument (OpenCL __global/__constant pointer)
        local_pointer,   // OpenCL __local pointer (its size is given at launch)
        scalar,          // passed by value
        unknown,         // CUDA cannot tell a pointer from an 8-byte scalar: size only
    };
    Kind kind = Kind::unknown;
    /// Bytes passed; 0 when the API does not say.
    std::size_t size = 0;
    /// Type and parameter names where the API reports them (OpenCL with -cl-kernel-arg-info).
    std::string type_name;
    std::string name;
};

using KernelAttributes = kjarni::KernelAttributes;

/// One launch argument, packed by the public layer without allocating.
using KernelArg = kjarni::detail::KernelArg;

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
    /// Page-locked host memory of `size` > 0 bytes. Throws UnsupportedError for flags the API cannot
    /// express, OutOfMemoryError when the driver reports that.
    virtual std::shared_ptr<HostAllocation> allocate_host(std::size_t size, HostAllocationFlags flags) = 0;
    /// Whether device `from` can read and write memory of device `to` directly (peer access).
    virtual bool can_access_peer(std::size_t from, std::size_t to) const = 0;
    /// Managed / shared virtual memory of `size` > 0 bytes, allocated for (CUDA: in the context of)
    /// device `device_index`; the public layer has checked the capabilities and the free memory.
    /// The default throws UnsupportedError (src/backend/managed_memory_backend.cpp).
    virtual std::shared_ptr<ManagedAllocation> allocate_managed(std::size_t device_index, std::size_t size,
                                                                ManagedAllocationFlags flags);
    /// Memory allocated elsewhere (a CUdeviceptr from CuPy, PyTorch, ... in this context's device
    /// `device_index`), `size` bytes, never freed here; `owner` is kept alive as long as the buffer.
    /// The default throws UnsupportedError (src/backend/managed_memory_backend.cpp).
    virtual std::shared_ptr<Buffer> wrap_native(std::size_t device_index, std::uintptr_t handle, std::size_t size,
                                                std::shared_ptr<const void> owner);
    /// Bytes free on the device right now where the API can tell (CUDA cuMemGetInfo, OpenCL
    /// CL_DEVICE_GLOBAL_FREE_MEMORY_AMD); nullopt where it cannot.
    virtual std::optional<std::uint64_t> free_memory(std::size_t /*device_index*/) const { return std::nullopt; }

    /// Compiles a complete source for one device. Throws CompileError with the log on failure.
    virtual BuildOutput build(std::size_t device_index, const std::string& source, const BuildOptions& options) = 0;
    /// Recreates a module from BuildOutput::binary (e.g. from the disk cache). Throws Error if the
    /// binary is refused; the caller then compiles from source.
    virtual std::shared_ptr<Module> load(std::size_t device_index, std::span<const std::byte> binary,
                                         const BuildOptions& options) = 0;
    /// Everything besides source and options that changes what build() produces for this device
    /// (device name and architecture, driver and compiler versions): part of the cache key.
    virtual std::string compiler_identity(std::size_t device_index) const = 0;
};

/// A program compiled for one device.
class Module {
public:
    virtual ~Module() = default;
    virtual std::size_t device_index() const = 0;
    /// nullptr when the module has no kernel of that name.
    virtual std::shared_ptr<Kernel> kernel(const std::string& name) = 0;
    virtual std::vector<std::string> kernel_names() const = 0;
    /// Size in bytes of a program-scope constant (CUDA __constant__), or nullopt if there is none
    /// of that name. UnsupportedError where the API cannot address them (OpenCL).
    virtual std::optional<std::size_t> constant_size(const std::string& name) = 0;
    /// Copies `size` bytes (the caller checked them against constant_size) into the constant,
    /// from host memory or from a buffer region, in queue order.
    virtual void set_constant(Queue& queue, const std::string& name, const void* host, std::size_t size) = 0;
    virtual void set_constant(Queue& queue, const std::string& name, Buffer& source, std::size_t source_offset,
                              std::size_t size) = 0;
};

/// A kernel of a module. Launching is the hot path: launch() must not allocate for up to 64
/// arguments, nor look anything up by name.
class Kernel {
public:
    virtual ~Kernel() = default;
    virtual const KernelAttributes& attributes() const = 0;
    /// The declared parameters, in order; empty when the API cannot report them (the count is then
    /// unknown too).
    virtual const std::vector<ParamInfo>& params() const = 0;
    /// CUfunction / cl_kernel.
    virtual std::uintptr_t native_handle() const = 0;
    /// Sizes in work items (OpenCL semantics: global is the total, a multiple of local, checked by
    /// the caller), `dims` in 1..3. With `want_event`, returns an event marking the launch's end.
    virtual std::shared_ptr<Event> launch(Queue& queue, unsigned dims, const std::size_t* global_size,
                                          const std::size_t* local_size, std::size_t dynamic_local_mem,
                                          std::span<const KernelArg> args, bool want_event) = 0;
};

class Buffer {
public:
    virtual ~Buffer() = default;
    virtual std::size_t size() const = 0;
    virtual std::size_t device_index() const = 0;
    /// CUdeviceptr / cl_mem of the whole allocation.
    virtual std::uintptr_t native_handle() const = 0;
};

/// Page-locked host memory, freed when the last reference goes (it holds its Context). Buffers
/// made by device_buffer() keep it alive.
class HostAllocation : public std::enable_shared_from_this<HostAllocation> {
public:
    virtual ~HostAllocation() = default;
    virtual void* host_pointer() const = 0;
    virtual std::size_t size() const = 0;
    virtual HostAllocationFlags flags() const = 0;
    /// The memory as a buffer kernels on the context's device `device_index` can use (mapped
    /// allocations only; the caller checks `flags().mapped`).
    virtual std::shared_ptr<Buffer> device_buffer(std::size_t device_index) = 0;
};

/// Managed (CUDA) / shared virtual (OpenCL SVM) memory: one address valid on the host and in
/// kernels of every device of the context. Freed when the last reference goes (it holds its Context).
class ManagedAllocation : public std::enable_shared_from_this<ManagedAllocation> {
public:
    virtual ~ManagedAllocation() = default;
    /// The address, for the host and for kernels alike.
    virtual void* pointer() const = 0;
    virtual std::size_t size() const = 0;
    virtual ManagedAllocationFlags flags() const = 0;
    /// Starts host access to bytes [offset, offset + size): returns once the host may touch them
    /// (OpenCL: a blocking clEnqueueSVMMap; CUDA: the queue, or with `whole_context` every device
    /// of the context, synchronized).
    virtual void begin_host_access(Queue& queue, std::size_t offset, std::size_t size, bool read, bool write,
                                   bool whole_context) = 0;
    /// Ends it (OpenCL: clEnqueueSVMUnmap, waited for; CUDA: nothing).
    virtual void end_host_access(Queue& queue, std::size_t offset) = 0;
    /// Migrates bytes [offset, offset + size) to the queue's device, or to the host, in queue
    /// order. UnsupportedError where the driver cannot.
    virtual void prefetch(Queue& queue, std::size_t offset, std::size_t size, bool to_host) = 0;
    /// CUDA: cuStreamAttachMemAsync on the queue's stream with CU_MEM_ATTACH_GLOBAL / HOST /
    /// SINGLE (attach: 0, 1, 2). UnsupportedError where the API has no such notion (OpenCL).
    virtual void attach(Queue& queue, int attach) = 0;
    /// The memory as a Buffer of device `device_index` (CUDA: the managed address; OpenCL: a
    /// CL_MEM_USE_HOST_PTR buffer over the SVM allocation). The caller keeps this allocation alive
    /// as long as the buffer.
    virtual std::shared_ptr<Buffer> device_buffer(std::size_t device_index) = 0;

    /// Host access scopes open on the memory during which no kernel may use it (coarse-grained
    /// SVM; CUDA without concurrent access): kept by the public layer, which refuses such launches.
    std::atomic<int> exclusive_host_scopes{0};
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
