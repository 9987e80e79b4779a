#include "algorithms/generated_kernel.hpp"

#include <fmt/format.h>

#include "backend/backend.hpp"
#include "core/context_state.hpp"
#include "kjarni/detail/kernel_packing.hpp"
#include "kjarni/error.hpp"
#include "program/checked_launch.hpp"
#include "program/kernel_cache.hpp"

namespace kjarni::detail {

GeneratedKernel generated_kernel(const BoundDevice& device, const std::string& key, const std::string& name,
                                 const std::function<std::string()>& render, bool allow_contraction,
                                 std::size_t max_registers) {
    std::shared_ptr<const CachedKernel> kernel =
        cached_kernel(device, key, name, render, allow_contraction ? Contraction::allowed : Contraction::off,
                      max_registers);
    const std::size_t max_local_size = kernel->checked.kernel->attributes().max_total_local_size;
    return GeneratedKernel{std::move(kernel), max_local_size, device.params().compute_units,
                           device.params().type == DeviceType::gpu};
}

void launch(const Queue& queue, const GeneratedKernel& kernel, std::span<const std::size_t> global,
            std::span<const std::size_t> local, std::span<const KernelArg> args, std::size_t local_mem) {
    const CheckedKernel& checked = kernel.kernel->checked;
    if (global.size() != local.size()) {
        throw ArgumentError("local_size", fmt::format("kernel '{}': {} global extents, {} local ones", checked.name,
                                                      global.size(), local.size()));
    }
    check_sizes(checked, global.size(), global.data(), local.data());
    if (local_mem != 0) check_local_mem(checked, queue.device(), local_mem);
    launch_checked(checked, queue, static_cast<unsigned>(global.size()), global.data(), local.data(), local_mem, args,
                   false, kernel.kernel);
}

KernelArg whole_allocation(const Array& array) {
    const Buffer& base = array.base();
    return pack_buffer_region(base, 0, backend_of(base)->size());
}

std::ptrdiff_t element_offset(const Array& array, std::string_view name) {
    const std::size_t bytes = array.base().offset() + array.offset();
    const std::size_t itemsize = array.dtype().itemsize();
    if (bytes % itemsize != 0)
        throw ArgumentError(std::string(name),
                            fmt::format("its first element lies {} bytes into its allocation, not a multiple of "
                                        "the itemsize {}",
                                        bytes, itemsize));
    return static_cast<std::ptrdiff_t>(bytes / itemsize);
}

bool lies_aligned(const Array& array, std::ptrdiff_t offset, std::size_t bytes) {
    std::uintptr_t address = static_cast<std::uintptr_t>(offset) * array.dtype().itemsize();
    if (is_cuda(array.base().device().context())) address += array.base().native_handle();
    return address % bytes == 0;
}

KernelArg scalar_arg(const void* value, std::size_t size) { return pack_bytes(value, size); }

}  // namespace kjarni::detail
