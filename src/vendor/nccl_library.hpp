#pragma once
// NCCL (libnccl.so.2), loaded at run time. The few types of its C API are declared here rather than
// taken from nccl.h, which a CUDA toolkit need not have: their values are NCCL's ABI (nccl.h of NCCL
// 2.x: ncclUniqueId is 128 opaque bytes, the enums are ints with these values).

#include <chrono>
#include <cstddef>
#include <limits>
#include <string>
#include <type_traits>

namespace kjarni::detail::nccl {

struct UniqueId {
    char internal[128];
};
using Comm = struct OpaqueComm*;
using Stream = struct OpaqueStream*;  // cudaStream_t, which is CUstream

enum Result : int { success = 0, in_progress = 7 };

/// The head of ncclConfig_t, as far as `splitShare` (NCCL >= 2.18). NCCL copies min(size, its own
/// size) bytes of a config and gives every field past them, or newer than `version`, its default;
/// an older NCCL ignores the fields it does not know.
struct Config {
    static constexpr int undefined = std::numeric_limits<int>::min();  // NCCL_CONFIG_UNDEF_INT
    std::size_t size = sizeof(Config);
    unsigned int magic = 0xcafebeef;  // NCCL_CONFIG_INITIALIZER's
    unsigned int version = 21800;     // NCCL_VERSION(2, 18, 0): the fields up to `splitShare`
    int blocking = 1;
    int cga_cluster_size = undefined;
    int min_ctas = undefined;
    int max_ctas = undefined;
    const char* net_name = nullptr;
    int split_share = undefined;  // a parent's 1: its children share its resources (a cheap split)
};
enum DataType : int {
    int8 = 0,
    uint8 = 1,
    int32 = 2,
    uint32 = 3,
    int64 = 4,
    uint64 = 5,
    float16 = 6,
    float32 = 7,
    float64 = 8
};
enum RedOp : int { sum = 0, prod = 1, max = 2, min = 3, avg = 4 };

// clang-format off
#define KJARNI_NCCL_FUNCTIONS(X)                                                                                     \
    X(GetVersion, ncclGetVersion, Result (*)(int*))                                                                   \
    X(GetUniqueId, ncclGetUniqueId, Result (*)(UniqueId*))                                                            \
    X(CommInitRank, ncclCommInitRank, Result (*)(Comm*, int, UniqueId, int))                                          \
    X(CommFinalize, ncclCommFinalize, Result (*)(Comm))                                                               \
    X(CommDestroy, ncclCommDestroy, Result (*)(Comm))                                                                 \
    X(CommAbort, ncclCommAbort, Result (*)(Comm))                                                                     \
    X(CommGetAsyncError, ncclCommGetAsyncError, Result (*)(Comm, Result*))                                            \
    X(GetErrorString, ncclGetErrorString, const char* (*)(Result))                                                    \
    X(AllReduce, ncclAllReduce, Result (*)(const void*, void*, std::size_t, DataType, RedOp, Comm, Stream))           \
    X(Reduce, ncclReduce, Result (*)(const void*, void*, std::size_t, DataType, RedOp, int, Comm, Stream))            \
    X(Broadcast, ncclBroadcast, Result (*)(const void*, void*, std::size_t, DataType, int, Comm, Stream))             \
    X(AllGather, ncclAllGather, Result (*)(const void*, void*, std::size_t, DataType, Comm, Stream))                  \
    X(ReduceScatter, ncclReduceScatter, Result (*)(const void*, void*, std::size_t, DataType, RedOp, Comm, Stream))   \
    X(Send, ncclSend, Result (*)(const void*, std::size_t, DataType, int, Comm, Stream))                              \
    X(Recv, ncclRecv, Result (*)(void*, std::size_t, DataType, int, Comm, Stream))                                    \
    X(GroupStart, ncclGroupStart, Result (*)())                                                                       \
    X(GroupEnd, ncclGroupEnd, Result (*)())
// clang-format on

struct Library {
#define KJARNI_DECLARE(member, symbol, type) std::type_identity_t<type> member = nullptr;
    KJARNI_NCCL_FUNCTIONS(KJARNI_DECLARE)
#undef KJARNI_DECLARE
    /// ncclGetLastError (NCCL >= 2.13), nullptr when absent.
    const char* (*GetLastError)(Comm) = nullptr;
    /// ncclCommInitRankConfig (NCCL >= 2.14), nullptr when absent: without it a communicator is
    /// made blocking and its initialization cannot time out.
    Result (*CommInitRankConfig)(Comm*, int, UniqueId, int, Config*) = nullptr;
    /// ncclCommSplit (NCCL >= 2.18 for a split that shares its parent's resources), nullptr when
    /// absent or older.
    Result (*CommSplit)(Comm, int, int, Comm*, Config*) = nullptr;
    std::string name;  // the file loaded
    int version = 0;   // ncclGetVersion's code
};

/// The library, loaded on first use; nullptr when it cannot be (why goes to `failure`).
const Library* load(std::string* failure = nullptr);

/// The library or UnsupportedError naming libnccl.so.2 and why it could not be loaded.
const Library& library();

/// Throws BackendError (api "NCCL", the call, the code, ncclGetErrorString and the communicator's
/// last error when there is one) unless `result` is success. in_progress (a non-blocking
/// communicator) asks ncclCommGetAsyncError until the call is done; `timeout` bounds that wait
/// (TimedOut when it passes, the communicator untouched: the caller aborts it).
void check(Result result, const char* call, Comm comm = nullptr,
           std::chrono::milliseconds timeout = std::chrono::milliseconds::max());

/// A non-blocking communicator still in progress after the caller's timeout.
struct TimedOut {
    const char* call;
};

}  // namespace kjarni::detail::nccl
