// The source of kjarni's GEMM kernel (gemm_kernel.hpp), written out for one set of parameters: the
// micro-tile's registers and its outer products are generated as straight-line code, so that no
// compiler has to be trusted to keep an indexed private array in registers.

#include "blas/gemm_kernel.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "blas/gemm_tensor.hpp"
#include "kjarni/device_parameters.hpp"

namespace kjarni::blas::detail {

namespace {

/// The vector type of `width` elements ("float4"), or the scalar type for 1.
std::string gemm_vector_type(const std::string& real, std::size_t width) {
    return width == 1 ? real : fmt::format("{}{}", real, width);
}

/// Component `v` of a vector of `width` elements named `name`.
std::string gemm_component(const std::string& name, std::size_t width, std::size_t v) {
    if (width == 1) return name;
    static constexpr const char* components[] = {"x", "y", "z", "w"};
    return fmt::format("{}.{}", name, components[v]);
}

/// One operand's copy of a K slice into local memory. The local tile is `local[p * ld_local + r]`
/// for p < KWG and r < `extent` (MWG or NWG). `contiguous_r`: the operand's elements of one p are
/// adjacent in global memory (A not transposed, B transposed); otherwise those of one r are.
/// `pointer`, `ld`: the operand's matrix and leading dimension; `origin`: the tile's first r;
/// `limit`: the problem's extent along r (m or n).
std::string gemm_load_code(const GemmTiles& t, const std::string& real, bool aligned, bool contiguous_r,
                           std::size_t extent, std::size_t ld_local, const std::string& local,
                           const std::string& pointer, const std::string& ld, const std::string& origin,
                           const std::string& limit) {
    const std::size_t threads = t.mdimc * t.ndimc;
    const std::size_t width = aligned ? t.vwg : 1;
    const std::size_t vectors = extent * t.kwg / width;
    const std::size_t per_thread = vectors / threads;
    // Vectors run along the contiguous axis, `across` of them per line of the other axis.
    const std::size_t across = contiguous_r ? extent / width : t.kwg / width;
    std::string code;
    for (std::size_t l = 0; l < per_thread; ++l) {
        code += "    {\n";
        code += fmt::format("        const int e = tid + {};\n", l * threads);
        if (contiguous_r) {
            code += fmt::format("        const int r = (e % {}) * {};\n        const int p = e / {};\n", across, width,
                                across);
        } else {
            code += fmt::format("        const int p = (e % {}) * {};\n        const int r = e / {};\n", across, width,
                                across);
        }
        const std::string address = contiguous_r ? fmt::format("({} + r) + (int64_t)(k0 + p) * {}", origin, ld)
                                                 : fmt::format("(k0 + p) + (int64_t)({} + r) * {}", origin, ld);
        if (aligned) {
            const std::string vtype = gemm_vector_type(real, width);
            code +=
                fmt::format("        const {} v = *(const GLOBAL_MEM {}*)({} + {});\n", vtype, vtype, pointer, address);
            for (std::size_t w = 0; w < width; ++w) {
                const std::string slot = contiguous_r ? fmt::format("p * {} + r + {}", ld_local, w)
                                                      : fmt::format("(p + {}) * {} + r", w, ld_local);
                code += fmt::format("        {}[{}] = {};\n", local, slot, gemm_component("v", width, w));
            }
        } else {
            code += fmt::format("        {}[p * {} + r] = ({} + r < {} && k0 + p < k) ? {}[{}] : ({})0;\n", local,
                                ld_local, origin, limit, pointer, address, real);
        }
        code += "    }\n";
    }
    return code;
}

}  // namespace

std::string GemmTiles::describe() const {
    if (form == 1)
        return fmt::format("FORM=1 MWG={} NWG={} KWG={} WARPSM={} WARPSN={} VWG={} MMAM={}{}{}{}{}{}", mwg, nwg, kwg,
                           warps_m, warps_n, vwg, mma_m, buffers == 2 ? "" : fmt::format(" BUFFERS={}", buffers),
                           mma_k == 4 ? "" : fmt::format(" MMAK={}", mma_k),
                           swizzle == 0 ? "" : fmt::format(" SWIZZLE={}", swizzle),
                           async_copy == 0 ? "" : fmt::format(" ASYNC={}", async_copy),
                           pipeline == 0 ? "" : fmt::format(" PIPELINE={}", pipeline));
    if (form != 0) return fmt::format("FORM={} (unknown)", form);
    return fmt::format("MWG={} NWG={} KWG={} MDIMC={} NDIMC={} VWM={} VWN={} VWG={}", mwg, nwg, kwg, mdimc, ndimc, vwm,
                       vwn, vwg);
}

GemmTiles default_gemm_tiles() { return GemmTiles{}; }

GemmTiles default_gemm_tensor_tiles(bool m16) {
    GemmTiles t;
    t.mma_m = m16 ? 16 : 8;
    t.form = 1;
    t.mwg = t.nwg = 64;
    t.kwg = 16;
    t.warps_m = t.warps_n = 2;
    t.vwg = 2;
    return t;
}

std::size_t gemm_group_size(const GemmTiles& tiles) {
    return tiles.form == 1 ? 32 * tiles.warps_m * tiles.warps_n : tiles.mdimc * tiles.ndimc;
}

std::string gemm_tiles_problem(const GemmTiles& t, DType::Kind kind, const DeviceParameters& limits) {
    if (t.form == 1) return gemm_tensor_tiles_problem(t, kind, limits);
    if (t.form != 0) return "FORM is 0 (SIMT) or 1 (tensor cores)";
    const std::size_t size = kind == DType::Kind::float64 ? 8 : 4;
    const std::size_t threads = t.mdimc * t.ndimc;
    for (const std::size_t w : {t.vwm, t.vwn, t.vwg})
        if (w != 1 && w != 2 && w != 4) return "vector widths are 1, 2 or 4";
    if (std::max({t.vwm, t.vwn, t.vwg}) * size > 16) return "vectors of more than 16 bytes";
    if (!gemm_divides(t.mwg, t.mdimc * t.vwm)) return "MWG is not a multiple of MDIMC * VWM";
    if (!gemm_divides(t.nwg, t.ndimc * t.vwn)) return "NWG is not a multiple of NDIMC * VWN";
    if (!gemm_divides(t.mwg, t.vwg) || !gemm_divides(t.nwg, t.vwg) || !gemm_divides(t.kwg, t.vwg))
        return "MWG, NWG and KWG must be multiples of VWG";
    if (!gemm_divides(t.mwg * t.kwg / t.vwg, threads) || !gemm_divides(t.nwg * t.kwg / t.vwg, threads))
        return "the slices of A and B do not share evenly among the work items";
    if ((t.mwg / t.mdimc) * (t.nwg / t.ndimc) > 256) return "more than 256 accumulators per work item";
    if (threads > limits.max_total_local_size) return "more work items than the device's work-group";
    if (limits.max_local_sizes.size() >= 2 &&
        (t.mdimc > limits.max_local_sizes[0] || t.ndimc > limits.max_local_sizes[1]))
        return "MDIMC or NDIMC beyond the device's local size";
    const std::size_t local = (t.kwg * (t.mwg + t.vwm) + t.kwg * (t.nwg + t.vwn)) * size + 32;
    if (local > limits.local_mem_size) return "more local memory than the device has";
    return "";
}

std::string gemm_kernel_source(const GemmTiles& t, DType::Kind kind, bool transpose_a, bool transpose_b, bool aligned,
                               bool native_mma) {
    if (t.form == 1) return gemm_tensor_source(t, transpose_a, transpose_b, aligned, native_mma);
    const std::string real = kind == DType::Kind::float64 ? "double" : "float";
    const std::size_t tm = t.mwg / t.mdimc;  // the micro-tile: rows
    const std::size_t tn = t.nwg / t.ndimc;  // and columns
    // Local rows are padded by a vector so that the transposed stores of a slice spread over banks
    // while the vector reads stay aligned.
    const std::size_t lda_local = t.mwg + t.vwm;
    const std::size_t ldb_local = t.nwg + t.vwn;
    const std::string vec16 = real == "double" ? "double2" : "float4";
    const std::size_t per16 = real == "double" ? 2 : 4;
    const std::size_t a_words = (t.kwg * lda_local + per16 - 1) / per16;
    const std::size_t b_words = (t.kwg * ldb_local + per16 - 1) / per16;

    std::string s;
    s += fmt::format("// kjarni GEMM: {} {}{} {}\n", real, transpose_a ? "T" : "N", transpose_b ? "T" : "N",
                     aligned ? "aligned" : "bounds-checked");
    // OpenCL's fma is overloaded; CUDA's C fma takes doubles, fmaf floats.
    s += fmt::format("#ifdef KJARNI_CUDA_API\n#define KJARNI_GEMM_FMA {}\n#else\n#define KJARNI_GEMM_FMA fma\n#endif\n",
                     real == "double" ? "fma" : "fmaf");
    s += "KERNEL void kjarni_gemm(\n";
    s += fmt::format("    GLOBAL_MEM const {0}* A, int64_t a_offset, int64_t lda, int64_t a_stride,\n"
                     "    GLOBAL_MEM const {0}* B, int64_t b_offset, int64_t ldb, int64_t b_stride,\n"
                     "    GLOBAL_MEM {0}* C, int64_t c_offset, int64_t ldc, int64_t c_stride,\n"
                     "    int m, int n, int k, {0} alpha, {0} beta)\n{{\n",
                     real);
    // Local memory declared as 16-byte vectors: aligned for the vector reads.
    s += fmt::format("    LOCAL_MEM_DECL {} a_words[{}];\n    LOCAL_MEM_DECL {} b_words[{}];\n", vec16, a_words, vec16,
                     b_words);
    s += fmt::format("    LOCAL_MEM {0}* a_local = (LOCAL_MEM {0}*)a_words;\n"
                     "    LOCAL_MEM {0}* b_local = (LOCAL_MEM {0}*)b_words;\n",
                     real);
    s +=
        fmt::format("    const int tx = (int)get_local_id(0);\n    const int ty = (int)get_local_id(1);\n"
                    "    const int tid = tx + ty * {};\n"
                    "    const int row0 = (int)get_group_id(0) * {};\n    const int col0 = (int)get_group_id(1) * {};\n"
                    "    const int64_t batch = (int64_t)get_group_id(2);\n",
                    t.mdimc, t.mwg, t.nwg);
    s += "    A += a_offset + batch * a_stride;\n    B += b_offset + batch * b_stride;\n"
         "    C += c_offset + batch * c_stride;\n";
    for (std::size_t i = 0; i < tm; ++i)
        for (std::size_t j = 0; j < tn; ++j) s += fmt::format("    {} c_{}_{} = 0;\n", real, i, j);

    s += fmt::format("    for (int k0 = 0; k0 < k; k0 += {}) {{\n", t.kwg);
    s += gemm_load_code(t, real, aligned, !transpose_a, t.mwg, lda_local, "a_local", "A", "lda", "row0", "m");
    s += gemm_load_code(t, real, aligned, transpose_b, t.nwg, ldb_local, "b_local", "B", "ldb", "col0", "n");
    s += "    LOCAL_BARRIER;\n";
    s += "#pragma unroll\n";
    s += fmt::format("    for (int p = 0; p < {}; ++p) {{\n", t.kwg);
    const std::string vm = gemm_vector_type(real, t.vwm);
    const std::string vn = gemm_vector_type(real, t.vwn);
    for (std::size_t c = 0; c < tm / t.vwm; ++c)
        s += fmt::format(
            "        const {0} av{1} = *(LOCAL_MEM const {0}*)(a_local + p * {2} + ({1} * {3} + tx) * {4});\n", vm, c,
            lda_local, t.mdimc, t.vwm);
    for (std::size_t d = 0; d < tn / t.vwn; ++d)
        s += fmt::format(
            "        const {0} bv{1} = *(LOCAL_MEM const {0}*)(b_local + p * {2} + ({1} * {3} + ty) * {4});\n", vn, d,
            ldb_local, t.ndimc, t.vwn);
    for (std::size_t i = 0; i < tm; ++i) {
        const std::string a = gemm_component(fmt::format("av{}", i / t.vwm), t.vwm, i % t.vwm);
        for (std::size_t j = 0; j < tn; ++j) {
            const std::string b = gemm_component(fmt::format("bv{}", j / t.vwn), t.vwn, j % t.vwn);
            s += fmt::format("        c_{0}_{1} = KJARNI_GEMM_FMA({2}, {3}, c_{0}_{1});\n", i, j, a, b);
        }
    }
    s += "    }\n    LOCAL_BARRIER;\n    }\n";

    // The results: row (i / VWM * MDIMC + tx) * VWM + i % VWM of the tile, and likewise for columns.
    for (std::size_t i = 0; i < tm; ++i)
        s += fmt::format("    const int out_row{} = row0 + ({} * {} + tx) * {} + {};\n", i, i / t.vwm, t.mdimc, t.vwm,
                         i % t.vwm);
    for (std::size_t j = 0; j < tn; ++j)
        s += fmt::format("    const int out_col{} = col0 + ({} * {} + ty) * {} + {};\n", j, j / t.vwn, t.ndimc, t.vwn,
                         j % t.vwn);
    for (const bool read_c : {false, true}) {
        s += read_c ? "    } else {\n" : "    if (beta == 0) {\n";
        for (std::size_t j = 0; j < tn; ++j) {
            for (std::size_t i = 0; i < tm; ++i) {
                const std::string target = fmt::format("C[out_row{} + (int64_t)out_col{} * ldc]", i, j);
                const std::string value = read_c ? fmt::format("alpha * c_{}_{} + beta * {}", i, j, target)
                                                 : fmt::format("alpha * c_{}_{}", i, j);
                if (aligned) s += fmt::format("        {} = {};\n", target, value);
                else s += fmt::format("        if (out_row{} < m && out_col{} < n) {} = {};\n", i, j, target, value);
            }
        }
    }
    s += "    }\n}\n";
    return s;
}

}  // namespace kjarni::blas::detail
