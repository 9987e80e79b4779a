// The onesweep sort's digit counting kernel and the nibble form of its pass kernel (see
// sort_onesweep.cpp for the algorithm; sort_onesweep_match.cpp for the match form of the pass).
//
// The nibble pass sorts a tile stably by the digit in local memory in two rounds of 4 bits (low
// nibble, then high), each a counting sort where work item t counts its ITEMS consecutive keys in
// its own column of a 16 x G table of 16-bit counters, the table is scanned in (nibble, work item)
// order and every key goes to its rank (the multi-pass sort's scatter, done twice in local memory;
// 8 bits at once would need a 256 x G table, more than 48 KiB). OpenCL C has no warp instructions.

#include "algorithms/sort_onesweep_source.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "algorithms/device_code.hpp"
#include "algorithms/sort_radix.hpp"
#include "kjarni/dtype.hpp"

namespace kjarni::detail::onesweep {

namespace {

using Kind = DType::Kind;

std::string renamed(std::string code, std::uint32_t kind) {
    for (const std::string name : {"kjarni_to_key(", "kjarni_from_key("}) {
        const std::string to = name.substr(0, name.size() - 1) + fmt::format("_{}(", kind);
        for (std::size_t at = code.find(name); at != std::string::npos; at = code.find(name, at + to.size()))
            code.replace(at, name.size(), to);
    }
    return code;
}

std::string key_transforms(std::size_t key_bytes) {
    const DType signed_dtype = key_bytes == 1   ? DType(Kind::int8)
                               : key_bytes == 2 ? DType(Kind::int16)
                               : key_bytes == 4 ? DType(Kind::int32)
                                                : DType(Kind::int64);
    std::string s = renamed(key_functions(signed_dtype, FloatKeys::exact, "sort"), signed_keys);
    std::string to = "        case 2: return kjarni_to_key_2(u);\n";
    std::string from = "        case 2: return kjarni_from_key_2(k);\n";
    if (key_bytes == 1) {
        s += renamed(key_functions(DType(Kind::bool_), FloatKeys::exact, "sort"), bool_keys);
        to += "        case 1: return kjarni_to_key_1(u);\n";
    } else {
        const DType float_dtype = key_bytes == 2   ? DType(Kind::float16)
                                  : key_bytes == 4 ? DType(Kind::float32)
                                                   : DType(Kind::float64);
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

}  // namespace

std::size_t Shape::local_bytes() const {
    if (rank == Rank::match) {
        // The staged tile (values 8-byte aligned) shares its memory with the warps' histograms;
        // digit bases, warp sums, the tile slot, and the emulated warps' exchange words.
        return match_smem_bytes() + 256 * 4 + 16 * 4 + 16 + (warp == Warp::emulated ? group * 4 : 0);
    }
    // staged tile, 16-bit counters (18 per work item with the padding), totals, hist/base/start.
    return tile() * (key_bytes + value_bytes) + 18 * group * 2 + group * 4 + 3 * 256 * 4 + 16;
}

std::size_t Shape::staged_bytes() const {
    const std::size_t keys = (tile() * key_bytes + 7) / 8 * 8;
    return values_apart ? std::max(keys, tile() * value_bytes) : keys + tile() * value_bytes;
}

std::string Shape::key() const {
    // hist_items only shapes the counting kernel, whose key adds it (sort_onesweep.cpp).
    return fmt::format(
        "onesweep key={} value={} items={} group={} rank={} warp={} ptx={} apart={} or={} resident={} split={} "
        "early={} ballot={}",
        key_bytes, value_bytes, items, group, rank == Rank::match ? "match" : "nibble",
        warp == Warp::native ? "native" : "emulated", ptx, values_apart, or_masks, resident, split_loads, early_counts,
        ballot);
}

std::string common_code(const Shape& r) {
    std::string s = algorithm_helpers();
    s += fmt::format("#define KJARNI_KEY {}\n#define KJARNI_VALUE {}\n", key_ctype(r.key_bytes),
                     r.value_bytes ? key_ctype(r.value_bytes) : "uint32_t");
    s += fmt::format("#define KJARNI_G {}\n#define KJARNI_ITEMS {}\n#define KJARNI_TILE {}\n#define KJARNI_PASSES {}\n",
                     r.group, r.items, r.tile(), r.passes());
    s += key_transforms(r.key_bytes);
    s += R"(#define KJARNI_DIGIT(key, shift) ((uint32_t)((key) >> (shift)) & 255u)
#ifdef KJARNI_CUDA_API
#define KJARNI_LOCAL_INC(p) atomicAdd((unsigned int*)(p), 1u)
#define KJARNI_LOCAL_ADD(p, v) atomicAdd((unsigned int*)(p), (v))
#define KJARNI_GLOBAL_ADD(p, v) atomicAdd((unsigned int*)(p), (v))
#define KJARNI_GLOBAL_XCHG(p, v) atomicExch((unsigned int*)(p), (v))
#else
#define KJARNI_LOCAL_INC(p) atomic_inc((volatile LOCAL_MEM unsigned int*)(p))
#define KJARNI_LOCAL_ADD(p, v) atomic_add((volatile LOCAL_MEM unsigned int*)(p), (v))
#define KJARNI_GLOBAL_ADD(p, v) atomic_add((volatile GLOBAL_MEM unsigned int*)(p), (v))
#define KJARNI_GLOBAL_XCHG(p, v) atomic_xchg((volatile GLOBAL_MEM unsigned int*)(p), (v))
#endif
)";
    return s;
}

std::string histogram_source(const Shape& r) {
    std::string s = common_code(r);
    if (r.hist_items > 1) {
        // Each work item loads hist_items keys of a chunk of G x hist_items positions (position
        // j * G + lid: consecutive work items read consecutive keys) in one run of loads with
        // nothing between them, so that all are in flight at once, then makes them keys and counts
        // them. Positions stay below 2^30 + one stride: no 32-bit overflow.
        s += fmt::format("#define KJARNI_HIST_ITEMS {}\n", r.hist_items);
        s +=
            R"(KERNEL void kjarni_onesweep_histogram(GLOBAL_MEM const KJARNI_KEY* keys, uint64_t keys_offset, GLOBAL_MEM uint32_t* hist,
    uint32_t n, uint32_t key_kind)
{
    LOCAL_MEM_DECL uint32_t h[KJARNI_PASSES * 256];
    const uint32_t lid = (uint32_t)get_local_id(0);
    for (uint32_t k = lid; k < KJARNI_PASSES * 256; k += KJARNI_G) h[k] = 0;
    LOCAL_BARRIER;
    GLOBAL_MEM const KJARNI_KEY* elements = keys + keys_offset;
    const uint32_t chunk = KJARNI_G * KJARNI_HIST_ITEMS;
    const uint32_t stride = (uint32_t)get_num_groups(0) * chunk;
    for (uint32_t at = (uint32_t)get_group_id(0) * chunk + lid; at < n; at += stride) {
        KJARNI_KEY raw[KJARNI_HIST_ITEMS];
        #pragma unroll
        for (uint32_t j = 0; j < KJARNI_HIST_ITEMS; ++j) {
            const uint32_t p = at + j * KJARNI_G;
            raw[j] = p < n ? elements[p] : (KJARNI_KEY)0;
        }
        #pragma unroll
        for (uint32_t j = 0; j < KJARNI_HIST_ITEMS; ++j) {
            if (at + j * KJARNI_G < n) {
                const KJARNI_KEY key = kjarni_to_key(raw[j], key_kind);
                for (uint32_t pass = 0; pass < KJARNI_PASSES; ++pass) KJARNI_LOCAL_INC(&h[pass * 256 + KJARNI_DIGIT(key, 8 * pass)]);
            }
        }
    }
    LOCAL_BARRIER;
    for (uint32_t k = lid; k < KJARNI_PASSES * 256; k += KJARNI_G)
        if (h[k] != 0) KJARNI_GLOBAL_ADD(&hist[k], h[k]);
}
)";
        return s;
    }
    s +=
        R"(KERNEL void kjarni_onesweep_histogram(GLOBAL_MEM const KJARNI_KEY* keys, uint64_t keys_offset, GLOBAL_MEM uint32_t* hist,
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

std::string pass_source(const Shape& r) {
    if (r.rank == Rank::match) return match_pass_source(r);
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
)";
    s += write_out_code(v, false) + "}\n";
    return s;
}

