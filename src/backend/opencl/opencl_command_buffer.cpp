// A recorded sequence as an OpenCL command buffer (cl_khr_command_buffer, provisional 0.9.x).
//
// Each recorded launch sets its arguments on a kernel object of its own (made from the same program
// and name), never on the kernel eager launches use: those remember what they last set
// (OpenClKernel::SetArgument) and must not be changed behind their back. One per launch, not per
// kernel: the extension says a command captures its kernel's arguments when it is recorded, but
// PoCL 3.1 reads them when the buffer runs (two launches of one kernel object both ran with the
// second's arguments).
// Commands are chained by sync points, which keeps the queue's in-order semantics.
//
// A changed argument re-records the whole buffer before the next replay (mutable dispatch,
// cl_khr_command_buffer_mutable_dispatch, is not assumed). Where the device cannot enqueue a
// buffer again while it is pending (no simultaneous use), a replay first waits for the previous one.
//
// The ABI changed within 0.9.x: from 0.9.5 on, clCommandCopyBufferKHR and clCommandFillBufferKHR
// take a properties list after the queue. The version the device reports picks the signature.

#include "backend/opencl/opencl_command_buffer.hpp"

#include <CL/cl.h>
#include <CL/cl_ext.h>

#include <cstring>
#include <string>
#include <vector>

#include "backend/dynamic_library.hpp"
#include "backend/opencl/opencl_context.hpp"
#include "backend/opencl/opencl_device.hpp"
#include "backend/opencl/opencl_error.hpp"
#include "backend/opencl/opencl_handle.hpp"
#include "backend/opencl/opencl_library.hpp"
#include "backend/opencl/opencl_program.hpp"
#include "backend/opencl/opencl_queue.hpp"
#include "backend/recorded_steps.hpp"
#include "kjarni/error.hpp"

