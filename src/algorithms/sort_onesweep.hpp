#pragma once
// The onesweep LSD radix sort (after Adinets and Merrill, "Onesweep: a faster least significant
// digit radix sort for GPUs", 2022, the design behind CUB's DeviceRadixSort): 8-bit digits, one
// kernel that counts the digits of every pass in a single read of the keys, then one kernel per
// digit that ranks a tile in local memory (with warp instructions on NVIDIA's GPUs, two 4-bit
// counting sorts elsewhere) and finds where its keys go by decoupled look-back over the tiles
// before it. See sort_onesweep.cpp (and its KJARNI_SORT_* settings).

#include <cstddef>
#include <optional>

#include "algorithms/sort_radix.hpp"
#include "kjarni/array.hpp"
#include "kjarni/buffer.hpp"
#include "kjarni/queue.hpp"

namespace kjarni::detail {

/// Whether onesweep_sort can sort `n` keys of `key_bytes` bytes (with values of `value_bytes`, 0
/// for none) on the queue's device. Look-back makes a work group wait for work groups that took
/// earlier tiles; tiles are handed out in the order groups start, so it only ever waits on a group
/// that is already running. That is safe where a running group keeps running until it ends: on
/// every GPU (CUDA devices, OpenCL GPUs) and on PoCL's CPU devices (a work group is one call on a
/// worker thread, run to its end). Elsewhere (other OpenCL CPU or accelerator implementations,
/// whose scheduling of groups is not known) the multi-pass sort is used. Also needed: the work
/// items per group of both kernels (256, or KJARNI_SORT_GROUP; this compiles them, once per context,
/// to ask), the tile in local memory, and n < 2^30 (a tile's status is a 2-bit flag and a 30-bit
/// count in one 32-bit word). ArgumentError for an invalid KJARNI_SORT_* setting.
bool onesweep_supported(const Queue& queue, std::size_t n, std::size_t key_bytes, std::size_t value_bytes);

/// Sorts `n` keys (unsigned integers of `key_bytes` bytes) stably, carrying `values` (4 or 8
/// bytes each) along when given: 8-bit digits, least significant first, key_bytes passes. The
/// result lies in the given buffers or in temporaries of the same sizes. Requires
/// onesweep_supported().
RadixResult onesweep_sort(const Queue& queue, const Buffer& keys, std::size_t key_bytes,
                          const std::optional<Buffer>& values, std::size_t value_bytes, std::size_t n);

/// What sort and argsort ask of onesweep_sort_elements: the sorted elements, or their positions.
enum class OnesweepOutput { sorted, positions };

/// sort (`output` sorted) or stable argsort (positions) of the C-contiguous array `input` of `n`
/// elements (of a dtype key_functions() takes; n < 2^30, onesweep_supported() for key_bytes =
/// itemsize and value_bytes 0 or 4) into `out`, a C-contiguous array of n elements (input's dtype,
/// or int64 for positions), by the onesweep sort with its ends fused: the histogram and the first
/// pass read the elements and make their keys (FloatKeys::exact for sorted, canonical for
/// positions), the first pass makes the positions 0..n-1 as values, and the last pass writes
/// the elements back from their keys, or the positions as int64, straight into `out`. That saves
/// the separate kernels' traffic: two passes over the keys of a sort, more for an argsort.
void onesweep_sort_elements(const Queue& queue, const Array& input, const Array& out, OnesweepOutput output);

}  // namespace kjarni::detail
