#pragma once
// Stream compaction on the scan engine: one scan over a range of positions counts those where a
// condition holds and hands each of them its rank among them (what copy_if, nonzero, boolean
// indexing and unique are made of).

#include <cstddef>
#include <string>
#include <vector>

#include "kjarni/array.hpp"
#include "kjarni/operand.hpp"
#include "kjarni/queue.hpp"
#include "kjarni/template/module.hpp"

namespace kjarni::detail {

/// What a compaction computes. `arguments` are C declarations as ScanKernel takes them (1-d
/// arrays of n elements, or of 1 broadcast; in a contiguous one `x[j]` is element j, so it may be
/// indexed at any position, not only `i`). At position `i`:
/// `condition` (a C expression) selects it; `write` runs at selected positions with `rank` (of type
/// KJARNI_ITEM: how many positions before `i` were selected); `every` runs at every position with
/// `selected_through` (KJARNI_ITEM: how many positions up to and including `i` were selected).
struct Compaction {
    std::string name;
    std::string arguments;
    std::string condition;
    std::string write;
    std::string every;
    std::string preamble;
    Globals globals;
};

/// Runs the compaction over `n` positions (`operands` match its arguments) and writes the number of
/// selected positions into `count`, a 1-element uint64 array (zero when n is 0). Enqueued on `queue`.
void run_compaction(const Queue& queue, const Compaction& compaction, const std::vector<Operand>& operands,
                    std::size_t n, const Array& count);

/// A 1-element uint64 device array for run_compaction's count, zeroed on `queue`.
Array compaction_count(const Queue& queue);

/// The count read back (waits for the queue).
std::size_t read_count(const Queue& queue, const Array& count);

/// An Allocator of the algorithms' temporary pool: arrays it makes may be dropped as soon as the
/// work reading them is enqueued (queue-ordered reuse).
Allocator temporary_allocator(const Queue& queue);

/// The array itself when C-contiguous, else a C-contiguous copy made by temporary_allocator().
Array contiguous_temporary(const Queue& queue, const Array& array);

/// The C condition "x[i] is not zero" for an array `x` of `dtype` in value-style storage (bool as
/// uint8_t, float16 as its bits: -0.0 is zero, NaN is not, as numpy's nonzero).
std::string nonzero_condition(const DType& dtype, const std::string& x);

}  // namespace kjarni::detail
