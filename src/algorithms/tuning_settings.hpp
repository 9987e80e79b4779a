#pragma once
// Settings read from the environment that override a kernel's tuned shape, for measuring other
// shapes on a device without rebuilding (the sort's KJARNI_SORT_*, the scan's KJARNI_SCAN_ITEMS and
// KJARNI_SCAN_GROUP, which the scan reads once a process; KJARNI_REDUCTION_SHUFFLES=0, the reductions'
// lanes combined through local memory where warps could shuffle). Those are part of the generated source,
// so the kernel caches keep each shape apart; KJARNI_ELEMENTWISE_GROUP,
// KJARNI_ELEMENTWISE_GROUPS_PER_UNIT and KJARNI_REDUCTION_ITEMS change launch sizes only, and
// KJARNI_REDUCTION_KERNELS=2 the reductions' choice of a second kernel over the in-kernel combine.

#include <cstddef>
#include <string>

namespace kjarni::detail {

/// The environment variable `name`, or `fallback` where it is not set or empty.
std::string tuning_setting(const char* name, const char* fallback);

/// The environment variable `name` as a whole number from 1 to `most`, or 0 where it is not set.
/// ArgumentError naming the variable where it is anything else.
std::size_t tuning_count(const char* name, std::size_t most);

}  // namespace kjarni::detail
