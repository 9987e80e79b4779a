// Choosing between kjarni's GEMM kernel and CLBlast per device (gemm_choice.hpp).

#include "blas/gemm_choice.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <iterator>
#include <map>
#include <mutex>
#include <string>
#include <utility>

#include "blas/gemm_engine.hpp"
#include "kjarni/error.hpp"

namespace kjarni::blas::detail {

namespace {

/// The tuned entry of a device and precision, read once per device and precision.
std::optional<std::pair<GemmTiles, bool>> tuned_gemm_entry(const Queue& queue, int precision) {
    static std::mutex mutex;
    static std::map<std::pair<std::uintptr_t, int>, std::optional<std::pair<GemmTiles, bool>>> known;
    const Device device = queue.device().device();
    const std::pair key{device.native_handle(), precision};
    const std::lock_guard lock(mutex);
    if (auto found = known.find(key); found != known.end()) return found->second;
    std::optional<std::pair<GemmTiles, bool>> result;
    for (const TunedKernel& entry : tuned_parameters_for(device.name(), device.properties().driver_version))
        if (entry.kernel == kjarni_gemm_entry && entry.precision == precision)
            result = gemm_tiles_of(entry, "for " + device.name());  // the last one wins
    known.emplace(key, result);
    return result;
}

/// Which forms of the kernel a parameter belongs to.
enum class TileForms { simt, tensor, both };

/// A parameter of a kjarni_gemm entry and the field of GemmTiles it sets.
struct TileField {
    const char* name;
    std::size_t GemmTiles::*member;
    TileForms forms;
};

/// Every parameter, in the order an entry lists them (the SIMT form's and the tensor-core form's
/// interleaved); an entry of the tensor-core form starts with FORM.
constexpr TileField tile_fields[] = {
    {"FORM", &GemmTiles::form, TileForms::tensor},
    {"MWG", &GemmTiles::mwg, TileForms::both},
    {"NWG", &GemmTiles::nwg, TileForms::both},
    {"KWG", &GemmTiles::kwg, TileForms::both},
    {"MDIMC", &GemmTiles::mdimc, TileForms::simt},
    {"NDIMC", &GemmTiles::ndimc, TileForms::simt},
    {"VWM", &GemmTiles::vwm, TileForms::simt},
    {"VWN", &GemmTiles::vwn, TileForms::simt},
    {"WARPSM", &GemmTiles::warps_m, TileForms::tensor},
    {"WARPSN", &GemmTiles::warps_n, TileForms::tensor},
    {"VWG", &GemmTiles::vwg, TileForms::both},
    {"MMAM", &GemmTiles::mma_m, TileForms::tensor},
    {"BUFFERS", &GemmTiles::buffers, TileForms::tensor},
    {"MMAK", &GemmTiles::mma_k, TileForms::tensor},
    {"SWIZZLE", &GemmTiles::swizzle, TileForms::tensor},
    {"ASYNC", &GemmTiles::async_copy, TileForms::tensor},
    {"PIPELINE", &GemmTiles::pipeline, TileForms::tensor},
};

}  // namespace

std::pair<GemmTiles, bool> gemm_tiles_of(const TunedKernel& entry, const std::string& origin) {
    GemmTiles tiles = default_gemm_tiles();
    bool preferred = false;
    for (const auto& [name, value] : entry.parameters) {
        const auto field = std::find_if(std::begin(tile_fields), std::end(tile_fields),
                                        [&name = name](const TileField& f) { return name == f.name; });
        if (name == "PREFERRED") {
            preferred = value != 0;
        } else if (field != std::end(tile_fields)) {
            tiles.*(field->member) = value;
        } else {
            throw ArgumentError("CLBlast parameters " + origin,
                                fmt::format("give kjarni_gemm an unknown parameter {}", name));
        }
    }
    return {tiles, preferred};
}

TunedKernel gemm_entry_of(const GemmTiles& tiles, int precision, bool preferred) {
    TunedKernel entry{kjarni_gemm_entry, precision, {}};
    const TileForms form = tiles.form == 1 ? TileForms::tensor : TileForms::simt;
    for (const TileField& field : tile_fields)
        if (field.forms == TileForms::both || field.forms == form)
            entry.parameters.emplace_back(field.name, tiles.*(field.member));
    entry.parameters.emplace_back("PREFERRED", preferred ? 1U : 0U);
    return entry;
}

std::string gemm_form_setting() {
    const char* env = std::getenv("KJARNI_GEMM_FORM");
    std::string form = env == nullptr || *env == '\0' ? "auto" : env;
    if (form != "auto" && form != "tensor" && form != "simt")
        throw ArgumentError("KJARNI_GEMM_FORM", fmt::format("is '{}'; it takes tensor, simt or auto", form));
    return form;
}

std::optional<GemmTiles> kjarni_gemm_choice(const Queue& queue, DType::Kind kind, bool vendor_available) {
    if (kind != DType::Kind::float32 && kind != DType::Kind::float64) return std::nullopt;
    const char* env = std::getenv("KJARNI_GEMM");
    const std::string mode = env == nullptr ? "auto" : env;
    if (mode != "auto" && mode != "kjarni" && mode != "clblast" && !mode.empty())
        throw ArgumentError("KJARNI_GEMM", fmt::format("is '{}'; it takes kjarni, clblast or auto", mode));
    const std::string form = gemm_form_setting();
    if (mode == "clblast" || !kjarni_gemm_supports(queue, kind)) return std::nullopt;
    const auto tuned = tuned_gemm_entry(queue, kind == DType::Kind::float64 ? 64 : 32);
    // The tensor-core form only where the DMMA is native (elsewhere it is emulated: correct, slow).
    const bool tensor_here = kind == DType::Kind::float64 && kjarni_gemm_tensor_native(queue);
    const bool force_tensor = form == "tensor" && tensor_here;
    const bool m16 = tensor_here && kjarni_gemm_tensor_m16(queue);
    GemmTiles tiles = tuned ? tuned->first : default_gemm_tiles();
    if (tiles.form == 1 && (!tensor_here || form == "simt")) tiles = default_gemm_tiles();
    if (force_tensor && tiles.form != 1) tiles = default_gemm_tensor_tiles(m16);
    if (tiles.form == 1 && tiles.mma_m == 16 && !m16) tiles = default_gemm_tensor_tiles(false);
    // Tiles tuned elsewhere may not fit this device (a file named for it, but edited): defaults then.
    if (!gemm_tiles_problem(tiles, kind, queue.device().params()).empty())
        tiles = tiles.form == 1 ? default_gemm_tensor_tiles(m16) : default_gemm_tiles();
    if (!gemm_tiles_problem(tiles, kind, queue.device().params()).empty()) return std::nullopt;
    if (mode == "kjarni" || force_tensor || !vendor_available || (tuned && tuned->second)) return tiles;
    return std::nullopt;
}

}  // namespace kjarni::blas::detail
