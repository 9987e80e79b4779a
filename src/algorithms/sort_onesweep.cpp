// The onesweep LSD radix sort: 8-bit digits, key_bytes passes after one counting kernel
// (the kernels' sources: sort_onesweep_source.cpp and sort_onesweep_match.cpp).
//
// - kjarni_onesweep_histogram reads the keys once and counts the digits of every pass (local
//   atomics per work group, then global atomics): hist[pass * 256 + digit].
// - kjarni_onesweep_pass, once per digit. A work group takes the next tile (G x ITEMS consecutive
//   positions) from an atomic counter, so tiles are handed out in the order groups start and a
//   group only ever waits on a group that is already running. It
//   1. counts the tile's digits and publishes those counts at once as the tile's aggregate (flag
//      1), or, tile 0, its inclusive prefix (flag 2: the scanned global histogram plus its counts),
//      each a flag and a 30-bit count packed into one 32-bit word so that a reader never sees a
//      flag without its count;
//   2. sorts the tile stably by the digit in local memory: two 4-bit counting sorts (Rank::nibble,
//      any device) or one ranking with warp instructions (Rank::match, NVIDIA's GPUs);
//   3. looks back, one work item per digit, over the tiles before it: adds aggregates until it
//      meets an inclusive prefix (spinning while a tile has published nothing), then publishes its
//      own inclusive prefix; every tile's is published early, so chains are short;
//   4. writes the sorted tile out, consecutive work items to consecutive positions of a digit's run.
// Every pass's status words are cleared before it (a fill); the tile counters and the histogram
// once per sort.
//
// Settings read from the environment at each sort (for sweeps on the GPU; the defaults are the
// best measured): KJARNI_SORT_RANK = auto (match where the warps are native, else nibble) | match
// | nibble; KJARNI_SORT_WARP = native (the default where available) | emulated (match through
// local memory: slow, for tests); KJARNI_SORT_ITEMS = keys per work item (default: see
// default_items(); lowered to what local memory holds); KJARNI_SORT_GROUP = work items per group
// for match (a multiple of 32 from 256 to 1024; nibble always takes 256); KJARNI_SORT_VALUES =
// together | apart (match with values: the sorted tile's keys go out, then its values through the
// same local memory; the default through CUDA); KJARNI_SORT_VERBOSE = 1: the shape each sort takes
// (or why it takes the multi-pass sort) on stderr, once per shape; KJARNI_SORT_MATCH = any
// (match.any) | or (the default: lanes of equal digit found through mask words in local memory);
// KJARNI_SORT_RESIDENT = work items the match pass is compiled to keep resident per compute unit
// (whole groups of it, at least one; registers capped to fit: Shape::resident);
// KJARNI_SORT_LOAD = split (the default; match: each loop's loads in one run before their uses:
// Shape::split_loads) | fused; KJARNI_SORT_COUNTS = early (the default; match: the tile's counts
// before its ranking, keys staged as ranked: Shape::early_counts) | late; KJARNI_SORT_HIST_ITEMS
// = keys per work item of the counting kernel (default 16), KJARNI_SORT_HIST_GROUPS = its groups
// per compute unit (default 4). See apply_load_settings() for the figures behind these defaults.
// An invalid value is an ArgumentError naming the variable.

#include "algorithms/sort_onesweep.hpp"

#include <algorithm>
#include <cstdlib>
#include <mutex>
#include <set>
#include <string>
#include <utility>

#include <fmt/format.h>

#include "algorithms/device_code.hpp"
#include "algorithms/generated_kernel.hpp"
#include "algorithms/reduction_types.hpp"
#include "algorithms/sort_onesweep_source.hpp"
#include "algorithms/tuning_settings.hpp"
#include "core/context_state.hpp"
#include "kjarni/api.hpp"
#include "kjarni/context.hpp"
#include "kjarni/device.hpp"
#include "kjarni/error.hpp"
#include "kjarni/platform.hpp"
#include "kjarni/program.hpp"
#include "program/inline_ptx.hpp"

