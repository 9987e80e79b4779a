#pragma once
// Programs on CUDA: a module is a CUmodule loaded from a cubin that NVRTC compiled for the device's
// architecture; a kernel is one CUfunction of it.
//
// Ownership: the CUmodule itself lives in a LoadedModule shared by the CudaModule and every
// CudaKernel taken from it, so a kernel stays usable after its module object is gone, and the
// module can cache its kernels without a reference cycle.

#include <cuda.h>

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "backend/backend.hpp"
#include "backend/cuda/cuda_driver.hpp"
#include "backend/cuda/cuda_handle.hpp"

namespace kjarni::backend::cuda {

class CudaContext;

/// A loaded CUmodule, unloaded (in its context) when the last owner goes.
class LoadedModule {
public:
    /// cuModuleLoadData of `image` (a cubin, a fatbin or NUL-terminated PTX) in the context of
    /// device `device_index`; throws BackendError when the driver refuses it. Where the driver
    /// cannot count a kernel's parameters (no cuFuncGetParamCount, before CUDA 12.4), also reads
    /// from the image how many each kernel takes (kernel_param_counts.hpp).
    LoadedModule(std::shared_ptr<CudaContext> context, std::size_t device_index, std::span<const std::byte> image);
    /// cuModuleLoadDataEx with the JIT options of `jit`; the driver's error log is in the error.
    LoadedModule(std::shared_ptr<CudaContext> context, std::size_t device_index, std::span<const std::byte> image,
                 const BuildOptions& jit);
    LoadedModule(const LoadedModule&) = delete;
    LoadedModule& operator=(const LoadedModule&) = delete;

    const std::shared_ptr<CudaContext>& context() const noexcept { return context_; }
    std::size_t device_index() const noexcept { return device_index_; }
    CUcontext cu_context() const noexcept { return cu_context_; }
    CUmodule module() const noexcept { return module_.get(); }
    /// How many parameters the kernel `name` takes as the image declares it, or nullopt when the
    /// image does not tell (a fatbin, a record layout kjarni does not know) or was not read (the
    /// driver counts them).
    std::optional<std::size_t> param_count(std::string_view name) const;
    /// What the JIT reported, for a module loaded with JIT options.
    const std::optional<JitReport>& report() const noexcept { return report_; }

private:
    void read_param_counts(std::span<const std::byte> image);
    std::optional<JitReport> report_;

    std::shared_ptr<CudaContext> context_;
    std::size_t device_index_;
    CUcontext cu_context_;
    DriverHandle<CUmodule> module_;
    std::map<std::string, std::size_t, std::less<>> param_counts_;
};

class CudaKernel final : public Kernel {
public:
    /// Reads the function's attributes and parameters once, here. The parameters are counted by
    /// cuFuncGetParamCount where the driver has it, else by `image_param_count` (what the module's
    /// image declares); with neither they are left unknown. The driver is never asked about a
    /// parameter past the last, which it would answer with an error.
    CudaKernel(std::shared_ptr<LoadedModule> module, CUfunction function,
               std::optional<std::size_t> image_param_count = std::nullopt);

    const KernelAttributes& attributes() const override { return attributes_; }
    const std::vector<ParamInfo>& params() const override { return params_; }
    std::uintptr_t native_handle() const override { return reinterpret_cast<std::uintptr_t>(function_); }
    std::shared_ptr<Event> launch(Queue& queue, unsigned dims, const std::size_t* global_size,
                                  const std::size_t* local_size, std::size_t dynamic_local_mem,
                                  std::span<const KernelArg> args, bool want_event) override;

    CUfunction function() const noexcept { return function_; }
    /// cuFuncSetCacheConfig / CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT (cuda_knobs.cpp).
    void set_cache_preference(CachePreference preference) override;
    void set_shared_memory_carveout(int percent) override;
    /// cuFuncSetAttribute (cuda_knobs.cpp); the dynamic shared memory limit is remembered, so that
    /// launches do not raise it again.
    void set_attribute(KernelAttributeId attribute, int value) override;

private:
    /// Raises the function's dynamic shared memory limit to at least `bytes` (making the context
    /// current for the call). Beyond 48 KiB the driver requires that opt-in.
    void allow_dynamic_shared(std::size_t bytes);
    /// The launch of `params` (a pointer to each argument's value, null for none). Inlined into
    /// launch(): a call of its own costs every launch some 25 instructions.
    [[gnu::always_inline]] std::shared_ptr<Event> launch_params(Queue& queue, unsigned dims,
                                                                const std::size_t* global_size,
                                                                const std::size_t* local_size,
                                                                std::size_t dynamic_local_mem, void** params,
                                                                bool want_event);
    /// launch() of more arguments than fit its arrays on the stack: the parameter arrays on the heap.
    std::shared_ptr<Event> launch_many(Queue& queue, unsigned dims, const std::size_t* global_size,
                                       const std::size_t* local_size, std::size_t dynamic_local_mem,
                                       std::span<const KernelArg> args, bool want_event);

    std::shared_ptr<LoadedModule> module_;
    const Driver& driver_;
    CUcontext cu_context_;
    CUfunction function_;
    KernelAttributes attributes_;
    std::vector<ParamInfo> params_;
    /// The dynamic shared memory the function is allowed so far (the driver's default is 48 KiB).
    std::atomic<std::size_t> dynamic_shared_allowed_;
    std::mutex attribute_mutex_;
};

class CudaModule final : public Module {
public:
    explicit CudaModule(std::shared_ptr<LoadedModule> module);

    std::size_t device_index() const override { return module_->device_index(); }
    std::shared_ptr<Kernel> kernel(const std::string& name) override;
    std::vector<std::string> kernel_names() const override;
    std::optional<std::size_t> constant_size(const std::string& name) override;
    void set_constant(Queue& queue, const std::string& name, const void* host, std::size_t size) override;
    void set_constant(Queue& queue, const std::string& name, Buffer& source, std::size_t source_offset,
                      std::size_t size) override;
    std::shared_ptr<Buffer> global_buffer(const std::string& name) override;
    std::optional<JitReport> jit_report() const override { return module_->report(); }

    const std::shared_ptr<LoadedModule>& loaded() const noexcept { return module_; }

private:
    /// The constant's address and size, or nullopt (the context is current).
    std::optional<std::pair<CUdeviceptr, std::size_t>> find_global(const std::string& name) const;

    std::shared_ptr<LoadedModule> module_;
    std::mutex mutex_;
    /// Kernels handed out so far, so that a name always gives the same object.
    std::map<std::string, std::shared_ptr<CudaKernel>, std::less<>> kernels_;
};

/// Whether `image` looks like something cuModuleLoadData can read without running past its end:
/// a complete ELF image (cubin) whose headers and sections lie inside it, or NUL-terminated text
/// (PTX). cuModuleLoadData takes no size, so a truncated file must never reach it.
bool is_loadable_image(std::span<const std::byte> image) noexcept;

/// Whether `image` starts like a cubin (ELF) or a fatbin, as opposed to PTX text.
bool is_binary_image(std::span<const std::byte> image) noexcept;
/// Whether `image` starts like a cubin (ELF) / like a fatbin.
bool is_elf_image(std::span<const std::byte> image) noexcept;
bool is_fatbin_image(std::span<const std::byte> image) noexcept;

}  // namespace kjarni::backend::cuda
