#pragma once
// Kernels kjarni itself generates (the algorithm layer's), compiled once per (context, device,
// key) and kept by the context ready to launch through the checked launch path: no look-up by
// name and no re-rendering per call, and their parameter checks made once.

#include <functional>
#include <memory>
#include <string>

#include "backend/backend.hpp"
#include "kjarni/context.hpp"
#include "program/checked_launch.hpp"

namespace kjarni::detail {

/// Whether the compiler may join a multiplication and an addition into one fused multiply-add.
/// kjarni's own kernels say `off` (numpy rounds each operation); users' kernel code (ElementwiseKernel)
/// `allowed`, as a Program's.
enum class Contraction { off, allowed };

/// A generated kernel on one device: the backend kernel, kept alive here, and its checks.
struct CachedKernel {
    std::shared_ptr<backend::Kernel> owner;
    CheckedKernel checked;
};

/// The kernel `name` of the source `render()` makes, on `device`, from the context's cache of
/// generated kernels. `key` must identify that source completely (render() is called on a miss
/// only); the source is compiled as a Program's (prelude, default options) through the module
/// caches in memory and on disk, and the build observer sees it as any Program's. `max_registers`
/// (0: the compiler's choice) caps the registers of a work item where the compiler takes it as an
/// option: NVIDIA's OpenCL (cl_nv_compiler_options' -cl-nv-maxrregcount); CUDA kernels say it in
/// their source (__launch_bounds__).
std::shared_ptr<const CachedKernel> cached_kernel(const BoundDevice& device, const std::string& key,
                                                  const std::string& name, const std::function<std::string()>& render,
                                                  Contraction contraction = Contraction::off,
                                                  std::size_t max_registers = 0);

}  // namespace kjarni::detail
