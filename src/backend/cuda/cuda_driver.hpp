#pragma once
// The CUDA driver (libcuda.so.1), opened at run time and resolved into a table of function
// pointers. Nothing in kjarni links against libcuda: a machine without the driver sees CUDA as
// unavailable instead of failing to start.
//
// Each entry names the driver function by its base name (the name cuGetProcAddress takes), the
// CUDA version whose ABI we call it with (the suffix of its PFN_ typedef in cudaTypedefs.h), and the
// exported symbol with that ABI (for drivers older than 12.0, which lack cuGetProcAddress_v2).
// cuda.h renames many functions with #defines (cuMemAlloc -> cuMemAlloc_v2, ...); the members here
// drop the "cu" prefix (driver.MemAlloc) so that those macros never touch them.

#include <cuda.h>
#include <cudaProfilerTypedefs.h>
#include <cudaTypedefs.h>

#include <cstddef>
#include <memory>
#include <string>

namespace kjarni::backend::cuda {

// X(member, ABI version, exported symbol with that ABI)
// clang-format off
#define KJARNI_CUDA_DRIVER_FUNCTIONS(X)                                  \
    X(Init, 2000, "cuInit")                                              \
    X(DriverGetVersion, 2020, "cuDriverGetVersion")                      \
    X(GetErrorName, 6000, "cuGetErrorName")                              \
    X(GetErrorString, 6000, "cuGetErrorString")                          \
    X(DeviceGetCount, 2000, "cuDeviceGetCount")                          \
    X(DeviceGet, 2000, "cuDeviceGet")                                    \
    X(DeviceGetName, 2000, "cuDeviceGetName")                            \
    X(DeviceGetAttribute, 2000, "cuDeviceGetAttribute")                  \
    X(DeviceTotalMem, 3020, "cuDeviceTotalMem_v2")                       \
    X(DeviceGetPCIBusId, 4010, "cuDeviceGetPCIBusId")                    \
    X(DeviceCanAccessPeer, 4000, "cuDeviceCanAccessPeer")                \
    X(DevicePrimaryCtxRetain, 7000, "cuDevicePrimaryCtxRetain")          \
    X(DevicePrimaryCtxRelease, 11000, "cuDevicePrimaryCtxRelease_v2")    \
    X(CtxGetCurrent, 4000, "cuCtxGetCurrent")                            \
    X(CtxSetCurrent, 4000, "cuCtxSetCurrent")                            \
    X(CtxGetDevice, 2000, "cuCtxGetDevice")                              \
    X(CtxDestroy, 4000, "cuCtxDestroy_v2")                               \
    X(CtxEnablePeerAccess, 4000, "cuCtxEnablePeerAccess")                \
    X(CtxSynchronize, 2000, "cuCtxSynchronize")                          \
    X(StreamCreate, 2000, "cuStreamCreate")                              \
    X(StreamDestroy, 4000, "cuStreamDestroy_v2")                         \
    X(StreamSynchronize, 2000, "cuStreamSynchronize")                    \
    X(StreamWaitEvent, 3020, "cuStreamWaitEvent")                        \
    X(EventCreate, 2000, "cuEventCreate")                                \
    X(EventDestroy, 4000, "cuEventDestroy_v2")                           \
    X(EventRecord, 2000, "cuEventRecord")                                \
    X(EventSynchronize, 2000, "cuEventSynchronize")                      \
    X(EventQuery, 2000, "cuEventQuery")                                  \
    X(EventElapsedTime, 2000, "cuEventElapsedTime")                      \
    X(MemAlloc, 3020, "cuMemAlloc_v2")                                   \
    X(MemFree, 3020, "cuMemFree_v2")                                     \
    X(MemGetInfo, 3020, "cuMemGetInfo_v2")                               \
    X(MemcpyHtoDAsync, 3020, "cuMemcpyHtoDAsync_v2")                     \
    X(MemcpyDtoHAsync, 3020, "cuMemcpyDtoHAsync_v2")                     \
    X(MemcpyDtoDAsync, 3020, "cuMemcpyDtoDAsync_v2")                     \
    X(MemcpyPeerAsync, 4000, "cuMemcpyPeerAsync")                        \
    X(MemsetD8Async, 3020, "cuMemsetD8Async")                            \
    X(MemsetD16Async, 3020, "cuMemsetD16Async")                          \
    X(MemsetD32Async, 3020, "cuMemsetD32Async")                          \
    X(MemsetD2D32Async, 3020, "cuMemsetD2D32Async")                      \
    X(MemHostAlloc, 2020, "cuMemHostAlloc")                              \
    X(MemFreeHost, 2000, "cuMemFreeHost")                                \
    X(MemHostGetDevicePointer, 3020, "cuMemHostGetDevicePointer_v2")     \
    X(MemAllocManaged, 6000, "cuMemAllocManaged")                        \
    X(StreamAttachMemAsync, 6000, "cuStreamAttachMemAsync")              \
    /* Interprocess memory and events (cuda_ipc.cpp). */                \
    X(IpcGetMemHandle, 4010, "cuIpcGetMemHandle")                        \
    X(IpcOpenMemHandle, 11000, "cuIpcOpenMemHandle_v2")                  \
    X(IpcCloseMemHandle, 4010, "cuIpcCloseMemHandle")                    \
    X(IpcGetEventHandle, 4010, "cuIpcGetEventHandle")                    \
    X(IpcOpenEventHandle, 4010, "cuIpcOpenEventHandle")                  \
    /* For the program layer: modules, kernels, launches. */            \
    X(ModuleLoadData, 2000, "cuModuleLoadData")                          \
    X(ModuleUnload, 2000, "cuModuleUnload")                              \
    X(ModuleGetFunction, 2000, "cuModuleGetFunction")                    \
    X(ModuleGetGlobal, 3020, "cuModuleGetGlobal_v2")                     \
    X(FuncGetAttribute, 2020, "cuFuncGetAttribute")                      \
    X(FuncSetAttribute, 9000, "cuFuncSetAttribute")                      \
    X(LaunchKernel, 4000, "cuLaunchKernel")

// Functions newer than CUDA 12.0 that kjarni can do without: each is requested with its own ABI
// version, and stays null when the driver is older (callers check). Same columns as above. (So
// are the graph entries further down, which are older but serve one feature only.)
#define KJARNI_CUDA_OPTIONAL_DRIVER_FUNCTIONS(X)                         \
    X(FuncGetName, 12030, "cuFuncGetName")                               \
    X(FuncGetParamInfo, 12040, "cuFuncGetParamInfo")                     \
    X(ModuleGetFunctionCount, 12040, "cuModuleGetFunctionCount")         \
    X(ModuleEnumerateFunctions, 12040, "cuModuleEnumerateFunctions")     \
    /* The CUmemLocation form (12.2+), the only one CUDA 13's headers declare. */ \
    X(MemPrefetchAsync, 12020, "cuMemPrefetchAsync_v2")                 \
    /* Deprecated (a no-op since Volta) and absent from future drivers. */ \
    X(CtxSetSharedMemConfig, 4020, "cuCtxSetSharedMemConfig")

// The graph entries (cuda_graph.cpp): optional as the table above (a driver without them loses
// only recordings, UnsupportedError, not the backend), with the same columns. The kernel-node
// parameters are the CUDA_KERNEL_NODE_PARAMS_v2 form of 12.0.
#define KJARNI_CUDA_GRAPH_DRIVER_FUNCTIONS(X)                            \
    X(StreamBeginCapture, 10010, "cuStreamBeginCapture_v2")              \
    X(StreamEndCapture, 10000, "cuStreamEndCapture")                     \
    X(StreamGetCaptureInfo, 11030, "cuStreamGetCaptureInfo_v2")          \
    X(GraphInstantiateWithFlags, 11040, "cuGraphInstantiateWithFlags")   \
    X(GraphLaunch, 10000, "cuGraphLaunch")                               \
    X(GraphKernelNodeGetParams, 12000, "cuGraphKernelNodeGetParams_v2")  \
    X(GraphExecKernelNodeSetParams, 12000, "cuGraphExecKernelNodeSetParams_v2") \
    X(GraphExecDestroy, 10000, "cuGraphExecDestroy")                     \
    X(GraphDestroy, 10000, "cuGraphDestroy")

// The driver layer's extras (foreign, page-locked and pitched memory, rectangular copies, modules
// from files, knobs): required like the first table, kept apart to keep that table's history short.
#define KJARNI_CUDA_DRIVER_LAYER_FUNCTIONS(X)                            \
    X(MemHostRegister, 6050, "cuMemHostRegister_v2")                     \
    X(MemHostUnregister, 4000, "cuMemHostUnregister")                    \
    X(PointerGetAttributes, 7000, "cuPointerGetAttributes")              \
    X(MemGetAddressRange, 3020, "cuMemGetAddressRange_v2")               \
    X(MemAllocPitch, 3020, "cuMemAllocPitch_v2")                         \
    X(MemsetD2D8Async, 3020, "cuMemsetD2D8Async")                        \
    X(MemsetD2D16Async, 3020, "cuMemsetD2D16Async")                      \
    X(Memcpy3DAsync, 3020, "cuMemcpy3DAsync_v2")                         \
    X(Memcpy3DPeerAsync, 4000, "cuMemcpy3DPeerAsync")                    \
    X(ModuleLoadDataEx, 2010, "cuModuleLoadDataEx")                      \
    X(LinkCreate, 6050, "cuLinkCreate_v2")                               \
    X(LinkAddData, 6050, "cuLinkAddData_v2")                             \
    X(LinkComplete, 5050, "cuLinkComplete")                              \
    X(LinkDestroy, 5050, "cuLinkDestroy")                                \
    X(StreamCreateWithPriority, 5050, "cuStreamCreateWithPriority")      \
    X(CtxGetStreamPriorityRange, 5050, "cuCtxGetStreamPriorityRange")    \
    X(StreamQuery, 2000, "cuStreamQuery")                                \
    X(CtxSetLimit, 3010, "cuCtxSetLimit")                                \
    X(CtxGetLimit, 3010, "cuCtxGetLimit")                                \
    X(CtxSetCacheConfig, 3020, "cuCtxSetCacheConfig")                    \
    X(FuncSetCacheConfig, 3000, "cuFuncSetCacheConfig")                  \
    X(ProfilerStart, 4000, "cuProfilerStart")                            \
    X(ProfilerStop, 4000, "cuProfilerStop")                              \
    /* Images (cuda_image.cpp): arrays, texture and surface objects. */  \
    X(Array3DCreate, 3020, "cuArray3DCreate_v2")                         \
    X(ArrayDestroy, 2000, "cuArrayDestroy")                              \
    X(TexObjectCreate, 5000, "cuTexObjectCreate")                        \
    X(TexObjectDestroy, 5000, "cuTexObjectDestroy")                      \
    X(SurfObjectCreate, 5000, "cuSurfObjectCreate")                      \
    X(SurfObjectDestroy, 5000, "cuSurfObjectDestroy")                   \
    X(MipmappedArrayCreate, 5000, "cuMipmappedArrayCreate")             \
    X(MipmappedArrayGetLevel, 5000, "cuMipmappedArrayGetLevel")         \
    X(MipmappedArrayDestroy, 5000, "cuMipmappedArrayDestroy")           \
    /* Contexts of kjarni's own, their flags, peer access (issue 43). */ \
    X(CtxCreate, 3020, "cuCtxCreate_v2")                                 \
    X(CtxPopCurrent, 4000, "cuCtxPopCurrent_v2")                         \
    X(DevicePrimaryCtxSetFlags, 11000, "cuDevicePrimaryCtxSetFlags_v2")  \
    X(CtxDisablePeerAccess, 4000, "cuCtxDisablePeerAccess")
// clang-format on

// Each function above is requested from cuGetProcAddress with the version in its entry, the one
// its PFN_ type is named for (e.g. cuCtxGetDevice without the context argument that 13.0 added as
// _v2); the required ones are all older than 12.0, the oldest driver kjarni resolves this way.

/// cuFuncGetParamCount(function, &count): newer than the CUDA 13.0 headers kjarni is built against,
/// which therefore declare no PFN_ for it; this is its signature as NVIDIA publishes it.
using FuncGetParamCountFn = CUresult(CUDAAPI*)(CUfunction function, std::size_t* count);

struct Driver {
#define KJARNI_CUDA_DRIVER_MEMBER(member, abi, exported) PFN_cu##member##_v##abi member = nullptr;
    KJARNI_CUDA_DRIVER_FUNCTIONS(KJARNI_CUDA_DRIVER_MEMBER)
    KJARNI_CUDA_DRIVER_LAYER_FUNCTIONS(KJARNI_CUDA_DRIVER_MEMBER)
    KJARNI_CUDA_OPTIONAL_DRIVER_FUNCTIONS(KJARNI_CUDA_DRIVER_MEMBER)
    KJARNI_CUDA_GRAPH_DRIVER_FUNCTIONS(KJARNI_CUDA_DRIVER_MEMBER)
#undef KJARNI_CUDA_DRIVER_MEMBER
    /// Optional, found by its exported name only: asking cuGetProcAddress for a version the driver
    /// does not have is an error the driver reports (and compute-sanitizer shows the user).
    FuncGetParamCountFn FuncGetParamCount = nullptr;

    /// The library that was opened, and how its functions were found (for diagnostics).
    std::string library_name;
    std::string resolved_with;

    /// Opens libcuda.so.1 and resolves every function; on failure returns null and says why in
    /// `why_not`. A missing optional function is no failure: its member stays null. Does not call
    /// cuInit.
    static std::unique_ptr<Driver> load(std::string& why_not);
};

}  // namespace kjarni::backend::cuda
