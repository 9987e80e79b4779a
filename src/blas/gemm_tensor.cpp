// The tensor-core form of kjarni's GEMM kernel (gemm_tensor.hpp): its constraints and the
// rendering of data/kernels/gemm_tensor.mako.

#include "blas/gemm_tensor.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "kjarni/device_parameters.hpp"
#include "kjarni/error.hpp"
#include "kjarni/template.hpp"

namespace kjarni::blas::detail {

namespace {

const Template& gemm_tensor_template() {
    static const Template compiled = [] {
        for (const auto& [name, text] : embedded_blas_kernel_templates())
            if (name == "gemm_tensor.mako") return Template::from_string(std::string(text), "gemm_tensor.mako");
        throw Error("kjarni::blas: data/kernels/gemm_tensor.mako is not embedded in the library");
    }();
    return compiled;
}

}  // namespace

std::size_t gemm_tensor_local_ld(std::size_t extent, bool swizzle) {
    return swizzle ? extent : extent + (20 - extent % 16) % 16;
}

std::string gemm_tensor_tiles_problem(const GemmTiles& t, DType::Kind kind, const DeviceParameters& limits) {
    if (kind != DType::Kind::float64) return "the tensor-core form is float64 only";
    if (t.warps_m == 0 || t.warps_n == 0) return "no warps";
    if (t.mma_m != 8 && t.mma_m != 16) return "MMAM is 8 (m8n8k4) or 16 (m16n8k4)";
    if (t.async_copy > 1) return "ASYNC is 0 or 1";
    if (t.async_copy == 0 && t.buffers != 1 && t.buffers != 2) return "BUFFERS is 1 or 2";
    if (t.async_copy == 1 && t.buffers != 2 && t.buffers != 3) return "ASYNC 1: BUFFERS (stages) is 2 or 3";
    if (t.mma_m == 16 && !gemm_divides(t.mwg, 16 * t.warps_m)) return "MMAM 16: MWG is not a multiple of 16 WARPSM";
    if (t.mma_k != 4 && t.mma_k != 8 && t.mma_k != 16) return "MMAK is 4, 8 or 16";
    if (t.mma_k != 4 && t.mma_m != 16) return "MMAK 8 and 16 are m16n8k8 and m16n8k16: MMAM 16 only";
    if (!gemm_divides(t.kwg, t.mma_k)) return "KWG is not a multiple of MMAK";
    if (t.swizzle > 1) return "SWIZZLE is 0 or 1";
    if (t.pipeline > 1) return "PIPELINE is 0 or 1";
    // The pipeline fills the next slice's buffer while this slice's last fragments wait in registers.
    if (t.pipeline == 1 && t.buffers < 2) return "PIPELINE 1: BUFFERS is 2 (or cp.async stages)";
    if (t.swizzle == 1 && (!gemm_divides(t.mwg, 16 * t.warps_m) || !gemm_divides(t.nwg, 16 * t.warps_n)))
        return "SWIZZLE 1: the warps' tiles must be multiples of 16 along M and N";
    const std::size_t threads = 32 * t.warps_m * t.warps_n;
    if (t.vwg != 1 && t.vwg != 2) return "VWG is 1 or 2 in the tensor-core form";
    if (!gemm_divides(t.mwg, 8 * t.warps_m)) return "MWG is not a multiple of 8 WARPSM";
    if (!gemm_divides(t.nwg, 8 * t.warps_n)) return "NWG is not a multiple of 8 WARPSN";
    if (!gemm_divides(t.kwg, 4) || !gemm_divides(t.kwg, t.vwg)) return "KWG must be a multiple of 4 and of VWG";
    if (!gemm_divides(t.mwg, t.vwg) || !gemm_divides(t.nwg, t.vwg)) return "MWG and NWG must be multiples of VWG";
    // Both the bounds-checked (single elements) and the aligned (vectors of VWG) loads share evenly.
    if (!gemm_divides(t.mwg * t.kwg / t.vwg, threads) || !gemm_divides(t.nwg * t.kwg / t.vwg, threads))
        return "the slices of A and B do not share evenly among the work items";
    const std::size_t fragments = (t.mwg / (8 * t.warps_m)) * (t.nwg / (8 * t.warps_n));
    if (fragments > 64) return "more than 64 accumulator fragments per warp";
    if (threads > limits.max_total_local_size) return "more work items than the device's work-group";
    if (!limits.max_local_sizes.empty() && threads > limits.max_local_sizes[0])
        return "more work items than the device's local size along x";
    const std::size_t local =
        t.buffers * t.kwg *
        (gemm_tensor_local_ld(t.mwg, t.swizzle != 0) + gemm_tensor_local_ld(t.nwg, t.swizzle != 0)) * 8;
    if (local > limits.local_mem_size) return "more local memory than the device has";
    return "";
}

std::string gemm_tensor_source(const GemmTiles& t, bool transpose_a, bool transpose_b, bool aligned, bool native) {
    const std::size_t threads = 32 * t.warps_m * t.warps_n;
    // cp.async copies whole vectors without bounds checks: aligned problems only; the others go
    // through registers, double buffered where the tiles ask for 3 stages.
    const bool async_copy = t.async_copy != 0 && aligned;
    const std::size_t width = aligned ? t.vwg : 1;
    const Globals globals{
        {"ta", transpose_a},
        {"tb", transpose_b},
        {"aligned", aligned},
        {"native", native},
        {"mwg", t.mwg},
        {"nwg", t.nwg},
        {"kwg", t.kwg},
        {"warps_m", t.warps_m},
        {"warps_n", t.warps_n},
        {"threads", threads},
        {"fm", t.mwg / (8 * t.warps_m)},
        {"fn", t.nwg / (8 * t.warps_n)},
        {"vwg", t.vwg},
        {"mma_m", t.mma_m},
        {"buffers", async_copy ? t.buffers : std::min<std::size_t>(t.buffers, 2)},
        {"async_copy", async_copy},
        {"mma_k", t.mma_k},
        {"swizzle", t.swizzle != 0},
        {"pipeline", t.pipeline != 0},
        {"lda_l", gemm_tensor_local_ld(t.mwg, t.swizzle != 0)},
        {"ldb_l", gemm_tensor_local_ld(t.nwg, t.swizzle != 0)},
        {"loads_a", t.mwg * t.kwg / width / threads},
        {"loads_b", t.nwg * t.kwg / width / threads},
        {"vtype", width == 2 ? "double2" : "double"},
    };
    return gemm_tensor_template().render(globals);
}

}  // namespace kjarni::blas::detail
