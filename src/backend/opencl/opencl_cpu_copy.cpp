#include "backend/opencl/opencl_cpu_copy.hpp"

#include <algorithm>

#include "backend/opencl/opencl_context.hpp"
#include "backend/opencl/opencl_error.hpp"
#include "kjarni/device_parameters.hpp"

namespace kjarni::backend::opencl {

namespace {

// One run of bytes per work item; `restrict`: the regions never overlap (Buffer::set refuses it, as
// clEnqueueCopyBuffer does), which lets the compiler turn the loop into a memcpy.
constexpr const char* cpu_copy_source = R"(
kernel void kj_cpu_copy(global uchar* restrict dst, global const uchar* restrict src, ulong dst_offset,
                        ulong src_offset, ulong size, ulong run)
{
    const ulong begin = get_global_id(0) * run;
    const ulong end = min(begin + run, size);
    for (ulong i = begin; i < end; ++i) dst[dst_offset + i] = src[src_offset + i];
}
)";

// Runs start on multiples of a page, so that two work items never write one cache line.
constexpr std::size_t run_granule = 4096;

}  // namespace

Handle<cl_kernel> CpuCopyPrograms::kernel(const OpenClContext& context, std::size_t device_index) {
    const std::lock_guard lock(mutex_);
    if (entries_.size() <= device_index) entries_.resize(device_index + 1);
    Entry& entry = entries_[device_index];
    if (!entry.tried) {
        entry.tried = true;
        cl_int status = CL_SUCCESS;
        const char* source = cpu_copy_source;
        Handle<cl_program> program(cl().clCreateProgramWithSource(context.handle(), 1, &source, nullptr, &status));
        cl_device_id device = context.device_id(device_index);
        if (status == CL_SUCCESS && cl().clBuildProgram(program.get(), 1, &device, "", nullptr, nullptr) == CL_SUCCESS)
            entry.program = std::move(program);
    }
    if (!entry.program) return {};
    cl_int status = CL_SUCCESS;
    Handle<cl_kernel> made(cl().clCreateKernel(entry.program.get(), "kj_cpu_copy", &status));
    check(status, "clCreateKernel");
    return made;
}

bool copy_by_kernel(const Device& device, std::size_t size) {
    return device.params().type == DeviceType::cpu && size >= cpu_copy_min_bytes;
}

void enqueue_cpu_copy(cl_command_queue queue, cl_kernel kernel, cl_mem dst, std::size_t dst_offset, cl_mem src,
                      std::size_t src_offset, std::size_t size, std::size_t compute_units) {
    // A few runs per compute unit: the runtime hands groups to its threads as they free up, so a
    // thread that other processes slow down takes fewer.
    const std::size_t items =
        std::clamp<std::size_t>(size / cpu_copy_min_run, 1, std::max<std::size_t>(compute_units, 1) * 4);
    const std::size_t run = ((size + items - 1) / items + run_granule - 1) / run_granule * run_granule;
    const std::size_t global = (size + run - 1) / run;
    const cl_ulong args[] = {dst_offset, src_offset, size, run};
    check(cl().clSetKernelArg(kernel, 0, sizeof(cl_mem), &dst), "clSetKernelArg");
    check(cl().clSetKernelArg(kernel, 1, sizeof(cl_mem), &src), "clSetKernelArg");
    for (cl_uint i = 0; i < 4; ++i)
        check(cl().clSetKernelArg(kernel, 2 + i, sizeof(cl_ulong), &args[i]), "clSetKernelArg");
    const std::size_t local = 1;
    check(cl().clEnqueueNDRangeKernel(queue, kernel, 1, nullptr, &global, &local, 0, nullptr, nullptr),
          "clEnqueueNDRangeKernel");
}

}  // namespace kjarni::backend::opencl
