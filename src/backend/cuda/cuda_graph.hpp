#pragma once
// CUDA's recording mechanism: a graph captured from a queue's stream (recorded_sequence.hpp).

#include <memory>

#include "backend/recorded_sequence.hpp"

namespace kjarni::backend::cuda {

class CudaQueue;

/// Starts capturing `queue`'s stream (relaxed mode) into a graph; BackendError naming the call
/// when the driver refuses (UnsupportedError when it lacks the graph entry points).
std::unique_ptr<RecordedSequence> make_cuda_graph(CudaQueue& queue);

}  // namespace kjarni::backend::cuda
