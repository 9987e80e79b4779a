#include "backend/opencl/opencl_context.hpp"

#include <cstdlib>

#include "backend/opencl/opencl_cpu_memory.hpp"
#include "backend/opencl/opencl_device.hpp"
#include "backend/opencl/opencl_error.hpp"
#include "backend/opencl/opencl_info.hpp"
#include "backend/opencl/opencl_platform.hpp"
#include "backend/opencl/opencl_program.hpp"
#include "backend/opencl/opencl_queue.hpp"
#include "backend/opencl/opencl_quirks.hpp"
#include "kjarni/error.hpp"

namespace kjarni::backend::opencl {

OpenClContext::OpenClContext(Api& api, Handle<cl_context> context, std::vector<std::shared_ptr<Device>> devices)
    : api_(api), context_(std::move(context)), devices_(std::move(devices)) {}

std::shared_ptr<OpenClContext> OpenClContext::create(Api& api, std::span<const std::shared_ptr<Device>> devices) {
    std::vector<cl_device_id> ids;
    for (const auto& device : devices) ids.push_back(static_cast<const OpenClDevice&>(*device).id());
    const auto& platform = static_cast<const OpenClPlatform&>(devices.front()->platform());
    const cl_context_properties properties[] = {CL_CONTEXT_PLATFORM,
                                                reinterpret_cast<cl_context_properties>(platform.id()), 0};
    cl_int status = CL_SUCCESS;
    Handle<cl_context> context(
        cl().clCreateContext(properties, static_cast<cl_uint>(ids.size()), ids.data(), nullptr, nullptr, &status));
    check(status, "clCreateContext");
    return std::make_shared<OpenClContext>(api, std::move(context),
                                           std::vector<std::shared_ptr<Device>>(devices.begin(), devices.end()));
}

std::shared_ptr<OpenClContext> OpenClContext::from_native(Api& api, cl_context native, bool take_ownership) {
    // Owned from here on, so that every path below, failures included, releases exactly once.
    Handle<cl_context> context = take_ownership ? Handle<cl_context>(native) : Handle<cl_context>::retain(native);
    cl_uint count = 0;
    check(cl().clGetContextInfo(native, CL_CONTEXT_NUM_DEVICES, sizeof count, &count, nullptr), "clGetContextInfo");
    std::vector<cl_device_id> ids(count);
    check(cl().clGetContextInfo(native, CL_CONTEXT_DEVICES, count * sizeof(cl_device_id), ids.data(), nullptr),
          "clGetContextInfo");
    std::vector<std::shared_ptr<Device>> devices;
    for (cl_device_id id : ids) devices.push_back(api.device_from_native(reinterpret_cast<std::uintptr_t>(id)));
    return std::make_shared<OpenClContext>(api, std::move(context), std::move(devices));
}

cl_device_id OpenClContext::device_id(std::size_t index) const {
    return static_cast<const OpenClDevice&>(*devices_[index]).id();
}

std::shared_ptr<Queue> OpenClContext::create_queue(std::size_t device_index) {
    return std::make_shared<OpenClQueue>(std::static_pointer_cast<OpenClContext>(shared_from_this()), device_index);
}

std::shared_ptr<Buffer> OpenClContext::allocate(std::size_t device_index, std::size_t size) {
    return std::make_shared<OpenClBuffer>(std::static_pointer_cast<OpenClContext>(shared_from_this()), device_index,
                                          size);
}

FlaggedAllocation OpenClContext::allocate_flagged(std::size_t device_index, std::size_t size,
                                                  const BufferAllocationFlags& flags) {
    cl_mem_flags mem_flags = flags.read_only    ? CL_MEM_READ_ONLY
                             : flags.write_only ? CL_MEM_WRITE_ONLY
                                                : CL_MEM_READ_WRITE;
    if (flags.alloc_host_pointer) mem_flags |= CL_MEM_ALLOC_HOST_PTR;
    const bool copy = flags.copy_from != nullptr && size != 0;
    if (copy) mem_flags |= CL_MEM_COPY_HOST_PTR;
    return {std::make_shared<OpenClBuffer>(std::static_pointer_cast<OpenClContext>(shared_from_this()), device_index,
                                           size, mem_flags, copy ? flags.copy_from : nullptr),
            copy};
}

BuildOutput OpenClContext::build(std::size_t device_index, const std::string& source, const BuildOptions& options) {
    return build_program(std::static_pointer_cast<OpenClContext>(shared_from_this()), device_index, source, options);
}

BuildOutput OpenClContext::link(std::size_t device_index, std::span<const LinkUnit> units,
                                const BuildOptions& options) {
    return link_program(std::static_pointer_cast<OpenClContext>(shared_from_this()), device_index, units, options);
}

std::vector<std::byte> OpenClContext::compile_unit(std::size_t device_index, const std::string& source,
                                                   const BuildOptions& options) {
    return compile_unit_program(std::static_pointer_cast<OpenClContext>(shared_from_this()), device_index, source,
                                options);
}

std::shared_ptr<Module> OpenClContext::load(std::size_t device_index, std::span<const std::byte> binary,
                                            const BuildOptions& options) {
    return load_program(std::static_pointer_cast<OpenClContext>(shared_from_this()), device_index, binary, options);
}

std::string OpenClContext::compiler_identity(std::size_t device_index) const {
    const cl_device_id id = device_id(device_index);
    const auto& platform = devices_[device_index]->platform();
    std::string identity = "OpenCL|" + platform.name() + "|" + platform.version() + "|" +
                           devices_[device_index]->name() + "|" + device_info_string(id, CL_DEVICE_VERSION) + "|" +
                           device_info_string(id, CL_DRIVER_VERSION);
    // PoCL compiles a program's binary without work-group specialization when
    // POCL_WORK_GROUP_SPECIALIZATION=0 (the test scripts set it: one compile per kernel), and a
    // process loading that binary launches the generic form: a 4 MiB float32 sum on PoCL took 0.21
    // ms from such a binary, 0.11 from its own. Binaries of the two settings are kept apart.
    if (platform.name() == "Portable Computing Language") {
        const char* specialization = std::getenv("POCL_WORK_GROUP_SPECIALIZATION");
        identity +=
            std::string("|work-group specialization ") + (specialization != nullptr ? specialization : "default");
    }
    return identity;
}

OpenClBuffer::OpenClBuffer(std::shared_ptr<OpenClContext> context, std::size_t device_index, std::size_t size,
                           cl_mem_flags flags, const void* host)
    : context_(std::move(context)), device_index_(device_index), size_(size) {
    if (size == 0) return;  // OpenCL forbids empty buffers; an empty kjarni buffer has no cl_mem
    const std::uint64_t limit = context_->devices()[device_index]->properties().max_allocation_size;
    if (quirks::exceeds_allocation_limit(*context_->devices()[device_index], size)) {
        throw OutOfMemoryError("OpenCL", "clCreateBuffer", CL_INVALID_BUFFER_SIZE, error_name(CL_INVALID_BUFFER_SIZE),
                               std::to_string(size) + " bytes requested, CL_DEVICE_MAX_MEM_ALLOC_SIZE is " +
                                   std::to_string(limit));
    }
    cl_int status = CL_SUCCESS;
    if (cpu_mapped(*context_->devices()[device_index], size, flags))
        mem_ = create_cpu_mapped_buffer(context_->handle(), size, flags, host, status);
    if (!mem_) mem_.reset(cl().clCreateBuffer(context_->handle(), flags, size, const_cast<void*>(host), &status));
    // CL_INVALID_BUFFER_SIZE is what drivers answer for sizes beyond CL_DEVICE_MAX_MEM_ALLOC_SIZE.
    if (status == CL_INVALID_BUFFER_SIZE || status == CL_OUT_OF_RESOURCES) {
        throw OutOfMemoryError("OpenCL", "clCreateBuffer", status, error_name(status),
                               std::to_string(size) + " bytes requested");
    }
    check(status, "clCreateBuffer");
}

OpenClBuffer::OpenClBuffer(std::shared_ptr<OpenClContext> context, std::size_t device_index, std::size_t size,
                           Handle<cl_mem> adopted)
    : context_(std::move(context)), device_index_(device_index), size_(size), mem_(std::move(adopted)) {}

std::uint64_t OpenClBuffer::next_serial() noexcept {
    static std::atomic<std::uint64_t> counter{0};
    return counter.fetch_add(1, std::memory_order_relaxed) + 1;
}

OpenClBuffer::~OpenClBuffer() {
    regions_.clear();  // the sub-buffers go before their buffer
}

cl_mem OpenClBuffer::sub_region(std::size_t offset, std::size_t size) {
    const std::lock_guard lock(regions_mutex_);
    auto found = regions_.find({offset, size});
    if (found != regions_.end()) return found->second.get();
    const auto align_bits = device_info<cl_uint>(context_->device_id(device_index_), CL_DEVICE_MEM_BASE_ADDR_ALIGN);
    const std::size_t align = align_bits / 8;
    if (offset % align != 0) {
        throw ArgumentError("buffer", "a region at offset " + std::to_string(offset) +
                                          " cannot be a kernel argument on this OpenCL device: offsets must be "
                                          "multiples of " +
                                          std::to_string(align) + " bytes (CL_DEVICE_MEM_BASE_ADDR_ALIGN)");
    }
    const cl_buffer_region bounds{offset, size};
    cl_int status = CL_SUCCESS;
    Handle<cl_mem> sub(
        // Flags 0: the region inherits the buffer's (a READ_WRITE region of a READ_ONLY buffer is
        // CL_INVALID_VALUE).
        cl().clCreateSubBuffer(mem_.get(), 0, CL_BUFFER_CREATE_TYPE_REGION, &bounds, &status));
    check(status, "clCreateSubBuffer");
    const cl_mem raw = sub.get();
    regions_.emplace(std::pair{offset, size}, std::move(sub));
    return raw;
}

}  // namespace kjarni::backend::opencl
