#pragma once
/// Kernels of a Program (reference: grunnur Kernel; PyCUDA function attributes): prepared for sizes
/// into a PreparedKernel, or launched directly with sizes and arguments. \file

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "kjarni/context.hpp"
#include "kjarni/detail/kernel_packing.hpp"
#include "kjarni/event.hpp"
#include "kjarni/kernel_attributes.hpp"
#include "kjarni/launch_sizes.hpp"
#include "kjarni/prepared_kernel.hpp"
#include "kjarni/queue.hpp"

namespace kjarni {

class Program;

namespace detail {
struct KernelState;
}  // namespace detail

/// One kernel of a Program, not yet given sizes: prepare() it for sizes, or launch it directly with
/// its sizes and arguments. Copies share the kernel; it keeps its program alive.
class Kernel {
public:
    const std::string& name() const;
    /// Sizes for every device of the program; local chosen automatically when not given.
    PreparedKernel prepare(const Sizes& global_size, const std::optional<Sizes>& local_size = std::nullopt,
                           std::size_t local_mem = 0) const;
    /// Sizes per device (only those devices are prepared): keys are context device indices.
    PreparedKernel prepare(const std::map<std::size_t, Sizes>& global_sizes,
                           const std::map<std::size_t, std::optional<Sizes>>& local_sizes = {},
                           std::size_t local_mem = 0) const;
    /// Sizes from a total (see TotalSize), on every device of the program.
    /// (Named apart from prepare so that `prepare({n})` stays unambiguous.)
    PreparedKernel prepare_total(TotalSize total, std::size_t local_mem = 0) const;
    /// The global and local sizes TotalSize gives on a device (one extent each).
    std::pair<std::size_t, std::size_t> padded_sizes(const BoundDevice& device, TotalSize total) const;
    /// pygpu's GpuKernel.numargs: the parameters the kernel declares, as the driver reports them
    /// (OpenCL CL_KERNEL_NUM_ARGS; CUDA cuFuncGetParamCount or, on older drivers, the module image).
    std::size_t numargs() const;
    /// The most threads / work items per block for this kernel, per program device (in order).
    std::vector<std::size_t> max_total_local_sizes() const;
    KernelAttributes attributes(const BoundDevice& device) const;
    /// CUfunction / cl_kernel on a device, for interoperation with the raw API. (OpenCL: kjarni's
    /// launches stop skipping arguments they set before, since the handle's holder may set others.)
    std::uintptr_t native_handle(const BoundDevice& device) const;
    /// The kernel's L1 / shared memory preference on a device (PyCUDA's Function.set_cache_config;
    /// CUDA cuFuncSetCacheConfig). UnsupportedError on OpenCL.
    void set_cache_preference(const BoundDevice& device, CachePreference preference) const;
    /// The share of the L1 / shared memory the kernel prefers as shared memory, percent 0..100, or -1
    /// for the driver's default (CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT). UnsupportedError
    /// on OpenCL. (The most dynamic shared memory needs no setting: a launch asking for more than
    /// 48 KiB raises the kernel's limit itself, up to max_dynamic_local_bytes.)
    void set_shared_memory_carveout(const BoundDevice& device, int percent) const;
    /// Sets a kernel attribute on a device (PyCUDA's Function.set_attribute; cuFuncSetAttribute).
    /// ArgumentError naming "value" for a value out of the attribute's range (negative sizes,
    /// a carveout outside -1..100, a flag other than 0 or 1); UnsupportedError on OpenCL.
    void set_attribute(const BoundDevice& device, KernelAttribute attribute, int value) const;

    /// Prepares and launches in one go (grunnur's Kernel.__call__).
    template <detail::KernelArgument... Args>
    Event operator()(const Queue& queue, const Sizes& global_size, const std::optional<Sizes>& local_size,
                     const Args&... args) const;
    /// pygpu's `k(args..., n=n)`: prepares with TotalSize and launches on the queue's device.
    template <detail::KernelArgument... Args>
    Event operator()(const Queue& queue, TotalSize total, const Args&... args) const {
        const auto [global, local] = padded_sizes(queue.device(), total);
        return (*this)(queue, Sizes{global}, Sizes{local}, args...);
    }

private:
    friend class Program;
    explicit Kernel(std::shared_ptr<const detail::KernelState> state) : state_(std::move(state)) {}
    std::shared_ptr<const detail::KernelState> state_;
};

template <detail::KernelArgument... Args>
Event Kernel::operator()(const Queue& queue, const Sizes& global_size, const std::optional<Sizes>& local_size,
                         const Args&... args) const {
    const std::map<std::size_t, Sizes> global{{queue.device().index(), global_size}};
    const std::map<std::size_t, std::optional<Sizes>> local{{queue.device().index(), local_size}};
    return prepare(global, local)(queue, args...);
}

}  // namespace kjarni