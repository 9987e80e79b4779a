// The multi-pass LSD radix sort, and radix_sort's choice between it and the onesweep sort
// (sort_onesweep.cpp, used where it is safe: see onesweep_supported()). Keys are cut into 4-bit
// digits, least significant first; each digit takes three launches, none of which waits for
// another work group (OpenCL gives no forward-progress guarantee between groups):
//
// - histogram: one work group per tile of G x ITEMS consecutive positions counts the tile's
//   digits (local atomics) into counts[digit * tiles + tile] (digit-major, so that an exclusive
//   scan of the whole array gives, for every (digit, tile), where the tile's keys of that digit go);
// - the scan engine's exclusive scan of those counts (kjarni's ScanKernel);
// - scatter: the same tile again, staged in local memory; work item t takes ITEMS consecutive
//   positions, counts its digits into column t of a 16 x G table, the table is scanned in
//   (digit, work item) order, which gives each key its rank in a stable sort of the tile by the
//   digit; the keys are placed in that order in local memory and written out by consecutive work
//   items to consecutive addresses of their digit's run (coalesced), at the scanned offset.
// A 4-bit digit keeps the table at 16 counters per work item (16 KiB for 256 work items): 8-bit
// digits, as CUB's, would need a table 16 times larger or warp-level ranking.

#include "algorithms/sort_radix.hpp"

#include <algorithm>
#include <bit>
#include <map>
#include <memory>
#include <mutex>

#include <fmt/format.h>

#include "algorithms/device_code.hpp"
#include "algorithms/generated_kernel.hpp"
#include "algorithms/reduction_types.hpp"
#include "algorithms/sort_onesweep.hpp"
#include "kjarni/error.hpp"
#include "kjarni/program.hpp"
#include "kjarni/scan.hpp"

