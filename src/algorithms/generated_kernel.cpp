#include "algorithms/generated_kernel.hpp"

#include <cstring>

#include <fmt/format.h>

#include "backend/backend.hpp"
#include "core/context_state.hpp"
#include "kjarni/error.hpp"
#include "program/module_cache.hpp"
#include "program/program_source.hpp"

namespace kjarni::detail {

GeneratedKernel generated_kernel(const BoundDevice& device, const std::string& key, const std::string& name,
                                 const std::function<std::string()>& render) {
    GeneratedKernelCache& cache = device.context().state().generated_kernels;
    const std::string full_key = fmt::format("{}/{}/{}", device.index(), name, key);
    std::shared_ptr<backend::Kernel> kernel = cache.find(full_key);
    if (!kernel) {
        const std::string source = render();
        const ProgramOptions options;
        const std::string full = full_source(device.context().api().id(), source, options);
        auto module = obtain_module(device, full, backend::BuildOptions{});
        kernel = module->kernel(name);
        if (!kernel) throw Error(fmt::format("generated program has no kernel '{}'", name));
        notify_build_observer(source, options);
        cache.insert(full_key, kernel);
    }
    return GeneratedKernel{kernel, kernel->attributes().max_total_local_size, device.params().compute_units};
}

void launch(const Queue& queue, const GeneratedKernel& kernel, std::span<const std::size_t> global,
            std::span<const std::size_t> local, std::span<const KernelArg> args, std::size_t local_mem) {
    kernel.kernel->launch(*queue.backend(), static_cast<unsigned>(global.size()), global.data(), local.data(),
                          local_mem, args, false);
}

KernelArg whole_allocation(const Array& array) {
    const Buffer& base = array.base();
    KernelArg arg;
    arg.kind = KernelArg::Kind::buffer;
    arg.buffer = base.backend().get();
    arg.offset = 0;
    arg.size = base.backend()->size();
    arg.device_index = base.device().index();
    return arg;
}

std::ptrdiff_t element_offset(const Array& array, const std::string& name) {
    const std::size_t bytes = array.base().offset() + array.offset();
    const std::size_t itemsize = array.dtype().itemsize();
    if (bytes % itemsize != 0)
        throw ArgumentError(name, fmt::format("its first element lies {} bytes into its allocation, not a multiple of "
                                              "the itemsize {}",
                                              bytes, itemsize));
    return static_cast<std::ptrdiff_t>(bytes / itemsize);
}

KernelArg scalar_arg(const void* value, std::size_t size) {
    KernelArg arg;
    arg.kind = KernelArg::Kind::scalar;
    std::memcpy(arg.scalar, value, size);
    arg.size = size;
    return arg;
}

}  // namespace kjarni::detail
