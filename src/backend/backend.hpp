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
#include <utility>
#include <vector>

#include "kjarni/api_id.hpp"
#include "kjarni/detail/kernel_arg.hpp"
#include "kjarni/context_options.hpp"
#include "kjarni/device_parameters.hpp"
#include "kjarni/image.hpp"
#include "kjarni/kernel_attributes.hpp"
#include "kjarni/rect_layout.hpp"

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
class Image;
class ImageSampler;

/// Page-locked host memory options (the public kjarni::HostMemoryFlags, repeated here so that the
/// backends need not include the public header).
struct HostAllocationFlags {
    bool portable = false;        // usable by every context / device (CUDA: CU_MEMHOSTALLOC_PORTABLE)
    bool mapped = false;          // addressable by kernels (CUDA: CU_MEMHOSTALLOC_DEVICEMAP)
    bool write_combined = false;  // CUDA: CU_MEMHOSTALLOC_WRITECOMBINED; UnsupportedError on OpenCL
};

/// Memory flags of a device buffer (the public kjarni::BufferFlags, and the initial contents of
/// Buffer::allocate_copy).
struct BufferAllocationFlags {
    bool read_only = false;           // OpenCL CL_MEM_READ_ONLY
    bool write_only = false;          // OpenCL CL_MEM_WRITE_ONLY
    bool alloc_host_pointer = false;  // OpenCL CL_MEM_ALLOC_HOST_PTR
    const void* copy_from = nullptr;  // OpenCL CL_MEM_COPY_HOST_PTR: `size` bytes to start with
};
/// What allocate_flagged made: the buffer, and whether it already holds copy_from's bytes.
struct FlaggedAllocation {
    std::shared_ptr<Buffer> buffer;
    bool copied = false;
};

/// Managed memory (CUDA) / shared virtual memory (OpenCL) options, decided by the public layer
/// from the devices' capabilities (kjarni/managed_memory.hpp).
struct ManagedAllocationFlags {
    bool attach_host = false;  // CUDA: CU_MEM_ATTACH_HOST instead of CU_MEM_ATTACH_GLOBAL
    bool fine_grain = false;   // OpenCL: CL_MEM_SVM_FINE_GRAIN_BUFFER (else coarse-grained)
    bool atomics = false;      // OpenCL: CL_MEM_SVM_ATOMICS (fine-grained only)
    std::size_t alignment = 0;  // OpenCL: clSVMAlloc's alignment (0: the default); CUDA: ignored
};

/// How to compile a program for one device. The source is complete (prelude included).
/// How a queue is made (the public QueueOptions) and how an event is recorded (EventFlags).
struct QueueFlags {
    int priority = 0;  // CUDA stream priority: lower is more urgent; 0 the default
};
struct EventFlags {
    bool timing = true;          // CUDA: without it CU_EVENT_DISABLE_TIMING
    bool blocking_sync = false;  // CUDA: CU_EVENT_BLOCKING_SYNC (the waiting thread sleeps)
};

/// How an API's contexts are made (the CUDA part of the public ContextOptions; the rest is the
/// public layer's). All false / default: what create_context makes.
struct ContextFlags {
    bool own_contexts = false;  // CUDA: cuCtxCreate instead of the primary contexts
    Scheduling scheduling = Scheduling::automatic;
    bool map_host = false;
    bool lmem_resize_to_max = false;
    SharedMemoryBanks shared_memory_banks = SharedMemoryBanks::default_size;

    /// Whether any flag asks for more than create_context gives (own_contexts aside).
    bool has_cuda_settings() const noexcept {
        return scheduling != Scheduling::automatic || map_host || lmem_resize_to_max ||
               shared_memory_banks != SharedMemoryBanks::default_size;
    }
};

using JitReport = kjarni::JitReport;
using JitOptions = kjarni::JitOptions;

/// Settable kernel attributes (the public kjarni::KernelAttribute).
using KernelAttributeId = kjarni::KernelAttribute;