namespace kjarni::detail {

using Kind = DType::Kind;

const char* key_ctype(std::size_t bytes) {
    switch (bytes) {
    case 1: return "uint8_t";
    case 2: return "uint16_t";
    case 4: return "uint32_t";
    case 8: return "uint64_t";
    default: break;
    }
    throw UnsupportedError(fmt::format("radix sort: no key type of {} bytes", bytes));
}

namespace {

enum class KeyKind { boolean, unsigned_integer, signed_integer, floating };

KeyKind key_kind(const DType& dtype, const std::string& what) {
    switch (dtype.kind()) {
    case Kind::bool_: return KeyKind::boolean;
    case Kind::uint8:
    case Kind::uint16:
    case Kind::uint32:
    case Kind::uint64: return KeyKind::unsigned_integer;
    case Kind::int8:
    case Kind::int16:
    case Kind::int32:
    case Kind::int64: return KeyKind::signed_integer;
    case Kind::float16:
    case Kind::float32:
    case Kind::float64: return KeyKind::floating;
    case Kind::complex64:
    case Kind::complex128:
        throw UnsupportedError(fmt::format("{}: complex arrays are not sorted (numpy orders them lexicographically "
                                           "by real, then imaginary part; sort the parts instead)",
                                           what));
    case Kind::struct_: break;
    }
    throw UnsupportedError(fmt::format("{}: struct arrays are not sorted", what));
}

/// The exponent mask of a float of `bytes` bytes, as C text of type KJARNI_KEY.
const char* exponent_mask(std::size_t bytes) {
    switch (bytes) {
    case 2: return "((KJARNI_KEY)0x7C00)";
    case 4: return "((KJARNI_KEY)0x7F800000)";
    default: return "((KJARNI_KEY)0x7FF00000 << 32)";
    }
}

}  // namespace

std::string key_class(const DType& dtype, FloatKeys mode) {
    const KeyKind kind = key_kind(dtype, "sort");
    return fmt::format("{}{}{}", static_cast<int>(kind), dtype.itemsize(),
                       kind == KeyKind::floating && mode == FloatKeys::canonical ? "c" : "");
}

std::string key_functions(const DType& dtype, FloatKeys mode, const std::string& what) {
    const KeyKind kind = key_kind(dtype, what);
    // Casts back to KJARNI_KEY everywhere: 1- and 2-byte keys are promoted to int by C's operators.
    std::string s = "#define KJARNI_KEY_SIGN ((KJARNI_KEY)((KJARNI_KEY)1 << (8 * sizeof(KJARNI_KEY) - 1)))\n";
    switch (kind) {
    case KeyKind::boolean:
        // numpy's bool is one byte, 0 or 1; any other byte is true.
        s += "FUNCTION INLINE KJARNI_KEY kjarni_to_key(KJARNI_KEY u) { return (KJARNI_KEY)(u != 0 ? 1 : 0); }\n"
             "FUNCTION INLINE KJARNI_KEY kjarni_from_key(KJARNI_KEY k) { return k; }\n";
        break;
    case KeyKind::unsigned_integer:
        s += "FUNCTION INLINE KJARNI_KEY kjarni_to_key(KJARNI_KEY u) { return u; }\n"
             "FUNCTION INLINE KJARNI_KEY kjarni_from_key(KJARNI_KEY k) { return k; }\n";
        break;
    case KeyKind::signed_integer:
        // Two's complement with the sign bit flipped orders as unsigned.
        s += "FUNCTION INLINE KJARNI_KEY kjarni_to_key(KJARNI_KEY u) { return (KJARNI_KEY)(u ^ KJARNI_KEY_SIGN); }\n"
             "FUNCTION INLINE KJARNI_KEY kjarni_from_key(KJARNI_KEY k) { return (KJARNI_KEY)(k ^ KJARNI_KEY_SIGN); }\n";
        break;
    case KeyKind::floating: {
        // Non-negative floats order as their bits with the sign bit set; negative ones as their
        // bits inverted (larger magnitudes first). NaNs (exponent all ones, mantissa not 0) go last.
        const char* exp = exponent_mask(dtype.itemsize());
        s += fmt::format("#define KJARNI_KEY_EXP {}\n", exp);
        if (mode == FloatKeys::canonical) {
            s += "FUNCTION INLINE KJARNI_KEY kjarni_to_key(KJARNI_KEY u) {\n"
                 "    const KJARNI_KEY m = (KJARNI_KEY)(u & (KJARNI_KEY)~KJARNI_KEY_SIGN);\n"
                 "    if (m > KJARNI_KEY_EXP) return (KJARNI_KEY)~(KJARNI_KEY)0;\n"
                 "    if (m == 0) return KJARNI_KEY_SIGN;\n"
                 "    return (u & KJARNI_KEY_SIGN) ? (KJARNI_KEY)~u : (KJARNI_KEY)(u | KJARNI_KEY_SIGN);\n"
                 "}\n";
        } else {
            s += "FUNCTION INLINE KJARNI_KEY kjarni_to_key(KJARNI_KEY u) {\n"
                 "    if ((KJARNI_KEY)(u & (KJARNI_KEY)~KJARNI_KEY_SIGN) > KJARNI_KEY_EXP) u = (KJARNI_KEY)(u & "
                 "(KJARNI_KEY)~KJARNI_KEY_SIGN);\n"
                 "    return (u & KJARNI_KEY_SIGN) ? (KJARNI_KEY)~u : (KJARNI_KEY)(u | KJARNI_KEY_SIGN);\n"
                 "}\n"
                 "FUNCTION INLINE KJARNI_KEY kjarni_from_key(KJARNI_KEY k) {\n"
                 "    return (k & KJARNI_KEY_SIGN) ? (KJARNI_KEY)(k & (KJARNI_KEY)~KJARNI_KEY_SIGN) : (KJARNI_KEY)~k;\n"
                 "}\n";
        }
        break;
    }
    }
    return s;
}

namespace {

/// The shape of a sort's kernels: key and value widths, group size and positions per work item.
struct RadixShape {
    std::size_t key_bytes = 4;
    std::size_t value_bytes = 0;  // 0: keys only
    bool wide = false;            // 64-bit positions, counts (and values)
    std::size_t group = 256;
    std::size_t items = 8;