namespace kjarni::backend::opencl {

namespace {

using CreateCommandBufferFn = cl_command_buffer_khr(CL_API_CALL*)(cl_uint, const cl_command_queue*,
                                                                  const cl_command_buffer_properties_khr*, cl_int*);
using FinalizeCommandBufferFn = cl_int(CL_API_CALL*)(cl_command_buffer_khr);
using ReleaseCommandBufferFn = cl_int(CL_API_CALL*)(cl_command_buffer_khr);
using EnqueueCommandBufferFn = cl_int(CL_API_CALL*)(cl_uint, cl_command_queue*, cl_command_buffer_khr, cl_uint,
                                                    const cl_event*, cl_event*);
using CommandNDRangeKernelFn = cl_int(CL_API_CALL*)(cl_command_buffer_khr, cl_command_queue, const cl_properties*,
                                                    cl_kernel, cl_uint, const size_t*, const size_t*, const size_t*,
                                                    cl_uint, const cl_sync_point_khr*, cl_sync_point_khr*,
                                                    cl_mutable_command_khr*);
// Before 0.9.5.
using CommandCopyBufferFn = cl_int(CL_API_CALL*)(cl_command_buffer_khr, cl_command_queue, cl_mem, cl_mem, size_t,
                                                 size_t, size_t, cl_uint, const cl_sync_point_khr*, cl_sync_point_khr*,
                                                 cl_mutable_command_khr*);
using CommandFillBufferFn = cl_int(CL_API_CALL*)(cl_command_buffer_khr, cl_command_queue, cl_mem, const void*, size_t,
                                                 size_t, size_t, cl_uint, const cl_sync_point_khr*, cl_sync_point_khr*,
                                                 cl_mutable_command_khr*);
// From 0.9.5 on: a properties list after the queue.
using CommandCopyBufferWithPropertiesFn = cl_int(CL_API_CALL*)(cl_command_buffer_khr, cl_command_queue,
                                                               const cl_properties*, cl_mem, cl_mem, size_t, size_t,
                                                               size_t, cl_uint, const cl_sync_point_khr*,
                                                               cl_sync_point_khr*, cl_mutable_command_khr*);
using CommandFillBufferWithPropertiesFn = cl_int(CL_API_CALL*)(cl_command_buffer_khr, cl_command_queue,
                                                               const cl_properties*, cl_mem, const void*, size_t,
                                                               size_t, size_t, cl_uint, const cl_sync_point_khr*,
                                                               cl_sync_point_khr*, cl_mutable_command_khr*);
using GetExtensionFunctionAddressForPlatformFn = void*(CL_API_CALL*)(cl_platform_id, const char*);

struct CommandBufferFunctions {
    CreateCommandBufferFn create = nullptr;
    FinalizeCommandBufferFn finalize = nullptr;
    ReleaseCommandBufferFn release = nullptr;
    EnqueueCommandBufferFn enqueue = nullptr;
    CommandNDRangeKernelFn ndrange = nullptr;
    void* copy = nullptr;  // CommandCopyBufferFn or ...WithPropertiesFn, as `with_properties` says
    void* fill = nullptr;
    bool with_properties = false;
    bool simultaneous_use = false;
};

/// The extension's version on `device`, 0 when it is not there or the device cannot say.
cl_version command_buffer_version(cl_device_id device) {
    std::size_t bytes = 0;
    if (cl().clGetDeviceInfo(device, CL_DEVICE_EXTENSIONS_WITH_VERSION, 0, nullptr, &bytes) != CL_SUCCESS) return 0;
    std::vector<cl_name_version> extensions(bytes / sizeof(cl_name_version));
    if (extensions.empty() || cl().clGetDeviceInfo(device, CL_DEVICE_EXTENSIONS_WITH_VERSION, bytes, extensions.data(),
                                                   nullptr) != CL_SUCCESS) {
        return 0;
    }
    for (const cl_name_version& extension : extensions) {
        if (std::strncmp(extension.name, "cl_khr_command_buffer", CL_NAME_VERSION_MAX_NAME_SIZE) == 0) {
            return extension.version;
        }
    }
    return 0;
}

/// The entry points for `device`, or nullopt-like (create null) where the device's command buffers
/// do not suit kjarni's queues.
CommandBufferFunctions command_buffer_functions(cl_platform_id platform, cl_device_id device) {
    CommandBufferFunctions f;
    const cl_version version = command_buffer_version(device);
    if (version == 0 || CL_VERSION_MAJOR(version) != 0 || CL_VERSION_MINOR(version) != 9) return f;
    // kjarni's queues are in order with profiling on (opencl_queue.cpp).
    cl_command_queue_properties required = 0;
    if (cl().clGetDeviceInfo(device, CL_DEVICE_COMMAND_BUFFER_REQUIRED_QUEUE_PROPERTIES_KHR, sizeof required, &required,
                             nullptr) != CL_SUCCESS ||
        (required & ~cl_command_queue_properties{CL_QUEUE_PROFILING_ENABLE}) != 0) {
        return f;
    }
    cl_device_command_buffer_capabilities_khr capabilities = 0;
    if (cl().clGetDeviceInfo(device, CL_DEVICE_COMMAND_BUFFER_CAPABILITIES_KHR, sizeof capabilities, &capabilities,
                             nullptr) != CL_SUCCESS) {
        return f;
    }
    std::string error;
    static const auto library = DynamicLibrary::open({cl().path}, error);
    GetExtensionFunctionAddressForPlatformFn lookup = nullptr;
    if (!library || !library->load(lookup, "clGetExtensionFunctionAddressForPlatform")) return f;
    f.finalize = reinterpret_cast<FinalizeCommandBufferFn>(lookup(platform, "clFinalizeCommandBufferKHR"));
    f.release = reinterpret_cast<ReleaseCommandBufferFn>(lookup(platform, "clReleaseCommandBufferKHR"));
    f.enqueue = reinterpret_cast<EnqueueCommandBufferFn>(lookup(platform, "clEnqueueCommandBufferKHR"));
    f.ndrange = reinterpret_cast<CommandNDRangeKernelFn>(lookup(platform, "clCommandNDRangeKernelKHR"));
    f.copy = lookup(platform, "clCommandCopyBufferKHR");
    f.fill = lookup(platform, "clCommandFillBufferKHR");
    f.with_properties = CL_VERSION_PATCH(version) >= 5;
    f.simultaneous_use = (capabilities & CL_COMMAND_BUFFER_CAPABILITY_SIMULTANEOUS_USE_KHR) != 0;
    if (f.finalize == nullptr || f.release == nullptr || f.enqueue == nullptr || f.ndrange == nullptr ||
        f.copy == nullptr || f.fill == nullptr) {
        return f;
    }
    // Last: a non-null `create` says the table is complete.
    f.create = reinterpret_cast<CreateCommandBufferFn>(lookup(platform, "clCreateCommandBufferKHR"));
    return f;
}

class CommandBufferSequence final : public RecordedSequence {
public:
    CommandBufferSequence(OpenClQueue& queue, const CommandBufferFunctions& f) : queue_(queue), f_(f) { create(); }
    CommandBufferSequence(const CommandBufferSequence&) = delete;
    CommandBufferSequence& operator=(const CommandBufferSequence&) = delete;
    ~CommandBufferSequence() override {
        wait_last();
        drop();
    }

