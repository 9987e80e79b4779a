// The onesweep LSD radix sort: 8-bit digits, key_bytes passes after one counting kernel.
//
// - kjarni_onesweep_histogram reads the keys once and counts the digits of every pass (local
//   atomics per work group, then global atomics): hist[pass * 256 + digit].
// - kjarni_onesweep_pass, once per digit. A work group takes the next tile (G x ITEMS consecutive
//   positions) from an atomic counter, so tiles are handed out in the order groups start and a
//   group only ever waits on a group that is already running. It
//   1. loads the tile into local memory and counts its digits (local atomics);
//   2. publishes those counts at once as the tile's aggregate (flag 1), or, tile 0, its inclusive
//      prefix (flag 2: the scanned global histogram plus its counts), each a flag and a 30-bit count
//      packed into one 32-bit word so that a reader never sees a flag without its count;
//   3. sorts the tile stably by the digit in local memory: two rounds of 4 bits (low nibble, then
//      high), each a counting sort where work item t counts its ITEMS consecutive keys in its own
//      column of a 16 x G table of 16-bit counters, the table is scanned in (nibble, work item)
//      order and every key goes to its rank (the multi-pass sort's scatter, done twice in local
//      memory; 8 bits at once would need a 256 x G table, more than 48 KiB);
//   4. looks back, one work item per digit, over the tiles before it: adds aggregates until it
//      meets an inclusive prefix (spinning while a tile has published nothing), then publishes its
//      own inclusive prefix; every tile's is published early, so chains are short;
//   5. writes the sorted tile out, consecutive work items to consecutive positions of a digit's run.
// Every pass's status words are cleared before it (a fill); the tile counters and the histogram
// once per sort.

#include "algorithms/sort_onesweep.hpp"

#include <algorithm>
#include <string>

#include <fmt/format.h>

#include "algorithms/device_code.hpp"
#include "algorithms/generated_kernel.hpp"
#include "algorithms/reduction_types.hpp"
#include "kjarni/api.hpp"
#include "kjarni/context.hpp"
#include "kjarni/device.hpp"
#include "kjarni/error.hpp"
#include "kjarni/platform.hpp"
#include "kjarni/program.hpp"

namespace kjarni::detail {

namespace {

using Kind = DType::Kind;

constexpr std::size_t group_size = 256;  // one work item per digit in the look-back
constexpr std::size_t max_items = 15;    // odd: blocked reads (stride ITEMS words) hit distinct banks
constexpr std::size_t max_count = (std::size_t{1} << 30) - 1;

struct OnesweepShape {
    std::size_t key_bytes = 4;
    std::size_t value_bytes = 0;  // 0: keys only
    std::size_t items = max_items;

