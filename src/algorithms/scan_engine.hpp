#pragma once
// The engine under every scan (see scan_engine.cpp for the kernels), fed by a ScanSpec.

#include <string>
#include <vector>

#include "algorithms/c_arguments.hpp"
#include "kjarni/scan.hpp"

namespace kjarni::detail {

struct ScanSpec {
    std::string what;
    std::vector<CArgument> arguments;
    /// The C type of the items and its size in bytes.
    std::string item_ctype;
    std::size_t item_size = 0;
    /// scan_code()'s output.
    std::string code;
    /// output_statement uses last_item (the sequential strategy then reads each row twice).
    bool uses_last_item = false;
    /// scan_expr is commutative (cumsum, cumprod): a chunk's total may then be summed in any fixed
    /// order, so the first pass of the tiled strategy reads at memory speed instead of staging tiles.
    bool commutative = false;
};

/// The device functions of a scan, rendered once: the preamble, then
///   KJARNI_ITEM kjarni_neutral(), kjarni_scan_op(KJARNI_ITEM a, KJARNI_ITEM b),
///   kjarni_input(KJARNI_IDX i, <arguments>), void kjarni_output(KJARNI_IDX i, KJARNI_ITEM item,
///   KJARNI_ITEM prev_item, KJARNI_ITEM last_item, <arguments>), arrays shifted so that `x[i]` is
/// the element at the position.
std::string scan_code(const std::vector<CArgument>& arguments, const std::string& preamble, const std::string& neutral,
                      const std::string& scan_expr, const std::string& input_expr, const std::string& output_statement,
                      const Globals& render_globals, const std::string& what);

void run_scan(const Queue& queue, const ScanSpec& spec, const std::vector<Operand>& arguments, int axis);

/// Whether long rows may take the single pass where the device allows it (the default). With
/// false every long row takes the three kernels that devices unable to run the single pass use:
/// for tests of those kernels on devices that would not reach them. Process-wide.
void allow_single_pass_scans(bool allow);

}  // namespace kjarni::detail
