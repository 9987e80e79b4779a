#pragma once
// NVRTC, the CUDA run-time compiler, opened at run time. It is independent of the driver: a machine
// with the toolkit but without a GPU (CI) can load it and compile kernels to cubins.
//
// This header is free of vendor headers so that tests can use it; the raw function table is in
// nvrtc_functions.hpp.

#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace kjarni::backend::cuda {

struct NvrtcFunctions;

/// What one compilation produced.
struct NvrtcOutput {
    /// False when the source did not compile (NVRTC_ERROR_COMPILATION); the log says why.
    bool compiled = false;
    std::string log;
    /// The cubin (an ELF image), when compiled for a real architecture (sm_XY); empty for a virtual
    /// one (compute_XY).
    std::vector<char> cubin;
    /// The PTX (text, without a terminating NUL), when compiled and asked for.
    std::string ptx;
    /// The mangled name of each name expression, in the order given.
    std::vector<std::string> lowered_names;
};

class NvrtcLibrary {
public:
    ~NvrtcLibrary();
    NvrtcLibrary(const NvrtcLibrary&) = delete;
    NvrtcLibrary& operator=(const NvrtcLibrary&) = delete;

    /// "13.0".
    const std::string& version() const noexcept { return version_; }
    int major_version() const noexcept { return major_; }
    int minor_version() const noexcept { return minor_; }
    /// The file that was loaded ("libnvrtc.so.13", or a path).
    const std::string& library_name() const noexcept { return library_name_; }
    /// The sm_XY architectures this NVRTC can compile for, as XY numbers (e.g. 75, 80, 90).
    const std::vector<int>& supported_architectures() const noexcept { return architectures_; }

    /// Compiles one source to a cubin (options name the architecture: --gpu-architecture=sm_XY),
    /// and with `want_ptx` also gives the PTX (for a virtual architecture, compute_XY, the PTX is
    /// all there is). A source that does not compile is reported in the result; any other failure
    /// (bad option, out of memory) throws BackendError("NVRTC", ...).
    NvrtcOutput compile(std::string_view source, const std::string& program_name, std::span<const std::string> options,
                        std::span<const std::string> name_expressions = {}, bool want_ptx = false) const;

    /// The highest sm_XY this NVRTC supports that is not above `architecture` (XY, e.g. 90), or 0
    /// when every supported one is above it.
    int best_architecture(int architecture) const noexcept;

    /// The raw entry points, for callers that include nvrtc.h.
    const NvrtcFunctions& functions() const noexcept { return *functions_; }

    /// Loads the library; null with the reason when it cannot be found or lacks a function.
    static std::unique_ptr<NvrtcLibrary> load(std::string& why_not);

private:
    NvrtcLibrary() = default;
    std::unique_ptr<NvrtcFunctions> functions_;
    std::string library_name_;
    std::string version_;
    int major_ = 0;
    int minor_ = 0;
    std::vector<int> architectures_;
};

/// The process-wide NVRTC, loaded on first call (thread-safe); null when there is none here, with
/// the reason in `why_not` when given.
const NvrtcLibrary* nvrtc_library(std::string* why_not = nullptr);

}  // namespace kjarni::backend::cuda
