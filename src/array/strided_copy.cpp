// The strided-copy kernel: the elements of one layout copied to another of the same shape, on one
// device, in two forms (program/cpu_forms.hpp). The GPU form gives each work item one element,
// found by a division per axis. The CPU form gives each work item one contiguous run of the
// elements in C order, found by those divisions once per row of the last axis, and walks the row
// with its two constant strides: a loop the kernel compiler vectorises (PoCL 3.1, 2 cores, 64 MiB
// float32: y = x[::2] and y = x.T were 4-6x slower than numpy in the GPU form).

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "kjarni/array.hpp"
#include "kjarni/detail/kernel_packing.hpp"
#include "kjarni/device.hpp"
#include "kjarni/device_parameters.hpp"
#include "kjarni/program.hpp"
#include "kjarni/template.hpp"
#include "program/checked_launch.hpp"
#include "program/cpu_forms.hpp"
#include "program/kernel_cache.hpp"

namespace kjarni::detail {

namespace {

// layout: [dst offset, src offset, shape..., dst strides..., src strides...], in units of T.
// element_offsets: where element e (in C order) of the layout's first `axes` axes lies in dst and
// src; every form below finds its elements (or its rows, or its planes of tiles) through it.
constexpr const char* element_offsets_source = R"(
FUNCTION INLINE void element_offsets(GLOBAL_MEM const int64_t* layout, int32_t ndim, int32_t axes, int64_t e,
                                     int64_t* d, int64_t* s)
{
    *d = layout[0];
    *s = layout[1];
    for (int32_t k = axes - 1; k >= 0; --k) {
        const int64_t extent = layout[2 + k];
        const int64_t i = e % extent;
        e /= extent;
        *d += i * layout[2 + ndim + k];
        *s += i * layout[2 + 2 * ndim + k];
    }
}
)";

constexpr const char* strided_copy_source = R"(
KERNEL void strided_copy(GLOBAL_MEM ${T}* dst, GLOBAL_MEM const ${T}* src, GLOBAL_MEM const int64_t* layout,
                         int32_t ndim, int32_t chunks, uint32_t n)
{
    const SIZE_T gid = get_global_id(0);
    if (gid >= n) return;
    int64_t d, s;
    element_offsets(layout, ndim, ndim, (int64_t)gid, &d, &s);
    for (int32_t c = 0; c < chunks; ++c) dst[d + c] = src[s + c];
}
)";

// The CPU form: work item g copies elements [g * run, (g + 1) * run) of n; ${CHUNKS} units of T an
// element, known when compiled so that the row loop has nothing else in it. The commonest steps
// along a row (an element after another in both layouts, or every second or third one in one of
// them: x[::2] into a contiguous array) have loops of their own with the steps known when compiled,
// which the kernel compiler vectorises (loads of a few vectors and shuffles); with steps read at
// run time it copies element by element (PoCL 3.1, 2 cores, y[:n/2] = x[::2] of 4 MiB of float32:
// 0.167 against 0.094 ms). With KJ_STREAM defined (cpu_values_source: copies touching more bytes
// than half the device's cache, in units of 4 or 8 bytes, one unit an item), rows of every or every
// second source element into a contiguous destination store whole 64-byte lines (KJ_W units, one
// KJ_VEC) past the cache (non-temporal stores, OpenCL C through clang), so that a store is no read
// of the line first, as the expressions' CPU form does (algorithms/expression_eval.cpp).
constexpr const char* strided_copy_runs_source = R"(
#define KJ_COPY_ROW(DST_STEP, SRC_STEP)                                                          \
    for (int64_t j = 0; j < count; ++j) {                                                      \
        for (int32_t c = 0; c < ${CHUNKS}; ++c) dst[d + j * (DST_STEP) + c] = src[s + j * (SRC_STEP) + c]; \
    }
