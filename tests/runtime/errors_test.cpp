// The exception hierarchy: what each kind carries and says.

#include <gtest/gtest.h>

#include "backend/opencl/opencl_error.hpp"
#include "kjarni/error.hpp"

#ifdef KJARNI_WITH_CUDA
#include "backend/cuda/cuda_error.hpp"
#endif

namespace kjarni {
namespace {

TEST(Errors, BackendErrorCarriesApiCallAndCode) {
    const BackendError e("CUDA", "cuMemAlloc", 2, "CUDA_ERROR_OUT_OF_MEMORY", "1024 bytes");
    EXPECT_EQ(e.api(), "CUDA");
    EXPECT_EQ(e.call(), "cuMemAlloc");
    EXPECT_EQ(e.code(), 2);
    EXPECT_EQ(e.code_name(), "CUDA_ERROR_OUT_OF_MEMORY");
    const std::string what = e.what();
    for (const char* part : {"CUDA", "cuMemAlloc", "CUDA_ERROR_OUT_OF_MEMORY", "(2)", "1024 bytes"}) {
        EXPECT_NE(what.find(part), std::string::npos) << what;
    }
}

TEST(Errors, EveryKindIsAKjarniError) {
    EXPECT_THROW(throw OutOfMemoryError("OpenCL", "clCreateBuffer", -4, "x"), BackendError);
    EXPECT_THROW(throw OutOfMemoryError("OpenCL", "clCreateBuffer", -4, "x"), Error);
    EXPECT_THROW(throw ArgumentError("size", "too big"), Error);
    EXPECT_THROW(throw NotFoundError("x"), Error);
    EXPECT_THROW(throw ApiUnavailableError("x"), Error);
    EXPECT_THROW(throw UnsupportedError("x"), Error);
    const ArgumentError a("size", "too big");
    EXPECT_EQ(a.argument(), "size");
    EXPECT_STREQ(a.what(), "argument 'size': too big");
}

TEST(Errors, OpenClStatusesMapToTheirTypes) {
    try {
        backend::opencl::throw_error(CL_INVALID_VALUE, "clGetDeviceInfo");
        FAIL() << "no exception";
    } catch (const OutOfMemoryError&) {
        FAIL() << "CL_INVALID_VALUE is not out of memory";
    } catch (const BackendError& e) {
        EXPECT_EQ(e.api(), "OpenCL");
        EXPECT_EQ(e.call(), "clGetDeviceInfo");
        EXPECT_EQ(e.code(), CL_INVALID_VALUE);
        EXPECT_EQ(e.code_name(), "CL_INVALID_VALUE");
    }
    EXPECT_THROW(backend::opencl::throw_error(CL_MEM_OBJECT_ALLOCATION_FAILURE, "clEnqueueWriteBuffer"),
                 OutOfMemoryError);
    EXPECT_STREQ(backend::opencl::error_name(-9999), "CL_UNKNOWN_ERROR");
}

#ifdef KJARNI_WITH_CUDA
TEST(Errors, CudaOutOfMemoryNamesTheBytesAskedFor) {
    // A driver whose cuMemAlloc finds the device full (no GPU needed): the error says how much was
    // asked for, as OpenCL's does.
    backend::cuda::Driver driver;
    driver.MemAlloc = [](CUdeviceptr*, std::size_t) { return CUDA_ERROR_OUT_OF_MEMORY; };
    try {
        (void)backend::cuda::allocate_device_memory(driver, 123456789012);
        FAIL() << "no exception";
    } catch (const OutOfMemoryError& e) {
        EXPECT_EQ(e.api(), "CUDA");
        EXPECT_EQ(e.call(), "cuMemAlloc");
        EXPECT_NE(std::string(e.what()).find("123456789012 bytes requested"), std::string::npos) << e.what();
    }
    driver.MemAlloc = [](CUdeviceptr*, std::size_t) { return CUDA_ERROR_INVALID_VALUE; };
    try {
        (void)backend::cuda::allocate_device_memory(driver, 77);
        FAIL() << "no exception";
    } catch (const OutOfMemoryError&) {
        FAIL() << "not an out-of-memory error";
    } catch (const BackendError& e) {
        EXPECT_NE(std::string(e.what()).find("77 bytes requested"), std::string::npos) << e.what();
    }
}
#endif

}  // namespace
}  // namespace kjarni
