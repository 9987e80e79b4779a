// The match form of the onesweep pass kernel: a tile ranked by its 8-bit digit in one round with
// warp instructions, in place of the nibble form's two 4-bit counting sorts through a table of
// counters (sort_onesweep_source.cpp). Per key the nibble form makes about a dozen local memory
// accesses and a group barrier every few of them; this one a match among the warp's lanes, one
// local atomic per distinct digit of the warp, a shuffle, one lookup and one store.
//
// A work group of G work items (warps of 32) takes a tile of G x ITEMS keys. Warp w holds the
// positions w*32*ITEMS .. (w+1)*32*ITEMS - 1 in registers, item k of lane l at w*32*ITEMS + 32k + l
// (loads of 32 consecutive keys, and (warp, item, lane) order is the tile's order). Then:
//   1. for each item in turn, the lanes holding the same digit find each other (match.any); the
//      highest of them adds their number to the warp's histogram counter of that digit (a local
//      atomic, which also orders it after the previous item's update by another lane) and shuffles
//      the old count to the others; a key's rank in its warp is that count plus its lanes below;
//   2. work item d (d < 256) turns the warps' counts of digit d into an exclusive scan over the
//      warps, publishes the tile's count of d for the look-back, and a scan across the group of
//      those counts gives where the digit's run starts in the sorted tile;
//   3. each key's rank in the tile (run start + warps before + rank in its warp) places it, and its
//      value, in local memory (where the histograms were);
//   4. work item d looks back over the earlier tiles for digit d, as in the nibble form;
//   5. the sorted tile goes out as in the nibble form, consecutive work items to consecutive
//      positions of a digit's run.
// With or_masks (KJARNI_SORT_MATCH=or), step 1 finds the lanes of equal digit through a mask word
// per digit and warp in local memory (each lane ORs its bit in; warp synchronizations around the
// read and the leader's clearing), which trades match.any for a local atomic and three warp
// synchronizations per key: which is faster on a GPU is for the sweep to say. With ballot
// (KJARNI_SORT_MATCH=ballot), the lanes of equal digit are those that agree on each of its 8 bits,
// through a ballot per bit (vote and logic instructions, no local memory, no synchronization).
// With early_counts (KJARNI_SORT_COUNTS=early), each warp first counts its keys' digits in its
// histogram (a local atomic per key), step 2 runs before the ranking (the tile's counts published
// sooner for the look-back of later tiles), and the ranking of step 1 then starts from each warp's
// place in the sorted tile, so that a key goes to local memory as soon as it is ranked (steps 1
// and 3 in one loop, no register per key for its rank; the staged tile beside the histograms).
// Stable: ranks follow (digit, warp, item, lane), the tile's order within a digit. The loops over
// a work item's keys are unrolled so that its keys, values and ranks stay in registers (an array
// indexed in a loop that is not unrolled goes to local memory through CUDA).
//
// The warp instructions come from CUDA's intrinsics through CUDA and from PTX inline assembly
// through NVIDIA's OpenCL (whose compiler takes asm statements; Shape::ptx, which also works
// through NVRTC, where the suite checks that it compiles), both compute capability 7.0 or later. Elsewhere they are emulated in local memory with group barriers (Warp::emulated), which
// keeps the algorithm testable on CPU devices; every barrier is reached by every work item.

#include <algorithm>

#include <fmt/format.h>

#include "algorithms/sort_onesweep_source.hpp"