std::string write_out_code(bool values, bool split) {
    if (split) {
        // Every position's key (padding included: the staged tile is whole) and destination read
        // from local memory first, in one run of loads, then the stores, the last pass's choice
        // made once outside the loops: no branch between two local loads.
        std::string s = R"(    KJARNI_KEY out_keys[KJARNI_ITEMS];
    uint32_t out_to[KJARNI_ITEMS];
#pragma unroll
    for (uint32_t j = 0; j < KJARNI_ITEMS; ++j) {
        const uint32_t q = j * KJARNI_G + lid;
        out_keys[j] = skeys[q];
        out_to[j] = base[KJARNI_DIGIT(out_keys[j], shift)] + q;
    }
)";
        s += values ? R"(    if (last == 2) {
#pragma unroll
        for (uint32_t j = 0; j < KJARNI_ITEMS; ++j)
            if (j * KJARNI_G + lid < count) positions_out[out_offset + out_to[j]] = (int64_t)svalues[j * KJARNI_G + lid];
    } else {
#pragma unroll
        for (uint32_t j = 0; j < KJARNI_ITEMS; ++j) {
            if (j * KJARNI_G + lid < count) {
                keys_out[out_to[j]] = out_keys[j];
                values_out[out_to[j]] = svalues[j * KJARNI_G + lid];
            }
        }
    }
)"
                    : R"(    if (last == 1) {
#pragma unroll
        for (uint32_t j = 0; j < KJARNI_ITEMS; ++j)
            if (j * KJARNI_G + lid < count) keys_out[out_offset + out_to[j]] = kjarni_from_key(out_keys[j], key_kind);
    } else {
#pragma unroll
        for (uint32_t j = 0; j < KJARNI_ITEMS; ++j)
            if (j * KJARNI_G + lid < count) keys_out[out_to[j]] = out_keys[j];
    }
)";
        return s;
    }
    std::string s = R"(    for (uint32_t j = 0; j < KJARNI_ITEMS; ++j) {
        const uint32_t q = j * KJARNI_G + lid;
        if (q < count) {
            const KJARNI_KEY key = skeys[q];
            const uint32_t to = base[KJARNI_DIGIT(key, shift)] + q;
)";
    s += values ? R"(            if (last == 2) positions_out[out_offset + to] = (int64_t)svalues[q];
            else {
                keys_out[to] = key;
                values_out[to] = svalues[q];
            }
)"
                : R"(            if (last == 1) keys_out[out_offset + to] = kjarni_from_key(key, key_kind);
            else keys_out[to] = key;
)";
    return s + "        }\n    }\n";
}

}  // namespace kjarni::detail::onesweep
