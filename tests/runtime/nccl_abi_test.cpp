// The NCCL types kjarni declares itself (vendor/nccl_library.hpp, so that no nccl.h is needed
// to build) checked against nccl.h where the CUDA toolkit has one.

#include <gtest/gtest.h>

#include "vendor/nccl_library.hpp"

namespace nccl = kjarni::detail::nccl;

#if defined(KJARNI_WITH_CUDA) && __has_include(<nccl.h>)
#include <nccl.h>

static_assert(sizeof(nccl::UniqueId) == sizeof(ncclUniqueId));
static_assert(static_cast<int>(nccl::success) == ncclSuccess);
static_assert(static_cast<int>(nccl::in_progress) == ncclInProgress);
static_assert(static_cast<int>(nccl::int8) == ncclInt8 && static_cast<int>(nccl::uint8) == ncclUint8);
static_assert(static_cast<int>(nccl::int32) == ncclInt32 && static_cast<int>(nccl::uint32) == ncclUint32);
static_assert(static_cast<int>(nccl::int64) == ncclInt64 && static_cast<int>(nccl::uint64) == ncclUint64);
static_assert(static_cast<int>(nccl::float16) == ncclFloat16 && static_cast<int>(nccl::float32) == ncclFloat32);
static_assert(static_cast<int>(nccl::float64) == ncclFloat64);
static_assert(static_cast<int>(nccl::sum) == ncclSum && static_cast<int>(nccl::prod) == ncclProd);
static_assert(static_cast<int>(nccl::max) == ncclMax && static_cast<int>(nccl::min) == ncclMin);
static_assert(static_cast<int>(nccl::avg) == ncclAvg);
static_assert(sizeof(nccl::Result) == sizeof(ncclResult_t) && sizeof(nccl::DataType) == sizeof(ncclDataType_t));
static_assert(sizeof(nccl::RedOp) == sizeof(ncclRedOp_t));

TEST(NcclAbi, DeclaredTypesMatchNcclH) { SUCCEED() << "checked at compile time against NCCL " << NCCL_VERSION_CODE; }
#endif

TEST(NcclLibrary, LoadsOrSaysWhy) {
    std::string failure;
    const nccl::Library* library = nccl::load(&failure);
    if (library == nullptr) {
        EXPECT_NE(failure.find("libnccl.so.2"), std::string::npos) << failure;
    } else {
        EXPECT_GE(library->version, 20000) << library->name;  // NCCL 2.x codes: major * 10000 + ...
    }
}