namespace kjarni::detail::onesweep {

namespace {

/// The warp operations: KJARNI_MATCH(v) (the mask of lanes holding v), KJARNI_SHFL(v, lane),
/// KJARNI_SHFL_UP(v, delta) (a lane below delta keeps its own), KJARNI_POPC, KJARNI_HIGHEST(mask)
/// (the index of the highest set bit). The emulated ones take `lid` and `kjarni_wx` from the
/// caller's scope and contain group barriers.
std::string warp_code(const Shape& r) {
    std::string s =
        fmt::format("#define KJARNI_SORT_PTX {}\n#define KJARNI_SORT_EMULATED {}\n#define KJARNI_SORT_OR {}\n"
                    "#define KJARNI_SORT_BALLOT {}\n",
                    r.ptx ? 1 : 0, r.warp == Warp::emulated ? 1 : 0, r.or_masks ? 1 : 0, r.ballot ? 1 : 0);
    s += R"(#if KJARNI_SORT_PTX && !KJARNI_SORT_EMULATED
FUNCTION INLINE uint32_t kjarni_match(uint32_t v) {
    uint32_t m;
    asm volatile("match.any.sync.b32 %0, %1, 0xffffffff;" : "=r"(m) : "r"(v));
    return m;
}
FUNCTION INLINE uint32_t kjarni_shfl(uint32_t v, uint32_t l) {
    uint32_t r;
    asm volatile("shfl.sync.idx.b32 %0, %1, %2, 0x1f, 0xffffffff;" : "=r"(r) : "r"(v), "r"(l));
    return r;
}
FUNCTION INLINE uint32_t kjarni_shfl_up(uint32_t v, uint32_t d) {
    uint32_t r;
    asm volatile("shfl.sync.up.b32 %0, %1, %2, 0x0, 0xffffffff;" : "=r"(r) : "r"(v), "r"(d));
    return r;
}
FUNCTION INLINE uint32_t kjarni_popc(uint32_t x) {
    uint32_t r;
    asm("popc.b32 %0, %1;" : "=r"(r) : "r"(x));
    return r;
}
FUNCTION INLINE uint32_t kjarni_highest(uint32_t x) {
    uint32_t r;
    asm("bfind.u32 %0, %1;" : "=r"(r) : "r"(x));
    return r;
}
FUNCTION INLINE uint32_t kjarni_ballot(uint32_t v) {
    uint32_t r;
    asm volatile("{\n\t.reg .pred p;\n\tsetp.ne.u32 p, %1, 0;\n\tvote.sync.ballot.b32 %0, p, 0xffffffff;\n\t}"
                 : "=r"(r) : "r"(v));
    return r;
}
FUNCTION INLINE void kjarni_warp_sync(void) { asm volatile("bar.warp.sync 0xffffffff;" ::: "memory"); }
#define KJARNI_WARP_SYNC() kjarni_warp_sync()
#define KJARNI_MATCH(v) kjarni_match(v)
#define KJARNI_BALLOT(v) kjarni_ballot(v)
#define KJARNI_SHFL(v, l) kjarni_shfl((v), (l))
#define KJARNI_SHFL_UP(v, d) kjarni_shfl_up((v), (d))
#define KJARNI_POPC(x) kjarni_popc(x)
#define KJARNI_HIGHEST(x) kjarni_highest(x)
#define KJARNI_WX_PARAM
#define KJARNI_WX_ARG
#elif defined(KJARNI_CUDA_API) && !KJARNI_SORT_EMULATED
#define KJARNI_WARP_SYNC() __syncwarp()
#define KJARNI_MATCH(v) __match_any_sync(0xFFFFFFFFu, (v))
#define KJARNI_BALLOT(v) __ballot_sync(0xFFFFFFFFu, (v))
#define KJARNI_SHFL(v, l) __shfl_sync(0xFFFFFFFFu, (v), (l))
#define KJARNI_SHFL_UP(v, d) __shfl_up_sync(0xFFFFFFFFu, (v), (d))
#define KJARNI_POPC(x) ((uint32_t)__popc(x))
#define KJARNI_HIGHEST(x) (31u - (uint32_t)__clz(x))
#define KJARNI_WX_PARAM
#define KJARNI_WX_ARG
#elif !KJARNI_SORT_EMULATED
#error "the onesweep sort: native warps need CUDA or PTX through NVIDIA OpenCL"
#else
// 32 consecutive work items as a warp: each writes its word to kjarni_wx[lid], and after a
// barrier reads its warp's words; a second barrier before kjarni_wx is written again.
FUNCTION INLINE uint32_t kjarni_match_emulated(uint32_t v, uint32_t lid, LOCAL_MEM uint32_t* wx) {
    wx[lid] = v;
    LOCAL_BARRIER;
    uint32_t m = 0;
    for (uint32_t l = 0; l < 32; ++l) m |= (wx[(lid & ~31u) + l] == v ? 1u : 0u) << l;
    LOCAL_BARRIER;
    return m;
}
FUNCTION INLINE uint32_t kjarni_ballot_emulated(uint32_t v, uint32_t lid, LOCAL_MEM uint32_t* wx) {
    wx[lid] = v;
    LOCAL_BARRIER;
    uint32_t m = 0;
    for (uint32_t l = 0; l < 32; ++l) m |= (wx[(lid & ~31u) + l] != 0 ? 1u : 0u) << l;
    LOCAL_BARRIER;
    return m;
}
FUNCTION INLINE uint32_t kjarni_shfl_emulated(uint32_t v, uint32_t l, uint32_t lid, LOCAL_MEM uint32_t* wx) {
    wx[lid] = v;
    LOCAL_BARRIER;
    const uint32_t r = wx[(lid & ~31u) + l];
    LOCAL_BARRIER;
    return r;
}
FUNCTION INLINE uint32_t kjarni_shfl_up_emulated(uint32_t v, uint32_t d, uint32_t lid, LOCAL_MEM uint32_t* wx) {
    wx[lid] = v;
    LOCAL_BARRIER;
    const uint32_t r = (lid & 31u) >= d ? wx[lid - d] : v;
    LOCAL_BARRIER;
    return r;
}
FUNCTION INLINE uint32_t kjarni_highest_emulated(uint32_t x) {
    uint32_t h = 0;
    for (uint32_t b = 0; b < 32; ++b)
        if ((x >> b) & 1u) h = b;
    return h;
}
FUNCTION INLINE uint32_t kjarni_popc_emulated(uint32_t x) {
    uint32_t c = 0;
    for (uint32_t b = 0; b < 32; ++b) c += (x >> b) & 1u;
    return c;
}
#define KJARNI_WARP_SYNC() LOCAL_BARRIER
#define KJARNI_MATCH(v) kjarni_match_emulated((v), lid, kjarni_wx)
#define KJARNI_BALLOT(v) kjarni_ballot_emulated((v), lid, kjarni_wx)
#define KJARNI_SHFL(v, l) kjarni_shfl_emulated((v), (l), lid, kjarni_wx)
#define KJARNI_SHFL_UP(v, d) kjarni_shfl_up_emulated((v), (d), lid, kjarni_wx)
#define KJARNI_POPC(x) kjarni_popc_emulated(x)
#define KJARNI_HIGHEST(x) kjarni_highest_emulated(x)
#define KJARNI_WX_PARAM , LOCAL_MEM uint32_t* kjarni_wx
#define KJARNI_WX_ARG , kjarni_wx
#define KJARNI_WX_DECL 1
#endif

#ifdef KJARNI_CUDA_API
#define KJARNI_LOCAL_OR(p, v) atomicOr((unsigned int*)(p), (v))
#else
#define KJARNI_LOCAL_OR(p, v) atomic_or((volatile LOCAL_MEM unsigned int*)(p), (v))
#endif

// Exclusive scans of two values of work items 0..255 at once (work items past 255 give 0 and get
// nothing useful), called by every work item: the first returned, the second in *second.
// wsum: 16 words.
FUNCTION INLINE uint32_t kjarni_scan256(uint32_t v, uint32_t u, uint32_t lid, LOCAL_MEM uint32_t* wsum, uint32_t* second KJARNI_WX_PARAM) {
    uint32_t x = v, y = u;
    for (uint32_t d = 1; d < 32; d <<= 1) {
        const uint32_t x_below = KJARNI_SHFL_UP(x, d);
        const uint32_t y_below = KJARNI_SHFL_UP(y, d);
        if ((lid & 31u) >= d) {
            x += x_below;
            y += y_below;
        }
    }
    if ((lid & 31u) == 31u && lid < 256u) {
        wsum[lid >> 5] = x;
        wsum[8u + (lid >> 5)] = y;
    }
    LOCAL_BARRIER;
    uint32_t x_before = 0, y_before = 0;
    for (uint32_t w = 0; w < 8u; ++w) {
        if (w < (lid >> 5)) {
            x_before += wsum[w];
            y_before += wsum[8u + w];
        }
    }
    LOCAL_BARRIER;
    *second = y_before + y - u;
    return x_before + x - v;
}
)";
    return s;
}

}  // namespace

