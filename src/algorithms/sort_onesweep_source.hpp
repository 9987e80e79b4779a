#pragma once
// The kernel sources of the onesweep radix sort (sort_onesweep.cpp runs them): the digit counting
// kernel and the two forms of the pass kernel, which differ in how a tile is ranked by its digit.

#include <algorithm>
#include <cstddef>
#include <string>

namespace kjarni::detail::onesweep {

/// How the pass kernel ranks a tile's keys by their 8-bit digit (the stable order in the tile).
enum class Rank {
    /// Two 4-bit counting sorts through a 16 x G table of 16-bit counters in local memory (any
    /// OpenCL device): sort_onesweep_source.cpp.
    nibble,
    /// One round: each warp of 32 work items finds the items of equal digit among its lanes (CUDA's
    /// __match_any_sync) and counts them in a 256-counter histogram of its own; a scan of the
    /// (digit, warp) counts gives every key its rank. sort_onesweep_match.cpp.
    match,
};

/// How the match ranking gets its warp instructions.
enum class Warp {
    /// CUDA's intrinsics through CUDA, PTX inline assembly through NVIDIA's OpenCL (both compute
    /// capability 7.0 or later, for match.any.sync).
    native,
    /// The same operations through local memory and group barriers: 32 consecutive work items act
    /// as a warp. Correct on every device, slow; for tests on devices without warps.
    emulated,
};

/// A pass kernel's shape, and the source choices that depend on the device.
struct Shape {
    std::size_t key_bytes = 4;
    std::size_t value_bytes = 0;  // 0: keys only
    std::size_t items = 15;       // keys per work item
    std::size_t group = 256;      // work items per group (256 for nibble; a multiple of 32, >= 256, for match)
    Rank rank = Rank::nibble;
    Warp warp = Warp::native;
    bool ptx = false;  // native warps through NVIDIA's OpenCL: inline PTX (CUDA takes its intrinsics regardless)
    /// match with values: the sorted tile's keys go out, then its values through the same local
    /// memory (half the staging of keys and values together: larger tiles or more groups per
    /// compute unit, for a barrier and a register per key more).
    bool values_apart = false;
    /// match: the lanes of equal digit found through a mask word per digit and warp in local
    /// memory (each lane ORs its bit in, the warp synchronizes and reads) instead of match.any.
    bool or_masks = false;
    /// match: the lanes of equal digit found through 8 ballots, one per bit of the digit (a lane's
    /// peers are the lanes that agree with it on every bit: ALU and vote instructions only),
    /// instead of match.any (KJARNI_SORT_MATCH=ballot; CUB's way of matching its digits).
    bool ballot = false;
    /// match: work items the kernel is compiled to keep resident per compute unit, in whole groups
    /// (resident_groups(); 0: the compiler's choice). Through CUDA __launch_bounds__(group,
    /// resident_groups()); through NVIDIA's OpenCL the register cap that lets as many fit.
    std::size_t resident = 0;
    /// match: the tile's keys (and values) loaded in one straight run of loads, the first pass's
    /// element-to-key transform applied after all of them, and the write-out's keys and
    /// destinations read from local memory before any store (KJARNI_SORT_LOAD=split), instead of
    /// each key transformed as it is loaded and stored as it is read (fused), where the branches
    /// between them keep the compiler from issuing a load before the previous one returns (the
    /// first pass's 16 global loads one after another in the fused form's machine code).
    bool split_loads = false;
    /// The counting kernel's keys per work item (KJARNI_SORT_HIST_ITEMS): loaded in one straight
    /// run (warp-striped, coalesced), then counted; 1 is the one-key loop.
    std::size_t hist_items = 1;
    /// match: each warp counts its keys' digits first (a local atomic per key), the tile's counts
    /// are published and scanned before the ranking, and each key goes to the staged tile as soon
    /// as it is ranked (KJARNI_SORT_COUNTS=early), instead of the counts coming out of the ranking
    /// (late): the look-back of later tiles finds this one's counts sooner, and no register per
    /// key holds its rank (sort, argsort with values together), for a local atomic per key and
    /// the staged tile beside the histograms instead of over them.
    bool early_counts = false;
    /// The counting kernel's work groups per compute unit (KJARNI_SORT_HIST_GROUPS; not part of
    /// any source).
    std::size_t hist_groups = 4;

    std::size_t tile() const { return group * items; }
    std::size_t passes() const { return key_bytes; }
    /// Bytes of local memory the pass kernel declares.
    std::size_t local_bytes() const;
    /// match: bytes of the staged tile (keys, then values 8-byte aligned, unless values_apart).
    std::size_t staged_bytes() const;
    /// match: bytes of the warps' histograms (and their masks with or_masks), where the tile is
    /// staged later.
    std::size_t histogram_bytes() const { return group / 32 * 256 * 4 * (or_masks ? 2 : 1); }
    /// match: bytes of the histograms and the staged tile (overlapping, unless early_counts).
    std::size_t match_smem_bytes() const {
        return early_counts ? histogram_bytes() + staged_bytes() : std::max(staged_bytes(), histogram_bytes());
    }
    std::size_t resident_groups() const { return std::max<std::size_t>(1, resident / group); }
    /// The register cap that keeps resident_groups() groups on a compute unit of 65536 registers
    /// (0: none).
    std::size_t max_registers() const { return resident == 0 ? 0 : 65536 / (resident_groups() * group); }
    /// The kernel cache key.
    std::string key() const;
};

/// kjarni_onesweep_histogram: the digit counts of every pass in one read of the keys (256 work
/// items per group; only the key width of `shape` matters).
std::string histogram_source(const Shape& shape);

/// kjarni_onesweep_pass for `shape` (by its rank).
std::string pass_source(const Shape& shape);

/// What both kernels start with: helpers, the key type, the element-to-key transforms of every
/// dtype of the key width (chosen at run time by a kind code), the digit and atomics.
std::string common_code(const Shape& shape);

/// The pass kernels' last step, one loop: position q of the sorted tile in local memory (`skeys`,
/// and `svalues` with `values`) goes to `base[its digit] + q`; the last pass writes the elements
/// (or argsort's positions) at `out_offset`, the others the keys (and values). `split`: every
/// key and destination read first, then the stores (Shape::split_loads).
std::string write_out_code(bool values, bool split);

/// The match form of kjarni_onesweep_pass (sort_onesweep_match.cpp).
std::string match_pass_source(const Shape& shape);

/// The element-to-key transforms' kind codes, the same for a whole launch.
enum KeyKindCode : unsigned {
    keys_as_they_are = 0,
    bool_keys = 1,
    signed_keys = 2,
    float_exact = 3,
    float_canonical = 4
};

}  // namespace kjarni::detail::onesweep