    std::size_t tile() const { return group_size * items; }
    std::size_t passes() const { return key_bytes; }
    std::size_t local_bytes() const {
        // staged tile, 16-bit counters (18 per work item with the padding), totals, hist/base/start.
        return tile() * (key_bytes + value_bytes) + 18 * group_size * 2 + group_size * 4 + 3 * 256 * 4 + 16;
    }
    std::string key() const { return fmt::format("onesweep key={} value={} items={}", key_bytes, value_bytes, items); }
};

// The element-to-key transforms (key_functions()) of every dtype of one width, chosen at run
// time by a kind code that is the same for a whole launch: one kernel per key width and value
// width rather than one per dtype and mode (each is a compilation, seconds on PoCL).
enum KeyKindCode : std::uint32_t { keys_as_they_are = 0, bool_keys = 1, signed_keys = 2, float_exact = 3, float_canonical = 4 };

std::string renamed(std::string code, std::uint32_t kind) {
    for (const std::string name : {"kjarni_to_key(", "kjarni_from_key("}) {
        const std::string to = name.substr(0, name.size() - 1) + fmt::format("_{}(", kind);
        for (std::size_t at = code.find(name); at != std::string::npos; at = code.find(name, at + to.size()))
            code.replace(at, name.size(), to);
    }
    return code;
}

std::string key_transforms(std::size_t key_bytes) {
    const DType signed_dtype = key_bytes == 1 ? DType(Kind::int8) : key_bytes == 2 ? DType(Kind::int16)
                                              : key_bytes == 4 ? DType(Kind::int32) : DType(Kind::int64);
    std::string s = renamed(key_functions(signed_dtype, FloatKeys::exact, "sort"), signed_keys);
    std::string to = "        case 2: return kjarni_to_key_2(u);\n";
    std::string from = "        case 2: return kjarni_from_key_2(k);\n";
    if (key_bytes == 1) {
        s += renamed(key_functions(DType(Kind::bool_), FloatKeys::exact, "sort"), bool_keys);
        to += "        case 1: return kjarni_to_key_1(u);\n";
    } else {
        const DType float_dtype = key_bytes == 2 ? DType(Kind::float16) : key_bytes == 4 ? DType(Kind::float32) : DType(Kind::float64);
        s += renamed(key_functions(float_dtype, FloatKeys::exact, "sort"), float_exact);
        s += renamed(key_functions(float_dtype, FloatKeys::canonical, "sort"), float_canonical);
        to += "        case 3: return kjarni_to_key_3(u);\n        case 4: return kjarni_to_key_4(u);\n";
        from += "        case 3: return kjarni_from_key_3(k);\n";
    }
    s += "FUNCTION INLINE KJARNI_KEY kjarni_to_key(KJARNI_KEY u, uint32_t kind) {\n    switch (kind) {\n" + to +
         "        default: return u;\n    }\n}\n";
    s += "FUNCTION INLINE KJARNI_KEY kjarni_from_key(KJARNI_KEY k, uint32_t kind) {\n    switch (kind) {\n" + from +
         "        default: return k;\n    }\n}\n";
    return s;
}

/// The kind code of `dtype`'s keys (key_functions() first, for its errors on complex and struct dtypes).
std::uint32_t key_kind_code(const DType& dtype, FloatKeys mode, const std::string& what) {
    key_functions(dtype, mode, what);
    switch (dtype.kind()) {
        case Kind::bool_: return bool_keys;
        case Kind::int8: case Kind::int16: case Kind::int32: case Kind::int64: return signed_keys;
        case Kind::float16: case Kind::float32: case Kind::float64: return mode == FloatKeys::exact ? float_exact : float_canonical;
        default: return keys_as_they_are;
    }
}

std::string common_code(const OnesweepShape& r) {
    std::string s = algorithm_helpers();
    s += fmt::format("#define KJARNI_KEY {}\n#define KJARNI_VALUE {}\n", key_ctype(r.key_bytes),
                     r.value_bytes ? key_ctype(r.value_bytes) : "uint32_t");
    s += fmt::format("#define KJARNI_G {}\n#define KJARNI_ITEMS {}\n#define KJARNI_TILE {}\n#define KJARNI_PASSES {}\n",
                     group_size, r.items, r.tile(), r.passes());
    s += key_transforms(r.key_bytes);
    s += R"(#define KJARNI_DIGIT(key, shift) ((uint32_t)((key) >> (shift)) & 255u)
#ifdef KJARNI_CUDA_API
#define KJARNI_LOCAL_INC(p) atomicAdd((unsigned int*)(p), 1u)
#define KJARNI_GLOBAL_ADD(p, v) atomicAdd((unsigned int*)(p), (v))
#define KJARNI_GLOBAL_XCHG(p, v) atomicExch((unsigned int*)(p), (v))
#else
#define KJARNI_LOCAL_INC(p) atomic_inc((volatile LOCAL_MEM unsigned int*)(p))
#define KJARNI_GLOBAL_ADD(p, v) atomic_add((volatile GLOBAL_MEM unsigned int*)(p), (v))
#define KJARNI_GLOBAL_XCHG(p, v) atomic_xchg((volatile GLOBAL_MEM unsigned int*)(p), (v))
#endif
)";
    return s;
}

std::string histogram_source(const OnesweepShape& r) {
    std::string s = common_code(r);
    s += R"(KERNEL void kjarni_onesweep_histogram(GLOBAL_MEM const KJARNI_KEY* keys, uint64_t keys_offset, GLOBAL_MEM uint32_t* hist,
    uint32_t n, uint32_t key_kind)
{
    LOCAL_MEM_DECL uint32_t h[KJARNI_PASSES * 256];
    const uint32_t lid = (uint32_t)get_local_id(0);
    for (uint32_t k = lid; k < KJARNI_PASSES * 256; k += KJARNI_G) h[k] = 0;
    LOCAL_BARRIER;
    const uint32_t stride = (uint32_t)get_num_groups(0) * KJARNI_G;
    for (uint32_t p = (uint32_t)get_group_id(0) * KJARNI_G + lid; p < n; p += stride) {
        const KJARNI_KEY key = kjarni_to_key(keys[keys_offset + p], key_kind);
        for (uint32_t pass = 0; pass < KJARNI_PASSES; ++pass) KJARNI_LOCAL_INC(&h[pass * 256 + KJARNI_DIGIT(key, 8 * pass)]);
    }
    LOCAL_BARRIER;
    for (uint32_t k = lid; k < KJARNI_PASSES * 256; k += KJARNI_G)
        if (h[k] != 0) KJARNI_GLOBAL_ADD(&hist[k], h[k]);
}
)";
    return s;
}

