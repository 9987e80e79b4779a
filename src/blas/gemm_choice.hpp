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

/// The tiles to run kjarni's kernel with on the queue's device for `kind`, or nullopt for the vendor
/// library (see the top of the file). `vendor_available` says whether CLBlast can be loaded.
std::optional<GemmTiles> kjarni_gemm_choice(const Queue& queue, DType::Kind kind, bool vendor_available);

}  // namespace kjarni::blas::detail
