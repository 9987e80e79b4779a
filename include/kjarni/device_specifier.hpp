#pragma once
/// Naming devices in text, wherever a device is chosen (KJARNI_TEST, the kjarni tool's `--device`), and
/// device capabilities checked before compiling (pygpu's device strings and
/// have_double / have_complex / have_half).
///
/// A specifier is one of
///   - pygpu's: "cudaN" (CUDA device N) or "openclP:D" (device D of OpenCL platform P), indices
///     from 0 in the order the driver lists them;
///   - kjarni's: "api[:platform_regex[:device_regex]]", e.g. "opencl", "opencl:Portable",
///     "cuda::H100" (ECMAScript regexes searched anywhere in the names; empty matches all);
///   - `"pci:<bus id>"`, the device at that PCI address ("pci:0000:65:00.0", or without the domain
///     "pci:65:00.0"), on any available API (CUDA first). \file

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kjarni/api.hpp"
#include "kjarni/context.hpp"
#include "kjarni/device.hpp"

namespace kjarni {

/// The devices `specifier` names, in API, platform and device order: exactly one for pygpu's form
/// and for "pci:", every match for the regex form. ArgumentError for a malformed specifier,
/// NotFoundError for an index out of range or no match, ApiUnavailableError for an API that is
/// not available.
std::vector<Device> devices_from_specifier(std::string_view specifier);

/// The first device `specifier` names (throws as above).
Device device_from_specifier(std::string_view specifier);

/// A context on the first device `specifier` names (pygpu's init(dev)).
Context context_from_specifier(std::string_view specifier);

/// A comma-separated list of specifiers (KJARNI_TEST's syntax), the devices of each in turn, each
/// device once. Empty: every device of every available API.
std::vector<Device> devices_from_specifiers(std::string_view list);

/// pygpu's name of the device: "cuda3", "opencl0:1".
std::string device_specifier(const Device& device);

/// The device at a PCI bus id ("0000:65:00.0" or "65:00.0", any case) among the devices of `api`;
/// NotFoundError when no device of it reports that address.
Device device_from_pci_bus_id(const Api& api, std::string_view bus_id);

/// Whether kernels on the device can use double precision (float64, complex128): CUDA always;
/// OpenCL where the device has cl_khr_fp64 (or is OpenCL 3.0 with CL_DEVICE_DOUBLE_FP_CONFIG).
bool have_double(const Device& device);
/// Whether kernels can compute in half precision (float16 arithmetic): CUDA from compute
/// capability 5.3; OpenCL with cl_khr_fp16. float16 storage (load, store, convert) works
/// everywhere, through the prelude.
bool have_half(const Device& device);
/// Whether kernels can use complex numbers: complex64 works on every device (the prelude's
/// complex64_t); complex128 needs have_double, which this answers for `double_precision`.
bool have_complex(const Device& device, bool double_precision = false);

/// What a kernel needs of its device (pygpu GpuKernel's have_double / have_complex / have_half).
struct RequiredCapabilities {
    bool double_precision = false;
    bool complex = false;  // complex64; with double_precision also complex128
    bool half = false;     // half-precision arithmetic
};
/// UnsupportedError naming the device and what it lacks, when it lacks any of `required`.
void require_capabilities(const Device& device, const RequiredCapabilities& required);

}  // namespace kjarni
