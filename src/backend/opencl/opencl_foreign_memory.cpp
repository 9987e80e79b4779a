// Memory kjarni did not allocate the usual way, on OpenCL: a cl_mem made by another library, and
// pitched allocations (OpenCL has none of its own: rows are padded to the device's base address
// alignment, which is what lets a row start a sub-buffer and keeps accesses aligned).

#include <fmt/format.h>

#include <algorithm>

#include "backend/opencl/opencl_context.hpp"
#include "backend/opencl/opencl_error.hpp"
#include "backend/opencl/opencl_info.hpp"
#include "kjarni/error.hpp"

namespace kjarni::backend::opencl {

namespace {

template <class T>
T mem_info(cl_mem mem, cl_mem_info what) {
    T value{};
    check(cl().clGetMemObjectInfo(mem, what, sizeof(T), &value, nullptr), "clGetMemObjectInfo");
    return value;
}

}  // namespace

std::shared_ptr<Buffer> OpenClContext::adopt_buffer(std::size_t device_index, std::uintptr_t native,
                                                    std::optional<std::size_t> size, bool take_ownership) {
    const auto mem = reinterpret_cast<cl_mem>(native);
    if (mem == nullptr) throw ArgumentError("native", "is a null cl_mem");
    // Nothing is taken over before the checks pass: on failure the caller still owns the handle.
    if (mem_info<cl_mem_object_type>(mem, CL_MEM_TYPE) != CL_MEM_OBJECT_BUFFER) {
        throw ArgumentError("native", "is a cl_mem that is not a buffer (an image or a pipe)");
    }
    if (mem_info<cl_context>(mem, CL_MEM_CONTEXT) != context_.get()) {
        throw ArgumentError("native", "is a buffer of another cl_context than this context's");
    }
    const auto available = mem_info<std::size_t>(mem, CL_MEM_SIZE);
    const std::size_t bytes = size.value_or(available);
    if (bytes > available) {
        throw ArgumentError("size", fmt::format("{} bytes do not fit in the cl_mem's {} bytes", bytes, available));
    }
    Handle<cl_mem> handle = take_ownership ? Handle<cl_mem>(mem) : Handle<cl_mem>::retain(mem);
    return std::make_shared<OpenClBuffer>(std::static_pointer_cast<OpenClContext>(shared_from_this()), device_index,
                                          bytes, std::move(handle));
}

PitchedAllocation OpenClContext::allocate_pitched(std::size_t device_index, std::size_t width, std::size_t height,
                                                  std::size_t element_size) {
    const std::size_t align =
        std::max<std::size_t>(device_info<cl_uint>(device_id(device_index), CL_DEVICE_MEM_BASE_ADDR_ALIGN) / 8,
                              element_size);
    const std::size_t pitch = (width + align - 1) / align * align;
    return {allocate(device_index, pitch * height), pitch};
}

}  // namespace kjarni::backend::opencl
