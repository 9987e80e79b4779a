#include "kjarni/buffer.hpp"

#include <fmt/format.h>

#include <bit>

#include "backend/backend.hpp"
#include "core/context_state.hpp"
#include "core/device_label.hpp"
#include "core/recording_registry.hpp"
#include "kjarni/error.hpp"

namespace kjarni {

using detail::device_label;

namespace {

void check_fits(const char* argument, std::size_t size, std::size_t capacity, const char* what) {
    if (size > capacity) {
        throw ArgumentError(argument, fmt::format("{} bytes do not fit in {} of {} bytes", size, what, capacity));
    }
}

}  // namespace

Buffer::Buffer(BoundDevice device, std::shared_ptr<backend::Buffer> impl, std::size_t offset, std::size_t size,
               bool exportable, std::shared_ptr<std::shared_ptr<backend::Buffer>> target)
    : device_(std::move(device)), impl_(std::move(impl)), offset_(offset), size_(size), exportable_(exportable),
      target_(std::move(target)) {
    detail::note_new_buffer(*this);  // kept by a recording begun on this thread
}

Buffer Buffer::allocate(const BoundDevice& device, std::size_t size) {
    return Buffer(device, detail::backend_of(device.context())->allocate(device.index(), size), 0, size, true);
}

Buffer Buffer::allocate(const BoundDevice& device, std::size_t size, const BufferFlags& flags) {
    backend::BufferAllocationFlags raw;
    raw.read_only = flags.kernel_access == KernelAccess::read_only;
    raw.write_only = flags.kernel_access == KernelAccess::write_only;
    raw.alloc_host_pointer = flags.alloc_host_pointer;
    Buffer made(device, detail::backend_of(device.context())->allocate_flagged(device.index(), size, raw).buffer, 0,
                size, true);
    made.access_ = flags.kernel_access;
    return made;
}

Buffer Buffer::allocate_copy(const BoundDevice& device, std::span<const std::byte> host, const BufferFlags& flags) {
    backend::BufferAllocationFlags raw;
    raw.read_only = flags.kernel_access == KernelAccess::read_only;
    raw.write_only = flags.kernel_access == KernelAccess::write_only;
    raw.alloc_host_pointer = flags.alloc_host_pointer;
    raw.copy_from = host.data();
    auto made = detail::backend_of(device.context())->allocate_flagged(device.index(), host.size(), raw);
    Buffer buffer(device, std::move(made.buffer), 0, host.size(), true);
    buffer.access_ = flags.kernel_access;
    if (!made.copied && !host.empty()) buffer.set(Queue(device), host);  // synchronous: `host` may go after
    return buffer;
}

Buffer Buffer::get_sub_region(std::size_t origin, std::size_t size) const {
    if (origin > size_) {
        throw ArgumentError("origin", fmt::format("{} is past the end of a buffer of {} bytes", origin, size_));
    }
    if (size > size_ - origin) {
        throw ArgumentError("size", fmt::format("a region of {} bytes at {} ends past the end of a buffer of {} "
                                                "bytes",
                                                size, origin, size_));
    }
    Buffer region(device_, impl_, offset_ + origin, size, exportable_, target_);
    region.access_ = access_;
    return region;
}

void Buffer::check_queue(const Queue& queue, const char* what) const {
    if (!(queue.device().context() == device_.context())) {
        throw ArgumentError("queue", fmt::format("belongs to another context than the {}", what));
    }
    if (!(queue.device() == device_)) {
        throw ArgumentError("queue", fmt::format("is on {} but the {} is on {}", device_label(queue.device()), what,
                                                 device_label(device_)));
    }
}

void Buffer::set(const Queue& queue, std::span<const std::byte> host, bool async) const {
    check_queue(queue, "buffer");
    detail::refuse_while_recording(detail::backend_of(queue).get(), "Buffer::set (from the host)");
    check_fits("host", host.size(), size_, "the buffer");
    if (host.empty()) return;
    const Context& context = device_.context();
    if (detail::state_of(context).staging.write(*detail::backend_of(context), *detail::backend_of(queue), *backend(),
                                                offset_, host, async))
        return;
    detail::backend_of(queue)->write(*backend(), offset_, host.data(), host.size(), !async);
}

void Buffer::get(const Queue& queue, std::span<std::byte> host, bool async) const {
    check_queue(queue, "buffer");
    detail::refuse_while_recording(detail::backend_of(queue).get(), "Buffer::get");
    check_fits("host", host.size(), size_, "the buffer");
    if (host.empty()) return;
    const Context& context = device_.context();
    if (detail::state_of(context).staging.read(*detail::backend_of(context), *detail::backend_of(queue), host,
                                               *backend(), offset_))
        return;
    detail::backend_of(queue)->read(host.data(), *backend(), offset_, host.size(), !async);
}

void Buffer::set(const Queue& queue, const Buffer& source, bool async) const {
    if (!(source.device_.context() == device_.context())) {
        throw ArgumentError("source", "belongs to another context than the destination buffer");
    }
    if (!(queue.device().context() == device_.context())) {
        throw ArgumentError("queue", "belongs to another context than the buffers");
    }
    if (!(queue.device() == device_) && !(queue.device() == source.device_)) {
        throw ArgumentError("queue", fmt::format("is on {}, but the copy goes from {} to {}: use a queue of one "
                                                 "of them",
                                                 device_label(queue.device()), device_label(source.device_),
                                                 device_label(device_)));
    }
    check_fits("source", source.size_, size_, "the destination buffer");
    if (source.size_ == 0) return;
    if (source.backend() == backend() && source.offset_ < offset_ + source.size_ &&
        offset_ < source.offset_ + source.size_) {
        throw ArgumentError("source", "overlaps the destination region of the same allocation");
    }
    if (auto* recording = detail::recording_on(detail::backend_of(queue).get())) {
        recording->copy(*this, source);
        return;
    }
    const Context& context = device_.context();
    if (detail::state_of(context).staging.relay_between_devices(*detail::backend_of(context),
                                                                *detail::backend_of(queue), *backend(), offset_,
                                                                device_.index(), *source.backend(), source.offset_,
                                                                source.device_.index(), source.size_, async)) {
        return;
    }
    detail::backend_of(queue)->copy(*backend(), offset_, *source.backend(), source.offset_, source.size_, !async);
}

void Buffer::fill(const Queue& queue, std::span<const std::byte> pattern, bool async) const {
    check_queue(queue, "buffer");
    if (pattern.empty() || pattern.size() > 128 || !std::has_single_bit(pattern.size())) {
        throw ArgumentError("pattern",
                            fmt::format("has {} bytes; it must have 1, 2, 4, 8, 16, 32, 64 or 128", pattern.size()));
    }
    if (size_ % pattern.size() != 0) {
        throw ArgumentError("pattern",
                            fmt::format("of {} bytes does not divide the buffer's {} bytes", pattern.size(), size_));
    }
    if (offset_ % pattern.size() != 0) {
        throw ArgumentError("pattern", fmt::format("of {} bytes: the buffer's offset {} in its allocation is not a "
                                                   "multiple of it",
                                                   pattern.size(), offset_));
    }
    if (size_ == 0) return;
    if (auto* recording = detail::recording_on(detail::backend_of(queue).get())) {
        recording->fill(*this, pattern);
        return;
    }
    detail::backend_of(queue)->fill(*backend(), offset_, size_, pattern.data(), pattern.size(), !async);
}

std::uintptr_t Buffer::native_handle() const { return backend()->native_handle(); }

}  // namespace kjarni
