// StructArg: a C++ value checked against a struct dtype before it is passed to a kernel by value.

#include <fmt/format.h>

#include "kjarni/error.hpp"
#include "kjarni/program.hpp"

namespace kjarni {

void StructArg::check(std::size_t size, std::size_t alignment, const DType& dtype) {
    if (!dtype.is_struct()) {
        throw ArgumentError("dtype", fmt::format("{} is not a struct dtype", dtype.name()));
    }
    if (size != dtype.itemsize()) {
        throw ArgumentError("value", fmt::format("its C++ type has {} bytes, the struct dtype {} has {}", size,
                                                 dtype.name(), dtype.itemsize()));
    }
    // A packed dtype (alignment 1) describes a C struct that the kernel reads unaligned: a C++ type
    // of the same size and a stricter alignment has the same bytes, so only a looser one is refused.
    if (alignment < dtype.alignment()) {
        throw ArgumentError("value", fmt::format("its C++ type is aligned to {} bytes, the struct dtype {} to {}",
                                                 alignment, dtype.name(), dtype.alignment()));
    }
}

}  // namespace kjarni
