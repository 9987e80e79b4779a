#pragma once
// OpenCL's recording mechanism: a cl_khr_command_buffer command buffer (recorded_sequence.hpp).

#include <memory>

#include "backend/recorded_sequence.hpp"

namespace kjarni::backend::opencl {

class OpenClQueue;

/// A command buffer recording for `queue` (of `context`), or null where the device cannot give one
/// that suits kjarni's queues: no cl_khr_command_buffer, a version older than 0.9.0 or newer than
/// 0.9.x, entry points missing, queue properties it requires that kjarni's queues lack, or a
/// driver that refuses to make one for the queue.
std::unique_ptr<RecordedSequence> make_command_buffer(Context& context, OpenClQueue& queue);

}  // namespace kjarni::backend::opencl
