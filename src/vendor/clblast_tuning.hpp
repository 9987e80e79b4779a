#pragma once
// Tuned CLBlast kernel parameters for devices its own database lacks (the H100, for one), kept as
// data: data/clblast/*.json in the source tree, compiled into the library, plus the files or
// directories named by KJARNI_CLBLAST_PARAMETERS (colon-separated; these win; "none" turns all of
// them off, leaving CLBlast's built-in database). Each file is what
// scripts/tune-clblast.sh writes:
//
//   {"device": "<CL_DEVICE_NAME>", "clblast": "1.5.3", "kernels": [
//      {"kernel": "Xgemm", "precision": 32, "parameters": {"GEMMK": 0, "KWG": 32, ...}}, ...]}
//
// They are handed to CLBlastOverrideParameters for a device the first time a BLAS call runs on it.
//
// The tuner (bench/gemm_tune.cpp, `scripts/tune-gemm.sh`) also writes its results per device name
// and driver version into kjarni's cache directory ($KJARNI_CACHE_DIR, else
// $XDG_CACHE_HOME/kjarni, else ~/.cache/kjarni), as gemm-tuning/<device>--<driver>.json with a
// top-level "driver" (CL_DRIVER_VERSION): such a file counts only for a device of that name and
// driver; it comes after the compiled-in files and before KJARNI_CLBLAST_PARAMETERS. A kernel entry
// named "kjarni_gemm" is not CLBlast's: it holds the tiles of kjarni's own GEMM kernel for that
// precision (src/blas/gemm_kernel.hpp) and, as PREFERRED = 1, that the tuner found it faster than
// CLBlast there (src/blas/gemm_choice.hpp reads it).

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kjarni::blas::detail {

struct TunedKernel {
    std::string kernel;  // CLBlast's kernel name: "Xgemm", "XgemmDirect", "Copy", ...
    int precision = 32;  // 16, 32, 64, 3232, 6464
    std::vector<std::pair<std::string, std::size_t>> parameters;
};

struct TunedDevice {
    std::string device;  // CL_DEVICE_NAME it was tuned on
    std::string driver;  // CL_DRIVER_VERSION it was tuned with; "" for any
    std::vector<TunedKernel> kernels;
};

/// Parses one parameter file; ArgumentError naming `origin` when it is malformed.
TunedDevice parse_tuned_parameters(std::string_view json, const std::string& origin);

/// The files compiled into the library (generated from data/clblast/*.json): (name, contents).
const std::vector<std::pair<std::string_view, std::string_view>>& embedded_tuned_parameters();

/// Every parameter set for the device named `device_name` with driver `driver`, embedded ones
/// first, then the cache directory's, then KJARNI_CLBLAST_PARAMETERS': later ones win.
std::vector<TunedKernel> tuned_parameters_for(const std::string& device_name, const std::string& driver = "");

/// The kernel name of kjarni's own GEMM tiles in a parameter file.
inline constexpr const char* kjarni_gemm_entry = "kjarni_gemm";

/// The directory of the tuner's per-device files (gemm-tuning/ in kjarni's cache directory);
/// empty when there is no cache directory.
std::filesystem::path tuning_cache_directory();
/// The file name for a device and driver there: both with every character other than letters,
/// digits, '.' and '-' turned into '_'.
std::string tuning_cache_file_name(const std::string& device_name, const std::string& driver);

/// Calls `apply` (CLBlastOverrideParameters) with each of CLBlast's of them (not kjarni_gemm), the
/// first time for each device (its native handle); `apply` throws if CLBlast refuses one.
void apply_tuned_parameters_once(std::uintptr_t device, const std::string& device_name, const std::string& driver,
                                 const std::function<void(const TunedKernel&)>& apply);

}  // namespace kjarni::blas::detail
