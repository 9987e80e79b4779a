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

#include <cstddef>
#include <cstdint>
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
    std::vector<TunedKernel> kernels;
};

/// Parses one parameter file; ArgumentError naming `origin` when it is malformed.
TunedDevice parse_tuned_parameters(std::string_view json, const std::string& origin);

/// The files compiled into the library (generated from data/clblast/*.json): (name, contents).
const std::vector<std::pair<std::string_view, std::string_view>>& embedded_tuned_parameters();

/// Every parameter set for the device named `device_name`, embedded ones first.
std::vector<TunedKernel> tuned_parameters_for(const std::string& device_name);

/// Calls `apply` (CLBlastOverrideParameters) with each of them, the first time for each device
/// (its native handle); `apply` throws if CLBlast refuses one.
void apply_tuned_parameters_once(std::uintptr_t device, const std::string& device_name,
                                 const std::function<void(const TunedKernel&)>& apply);

}  // namespace kjarni::blas::detail