using ContextLimit = kjarni::ContextLimit;
using CachePreference = kjarni::CachePreference;

struct BuildOptions {
    bool fast_math = false;
    /// Passed to the compiler verbatim, after kjarni's own options.
    std::vector<std::string> compiler_options;
    std::vector<std::string> include_dirs;
    /// When set, the backend writes its intermediate files (source, log, binary, PTX where there
    /// is one) into this existing directory and leaves them there.
    std::optional<std::filesystem::path> keep_dir;
    /// CUDA: the architecture to compile for, "sm_XY" (a cubin) or "compute_XY" (PTX the driver
    /// compiles when loading); empty: the device's own. UnsupportedError elsewhere.
    std::string cuda_arch;
    /// CUDA, when loading PTX (Context::load): the driver's JIT options (CU_JIT_MAX_REGISTERS,
    /// CU_JIT_OPTIMIZATION_LEVEL). UnsupportedError elsewhere.
    std::optional<unsigned> jit_max_registers;
    std::optional<unsigned> jit_optimization_level;
    /// The rest of the JIT options (the public JitOptions; CUDA only).
    JitOptions jit;

    // For the program layer, not the backend: which on-disk cache a program uses.
    /// false: the disk cache is neither read nor written.
    bool disk_cache = true;
    /// A cache directory of the program's own (nullopt: the context's, else the environment's).
    std::optional<std::filesystem::path> cache_dir;
};

/// One unit of Context::link: a complete source, compiled on its own as relocatable device code
/// (CUDA: NVRTC -rdc=true to PTX; OpenCL: clCompileProgram), or compiled code (CUDA: PTX, a
/// relocatable cubin, a fatbin; OpenCL: a compiled object or library binary, as compile_unit gives).
struct LinkUnit {
    bool is_source = true;
    std::string source;
    std::vector<std::byte> code;
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
        image,           // OpenCL image*_t (an Image or the first half of a SampledImage)
        sampler,         // OpenCL sampler_t (the second half of a SampledImage)
    };
    Kind kind = Kind::unknown;
    /// Bytes passed; 0 when the API does not say.
    std::size_t size = 0;
    /// Type and parameter names where the API reports them (OpenCL with -cl-kernel-arg-info).
    std::string type_name;
    std::string name;
};

using KernelAttributes = kjarni::KernelAttributes;

/// What the driver says about an address (CUDA cuPointerGetAttributes).
struct PointerInfo {
    enum class Type : std::uint8_t { unregistered, host, device, managed };
    Type type = Type::unregistered;
    /// The device the memory belongs to (device and managed memory; null otherwise or unknown).
    std::shared_ptr<Device> device;
    /// The position of that device in the asking context, when the memory belongs to the context.
    std::optional<std::size_t> device_index;
    /// The address for kernels and for the host (0 where there is none).
    std::uintptr_t device_pointer = 0;
    std::uintptr_t host_pointer = 0;
    /// The allocation the address lies in (0 where the driver does not say).
    std::uintptr_t range_start = 0;
    std::size_t range_size = 0;
};

