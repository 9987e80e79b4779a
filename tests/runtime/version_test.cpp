// Versions as numbers (issue 43, item 8): the library's version tuple, its ABI version and the
// version of the NVRTC it compiles with, each checked against a source of its own.

#include <gtest/gtest.h>

#include "kjarni/version.hpp"

#include <dlfcn.h>

#include <string>

#ifdef KJARNI_WITH_CUDA
#include "backend/cuda/nvrtc_library.hpp"
#endif

namespace kjarni::test {
namespace {

TEST(Version, TupleMatchesTheVersionText) {
    const Version v = version_info();
    EXPECT_EQ(v.to_string(), version());
    EXPECT_GE(v.major, 0);
    EXPECT_GE(v.minor, 0);
    EXPECT_GE(v.patch, 0);
    // Tuples order as numbers, not as text (0.10 after 0.9).
    EXPECT_LT((Version{0, 9, 0}), (Version{0, 10, 0}));
    EXPECT_LT((Version{1, 2, 3}), (Version{1, 2, 4}));
    EXPECT_GT((Version{2, 0, 0}), (Version{1, 99, 99}));
}

TEST(Version, AbiVersionIsTheLibrarysSoname) {
    // The shared library is named libkjarni.so.MAJOR.MINOR (src/CMakeLists.txt's SOVERSION).
    const Version abi = abi_version();
    EXPECT_EQ(abi.major, version_info().major);
    EXPECT_EQ(abi.minor, version_info().minor);
    EXPECT_EQ(abi.patch, 0);
    Dl_info info{};
    if (dladdr(reinterpret_cast<void*>(&abi_version), &info) != 0 && info.dli_fname != nullptr) {
        const std::string file = info.dli_fname;
        if (file.find("libkjarni.so") != std::string::npos) {  // a shared build: its soname says it
            void* self = dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD);
            ASSERT_NE(self, nullptr);
            dlclose(self);
            const std::string expected = "libkjarni.so." + std::to_string(abi.major) + "." + std::to_string(abi.minor);
            EXPECT_NE(file.find(expected), std::string::npos) << file;
        }
    }
}

TEST(Version, NvrtcVersionIsWhatNvrtcSays) {
#ifdef KJARNI_WITH_CUDA
    std::string why_not;
    const auto* nvrtc = backend::cuda::nvrtc_library(&why_not);
    if (nvrtc == nullptr) {
        EXPECT_FALSE(nvrtc_version().has_value());
        GTEST_SKIP() << "NVRTC not found: " << why_not;
    }
    // Asked of the same library file, through its own nvrtcVersion, not through kjarni.
    void* library = dlopen(nvrtc->library_name().c_str(), RTLD_NOW | RTLD_LOCAL);
    ASSERT_NE(library, nullptr) << dlerror();
    using VersionFunction = int (*)(int*, int*);
    const auto ask = reinterpret_cast<VersionFunction>(dlsym(library, "nvrtcVersion"));
    ASSERT_NE(ask, nullptr);
    int major = -1, minor = -1;
    ASSERT_EQ(ask(&major, &minor), 0);
    dlclose(library);
    const auto v = nvrtc_version();
    ASSERT_TRUE(v.has_value());
    EXPECT_EQ(*v, (Version{major, minor, 0}));
    EXPECT_GE(v->major, 11);
#else
    EXPECT_FALSE(nvrtc_version().has_value());
#endif
}

}  // namespace
}  // namespace kjarni::test
