#include "algorithms/operand_checks.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "kjarni/error.hpp"

namespace kjarni::detail {

void check_on_queue_device(const Array& array, const Queue& queue, const std::string& name) {
    if (on_queue_device(array, queue)) return;
    if (!(array.device().context() == queue.device().context()))
        throw ArgumentError(name, "belongs to another context than the queue");
    if (array.device().index() != queue.device().index())
        throw ArgumentError(name,
                            fmt::format("is on device {} ('{}'), the queue on device {} ('{}')", array.device().index(),
                                        array.device().name(), queue.device().index(), queue.device().name()));
}

namespace {

// The byte range [low, high) of the elements in the allocation.
std::pair<std::ptrdiff_t, std::ptrdiff_t> byte_range(const Array& a) {
    const auto [low, high] = a.layout().extent(a.dtype().itemsize());
    const auto start = static_cast<std::ptrdiff_t>(a.base().offset() + a.offset());
    return {start + low, start + high};
}

}  // namespace

void check_no_partial_overlap(const Array& output, const std::string& output_name, const Array& input,
                              const std::string& input_name) {
    if (detail::backend_of(output.base()) != detail::backend_of(input.base()) || output.size() == 0 ||
        input.size() == 0)
        return;
    const auto [a_low, a_high] = byte_range(output);
    const auto [b_low, b_high] = byte_range(input);
    if (a_high <= b_low || b_high <= a_low) return;
    const bool same_view = output.base().offset() + output.offset() == input.base().offset() + input.offset() &&
                           output.dtype() == input.dtype() && output.shape() == input.shape() &&
                           output.strides() == input.strides();
    if (same_view) return;
    throw ArgumentError(output_name,
                        fmt::format("overlaps {} through a different view (bytes [{}, {}) and [{}, {}) of one "
                                    "allocation); write into a copy or the same view",
                                    input_name, a_low, a_high, b_low, b_high));
}

void check_output_shape(const Array& output, const std::vector<std::size_t>& shape, const std::string& name) {
    output.require_writeable(name.c_str());  // every output an algorithm is given comes through here
    if (output.shape() != shape)
        throw ArgumentError(name, fmt::format("has shape ({}), the result has shape ({})",
                                              fmt::join(output.shape(), ", "), fmt::join(shape, ", ")));
}

}  // namespace kjarni::detail