#if defined(KJ_STREAM) && defined(__OPENCL_VERSION__) && defined(__clang__)
#define KJ_STREAM_ROW(SRC_STEP, LINE)                                                            \
    {                                                                                          \
        int64_t j = 0;                                                                         \
        for (; j < count && ((uint64_t)(dst + d + j) & 63) != 0; ++j) dst[d + j] = src[s + j * (SRC_STEP)]; \
        for (; count - j >= KJ_W; j += KJ_W) {                                                 \
            GLOBAL_MEM const ${T}* kj_from = src + s + j * (SRC_STEP);                          \
            __builtin_nontemporal_store((LINE), (GLOBAL_MEM KJ_VEC*)(dst + d + j));             \
        }                                                                                      \
        for (; j < count; ++j) dst[d + j] = src[s + j * (SRC_STEP)];                           \
    }
#define KJ_LINE_1 KJ_VLOAD(0, kj_from)
#define KJ_LINE_2 ((KJ_VEC)(KJ_VLOAD(0, kj_from).even, KJ_VLOAD(0, kj_from + KJ_W).even))
#else
#define KJ_STREAM_ROW(SRC_STEP, LINE) KJ_COPY_ROW(unit, SRC_STEP)
#endif
KERNEL void strided_copy_runs(GLOBAL_MEM ${T}* dst, GLOBAL_MEM const ${T}* src, GLOBAL_MEM const int64_t* layout,
                              int32_t ndim, int64_t n, int64_t run)
{
    const int64_t first = (int64_t)get_global_id(0) * run;
    const int64_t end = first + run < n ? first + run : n;
    const int64_t row = layout[2 + ndim - 1];
    const int64_t dst_step = layout[2 + 2 * ndim - 1];
    const int64_t src_step = layout[2 + 3 * ndim - 1];
    const int64_t unit = ${CHUNKS};
    for (int64_t e = first; e < end;) {
        int64_t d, s;
        element_offsets(layout, ndim, ndim, e, &d, &s);
        const int64_t left_in_row = row - e % row;
        const int64_t count = end - e < left_in_row ? end - e : left_in_row;
        if (dst_step == unit && src_step == unit) {
            KJ_STREAM_ROW(unit, KJ_LINE_1)
        } else if (dst_step == unit && src_step == 2 * unit) {
            KJ_STREAM_ROW(2 * unit, KJ_LINE_2)
        } else if (dst_step == unit && src_step == 3 * unit) {
            KJ_COPY_ROW(unit, 3 * unit)
        } else if (dst_step == 2 * unit && src_step == unit) {
            KJ_COPY_ROW(2 * unit, unit)
        } else {
            KJ_COPY_ROW(dst_step, src_step)
        }
        e += count;
    }
}
)";

// The CPU form for a transpose-like copy, where one layout walks the last axis (B) with a longer
// stride than the axis before it (A): rows of B would touch a new page at every element of that
// layout. The (A, B) planes are cut into tiles of ${TILE} x ${TILE} elements, a run of tiles per work
// item; within a tile both layouts stay on ${TILE} pages and lines at most.
constexpr const char* strided_copy_tiles_source = R"(
KERNEL void strided_copy_tiles(GLOBAL_MEM ${T}* dst, GLOBAL_MEM const ${T}* src, GLOBAL_MEM const int64_t* layout,
                               int32_t ndim, int64_t tiles, int64_t run)
{
    const int64_t first = (int64_t)get_global_id(0) * run;
    const int64_t end = first + run < tiles ? first + run : tiles;
    const int64_t rows = layout[2 + ndim - 2];
    const int64_t cols = layout[2 + ndim - 1];
    const int64_t tiles_across = (cols + ${TILE} - 1) / ${TILE};
    const int64_t tiles_in_plane = (rows + ${TILE} - 1) / ${TILE} * tiles_across;
    const int64_t dst_row = layout[2 + 2 * ndim - 2];
    const int64_t dst_col = layout[2 + 2 * ndim - 1];
    const int64_t src_row = layout[2 + 3 * ndim - 2];
    const int64_t src_col = layout[2 + 3 * ndim - 1];
    for (int64_t t = first; t < end; ++t) {
        const int64_t in_plane = t % tiles_in_plane;
        const int64_t r0 = in_plane / tiles_across * ${TILE};
        const int64_t c0 = in_plane % tiles_across * ${TILE};
        int64_t d, s;
        element_offsets(layout, ndim, ndim - 2, t / tiles_in_plane, &d, &s);
        const int64_t r_end = r0 + ${TILE} < rows ? r0 + ${TILE} : rows;
        const int64_t c_end = c0 + ${TILE} < cols ? c0 + ${TILE} : cols;
        for (int64_t r = r0; r < r_end; ++r) {
            for (int64_t c = c0; c < c_end; ++c) {
                for (int32_t u = 0; u < ${CHUNKS}; ++u)
                    dst[d + r * dst_row + c * dst_col + u] = src[s + r * src_row + c * src_col + u];
            }
        }
    }
}
)";

