#pragma once
/// Peer access between devices (PyCUDA's Device.can_access_peer, Context.enable_peer_access /
/// disable_peer_access), within one context and across contexts, and device-to-device copies
/// between contexts (PyCUDA's memcpy_peer with two contexts). \file
///
/// A context made from several devices enables peer access between every pair the driver allows
/// when it is made (the devices' buffers are then usable by each other's kernels); these calls ask
/// and change it pair by pair, and reach devices of other contexts. On OpenCL the devices of one
/// context always share its memory (enabled, and cannot be disabled: UnsupportedError), and nothing
/// of one context is usable in another.

#include <cstddef>

namespace kjarni {

class BoundDevice;
class Buffer;
class Queue;

/// Whether the driver lets kernels on `from` use memory of `to` once enabled (CUDA
/// cuDeviceCanAccessPeer; a device and itself: true; two contexts over one CUcontext: true).
/// false for devices of different APIs.
bool can_access_peer(const BoundDevice& from, const BoundDevice& to);

/// Whether kernels on `from` may use memory of `to` now.
bool peer_access_enabled(const BoundDevice& from, const BoundDevice& to);

/// Lets kernels on `from` use memory of `to` (CUDA cuCtxEnablePeerAccess with from's context
/// current; doing it twice is no error). ArgumentError naming "to" for a device and itself or a
/// device of another API; UnsupportedError when can_access_peer is false.
void enable_peer_access(const BoundDevice& from, const BoundDevice& to);

/// Takes that access away again (cuCtxDisablePeerAccess; no error if it was not enabled). Copies
/// between the two still work, staged by the driver. Same errors as enable_peer_access, and
/// UnsupportedError on OpenCL.
void disable_peer_access(const BoundDevice& from, const BoundDevice& to);

/// Copies `source` (a buffer of any context of the same API) into the start of `destination`
/// (a buffer of `queue`'s context; at least as large), in `queue`'s order: on CUDA device to
/// device (cuMemcpyPeerAsync: direct where peer access is enabled, else staged by the driver);
/// where the API has no such copy (OpenCL), through the host: chunks read on a queue of the
/// source's device into the page-locked slots of its context's transfer staging
/// (kjarni/transfer_staging.hpp: `slots`, and `chunk_size` up to 4 MiB) and written from there on
/// `queue`, the reads running ahead of the writes so that both directions move at once, with no
/// host copy. The source's own writes must be complete (its queue synchronized) before the call.
/// Returns whether the copy went device to device. With `async` false it returns when the copy is
/// done; with true, the source must stay alive and unchanged until `queue` has passed it (through
/// the host, every read is done when the call returns).
/// ArgumentError naming "destination" (another context than the queue's, too small) or "source"
/// (another API).
bool copy_between_contexts(const Queue& queue, const Buffer& destination, const Buffer& source, bool async = false);

}  // namespace kjarni