/// A buffer of rows laid out `pitch` bytes apart.
struct PitchedAllocation {
    std::shared_ptr<Buffer> buffer;
    std::size_t pitch = 0;
};

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
    /// A context made as `flags` say. The default (src/backend/context_backend.cpp) calls
    /// create_context, and throws UnsupportedError naming the backend for CUDA settings.
    virtual std::shared_ptr<Context> create_context_with(std::span<const std::shared_ptr<Device>> devices,
                                                         const ContextFlags& flags);
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
    /// How many arguments the device's compiler counts for a kernel whose one parameter is a struct
    /// of two longs passed by value (PyOpenCL's check for PoCL's argument-counting bug), compiled
    /// in a context of this device alone. std::nullopt where the backend cannot tell (the default).
    virtual std::optional<std::size_t> struct_argument_count() const { return std::nullopt; }
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
    /// With memory flags where the driver honours them. The default (CUDA, whose device memory has
    /// no such flags) is allocate(), ignoring them, with `copied` false: the public layer copies.
    virtual FlaggedAllocation allocate_flagged(std::size_t device_index, std::size_t size,
                                               const BufferAllocationFlags& flags);
    /// Page-locked host memory of `size` > 0 bytes. Throws UnsupportedError for flags the API cannot
    /// express, OutOfMemoryError when the driver reports that.
    virtual std::shared_ptr<HostAllocation> allocate_host(std::size_t size, HostAllocationFlags flags) = 0;
    /// Whether device `from` can read and write memory of device `to` directly (peer access).
    virtual bool can_access_peer(std::size_t from, std::size_t to) const = 0;

    // Peer access across devices and contexts (src/backend/context_backend.cpp has the defaults:
    // within one context devices share memory, across contexts nothing is possible).

    /// Whether the driver allows device `from` of this context to use memory of device `to` of
    /// `other` (which may be this context) once enabled.
    virtual bool peer_access_possible(std::size_t from, const Context& other, std::size_t to) const;
    /// Whether that access is enabled now.
    virtual bool peer_access_enabled(std::size_t from, const Context& other, std::size_t to) const;
    /// Enables or disables it (the public layer checked that it is possible and not from a device
    /// to itself). The default does nothing within one context when enabling and throws
    /// UnsupportedError naming the backend otherwise.
    virtual void set_peer_access(std::size_t from, Context& other, std::size_t to, bool enable);
    /// Waits for all work on every device of the context, the queues of others sharing the native
    /// context included where the API can (CUDA cuCtxSynchronize). The default does nothing (the
    /// public layer synchronizes kjarni's queues itself).
    virtual void synchronize_devices() {}
    /// Whether allocate() makes the memory at once (so that a probe that succeeds proves the memory
    /// is there: largest_memblock). The default: false.
    virtual bool allocates_eagerly() const { return false; }
    /// The largest free block of a device's memory where the driver reports it (OpenCL
    /// CL_DEVICE_GLOBAL_FREE_MEMORY_AMD); nullopt by default.
    virtual std::optional<std::uint64_t> largest_free_block(std::size_t /*device_index*/) const {
        return std::nullopt;
    }
    /// Managed / shared virtual memory of `size` > 0 bytes, allocated for (CUDA: in the context of)
    /// device `device_index`; the public layer has checked the capabilities and the free memory.
    /// The default throws UnsupportedError (src/backend/managed_memory_backend.cpp).
    virtual std::shared_ptr<ManagedAllocation> allocate_managed(std::size_t device_index, std::size_t size,
                                                                ManagedAllocationFlags flags);
    /// Interprocess communication (CUDA IPC). Each default throws UnsupportedError
    /// (src/backend/ipc_backend.cpp).
    /// Opens memory another process exported (Buffer::ipc_handle's driver bytes) as a buffer of
    /// `size` bytes on device `device_index`; the mapping is closed when the buffer goes.
    virtual std::shared_ptr<Buffer> open_ipc_memory(std::size_t device_index, std::span<const std::byte> handle,
                                                    std::size_t size);
    /// An event other processes can open (no timing), unrecorded.
    virtual std::shared_ptr<Event> create_ipc_event(std::size_t device_index);
    /// Opens an event another process exported (Event::ipc_handle's bytes).
    virtual std::shared_ptr<Event> open_ipc_event(std::size_t device_index, std::span<const std::byte> handle);
    /// Bytes free on the device right now where the API can tell (CUDA cuMemGetInfo, OpenCL
    /// CL_DEVICE_GLOBAL_FREE_MEMORY_AMD); nullopt where it cannot.
    virtual std::optional<std::uint64_t> free_memory(std::size_t /*device_index*/) const { return std::nullopt; }

    // Foreign and pitched memory. The defaults throw UnsupportedError naming the backend
    // (src/backend/driver_layer_backend.cpp); the public layer has checked the arguments it can.

    /// A buffer over existing device memory (CUdeviceptr / cl_mem) of device `device_index`, of
    /// `size` bytes (nullopt: to the end of the native allocation). With `take_ownership` the
    /// memory is freed (cuMemFree / clReleaseMemObject) when the buffer goes; without, the caller
    /// keeps it alive. ArgumentError when the memory is not of that device or smaller than `size`.
    virtual std::shared_ptr<Buffer> adopt_buffer(std::size_t device_index, std::uintptr_t native,
                                                 std::optional<std::size_t> size, bool take_ownership);
    /// Page-locks the existing host memory [data, data + size) for this context (cuMemHostRegister
    /// / a CL_MEM_USE_HOST_PTR buffer kept mapped) until the result goes; the memory stays the
    /// caller's. `write_combined` is refused (UnsupportedError).
    virtual std::shared_ptr<HostAllocation> register_host(void* data, std::size_t size, HostAllocationFlags flags);
    /// What the driver knows of an address.
    virtual PointerInfo pointer_info(std::uintptr_t pointer) const;
    // Knobs (defaults in src/backend/driver_layer_backend.cpp: default flags are accepted, anything
    // else is UnsupportedError naming the backend).

    /// A queue with flags; the default calls create_queue for default flags.
    virtual std::shared_ptr<Queue> create_queue_with(std::size_t device_index, const QueueFlags& flags);
    /// The queue priorities the device offers, {least, greatest} urgency ({0, 0}: none).
    virtual std::pair<int, int> queue_priority_range(std::size_t /*device_index*/) const { return {0, 0}; }
    virtual void set_limit(std::size_t device_index, ContextLimit limit, std::size_t value);
    virtual std::size_t limit(std::size_t device_index, ContextLimit limit) const;
    virtual void set_cache_preference(std::size_t device_index, CachePreference preference);
    /// Starts or stops the driver's profiler (cuProfilerStart / cuProfilerStop).
    virtual void profiler(std::size_t device_index, bool start);

    /// `height` rows of at least `width` bytes each, at a pitch that suits accesses of
    /// `element_size` (4, 8 or 16) bytes.
    virtual PitchedAllocation allocate_pitched(std::size_t device_index, std::size_t width, std::size_t height,
                                               std::size_t element_size);

    // Images (kjarni/image.hpp). The defaults (src/backend/image_backend.cpp) say the device has
    // none and throw UnsupportedError naming the backend.

    /// What images device `device_index` can hold.
    virtual ImageLimits image_limits(std::size_t device_index) const;
    /// Whether the device holds images of `format` (asked after image_limits says it has images).
    virtual bool image_format_supported(std::size_t device_index, const ImageFormat& format) const;
    /// An image of `shape` and `format` on device `device_index`; the public layer has checked both
    /// against the two calls above. Its contents are undefined.
    virtual std::shared_ptr<Image> create_image(std::size_t device_index, const ImageShape& shape,
                                                const ImageFormat& format);

    /// Compiles a complete source for one device. Throws CompileError with the log on failure.
    virtual BuildOutput build(std::size_t device_index, const std::string& source, const BuildOptions& options) = 0;
    /// Recreates a module from BuildOutput::binary (e.g. from the disk cache). Throws Error if the
    /// binary is refused; the caller then compiles from source.
    virtual std::shared_ptr<Module> load(std::size_t device_index, std::span<const std::byte> binary,
                                         const BuildOptions& options) = 0;
    /// Compiles the source units each on its own and links them with the code units into one
    /// module (cuLink*, clCompileProgram + clLinkProgram). CompileError when a unit does not
    /// compile, LinkError (with the linker's log) when they do not link. The default throws
    /// UnsupportedError naming the backend.
    virtual BuildOutput link(std::size_t device_index, std::span<const LinkUnit> units, const BuildOptions& options);
    /// Compiles a complete source on its own into a relocatable object that link() takes back as a
    /// code unit (CUDA: NVRTC -rdc=true to PTX, NUL-terminated; OpenCL: clCompileProgram's binary,
    /// CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT). CompileError when it does not compile. The
    /// default throws UnsupportedError naming the backend.
    virtual std::vector<std::byte> compile_unit(std::size_t device_index, const std::string& source,
                                                const BuildOptions& options);
    /// The PTX of a complete source for one device (CUDA, through NVRTC, for the architecture build()
    /// would use). The default throws UnsupportedError naming the backend.
    virtual std::string ptx(std::size_t device_index, const std::string& source, const BuildOptions& options);
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
    /// A program-scope variable (CUDA __device__ / __constant__) as a buffer of its size that keeps
    /// the module loaded; nullptr if there is none of that name. The default throws UnsupportedError.
    virtual std::shared_ptr<Buffer> global_buffer(const std::string& name);
    /// What the driver's JIT said when it compiled PTX into this module (CUDA, PTX loaded with
    /// JitOptions asking for it); nullopt otherwise (the default).
    virtual std::optional<JitReport> jit_report() const { return std::nullopt; }
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
    /// CUDA cuFuncSetCacheConfig / CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT (percent,
    /// -1: the default). The defaults throw UnsupportedError.
    virtual void set_cache_preference(CachePreference preference);
    virtual void set_shared_memory_carveout(int percent);
    /// cuFuncSetAttribute of a settable attribute (the public layer checked the value's range).
    /// The default throws UnsupportedError.
    virtual void set_attribute(KernelAttributeId attribute, int value);
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
    /// The driver's interprocess handle of the whole allocation (CUDA: cuIpcGetMemHandle's 64
    /// bytes). The default throws UnsupportedError.
    virtual std::vector<std::byte> ipc_handle() const;
};