/// Elements along each side of a tile of strided_copy_tiles.
constexpr std::int64_t copy_tile = 32;

/// The fewest elements worth a CPU work item of their own (64 KiB of float32).
constexpr std::size_t cpu_min_run = 16384;

struct CopyAxes {
    std::vector<std::int64_t> shape, dst, src;  // strides in units of the chunk
};

/// The axes of the copy without those of extent 1, and with each pair of neighbours merged where
/// both layouts step over the outer one as over a whole row of the inner one (a C-contiguous
/// stretch of both): fewer divisions per element, longer rows.
CopyAxes merged_axes(const Layout& dst, const Layout& src, std::int64_t chunk) {
    CopyAxes axes;
    for (std::size_t k = 0; k < dst.ndim(); ++k) {
        if (dst.shape[k] == 1) continue;
        const auto extent = static_cast<std::int64_t>(dst.shape[k]);
        const std::int64_t d = dst.strides[k] / chunk, s = src.strides[k] / chunk;
        if (!axes.shape.empty() && axes.dst.back() == d * extent && axes.src.back() == s * extent) {
            axes.shape.back() *= extent;
            axes.dst.back() = d;
            axes.src.back() = s;
            continue;
        }
        axes.shape.push_back(extent);
        axes.dst.push_back(d);
        axes.src.push_back(s);
    }
    if (axes.shape.empty()) axes = CopyAxes{{1}, {0}, {0}};  // one element
    return axes;
}

/// Axes whose layout the CPU forms take in their arguments (2 + 3 * this int64 values, unused
/// ones 0): a copy of no more axes, after merging, enqueues its kernel and nothing else. More axes
/// go through a table in device memory, written before the kernel.
constexpr std::size_t cpu_value_axes = 4;
constexpr std::size_t cpu_value_count = 2 + 3 * cpu_value_axes;

enum class CpuFormKernel { runs, tiles };

const char* cpu_kernel_name(CpuFormKernel form) {
    return form == CpuFormKernel::runs ? "strided_copy_runs" : "strided_copy_tiles";
}

void replace_all(std::string& text, std::string_view from, std::string_view to) {
    for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
        text.replace(at, from.size(), to);
}

/// The source of a CPU form over the layout in its arguments: the table form's kernel as a
/// function over a private array (the table's parameters lose GLOBAL_MEM), and a kernel
/// <name>_values that fills the array from its arguments and calls it. Rendered here, not as a
/// template: it is made once per context, device, type and form (program/kernel_cache.hpp).
std::string cpu_values_source(CpuFormKernel form, const char* type, std::int32_t chunks, bool stream) {
    const std::string name = cpu_kernel_name(form);
    std::string text;
    if (stream) {
        const bool wide = std::string_view(type) == "uint64_t";
        text = fmt::format("#define KJ_STREAM 1\n#define KJ_VEC {}\n#define KJ_VLOAD {}\n#define KJ_W {}\n",
                           wide ? "ulong8" : "uint16", wide ? "vload8" : "vload16", wide ? 8 : 16);
    }
    text += std::string(element_offsets_source) +
            (form == CpuFormKernel::runs ? strided_copy_runs_source : strided_copy_tiles_source);
    replace_all(text, "GLOBAL_MEM const int64_t* layout", "const int64_t* layout");
    replace_all(text, "KERNEL void " + name + "(", "FUNCTION INLINE void " + name + "(");
    replace_all(text, "${T}", type);
    replace_all(text, "${CHUNKS}", std::to_string(chunks));
    replace_all(text, "${TILE}", std::to_string(copy_tile));
    text += fmt::format("KERNEL void {0}_values(GLOBAL_MEM {1}* dst, GLOBAL_MEM const {1}* src, int32_t ndim, "
                        "int64_t count, int64_t run",
                        name, type);
    std::string listed;
    for (std::size_t k = 0; k < cpu_value_count; ++k) {
        text += fmt::format(", int64_t v{}", k);
        listed += fmt::format("{}v{}", k == 0 ? "" : ", ", k);
    }
    text +=
        fmt::format(")\n{{\n    const int64_t layout[{}] = {{{}}};\n    {}(dst, src, layout, ndim, count, run);\n}}\n",
                    cpu_value_count, listed, name);
    return text;
}

}  // namespace

