#pragma once
// One kernel launch argument, packed on the caller's stack by the variadic launch templates of
// kjarni/program.hpp and handed to the backend as is. Not part of the user-facing API.

#include <cstddef>
#include <cstdint>

namespace kjarni::backend {
class Buffer;
}

namespace kjarni::detail {

struct KernelArg {
    enum class Kind : std::uint8_t { buffer, scalar };
    Kind kind = Kind::scalar;
    /// Scalar: its bytes (up to 16: complex double), their count in `size`.
    alignas(16) std::byte scalar[16] = {};
    /// Scalar: bytes in `scalar`; buffer: bytes of the region the kernel sees.
    std::size_t size = 0;
    /// Buffer: the allocation and the offset of the region [offset, offset + size) in it.
    backend::Buffer* buffer = nullptr;
    std::size_t offset = 0;
    /// Buffer: context index of the device it was allocated on.
    std::size_t device_index = 0;
};

}  // namespace kjarni::detail
