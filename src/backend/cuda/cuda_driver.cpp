#include "backend/cuda/cuda_driver.hpp"

#include <fmt/format.h>

#include "backend/dynamic_library.hpp"

namespace kjarni::backend::cuda {

namespace {

using GetProcAddressFn = PFN_cuGetProcAddress_v12000;

// Resolves one entry: through cuGetProcAddress when the driver has it (so that we get exactly the
// ABI we were compiled against, whatever later versions renamed), else by its exported name.
// `cuda_version` is the ABI requested: the version of the entry's PFN_ type, so that a later
// variant of the function with another signature is never handed out (asking cuCtxCreate for
// 12.0 gives cuCtxCreate_v3, which takes execution-affinity parameters before the flags: the
// driver then read the device ordinal from the wrong argument and refused it).
// A request for a function newer than the version asked for is refused.
template <class Fn>
bool resolve(const DynamicLibrary& library, GetProcAddressFn get_proc_address, Fn& fn, const char* base_name,
             const char* exported_name, int cuda_version) {
    fn = nullptr;
    if (get_proc_address != nullptr) {
        void* address = nullptr;
        CUdriverProcAddressQueryResult status = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
        // LEGACY_STREAM (what DEFAULT means for code not built with per-thread default streams):
        // never the _ptsz/_ptds variants; kjarni only uses streams it creates.
        const CUresult result =
            get_proc_address(base_name, &address, cuda_version, CU_GET_PROC_ADDRESS_LEGACY_STREAM, &status);
        if (result == CUDA_SUCCESS && status == CU_GET_PROC_ADDRESS_SUCCESS && address != nullptr) {
            fn = reinterpret_cast<Fn>(address);
            return true;
        }
    }
    return library.load(fn, exported_name);
}

}  // namespace

std::unique_ptr<Driver> Driver::load(std::string& why_not) {
    std::string open_error;
    // Only the versioned name: the unversioned libcuda.so is a development symlink, and loading a
    // different major version of the driver than the kernel module would fail in cuInit anyway.
    auto library = DynamicLibrary::open({"libcuda.so.1"}, open_error);
    if (!library) {
        why_not = "libcuda.so.1 could not be loaded: " + open_error;
        return nullptr;
    }

    auto driver = std::make_unique<Driver>();
    driver->library_name = library->name();

    // cuGetProcAddress_v2 exists from CUDA 12.0 on; older drivers get plain dlsym.
    GetProcAddressFn get_proc_address = nullptr;
    library->load(get_proc_address, "cuGetProcAddress_v2");
    driver->resolved_with = get_proc_address ? "cuGetProcAddress_v2" : "dlsym";

    std::string missing;
#define KJARNI_CUDA_RESOLVE(member, abi, exported)                                           \
    if (!resolve(*library, get_proc_address, driver->member, "cu" #member, exported, abi)) { \
        missing += missing.empty() ? "" : ", ";                                              \
        missing += exported;                                                                 \
    }
    KJARNI_CUDA_DRIVER_FUNCTIONS(KJARNI_CUDA_RESOLVE)
    KJARNI_CUDA_DRIVER_LAYER_FUNCTIONS(KJARNI_CUDA_RESOLVE)
#undef KJARNI_CUDA_RESOLVE
    // A driver older than the function: it stays null. cuGetProcAddress answers a request for a
    // version above the driver's with CUDA_ERROR_INVALID_VALUE, an error a user's compute-sanitizer
    // run would report: such functions are only looked up by their exported name.
    int driver_version = 0;
    if (driver->DriverGetVersion == nullptr || driver->DriverGetVersion(&driver_version) != CUDA_SUCCESS) {
        driver_version = 0;
    }
#define KJARNI_CUDA_RESOLVE_OPTIONAL(member, abi, exported)                               \
    if (driver_version >= (abi)) {                                                        \
        resolve(*library, get_proc_address, driver->member, "cu" #member, exported, abi); \
    } else {                                                                              \
        library->load(driver->member, exported);                                          \
    }
    KJARNI_CUDA_OPTIONAL_DRIVER_FUNCTIONS(KJARNI_CUDA_RESOLVE_OPTIONAL)
    KJARNI_CUDA_GRAPH_DRIVER_FUNCTIONS(KJARNI_CUDA_RESOLVE_OPTIONAL)
#undef KJARNI_CUDA_RESOLVE_OPTIONAL
    library->load(driver->FuncGetParamCount, "cuFuncGetParamCount");

    if (!missing.empty()) {
        why_not = fmt::format("{} is too old: it lacks {}", library->name(), missing);
        return nullptr;
    }
    return driver;
}

}  // namespace kjarni::backend::cuda
