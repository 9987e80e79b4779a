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
#include <vector>

#include "kjarni/array.hpp"
#include "kjarni/device_parameters.hpp"
#include "kjarni/program.hpp"
#include "kjarni/template.hpp"
#include "program/cpu_forms.hpp"

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
// 0.167 against 0.094 ms).
constexpr const char* strided_copy_runs_source = R"(
#define KJ_COPY_ROW(DST_STEP, SRC_STEP)                                                          \
    for (int64_t j = 0; j < count; ++j) {                                                      \
        for (int32_t c = 0; c < ${CHUNKS}; ++c) dst[d + j * (DST_STEP) + c] = src[s + j * (SRC_STEP) + c]; \
    }
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
            KJ_COPY_ROW(unit, unit)
        } else if (dst_step == unit && src_step == 2 * unit) {
            KJ_COPY_ROW(unit, 2 * unit)
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
    const Buffer table_buffer = Buffer::allocate(queue.device(), table.size() * sizeof(std::int64_t));
    table_buffer.set(queue, std::span<const std::int64_t>(table), false);
    const auto chunks = static_cast<std::int32_t>(itemsize / chunk);
    // Identical sources hit the context's compiled-program cache.
    const std::size_t units = std::max<std::size_t>(queue.device().params().compute_units, 1);
    const std::size_t items = std::clamp<std::size_t>((n + cpu_min_run - 1) / cpu_min_run, 1, units * 8);
    const auto magnitude = [](std::int64_t stride) { return stride < 0 ? -stride : stride; };
    const bool transposing = ndim >= 2 && (magnitude(axes.dst[ndim - 1]) > magnitude(axes.dst[ndim - 2]) ||
                                           magnitude(axes.src[ndim - 1]) > magnitude(axes.src[ndim - 2]));
    if (cpu_code(queue.device()) && transposing) {
        const auto rows = static_cast<std::size_t>(axes.shape[ndim - 2]);
        const auto cols = static_cast<std::size_t>(axes.shape[ndim - 1]);
        const auto tile = static_cast<std::size_t>(copy_tile);
        const std::size_t tiles = n / (rows * cols) * ((rows + tile - 1) / tile) * ((cols + tile - 1) / tile);
        const std::size_t run = (tiles + items - 1) / items;
        const Program program(queue.device(),
                              TemplateSource{std::string(element_offsets_source) + strided_copy_tiles_source}, {},
                              {{"T", type}, {"CHUNKS", std::to_string(chunks)}, {"TILE", std::to_string(copy_tile)}});
        program.kernel("strided_copy_tiles")(queue, {(tiles + run - 1) / run}, std::vector<std::size_t>{1}, dst_base,
                                             src_base, table_buffer, static_cast<std::int32_t>(ndim),
                                             static_cast<std::int64_t>(tiles), static_cast<std::int64_t>(run));
    } else if (cpu_code(queue.device())) {
        const std::size_t run = (n + items - 1) / items;
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
