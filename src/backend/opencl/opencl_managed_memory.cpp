// Shared virtual memory on OpenCL 2.0+: clSVMAlloc / clSVMFree, host access through
// clEnqueueSVMMap / clEnqueueSVMUnmap, migration with clEnqueueSVMMigrateMem (2.1+), and a
// CL_MEM_USE_HOST_PTR buffer over the allocation for everything that takes a cl_mem (OpenCL 2.0
// guarantees that such a buffer has the SVM memory as its storage).
//
// The entry points are optional in the library table: the public layer only gets here for devices
// reporting SVM capabilities, whose platforms are 2.0+, but a loader without them still gives an
// UnsupportedError, never a null call.

#include <CL/cl.h>
#include <CL/cl_ext.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "backend/opencl/opencl_context.hpp"
#include "backend/opencl/opencl_error.hpp"
#include "backend/opencl/opencl_info.hpp"
#include "backend/opencl/opencl_library.hpp"
#include "backend/opencl/opencl_queue.hpp"
#include "backend/opencl/opencl_quirks.hpp"
#include "backend/opencl/opencl_svm.hpp"
#include "kjarni/error.hpp"

namespace kjarni::backend::opencl {

namespace {

template <class Fn>
Fn require(Fn fn, const char* name) {
    if (fn == nullptr) {
        throw UnsupportedError(std::string("the OpenCL library (") + cl().path + ") lacks " + name +
                               ": shared virtual memory needs an OpenCL 2.0 ICD loader (2.1 for migration)");
    }
    return fn;
}

cl_command_queue handle_of(Queue& queue) { return static_cast<OpenClQueue&>(queue).handle(); }

class OpenClSvmAllocation final : public ManagedAllocation {
public:
    OpenClSvmAllocation(std::shared_ptr<OpenClContext> context, std::size_t size, ManagedAllocationFlags flags)
        : context_(std::move(context)), size_(size), flags_(flags) {
        cl_svm_mem_flags cl_flags = CL_MEM_READ_WRITE;
        if (flags.fine_grain) cl_flags |= CL_MEM_SVM_FINE_GRAIN_BUFFER;
        if (flags.atomics) cl_flags |= CL_MEM_SVM_ATOMICS;
        // Alignment 0: the platform's default, which suits any data type.
        const auto alloc = require(cl().clSVMAlloc, "clSVMAlloc");
        base_ = alloc(context_->handle(), cl_flags, size, static_cast<cl_uint>(flags.alignment));
        pointer_ = base_;
        if (base_ == nullptr && flags.alignment > 1) {
            // Drivers support alignments only up to a limit of theirs (PoCL: 128 bytes) and say
            // nothing but NULL beyond it: then a larger allocation, the address aligned inside it
            // (kernels may take any address inside an SVM allocation).
            base_ = alloc(context_->handle(), cl_flags, size + flags.alignment - 1, 0);
            if (base_ != nullptr) {
                const auto raw = reinterpret_cast<std::uintptr_t>(base_);
                const std::uintptr_t aligned = (raw + flags.alignment - 1) / flags.alignment * flags.alignment;
                pointer_ = static_cast<std::byte*>(base_) + (aligned - raw);
            }
        }
        if (base_ == nullptr) {
            // clSVMAlloc gives no reason; the public layer has ruled out sizes beyond the limits.
            throw OutOfMemoryError("OpenCL", "clSVMAlloc", CL_MEM_OBJECT_ALLOCATION_FAILURE,
                                   error_name(CL_MEM_OBJECT_ALLOCATION_FAILURE),
                                   std::to_string(size) + " bytes of " + (flags.fine_grain ? "fine" : "coarse") +
                                       "-grained shared virtual memory requested");
        }
    }

    ~OpenClSvmAllocation() override {
        // clSVMFree does not wait for commands using the memory; the handles that enqueued them
        // are gone, and kjarni's transfers and scopes are blocking, so only the user's own
        // asynchronous work could still run: it must have been waited for (as for any memory).
        if (base_ != nullptr) cl().clSVMFree(context_->handle(), base_);
    }

    void enqueue_free(Queue& queue) override {
        void* pointers[1] = {base_};
        check(require(cl().clEnqueueSVMFree, "clEnqueueSVMFree")(handle_of(queue), 1, pointers, nullptr, nullptr, 0,
                                                                 nullptr, nullptr),
              "clEnqueueSVMFree");
        base_ = nullptr;  // the queue frees it
    }

    OpenClSvmAllocation(const OpenClSvmAllocation&) = delete;
    OpenClSvmAllocation& operator=(const OpenClSvmAllocation&) = delete;

    void* pointer() const override { return pointer_; }
    std::size_t size() const override { return size_; }
    ManagedAllocationFlags flags() const override { return flags_; }

