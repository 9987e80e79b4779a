#include "backend/opencl/opencl_library.hpp"

#include <memory>

#include "backend/dynamic_library.hpp"

namespace kjarni::backend::opencl {

namespace {

struct LoadResult {
    std::unique_ptr<OpenClLibrary> library;
    std::string reason;
};

LoadResult load() {
    LoadResult result;
    auto lib = DynamicLibrary::open({"libOpenCL.so.1", "libOpenCL.so"}, result.reason);
    if (!lib) {
        result.reason = "no OpenCL ICD loader: " + result.reason;
        return result;
    }
    auto table = std::make_unique<OpenClLibrary>();
    table->path = lib->name();
#define KJARNI_LOAD_REQUIRED(fn)                                  \
    if (!lib->load(table->fn, #fn)) {                             \
        result.reason = lib->name() + " has no entry point " #fn; \
        return result;                                            \
    }
    KJARNI_OPENCL_FUNCTIONS(KJARNI_LOAD_REQUIRED)
#undef KJARNI_LOAD_REQUIRED
#define KJARNI_LOAD_OPTIONAL(fn) lib->load(table->fn, #fn);
    KJARNI_OPENCL_OPTIONAL_FUNCTIONS(KJARNI_LOAD_OPTIONAL)
#undef KJARNI_LOAD_OPTIONAL
    result.library = std::move(table);
    return result;
}

const LoadResult& loaded() {
    static const LoadResult result = load();
    return result;
}

}  // namespace

const OpenClLibrary* opencl_library(std::string& reason) {
    reason = loaded().reason;
    return loaded().library.get();
}

const OpenClLibrary& cl() { return *loaded().library; }

}  // namespace kjarni::backend::opencl
