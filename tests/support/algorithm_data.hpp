#pragma once
// Test data for the algorithm tests: random device arrays of any scalar dtype in many layouts,
// and their host values, read element by element through ScalarValue (exact for every dtype).

#include <complex>
#include <string>
#include <vector>

#include "algorithms/scalar_value.hpp"
#include "kjarni/array.hpp"

namespace kjarni::test {

/// Random values of `dtype` in C order: integers over the type's whole range (wrapping shows),
/// floats uniform in [-range, range), complex values with both parts so, bools half true.
HostArray random_host_array(const DType& dtype, std::vector<std::size_t> shape, double range = 100.0);

/// The element of a host array at a C-order position of `shape`, the array being broadcast to it.
detail::ScalarValue broadcast_element(const HostArray& array, const std::vector<std::size_t>& shape, std::size_t flat);

/// An array view of the given kind over fresh random data, and the host copy of the same view's
/// elements (C order). Kinds: "contiguous", "stepped" (every second element of a longer axis),
/// "negative" (reversed), "transposed" (a 2-D array's transpose), "offset" (starting one element
/// in: not vector-aligned).
struct ViewCase {
    Array device;
    HostArray host;
};
ViewCase random_view(const Queue& queue, const DType& dtype, const std::string& kind, std::size_t rows,
                     std::size_t columns);

/// A contiguous 1-D array in memory kjarni did not allocate (Buffer::from_backend_buffer, as a
/// view from another library would come), whose first element lies `skip` bytes into a fresh
/// allocation: through CUDA, where such memory may start anywhere, 16-byte loads must not be taken.
/// For CUDA contexts only (an OpenCL buffer cannot start at an arbitrary address).
Array foreign_array_at(const BoundDevice& device, const DType& dtype, std::size_t n, std::size_t skip);

}  // namespace kjarni::test
