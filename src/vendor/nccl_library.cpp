#include "vendor/nccl_library.hpp"

#include <fmt/format.h>

#include <thread>

#include "backend/dynamic_library.hpp"
#include "kjarni/error.hpp"

namespace kjarni::detail::nccl {

const Library* load(std::string* failure) {
    static std::string why;
    static const Library* const instance = []() -> const Library* {
        std::string error;
        const auto file = backend::DynamicLibrary::open({"libnccl.so.2"}, error);
        if (!file) {
            why = "libnccl.so.2 could not be loaded: " + error;
            return nullptr;
        }
        Library f;
        std::string missing;
#define KJARNI_LOAD(member, symbol, type) \
    if (!file->load(f.member, #symbol)) missing += " " #symbol;
        KJARNI_NCCL_FUNCTIONS(KJARNI_LOAD)
#undef KJARNI_LOAD
        if (!missing.empty()) {
            why = file->name() + " lacks" + missing;
            return nullptr;
        }
        static_cast<void>(file->load(f.GetLastError, "ncclGetLastError"));
        static_cast<void>(file->load(f.CommInitRankConfig, "ncclCommInitRankConfig"));
        f.name = file->name();
        if (f.GetVersion(&f.version) != success) f.version = 0;
        if (f.version >= 21800) static_cast<void>(file->load(f.CommSplit, "ncclCommSplit"));
        return new Library(std::move(f));  // lives for the process, like the library
    }();
    if (instance == nullptr && failure != nullptr) *failure = why;
    return instance;
}

const Library& library() {
    std::string failure;
    const Library* instance = load(&failure);
    if (instance == nullptr) throw UnsupportedError("NCCL (libnccl.so.2) is not available: " + failure);
    return *instance;
}

void check(Result result, const char* call, Comm comm, std::chrono::milliseconds timeout) {
    const Library& f = library();
    // A non-blocking communicator answers in_progress: its state tells when the call is through.
    const auto start = std::chrono::steady_clock::now();
    while (result == in_progress && comm != nullptr) {
        // Compared in milliseconds: the default, milliseconds::max(), overflows in nanoseconds.
        if (std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start) > timeout)
            throw TimedOut{call};
        Result state = success;
        const Result asked = f.CommGetAsyncError(comm, &state);
        if (asked != success) {
            result = asked;
            call = "ncclCommGetAsyncError";
            break;
        }
        result = state;
        if (result == in_progress) std::this_thread::yield();
    }
    if (result == success) return;
    std::string detail;
    if (comm != nullptr && f.GetLastError != nullptr) {
        const char* last = f.GetLastError(comm);
        if (last != nullptr && *last != '\0') detail = last;
    }
    const char* text = f.GetErrorString(result);
    throw BackendError("NCCL", call, result,
                       text != nullptr ? text : fmt::format("ncclResult_t {}", static_cast<int>(result)), detail);
}

}  // namespace kjarni::detail::nccl