    const char* mechanism() const noexcept override { return "OpenCL command buffer"; }

    void launch(Kernel& kernel, unsigned dims, const std::size_t* global_size, const std::size_t* local_size,
                std::size_t dynamic_local_mem, std::span<const KernelArg> args) override {
        if (dynamic_local_mem != 0) {
            throw UnsupportedError("dynamic local memory (LOCAL_MEM_DYNAMIC) is CUDA only");
        }
        record(steps_.add_launch(kernel, dims, global_size, local_size, dynamic_local_mem, args));
    }

    void copy(Buffer& dst, std::size_t dst_offset, Buffer& src, std::size_t src_offset, std::size_t size) override {
        record(steps_.add_copy(dst, dst_offset, src, src_offset, size));
    }

    void fill(Buffer& dst, std::size_t offset, std::size_t size, const void* pattern,
              std::size_t pattern_size) override {
        record(steps_.add_fill(dst, offset, size, pattern, pattern_size));
    }

    void finish() override { check(f_.finalize(buffer_), "clFinalizeCommandBufferKHR"); }
    void abandon() noexcept override {}

    void set_argument(std::size_t launch, std::size_t argument, const KernelArg& value) override {
        steps_.set_argument(launch, argument, value);
        stale_ = true;
    }

    void replay(Queue& queue) override {
        if (stale_) rerecord();
        cl_command_queue handle = static_cast<OpenClQueue&>(queue).handle();
        if (!f_.simultaneous_use) wait_last();
        cl_event* event = f_.simultaneous_use ? nullptr : &last_;
        check(f_.enqueue(1, &handle, buffer_, 0, nullptr, event), "clEnqueueCommandBufferKHR");
    }

private:
    void create() {
        const cl_command_buffer_properties_khr simultaneous[] = {CL_COMMAND_BUFFER_FLAGS_KHR,
                                                                 CL_COMMAND_BUFFER_SIMULTANEOUS_USE_KHR, 0};
        cl_command_queue handle = queue_.handle();
        cl_int status = CL_SUCCESS;
        buffer_ = f_.create(1, &handle, f_.simultaneous_use ? simultaneous : nullptr, &status);
        check(status, "clCreateCommandBufferKHR");
        has_sync_point_ = false;
    }

    void drop() noexcept {
        if (buffer_ != nullptr) f_.release(buffer_);
        buffer_ = nullptr;
    }

    void wait_last() noexcept {
        if (last_ == nullptr) return;
        cl().clWaitForEvents(1, &last_);
        cl().clReleaseEvent(last_);
        last_ = nullptr;
    }

    void rerecord() {
        wait_last();  // a pending buffer may not be released under the work that uses it
        drop();
        kernels_.clear();
        create();
        steps_.for_each([this](const auto& step) { record(step); });
        check(f_.finalize(buffer_), "clFinalizeCommandBufferKHR");
        stale_ = false;
    }

    // The sync point list a new command waits for: the previous command's.
    cl_uint waits() const { return has_sync_point_ ? 1 : 0; }
    const cl_sync_point_khr* wait_list() const { return has_sync_point_ ? &sync_point_ : nullptr; }

    /// A kernel object of the recording's own for one launch of `kernel` (see the top of the file).
    cl_kernel own_kernel(Kernel& kernel) {
        cl_kernel original = static_cast<OpenClKernel&>(kernel).recording_source();
        cl_program program = nullptr;
        check(cl().clGetKernelInfo(original, CL_KERNEL_PROGRAM, sizeof program, &program, nullptr), "clGetKernelInfo");
        std::size_t length = 0;
        check(cl().clGetKernelInfo(original, CL_KERNEL_FUNCTION_NAME, 0, nullptr, &length), "clGetKernelInfo");
        std::string name(length, '\0');
        check(cl().clGetKernelInfo(original, CL_KERNEL_FUNCTION_NAME, length, name.data(), nullptr), "clGetKernelInfo");
        name.resize(std::strlen(name.c_str()));
        cl_int status = CL_SUCCESS;
        Handle<cl_kernel> made(cl().clCreateKernel(program, name.c_str(), &status));
        check(status, "clCreateKernel");
        cl_kernel result = made.get();
        kernels_.push_back(std::move(made));
        return result;
    }

