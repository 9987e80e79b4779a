// Every program the suite builds (on whatever device) is also compiled for CUDA with NVRTC, for
// sm_90, so that the CUDA side of the dialect and of every module is checked on machines without
// a GPU (CI has NVRTC but no driver). A source that compiles on the device but not with NVRTC is a
// test failure. Each distinct source is compiled once, through NVRTC's front end only
// (--fdevice-syntax-only: every error of the C++ side, such as an undeclared function or a type
// that does not convert, without NVVM's optimisation and PTX: 35 instead of 110 ms a program on
// the 2-core machine; inline PTX is checked by neither, only by a driver). Set KJARNI_TEST_NVRTC=0
// to skip.
// With KJARNI_TEST_DUMP_SOURCES=<folder>, every distinct source built is also written there (named
// by its hash), so that two builds of the suite can be compared for the code they generate.

#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <mutex>
#include <string>
#include <unordered_set>

#include "program/program_source.hpp"

#ifdef KJARNI_WITH_CUDA
#include "backend/cuda/nvrtc_library.hpp"
#endif

namespace kjarni::test {
namespace {

#ifdef KJARNI_WITH_CUDA
std::atomic<unsigned> checked{0};

void compile_with_nvrtc(std::string_view source, const ProgramOptions& options) {
    const auto* nvrtc = backend::cuda::nvrtc_library();
    // Without the prelude a source is written for one API on purpose.
    if (nvrtc == nullptr || options.no_prelude) return;
    std::vector<std::string> nvrtc_options{"--gpu-architecture=sm_90", "--std=c++17", "--fdevice-syntax-only"};
    if (options.fast_math) nvrtc_options.emplace_back("--use_fast_math");
    for (const auto& dir : options.include_dirs) nvrtc_options.push_back("-I" + dir);
    // Only the options both compilers share; the rest are API-specific by nature.
    for (const auto& option : options.compiler_options) {
        if (option.rfind("-D", 0) == 0 || option.rfind("-I", 0) == 0) nvrtc_options.push_back(option);
    }
    ProgramOptions cuda_options = options;
    const std::string full = detail::full_source(ApiId::cuda(), source, cuda_options);
    {
        // A source built again (every call of a generated kernel such as the strided copy builds its
        // Program, found in the context's cache) is checked once: NVRTC costs far more than the build.
        static std::mutex mutex;
        static std::unordered_set<std::string> seen;
        std::string key = full;
        for (const auto& option : nvrtc_options) key += "\n// " + option;
        const std::lock_guard lock(mutex);
        if (!seen.insert(std::move(key)).second) return;
    }
    const auto output = nvrtc->compile(full, "cross_check.cu", nvrtc_options);
    ++checked;
    if (!output.compiled) {
        ADD_FAILURE() << "compiles on the device but not with NVRTC for sm_90:\n"
                      << output.log << "\n--- source ---\n"
                      << full;
    }
}
#endif

/// The folder of KJARNI_TEST_DUMP_SOURCES, or empty.
std::string dump_folder() {
    const char* folder = std::getenv("KJARNI_TEST_DUMP_SOURCES");
    return folder == nullptr ? std::string() : std::string(folder);
}

void dump_source(std::string_view source) {
    const std::string folder = dump_folder();
    if (folder.empty()) return;
    std::ofstream(folder + "/" + std::to_string(std::hash<std::string_view>{}(source)) + ".src", std::ios::binary)
        << source;
}

class NvrtcCrossCheck : public ::testing::Environment {
public:
    void SetUp() override {
#ifdef KJARNI_WITH_CUDA
        const char* off = std::getenv("KJARNI_TEST_NVRTC");
        std::string why;
        if (off != nullptr && std::strcmp(off, "0") == 0) {
            why = "KJARNI_TEST_NVRTC=0";
        } else if (backend::cuda::nvrtc_library(&why) != nullptr) {
            detail::set_build_observer([](std::string_view source, const ProgramOptions& options) {
                dump_source(source);
                compile_with_nvrtc(source, options);
            });
            return;
        }
        std::printf("NVRTC cross-check off: %s\n", why.c_str());
#else
        std::printf("NVRTC cross-check off: built without the CUDA backend\n");
#endif
        if (!dump_folder().empty())
            detail::set_build_observer([](std::string_view source, const ProgramOptions&) { dump_source(source); });
    }
    void TearDown() override {
        detail::set_build_observer({});
#ifdef KJARNI_WITH_CUDA
        std::printf("NVRTC cross-check: %u program(s) also compiled for sm_90\n", checked.load());
#endif
    }
};

[[maybe_unused]] const auto* const registered = ::testing::AddGlobalTestEnvironment(new NvrtcCrossCheck);

}  // namespace
}  // namespace kjarni::test
