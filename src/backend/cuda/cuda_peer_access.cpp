// Peer access between devices of a CUDA context and of other contexts (cuDeviceCanAccessPeer,
// cuCtxEnablePeerAccess / cuCtxDisablePeerAccess), and copies from another context's memory
// (cuMemcpyPeerAsync).

#include "backend/cuda/cuda_buffer.hpp"
#include "backend/cuda/cuda_context.hpp"
#include "backend/cuda/cuda_error.hpp"
#include "backend/cuda/cuda_queue.hpp"

namespace kjarni::backend::cuda {

namespace {

// The other context as a CUDA one: the public layer only pairs contexts of one API.
const CudaContext& as_cuda_context(const Context& other) { return static_cast<const CudaContext&>(other); }

}  // namespace

bool CudaContext::peer_access_possible(std::size_t from, const Context& other, std::size_t to) const {
    const CudaContext& target = as_cuda_context(other);
    // Two kjarni contexts over the same CUcontext (a primary context) share its memory.
    if (target.cu_context(to) == contexts_[from]) return true;
    if (target.cu_device(to) == cu_devices_[from]) return false;  // another context of the same device
    int can_access = 0;
    KJARNI_CU(driver_, DeviceCanAccessPeer, &can_access, cu_devices_[from], target.cu_device(to));
    return can_access != 0;
}

bool CudaContext::peer_access_enabled(std::size_t from, const Context& other, std::size_t to) const {
    const CudaContext& target = as_cuda_context(other);
    if (&other == this) return can_access_peer(from, to);
    if (target.cu_context(to) == contexts_[from]) return true;
    const std::lock_guard lock(cross_peer_mutex_);
    const auto found = cross_peer_.find({from, target.cu_context(to)});
    return found != cross_peer_.end() && found->second;
}

void CudaContext::set_peer_access(std::size_t from, Context& other, std::size_t to, bool enable) {
    const CudaContext& target = as_cuda_context(other);
    const CUcontext peer = target.cu_context(to);
    if (peer == contexts_[from]) return;  // one CUcontext: nothing to enable or disable
    CurrentContext current(driver_, contexts_[from]);
    if (enable) {
        // Primary contexts are the process's: another library may have enabled it already.
        const CUresult result = driver_.CtxEnablePeerAccess(peer, 0);
        if (result != CUDA_SUCCESS && result != CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED) {
            throw_cuda_error(driver_, result, "cuCtxEnablePeerAccess");
        }
    } else {
        const CUresult result = driver_.CtxDisablePeerAccess(peer);
        if (result != CUDA_SUCCESS && result != CUDA_ERROR_PEER_ACCESS_NOT_ENABLED) {
            throw_cuda_error(driver_, result, "cuCtxDisablePeerAccess");
        }
    }
    if (&other == this) {
        peer_[from * contexts_.size() + to].store(enable, std::memory_order_relaxed);
    } else {
        const std::lock_guard lock(cross_peer_mutex_);
        cross_peer_[{from, peer}] = enable;
    }
}

bool CudaQueue::copy_from_context(Buffer& dst, std::size_t dst_offset, Context& src_context, Buffer& src,
                                  std::size_t src_offset, std::size_t size, bool blocking) {
    auto& to = static_cast<CudaBuffer&>(dst);
    auto& from = static_cast<CudaBuffer&>(src);
    const CudaContext& source = as_cuda_context(src_context);
    const Driver& driver = context_->driver();
    CurrentContext current(driver, context_->cu_context(device_index_));
    // Direct over NVLink/PCIe where peer access is enabled, staged by the driver otherwise: no host
    // copy on kjarni's side either way.
    KJARNI_CU(driver, MemcpyPeerAsync, to.at(dst_offset), context_->cu_context(to.device_index()), from.at(src_offset),
              source.cu_context(from.device_index()), size, stream_.get());
    if (blocking) KJARNI_CU(driver, StreamSynchronize, stream_.get());
    return true;
}

}  // namespace kjarni::backend::cuda