std::string pass_source(const OnesweepShape& r) {
    const bool v = r.value_bytes != 0;
    const auto if_values = [v](const char* text) { return v ? std::string(text) : std::string(); };
    std::string s = common_code(r);
    // 16-bit counters, one padding word after every 16: work item t scans counters 16t..16t+15,
    // which then start at word 9t (distinct banks across a warp) instead of 8t.
    s += "#define KJARNI_CPAD(q) ((q) + 2u * ((q) >> 4))\n";
    s += "#define KJARNI_FLAG_AGGREGATE 0x40000000u\n#define KJARNI_FLAG_INCLUSIVE 0x80000000u\n"
         "#define KJARNI_COUNT_MASK 0x3FFFFFFFu\n";
    s += R"(KERNEL void kjarni_onesweep_pass(GLOBAL_MEM const KJARNI_KEY* keys, GLOBAL_MEM const KJARNI_VALUE* values,
    GLOBAL_MEM KJARNI_KEY* keys_out, GLOBAL_MEM KJARNI_VALUE* values_out, GLOBAL_MEM uint32_t* scratch,
    GLOBAL_MEM uint32_t* status, uint32_t n, uint32_t pass, uint64_t keys_offset, uint32_t first, uint32_t last,
    GLOBAL_MEM int64_t* positions_out, uint64_t out_offset, uint32_t key_kind)
{
    // first: `keys` are the elements from keys_offset on, made keys here (key_kind), and the values are
    // their positions. last 1: keys_out gets the elements back (kjarni_from_key) from out_offset
    // on, no values; last 2: positions_out gets the values as int64 from out_offset on, no keys.
    LOCAL_MEM_DECL KJARNI_KEY skeys[KJARNI_TILE];
)";
    s += if_values("    LOCAL_MEM_DECL KJARNI_VALUE svalues[KJARNI_TILE];\n");
    s += R"(    LOCAL_MEM_DECL uint16_t counters[18 * KJARNI_G];
    LOCAL_MEM_DECL uint32_t totals[KJARNI_G];
    LOCAL_MEM_DECL uint32_t hist[256];
    LOCAL_MEM_DECL uint32_t base[256];
    LOCAL_MEM_DECL uint32_t start[256];
    LOCAL_MEM_DECL uint32_t tile_slot;
    const uint32_t lid = (uint32_t)get_local_id(0);
    const uint32_t shift = 8u * pass;
    // scratch: the histogram of every pass, then one tile counter per pass.
    if (lid == 0) tile_slot = KJARNI_GLOBAL_ADD(&scratch[KJARNI_PASSES * 256 + pass], 1u);
    hist[lid] = 0;
    start[lid] = 0;
    LOCAL_BARRIER;
    const uint32_t tile = tile_slot;
    const uint32_t begin = tile * KJARNI_TILE;
    const uint32_t count = n - begin < KJARNI_TILE ? n - begin : KJARNI_TILE;
    // 1. The tile, striped (coalesced), into local memory; positions past the end get the largest
    // key, which the stable local sort keeps after every real one.
    for (uint32_t j = 0; j < KJARNI_ITEMS; ++j) {
        const uint32_t q = j * KJARNI_G + lid;
        KJARNI_KEY key = (KJARNI_KEY)~(KJARNI_KEY)0;
)";
    s += if_values("        KJARNI_VALUE value = 0;\n");
    s += R"(        if (q < count) {
            key = first ? kjarni_to_key(keys[keys_offset + begin + q], key_kind) : keys[begin + q];
)";
    s += if_values("            value = first ? (KJARNI_VALUE)(begin + q) : values[begin + q];\n");
    s += R"(            KJARNI_LOCAL_INC(&hist[KJARNI_DIGIT(key, shift)]);
        }
        skeys[q] = key;
)";
    s += if_values("        svalues[q] = value;\n");
    s += R"(    }
    LOCAL_BARRIER;
    // 2. This tile's counts for the tiles after it: work item d for digit d.
    const uint32_t my_count = hist[lid];
    if (tile == 0) {
        // The first tile starts each digit where the global histogram's exclusive scan says.
        const uint32_t total = scratch[pass * 256 + lid];
        totals[lid] = total;
        LOCAL_BARRIER;
        for (uint32_t step = 1; step < KJARNI_G; step <<= 1) {
            const uint32_t add = lid >= step ? totals[lid - step] : 0u;
            LOCAL_BARRIER;
            totals[lid] += add;
            LOCAL_BARRIER;
        }
        base[lid] = totals[lid] - total;
        KJARNI_GLOBAL_XCHG(&status[lid], KJARNI_FLAG_INCLUSIVE | (base[lid] + my_count));
    } else {
        KJARNI_GLOBAL_XCHG(&status[tile * 256 + lid], KJARNI_FLAG_AGGREGATE | my_count);
    }
    // 3. Stable local sort by the digit: by its low 4 bits, then by its high 4 bits.
    for (uint32_t round = 0; round < 2; ++round) {
        const uint32_t nibble_shift = shift + 4u * round;
        KJARNI_KEY my_keys[KJARNI_ITEMS];
)";
    s += if_values("        KJARNI_VALUE my_values[KJARNI_ITEMS];\n");
    s += R"(        for (uint32_t c = 0; c < 16; ++c) counters[KJARNI_CPAD(c * KJARNI_G + lid)] = 0;
        for (uint32_t k = 0; k < KJARNI_ITEMS; ++k) {
            const uint32_t q = lid * KJARNI_ITEMS + k;
            my_keys[k] = skeys[q];
)";
    s += if_values("            my_values[k] = svalues[q];\n");
    s += R"(            counters[KJARNI_CPAD(((uint32_t)(my_keys[k] >> nibble_shift) & 15u) * KJARNI_G + lid)] += 1;
        }
        LOCAL_BARRIER;
        // Exclusive scan of the table in (nibble, work item) order: work item t sums its 16
        // consecutive counters, the sums are scanned across the group, then it rescans its 16.
        uint32_t sum = 0;
        for (uint32_t c = 0; c < 16; ++c) sum += counters[KJARNI_CPAD(lid * 16 + c)];
        totals[lid] = sum;
        LOCAL_BARRIER;
        for (uint32_t step = 1; step < KJARNI_G; step <<= 1) {
            const uint32_t add = lid >= step ? totals[lid - step] : 0u;
            LOCAL_BARRIER;
            totals[lid] += add;
            LOCAL_BARRIER;
        }
        uint32_t running = totals[lid] - sum;
        for (uint32_t c = 0; c < 16; ++c) {
            const uint32_t here = counters[KJARNI_CPAD(lid * 16 + c)];
            counters[KJARNI_CPAD(lid * 16 + c)] = (uint16_t)running;
            running += here;
        }
        LOCAL_BARRIER;
        for (uint32_t k = 0; k < KJARNI_ITEMS; ++k) {
            // The nibble again rather than kept: ITEMS fewer registers.
            const uint32_t at = KJARNI_CPAD(((uint32_t)(my_keys[k] >> nibble_shift) & 15u) * KJARNI_G + lid);
            const uint32_t slot = counters[at];
            counters[at] = (uint16_t)(slot + 1);
            skeys[slot] = my_keys[k];
)";
    s += if_values("            svalues[slot] = my_values[k];\n");
    s += R"(        }
        LOCAL_BARRIER;
    }
    // Where each digit's run starts in the sorted tile.
    for (uint32_t j = 0; j < KJARNI_ITEMS; ++j) {
        const uint32_t q = j * KJARNI_G + lid;
        if (q < count) {
            const uint32_t d = KJARNI_DIGIT(skeys[q], shift);
            if (q == 0 || KJARNI_DIGIT(skeys[q - 1], shift) != d) start[d] = q;
        }
    }
    // 4. Decoupled look-back for digit lid: aggregates of the tiles before this one are added
    // until an inclusive prefix is met. Tile 0 publishes only an inclusive prefix, so the walk
    // ends there at the latest. The status word holds flag and count together, so no fence is
    // needed between them; volatile loads keep the spin reading memory.
    if (tile != 0) {
        uint32_t prefix = 0;
        uint32_t t = tile - 1;
        for (;;) {
            const uint32_t word = ((volatile GLOBAL_MEM uint32_t*)status)[t * 256 + lid];
            if (word & KJARNI_FLAG_INCLUSIVE) {
                prefix += word & KJARNI_COUNT_MASK;
                break;
            }
            if (word & KJARNI_FLAG_AGGREGATE) {
                prefix += word & KJARNI_COUNT_MASK;
                --t;
            }
        }
        KJARNI_GLOBAL_XCHG(&status[tile * 256 + lid], KJARNI_FLAG_INCLUSIVE | (prefix + my_count));
        base[lid] = prefix;
    }
    LOCAL_BARRIER;
    // The digit's destination less its run's start in the tile (wrapping), so that the scatter
    // reads one table.
    base[lid] -= start[lid];
    LOCAL_BARRIER;
    // 5. Out: position q of the sorted tile goes to its digit's base plus its place in the run.
    for (uint32_t j = 0; j < KJARNI_ITEMS; ++j) {
        const uint32_t q = j * KJARNI_G + lid;
        if (q < count) {
            const KJARNI_KEY key = skeys[q];
            const uint32_t d = KJARNI_DIGIT(key, shift);
            const uint32_t to = base[d] + q;
)";
    s += v ? R"(            if (last == 2) positions_out[out_offset + to] = (int64_t)svalues[q];
            else {
                keys_out[to] = key;
                values_out[to] = svalues[q];
            }
)"
           : R"(            if (last == 1) keys_out[out_offset + to] = kjarni_from_key(key, key_kind);
            else keys_out[to] = key;
)";
    s += "        }\n    }\n}\n";
    return s;
}