    std::size_t tile() const { return group * items; }
    std::size_t local_bytes() const {
        return tile() * (key_bytes + value_bytes) + (16 * group + 16 * group / 32) * 4 + group * 4 + 16 * 8 + 16 * 4;
    }
    std::string key() const {
        return fmt::format("radix padded key={} value={} wide={} group={} items={}", key_bytes, value_bytes, wide,
                           group, items);
    }
};

std::string common_code(const RadixShape& r) {
    std::string s = algorithm_helpers();
    s += fmt::format("#define KJARNI_KEY {}\n#define KJARNI_IDX {}\n", key_ctype(r.key_bytes),
                     r.wide ? "uint64_t" : "uint32_t");
    s += fmt::format("#define KJARNI_VALUE {}\n", r.value_bytes ? key_ctype(r.value_bytes) : "uint32_t");
    s += fmt::format("#define KJARNI_G {}\n#define KJARNI_ITEMS {}\n#define KJARNI_TILE {}\n", r.group, r.items,
                     r.tile());
    // A padding word every 32 counters: work item t scans counters 16t..16t+15, which without it
    // fall in two of 32 banks across a warp (a 16-way conflict on GPUs).
    s += "#define KJARNI_PAD(q) ((q) + (q) / 32)\n";
    // A digit of the key, or (by_row) of the row a value (the original position) belongs to.
    s += "FUNCTION INLINE uint32_t kjarni_key_digit(KJARNI_KEY key, uint32_t shift) { return (uint32_t)(key >> shift) "
         "& 15u; }\n";
    s += "FUNCTION INLINE uint32_t kjarni_row_digit(KJARNI_VALUE value, uint32_t shift, KJARNI_IDX row_length) {\n"
         "    return (uint32_t)(((KJARNI_IDX)value / row_length) >> shift) & 15u;\n}\n";
    return s;
}

std::string histogram_source(const RadixShape& r) {
    std::string s = common_code(r);
    s += R"(#ifdef KJARNI_CUDA_API
#define KJARNI_LOCAL_INC(p) atomicAdd((unsigned int*)(p), 1u)
#else
#define KJARNI_LOCAL_INC(p) atomic_inc((volatile LOCAL_MEM unsigned int*)(p))
#endif
KERNEL void kjarni_radix_histogram(GLOBAL_MEM const KJARNI_KEY* keys, GLOBAL_MEM const KJARNI_VALUE* values,
    GLOBAL_MEM KJARNI_IDX* counts, KJARNI_IDX n, KJARNI_IDX tiles, uint32_t shift, uint32_t by_row, KJARNI_IDX row_length)
{
    LOCAL_MEM_DECL uint32_t hist[16];
    const uint32_t lid = (uint32_t)get_local_id(0);
    const KJARNI_IDX tile = (KJARNI_IDX)get_group_id(0);
    if (lid < 16) hist[lid] = 0;
    LOCAL_BARRIER;
    const KJARNI_IDX begin = tile * KJARNI_TILE;
    for (int j = 0; j < KJARNI_ITEMS; ++j) {
        const KJARNI_IDX p = begin + (KJARNI_IDX)(j * KJARNI_G + lid);
        if (p < n) {
            const uint32_t d = by_row ? kjarni_row_digit(values[p], shift, row_length) : kjarni_key_digit(keys[p], shift);
            KJARNI_LOCAL_INC(&hist[d]);
        }
    }
    LOCAL_BARRIER;
    if (lid < 16) counts[(KJARNI_IDX)lid * tiles + tile] = hist[lid];
}
)";
    return s;
}

std::string scatter_source(const RadixShape& r) {
    const bool v = r.value_bytes != 0;
    std::string s = common_code(r);
    const auto if_values = [v](const char* text) { return v ? std::string(text) : std::string(); };
    s += R"(KERNEL void kjarni_radix_scatter(GLOBAL_MEM const KJARNI_KEY* keys, GLOBAL_MEM const KJARNI_VALUE* values,
    GLOBAL_MEM KJARNI_KEY* keys_out, GLOBAL_MEM KJARNI_VALUE* values_out, GLOBAL_MEM const KJARNI_IDX* offsets,
    KJARNI_IDX n, KJARNI_IDX tiles, uint32_t shift, uint32_t by_row, KJARNI_IDX row_length)
{
    LOCAL_MEM_DECL KJARNI_KEY skeys[KJARNI_TILE];
)";
    s += if_values("    LOCAL_MEM_DECL KJARNI_VALUE svalues[KJARNI_TILE];\n");
    s += R"(    LOCAL_MEM_DECL uint32_t counters[KJARNI_PAD(16 * KJARNI_G)];
    LOCAL_MEM_DECL uint32_t totals[KJARNI_G];
    LOCAL_MEM_DECL KJARNI_IDX base[16];
    LOCAL_MEM_DECL uint32_t start[16];
    const uint32_t lid = (uint32_t)get_local_id(0);
    const KJARNI_IDX tile = (KJARNI_IDX)get_group_id(0);
    const KJARNI_IDX begin = tile * KJARNI_TILE;
    const uint32_t count = (uint32_t)(n - begin < (KJARNI_IDX)KJARNI_TILE ? n - begin : (KJARNI_IDX)KJARNI_TILE);
    for (int j = 0; j < KJARNI_ITEMS; ++j) {
        const uint32_t q = (uint32_t)(j * KJARNI_G) + lid;
        if (q < count) {
            skeys[q] = keys[begin + q];
)";
    s += if_values("            svalues[q] = values[begin + q];\n");
    s += R"(        }
    }
    for (int d = 0; d < 16; ++d) counters[KJARNI_PAD(d * KJARNI_G + lid)] = 0;
    if (lid < 16) base[lid] = offsets[(KJARNI_IDX)lid * tiles + tile];
    LOCAL_BARRIER;
    // This work item's run of ITEMS consecutive positions, kept in registers, its digits counted
    // in its own column of the table.
    KJARNI_KEY my_keys[KJARNI_ITEMS];
)";
    s += if_values("    KJARNI_VALUE my_values[KJARNI_ITEMS];\n");
    s += R"(    uint32_t my_digits[KJARNI_ITEMS];
    for (int k = 0; k < KJARNI_ITEMS; ++k) {
        const uint32_t q = lid * KJARNI_ITEMS + (uint32_t)k;
        my_keys[k] = 0;
        my_digits[k] = 0;
        if (q < count) {
            my_keys[k] = skeys[q];
)";
    s += if_values("            my_values[k] = svalues[q];\n");
    s += v ? "            my_digits[k] = by_row ? kjarni_row_digit(my_values[k], shift, row_length) : "
             "kjarni_key_digit(my_keys[k], shift);\n"
           : "            my_digits[k] = kjarni_key_digit(my_keys[k], shift);\n";
    s += R"(            counters[KJARNI_PAD(my_digits[k] * KJARNI_G + lid)] += 1;
        }
    }
    LOCAL_BARRIER;
    // Exclusive scan of the table in (digit, work item) order: work item t sums 16 consecutive
    // entries, the sums are scanned across the group (Hillis-Steele), then each rescans its 16.
    uint32_t sum = 0;
    for (int k = 0; k < 16; ++k) sum += counters[KJARNI_PAD(lid * 16 + k)];
    totals[lid] = sum;
    LOCAL_BARRIER;
    for (uint32_t step = 1; step < KJARNI_G; step <<= 1) {
        const uint32_t add = lid >= step ? totals[lid - step] : 0u;
        LOCAL_BARRIER;
        totals[lid] += add;
        LOCAL_BARRIER;
    }
    uint32_t running = lid > 0 ? totals[lid - 1] : 0u;
    for (int k = 0; k < 16; ++k) {
        const uint32_t c = counters[KJARNI_PAD(lid * 16 + k)];
        counters[KJARNI_PAD(lid * 16 + k)] = running;
        running += c;
    }
    LOCAL_BARRIER;
    if (lid < 16) start[lid] = counters[KJARNI_PAD(lid * KJARNI_G)];
    LOCAL_BARRIER;
    // Each key to its rank in the tile sorted by the digit (stable: runs in order, a run in order).
    for (int k = 0; k < KJARNI_ITEMS; ++k) {
        const uint32_t q = lid * KJARNI_ITEMS + (uint32_t)k;
        if (q < count) {
            const uint32_t slot = counters[KJARNI_PAD(my_digits[k] * KJARNI_G + lid)]++;
            skeys[slot] = my_keys[k];
)";
    s += if_values("            svalues[slot] = my_values[k];\n");
    s += R"(        }
    }
    LOCAL_BARRIER;
    // Consecutive work items write consecutive positions of a digit's run.
    for (int j = 0; j < KJARNI_ITEMS; ++j) {
        const uint32_t q = (uint32_t)(j * KJARNI_G) + lid;
        if (q < count) {
            const KJARNI_KEY key = skeys[q];
)";
    s += v ? R"(            const KJARNI_VALUE value = svalues[q];
            const uint32_t d = by_row ? kjarni_row_digit(value, shift, row_length) : kjarni_key_digit(key, shift);
            const KJARNI_IDX to = base[d] + (KJARNI_IDX)(q - start[d]);
            keys_out[to] = key;
            values_out[to] = value;
)"
           : R"(            const uint32_t d = kjarni_key_digit(key, shift);
            keys_out[base[d] + (KJARNI_IDX)(q - start[d])] = key;
)";
    s += "        }\n    }\n}\n";
    return s;
}

