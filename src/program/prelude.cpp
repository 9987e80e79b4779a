#include "program/prelude.hpp"

#include <array>
#include <string>

namespace kjarni::detail {

namespace {

// On CUDA the id and size functions follow OpenCL: dimensions past the third give id 0 and size 1.
// SIZE_T is unsigned int there (what threadIdx and friends are), size_t on OpenCL.
constexpr const char* cuda_prelude = R"(#define KJARNI_CUDA_API 1
#define LOCAL_BARRIER __syncthreads()
#define FUNCTION __device__
#define KERNEL extern "C" __global__
#define GLOBAL_MEM
#define LOCAL_MEM_DECL __shared__
#define LOCAL_MEM_DYNAMIC extern __shared__
#define LOCAL_MEM
#define CONSTANT_MEM_DECL __constant__
#define CONSTANT_MEM
#define INLINE __forceinline__
#define SIZE_T unsigned int
#define VSIZE_T unsigned int
#define ALIGN(bytes) __align__(bytes)

typedef signed char int8_t;
typedef unsigned char uint8_t;
typedef short int16_t;
typedef unsigned short uint16_t;
typedef int int32_t;
typedef unsigned int uint32_t;
typedef long long int64_t;
typedef unsigned long long uint64_t;

typedef float2 complex64_t;
typedef double2 complex128_t;
#define COMPLEX64_CTR(re, im) make_float2((re), (im))
#define COMPLEX128_CTR(re, im) make_double2((re), (im))

FUNCTION INLINE SIZE_T get_local_id(unsigned int dim)
{ return dim == 0 ? threadIdx.x : dim == 1 ? threadIdx.y : dim == 2 ? threadIdx.z : 0; }
FUNCTION INLINE SIZE_T get_group_id(unsigned int dim)
{ return dim == 0 ? blockIdx.x : dim == 1 ? blockIdx.y : dim == 2 ? blockIdx.z : 0; }
FUNCTION INLINE SIZE_T get_local_size(unsigned int dim)
{ return dim == 0 ? blockDim.x : dim == 1 ? blockDim.y : dim == 2 ? blockDim.z : 1; }
FUNCTION INLINE SIZE_T get_num_groups(unsigned int dim)
{ return dim == 0 ? gridDim.x : dim == 1 ? gridDim.y : dim == 2 ? gridDim.z : 1; }
FUNCTION INLINE SIZE_T get_global_size(unsigned int dim)
{ return get_num_groups(dim) * get_local_size(dim); }
FUNCTION INLINE SIZE_T get_global_id(unsigned int dim)
{ return get_group_id(dim) * get_local_size(dim) + get_local_id(dim); }

)";

constexpr const char* opencl_prelude = R"(#define KJARNI_OPENCL_API 1
#define LOCAL_BARRIER barrier(CLK_LOCAL_MEM_FENCE)
#define FUNCTION
#define KERNEL __kernel
#define GLOBAL_MEM __global
#define LOCAL_MEM_DECL __local
#define LOCAL_MEM_DYNAMIC __local
#define LOCAL_MEM __local
#define CONSTANT_MEM_DECL __constant
#define CONSTANT_MEM __constant
#define INLINE inline
#define SIZE_T size_t
#define VSIZE_T size_t
#define ALIGN(bytes) __attribute__ ((aligned(bytes)))

#if defined(cl_khr_fp64)
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif

typedef char int8_t;
typedef uchar uint8_t;
typedef short int16_t;
typedef ushort uint16_t;
typedef int int32_t;
typedef uint uint32_t;
typedef long int64_t;
typedef ulong uint64_t;

typedef float2 complex64_t;
#define COMPLEX64_CTR(re, im) ((float2)((re), (im)))
#if defined(cl_khr_fp64)
typedef double2 complex128_t;
#define COMPLEX128_CTR(re, im) ((double2)((re), (im)))
#endif

)";

}  // namespace

std::string_view prelude(const ApiId& api, bool fast_math) {
    // Assembled once per process: every program pays for one copy of it (in full_source), not for
    // measuring and joining its parts again.
    static const std::array<std::string, 4> texts = [] {
        std::array<std::string, 4> made;
        for (const bool cuda : {false, true}) {
            for (const bool fast : {false, true}) {
                std::string& text = made[(cuda ? 2U : 0U) + (fast ? 1U : 0U)];
                if (fast) text = "#define KJARNI_FAST_MATH 1\n";
                text += cuda ? cuda_prelude : opencl_prelude;
                text += image_prelude(cuda ? ApiId::cuda() : ApiId::opencl());
            }
        }
        return made;
    }();
    return texts[(api == ApiId::cuda() ? 2U : 0U) + (fast_math ? 1U : 0U)];
}

}  // namespace kjarni::detail