/// Image memory of one device (a CUDA array / an OpenCL image), holding its Context. Transfers move
/// a box of the image (kjarni's coordinates: a layer is the coordinate after the image's
/// dimensions) as packed pixels (rows, then slices or layers, without padding), in `queue`'s
/// order, which is on the image's device; the public layer has checked boxes, sizes and devices.
class Image {
public:
    virtual ~Image() = default;
    virtual std::size_t device_index() const = 0;
    /// CUarray / cl_mem.
    virtual std::uintptr_t native_handle() const = 0;
    /// Packed pixels of `region` (checked against the image) from / to the host.
    virtual void write(Queue& queue, const ImageRegion& region, const void* host, bool blocking) = 0;
    virtual void read(Queue& queue, const ImageRegion& region, void* host, bool blocking) = 0;
    /// Packed pixels of `region` from / to a buffer of the same device, from byte `offset` on.
    virtual void copy_from_buffer(Queue& queue, const ImageRegion& region, Buffer& source, std::size_t offset,
                                  bool blocking) = 0;
    virtual void copy_to_buffer(Queue& queue, const ImageRegion& region, Buffer& destination, std::size_t offset,
                                bool blocking) = 0;
    /// The box `source_region` of an image of the same format, dimensions and layering on the same
    /// device, to the box of the same extent at `origin` of this one.
    virtual void copy_from_image(Queue& queue, Image& source, const ImageRegion& source_region,
                                 const std::array<std::size_t, 3>& origin, bool blocking) = 0;
    /// The image read through `sampler` (checked against the format by the public layer).
    virtual std::shared_ptr<ImageSampler> sampled(const Sampler& sampler) = 0;
    /// Level `level` (at least 1, below the image's levels: checked by the public layer) of an
    /// image of several mipmap levels, of `shape`, keeping this image alive.
    virtual std::shared_ptr<Image> level(std::size_t level, const ImageShape& shape) = 0;
    /// The kernel argument of a WRITE parameter: kind image, the backend's bytes in `scalar`, and
    /// device_index set (the public layer sets the context).
    virtual KernelArg write_argument() = 0;
};