void strided_copy(const Queue& queue, const Buffer& dst_base, const Layout& dst, const Buffer& src_base,
                  const Layout& src, std::size_t itemsize) {
    const std::size_t n = dst.size();
    if (n == 0) return;
    if (n > 0xffffffffu) throw UnsupportedError("strided copies of more than 2^32 - 1 elements");
    // The widest unit (up to 8 bytes) dividing the itemsize, every stride and both offsets.
    std::size_t chunk = 8;
    auto divides = [&](std::size_t c) {
        if (itemsize % c != 0 || dst.offset % c != 0 || src.offset % c != 0) return false;
        for (std::size_t k = 0; k < dst.ndim(); ++k) {
            if (dst.strides[k] % static_cast<std::ptrdiff_t>(c) != 0 ||
                src.strides[k] % static_cast<std::ptrdiff_t>(c) != 0)
                return false;
        }
        return true;
    };
    while (chunk > 1 && !divides(chunk)) chunk /= 2;
    const char* type = chunk == 8 ? "uint64_t" : chunk == 4 ? "uint32_t" : chunk == 2 ? "uint16_t" : "uint8_t";
    const auto c = static_cast<std::int64_t>(chunk);
    const CopyAxes axes = merged_axes(dst, src, c);
    const std::size_t ndim = axes.shape.size();
    std::vector<std::int64_t> table{static_cast<std::int64_t>(dst.offset) / c,
                                    static_cast<std::int64_t>(src.offset) / c};
    table.insert(table.end(), axes.shape.begin(), axes.shape.end());
    table.insert(table.end(), axes.dst.begin(), axes.dst.end());
    table.insert(table.end(), axes.src.begin(), axes.src.end());
    const auto chunks = static_cast<std::int32_t>(itemsize / chunk);
    const std::size_t units = std::max<std::size_t>(queue.device().params().compute_units, 1);
    const std::size_t items = std::clamp<std::size_t>((n + cpu_min_run - 1) / cpu_min_run, 1, units * 8);
    const auto magnitude = [](std::int64_t stride) { return stride < 0 ? -stride : stride; };
    const bool transposing = ndim >= 2 && (magnitude(axes.dst[ndim - 1]) > magnitude(axes.dst[ndim - 2]) ||
                                           magnitude(axes.src[ndim - 1]) > magnitude(axes.src[ndim - 2]));
    // The CPU forms' work: tiles of a transpose, else elements.
    std::size_t count = n;
    if (transposing) {
        const auto rows = static_cast<std::size_t>(axes.shape[ndim - 2]);
        const auto cols = static_cast<std::size_t>(axes.shape[ndim - 1]);
        const auto tile = static_cast<std::size_t>(copy_tile);
        count = n / (rows * cols) * ((rows + tile - 1) / tile) * ((cols + tile - 1) / tile);
    }
    const std::size_t run = (count + items - 1) / items;
    if (cpu_code(queue.device()) && ndim <= cpu_value_axes) {
        const CpuFormKernel form = transposing ? CpuFormKernel::tiles : CpuFormKernel::runs;
        // Streaming stores where the copy touches more bytes than half the device's cache (see the
        // runs' source): the destination's, and the source's lines along its rows (every line for
        // steps of a line or more).
        const auto& cache = queue.device().device().properties().l2_cache_size;
        const auto line_units = static_cast<std::int64_t>(64 / chunk);
        const std::size_t touched =
            n * itemsize * static_cast<std::size_t>(1 + std::min(magnitude(axes.src[ndim - 1]), line_units));
        const bool stream =
            form == CpuFormKernel::runs && chunks == 1 && (chunk == 4 || chunk == 8) && cache && touched > *cache / 2;
        const auto kernel = cached_kernel(queue.device(),
                                          fmt::format("strided_copy {} T={} CHUNKS={} STREAM={}", cpu_kernel_name(form),
                                                      type, chunks, stream),
                                          fmt::format("{}_values", cpu_kernel_name(form)),
                                          [&] { return cpu_values_source(form, type, chunks, stream); });
        std::int64_t values[cpu_value_count] = {};
        std::copy(table.begin(), table.end(), values);
        const auto ndim32 = static_cast<std::int32_t>(ndim);
        const auto count64 = static_cast<std::int64_t>(count), run64 = static_cast<std::int64_t>(run);
        std::vector<KernelArg> args{pack_buffer_region(dst_base, dst_base.offset(), dst_base.size()),
                                    pack_buffer_region(src_base, src_base.offset(), src_base.size()),
                                    pack_bytes(&ndim32, sizeof ndim32), pack_bytes(&count64, sizeof count64),
                                    pack_bytes(&run64, sizeof run64)};
        for (const std::int64_t& v : values) args.push_back(pack_bytes(&v, sizeof v));
        const std::size_t global[1] = {(count + run - 1) / run};
        const std::size_t local[1] = {1};
        check_sizes(kernel->checked, 1, global, local);
        launch_checked(kernel->checked, queue, 1, global, local, 0, args, false, kernel);
        // (any staging buffer of the caller must outlive the kernel)
        queue.synchronize();
        return;
    }
    const Buffer table_buffer = Buffer::allocate(queue.device(), table.size() * sizeof(std::int64_t));
    table_buffer.set(queue, std::span<const std::int64_t>(table), false);
    // Identical sources hit the context's compiled-program cache.
    if (cpu_code(queue.device()) && transposing) {
        const std::size_t tiles = count;
        const Program program(queue.device(),
                              TemplateSource{std::string(element_offsets_source) + strided_copy_tiles_source}, {},
                              {{"T", type}, {"CHUNKS", std::to_string(chunks)}, {"TILE", std::to_string(copy_tile)}});
        program.kernel("strided_copy_tiles")(queue, {(tiles + run - 1) / run}, std::vector<std::size_t>{1}, dst_base,
                                             src_base, table_buffer, static_cast<std::int32_t>(ndim),
                                             static_cast<std::int64_t>(tiles), static_cast<std::int64_t>(run));
    } else if (cpu_code(queue.device())) {
        const Program program(queue.device(),
                              TemplateSource{std::string(element_offsets_source) + strided_copy_runs_source}, {},
                              {{"T", type}, {"CHUNKS", std::to_string(chunks)}});
        program.kernel("strided_copy_runs")(queue, {(n + run - 1) / run}, std::vector<std::size_t>{1}, dst_base,
                                            src_base, table_buffer, static_cast<std::int32_t>(ndim),
                                            static_cast<std::int64_t>(n), static_cast<std::int64_t>(run));
    } else {
        const Program program(queue.device(), TemplateSource{std::string(element_offsets_source) + strided_copy_source},
                              {}, {{"T", type}});
        const std::size_t global = (n + 63) / 64 * 64;
        program.kernel("strided_copy")(queue, {global}, std::nullopt, dst_base, src_base, table_buffer,
                                       static_cast<std::int32_t>(ndim), chunks, static_cast<std::uint32_t>(n));
    }
    // The table (and any staging buffer of the caller) must outlive the kernel.
    queue.synchronize();
}

}  // namespace kjarni::detail