    void record(const RecordedLaunch& step) {
        cl_kernel kernel = own_kernel(*step.kernel);
        cl_uint index = 0;
        for (std::size_t i = 0; i < step.args.size(); index += step.args[i].param_count, ++i) {
            const KernelArg& arg = step.args[i];
            if (arg.kind == KernelArg::Kind::image) {
                check(cl().clSetKernelArg(kernel, index, sizeof(cl_mem), arg.scalar), "clSetKernelArg");
                if (arg.param_count == 2) {
                    check(cl().clSetKernelArg(kernel, index + 1, sizeof(cl_sampler), arg.scalar + sizeof(cl_mem)),
                          "clSetKernelArg");
                }
            } else if (arg.kind == KernelArg::Kind::buffer) {
                cl_mem mem = arg.buffer != nullptr
                                 ? static_cast<OpenClBuffer*>(arg.buffer)->region(arg.offset, arg.size)
                                 : nullptr;
                check(cl().clSetKernelArg(kernel, index, sizeof mem, &mem), "clSetKernelArg");
            } else if (arg.kind == KernelArg::Kind::shared_pointer) {
                if (cl().clSetKernelArgSVMPointer == nullptr) throw UnsupportedError("shared virtual memory arguments");
                check(cl().clSetKernelArgSVMPointer(kernel, index, arg.pointer), "clSetKernelArgSVMPointer");
            } else {
                check(cl().clSetKernelArg(kernel, index, arg.size, arg.bytes != nullptr ? arg.bytes : arg.scalar),
                      "clSetKernelArg");
            }
        }
        cl_sync_point_khr point = 0;
        check(f_.ndrange(buffer_, nullptr, nullptr, kernel, step.dims, nullptr, step.global.data(), step.local.data(),
                         waits(), wait_list(), &point, nullptr),
              "clCommandNDRangeKernelKHR");
        advance(point);
    }

    void record(const RecordedCopy& step) {
        cl_mem src = static_cast<OpenClBuffer*>(step.src)->mem();
        cl_mem dst = static_cast<OpenClBuffer*>(step.dst)->mem();
        cl_sync_point_khr point = 0;
        const cl_int status = f_.with_properties
                                  ? reinterpret_cast<CommandCopyBufferWithPropertiesFn>(
                                        f_.copy)(buffer_, nullptr, nullptr, src, dst, step.src_offset, step.dst_offset,
                                                 step.size, waits(), wait_list(), &point, nullptr)
                                  : reinterpret_cast<CommandCopyBufferFn>(
                                        f_.copy)(buffer_, nullptr, src, dst, step.src_offset, step.dst_offset,
                                                 step.size, waits(), wait_list(), &point, nullptr);
        check(status, "clCommandCopyBufferKHR");
        advance(point);
    }

    void record(const RecordedFill& step) {
        cl_mem dst = static_cast<OpenClBuffer*>(step.dst)->mem();
        cl_sync_point_khr point = 0;
        const cl_int status = f_.with_properties
                                  ? reinterpret_cast<CommandFillBufferWithPropertiesFn>(
                                        f_.fill)(buffer_, nullptr, nullptr, dst, step.pattern.data(), step.pattern_size,
                                                 step.offset, step.size, waits(), wait_list(), &point, nullptr)
                                  : reinterpret_cast<CommandFillBufferFn>(
                                        f_.fill)(buffer_, nullptr, dst, step.pattern.data(), step.pattern_size,
                                                 step.offset, step.size, waits(), wait_list(), &point, nullptr);
        check(status, "clCommandFillBufferKHR");
        advance(point);
    }

    void advance(cl_sync_point_khr point) {
        sync_point_ = point;
        has_sync_point_ = true;
    }

    OpenClQueue& queue_;  // kept alive by the public layer
    CommandBufferFunctions f_;
    cl_command_buffer_khr buffer_ = nullptr;
    cl_sync_point_khr sync_point_ = 0;
    bool has_sync_point_ = false;
    bool stale_ = false;
    cl_event last_ = nullptr;
    std::vector<Handle<cl_kernel>> kernels_;  // one per recorded launch, in the buffer now
    RecordedSteps steps_;
};

}  // namespace

std::unique_ptr<RecordedSequence> make_command_buffer(Context& context, OpenClQueue& queue) {
    const auto& device = static_cast<const OpenClDevice&>(*context.devices().at(queue.device_index()));
    const auto platform = reinterpret_cast<cl_platform_id>(device.platform().native_handle());
    const CommandBufferFunctions f = command_buffer_functions(platform, device.id());
    if (f.create == nullptr) return nullptr;
    try {
        return std::make_unique<CommandBufferSequence>(queue, f);
    } catch (const BackendError&) {
        return nullptr;  // a driver that lists the extension but refuses this queue: the list then
    }
}

}  // namespace kjarni::backend::opencl
