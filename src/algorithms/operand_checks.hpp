#pragma once
// Checks every algorithm makes of the arrays it is given, with errors naming the culprit.

#include <string>

#include "kjarni/array.hpp"
#include "kjarni/queue.hpp"

namespace kjarni::detail {

/// ArgumentError when the array belongs to another context than the queue, or lies on another
/// device of it.
void check_on_queue_device(const Array& array, const Queue& queue, const std::string& name);
/// Whether check_on_queue_device would pass: for callers that format the name only to report.
inline bool on_queue_device(const Array& array, const Queue& queue) {
    return array.device().context() == queue.device().context() && array.device().index() == queue.device().index();
}

/// ArgumentError when `output` and `input` share memory through different views (another offset,
/// other strides or another dtype): the result would depend on the order of the work items. The
/// same view (in-place work) is allowed.
void check_no_partial_overlap(const Array& output, const std::string& output_name, const Array& input,
                              const std::string& input_name);

/// ArgumentError unless `output` has exactly `shape` (outputs are never broadcast).
void check_output_shape(const Array& output, const std::vector<std::size_t>& shape, const std::string& name);

}  // namespace kjarni::detail
