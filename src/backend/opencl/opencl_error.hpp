#pragma once
// OpenCL status codes to kjarni exceptions.

#include <CL/cl.h>

namespace kjarni::backend::opencl {

/// "CL_INVALID_VALUE" etc.; "CL_UNKNOWN_ERROR" for codes no header of ours names.
const char* error_name(cl_int status) noexcept;

/// Throws BackendError for a failed call's status (OutOfMemoryError for the allocation failures).
[[noreturn]] void throw_error(cl_int status, const char* call);

inline void check(cl_int status, const char* call) {
    if (status != CL_SUCCESS) throw_error(status, call);
}

}  // namespace kjarni::backend::opencl