std::string match_pass_source(const Shape& r) {
    const bool v = r.value_bytes != 0;
    const auto if_values = [v](const char* text) { return v ? std::string(text) : std::string(); };
    std::string s = common_code(r);
    s += warp_code(r);
    const bool apart = v && r.values_apart;
    // The staged tile overlaps the histograms, or, with early counts, follows them.
    const std::size_t stage_at = r.early_counts ? r.histogram_bytes() : 0;
    s += fmt::format("#define KJARNI_WARPS {}\n#define KJARNI_SMEM_WORDS {}\n#define KJARNI_STAGE_AT {}\n#define "
                     "KJARNI_VALUES_AT {}\n",
                     r.group / 32, (r.match_smem_bytes() + 7) / 8, stage_at,
                     stage_at + (apart ? 0 : (r.tile() * r.key_bytes + 7) / 8 * 8));
    s += "#define KJARNI_FLAG_AGGREGATE 0x40000000u\n#define KJARNI_FLAG_INCLUSIVE 0x80000000u\n"
         "#define KJARNI_COUNT_MASK 0x3FFFFFFFu\n";
    // __launch_bounds__ goes between the return type and the name.
    if (r.resident != 0)
        s += fmt::format("KERNEL void\n#ifdef KJARNI_CUDA_API\n__launch_bounds__({}, {})\n#endif\n", r.group,
                         r.resident_groups());
    else s += "KERNEL void ";
    s += R"(kjarni_onesweep_pass(GLOBAL_MEM const KJARNI_KEY* keys, GLOBAL_MEM const KJARNI_VALUE* values,
    GLOBAL_MEM KJARNI_KEY* keys_out, GLOBAL_MEM KJARNI_VALUE* values_out, GLOBAL_MEM uint32_t* scratch,
    GLOBAL_MEM uint32_t* status, uint32_t n, uint32_t pass, uint64_t keys_offset, uint32_t first, uint32_t last,
    GLOBAL_MEM int64_t* positions_out, uint64_t out_offset, uint32_t key_kind)
{
    // first: `keys` are the elements from keys_offset on, made keys here (key_kind), and the values are
    // their positions. last 1: keys_out gets the elements back (kjarni_from_key) from out_offset
    // on, no values; last 2: positions_out gets the values as int64 from out_offset on, no keys.
    // smem: the warps' histograms (256 counters each), then the sorted tile (keys, then values).
    LOCAL_MEM_DECL uint64_t smem[KJARNI_SMEM_WORDS];
    LOCAL_MEM_DECL uint32_t base[256];
    LOCAL_MEM_DECL uint32_t wsum[16];
    LOCAL_MEM_DECL uint32_t tile_slot;
#ifdef KJARNI_WX_DECL
    LOCAL_MEM_DECL uint32_t kjarni_wx[KJARNI_G];
#endif
    LOCAL_MEM uint32_t* whist = (LOCAL_MEM uint32_t*)smem;
    LOCAL_MEM KJARNI_KEY* skeys = (LOCAL_MEM KJARNI_KEY*)((LOCAL_MEM uint8_t*)smem + KJARNI_STAGE_AT);
)";
    s += if_values("    LOCAL_MEM KJARNI_VALUE* svalues = (LOCAL_MEM KJARNI_VALUE*)((LOCAL_MEM uint8_t*)smem + "
                   "KJARNI_VALUES_AT);\n");
    s += R"(    const uint32_t lid = (uint32_t)get_local_id(0);
    const uint32_t lane = lid & 31u;
    const uint32_t warp = lid >> 5;
    const uint32_t shift = 8u * pass;
    // scratch: the histogram of every pass, then one tile counter per pass.
    if (lid == 0) tile_slot = KJARNI_GLOBAL_ADD(&scratch[KJARNI_PASSES * 256 + pass], 1u);
    for (uint32_t k = lid; k < (KJARNI_SORT_OR ? 2 : 1) * KJARNI_WARPS * 256; k += KJARNI_G) whist[k] = 0;
    LOCAL_BARRIER;
    const uint32_t tile = tile_slot;
    const uint32_t begin = tile * KJARNI_TILE;
    const uint32_t count = n - begin < KJARNI_TILE ? n - begin : KJARNI_TILE;
    // 1. The warp's positions into registers; positions past the end get the largest key (digit
    // 255), which ranks after every real key.
    KJARNI_KEY my_keys[KJARNI_ITEMS];
)";
    if (!r.early_counts || apart) s += "    uint32_t my_ranks[KJARNI_ITEMS];\n";
    s += if_values("    KJARNI_VALUE my_values[KJARNI_ITEMS];\n");
    s += "    const uint32_t warp_first = warp * (32u * KJARNI_ITEMS) + lane;\n";
    if (r.split_loads) {
        // One run of loads from a source chosen once (the elements in the first pass), then the
        // first pass's transform: no branch between two loads.
        s += R"(    GLOBAL_MEM const KJARNI_KEY* tile_keys = keys + (first ? keys_offset : 0) + begin;
    #pragma unroll
    for (uint32_t k = 0; k < KJARNI_ITEMS; ++k) {
        const uint32_t q = warp_first + 32u * k;
        my_keys[k] = q < count ? tile_keys[q] : (KJARNI_KEY)~(KJARNI_KEY)0;
    }
)";
        if (v)
            s += R"(    if (first) {
        #pragma unroll
        for (uint32_t k = 0; k < KJARNI_ITEMS; ++k) my_values[k] = (KJARNI_VALUE)(begin + warp_first + 32u * k);
    } else {
        #pragma unroll
        for (uint32_t k = 0; k < KJARNI_ITEMS; ++k) {
            const uint32_t q = warp_first + 32u * k;
            my_values[k] = q < count ? values[begin + q] : (KJARNI_VALUE)0;
        }
    }
)";
        s += R"(    if (first) {
        #pragma unroll
        for (uint32_t k = 0; k < KJARNI_ITEMS; ++k)
            if (warp_first + 32u * k < count) my_keys[k] = kjarni_to_key(my_keys[k], key_kind);
    }
)";
    } else {
        s += R"(    #pragma unroll
    for (uint32_t k = 0; k < KJARNI_ITEMS; ++k) {
        const uint32_t q = warp_first + 32u * k;
        KJARNI_KEY key = (KJARNI_KEY)~(KJARNI_KEY)0;
)";
        s += if_values("        KJARNI_VALUE value = 0;\n");
        s += R"(        if (q < count) {
            key = first ? kjarni_to_key(keys[keys_offset + begin + q], key_kind) : keys[begin + q];
)";
        s += if_values("            value = first ? (KJARNI_VALUE)(begin + q) : values[begin + q];\n");
        s += R"(        }
        my_keys[k] = key;
)";
        s += if_values("        my_values[k] = value;\n");
        s += "    }\n";
    }
    // The ranking of item k in its warp: `old` (the warp's count of the digit before this item's
    // lanes, through my_hist) plus the lanes below of the same digit; `use` says what the rank is
    // for.
    const auto rank_loop = [](const std::string& use) {
        return std::string(R"(    const uint32_t lanes_below = (1u << lane) - 1u;
    #pragma unroll
    for (uint32_t k = 0; k < KJARNI_ITEMS; ++k) {
        const uint32_t d = KJARNI_DIGIT(my_keys[k], shift);
#if KJARNI_SORT_OR
        // Each lane's bit into its digit's mask; after the warp synchronizes, the mask holds the
        // lanes of that digit; the highest of them counts them and clears the mask, and the warp
        // synchronizes again before the next item's bits go in.
        KJARNI_LOCAL_OR(&my_masks[d], 1u << lane);
        KJARNI_WARP_SYNC();
        const uint32_t peers = my_masks[d];
        const uint32_t leader = KJARNI_HIGHEST(peers);
        KJARNI_WARP_SYNC();
        uint32_t old = 0;
        if (lane == leader) {
            old = my_hist[d];
            my_hist[d] = old + KJARNI_POPC(peers);
            my_masks[d] = 0;
        }
        old = KJARNI_SHFL(old, leader);
        KJARNI_WARP_SYNC();
#else
#if KJARNI_SORT_BALLOT
        // The lanes that agree with this one on each of the digit's 8 bits.
        uint32_t peers = 0xFFFFFFFFu;
#if !KJARNI_SORT_EMULATED
        #pragma unroll
#endif
        for (uint32_t b = 0; b < 8u; ++b) {
            const uint32_t bit = (d >> b) & 1u;
            const uint32_t set = KJARNI_BALLOT(bit);
            peers &= bit ? set : ~set;
        }
#else
        const uint32_t peers = KJARNI_MATCH(d);
#endif
        const uint32_t leader = KJARNI_HIGHEST(peers);
        uint32_t old = 0;
        if (lane == leader) old = KJARNI_LOCAL_ADD(&my_hist[d], KJARNI_POPC(peers));
        old = KJARNI_SHFL(old, leader);
#endif
        const uint32_t rank = old + KJARNI_POPC(peers & lanes_below);
)") + use + "    }\n";
    };
    // Step 2 (see the top of the file), between two barriers.
    const std::string digit_scan =
        R"(    // 2. Digit lid: the warps' counts into their exclusive scan, the tile's count (less the
    // padding, all digit 255), published at once for the tiles after this one.
    uint32_t tile_count = 0;
    if (lid < 256u) {
        for (uint32_t w = 0; w < KJARNI_WARPS; ++w) {
            const uint32_t c = whist[w * 256u + lid];
            whist[w * 256u + lid] = tile_count;
            tile_count += c;
        }
    }
    const uint32_t my_count = tile_count - (lid == 255u ? KJARNI_TILE - count : 0u);
    if (lid < 256u && tile != 0) KJARNI_GLOBAL_XCHG(&status[tile * 256u + lid], KJARNI_FLAG_AGGREGATE | my_count);
    // Where each digit's run starts in the sorted tile, and, tile 0, in the whole output (the
    // global histogram's exclusive scan: tile 0 starts there). One scan of both, outside any
    // branch: every work item reaches its barriers.
    uint32_t global_start = 0;
    const uint32_t run_start = kjarni_scan256(tile_count, tile == 0 && lid < 256u ? scratch[pass * 256u + lid] : 0u, lid, wsum,
                                              &global_start KJARNI_WX_ARG);
    if (tile == 0 && lid < 256u) KJARNI_GLOBAL_XCHG(&status[lid], KJARNI_FLAG_INCLUSIVE | (global_start + my_count));
    if (lid < 256u)
        for (uint32_t w = 0; w < KJARNI_WARPS; ++w) whist[w * 256u + lid] += run_start;
    LOCAL_BARRIER;
)";
    s += R"(    LOCAL_MEM uint32_t* my_hist = whist + warp * 256u;
