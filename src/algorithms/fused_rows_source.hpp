#pragma once
// The source of the one-kernel row plan (fused_rows.hpp): what kernel `kjarni_fused_rows` computes
// for a plan whose layout, work group, elements per work item and vector width are chosen.

#include <cstddef>
#include <string>

#include "algorithms/fused_rows.hpp"
#include "kjarni/dtype.hpp"

namespace kjarni::detail {

/// The kernel's source (kjarni's dialect, without the algorithm and math preambles) for `plan`,
/// writing `out_dtype`. Reads every array's row once, computes the reductions level by level
/// (pairwise within a work item, then in two stages over the group; var and std by two passes),
/// writes the result once; the same order of combination for every row and run.
std::string row_kernel_source(const RowPlan& plan, const DType& out_dtype);

/// The work items per multiprocessor the kernel asks to keep resident (0: the compiler's choice):
/// through CUDA its __launch_bounds__, through NVIDIA's OpenCL a register cap of 65536 / that.
/// 1024 for rows of several arrays; KJARNI_FUSION_ROW_BOUNDS overrides (ArgumentError naming it
/// when it is not 0, 1 or 256 to 2048).
std::size_t row_resident_work_items(const RowPlan& plan);

/// Whether the C code `code` names the variable `<prefix><k>` (not a longer name that starts so).
bool names_variable(const std::string& code, const std::string& prefix, std::size_t k);

}  // namespace kjarni::detail