/// An image and a sampler together, as a kernel's READ parameter; keeps its image alive.
class ImageSampler {
public:
    virtual ~ImageSampler() = default;
    /// As Image::write_argument, for a READ parameter.
    virtual KernelArg read_argument() const = 0;
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
    /// Frees the memory once the work enqueued on `queue` so far is done (OpenCL clEnqueueSVMFree);
    /// the destructor then frees nothing. The default (CUDA, whose managed memory has no
    /// stream-ordered free) waits for the queue, then lets the destructor free it.
    virtual void enqueue_free(Queue& queue);
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
    /// The driver's interprocess handle of an event made by Context::create_ipc_event (CUDA:
    /// cuIpcGetEventHandle's 64 bytes). The default throws UnsupportedError.
    virtual std::vector<std::byte> ipc_handle() const;
};

/// Every transfer takes offsets into whole allocations and a non-zero size (the public layer drops
/// empty transfers and checks bounds). `blocking` = false returns once the work is enqueued.
class Queue {
public:
    virtual ~Queue() = default;
    virtual std::size_t device_index() const = 0;
    virtual void synchronize() = 0;
    virtual std::shared_ptr<Event> record_event() = 0;
    /// Records an existing event (an interprocess one) at this point of the queue. The default
    /// throws UnsupportedError.
    virtual void record(Event& event);
    /// An event with flags; the default calls record_event() for the default flags and throws
    /// UnsupportedError for others.
    virtual std::shared_ptr<Event> record_event_with(const EventFlags& flags);
    /// Whether everything enqueued so far is done, without blocking. The default records an event
    /// and asks it.
    virtual bool is_done();
    virtual void wait_for(Event& event) = 0;
    virtual void write(Buffer& dst, std::size_t dst_offset, const void* src, std::size_t size,
                       bool blocking) = 0;
    virtual void read(void* dst, Buffer& src, std::size_t src_offset, std::size_t size, bool blocking) = 0;
    /// Buffers may be on different devices of the context (peer copy, or staged by the driver).
    virtual void copy(Buffer& dst, std::size_t dst_offset, Buffer& src, std::size_t src_offset,
                      std::size_t size, bool blocking) = 0;
    /// Copies from a buffer of another context of the same API, device to device, in this queue's
    /// order (CUDA cuMemcpyPeerAsync); `dst` is of this queue's context. Returns false where the
    /// API cannot (the default): the caller then stages through the host.
    virtual bool copy_from_context(Buffer& /*dst*/, std::size_t /*dst_offset*/, Context& /*src_context*/,
                                   Buffer& /*src*/, std::size_t /*src_offset*/, std::size_t /*size*/,
                                   bool /*blocking*/) {
        return false;
    }
    /// `pattern_size` is a power of two <= 128 dividing `size` and `offset`.
    virtual void fill(Buffer& dst, std::size_t offset, std::size_t size, const void* pattern,
                      std::size_t pattern_size, bool blocking) = 0;
    /// CUstream / cl_command_queue.
    virtual std::uintptr_t native_handle() const = 0;

    // Pitched transfers (defaults in src/backend/driver_layer_backend.cpp throw UnsupportedError).
    // Offsets in the layouts are into whole allocations (host: from the pointer); the public layer
    // has checked bounds, and that extents are not empty.

    /// Fills `height` rows of `width` bytes, `pitch` bytes apart, from `offset`, with a pattern of
    /// 1, 2 or 4 bytes that divides `width`, `pitch` and `offset`.
    virtual void fill_2d(Buffer& dst, std::size_t offset, std::size_t pitch, std::size_t width, std::size_t height,
                         const void* pattern, std::size_t pattern_size, bool blocking);
    virtual void write_rect(Buffer& dst, const RectLayout& dst_layout, const void* src, const RectLayout& src_layout,
                            const RectExtent& extent, bool blocking);
    virtual void read_rect(void* dst, const RectLayout& dst_layout, Buffer& src, const RectLayout& src_layout,
                           const RectExtent& extent, bool blocking);
    /// The buffers may be on different devices of the context.
    virtual void copy_rect(Buffer& dst, const RectLayout& dst_layout, Buffer& src, const RectLayout& src_layout,
                           const RectExtent& extent, bool blocking);
};

}  // namespace kjarni::backend
