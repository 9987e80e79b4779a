#pragma once
// The OpenCL ICD loader, opened with dlopen, and the entry points kjarni calls through it. Only the
// types come from the Khronos headers; nothing links against libOpenCL. (CMake defines
// CL_USE_DEPRECATED_OPENCL_1_2_APIS: clCreateCommandQueue is the only choice on 1.2 platforms.)

#include <CL/cl.h>

#include <string>

namespace kjarni::backend::opencl {

// clang-format off
#define KJARNI_OPENCL_FUNCTIONS(X)                                                           \
    X(clGetPlatformIDs) X(clGetPlatformInfo) X(clGetDeviceIDs) X(clGetDeviceInfo)            \
    X(clCreateContext) X(clRetainContext) X(clReleaseContext) X(clGetContextInfo)            \
    X(clCreateCommandQueue) X(clReleaseCommandQueue) X(clFinish) X(clFlush)                  \
    X(clCreateBuffer) X(clReleaseMemObject) X(clEnqueueWriteBuffer) X(clEnqueueReadBuffer)   \
    X(clEnqueueCopyBuffer) X(clEnqueueFillBuffer) X(clEnqueueMarkerWithWaitList)             \
    X(clEnqueueBarrierWithWaitList) X(clWaitForEvents) X(clGetEventInfo)                     \
    X(clGetEventProfilingInfo) X(clReleaseEvent) X(clCreateSubBuffer)                         \
    X(clCreateProgramWithSource) X(clCreateProgramWithBinary) X(clBuildProgram)              \
    X(clGetProgramBuildInfo) X(clGetProgramInfo) X(clReleaseProgram) X(clCreateKernel)       \
    X(clReleaseKernel) X(clGetKernelWorkGroupInfo) X(clGetKernelArgInfo) X(clSetKernelArg)   \
    X(clEnqueueNDRangeKernel) X(clGetKernelInfo) X(clRetainMemObject) X(clEnqueueMapBuffer)  \
    X(clEnqueueUnmapMemObject) X(clRetainCommandQueue) X(clRetainProgram) X(clRetainKernel)  \
    X(clRetainEvent) X(clGetMemObjectInfo) X(clEnqueueReadBufferRect) X(clEnqueueWriteBufferRect) \
    X(clEnqueueCopyBufferRect)                                                               \
    X(clCreateImage) X(clGetSupportedImageFormats) X(clEnqueueReadImage) X(clEnqueueWriteImage) \
    X(clEnqueueCopyImage) X(clEnqueueCopyImageToBuffer) X(clEnqueueCopyBufferToImage)         \
    X(clCreateSampler) X(clRetainSampler) X(clReleaseSampler)
// clang-format on

// Entry points that only OpenCL 2.0+ loaders have (clEnqueueSVMMigrateMem: 2.1+; clCompileProgram and
// clLinkProgram: 1.2+; clSetMemObjectDestructorCallback: 1.1+); null when missing.
// clang-format off
#define KJARNI_OPENCL_OPTIONAL_FUNCTIONS(X)                                                    \
    X(clCreateCommandQueueWithProperties)                                                      \
    X(clSVMAlloc) X(clSVMFree) X(clEnqueueSVMFree) X(clSetKernelArgSVMPointer) X(clEnqueueSVMMap) X(clEnqueueSVMUnmap) \
    X(clEnqueueSVMMigrateMem) X(clCreateProgramWithIL) X(clCreateSamplerWithProperties)            \
    X(clCompileProgram) X(clLinkProgram) X(clSetMemObjectDestructorCallback)
// clang-format on

struct OpenClLibrary {
#define KJARNI_DECLARE_POINTER(name) decltype(&::name) name = nullptr;
    KJARNI_OPENCL_FUNCTIONS(KJARNI_DECLARE_POINTER)
    KJARNI_OPENCL_OPTIONAL_FUNCTIONS(KJARNI_DECLARE_POINTER)
#undef KJARNI_DECLARE_POINTER
    /// The file that was loaded.
    std::string path;
};

/// The process's OpenCL entry points; nullptr (with `reason` set) when no ICD loader can be opened
/// or one lacks a required entry point.
const OpenClLibrary* opencl_library(std::string& reason);

/// The entry points, for code that runs only once the OpenCL Api exists (so the load succeeded).
const OpenClLibrary& cl();

}  // namespace kjarni::backend::opencl
