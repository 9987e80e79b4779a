#pragma once
// The checks every collective makes on its operands before an engine sees them, and the flat views
// the engines take.

#include <memory>

#include "collectives/comm_engine.hpp"
#include "kjarni/array.hpp"
#include "kjarni/collectives.hpp"

namespace kjarni {

/// The communicator's engine, for the calls over MultiArrays.
struct CommunicatorAccess {
    static const std::shared_ptr<detail::CommEngine>& engine(const Communicator& communicator) {
        return communicator.engine_;
    }
    static Communicator make(Queue queue, std::shared_ptr<detail::CommEngine> engine) {
        return {std::move(queue), std::move(engine)};
    }
};

namespace detail {

/// ArgumentError naming `argument` unless the array's dtype is one NCCL has.
void check_dtype(const Array& array, const char* argument);
/// ArgumentError naming `argument` unless the array is C-contiguous, on `device`, of a dtype NCCL has.
void check_operand(const Array& array, const char* argument, const BoundDevice& device);
/// ArgumentError naming `argument` unless its dtype is `reference`'s (named `reference_name`).
void check_same_dtype(const Array& array, const char* argument, const Array& reference, const char* reference_name);
/// ArgumentError naming `argument` unless it has `size` elements (`why` says where the number comes from).
void check_size(const Array& array, const char* argument, std::size_t size, const char* why);
/// ArgumentError naming `argument` unless 0 <= rank < count.
void check_rank(int rank, const char* argument, int count);
/// The extent of axis 0, which must be a multiple of `count` (ArgumentError naming `argument`).
std::size_t outer_extent_divisible(const Array& array, const char* argument, int count);
/// A one-dimensional view of a C-contiguous array.
Array flat(const Array& array);

}  // namespace detail
}  // namespace kjarni
