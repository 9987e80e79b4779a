#pragma once
// A memcpy for large copies whose destination is not read again soon by this CPU: staging slots
// the device reads by DMA, or a large user buffer filled from a slot. Non-temporal stores skip the
// read-for-ownership of every destination line and keep the copy from evicting the cache, which
// cuts the memory traffic of a copy from three passes to two: on the GPU machine the host copy,
// not the bus, limits staged transfers.

#include <cstddef>

namespace kjarni::detail {

/// Copies `size` bytes (the ranges must not overlap). Falls back to std::memcpy where the CPU has
/// no streaming stores kjarni knows of.
void streaming_copy(void* destination, const void* source, std::size_t size) noexcept;

}  // namespace kjarni::detail
