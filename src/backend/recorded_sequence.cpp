// Which recording mechanism a queue gets (recorded_sequence.hpp): the driver's own where it has
// one, else the list.

#include "backend/recorded_sequence.hpp"

#include "backend/opencl/opencl_command_buffer.hpp"
#include "backend/opencl/opencl_queue.hpp"
#ifdef KJARNI_WITH_CUDA
#include "backend/cuda/cuda_graph.hpp"
#include "backend/cuda/cuda_queue.hpp"
#endif

namespace kjarni::backend {

std::unique_ptr<RecordedSequence> make_recorded_sequence(Context& context, Queue& queue, bool native) {
    if (native) {
#ifdef KJARNI_WITH_CUDA
        if (auto* cuda_queue = dynamic_cast<cuda::CudaQueue*>(&queue)) return cuda::make_cuda_graph(*cuda_queue);
#endif
        if (auto* opencl_queue = dynamic_cast<opencl::OpenClQueue*>(&queue)) {
            if (auto sequence = opencl::make_command_buffer(context, *opencl_queue)) return sequence;
        }
    }
    return make_listed_sequence();
}

}  // namespace kjarni::backend
