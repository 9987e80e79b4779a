#pragma once
// One kernel launch argument, packed on the caller's stack by the variadic launch templates of
// kjarni/prepared_kernel.hpp and kjarni/static_kernel.hpp (kjarni/detail/kernel_packing.hpp packs
// them) and handed to the backend as is. Not part of the user-facing API.

#include <cstddef>
#include <cstdint>

namespace kjarni::backend {
class Buffer;
}

namespace kjarni::detail {

struct KernelArg {
    // The order keeps the struct at 80 bytes: at 96, GCC zeroes each packed argument with a
    // `rep stos`, whose start-up alone costs tens of cycles per argument on the launch path.

    /// Scalar: its bytes (up to 16: complex double), their count in `size`.
    alignas(16) std::byte scalar[16] = {};
    /// shared_pointer: an address valid on every device of a context (managed memory / OpenCL
    /// SVM), passed as the pointer itself (clSetKernelArgSVMPointer on OpenCL).
    /// image: an image (kjarni/image.hpp) packed by its backend: the native handles are in
    /// `scalar` (`size` bytes), and it fills `param_count` kernel parameters (OpenCL: a sampled
    /// image is the image and its sampler; CUDA: one texture or surface argument by value).
    enum class Kind : std::uint8_t { buffer, scalar, shared_pointer, image };
    Kind kind = Kind::scalar;
    /// Kernel parameters this argument fills (2 only for an OpenCL sampled image).
    std::uint8_t param_count = 1;
    /// Scalar: bytes in `scalar`; buffer: bytes of the region the kernel sees.
    std::size_t size = 0;
    /// Scalar of more than 16 bytes (a struct): its bytes, the caller's, valid for the launch call;
    /// null otherwise (the bytes are in `scalar`).
    const void* bytes = nullptr;
    /// Buffer: the allocation and the offset of the region [offset, offset + size) in it.
    backend::Buffer* buffer = nullptr;
    std::size_t offset = 0;
    /// Buffer and image: context index of the device it was allocated on.
    std::size_t device_index = 0;
    /// Shared pointer: the address; `size` is then the allocation's size.
    void* pointer = nullptr;
    /// Buffer, image and shared pointer: the backend context the memory belongs to, checked against the
    /// queue's (a buffer of another context is meaningless to the kernel's driver context).
    const void* context = nullptr;
};
static_assert(sizeof(KernelArg) <= 80, "a larger KernelArg is zeroed with rep stos on every launch");

/// Where a launch argument goes: the position in the MultiQueue (0 for a single queue) and the
/// context index of the device there.
struct LaunchTarget {
    std::size_t position = 0;
    std::size_t device_index = 0;
};

/// What a launch tells the argument checks about its argument types: `tag` names the list of types
/// (kernel_packing.hpp's argument_types), set only where every argument is a scalar or a Buffer
/// and every Buffer is on the queue's device; null otherwise. A kernel remembers the tag of the
/// last launch whose arguments passed its checks, and a launch with that tag is not checked again:
/// what the checks read of such arguments is their types and their memory's device, which the
/// tag's presence vouches for.
struct ArgumentTypes {
    const void* tag = nullptr;
};

}  // namespace kjarni::detail
