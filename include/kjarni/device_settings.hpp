#pragma once
/// Context-wide knobs of a device (PyCUDA's Context.set_limit / get_limit,
/// set_cache_config, and the profiler's start and stop). CUDA only: each is UnsupportedError naming
/// the backend on OpenCL, which has none of them.
///
/// On CUDA they act on the CUcontext of the device, which for contexts made from devices is the
/// device's primary context: shared with every other user of it in the process (the CUDA runtime,
/// CuPy, PyTorch), so a limit set here holds for them too. \file

#include <cstddef>
#include <cstdint>

#include "kjarni/device_parameters.hpp"

namespace kjarni {

class BoundDevice;

void set_context_limit(const BoundDevice& device, ContextLimit limit, std::size_t bytes);
std::size_t context_limit(const BoundDevice& device, ContextLimit limit);
/// For every kernel of the device's context (Kernel::set_cache_preference for one kernel).
void set_cache_preference(const BoundDevice& device, CachePreference preference);
/// The driver's profiler (Nsight Systems / Compute collect between these; cuProfilerStart/Stop).
void start_profiler(const BoundDevice& device);
void stop_profiler(const BoundDevice& device);

}  // namespace kjarni
