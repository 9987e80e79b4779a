#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>

#include "backend/backend.hpp"
#include "backend/opencl/opencl_copy_kernel.hpp"
#include "backend/opencl/opencl_handle.hpp"
#include "backend/opencl/opencl_library.hpp"

namespace kjarni::backend::opencl {

class OpenClContext final : public Context {
public:
    static std::shared_ptr<OpenClContext> create(Api& api, std::span<const std::shared_ptr<Device>> devices);
    static std::shared_ptr<OpenClContext> from_native(Api& api, cl_context context, bool take_ownership);
    OpenClContext(const OpenClContext&) = delete;
    OpenClContext& operator=(const OpenClContext&) = delete;

    Api& api() const override { return api_; }
    const std::vector<std::shared_ptr<Device>>& devices() const override { return devices_; }
    std::uintptr_t native_handle(std::size_t) const override {
        return reinterpret_cast<std::uintptr_t>(context_.get());
    }
    std::shared_ptr<Queue> create_queue(std::size_t device_index) override;
    std::shared_ptr<Buffer> allocate(std::size_t device_index, std::size_t size) override;
    FlaggedAllocation allocate_flagged(std::size_t device_index, std::size_t size,
                                       const BufferAllocationFlags& flags) override;
    /// A CL_MEM_ALLOC_HOST_PTR buffer kept mapped (opencl_host_memory.cpp).
    std::shared_ptr<HostAllocation> allocate_host(std::size_t size, HostAllocationFlags flags) override;
    /// Shared virtual memory from clSVMAlloc (opencl_managed_memory.cpp).
    std::shared_ptr<ManagedAllocation> allocate_managed(std::size_t device_index, std::size_t size,
                                                        ManagedAllocationFlags flags) override;
    /// CL_DEVICE_GLOBAL_FREE_MEMORY_AMD where the device has cl_amd_device_attribute_query.
    std::optional<std::uint64_t> free_memory(std::size_t device_index) const override;
    /// The same figure: what CL_DEVICE_GLOBAL_FREE_MEMORY_AMD reports (and free_memory passes on)
    /// is the largest free block.
    std::optional<std::uint64_t> largest_free_block(std::size_t device_index) const override {
        return free_memory(device_index);
    }
    BuildOutput build(std::size_t device_index, const std::string& source, const BuildOptions& options) override;
    BuildOutput link(std::size_t device_index, std::span<const LinkUnit> units, const BuildOptions& options) override;
    std::vector<std::byte> compile_unit(std::size_t device_index, const std::string& source,
                                        const BuildOptions& options) override;
    std::shared_ptr<Module> load(std::size_t device_index, std::span<const std::byte> binary,
                                 const BuildOptions& options) override;
    std::string compiler_identity(std::size_t device_index) const override;
    // Foreign, page-locked and pitched memory (opencl_foreign_memory.cpp).
    /// A cl_mem of this context (checked), retained unless ownership is taken.
    std::shared_ptr<Buffer> adopt_buffer(std::size_t device_index, std::uintptr_t native,
                                         std::optional<std::size_t> size, bool take_ownership) override;
    /// A CL_MEM_USE_HOST_PTR buffer over the memory, kept mapped (opencl_host_memory.cpp).
    std::shared_ptr<HostAllocation> register_host(void* data, std::size_t size, HostAllocationFlags flags) override;
    /// An ordinary buffer with rows padded to the device's base address alignment.
    PitchedAllocation allocate_pitched(std::size_t device_index, std::size_t width, std::size_t height,
                                       std::size_t element_size) override;
    // Images (opencl_image.cpp): clCreateImage, samplers, the device's image limits and formats.
    ImageLimits image_limits(std::size_t device_index) const override;
    bool image_format_supported(std::size_t device_index, const ImageFormat& format) const override;
    std::shared_ptr<Image> create_image(std::size_t device_index, const ImageShape& shape,
                                        const ImageFormat& format) override;
    /// Buffers belong to the whole context: every device reaches every buffer (the driver migrates).
    bool can_access_peer(std::size_t, std::size_t) const override { return true; }

    cl_context handle() const noexcept { return context_.get(); }
    cl_device_id device_id(std::size_t index) const;
    /// The programs of the copy kernel (opencl_copy_kernel.hpp), built at first use.
    CopyKernelPrograms& copy_kernel_programs() const noexcept { return copy_kernel_programs_; }

    /// Private: use create / from_native.
    OpenClContext(Api& api, Handle<cl_context> context, std::vector<std::shared_ptr<Device>> devices);

private:
    Api& api_;
    Handle<cl_context> context_;
    std::vector<std::shared_ptr<Device>> devices_;
    mutable CopyKernelPrograms copy_kernel_programs_;
};

class OpenClBuffer final : public Buffer {
public:
    /// OpenCL allocates lazily, at first use: a size within CL_DEVICE_MAX_MEM_ALLOC_SIZE that the
    /// device cannot hold fails later, at the first transfer or launch (as OutOfMemoryError).
    /// Sizes beyond that limit fail here, since some drivers (NVIDIA's) accept them at creation.
    OpenClBuffer(std::shared_ptr<OpenClContext> context, std::size_t device_index, std::size_t size,
                 cl_mem_flags flags = CL_MEM_READ_WRITE, const void* host = nullptr);
    /// Takes over a reference to an existing cl_mem of `size` bytes.
    OpenClBuffer(std::shared_ptr<OpenClContext> context, std::size_t device_index, std::size_t size,
                 Handle<cl_mem> adopted);
    ~OpenClBuffer() override;
    OpenClBuffer(const OpenClBuffer&) = delete;
    OpenClBuffer& operator=(const OpenClBuffer&) = delete;

    std::size_t size() const override { return size_; }
    std::size_t device_index() const override { return device_index_; }
    std::uintptr_t native_handle() const override { return reinterpret_cast<std::uintptr_t>(mem_.get()); }
    cl_mem mem() const noexcept { return mem_.get(); }
    /// A number no other buffer of the process has had: a kernel's memory of its arguments knows
    /// a buffer by it, since the driver may give a released cl_mem's value to a new one.
    std::uint64_t serial() const noexcept { return serial_; }
    /// The cl_mem a kernel sees for bytes [offset, offset + size): the buffer itself at offset 0,
    /// else a sub-buffer, made once and kept. The offset must be a multiple of the device's
    /// CL_DEVICE_MEM_BASE_ADDR_ALIGN (ArgumentError otherwise).
    cl_mem region(std::size_t offset, std::size_t size) { return offset == 0 ? mem_.get() : sub_region(offset, size); }

private:
    cl_mem sub_region(std::size_t offset, std::size_t size);
    std::mutex regions_mutex_;
    std::map<std::pair<std::size_t, std::size_t>, Handle<cl_mem>> regions_;
    std::shared_ptr<OpenClContext> context_;
    std::size_t device_index_;
    std::size_t size_;
    Handle<cl_mem> mem_;  // null for an empty buffer
    std::uint64_t serial_ = next_serial();
    static std::uint64_t next_serial() noexcept;
};

/// The cl_mem of a backend buffer that an OpenCL context made (the queue's transfers and rectangular
/// copies take their buffers as the interface type).
inline cl_mem mem_of(Buffer& buffer) { return static_cast<OpenClBuffer&>(buffer).mem(); }

}  // namespace kjarni::backend::opencl
