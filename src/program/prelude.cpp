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

// OpenCL C's constants of <math.h>, <float.h> and <limits.h>, which NVRTC (no standard headers)
// lacks: a ReductionKernel with the neutral -INFINITY compiles through both APIs. Divisions by zero
// that the compiler folds rather than __int_as_float, so that they are constant expressions
// (usable in __constant__ initializers); NVRTC knows no __builtin_huge_valf or __builtin_nanf.
#ifndef INFINITY
#define INFINITY (1.0f / 0.0f)
#endif
#ifndef NAN
#define NAN (0.0f / 0.0f)
#endif
#ifndef HUGE_VALF
#define HUGE_VALF (1.0f / 0.0f)
#endif
#ifndef HUGE_VAL
#define HUGE_VAL (1.0 / 0.0)
#endif
#ifndef MAXFLOAT
#define MAXFLOAT 3.402823466e+38F
#endif
#ifndef FLT_MAX
#define FLT_DIG 6
#define FLT_MANT_DIG 24
#define FLT_MAX_10_EXP 38
#define FLT_MAX_EXP 128
#define FLT_MIN_10_EXP (-37)
#define FLT_MIN_EXP (-125)
#define FLT_RADIX 2
#define FLT_MAX 3.402823466e+38F
#define FLT_MIN 1.175494351e-38F
#define FLT_EPSILON 1.192092896e-07F
#define DBL_DIG 15
#define DBL_MANT_DIG 53
#define DBL_MAX_10_EXP 308
#define DBL_MAX_EXP 1024
#define DBL_MIN_10_EXP (-307)
#define DBL_MIN_EXP (-1021)
#define DBL_MAX 1.7976931348623158e+308
#define DBL_MIN 2.2250738585072014e-308
#define DBL_EPSILON 2.2204460492503131e-16
#endif
#ifndef M_PI
#define M_E 2.718281828459045090796
#define M_LOG2E 1.442695040888963387005
#define M_LOG10E 0.434294481903251816668
#define M_LN2 0.693147180559945286227
#define M_LN10 2.302585092994045901094
#define M_PI 3.141592653589793115998
#define M_PI_2 1.570796326794896557999
#define M_PI_4 0.785398163397448278999
#define M_1_PI 0.318309886183790691216
#define M_2_PI 0.636619772367581382433
#define M_2_SQRTPI 1.128379167095512558561
#define M_SQRT2 1.414213562373095145475
#define M_SQRT1_2 0.707106781186547572737
#endif
#ifndef M_PI_F
#define M_E_F 2.71828174591064f
#define M_LOG2E_F 1.44269502162933f
#define M_LOG10E_F 0.43429449200630f
#define M_LN2_F 0.69314718246460f
#define M_LN10_F 2.30258512496948f
#define M_PI_F 3.14159274101257f
#define M_PI_2_F 1.57079637050629f
#define M_PI_4_F 0.78539818525314f
#define M_1_PI_F 0.31830987334251f
#define M_2_PI_F 0.63661974668503f
#define M_2_SQRTPI_F 1.12837922573090f
#define M_SQRT2_F 1.41421353816986f
#define M_SQRT1_2_F 0.70710676908493f
#endif
#ifndef INT_MAX
#define CHAR_BIT 8
#define SCHAR_MAX 127
#define SCHAR_MIN (-127 - 1)
#define CHAR_MAX SCHAR_MAX
#define CHAR_MIN SCHAR_MIN
#define UCHAR_MAX 255
#define SHRT_MAX 32767
#define SHRT_MIN (-32767 - 1)
#define USHRT_MAX 65535
#define INT_MAX 2147483647
#define INT_MIN (-2147483647 - 1)
#define UINT_MAX 0xffffffffU
#define LONG_MAX ((int64_t)0x7fffffffffffffffLL)
#define LONG_MIN (-LONG_MAX - 1)
#define ULONG_MAX ((uint64_t)0xffffffffffffffffULL)
#endif

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
#if defined(__OPENCL_C_VERSION__) && __OPENCL_C_VERSION__ < 120
#define INLINE inline
#else
#define INLINE static inline
#endif
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
