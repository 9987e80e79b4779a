#pragma once
// Which GEMM runs a real (float32, float64) product on an OpenCL device: kjarni's own kernel or
// CLBlast. The tuner (bench/gemm_tune.cpp) times both on the device and records the winner with
// kjarni's tiles (a "kjarni_gemm" entry of the device's parameter file: vendor/clblast_tuning.hpp).
//
//   KJARNI_GEMM=kjarni   kjarni's kernel, with the device's tuned tiles or default_gemm_tiles()
//   KJARNI_GEMM=clblast  CLBlast
//   unset or "auto"      kjarni's kernel where the device's file says PREFERRED = 1, or where
//                        CLBlast cannot be loaded; CLBlast otherwise
//
// Another value is an ArgumentError naming KJARNI_GEMM. CUDA always goes to cuBLAS.
//
// The form of kjarni's kernel (GemmTiles::form) is the tuned entry's ("FORM": 1 = tensor cores),
// and the tensor-core form runs only where its DMMA is native (kjarni_gemm_tensor_native: NVIDIA,
// compute capability 8.0 or later); a tensor-core entry elsewhere gives the SIMT defaults. Where
// no tuned entry says so, float64 keeps the SIMT form (the default stays off until measured).
//   KJARNI_GEMM_FORM=tensor   float64 on such a device runs the tensor-core form (the tuned entry's
//                             tiles if it is one, else default_gemm_tensor_tiles()), kjarni's
//                             kernel even where the file prefers CLBlast; unless KJARNI_GEMM=clblast
//   KJARNI_GEMM_FORM=simt     kjarni's kernel keeps the SIMT form (a tensor-core entry: its defaults)
//   unset or "auto"           as the tuned file says
// Another value is an ArgumentError naming KJARNI_GEMM_FORM.

#include <optional>

#include "blas/gemm_kernel.hpp"
#include "kjarni/queue.hpp"
#include "vendor/clblast_tuning.hpp"

namespace kjarni::blas::detail {

/// The tiles of a "kjarni_gemm" entry (MWG, NWG, KWG, MDIMC, NDIMC, VWM, VWN, VWG; missing ones
/// keep their defaults) and whether it is PREFERRED. ArgumentError naming `origin` for an unknown
/// parameter name.
std::pair<GemmTiles, bool> gemm_tiles_of(const TunedKernel& entry, const std::string& origin);
/// The entry the tuner writes for tiles.
TunedKernel gemm_entry_of(const GemmTiles& tiles, int precision, bool preferred);

/// KJARNI_GEMM_FORM: "tensor", "simt" or "auto" (unset or empty); ArgumentError for another value.
std::string gemm_form_setting();

/// The tiles to run kjarni's kernel with on the queue's device for `kind`, or nullopt for the vendor
/// library (see the top of the file). `vendor_available` says whether CLBlast can be loaded.
std::optional<GemmTiles> kjarni_gemm_choice(const Queue& queue, DType::Kind kind, bool vendor_available);

}  // namespace kjarni::blas::detail
