#pragma once
// Shared virtual memory pieces the program layer needs (defined in opencl_managed_memory.cpp).

#include <CL/cl.h>

namespace kjarni::backend::opencl {

/// Sets a kernel argument to an SVM address (clSetKernelArgSVMPointer); a null address becomes a
/// null buffer argument.
void set_svm_argument(cl_kernel kernel, cl_uint index, void* pointer);

}  // namespace kjarni::backend::opencl