#if KJARNI_SORT_OR
    LOCAL_MEM uint32_t* my_masks = whist + (KJARNI_WARPS + warp) * 256u;
#endif
)";
    if (r.early_counts) {
        // The warps' digit counts first (a local atomic per key), so the tile's counts are
        // published before the ranking; then each warp's histogram holds where its next key of a
        // digit goes in the sorted tile, and every key goes there as soon as it is ranked (the
        // staged tile has memory of its own).
        s += R"(    #pragma unroll
    for (uint32_t k = 0; k < KJARNI_ITEMS; ++k) KJARNI_LOCAL_INC(&my_hist[KJARNI_DIGIT(my_keys[k], shift)]);
    LOCAL_BARRIER;
)";
        s += digit_scan;
        std::string use = "        skeys[rank] = my_keys[k];\n";
        if (v) use += apart ? "        my_ranks[k] = rank;\n" : "        svalues[rank] = my_values[k];\n";
        s += rank_loop(use);
    } else {
        s += rank_loop("        my_ranks[k] = rank;\n");
        s += "    LOCAL_BARRIER;\n" + digit_scan;
        s += R"(    // 3. Ranks in the tile, then (the histograms read) the keys and values to them.
    #pragma unroll
    for (uint32_t k = 0; k < KJARNI_ITEMS; ++k) my_ranks[k] += my_hist[KJARNI_DIGIT(my_keys[k], shift)];
    LOCAL_BARRIER;
    #pragma unroll
    for (uint32_t k = 0; k < KJARNI_ITEMS; ++k) {
        skeys[my_ranks[k]] = my_keys[k];
)";
        if (!apart) s += if_values("        svalues[my_ranks[k]] = my_values[k];\n");
        s += "    }\n";
    }
    s += R"(    // 4. Decoupled look-back for digit lid: aggregates of the tiles before this one are added
    // until an inclusive prefix is met (tile 0 publishes only that). Flag and count share a word;
    // volatile loads keep the spin reading memory.
    if (lid < 256u) {
        uint32_t prefix = global_start;
        if (tile != 0) {
            uint32_t t = tile - 1;
            for (;;) {
                const uint32_t word = ((volatile GLOBAL_MEM uint32_t*)status)[t * 256u + lid];
                if (word & KJARNI_FLAG_INCLUSIVE) {
                    prefix += word & KJARNI_COUNT_MASK;
                    break;
                }
                if (word & KJARNI_FLAG_AGGREGATE) {
                    prefix += word & KJARNI_COUNT_MASK;
                    --t;
                }
            }
            KJARNI_GLOBAL_XCHG(&status[tile * 256u + lid], KJARNI_FLAG_INCLUSIVE | (prefix + my_count));
        }
        // The digit's destination less its run's start in the tile (wrapping), so that the
        // scatter reads one table.
        base[lid] = prefix - run_start;
    }
    LOCAL_BARRIER;
)";
    if (apart) {
        s += R"(    // 5. Out: position q of the sorted tile goes to its digit's base plus q; the keys first (kept
    // where they go), then the values through the same local memory.
    uint32_t my_to[KJARNI_ITEMS];
#pragma unroll
    for (uint32_t j = 0; j < KJARNI_ITEMS; ++j) {
        const uint32_t q = j * KJARNI_G + lid;
        if (q < count) {
            const KJARNI_KEY key = skeys[q];
            my_to[j] = base[KJARNI_DIGIT(key, shift)] + q;
            if (last != 2) keys_out[my_to[j]] = key;
        }
    }
    LOCAL_BARRIER;
#pragma unroll
    for (uint32_t k = 0; k < KJARNI_ITEMS; ++k) svalues[my_ranks[k]] = my_values[k];
    LOCAL_BARRIER;
#pragma unroll
    for (uint32_t j = 0; j < KJARNI_ITEMS; ++j) {
        const uint32_t q = j * KJARNI_G + lid;
        if (q < count) {
            if (last == 2) positions_out[out_offset + my_to[j]] = (int64_t)svalues[q];
            else values_out[my_to[j]] = svalues[q];
        }
    }
}
)";
        return s;
    }
    s += "    // 5. Out: position q of the sorted tile goes to its digit's base plus q.\n";
    if (!r.split_loads) s += "#pragma unroll\n";
    s += write_out_code(v, r.split_loads) + "}\n";
    return s;
}

}  // namespace kjarni::detail::onesweep
