#include "backend/opencl/opencl_context.hpp"

#include "backend/opencl/opencl_device.hpp"
#include "backend/opencl/opencl_error.hpp"
#include "backend/opencl/opencl_platform.hpp"
#include "backend/opencl/opencl_queue.hpp"
#include "kjarni/error.hpp"

namespace kjarni::backend::opencl {

OpenClContext::OpenClContext(Api& api, cl_context context, std::vector<std::shared_ptr<Device>> devices)
    : api_(api), context_(context), devices_(std::move(devices)) {}

std::shared_ptr<OpenClContext> OpenClContext::create(Api& api, std::span<const std::shared_ptr<Device>> devices) {
    std::vector<cl_device_id> ids;
    for (const auto& device : devices) ids.push_back(static_cast<const OpenClDevice&>(*device).id());
    const auto& platform = static_cast<const OpenClPlatform&>(devices.front()->platform());
    const cl_context_properties properties[] = {
        CL_CONTEXT_PLATFORM, reinterpret_cast<cl_context_properties>(platform.id()), 0};
    cl_int status = CL_SUCCESS;
    cl_context context = cl().clCreateContext(properties, static_cast<cl_uint>(ids.size()), ids.data(),
                                              nullptr, nullptr, &status);
    check(status, "clCreateContext");
    return std::make_shared<OpenClContext>(api, context,
                                           std::vector<std::shared_ptr<Device>>(devices.begin(), devices.end()));
}

std::shared_ptr<OpenClContext> OpenClContext::from_native(Api& api, cl_context context, bool take_ownership) {
    // Retain first so that every path below, failures included, releases exactly once.
    if (!take_ownership) check(cl().clRetainContext(context), "clRetainContext");
    try {
        cl_uint count = 0;
        check(cl().clGetContextInfo(context, CL_CONTEXT_NUM_DEVICES, sizeof count, &count, nullptr),
              "clGetContextInfo");
        std::vector<cl_device_id> ids(count);
        check(cl().clGetContextInfo(context, CL_CONTEXT_DEVICES, count * sizeof(cl_device_id), ids.data(), nullptr),
              "clGetContextInfo");
        std::vector<std::shared_ptr<Device>> devices;
        for (cl_device_id id : ids) devices.push_back(api.device_from_native(reinterpret_cast<std::uintptr_t>(id)));
        return std::make_shared<OpenClContext>(api, context, std::move(devices));
    } catch (...) {
        cl().clReleaseContext(context);
        throw;
    }
}

OpenClContext::~OpenClContext() { cl().clReleaseContext(context_); }

cl_device_id OpenClContext::device_id(std::size_t index) const {
    return static_cast<const OpenClDevice&>(*devices_[index]).id();
}

std::shared_ptr<Queue> OpenClContext::create_queue(std::size_t device_index) {
    return std::make_shared<OpenClQueue>(std::static_pointer_cast<OpenClContext>(shared_from_this()), device_index);
}

std::shared_ptr<Buffer> OpenClContext::allocate(std::size_t device_index, std::size_t size) {
    return std::make_shared<OpenClBuffer>(std::static_pointer_cast<OpenClContext>(shared_from_this()),
                                          device_index, size);
}

OpenClBuffer::OpenClBuffer(std::shared_ptr<OpenClContext> context, std::size_t device_index, std::size_t size)
    : context_(std::move(context)), device_index_(device_index), size_(size) {
    if (size == 0) return;  // OpenCL forbids empty buffers; an empty kjarni buffer has no cl_mem
    const std::uint64_t limit = context_->devices()[device_index]->properties().max_allocation_size;
    if (size > limit) {
        throw OutOfMemoryError("OpenCL", "clCreateBuffer", CL_INVALID_BUFFER_SIZE, error_name(CL_INVALID_BUFFER_SIZE),
                               std::to_string(size) + " bytes requested, CL_DEVICE_MAX_MEM_ALLOC_SIZE is " +
                                   std::to_string(limit));
    }
    cl_int status = CL_SUCCESS;
    mem_ = cl().clCreateBuffer(context_->handle(), CL_MEM_READ_WRITE, size, nullptr, &status);
    // CL_INVALID_BUFFER_SIZE is what drivers answer for sizes beyond CL_DEVICE_MAX_MEM_ALLOC_SIZE.
    if (status == CL_INVALID_BUFFER_SIZE || status == CL_OUT_OF_RESOURCES) {
        throw OutOfMemoryError("OpenCL", "clCreateBuffer", status, error_name(status),
                               std::to_string(size) + " bytes requested");
    }
    check(status, "clCreateBuffer");
}

OpenClBuffer::~OpenClBuffer() {
    if (mem_ != nullptr) cl().clReleaseMemObject(mem_);
}

}  // namespace kjarni::backend::opencl