OnesweepShape shape_for(const Queue& queue, std::size_t key_bytes, std::size_t value_bytes) {
    OnesweepShape r;
    r.key_bytes = key_bytes;
    r.value_bytes = value_bytes;
    // At most 48 KiB, CUDA's limit for static shared memory, also where the device has more (PoCL):
    // a source generated for any device then compiles for every one (the suite's NVRTC cross-check).
    const std::size_t local = std::min<std::size_t>(queue.device().params().local_mem_size, 48 * 1024);
    while (r.items > 1 && r.local_bytes() > local) r.items -= 2;  // odd counts only
    return r;
}

bool runs_groups_to_completion(const Queue& queue) {
    const Device device = queue.device().device();
    if (device.params().type == DeviceType::gpu) return true;
    if (queue.device().context().api().id() == ApiId::cuda()) return true;
    // PoCL's CPU devices (pthread, basic) call a work group's function on one worker thread and
    // return when the group ends.
    return device.params().type == DeviceType::cpu && device.platform().name() == "Portable Computing Language";
}

struct OnesweepKernels {
    GeneratedKernel histogram;
    GeneratedKernel pass;
};

/// The two kernels of a shape (compiled once per context); the histogram's does not depend on the
/// values, so sort and argsort share it.
OnesweepKernels kernels_for(const Queue& queue, const OnesweepShape& r) {
    OnesweepShape keys_only = r;
    keys_only.value_bytes = 0;
    keys_only.items = 1;
    return {generated_kernel(queue.device(), keys_only.key(), "kjarni_onesweep_histogram",
                             [&] { return histogram_source(keys_only); }),
            generated_kernel(queue.device(), r.key(), "kjarni_onesweep_pass", [&] { return pass_source(r); })};
}

}  // namespace

