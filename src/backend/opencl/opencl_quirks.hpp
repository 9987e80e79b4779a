#pragma once
// The known bugs of OpenCL drivers, each named once here with what goes wrong and how kjarni works
// around it. The code that works around one calls its predicate or names it, so that a search for
// the name finds every site (the idea of Boost.Compute's quirks.hpp).

#include <CL/cl.h>

#include <memory>
#include <string>
#include <vector>

#include "backend/backend.hpp"

namespace kjarni::backend::opencl::quirks {

/// nvidia_arg_info_parameterless: NVIDIA (driver 580) turns a kernel without parameters, built with
/// -cl-kernel-arg-info, into PTX that its own ptxas rejects (CL_BUILD_PROGRAM_FAILURE). Worked
/// around in build_or_throw: a build that failed with that option is retried once without it
/// (launches of that program are then checked for the argument count only).
inline bool retry_build_without_arg_info(cl_int status) {
    return status == CL_BUILD_PROGRAM_FAILURE || status == CL_INVALID_BUILD_OPTIONS ||
           status == CL_COMPILE_PROGRAM_FAILURE;
}

/// nvidia_svm_argument_sticks: NVIDIA (driver 580) refuses a launch with CL_INVALID_KERNEL_ARGS
/// once an argument set with clSetKernelArgSVMPointer is set again with clSetKernelArg. Worked
/// around in OpenClKernel::kernel_for: launches with SVM arguments go through a second kernel
/// object, made anew when one of its SVM arguments turns into a buffer.
inline constexpr const char* nvidia_svm_argument_sticks = "nvidia_svm_argument_sticks";

/// nvidia_mapped_copy: on devices that do not share memory with the host (NVIDIA's discrete GPUs)
/// the driver keeps a separate copy of a mapped CL_MEM_ALLOC_HOST_PTR buffer, and kernel writes
/// were seen not to reach the host pointer. Worked around in OpenClHostAllocation::device_buffer:
/// mapped host memory is a kernel argument only where this answers true.
inline bool mapped_host_memory_reaches_kernels(const Device& device) { return device.properties().unified_memory; }

/// nvidia_late_allocation_failure: NVIDIA's clCreateBuffer accepts sizes beyond
/// CL_DEVICE_MAX_MEM_ALLOC_SIZE and fails only at the first use. Worked around in OpenClBuffer's
/// constructor, which refuses such sizes itself (OutOfMemoryError).
inline bool exceeds_allocation_limit(const Device& device, std::size_t size) {
    return size > device.properties().max_allocation_size;
}

/// nvidia_svm_several_devices: NVIDIA's OpenCL (driver 580, two H200s in one context) crashes the
/// process (a segmentation fault inside the driver) when both devices use one coarse-grained SVM
/// allocation, even one after the other, ordered by events. Worked around in
/// OpenClContext::allocate_managed: shared virtual memory in an NVIDIA context of several devices is
/// refused with UnsupportedError naming this quirk; one-device contexts are unaffected.
inline bool svm_unsafe_across_devices(const std::vector<std::shared_ptr<Device>>& devices) {
    return devices.size() > 1 && devices.front()->platform().vendor().find("NVIDIA") != std::string::npos;
}

// pocl_local_size_beyond_3: PoCL 3.1 answers 0 for get_local_size(d) with d >= 3, where the
// specification says 1. Nothing to work around in the library (kernels have at most 3 dimensions);
// the dialect tests check 3 dimensions only (tests/runtime/kernel_dialect_test.cpp).

}  // namespace kjarni::backend::opencl::quirks
