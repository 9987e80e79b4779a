#pragma once
// NVRTC's entry points, as loaded by NvrtcLibrary, and its error helper. For code that compiles
// programs itself; everything else uses nvrtc_library.hpp.

#include <nvrtc.h>

#include <string>

namespace kjarni::backend::cuda {

// X(function): NVRTC does not version its symbols, so the declarations in nvrtc.h give the types.
// clang-format off
#define KJARNI_NVRTC_FUNCTIONS(X) \
    X(nvrtcVersion)               \
    X(nvrtcGetErrorString)        \
    X(nvrtcGetNumSupportedArchs)  \
    X(nvrtcGetSupportedArchs)     \
    X(nvrtcCreateProgram)         \
    X(nvrtcDestroyProgram)        \
    X(nvrtcCompileProgram)        \
    X(nvrtcGetProgramLogSize)     \
    X(nvrtcGetProgramLog)         \
    X(nvrtcGetCUBINSize)          \
    X(nvrtcGetCUBIN)              \
    X(nvrtcGetPTXSize)            \
    X(nvrtcGetPTX)                \
    X(nvrtcAddNameExpression)     \
    X(nvrtcGetLoweredName)
// clang-format on

struct NvrtcFunctions {
#define KJARNI_NVRTC_MEMBER(function) decltype(&::function) function = nullptr;
    KJARNI_NVRTC_FUNCTIONS(KJARNI_NVRTC_MEMBER)
#undef KJARNI_NVRTC_MEMBER
};

/// Throws OutOfMemoryError for NVRTC_ERROR_OUT_OF_MEMORY, BackendError("NVRTC", ...) otherwise.
[[noreturn]] void throw_nvrtc_error(const NvrtcFunctions& nvrtc, nvrtcResult result, const char* call,
                                    const std::string& detail = {});

inline void check(const NvrtcFunctions& nvrtc, nvrtcResult result, const char* call) {
    if (result != NVRTC_SUCCESS) throw_nvrtc_error(nvrtc, result, call);
}

}  // namespace kjarni::backend::cuda

/// Calls nvrtc.fn(args...) and throws on failure, naming the call.
#define KJARNI_NVRTC(nvrtc, fn, ...) ::kjarni::backend::cuda::check((nvrtc), (nvrtc).fn(__VA_ARGS__), #fn)