bool onesweep_supported(const Queue& queue, std::size_t n, std::size_t key_bytes, std::size_t value_bytes) {
    if (n > max_count || (value_bytes != 0 && value_bytes != 4 && value_bytes != 8)) return false;
    if (key_bytes != 1 && key_bytes != 2 && key_bytes != 4 && key_bytes != 8) return false;  // complex128: refused later
    const DeviceParameters& params = queue.device().params();
    if (params.max_total_local_size < group_size) return false;
    const OnesweepShape r = shape_for(queue, key_bytes, value_bytes);
    if (r.local_bytes() > params.local_mem_size || !runs_groups_to_completion(queue)) return false;
    // A device may take fewer work items per group for these kernels than for others (registers).
    const OnesweepKernels k = kernels_for(queue, r);
    return k.histogram.max_local_size >= group_size && k.pass.max_local_size >= group_size;
}

namespace {

/// The ends fused into the first and the last pass (none: keys and values in, keys and values out).
struct Ends {
    std::optional<KernelArg> input;  // the first pass makes keys of these elements, positions as values
    std::uint64_t input_offset = 0;
    std::uint32_t last = 0;          // 1: the elements from their keys into `out`; 2: the values as int64
    std::optional<KernelArg> out;
    std::uint64_t out_offset = 0;
    std::uint32_t key_kind = keys_as_they_are;  // the elements' transform to keys and back
};

RadixResult run_onesweep(const Queue& queue, const OnesweepShape& r, const std::optional<Buffer>& keys,
                         const std::optional<Buffer>& values, std::size_t n, const Ends& ends) {
    const OnesweepKernels kernels = kernels_for(queue, r);
    const GeneratedKernel& histogram = kernels.histogram;
    const GeneratedKernel& pass = kernels.pass;
    for (const GeneratedKernel* k : {&histogram, &pass})
        if (k->max_local_size < group_size)
            throw UnsupportedError(fmt::format("sort: the device takes at most {} work items per group for the onesweep "
                                               "sort's kernels, it needs {}",
                                               k->max_local_size, group_size));

    const std::size_t tiles = (n + r.tile() - 1) / r.tile();
    const std::byte zero[4] = {};
    // The histogram of every pass, then one tile counter per pass: cleared once.
    const Buffer scratch = temporary_buffer(queue, (r.passes() * 256 + r.passes()) * 4);
    scratch.fill(queue, zero, true);
    const Buffer status = temporary_buffer(queue, tiles * 256 * 4);
    // Each pass reads `current` and writes `next` (a fused first pass reads the elements instead).
    const bool fused_input = ends.input.has_value();
    Buffer current_keys = fused_input ? temporary_buffer(queue, n * r.key_bytes) : *keys;
    Buffer next_keys = temporary_buffer(queue, n * r.key_bytes);
    std::optional<Buffer> current_values, next_values;
    if (r.value_bytes) {
        current_values = fused_input ? temporary_buffer(queue, n * r.value_bytes) : *values;
        next_values = temporary_buffer(queue, n * r.value_bytes);
    }

    const auto n32 = static_cast<std::uint32_t>(n);
    const KernelArg input_arg = fused_input ? *ends.input : pack(current_keys, LaunchTarget{});
    const std::uint64_t input_offset = fused_input ? ends.input_offset : 0;
    {
        // A few groups per compute unit, each striding over the keys.
        const std::size_t groups = std::clamp<std::size_t>(histogram.compute_units * 4, 1, (n + group_size - 1) / group_size);
        const std::size_t global[1] = {groups * group_size};
        const std::size_t local[1] = {group_size};
        const KernelArg args[] = {input_arg, pack(input_offset, LaunchTarget{}), pack(scratch, LaunchTarget{}),
                                  pack(n32, LaunchTarget{}), pack(ends.key_kind, LaunchTarget{})};
        launch(queue, histogram, global, local, args);
    }
    const std::size_t global[1] = {tiles * group_size};
    const std::size_t local[1] = {group_size};
    for (std::uint32_t p = 0; p < r.passes(); ++p) {
        status.fill(queue, zero, true);
        const bool first = p == 0 && fused_input;
        const std::uint32_t last = p + 1 == r.passes() ? ends.last : 0;
        const KernelArg keys_in = first ? input_arg : pack(current_keys, LaunchTarget{});
        const KernelArg values_in = pack(current_values ? *current_values : current_keys, LaunchTarget{});
        const KernelArg keys_out = last == 1 ? *ends.out : pack(next_keys, LaunchTarget{});
        const KernelArg values_out = pack(next_values ? *next_values : next_keys, LaunchTarget{});
        const KernelArg positions_out = last == 2 ? *ends.out : pack(scratch, LaunchTarget{});
        const KernelArg args[] = {keys_in,
                                  values_in,
                                  keys_out,
                                  values_out,
                                  pack(scratch, LaunchTarget{}),
                                  pack(status, LaunchTarget{}),
                                  pack(n32, LaunchTarget{}),
                                  pack(p, LaunchTarget{}),
                                  pack(first ? input_offset : std::uint64_t{0}, LaunchTarget{}),
                                  pack(std::uint32_t{first}, LaunchTarget{}),
                                  pack(last, LaunchTarget{}),
                                  positions_out,
                                  pack(ends.out_offset, LaunchTarget{}),
                                  pack(ends.key_kind, LaunchTarget{})};
        launch(queue, pass, global, local, args);
        std::swap(current_keys, next_keys);
        if (r.value_bytes) std::swap(*current_values, *next_values);
    }
    return RadixResult{current_keys, current_values};
}

}  // namespace

