// Interprocess memory and event handles: kjarni's framing of the driver's handle bytes (a magic
// number and version, so that other bytes are refused with an ArgumentError instead of reaching
// the driver, and the view of the memory), and the checks before the backend is called.

#include "kjarni/ipc.hpp"

#include <fmt/format.h>

#include <cstdint>
#include <cstring>

#include "backend/backend.hpp"
#include "kjarni/error.hpp"

namespace kjarni {

namespace {

constexpr std::uint32_t memory_magic = 0x50494a4b;  // "KJIP"
constexpr std::uint32_t event_magic = 0x45494a4b;   // "KJIE"
constexpr std::uint32_t handle_version = 1;
constexpr std::size_t driver_bytes = 64;

void write_number(std::vector<std::byte>& out, std::uint64_t value, int size) {
    for (int i = 0; i < size; ++i) out.push_back(static_cast<std::byte>((value >> (8 * i)) & 0xff));
}

std::uint64_t read_number(std::span<const std::byte> in, std::size_t at, int size) {
    std::uint64_t value = 0;
    for (int i = 0; i < size; ++i) value |= static_cast<std::uint64_t>(in[at + static_cast<std::size_t>(i)]) << (8 * i);
    return value;
}

// The API must have interprocess handles: only CUDA has.
void require_cuda(const BoundDevice& device, const char* what) {
    const Api api = device.context().api();
    if (!(api.id() == ApiId::cuda())) {
        throw UnsupportedError(fmt::format("{}: the {} API has no interprocess handles (only CUDA has: "
                                           "cuIpcGetMemHandle, cuIpcGetEventHandle)",
                                           what, api.id() == ApiId::opencl() ? "OpenCL" : api.shortcut()));
    }
}

// The driver bytes of a kjarni handle of `magic` and `length` bytes; ArgumentError otherwise.
std::span<const std::byte> unframe(std::span<const std::byte> handle, std::uint32_t magic, std::size_t length,
                                   const char* what) {
    if (handle.size() != length || read_number(handle, 0, 4) != magic || read_number(handle, 4, 4) != handle_version) {
        throw ArgumentError("handle", fmt::format("is no kjarni {} handle (of version {}): {} bytes", what,
                                                  handle_version, handle.size()));
    }
    return handle.subspan(8, driver_bytes);
}

}  // namespace

std::vector<std::byte> Buffer::ipc_handle() const {
    require_cuda(device_, "exporting memory");
    if (!exportable_) {
        throw UnsupportedError("exporting memory: this buffer's memory does not come from Buffer::allocate (it is "
                               "from a memory pool, virtual buffers, host or managed memory, or opened from another "
                               "process); cuIpcGetMemHandle exports only whole allocations of their own");
    }
    const std::vector<std::byte> raw = impl_->ipc_handle();
    std::vector<std::byte> out;
    out.reserve(ipc_memory_handle_bytes);
    write_number(out, memory_magic, 4);
    write_number(out, handle_version, 4);
    out.insert(out.end(), raw.begin(), raw.end());
    write_number(out, impl_->size(), 8);
    write_number(out, offset_, 8);
    write_number(out, size_, 8);
    return out;
}

Buffer Buffer::open_ipc(const BoundDevice& device, std::span<const std::byte> handle) {
    const auto raw = unframe(handle, memory_magic, ipc_memory_handle_bytes, "memory");
    const std::uint64_t allocation = read_number(handle, 72, 8);
    const std::uint64_t offset = read_number(handle, 80, 8);
    const std::uint64_t size = read_number(handle, 88, 8);
    if (offset > allocation || size > allocation - offset) {
        throw ArgumentError("handle", fmt::format("names bytes [{}, {}) of an allocation of {}", offset, offset + size,
                                                  allocation));
    }
    require_cuda(device, "opening interprocess memory");
    auto impl = detail::backend_of(device.context())->open_ipc_memory(device.index(), raw, allocation);
    return Buffer(device, std::move(impl), offset, size);
}

IpcEvent::IpcEvent(BoundDevice device, std::shared_ptr<backend::Event> impl)
    : device_(std::move(device)), impl_(std::move(impl)) {}

IpcEvent IpcEvent::create(const BoundDevice& device) {
    require_cuda(device, "an interprocess event");
    return IpcEvent(device, detail::backend_of(device.context())->create_ipc_event(device.index()));
}

IpcEvent IpcEvent::open(const BoundDevice& device, std::span<const std::byte> handle) {
    const auto raw = unframe(handle, event_magic, ipc_event_handle_bytes, "event");
    require_cuda(device, "opening an interprocess event");
    return IpcEvent(device, detail::backend_of(device.context())->open_ipc_event(device.index(), raw));
}

std::vector<std::byte> IpcEvent::handle() const {
    const std::vector<std::byte> raw = impl_->ipc_handle();
    std::vector<std::byte> out;
    out.reserve(ipc_event_handle_bytes);
    write_number(out, event_magic, 4);
    write_number(out, handle_version, 4);
    out.insert(out.end(), raw.begin(), raw.end());
    return out;
}

void IpcEvent::record(const Queue& queue) const {
    if (!(queue.device() == device_)) {
        throw ArgumentError("queue", "is not on the interprocess event's device");
    }
    detail::backend_of(queue)->record(*impl_);
}

Event IpcEvent::event() const { return detail::BackendAccess::make<Event>(impl_); }

}  // namespace kjarni