/// The exclusive scan of the digit counts (uint32 or uint64 items), one ScanKernel per width.
const ScanKernel& count_scan(bool wide) {
    static std::mutex mutex;
    static std::map<bool, std::unique_ptr<const ScanKernel>> kernels;
    const std::lock_guard lock(mutex);
    auto& slot = kernels[wide];
    if (!slot) {
        const char* t = wide ? "uint64_t" : "uint32_t";
        slot = std::make_unique<const ScanKernel>(wide ? DType(Kind::uint64) : DType(Kind::uint32), "0", "a + b",
                                                  "x[i]", "y[i] = prev_item;", fmt::format("const {0}* x, {0}* y", t),
                                                  "", Globals{}, "radix_sort_offsets");
    }
    return *slot;
}

}  // namespace

RadixResult radix_sort(const Queue& queue, const Buffer& keys, std::size_t key_bytes,
                       const std::optional<Buffer>& values, std::size_t value_bytes, std::size_t n,
                       std::size_t row_length, RadixMethod method) {
    RadixResult result{keys, values};
    if (n <= 1) return result;
    const bool segmented = row_length > 0 && row_length < n;
    if (segmented && !values) throw Error("radix_sort: a segmented sort needs the positions as values");
    const std::size_t onesweep_value_bytes = values ? value_bytes : 0;
    if (method == RadixMethod::onesweep &&
        (segmented || !onesweep_supported(queue, n, key_bytes, onesweep_value_bytes)))
        throw UnsupportedError(fmt::format("sort: the onesweep radix sort cannot sort {} keys of {} bytes{} on {}", n,
                                           key_bytes, segmented ? " in rows" : "", queue.device().name()));
    if (method == RadixMethod::onesweep || (method == RadixMethod::automatic && !segmented &&
                                            onesweep_supported(queue, n, key_bytes, onesweep_value_bytes)))
        return onesweep_sort(queue, keys, key_bytes, values, value_bytes, n);

    RadixShape r;
    r.key_bytes = key_bytes;
    r.value_bytes = values ? value_bytes : 0;
    r.wide = needs_wide_indices(n);
    if (values && r.wide != (value_bytes == 8))
        throw Error("radix_sort: the values' width does not match the positions'");
    const DeviceParameters& params = queue.device().params();
    r.group = std::min<std::size_t>(256, floor_pow2(params.max_total_local_size));
    // Positions per work item: the staged tile within 16 KiB.
    const auto items_for = [&] {
        return std::clamp<std::size_t>(16384 / (r.group * (r.key_bytes + r.value_bytes)), 1, 16);
    };
    r.items = items_for();
    while (r.group > 16 && r.local_bytes() > params.local_mem_size) {
        r.group /= 2;
        r.items = items_for();
    }
    if (r.group < 16 || r.local_bytes() > params.local_mem_size)
        throw UnsupportedError(fmt::format("sort: the device's {} bytes of local memory are too few for the radix sort",
                                           params.local_mem_size));

    const std::size_t tiles = (n + r.tile() - 1) / r.tile();
    const GeneratedKernel histogram =
        generated_kernel(queue.device(), r.key(), "kjarni_radix_histogram", [&] { return histogram_source(r); });
    const GeneratedKernel scatter =
        generated_kernel(queue.device(), r.key(), "kjarni_radix_scatter", [&] { return scatter_source(r); });
    for (const GeneratedKernel* k : {&histogram, &scatter})
        if (k->max_local_size < r.group)
            throw UnsupportedError(fmt::format("sort: the device takes at most {} work items per group for the radix "
                                               "sort's kernels, it needs {}",
                                               k->max_local_size, r.group));

    const std::size_t index_bytes = r.wide ? 8 : 4;
    const DType index_dtype = r.wide ? DType(Kind::uint64) : DType(Kind::uint32);
    const Buffer counts = temporary_buffer(queue, 16 * tiles * index_bytes);
    const Buffer offsets = temporary_buffer(queue, 16 * tiles * index_bytes);
    const Array counts_array = Array::from_buffer(counts, index_dtype, Layout::contiguous({16 * tiles}, index_bytes));
    const Array offsets_array = Array::from_buffer(offsets, index_dtype, Layout::contiguous({16 * tiles}, index_bytes));
    Buffer other_keys = temporary_buffer(queue, n * key_bytes);
    std::optional<Buffer> other_values;
    if (values) other_values = temporary_buffer(queue, n * value_bytes);

    const auto index_arg = [&](std::size_t value) {
        return r.wide ? pack(static_cast<std::uint64_t>(value), LaunchTarget{})
                      : pack(static_cast<std::uint32_t>(value), LaunchTarget{});
    };
    const std::size_t global[1] = {tiles * r.group};
    const std::size_t local[1] = {r.group};
    const auto pass = [&](std::uint32_t shift, bool by_row) {
        const Buffer& value_in = result.values ? *result.values : result.keys;
        const Buffer& value_out = other_values ? *other_values : other_keys;
        {
            const KernelArg args[] = {pack(result.keys, LaunchTarget{}),
                                      pack(value_in, LaunchTarget{}),
                                      pack(counts, LaunchTarget{}),
                                      index_arg(n),
                                      index_arg(tiles),
                                      pack(shift, LaunchTarget{}),
                                      pack(std::uint32_t{by_row}, LaunchTarget{}),
                                      index_arg(row_length)};
            launch(queue, histogram, global, local, args);
        }
        count_scan(r.wide)(queue, {counts_array, offsets_array});
        {
            const KernelArg args[] = {pack(result.keys, LaunchTarget{}),
                                      pack(value_in, LaunchTarget{}),
                                      pack(other_keys, LaunchTarget{}),
                                      pack(value_out, LaunchTarget{}),
                                      pack(offsets, LaunchTarget{}),
                                      index_arg(n),
                                      index_arg(tiles),
                                      pack(shift, LaunchTarget{}),
                                      pack(std::uint32_t{by_row}, LaunchTarget{}),
                                      index_arg(row_length)};
            launch(queue, scatter, global, local, args);
        }
        std::swap(result.keys, other_keys);
        if (values) std::swap(*result.values, *other_values);
    };
    for (std::uint32_t shift = 0; shift < 8 * key_bytes; shift += 4) pass(shift, false);
    if (segmented) {
        const std::size_t rows = (n + row_length - 1) / row_length;
        const auto row_bits = static_cast<std::uint32_t>(std::bit_width(rows - 1));
        for (std::uint32_t shift = 0; shift < row_bits; shift += 4) pass(shift, true);
    }
    return result;
}

}  // namespace kjarni::detail
