#pragma once
// The CPU form of the scan engine (scan_cpu.cpp): taken by run_scan on CPU devices.

#include <cstddef>
#include <vector>

#include "algorithms/iteration_space.hpp"
#include "algorithms/scan_engine.hpp"

namespace kjarni::detail {

/// What run_scan has worked out: the rows' space (every axis but the scanned one, one stride list
/// per array), each array's stride along the scanned axis and its offset, the counts.
struct CpuScanSpace {
    const IterationSpace& rows;
    const std::vector<std::ptrdiff_t>& axis_strides;
    const std::vector<std::ptrdiff_t>& offsets;
    std::size_t n_rows = 0;
    std::size_t length = 0;
};

/// Runs the scan in the CPU form and returns true where the device takes CPU code (cpu_code());
/// otherwise launches nothing and returns false.
bool run_cpu_scan(const Queue& queue, const ScanSpec& spec, const std::vector<Operand>& arguments,
                  const CpuScanSpace& space);

}  // namespace kjarni::detail
