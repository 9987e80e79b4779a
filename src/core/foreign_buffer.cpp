// Buffer::from_backend_buffer: a Buffer over device memory kjarni did not allocate.

#include "backend/backend.hpp"
#include "kjarni/buffer.hpp"
#include "kjarni/error.hpp"

namespace kjarni {

Buffer Buffer::from_backend_buffer(const BoundDevice& device, std::uintptr_t native, std::optional<std::size_t> size,
                                   bool take_ownership, std::shared_ptr<const void> keep_alive) {
    if (take_ownership && keep_alive) {
        throw ArgumentError("keep_alive", "is for borrowed memory: with take_ownership the buffer frees the memory "
                                          "itself");
    }
    std::shared_ptr<backend::Buffer> impl =
        detail::backend_of(device.context())->adopt_buffer(device.index(), native, size, take_ownership);
    const std::size_t bytes = impl->size();
    if (keep_alive) {
        // The handle holds the user's object too, for as long as any Buffer shares it.
        backend::Buffer* raw = impl.get();
        impl = std::shared_ptr<backend::Buffer>(raw, [impl = std::move(impl),
                                                      keep = std::move(keep_alive)](backend::Buffer*) mutable {
            impl.reset();  // the buffer first, then what keeps its memory
            keep.reset();
        });
    }
    return Buffer(device, std::move(impl), 0, bytes);
}

}  // namespace kjarni