RadixResult onesweep_sort(const Queue& queue, const Buffer& keys, std::size_t key_bytes, const std::optional<Buffer>& values,
                          std::size_t value_bytes, std::size_t n) {
    if (n <= 1) return RadixResult{keys, values};
    return run_onesweep(queue, shape_for(queue, key_bytes, values ? value_bytes : 0), keys, values, n, Ends{});
}

void onesweep_sort_elements(const Queue& queue, const Array& input, const Array& out, OnesweepOutput output) {
    const std::size_t n = input.size();
    if (n == 0) return;
    const bool positions = output == OnesweepOutput::positions;
    const char* what = positions ? "argsort" : "sort";
    const FloatKeys mode = positions ? FloatKeys::canonical : FloatKeys::exact;
    const OnesweepShape r = shape_for(queue, input.dtype().itemsize(), positions ? 4 : 0);
    Ends ends;
    ends.key_kind = key_kind_code(input.dtype(), mode, what);
    ends.input = whole_allocation(input);
    ends.input_offset = static_cast<std::uint64_t>(element_offset(input, "array"));
    ends.last = positions ? 2 : 1;
    ends.out = whole_allocation(out);
    ends.out_offset = static_cast<std::uint64_t>(element_offset(out, "out"));
    run_onesweep(queue, r, std::nullopt, std::nullopt, n, ends);
}

}  // namespace kjarni::detail
