#include "algorithms/cpu_code.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "core/context_state.hpp"
#include "kjarni/device_parameters.hpp"

namespace kjarni::detail {

bool runs_groups_together(const BoundDevice& device) {
    return is_cuda(device.context()) || device.params().type == DeviceType::gpu;
}

CpuGrid cpu_grid(const BoundDevice& device, std::size_t n, std::size_t min_run) {
    const std::size_t units = std::max<std::size_t>(device.params().compute_units, 1);
    const std::size_t wanted = (n + std::max<std::size_t>(min_run, 1) - 1) / std::max<std::size_t>(min_run, 1);
    return CpuGrid{std::clamp<std::size_t>(wanted, 1, units * 8), 1};
}

std::string cpu_run_bounds(const char* idx, const std::string& n, std::size_t granule) {
    // (in 64 bits: a run rounded up to the granule may reach past a 32-bit n's range)
    return fmt::format(
        "    const int64_t kj_run = ((int64_t)({1}) + (int64_t)get_global_size(0) - 1) / (int64_t)get_global_size(0);\n"
        "    const int64_t kj_run_whole = (kj_run + {2}) / {3} * {3};\n"
        "    const int64_t kj_first = (int64_t)get_global_id(0) * kj_run_whole;\n"
        "    const {0} kj_begin = ({0})(kj_first < (int64_t)({1}) ? kj_first : (int64_t)({1}));\n"
        "    const {0} kj_end = ({0})(kj_first + kj_run_whole < (int64_t)({1}) ? kj_first + kj_run_whole : "
        "(int64_t)({1}));\n",
        idx, n, granule - 1, granule);
}

}  // namespace kjarni::detail
