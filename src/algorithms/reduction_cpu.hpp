#pragma once
// The CPU form of the reduction engine (reduction_cpu.cpp): taken by run_reduction on CPU devices
// where every array's reduced run is contiguous.

#include <cstddef>
#include <vector>

#include "algorithms/iteration_space.hpp"
#include "algorithms/reduction_engine.hpp"
#include "algorithms/reduction_types.hpp"

namespace kjarni::detail {

/// What run_reduction has worked out: the kept space (the arrays', then the result's strides),
/// the reduced space (the arrays' strides), the offsets (the arrays', then the result's), the
/// output and reduced element counts.
struct CpuReductionSpace {
    const IterationSpace& kept;
    const IterationSpace& reduced;
    const std::vector<std::ptrdiff_t>& offsets;
    std::size_t n_out = 0;
    std::size_t n_red = 0;
};

/// Runs the reduction in the CPU form and returns true, where the device takes CPU code
/// (cpu_code()) and every array walks the (one, merged) reduced axis contiguously; otherwise
/// launches nothing and returns false.
bool run_cpu_reduction(const Queue& queue, const ReductionSpec& spec, const std::vector<Operand>& arguments,
                       const CpuReductionSpace& space, const Array& out);

}  // namespace kjarni::detail
