#include "backend/cuda/nvrtc_library.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <optional>

#include "backend/cuda/nvrtc_functions.hpp"
#include "backend/dynamic_library.hpp"
#include "kjarni/error.hpp"

namespace kjarni::backend::cuda {

void throw_nvrtc_error(const NvrtcFunctions& nvrtc, nvrtcResult result, const char* call, const std::string& detail) {
    // nvrtcGetErrorString gives the code's name ("NVRTC_ERROR_INVALID_OPTION").
    const char* name = nvrtc.nvrtcGetErrorString != nullptr ? nvrtc.nvrtcGetErrorString(result) : nullptr;
    std::string code_name = name != nullptr ? name : fmt::format("nvrtcResult {}", static_cast<int>(result));
    if (result == NVRTC_ERROR_OUT_OF_MEMORY) {
        throw OutOfMemoryError("NVRTC", call, static_cast<std::int64_t>(result), std::move(code_name), detail);
    }
    throw BackendError("NVRTC", call, static_cast<std::int64_t>(result), std::move(code_name), detail);
}

namespace {

std::optional<DynamicLibrary> open_nvrtc(std::string& why_not) {
    // The loader's search first (LD_LIBRARY_PATH, ldconfig), newest major version first; then the
    // toolkit's own folders, which are often not in the loader's path.
    std::string errors;
    std::string error;
    if (auto library = DynamicLibrary::open({"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so"}, error)) {
        return library;
    }
    errors = error;
    const char* cuda_home = std::getenv("CUDA_HOME");
    if (cuda_home != nullptr && *cuda_home != '\0') {
        const std::string dir = std::string(cuda_home) + "/lib64/";
        const std::string a = dir + "libnvrtc.so.13", b = dir + "libnvrtc.so.12", c = dir + "libnvrtc.so";
        if (auto library = DynamicLibrary::open({a, b, c}, error)) return library;
        errors += "; " + error;
    }
    if (auto library =
            DynamicLibrary::open({"/usr/local/cuda/lib64/libnvrtc.so.13", "/usr/local/cuda/lib64/libnvrtc.so.12",
                                  "/usr/local/cuda/lib64/libnvrtc.so"},
                                 error)) {
        return library;
    }
    errors += "; " + error;
    why_not = "NVRTC could not be loaded: " + errors;
    return std::nullopt;
}

}  // namespace

NvrtcLibrary::~NvrtcLibrary() = default;

std::unique_ptr<NvrtcLibrary> NvrtcLibrary::load(std::string& why_not) {
    auto library = open_nvrtc(why_not);
    if (!library) return nullptr;

    std::unique_ptr<NvrtcLibrary> nvrtc(new NvrtcLibrary());
    nvrtc->functions_ = std::make_unique<NvrtcFunctions>();
    nvrtc->library_name_ = library->name();
    NvrtcFunctions& f = *nvrtc->functions_;
    std::string missing;
#define KJARNI_NVRTC_RESOLVE(function)           \
    if (!library->load(f.function, #function)) { \
        missing += missing.empty() ? "" : ", ";  \
        missing += #function;                    \
    }
    KJARNI_NVRTC_FUNCTIONS(KJARNI_NVRTC_RESOLVE)
#undef KJARNI_NVRTC_RESOLVE
    if (!missing.empty()) {
        why_not = fmt::format("{} is too old: it lacks {}", library->name(), missing);
        return nullptr;
    }

    try {
        KJARNI_NVRTC(f, nvrtcVersion, &nvrtc->major_, &nvrtc->minor_);
        nvrtc->version_ = fmt::format("{}.{}", nvrtc->major_, nvrtc->minor_);
        int count = 0;
        KJARNI_NVRTC(f, nvrtcGetNumSupportedArchs, &count);
        nvrtc->architectures_.assign(static_cast<std::size_t>(count > 0 ? count : 0), 0);
        if (count > 0) KJARNI_NVRTC(f, nvrtcGetSupportedArchs, nvrtc->architectures_.data());
    } catch (const Error& error) {
        why_not = fmt::format("{} does not work: {}", library->name(), error.what());
        return nullptr;
    }
    return nvrtc;
}

namespace {

// An nvrtcProgram, destroyed on every way out, exceptions included.
class NvrtcProgram {
public:
    NvrtcProgram(const NvrtcFunctions& f, const std::string& source, const std::string& name) : f_(f) {
        KJARNI_NVRTC(f_, nvrtcCreateProgram, &program_, source.c_str(), name.c_str(), 0, nullptr, nullptr);
    }
    ~NvrtcProgram() {
        if (program_ != nullptr) static_cast<void>(f_.nvrtcDestroyProgram(&program_));
    }
    NvrtcProgram(const NvrtcProgram&) = delete;
    NvrtcProgram& operator=(const NvrtcProgram&) = delete;

    nvrtcProgram get() const noexcept { return program_; }

private:
    const NvrtcFunctions& f_;
    nvrtcProgram program_ = nullptr;
};

}  // namespace

NvrtcOutput NvrtcLibrary::compile(std::string_view source, const std::string& program_name,
                                  std::span<const std::string> options, std::span<const std::string> name_expressions,
                                  bool want_ptx) const {
    const NvrtcFunctions& f = *functions_;
    const std::string source_text(source);  // NVRTC wants it NUL-terminated
    const NvrtcProgram owned(f, source_text, program_name);
    const nvrtcProgram program = owned.get();

    for (const std::string& expression : name_expressions) {
        KJARNI_NVRTC(f, nvrtcAddNameExpression, program, expression.c_str());
    }
    std::vector<const char*> option_pointers;
    option_pointers.reserve(options.size());
    for (const std::string& option : options) option_pointers.push_back(option.c_str());
    const nvrtcResult compiled =
        f.nvrtcCompileProgram(program, static_cast<int>(option_pointers.size()), option_pointers.data());

    NvrtcOutput output;
    std::size_t log_size = 0;
    KJARNI_NVRTC(f, nvrtcGetProgramLogSize, program, &log_size);
    if (log_size > 1) {
        output.log.assign(log_size, '\0');
        KJARNI_NVRTC(f, nvrtcGetProgramLog, program, output.log.data());
        output.log.resize(log_size - 1);  // the size counts the terminating NUL
    }
    if (compiled == NVRTC_ERROR_COMPILATION) return output;
    if (compiled != NVRTC_SUCCESS) throw_nvrtc_error(f, compiled, "nvrtcCompileProgram", output.log);
    output.compiled = true;

    std::size_t cubin_size = 0;
    KJARNI_NVRTC(f, nvrtcGetCUBINSize, program, &cubin_size);
    output.cubin.resize(cubin_size);
    if (cubin_size > 0) KJARNI_NVRTC(f, nvrtcGetCUBIN, program, output.cubin.data());

    if (want_ptx) {
        std::size_t ptx_size = 0;
        KJARNI_NVRTC(f, nvrtcGetPTXSize, program, &ptx_size);
        if (ptx_size > 1) {
            output.ptx.assign(ptx_size, '\0');
            KJARNI_NVRTC(f, nvrtcGetPTX, program, output.ptx.data());
            output.ptx.resize(ptx_size - 1);  // the size counts the terminating NUL
        }
    }

    // The lowered names belong to the program: copied before it is destroyed.
    for (const std::string& expression : name_expressions) {
        const char* lowered = nullptr;
        KJARNI_NVRTC(f, nvrtcGetLoweredName, program, expression.c_str(), &lowered);
        output.lowered_names.emplace_back(lowered != nullptr ? lowered : "");
    }
    return output;
}

int NvrtcLibrary::best_architecture(int architecture) const noexcept {
    int best = 0;
    for (int supported : architectures_) {
        if (supported <= architecture && supported > best) best = supported;
    }
    return best;
}

const NvrtcLibrary* nvrtc_library(std::string* why_not) {
    // Loaded once per process and never unloaded (see DynamicLibrary); a failed load is not retried.
    struct Loaded {
        std::unique_ptr<NvrtcLibrary> library;
        std::string why_not;
    };
    static const Loaded* const loaded = [] {
        auto* result = new Loaded;
        result->library = NvrtcLibrary::load(result->why_not);
        return result;
    }();
    if (why_not != nullptr) *why_not = loaded->why_not;
    return loaded->library.get();
}

}  // namespace kjarni::backend::cuda
