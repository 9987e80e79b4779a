#pragma once
// Programs and kernels on OpenCL: clBuildProgram from source or from a cached binary.

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <map>
#include <mutex>

#include "backend/backend.hpp"
#include "backend/opencl/opencl_context.hpp"
#include "backend/opencl/opencl_handle.hpp"
#include "base/spin_lock.hpp"

namespace kjarni::backend::opencl {

/// Compiles `source` for one device of the context; CompileError with the build log on failure.
BuildOutput build_program(const std::shared_ptr<OpenClContext>& context, std::size_t device_index,
                          const std::string& source, const BuildOptions& options);

/// Recreates a program from the binary build_program returned (same options).
std::shared_ptr<Module> load_program(const std::shared_ptr<OpenClContext>& context, std::size_t device_index,
                                     std::span<const std::byte> binary, const BuildOptions& options);

/// Compiles the source units with clCompileProgram and links them, with the units of compiled
/// code (compiled objects or libraries), with clLinkProgram (OpenCL 1.2 devices; UnsupportedError
/// on older ones).
BuildOutput link_program(const std::shared_ptr<OpenClContext>& context, std::size_t device_index,
                         std::span<const LinkUnit> units, const BuildOptions& options);

/// The binary of `source` compiled with clCompileProgram (a compiled object, which link_program
/// takes back as a code unit). OpenCL 1.2 devices; UnsupportedError on older ones.
std::vector<std::byte> compile_unit_program(const std::shared_ptr<OpenClContext>& context, std::size_t device_index,
                                            const std::string& source, const BuildOptions& options);

class OpenClModule final : public Module {
public:
    OpenClModule(std::shared_ptr<OpenClContext> context, std::size_t device_index, Handle<cl_program> program);
    OpenClModule(const OpenClModule&) = delete;
    OpenClModule& operator=(const OpenClModule&) = delete;

    std::size_t device_index() const override { return device_index_; }
    std::shared_ptr<Kernel> kernel(const std::string& name) override;
    std::vector<std::string> kernel_names() const override;
    std::optional<std::size_t> constant_size(const std::string& name) override;
    void set_constant(Queue& queue, const std::string& name, const void* host, std::size_t size) override;
    void set_constant(Queue& queue, const std::string& name, Buffer& source, std::size_t source_offset,
                      std::size_t size) override;

private:
    std::shared_ptr<OpenClContext> context_;
    std::size_t device_index_;
    Handle<cl_program> program_;  // declared before kernels_: the kernels go first
    std::mutex mutex_;
    std::map<std::string, std::shared_ptr<Kernel>, std::less<>> kernels_;
};

class OpenClKernel final : public Kernel {
public:
    OpenClKernel(std::shared_ptr<OpenClContext> context, std::size_t device_index, Handle<cl_kernel> kernel);
    OpenClKernel(const OpenClKernel&) = delete;
    OpenClKernel& operator=(const OpenClKernel&) = delete;

    const KernelAttributes& attributes() const override { return attributes_; }
    const std::vector<ParamInfo>& params() const override { return params_; }
    /// The cl_kernel. Launches skip arguments that equal what they last set (see SetArgument);
    /// once the handle is given out, whoever holds it may set arguments too, so from then on every
    /// launch sets every argument.
    std::uintptr_t native_handle() const override {
        handle_given_.store(true, std::memory_order_relaxed);
        return reinterpret_cast<std::uintptr_t>(kernel_.get());
    }
    std::shared_ptr<Event> launch(Queue& queue, unsigned dims, const std::size_t* global_size,
                                  const std::size_t* local_size, std::size_t dynamic_local_mem,
                                  std::span<const KernelArg> args, bool want_event) override;
    /// The cl_kernel, for a command buffer to make a kernel of its own from (its program and
    /// name) without giving the handle out: eager launches keep skipping unchanged arguments.
    cl_kernel recording_source() const noexcept { return kernel_.get(); }

private:
    std::shared_ptr<OpenClContext> context_;
    std::size_t device_index_;
    Handle<cl_kernel> kernel_;
    // Launches with shared virtual memory arguments go through a second kernel object, made on the
    // first such launch (quirks::nvidia_svm_argument_sticks, opencl_quirks.hpp): kernel_ (the
    // native handle users may hold) never sees an SVM pointer, and svm_kernel_ is made anew when
    // one of its SVM arguments turns into a buffer.
    Handle<cl_kernel> svm_kernel_;
    std::vector<bool> svm_arguments_;  // which arguments of svm_kernel_ were last set as SVM pointers
    cl_kernel kernel_for(std::span<const KernelArg> args);
    KernelAttributes attributes_;
    std::vector<ParamInfo> params_;
    // clSetKernelArg changes the kernel object: launches from several threads take turns. A spin
    // lock: the turns are short and rarely meet, and the launch path is measured against the raw
    // driver call.
    detail::SpinLock launch_lock_;
    // What each parameter of kernel_ was last set to by a launch, so that a launch passing the same
    // value skips its clSetKernelArg (OpenCL keeps arguments between enqueues). Buffers are known
    // by their serial, offset and size; scalars of up to 16 bytes by their bytes; anything else
    // (images, larger structs, SVM pointers) is set every time. Four words, compared as such.
    // Guarded by launch_lock_.
    struct SetArgument {
        static constexpr std::uint64_t unknown = 0, buffer = 1, scalar = 2;
        std::uint64_t kind = unknown;
        std::uint64_t first = 0;   // buffer: its serial; scalar: bytes 0-7
        std::uint64_t second = 0;  // buffer: its offset; scalar: bytes 8-15
        std::uint64_t size = 0;    // bytes of the buffer's region, of the scalar
        /// All four words at once, without a branch per word (this runs for every argument).
        bool same_as(const SetArgument& other) const noexcept {
            return ((kind ^ other.kind) | (first ^ other.first) | (second ^ other.second) | (size ^ other.size)) == 0;
        }
    };
    // clSetKernelArg of `arg` at parameter `index` (two for an OpenCL sampled image).
    static void set_argument(const OpenClLibrary& cl, cl_kernel kernel, cl_uint index, const KernelArg& arg);
    // Sets every argument on kernel_ that differs from what it holds, remembering what it set;
    // false, having set none or some, where an argument is shared virtual memory (kernel_for).
    bool set_changed_arguments(const OpenClLibrary& cl, std::span<const KernelArg> args);
    // The failure of a changed argument's clSetKernelArg: the slot forgotten, BackendError thrown.
    // Out of line and cold, so that the loop above stays small.
    [[noreturn, gnu::cold, gnu::noinline]] static void forget_and_throw(SetArgument& slot, cl_int status);
    std::vector<SetArgument> set_arguments_;
    mutable std::atomic<bool> handle_given_{false};
};

}  // namespace kjarni::backend::opencl
