// Stream compaction as one scan: the scanned item is 1 at a selected position and 0 elsewhere,
// so the exclusive prefix (prev_item) is a selected position's rank and the last inclusive one
// the count. The scan engine's single pass reads every position once; where a device cannot take
// it, its three kernels do the same work.

#include "algorithms/compaction.hpp"

#include <map>
#include <memory>
#include <mutex>

#include <fmt/format.h>

#include "algorithms/reduction_types.hpp"
#include "algorithms/sort_radix.hpp"
#include "kjarni/error.hpp"
#include "kjarni/scan.hpp"

namespace kjarni::detail {

using Kind = DType::Kind;

void run_compaction(const Queue& queue, const Compaction& c, const std::vector<Operand>& operands, std::size_t n,
                    const Array& count) {
    if (n == 0) return;  // the count stays zero
    const bool wide = needs_wide_indices(n);
    const std::string arguments = c.arguments + ", const uint64_t* selection_count, uint64_t selection_size";
    // The count is written through a const (broadcast) array: the scan engine refuses a written
    // array broadcast along the scanned axis, and only the last position writes it.
    const std::string output = fmt::format(
        "if (item != prev_item) {{ const KJARNI_ITEM rank = prev_item; {} }}\n"
        "{{ const KJARNI_ITEM selected_through = item; {} }}\n"
        "if ((uint64_t)i + 1 == selection_size) ((GLOBAL_MEM uint64_t*)selection_count)[i] = (uint64_t)item;",
        c.write, c.every);
    const std::string input = fmt::format("(({}) ? (KJARNI_ITEM)1 : (KJARNI_ITEM)0)", c.condition);
    const std::string key = fmt::format("{}\n{}\n{}\n{}\n{}\n{}", wide, arguments, input, output, c.preamble, c.name);
    static std::mutex mutex;
    static std::map<std::string, std::unique_ptr<const ScanKernel>> kernels;
    const ScanKernel* kernel = nullptr;
    {
        const std::lock_guard lock(mutex);
        auto& slot = kernels[key];
        if (!slot)
            slot = std::make_unique<const ScanKernel>(wide ? DType(Kind::uint64) : DType(Kind::uint32), "0", "a + b",
                                                      input, output, arguments, c.preamble, c.globals, c.name);
        kernel = slot.get();
    }
    std::vector<Operand> all = operands;
    all.emplace_back(count);
    all.emplace_back(static_cast<std::uint64_t>(n));
    (*kernel)(queue, all, 0);
}

Array compaction_count(const Queue& queue) {
    Array count = Array::empty(queue.device(), {1}, DType(Kind::uint64));
    const std::byte zero[8] = {};
    count.data().fill(queue, zero, true);
    return count;
}

std::size_t read_count(const Queue& queue, const Array& count) {
    std::uint64_t value = 0;
    count.get(queue, std::span<std::uint64_t>(&value, 1));
    return static_cast<std::size_t>(value);
}

Allocator temporary_allocator(const Queue& queue) {
    return [queue](const BoundDevice&, std::size_t bytes) { return temporary_buffer(queue, bytes); };
}

Array contiguous_temporary(const Queue& queue, const Array& array) {
    if (array.is_c_contiguous()) return array;
    const Array copy =
        Array::empty(queue.device(), array.shape(), array.dtype(), std::nullopt, 0, temporary_allocator(queue));
    copy.set(queue, array, true);
    return copy;
}

std::string nonzero_condition(const DType& dtype, const std::string& x) {
    switch (dtype.kind()) {
    case Kind::float16: return fmt::format("(({}[i] & 0x7fff) != 0)", x);
    case Kind::complex64:
    case Kind::complex128: return fmt::format("({0}[i].x != 0 || {0}[i].y != 0)", x);
    case Kind::struct_: throw UnsupportedError("nonzero: struct arrays have no zero");
    default: return fmt::format("({}[i] != 0)", x);
    }
}

}  // namespace kjarni::detail
