// ManagedMemory: the checks before allocating (capabilities, free memory), host access scopes,
// prefetch, copies, and the kernel argument. The driver work is in the backends
// (cuda_managed_memory.cpp, opencl_managed_memory.cpp).

#include "kjarni/managed_memory.hpp"

#include <fmt/format.h>

#include <utility>
#include <vector>

#include "backend/backend.hpp"
#include "core/buffer_access.hpp"
#include "core/device_label.hpp"
#include "kjarni/error.hpp"

namespace kjarni {

using detail::device_label;

namespace {

bool is_cuda(const Context& context) { return context.api().id() == ApiId::cuda(); }

// What the refusal looks like: the error the driver would have given for the same request.
[[noreturn]] void refuse(const Context& context, const std::string& why) {
    const std::string detail = "refused before allocating: " + why;
    if (is_cuda(context)) throw OutOfMemoryError("CUDA", "cuMemAllocManaged", 2, "CUDA_ERROR_OUT_OF_MEMORY", detail);
    throw OutOfMemoryError("OpenCL", "clSVMAlloc", -4, "CL_MEM_OBJECT_ALLOCATION_FAILURE", detail);
}

// "Never allocate more than the device has free": checked against every limit the API reports,
// before anything is allocated.
void check_fits_on(const BoundDevice& device, std::size_t size) {
    const Context& context = device.context();
    const DeviceProperties& properties = device.device().properties();
    if (properties.max_allocation_size != 0 && size > properties.max_allocation_size) {
        refuse(context, fmt::format("{} bytes of managed memory requested, but the largest allocation on {} is {} "
                                    "bytes",
                                    size, device_label(device), properties.max_allocation_size));
    }
    if (const auto free = detail::backend_of(context)->free_memory(device.index())) {
        if (size > *free) {
            refuse(context, fmt::format("{} bytes of managed memory requested, but {} has {} bytes free", size,
                                        device_label(device), *free));
        }
    } else if (properties.total_memory != 0 && size > properties.total_memory) {
        refuse(context, fmt::format("{} bytes of managed memory requested, but {} has {} bytes of memory in all", size,
                                    device_label(device), properties.total_memory));
    }
}

}  // namespace

ManagedMemory::ManagedMemory(Context context, std::shared_ptr<backend::ManagedAllocation> impl, std::size_t size,
                             ManagedMemoryFlags flags, bool fine_grained)
    : context_(std::move(context)), impl_(std::move(impl)),
      data_(impl_ ? static_cast<std::byte*>(impl_->pointer()) : nullptr), size_(size), flags_(flags),
      fine_grained_(fine_grained) {}

namespace {

// Allocates for the devices `concerned` (each must support managed memory and have room), in the
// context of `home` (CUDA).
struct Plan {
    backend::ManagedAllocationFlags backend_flags;
    bool fine_grained = true;
};

Plan plan_for(const std::vector<BoundDevice>& concerned, ManagedMemoryFlags flags) {
    if (flags.alignment != 0 && (flags.alignment & (flags.alignment - 1)) != 0) {
        throw ArgumentError("flags.alignment", fmt::format("is {}; it must be a power of two (or 0)", flags.alignment));
    }
    Plan plan;
    plan.backend_flags.alignment = flags.alignment;
    bool all_fine = true;
    bool all_atomics = true;
    for (const BoundDevice& device : concerned) {
        const ManagedMemoryCapabilities caps = managed_memory_capabilities(device.device());
        if (!caps.supported()) {
            throw UnsupportedError(
                fmt::format("managed memory on {}: the device lacks {}", device_label(device), caps.missing()));
        }
        all_fine = all_fine && caps.svm_fine_grain_buffer;
        all_atomics = all_atomics && caps.svm_atomics;
    }
    if (is_cuda(concerned.front().context())) {
        plan.backend_flags.attach_host = flags.attach_host;
        return plan;  // CUDA managed memory is always host-addressable (fine_grained() is true)
    }
    plan.fine_grained = all_fine && !flags.coarse_grain;
    plan.backend_flags.fine_grain = plan.fine_grained;
    plan.backend_flags.atomics = plan.fine_grained && all_atomics;
    return plan;
}

struct Allocated {
    std::shared_ptr<backend::ManagedAllocation> impl;  // null for size 0
    bool fine_grained = true;
};

Allocated allocate_for(const std::vector<BoundDevice>& concerned, const BoundDevice& home, std::size_t size,
                       ManagedMemoryFlags flags) {
    const Plan plan = plan_for(concerned, flags);
    if (size == 0) return {nullptr, plan.fine_grained};
    for (const BoundDevice& device : concerned) check_fits_on(device, size);
    auto impl = detail::backend_of(home.context())->allocate_managed(home.index(), size, plan.backend_flags);
    // Both backends were given the alignment (clSVMAlloc takes it, CUDA over-allocates): the
    // address is still checked, since a driver that ignores clSVMAlloc's would go unnoticed.
    if (flags.alignment != 0 && reinterpret_cast<std::uintptr_t>(impl->pointer()) % flags.alignment != 0) {
        throw UnsupportedError(fmt::format("managed memory on {}: the driver's address is not aligned to {} bytes as "
                                           "asked",
                                           device_label(home), flags.alignment));
    }
    return {std::move(impl), plan.fine_grained};
}

}  // namespace

ManagedMemory ManagedMemory::allocate(const Context& context, std::size_t size, ManagedMemoryFlags flags) {
    std::vector<BoundDevice> all;
    for (std::size_t i = 0; i < context.device_count(); ++i) all.emplace_back(context, i);
    Allocated allocated = allocate_for(all, all.front(), size, flags);
    return ManagedMemory(context, std::move(allocated.impl), size, flags, allocated.fine_grained);
}

ManagedMemory ManagedMemory::allocate(const BoundDevice& device, std::size_t size, ManagedMemoryFlags flags) {
    Allocated allocated = allocate_for({device}, device, size, flags);
    return ManagedMemory(device.context(), std::move(allocated.impl), size, flags, allocated.fine_grained);
}

void ManagedMemory::enqueue_release(const Queue& queue) {
    check_queue(queue, "enqueue_release");
    if (!impl_) return;
    if (impl_.use_count() > 1) {
        throw ArgumentError("memory", fmt::format("enqueue_release: {} other handles use this memory (copies, "
                                                  "device buffers, host access scopes); it must be the last",
                                                  impl_.use_count() - 1));
    }
    impl_->enqueue_free(*detail::backend_of(queue));
    impl_.reset();
    data_ = nullptr;
    size_ = 0;
}

void ManagedMemory::check_queue(const Queue& queue, const char* what) const {
    if (!(queue.device().context() == context_)) {
        throw ArgumentError("queue", fmt::format("belongs to another context than the managed memory ({})", what));
    }
}

ManagedHostAccess ManagedMemory::host_access(const Queue& queue, Access access, std::size_t offset,
                                             std::size_t size) const {
    check_queue(queue, "host_access");
    if (offset > size_ || size > size_ - offset) {
        throw ArgumentError("offset", fmt::format("the range at {} of {} bytes lies outside the managed memory of {} "
                                                  "bytes",
                                                  offset, size, size_));
    }
    if (size == 0) size = size_ - offset;
    ManagedHostAccess scope(*this, queue, offset, size);
    if (size == 0) {  // nothing to map; the queue is still waited for, as the scope promises
        queue.synchronize();
        scope.open_ = true;
        return scope;
    }
    // CUDA devices without concurrent access fault the host on any access while a kernel of the
    // context runs: wait for all of them.
    bool whole_context = false;
    if (is_cuda(context_)) {
        for (std::size_t i = 0; i < context_.device_count(); ++i) {
            const Device device = BoundDevice(context_, i).device();
            whole_context = whole_context || !managed_memory_capabilities(device).concurrent_managed_access;
        }
    }
    impl_->begin_host_access(*detail::backend_of(queue), offset, size, access != Access::write, access != Access::read,
                             whole_context);
    scope.open_ = true;
    // Kernels may not use the memory during the scope where the host's access is exclusive.
    scope.exclusive_ = whole_context || !fine_grained_;
    if (scope.exclusive_) impl_->exclusive_host_scopes.fetch_add(1, std::memory_order_acq_rel);
    return scope;
}

void ManagedMemory::prefetch(const Queue& queue) const {
    check_queue(queue, "prefetch");
    if (!managed_memory_capabilities(queue.device().device()).prefetch) {
        throw UnsupportedError(fmt::format("{} cannot migrate managed memory on request (CUDA needs "
                                           "concurrentManagedAccess, OpenCL needs a 2.1 device with SVM)",
                                           device_label(queue.device())));
    }
    if (size_ != 0) impl_->prefetch(*detail::backend_of(queue), 0, size_, false);
}

void ManagedMemory::prefetch_to_host(const Queue& queue) const {
    check_queue(queue, "prefetch_to_host");
    if (!managed_memory_capabilities(queue.device().device()).prefetch) {
        throw UnsupportedError(fmt::format("{} cannot migrate managed memory on request (CUDA needs "
                                           "concurrentManagedAccess, OpenCL needs a 2.1 device with SVM)",
                                           device_label(queue.device())));
    }
    if (size_ != 0) impl_->prefetch(*detail::backend_of(queue), 0, size_, true);
}

void ManagedMemory::attach(const Queue& queue, Attach attach) const {
    check_queue(queue, "attach");
    if (!is_cuda(context_)) {
        throw UnsupportedError("OpenCL shared virtual memory has no stream attachment: every queue of the context "
                               "may use it (attach is CUDA's cuStreamAttachMemAsync)");
    }
    if (impl_) impl_->attach(*detail::backend_of(queue), static_cast<int>(attach));
}

void ManagedMemory::copy_from(const Queue& queue, const Buffer& source, std::size_t offset, bool async) const {
    check_queue(queue, "copy_from");
    if (offset > size_ || source.size() > size_ - offset) {
        throw ArgumentError("source", fmt::format("{} bytes at offset {} do not fit in the managed memory of {} bytes",
                                                  source.size(), offset, size_));
    }
    if (source.size() == 0) return;
    device_buffer(queue.device()).get_sub_region(offset, source.size()).set(queue, source, async);
}

void ManagedMemory::copy_to(const Queue& queue, const Buffer& destination, std::size_t offset, bool async) const {
    check_queue(queue, "copy_to");
    if (offset > size_ || destination.size() > size_ - offset) {
        throw ArgumentError("destination", fmt::format("{} bytes at offset {} lie outside the managed memory of {} "
                                                       "bytes",
                                                       destination.size(), offset, size_));
    }
    if (destination.size() == 0) return;
    destination.set(queue, device_buffer(queue.device()).get_sub_region(offset, destination.size()), async);
}

Buffer ManagedMemory::device_buffer(const BoundDevice& device) const {
    if (!(device.context() == context_)) {
        throw ArgumentError("device", "belongs to another context than the managed memory");
    }
    if (!impl_) return Buffer::allocate(device, 0);
    std::shared_ptr<backend::Buffer> raw = impl_->device_buffer(device.index());
    // The buffer keeps the allocation alive as long as any handle to it exists.
    backend::Buffer* pointer = raw.get();
    std::shared_ptr<backend::Buffer> kept(pointer, [raw = std::move(raw), keep = impl_](backend::Buffer*) {});
    return detail::BufferAccess::make(device, std::move(kept), 0, size_);
}

// ---- ManagedHostAccess --------------------------------------------------------------------------

ManagedHostAccess::ManagedHostAccess(ManagedMemory memory, Queue queue, std::size_t offset, std::size_t size)
    : memory_(std::move(memory)), queue_(std::move(queue)), offset_(offset),
      data_(memory_.data() == nullptr ? nullptr : memory_.data() + offset), size_(size) {}

ManagedHostAccess::ManagedHostAccess(ManagedHostAccess&& other) noexcept
    : memory_(other.memory_), queue_(other.queue_), offset_(other.offset_), data_(other.data_), size_(other.size_),
      open_(std::exchange(other.open_, false)), exclusive_(std::exchange(other.exclusive_, false)) {}

ManagedHostAccess& ManagedHostAccess::operator=(ManagedHostAccess&& other) noexcept {
    if (this == &other) return *this;
    try {
        end();
    } catch (...) {  // as in the destructor: nothing to report it to
    }
    memory_ = other.memory_;
    queue_ = other.queue_;
    offset_ = other.offset_;
    data_ = other.data_;
    size_ = other.size_;
    open_ = std::exchange(other.open_, false);
    exclusive_ = std::exchange(other.exclusive_, false);
    return *this;
}

ManagedHostAccess::~ManagedHostAccess() {
    try {
        end();
    } catch (...) {  // a destructor cannot report it; end() does
    }
}

void ManagedHostAccess::end() {
    if (!open_) return;
    open_ = false;
    if (size_ == 0) return;
    // Counted down first: even if the unmap fails, the scope is over.
    if (std::exchange(exclusive_, false)) {
        detail::backend_of(memory_)->exclusive_host_scopes.fetch_sub(1, std::memory_order_acq_rel);
    }
    detail::backend_of(memory_)->end_host_access(*detail::backend_of(queue_), offset_);
}

detail::KernelArg pack_kernel_arg(const ManagedMemory& memory, const detail::LaunchTarget& target) {
    if (detail::backend_of(memory) &&
        detail::backend_of(memory)->exclusive_host_scopes.load(std::memory_order_acquire) != 0) {
        throw ArgumentError("ManagedMemory", "a host access scope is open on it (coarse-grained, or CUDA without "
                                             "concurrentManagedAccess): end the scope before kernels use the memory");
    }
    detail::KernelArg arg;
    arg.kind = detail::KernelArg::Kind::shared_pointer;
    arg.pointer = memory.data();
    arg.size = memory.size();
    arg.context = detail::backend_of(memory.context()).get();
    arg.device_index = target.device_index;
    return arg;
}

}  // namespace kjarni