    void begin_host_access(Queue& queue, std::size_t offset, std::size_t size, bool read, bool write, bool) override {
        // A blocking map on the queue: it waits for the queue's earlier work, and is what makes
        // coarse-grained memory valid on the host (for fine-grained memory it is a synchronization
        // point, which the rules allow).
        cl_map_flags map = 0;
        if (read) map |= CL_MAP_READ;
        if (write) map |= CL_MAP_WRITE;
        check(require(cl().clEnqueueSVMMap, "clEnqueueSVMMap")(handle_of(queue), CL_TRUE, map, at(offset), size, 0,
                                                               nullptr, nullptr),
              "clEnqueueSVMMap");
    }

    void end_host_access(Queue& queue, std::size_t offset) override {
        // Waited for, so that commands on any queue of the context see the host's writes.
        check(require(cl().clEnqueueSVMUnmap, "clEnqueueSVMUnmap")(handle_of(queue), at(offset), 0, nullptr, nullptr),
              "clEnqueueSVMUnmap");
        check(cl().clFinish(handle_of(queue)), "clFinish");
    }

    void prefetch(Queue& queue, std::size_t offset, std::size_t size, bool to_host) override {
        const void* start = at(offset);
        check(require(cl().clEnqueueSVMMigrateMem, "clEnqueueSVMMigrateMem")(handle_of(queue), 1, &start, &size,
                                                                             to_host ? CL_MIGRATE_MEM_OBJECT_HOST : 0,
                                                                             0, nullptr, nullptr),
              "clEnqueueSVMMigrateMem");
    }

    void attach(Queue&, int) override {
        throw UnsupportedError("OpenCL shared virtual memory has no stream attachment: every queue of the context "
                               "may use it (attach is CUDA's cuStreamAttachMemAsync)");
    }

    std::shared_ptr<Buffer> device_buffer(std::size_t device_index) override {
        cl_int status = CL_SUCCESS;
        Handle<cl_mem> mem(
            cl().clCreateBuffer(context_->handle(), CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, size_, pointer_, &status));
        check(status, "clCreateBuffer (over shared virtual memory)");
        return std::make_shared<OpenClBuffer>(context_, device_index, size_, std::move(mem));
    }

private:
    void* at(std::size_t offset) const { return static_cast<std::byte*>(pointer_) + offset; }

    std::shared_ptr<OpenClContext> context_;
    std::size_t size_;
    ManagedAllocationFlags flags_;
    void* base_ = nullptr;     // what clSVMAlloc gave (and clSVMFree takes)
    void* pointer_ = nullptr;  // the memory's start: base_, or inside it where aligned by kjarni
};

}  // namespace

void set_svm_argument(cl_kernel kernel, cl_uint index, void* pointer) {
    if (pointer == nullptr) {  // empty managed memory: a null buffer, which every version accepts
        check(cl().clSetKernelArg(kernel, index, sizeof(cl_mem), nullptr), "clSetKernelArg");
        return;
    }
    check(require(cl().clSetKernelArgSVMPointer, "clSetKernelArgSVMPointer")(kernel, index, pointer),
          "clSetKernelArgSVMPointer");
}

std::shared_ptr<ManagedAllocation> OpenClContext::allocate_managed(std::size_t, std::size_t size,
                                                                   ManagedAllocationFlags flags) {
    // SVM belongs to the whole context: the device index changes nothing.
    if (quirks::svm_unsafe_across_devices(devices_)) {
        throw UnsupportedError(
            "shared virtual memory in an NVIDIA OpenCL context of several devices: the driver crashes when two "
            "devices use one allocation (quirk nvidia_svm_several_devices); use a context of one device, or CUDA");
    }
    return std::make_shared<OpenClSvmAllocation>(std::static_pointer_cast<OpenClContext>(shared_from_this()), size,
                                                 flags);
}

std::optional<std::uint64_t> OpenClContext::free_memory(std::size_t device_index) const {
    const cl_device_id id = device_id(device_index);
    if (device_info_string(id, CL_DEVICE_EXTENSIONS).find("cl_amd_device_attribute_query") == std::string::npos) {
        return std::nullopt;
    }
    // Two size_t values in KiB: the total free memory and the largest free block. One allocation
    // needs one block.
    std::vector<unsigned char> bytes;
    if (!device_info_bytes(id, CL_DEVICE_GLOBAL_FREE_MEMORY_AMD, bytes) || bytes.size() < 2 * sizeof(std::size_t)) {
        return std::nullopt;
    }
    std::size_t kib[2] = {0, 0};
    std::memcpy(kib, bytes.data(), sizeof kib);
    return static_cast<std::uint64_t>(kib[1]) * 1024;
}

}  // namespace kjarni::backend::opencl
