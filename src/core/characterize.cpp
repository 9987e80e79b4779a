// Device characterization: vendor documentation turned into rules over DeviceFacts.

#include "kjarni/characterize.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <set>
#include <variant>

#include "backend/backend.hpp"
#include "kjarni/api.hpp"
#include "kjarni/error.hpp"
#include "kjarni/platform.hpp"

namespace kjarni::characterize {

namespace {

bool contains(std::string_view text, std::string_view part) { return text.find(part) != std::string_view::npos; }

std::optional<std::size_t> integer_attribute(const Device& device, std::string_view name) {
    const auto value = device.attribute(name);
    if (!value) return std::nullopt;
    if (const auto* number = std::get_if<std::int64_t>(&*value); number != nullptr && *number > 0) {
        return static_cast<std::size_t>(*number);
    }
    return std::nullopt;
}

}  // namespace

namespace {

bool has_extension(std::string_view extensions, std::string_view name) {
    // A space-separated list: whole words only (cl_amd_fp64 is not cl_amd_fp64_extra).
    std::size_t pos = 0;
    while ((pos = extensions.find(name, pos)) != std::string_view::npos) {
        const std::size_t end = pos + name.size();
        if ((pos == 0 || extensions[pos - 1] == ' ') && (end == extensions.size() || extensions[end] == ' ')) {
            return true;
        }
        pos = end;
    }
    return false;
}

constexpr std::string_view pocl_platform = "Portable Computing Language";

// PyOpenCL's _check_for_pocl_arg_count_bug: a kernel taking a struct of two longs by value,
// counted as two arguments. Where the backend cannot compile one to ask, not measured.
std::optional<bool> measure_struct_arg_count(const Device& device) {
    const auto count = detail::backend_of(device)->struct_argument_count();
    if (!count) return std::nullopt;
    return *count == 2;
}

}  // namespace

DeviceFacts facts_of(const Device& device) {
    DeviceFacts facts;
    const Platform platform = device.platform();
    facts.cuda = platform.api().id() == ApiId::cuda();
    facts.vendor = device.properties().vendor;
    facts.platform_name = platform.name();
    facts.type = device.params().type;
    facts.compute_capability = device.properties().compute_capability;
    facts.warp_size = device.params().warp_size;
    facts.local_mem_size = device.params().local_mem_size;
    facts.unified_memory = device.properties().unified_memory;
    facts.native_vector_width_1 = integer_attribute(device, "CL_DEVICE_NATIVE_VECTOR_WIDTH_CHAR");
    facts.native_vector_width_2 = integer_attribute(device, "CL_DEVICE_NATIVE_VECTOR_WIDTH_SHORT");
    facts.native_vector_width_4 = integer_attribute(device, "CL_DEVICE_NATIVE_VECTOR_WIDTH_INT");
    facts.native_vector_width_8 = integer_attribute(device, "CL_DEVICE_NATIVE_VECTOR_WIDTH_LONG");
    facts.platform_version = platform.version();
    if (!facts.cuda) {
        if (const auto value = device.attribute("CL_DEVICE_EXTENSIONS")) {
            if (const auto* text = std::get_if<std::string>(&*value)) facts.extensions = *text;
        }
        // Measured only where the rule needs it: PoCL 0.14, or a PoCL version not understood.
        if (facts.platform_name == pocl_platform) {
            const auto version = pocl_version(facts.platform_name, facts.platform_version);
            if (!version || *version == std::pair{0, 14})
                facts.struct_arg_counted_per_field = measure_struct_arg_count(device);
        }
    }
    return facts;
}

// ---- Local memory banks ------------------------------------------------------------------------

std::optional<LocalMemoryBanks> local_memory_banks(const Device& device) {
    return local_memory_banks(facts_of(device));
}

std::optional<std::size_t> local_memory_bank_count(const Device& device) {
    const auto banks = local_memory_banks(device);
    return banks ? std::optional(banks->count) : std::nullopt;
}

std::optional<std::size_t> local_memory_access_granularity(const Device& device) {
    const auto banks = local_memory_banks(device);
    return banks ? std::optional(banks->granularity) : std::nullopt;
}

std::optional<std::size_t> simultaneous_work_items_on_local_access(const Device& device) {
    const auto banks = local_memory_banks(device);
    return banks ? std::optional(banks->simultaneous_work_items) : std::nullopt;
}

std::size_t usable_local_mem_size(const DeviceFacts& facts, std::optional<std::size_t> nargs) {
    std::size_t usable = facts.local_mem_size;
    // CUDA C Programming Guide (compute capability 1.x): kernel parameters are passed through
    // shared memory, 256 bytes at most.
    if (vendor_of(facts.vendor) == Vendor::nvidia && facts.compute_capability && facts.compute_capability->major < 2) {
        const std::size_t taken = nargs ? std::min<std::size_t>(*nargs * 4, 256) : 256;
        usable -= std::min(usable, taken);
    }
    return usable;
}

std::size_t usable_local_mem_size(const Device& device, std::optional<std::size_t> nargs) {
    return usable_local_mem_size(facts_of(device), nargs);
}

std::optional<std::size_t> simd_group_size(const DeviceFacts& facts, std::size_t type_size) {
    if (type_size != 1 && type_size != 2 && type_size != 4 && type_size != 8) {
        throw ArgumentError("type_size", fmt::format("must be 1, 2, 4 or 8 bytes, got {}", type_size));
    }
    if (facts.type == DeviceType::gpu || facts.cuda) {
        // The warp (NVIDIA) or wavefront (AMD) the API reported; 1 means it reported none.
        if (facts.warp_size > 1) return facts.warp_size;
        return std::nullopt;
    }
    if (facts.type == DeviceType::cpu) {
        switch (type_size) {
        case 1: return facts.native_vector_width_1;
        case 2: return facts.native_vector_width_2;
        case 4: return facts.native_vector_width_4;
        default: return facts.native_vector_width_8;
        }
    }
    return std::nullopt;
}

std::optional<std::size_t> simd_group_size(const Device& device, std::size_t type_size) {
    return simd_group_size(facts_of(device), type_size);
}

std::vector<std::string> fast_inaccurate_build_options(const DeviceFacts& facts) {
    if (facts.cuda) {
        // --use_fast_math is the other four together (NVRTC's documentation).
        return {"--use_fast_math", "--ftz=true", "--prec-div=false", "--prec-sqrt=false", "--fmad=true"};
    }
    return {"-cl-mad-enable", "-cl-no-signed-zeros", "-cl-unsafe-math-optimizations", "-cl-finite-math-only",
            "-cl-fast-relaxed-math"};
}

std::vector<std::string> fast_inaccurate_build_options(const Device& device) {
    return fast_inaccurate_build_options(facts_of(device));
}

// ---- Local access conflicts --------------------------------------------------------------------

namespace {

void check_banks(const LocalMemoryBanks& banks, std::size_t itemsize) {
    if (banks.count == 0 || banks.granularity == 0 || banks.simultaneous_work_items == 0) {
        throw ArgumentError("banks", "count, granularity and simultaneous_work_items must all be positive");
    }
    if (itemsize == 0) throw ArgumentError("itemsize", "must be positive");
}

}  // namespace

LocalAccessConflict local_access_conflicts(const LocalMemoryBanks& banks, std::size_t itemsize,
                                           std::span<const std::size_t> element_offsets) {
    check_banks(banks, itemsize);
    if (element_offsets.size() > banks.simultaneous_work_items) {
        throw ArgumentError("element_offsets", fmt::format("{} work items, but only {} access local memory at once",
                                                           element_offsets.size(), banks.simultaneous_work_items));
    }
    // Each bank serves its distinct words one per pass; work items reading the same word share it.
    std::map<std::size_t, std::set<std::size_t>> words_of_bank;
    std::map<std::size_t, std::vector<std::size_t>> items_of_bank;
    std::set<std::size_t> all_words;
    for (std::size_t w = 0; w < element_offsets.size(); ++w) {
        const std::size_t first = element_offsets[w] * itemsize;
        for (std::size_t word = first / banks.granularity; word <= (first + itemsize - 1) / banks.granularity; ++word) {
            const std::size_t bank = word % banks.count;
            words_of_bank[bank].insert(word);
            auto& items = items_of_bank[bank];
            if (items.empty() || items.back() != w) items.push_back(w);
            all_words.insert(word);
        }
    }
    LocalAccessConflict result;
    result.minimum = std::max<std::size_t>(1, (all_words.size() + banks.count - 1) / banks.count);
    std::size_t worst_bank = 0;
    for (const auto& [bank, words] : words_of_bank) {
        if (words.size() > result.multiplicity) {
            result.multiplicity = words.size();
            worst_bank = bank;
        }
    }
    if (!result.conflict_free()) {
        const auto& items = items_of_bank[worst_bank];
        std::vector<std::string> shown;
        for (std::size_t i = 0; i < items.size() && i < 8; ++i) {
            shown.push_back(fmt::format("{} -> element {}", items[i], element_offsets[items[i]]));
        }
        result.explanation =
            fmt::format("{}-way conflict on bank {} (at best {} passes): work items {}{}", result.multiplicity,
                        worst_bank, result.minimum, fmt::join(shown, ", "), items.size() > 8 ? ", ..." : "");
    }
    return result;
}

LocalAccessConflict why_not_local_access_conflict_free(const LocalMemoryBanks& banks, std::size_t itemsize,
                                                       std::span<const std::size_t> array_shape,
                                                       std::span<const std::size_t> stored_shape,
                                                       std::optional<std::size_t> axis) {
    check_banks(banks, itemsize);
    if (array_shape.empty()) throw ArgumentError("array_shape", "is empty");
    if (std::find(array_shape.begin(), array_shape.end(), std::size_t{0}) != array_shape.end()) {
        throw ArgumentError("array_shape", "has an extent of 0");
    }
    const std::span<const std::size_t> stored = stored_shape.empty() ? array_shape : stored_shape;
    if (stored.size() != array_shape.size()) {
        throw ArgumentError("stored_shape",
                            fmt::format("has rank {}, the array {}", stored.size(), array_shape.size()));
    }
    for (std::size_t d = 0; d < stored.size(); ++d) {
        if (stored[d] < array_shape[d]) {
            throw ArgumentError("stored_shape",
                                fmt::format("axis {} stores {} of the array's {}", d, stored[d], array_shape[d]));
        }
    }
    const std::size_t rank = array_shape.size();
    if (axis && *axis >= rank)
        throw ArgumentError("axis", fmt::format("{} is not an axis of a rank-{} array", *axis, rank));

    LocalAccessConflict worst;
    const std::size_t first_axis = axis ? *axis : 0;
    const std::size_t last_axis = axis ? *axis : rank - 1;
    for (std::size_t a = first_axis; a <= last_axis; ++a) {
        // Work item w's index: w in mixed radix over axes a, a-1, ..., 0 (a fastest), 0 after a.
        std::vector<std::size_t> offsets(banks.simultaneous_work_items);
        for (std::size_t w = 0; w < offsets.size(); ++w) {
            std::size_t rest = w;
            std::size_t offset = 0;
            std::size_t stride = 1;
            std::vector<std::size_t> index(rank, 0);
            for (std::size_t d = rank; d-- > 0;) {
                if (d <= a) {
                    index[d] = rest % array_shape[d];
                    rest /= array_shape[d];
                }
                offset += index[d] * stride;
                stride *= stored[d];
            }
            offsets[w] = offset;
        }
        LocalAccessConflict found = local_access_conflicts(banks, itemsize, offsets);
        if (!found.conflict_free()) found.explanation = fmt::format("stepping along axis {}: {}", a, found.explanation);
        if (found.multiplicity * worst.minimum > worst.multiplicity * found.minimum || a == first_axis) {
            worst = std::move(found);
        }
    }
    return worst;
}

LocalAccessConflict why_not_local_access_conflict_free(const Device& device, std::size_t itemsize,
                                                       std::span<const std::size_t> array_shape,
                                                       std::span<const std::size_t> stored_shape,
                                                       std::optional<std::size_t> axis) {
    const DeviceFacts facts = facts_of(device);
    const auto banks = local_memory_banks(facts);
    if (!banks) {
        throw UnsupportedError(fmt::format("device '{}': {}", device.name(), local_memory_banks_unknown_reason(facts)));
    }
    return why_not_local_access_conflict_free(*banks, itemsize, array_shape, stored_shape, axis);
}

// ---- Driver quirks -----------------------------------------------------------------------------

std::optional<std::pair<int, int>> pocl_version(std::string_view platform_name, std::string_view platform_version) {
    if (platform_name != pocl_platform) return std::nullopt;
    // "OpenCL <digits and dots> <PoCL, any case of P, C, L; o lower> <major>.<minor>"
    std::string_view rest = platform_version;
    if (!rest.starts_with("OpenCL ")) return std::nullopt;
    rest.remove_prefix(7);
    const std::size_t number = rest.find_first_not_of("0123456789.");
    if (number == 0 || number == std::string_view::npos || rest[number] != ' ') return std::nullopt;
    rest.remove_prefix(number + 1);
    if (rest.size() < 5 || (rest[0] != 'P' && rest[0] != 'p') || rest[1] != 'o' || (rest[2] != 'C' && rest[2] != 'c') ||
        (rest[3] != 'L' && rest[3] != 'l') || rest[4] != ' ') {
        return std::nullopt;
    }
    rest.remove_prefix(5);
    auto digits = [&rest]() -> std::optional<int> {
        std::size_t n = 0;
        int value = 0;
        while (n < rest.size() && rest[n] >= '0' && rest[n] <= '9' && n < 9) value = value * 10 + (rest[n++] - '0');
        if (n == 0) return std::nullopt;
        rest.remove_prefix(n);
        return value;
    };
    const auto major = digits();
    if (!major || rest.empty() || rest[0] != '.') return std::nullopt;
    rest.remove_prefix(1);
    const auto minor = digits();
    if (!minor) return std::nullopt;
    return std::pair{*major, *minor};
}

std::string has_struct_arg_count_bug(const DeviceFacts& facts) {
    if (facts.cuda) return {};
    if (facts.platform_name == "Apple" && facts.type == DeviceType::cpu) return "apple";
    if (facts.platform_name == pocl_platform) {
        // PyOpenCL takes a version it cannot read for 0.14, where the bug is measured.
        const auto version = pocl_version(facts.platform_name, facts.platform_version).value_or(std::pair{0, 14});
        if (version <= std::pair{0, 13}) return "pocl";
        if (version <= std::pair{0, 14} && facts.struct_arg_counted_per_field.value_or(false)) return "pocl";
    }
    return {};
}

std::string has_struct_arg_count_bug(const Device& device) { return has_struct_arg_count_bug(facts_of(device)); }

bool has_amd_double_support(const DeviceFacts& facts) {
    return !facts.cuda && has_extension(facts.extensions, "cl_amd_fp64");
}

bool has_amd_double_support(const Device& device) { return has_amd_double_support(facts_of(device)); }

const std::vector<DriverQuirk>& all_driver_quirks() {
    static const std::vector<DriverQuirk> quirks = {
        {"nvidia_arg_info_parameterless",
         "NVIDIA's OpenCL (driver 580) turns a kernel without parameters, built with -cl-kernel-arg-info, into PTX "
         "that its own ptxas rejects",
         "a build that failed with -cl-kernel-arg-info is retried once without it"},
        {"nvidia_svm_argument_sticks",
         "NVIDIA's OpenCL refuses a launch (CL_INVALID_KERNEL_ARGS) once an argument set with "
         "clSetKernelArgSVMPointer is set again with clSetKernelArg",
         "launches with SVM arguments go through a second kernel object"},
        {"nvidia_mapped_copy",
         "on OpenCL devices that do not share memory with the host, the driver keeps a separate copy of a mapped "
         "CL_MEM_ALLOC_HOST_PTR buffer, and kernel writes were seen not to reach the host pointer",
         "mapped host memory is a kernel argument only on devices with unified memory"},
        {"nvidia_late_allocation_failure",
         "NVIDIA's clCreateBuffer accepts sizes beyond CL_DEVICE_MAX_MEM_ALLOC_SIZE and fails only at first use",
         "such sizes are refused at allocation (OutOfMemoryError)"},
        {"nvidia_svm_several_devices",
         "NVIDIA's OpenCL crashes the process when two devices of one context use one coarse-grained SVM "
         "allocation",
         "shared virtual memory in an NVIDIA OpenCL context of several devices is UnsupportedError"},
        {"pocl_local_size_beyond_3",
         "PoCL 3.1 answers 0 for get_local_size(d) with d >= 3, where the specification says 1",
         "none needed: kernels have at most 3 dimensions"},
        {"pocl_struct_arg_count",
         "PoCL up to 0.13 (and 0.14 where measured so) counts a struct passed by value as several kernel arguments "
         "(PoCL issue 197; PyOpenCL's has_struct_arg_count_bug)",
         "none in kjarni: has_struct_arg_count_bug() tells, so that callers can pass the fields one by one"},
        {"apple_struct_arg_count",
         "Apple's OpenCL on CPUs counts a struct passed by value as several kernel arguments (PyOpenCL's "
         "has_struct_arg_count_bug)",
         "none in kjarni: has_struct_arg_count_bug() tells, so that callers can pass the fields one by one"},
        {"amd_double_support",
         "AMD's low-end boards offer double precision only through the incomplete cl_amd_fp64 extension (PyOpenCL's "
         "has_amd_double_support)",
         "none in kjarni: has_amd_double_support() tells; kernels needing doubles there enable cl_amd_fp64 "
         "themselves"},
    };
    return quirks;
}

std::vector<DriverQuirk> driver_quirks(const DeviceFacts& facts) {
    std::vector<DriverQuirk> found;
    if (facts.cuda) return found;  // every known quirk is of an OpenCL driver
    const bool nvidia = vendor_of(facts.vendor) == Vendor::nvidia;
    const bool pocl = contains(facts.platform_name, "Portable Computing Language");
    for (const DriverQuirk& quirk : all_driver_quirks()) {
        bool applies = false;
        if (quirk.name == "pocl_struct_arg_count") {
            applies = has_struct_arg_count_bug(facts) == "pocl";
        } else if (quirk.name == "apple_struct_arg_count") {
            applies = has_struct_arg_count_bug(facts) == "apple";
        } else if (quirk.name == "amd_double_support") {
            applies = has_amd_double_support(facts);
        } else if (quirk.name == "nvidia_mapped_copy") {
            applies = !facts.unified_memory;
        } else if (quirk.name.starts_with("nvidia_")) {
            applies = nvidia;
        } else if (quirk.name.starts_with("pocl_")) {
            applies = pocl;
        }
        if (applies) found.push_back(quirk);
    }
    return found;
}

std::vector<DriverQuirk> driver_quirks(const Device& device) { return driver_quirks(facts_of(device)); }

bool has_driver_quirk(const DeviceFacts& facts, std::string_view name) {
    const auto& all = all_driver_quirks();
    if (std::none_of(all.begin(), all.end(), [&](const DriverQuirk& quirk) { return quirk.name == name; })) {
        throw ArgumentError("name", fmt::format("'{}' is not a known driver quirk", name));
    }
    const auto found = driver_quirks(facts);
    return std::any_of(found.begin(), found.end(), [&](const DriverQuirk& quirk) { return quirk.name == name; });
}

bool has_driver_quirk(const Device& device, std::string_view name) { return has_driver_quirk(facts_of(device), name); }

}  // namespace kjarni::characterize
