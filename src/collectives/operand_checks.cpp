#include "collectives/operand_checks.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "kjarni/error.hpp"

namespace kjarni::detail {

void check_dtype(const Array& array, const char* argument) {
    switch (array.dtype().kind()) {
    case DType::Kind::int8:
    case DType::Kind::uint8:
    case DType::Kind::int32:
    case DType::Kind::uint32:
    case DType::Kind::int64:
    case DType::Kind::uint64:
    case DType::Kind::float16:
    case DType::Kind::float32:
    case DType::Kind::float64: return;
    default:
        throw ArgumentError(argument, fmt::format("has dtype {}; collectives take int8, uint8, int32, uint32, int64, "
                                                  "uint64, float16, float32 and float64 (NCCL's types)",
                                                  array.dtype().name()));
    }
}

void check_operand(const Array& array, const char* argument, const BoundDevice& device) {
    check_dtype(array, argument);
    if (!(array.device() == device))
        throw ArgumentError(argument, fmt::format("is on {}, but the communicator's queue is on {}",
                                                  array.device().name(), device.name()));
    if (!array.is_c_contiguous())
        throw ArgumentError(argument, "is not C-contiguous (collectives move whole contiguous arrays: copy it first)");
}

void check_same_dtype(const Array& array, const char* argument, const Array& reference, const char* reference_name) {
    if (!(array.dtype() == reference.dtype()))
        throw ArgumentError(argument, fmt::format("has dtype {}, but {} has {}", array.dtype().name(), reference_name,
                                                  reference.dtype().name()));
}

void check_size(const Array& array, const char* argument, std::size_t size, const char* why) {
    if (array.size() != size)
        throw ArgumentError(argument, fmt::format("has {} elements; it needs {} ({})", array.size(), size, why));
}

void check_rank(int rank, const char* argument, int count) {
    if (rank < 0 || rank >= count)
        throw ArgumentError(argument, fmt::format("is {}, outside the clique's ranks [0, {})", rank, count));
}

std::size_t outer_extent_divisible(const Array& array, const char* argument, int count) {
    if (array.ndim() == 0 || array.shape()[0] % static_cast<std::size_t>(count) != 0)
        throw ArgumentError(argument, fmt::format("has shape ({}); axis 0 must be a multiple of the count {}",
                                                  fmt::join(array.shape(), ", "), count));
    return array.shape()[0];
}

Array flat(const Array& array) { return array.reshape({-1}); }

}  // namespace kjarni::detail