namespace kjarni::detail {

namespace {

using Kind = DType::Kind;

constexpr std::size_t max_count = (std::size_t{1} << 30) - 1;
constexpr std::size_t histogram_group = 256;  // the counting kernel's work items per group

using onesweep::Rank;
using onesweep::Shape;
using onesweep::Warp;
using namespace onesweep;  // the key kind codes

/// The kind code of `dtype`'s keys (key_functions() first, for its errors on complex and struct dtypes).
std::uint32_t key_kind_code(const DType& dtype, FloatKeys mode, const std::string& what) {
    key_functions(dtype, mode, what);
    switch (dtype.kind()) {
    case Kind::bool_: return bool_keys;
    case Kind::int8:
    case Kind::int16:
    case Kind::int32:
    case Kind::int64: return signed_keys;
    case Kind::float16:
    case Kind::float32:
    case Kind::float64: return mode == FloatKeys::exact ? float_exact : float_canonical;
    default: return keys_as_they_are;
    }
}

/// Whether the device runs warp instructions natively: 32-lane warps with match.any.sync
/// (compute capability 7.0 or later), through CUDA, or through NVIDIA's OpenCL with inline PTX
/// (`ptx` set).
bool native_warps(const Queue& queue, bool& ptx) {
    const Device device = queue.device().device();
    const auto& cc = device.properties().compute_capability;
    if (!cc || cc->major < 7 || device.params().warp_size != 32) return false;
    ptx = !is_cuda(queue.device().context());
    return takes_inline_ptx(queue.device());
}

/// Keys per work item where KJARNI_SORT_ITEMS does not say. The nibble form's 15 (odd: its
/// blocked reads, stride ITEMS words, hit distinct banks) was the best of that form measured on
/// an H200. The match form's, from bench/sort_sweep.sh on an H200 (2^28 float32 and uint32 keys,
/// lanes matched through mask words): sort 16 through CUDA (29.1 Gkeys/s; 24: 27.7) and 24 through
/// NVIDIA's OpenCL (26.4; 16: 22.9); argsort 24 with the values staged apart through CUDA (22.4;
/// 16 together: 20.6) and 16 with them together through OpenCL (19.9; 24 apart: 14.5). Those
/// were timed with fused loads and late counts; with the early counts now the default (fewer
/// registers per key), 24 for CUDA's sort and values apart for OpenCL's argsort are not yet timed.
/// Wider keys, not measured: 9.
std::size_t default_items(Rank rank, std::size_t key_bytes, std::size_t value_bytes, bool ptx) {
    if (rank == Rank::nibble) return 15;
    if (key_bytes + value_bytes > 8) return 9;
    // Keys alone: 24 through CUDA too since early counts (H200, 2^28 keys, one quiet call on
    // 2026-11-29: sort float32 / uint32 36.2 / 35.3 Gkeys/s at 24 against 32.9 / 32.8 at 16).
    if (value_bytes == 0) return 24;
    return ptx ? 16 : 24;
}

/// KJARNI_SORT_LOAD, _COUNTS, _HIST_ITEMS and _HIST_GROUPS into `r` (its rank already chosen).
/// The defaults, from bench/sort_sweep.sh on an H200 (2^28 keys, Gkeys/s of sort float32, sort
/// uint32, argsort float32, argsort uint32; single timings with a few % noise: tests ran beside
/// them; 2026-11-29): through CUDA fused loads 23.9 24.3 18.9 19.1, split with 16 keys per
/// counting work item 27.5 27.7 22.7 22.6, and early counts 29.6 30.4 21.7 23.1; through NVIDIA's
/// OpenCL 25.2 23.2 16.1 18.6, 31.7 31.7 18.2 20.8 and 37.4 36.9 22.8 22.4. Confirmed alone on
/// one H200 the same day (one call, nothing beside it): CUDA early counts 32.9 32.8 25.3 25.5 (late
/// 29.2 30.2 24.7 25.0), NVIDIA's OpenCL 39.0 39.3 24.4 24.2. Early counts for
/// CUDA's argsort too: 22.4 against late's 22.7 on average is within the noise, and one form for
/// all cases is the one the tests and sweeps cover. The counting kernel's 16 keys per work item
/// apply to the nibble form as well (not measured there: more loads in flight on any device).
void apply_load_settings(Shape& r) {
    const std::string load = tuning_setting("KJARNI_SORT_LOAD", "split");
    if (load != "fused" && load != "split")
        throw ArgumentError("KJARNI_SORT_LOAD", fmt::format("is '{}': split (the default) or fused", load));
    r.split_loads = load == "split" && r.rank == Rank::match;
    const std::string counts = tuning_setting("KJARNI_SORT_COUNTS", "early");
    if (counts != "late" && counts != "early")
        throw ArgumentError("KJARNI_SORT_COUNTS", fmt::format("is '{}': early (the default) or late", counts));
    r.early_counts = counts == "early" && r.rank == Rank::match;
    const std::size_t items = tuning_count("KJARNI_SORT_HIST_ITEMS", 64);
    r.hist_items = items != 0 ? items : 16;
    if (const std::size_t groups = tuning_count("KJARNI_SORT_HIST_GROUPS", 64); groups != 0) r.hist_groups = groups;
}

/// The pass kernel's shape on the queue's device, from the settings (see the top of the file);
/// `nibble` forces that form.
Shape configured_shape(const Queue& queue, std::size_t key_bytes, std::size_t value_bytes, bool nibble = false) {
    Shape r;
    r.key_bytes = key_bytes;
    r.value_bytes = value_bytes;
    bool ptx = false;
    const bool native = native_warps(queue, ptx);
    const std::string rank = tuning_setting("KJARNI_SORT_RANK", "auto");
    if (rank == "auto") r.rank = native ? Rank::match : Rank::nibble;
    else if (rank == "match") r.rank = Rank::match;
    else if (rank == "nibble") r.rank = Rank::nibble;
    else throw ArgumentError("KJARNI_SORT_RANK", fmt::format("is '{}': auto (the default), match or nibble", rank));
    if (nibble) r.rank = Rank::nibble;
    const std::string warp = tuning_setting("KJARNI_SORT_WARP", native ? "native" : "emulated");
    if (warp == "native") {
        if (!native && r.rank == Rank::match)
            throw ArgumentError("KJARNI_SORT_WARP",
                                "is 'native': the device has no native warps for the match ranking "
                                "(CUDA or NVIDIA's OpenCL, compute capability 7.0 or later); use emulated");
        r.warp = Warp::native;
        r.ptx = ptx;
    } else if (warp == "emulated") {
        r.warp = Warp::emulated;
    } else {
        throw ArgumentError("KJARNI_SORT_WARP", fmt::format("is '{}': native or emulated", warp));
    }
    if (r.rank == Rank::nibble) {
        // The nibble form's source does not depend on the warps; one kernel whatever they are.
        r.warp = Warp::native;
        r.ptx = false;
    }
    if (const std::size_t group = tuning_count("KJARNI_SORT_GROUP", 1024); group != 0 && r.rank == Rank::match) {
        if (group % 32 != 0 || group < 256)
            throw ArgumentError("KJARNI_SORT_GROUP", fmt::format("is {}: a multiple of 32 from 256 to 1024", group));
        r.group = group;
    }
    // Values apart by default through CUDA, together through NVIDIA's OpenCL (default_items()).
    const std::string values = tuning_setting("KJARNI_SORT_VALUES", r.ptx ? "together" : "apart");
    if (values != "together" && values != "apart")
        throw ArgumentError("KJARNI_SORT_VALUES", fmt::format("is '{}': together or apart", values));
    r.values_apart = values == "apart" && value_bytes != 0 && r.rank == Rank::match;
    // Mask words (or) by default: 29.1 against match.any's 22.0 Gkeys/s for float32 keys through
    // CUDA on an H200, 22.9 against 20.5 through NVIDIA's OpenCL (16 keys per work item); ballots
    // lost to them with early counts and split loads (apply_load_settings()): 27.1 against 29.6
    // through CUDA, 30.6 against 37.4 through NVIDIA's OpenCL.
    const std::string match = tuning_setting("KJARNI_SORT_MATCH", "or");
    if (match != "any" && match != "or" && match != "ballot")
        throw ArgumentError("KJARNI_SORT_MATCH", fmt::format("is '{}': any, or (the default) or ballot", match));
    r.or_masks = match == "or" && r.rank == Rank::match;
    r.ballot = match == "ballot" && r.rank == Rank::match;
    if (r.rank == Rank::match) r.resident = tuning_count("KJARNI_SORT_RESIDENT", 2048);
    apply_load_settings(r);
    const std::size_t asked = tuning_count("KJARNI_SORT_ITEMS", 64);
    r.items = asked != 0 ? asked : default_items(r.rank, key_bytes, value_bytes, r.ptx);
    // At most 48 KiB, CUDA's limit for static shared memory, also where the device has more (PoCL):
    // a source generated for any device then compiles for every one (the suite's NVRTC cross-check).
    const std::size_t local = std::min<std::size_t>(queue.device().params().local_mem_size, 48 * 1024);
    // The nibble form keeps ITEMS odd (its bank spread); the match form takes any count.
    const std::size_t step = r.rank == Rank::nibble && r.items % 2 == 1 ? 2 : 1;
    while (r.items > step && r.local_bytes() > local) r.items -= step;
    return r;
}

bool runs_groups_to_completion(const Queue& queue) {
    const Device device = queue.device().device();
    if (device.params().type == DeviceType::gpu) return true;
    if (is_cuda(queue.device().context())) return true;
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
OnesweepKernels kernels_for(const Queue& queue, const Shape& r) {
    Shape keys_only;
    keys_only.key_bytes = r.key_bytes;
    keys_only.items = 1;
    keys_only.hist_items = r.hist_items;
    return {generated_kernel(queue.device(), fmt::format("{} hist_items={}", keys_only.key(), r.hist_items),
                             "kjarni_onesweep_histogram", [&] { return histogram_source(keys_only); }),
            generated_kernel(
                queue.device(), r.key(), "kjarni_onesweep_pass", [&] { return pass_source(r); },
                /*allow_contraction=*/false, r.max_registers())};
}

/// configured_shape(), except that where the match form was chosen by default (KJARNI_SORT_RANK
/// unset or auto) through NVIDIA's OpenCL, a failure to compile its inline PTX (a driver that
/// would refuse asm statements) falls back to the nibble form, remembered per device and shape.
Shape shape_for(const Queue& queue, std::size_t key_bytes, std::size_t value_bytes) {
    const Shape r = configured_shape(queue, key_bytes, value_bytes);
    if (r.rank != Rank::match || !r.ptx || tuning_setting("KJARNI_SORT_RANK", "auto") != "auto") return r;
    static std::mutex mutex;
    static std::set<std::string> refused;
    const Device device = queue.device().device();
    const std::string key = fmt::format("{}/{}/{}", device.platform().name(), device.name(), r.key());
    {
        const std::lock_guard lock(mutex);
        if (refused.count(key) != 0) return configured_shape(queue, key_bytes, value_bytes, true);
    }
    try {
        kernels_for(queue, r);
        return r;
    } catch (const CompileError&) {
        const std::lock_guard lock(mutex);
        refused.insert(key);
    }
    return configured_shape(queue, key_bytes, value_bytes, true);
}

}  // namespace

namespace {

/// With KJARNI_SORT_VERBOSE=1, says on stderr (once per device and shape) which shape the sort
/// runs, or why it falls back to the multi-pass sort: a sweep's figures then name what they timed.
void report(const Queue& queue, const Shape& r, const std::string& outcome) {
    if (tuning_setting("KJARNI_SORT_VERBOSE", "0") != "1") return;
    static std::mutex mutex;
    static std::set<std::string> said;
    const Device device = queue.device().device();
    const std::string line = fmt::format("kjarni sort on {} ({}): {}: {}", device.name(),
                                         queue.device().context().api().shortcut(), r.key(), outcome);
    const std::lock_guard lock(mutex);
    if (said.insert(line).second) fmt::print(stderr, "{}\n", line);
}

}  // namespace

bool onesweep_supported(const Queue& queue, std::size_t n, std::size_t key_bytes, std::size_t value_bytes) {
    if (n > max_count || (value_bytes != 0 && value_bytes != 4 && value_bytes != 8)) return false;
    if (key_bytes != 1 && key_bytes != 2 && key_bytes != 4 && key_bytes != 8)
        return false;  // complex128: refused later
    const DeviceParameters& params = queue.device().params();
    const Shape r = shape_for(queue, key_bytes, value_bytes);
    if (params.max_total_local_size < r.group) {
        report(queue, r,
               fmt::format("multi-pass: the device takes {} work items per group", params.max_total_local_size));
        return false;
    }
    if (r.local_bytes() > params.local_mem_size) {
        report(queue, r,
               fmt::format("multi-pass: {} bytes of local memory, the device has {}", r.local_bytes(),
                           params.local_mem_size));
        return false;
    }
    if (!runs_groups_to_completion(queue)) {
        report(queue, r, "multi-pass: the device's scheduling of work groups is not known");
        return false;
    }
    // A device may take fewer work items per group for these kernels than for others (registers).
    const OnesweepKernels k = kernels_for(queue, r);
    if (k.histogram.max_local_size < histogram_group || k.pass.max_local_size < r.group) {
        report(queue, r,
               fmt::format("multi-pass: the kernels take {} and {} work items per group", k.histogram.max_local_size,
                           k.pass.max_local_size));
        return false;
    }
    report(queue, r, fmt::format("onesweep, {} bytes of local memory", r.local_bytes()));
    return true;
}

namespace {

/// The ends fused into the first and the last pass (none: keys and values in, keys and values out).
struct Ends {
    std::optional<KernelArg> input;  // the first pass makes keys of these elements, positions as values
    std::uint64_t input_offset = 0;
    std::uint32_t last = 0;  // 1: the elements from their keys into `out`; 2: the values as int64
    std::optional<KernelArg> out;
    std::uint64_t out_offset = 0;
    std::uint32_t key_kind = keys_as_they_are;  // the elements' transform to keys and back
};

RadixResult run_onesweep(const Queue& queue, const Shape& r, const std::optional<Buffer>& keys,
                         const std::optional<Buffer>& values, std::size_t n, const Ends& ends) {
    const OnesweepKernels kernels = kernels_for(queue, r);
    const GeneratedKernel& histogram = kernels.histogram;
    const GeneratedKernel& pass = kernels.pass;
    for (const auto& [k, wanted] : {std::pair{&histogram, histogram_group}, std::pair{&pass, r.group}})
        if (k->max_local_size < wanted)
            throw UnsupportedError(
                fmt::format("sort: the device takes at most {} work items per group for the onesweep "
                            "sort's kernels, it needs {}",
                            k->max_local_size, wanted));

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
        // A few groups per compute unit (hist_groups), each striding over the keys.
        const std::size_t chunk = histogram_group * r.hist_items;
        const std::size_t groups =
            std::clamp<std::size_t>(histogram.compute_units * r.hist_groups, 1, (n + chunk - 1) / chunk);
        const std::size_t global[1] = {groups * histogram_group};
        const std::size_t local[1] = {histogram_group};
        const KernelArg args[] = {input_arg, pack(input_offset, LaunchTarget{}), pack(scratch, LaunchTarget{}),
                                  pack(n32, LaunchTarget{}), pack(ends.key_kind, LaunchTarget{})};
        launch(queue, histogram, global, local, args);
    }
    const std::size_t global[1] = {tiles * r.group};
    const std::size_t local[1] = {r.group};
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

RadixResult onesweep_sort(const Queue& queue, const Buffer& keys, std::size_t key_bytes,
                          const std::optional<Buffer>& values, std::size_t value_bytes, std::size_t n) {
    if (n <= 1) return RadixResult{keys, values};
    return run_onesweep(queue, shape_for(queue, key_bytes, values ? value_bytes : 0), keys, values, n, Ends{});
}

void onesweep_sort_elements(const Queue& queue, const Array& input, const Array& out, OnesweepOutput output) {
    const std::size_t n = input.size();
    if (n == 0) return;
    const bool positions = output == OnesweepOutput::positions;
    const char* what = positions ? "argsort" : "sort";
    const FloatKeys mode = positions ? FloatKeys::canonical : FloatKeys::exact;
    const Shape r = shape_for(queue, input.dtype().itemsize(), positions ? 4 : 0);
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
