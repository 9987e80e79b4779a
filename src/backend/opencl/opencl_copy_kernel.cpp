#include "backend/opencl/opencl_copy_kernel.hpp"

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

// 16-byte vectors, one per work item up to gpu_copy_most_items, further ones a grid apart (four
// loads in flight before their stores); the last size % 16 bytes one by one by the first work item.
// Both offsets are multiples of 16 (copy_by_kernel).
constexpr const char* gpu_copy_source = R"(
kernel void kj_gpu_copy(global uchar* restrict dst, global const uchar* restrict src, ulong dst_offset,
                        ulong src_offset, ulong size)
{
    global uint4* restrict d = (global uint4*)(dst + dst_offset);
    global const uint4* restrict s = (global const uint4*)(src + src_offset);
    const ulong vectors = size / 16;
    const ulong grid = get_global_size(0);
    ulong i = get_global_id(0);
    for (; i + 3 * grid < vectors; i += 4 * grid) {
        const uint4 a = s[i], b = s[i + grid], c = s[i + 2 * grid], e = s[i + 3 * grid];
        d[i] = a;
        d[i + grid] = b;
        d[i + 2 * grid] = c;
        d[i + 3 * grid] = e;
    }
    for (; i < vectors; i += grid) d[i] = s[i];
    if (get_global_id(0) == 0)
        for (ulong b = vectors * 16; b < size; ++b) dst[dst_offset + b] = src[src_offset + b];
}
)";

constexpr std::size_t gpu_copy_group = 256;

// The most work items of a copy; beyond it each takes several vectors. One vector per work item
// ran fastest on the H200 through NVIDIA's OpenCL: with the grid capped at 8192 work items per
// compute unit (four vectors each at 64 MiB) 64 / 256 / 2048 MiB copied at 3606 / 3953 / 3971 GB/s;
// uncapped at 3791 / 4142 / 4267, where CUDA's copy ran at 3826 / 4162 / 4265 in the same run.
constexpr std::size_t gpu_copy_most_items = std::size_t{1} << 27;

bool is_cpu(const Device& device) { return device.params().type == DeviceType::cpu; }

/// Sets argument `index` to `value` unless the kernel has it already. A call that fails leaves the
/// argument unknown.
void set_number(cl_kernel kernel, CopyKernelArguments& given, cl_uint index, cl_ulong value) {
    if (given.known[index] && given.values[index] == value) return;
    given.known[index] = false;
    check(cl().clSetKernelArg(kernel, index, sizeof value, &value), "clSetKernelArg");
    given.values[index] = value;
    given.known[index] = true;
}

void set_buffer(cl_kernel kernel, CopyKernelArguments& given, cl_uint index, const OpenClBuffer& buffer) {
    if (given.known[index] && given.values[index] == buffer.serial()) return;
    given.known[index] = false;
    cl_mem mem = buffer.mem();
    check(cl().clSetKernelArg(kernel, index, sizeof(cl_mem), &mem), "clSetKernelArg");
    given.values[index] = buffer.serial();
    given.known[index] = true;
}

void enqueue_cpu_form(cl_command_queue queue, cl_kernel kernel, CopyKernelArguments& given, const OpenClBuffer& dst,
                      std::size_t dst_offset, const OpenClBuffer& src, std::size_t src_offset, std::size_t size,
                      std::size_t compute_units) {
    // A few runs per compute unit: the runtime hands groups to its threads as they free up, so a
    // thread that other processes slow down takes fewer.
    const std::size_t items =
        std::clamp<std::size_t>(size / cpu_copy_min_run, 1, std::max<std::size_t>(compute_units, 1) * 4);
    const std::size_t run = ((size + items - 1) / items + run_granule - 1) / run_granule * run_granule;
    const std::size_t global = (size + run - 1) / run;
    const cl_ulong args[] = {dst_offset, src_offset, size, run};
    set_buffer(kernel, given, 0, dst);
    set_buffer(kernel, given, 1, src);
    for (cl_uint i = 0; i < 4; ++i) set_number(kernel, given, 2 + i, args[i]);
    const std::size_t local = 1;
    check(cl().clEnqueueNDRangeKernel(queue, kernel, 1, nullptr, &global, &local, 0, nullptr, nullptr),
          "clEnqueueNDRangeKernel");
}

void enqueue_gpu_form(cl_command_queue queue, cl_kernel kernel, CopyKernelArguments& given, const OpenClBuffer& dst,
                      std::size_t dst_offset, const OpenClBuffer& src, std::size_t src_offset, std::size_t size) {
    const std::size_t vectors = std::max<std::size_t>(size / 16, 1);
    const std::size_t items = std::min(vectors, gpu_copy_most_items);
    const std::size_t global = (items + gpu_copy_group - 1) / gpu_copy_group * gpu_copy_group;
    const cl_ulong args[] = {dst_offset, src_offset, size};
    set_buffer(kernel, given, 0, dst);
    set_buffer(kernel, given, 1, src);
    for (cl_uint i = 0; i < 3; ++i) set_number(kernel, given, 2 + i, args[i]);
    const std::size_t local = gpu_copy_group;
    check(cl().clEnqueueNDRangeKernel(queue, kernel, 1, nullptr, &global, &local, 0, nullptr, nullptr),
          "clEnqueueNDRangeKernel");
}

}  // namespace

Handle<cl_kernel> CopyKernelPrograms::kernel(const OpenClContext& context, std::size_t device_index) {
    const std::lock_guard lock(mutex_);
    if (entries_.size() <= device_index) entries_.resize(device_index + 1);
    Entry& entry = entries_[device_index];
    if (!entry.tried) {
        entry.tried = true;
        const bool cpu = is_cpu(*context.devices()[device_index]);
        cl_int status = CL_SUCCESS;
        const char* source = cpu ? cpu_copy_source : gpu_copy_source;
        Handle<cl_program> program(cl().clCreateProgramWithSource(context.handle(), 1, &source, nullptr, &status));
        cl_device_id device = context.device_id(device_index);
        if (status == CL_SUCCESS &&
            cl().clBuildProgram(program.get(), 1, &device, "", nullptr, nullptr) == CL_SUCCESS) {
            entry.program = std::move(program);
            entry.name = cpu ? "kj_cpu_copy" : "kj_gpu_copy";
        }
    }
    if (!entry.program) return {};
    cl_int status = CL_SUCCESS;
    Handle<cl_kernel> made(cl().clCreateKernel(entry.program.get(), entry.name, &status));
    check(status, "clCreateKernel");
    return made;
}

bool copy_by_kernel(const Device& device, std::size_t size, std::size_t dst_offset, std::size_t src_offset) {
    if (is_cpu(device)) return size >= cpu_copy_min_bytes;
    return device.params().type == DeviceType::gpu && size >= gpu_copy_min_bytes && dst_offset % 16 == 0 &&
           src_offset % 16 == 0;
}

void enqueue_copy_kernel(const Device& device, cl_command_queue queue, cl_kernel kernel, CopyKernelArguments& given,
                         OpenClBuffer& dst, std::size_t dst_offset, OpenClBuffer& src, std::size_t src_offset,
                         std::size_t size) {
    if (is_cpu(device))
        return enqueue_cpu_form(queue, kernel, given, dst, dst_offset, src, src_offset, size,
                                device.params().compute_units);
    enqueue_gpu_form(queue, kernel, given, dst, dst_offset, src, src_offset, size);
}

}  // namespace kjarni::backend::opencl
