// Compiling and launching kjarni's GEMM kernel (gemm_engine.hpp).

#include "blas/gemm_engine.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <climits>
#include <cstring>
#include <map>
#include <mutex>
#include <variant>

#include "backend/backend.hpp"
#include "blas/gemm_tensor.hpp"
#include "core/context_state.hpp"
#include "kjarni/api.hpp"
#include "kjarni/detail/backend_access.hpp"
#include "kjarni/error.hpp"
#include "kjarni/program.hpp"
#include "program/inline_ptx.hpp"
#include "program/module_cache.hpp"
#include "program/program_source.hpp"

namespace kjarni::blas::detail {

namespace {

/// The GEMM kernels of one context (a service of its state), by a key naming the device and the
/// source's parameters. Backend kernels, not Programs: a Program holds its Context, and the
/// context's state holding one would keep the context alive forever.
class GemmKernelCache {
public:
    std::shared_ptr<backend::Kernel> find(const std::string& key) const {
        const std::lock_guard lock(mutex_);
        auto found = kernels_.find(key);
        return found == kernels_.end() ? nullptr : found->second;
    }
    void insert(const std::string& key, std::shared_ptr<backend::Kernel> kernel) {
        const std::lock_guard lock(mutex_);
        kernels_.emplace(key, std::move(kernel));
    }

private:
    mutable std::mutex mutex_;
    std::map<std::string, std::shared_ptr<backend::Kernel>, std::less<>> kernels_;
};

std::shared_ptr<backend::Kernel> gemm_kernel_for(const BoundDevice& device, const GemmTiles& tiles, DType::Kind kind,
                                                 bool transpose_a, bool transpose_b, bool aligned, bool native_mma) {
    GemmKernelCache& cache = kjarni::detail::state_of(device.context()).service<GemmKernelCache>();
    const std::string key =
        fmt::format("{}/{}/{}{}{}{}/{}", device.index(), static_cast<int>(kind), transpose_a ? 1 : 0,
                    transpose_b ? 1 : 0, aligned ? 1 : 0, native_mma ? 1 : 0, tiles.describe());
    if (auto kernel = cache.find(key)) return kernel;
    const std::string source = gemm_kernel_source(tiles, kind, transpose_a, transpose_b, aligned, native_mma);
    const ProgramOptions options;
    const std::string full = kjarni::detail::full_source(device.context().api().id(), source, options);
    auto module = kjarni::detail::obtain_module(device, full, backend::BuildOptions{});
    auto kernel = module->kernel("kjarni_gemm");
    if (!kernel) throw Error("kjarni::blas: the GEMM program has no kernel 'kjarni_gemm'");
    kjarni::detail::notify_build_observer(source, options);
    cache.insert(key, kernel);
    return kernel;
}

kjarni::detail::KernelArg gemm_buffer_arg(const Array& array) {
    const Buffer& base = array.base();
    kjarni::detail::KernelArg arg;
    arg.kind = kjarni::detail::KernelArg::Kind::buffer;
    arg.buffer = kjarni::detail::backend_of(base).get();
    arg.offset = 0;
    arg.size = kjarni::detail::backend_of(base)->size();
    arg.device_index = base.device().index();
    arg.context = kjarni::detail::backend_of(base.device().context()).get();
    return arg;
}

template <class T>
kjarni::detail::KernelArg gemm_scalar_arg(T value) {
    kjarni::detail::KernelArg arg;
    arg.kind = kjarni::detail::KernelArg::Kind::scalar;
    std::memcpy(arg.scalar, &value, sizeof value);
    arg.size = sizeof value;
    return arg;
}

/// Whether the operand's vectors of `width` elements start aligned: its offset, leading dimension
/// and stride are multiples of the width (kjarni's and OpenCL's allocations start aligned; CUDA
/// memory of another library may not, so there the address counts too).
bool gemm_operand_aligned(const GemmMatrix& x, std::size_t width, bool cuda) {
    if (cuda && x.array.base().native_handle() % (width * x.array.dtype().itemsize()) != 0) return false;
    return x.offset % width == 0 && x.ld % width == 0 && x.stride % width == 0;
}

}  // namespace

std::optional<std::size_t> gemm_element_offset(const Array& array) {
    const std::size_t bytes = array.base().offset() + array.offset();
    const std::size_t itemsize = array.dtype().itemsize();
    if (bytes % itemsize != 0) return std::nullopt;
    return bytes / itemsize;
}

bool kjarni_gemm_supports(const Queue& queue, DType::Kind kind) {
    if (kind == DType::Kind::float32) return true;
    if (kind != DType::Kind::float64) return false;
    if (kjarni::detail::is_cuda(queue.device().context())) return true;
    const auto extensions = queue.device().device().attribute("CL_DEVICE_EXTENSIONS");
    const auto* text = extensions ? std::get_if<std::string>(&*extensions) : nullptr;
    return text != nullptr && text->find("cl_khr_fp64") != std::string::npos;
}

bool kjarni_gemm_tensor_native(const Queue& queue) {
    const Device device = queue.device().device();
    const auto& cc = device.properties().compute_capability;
    if (!cc || cc->major < 8 || device.params().warp_size != 32) return false;
    return kjarni::detail::takes_inline_ptx(queue.device());
}

bool kjarni_gemm_tensor_m16(const Queue& queue) {
    const auto& cc = queue.device().device().properties().compute_capability;
    return kjarni_gemm_tensor_native(queue) && cc && cc->major >= 9;
}

void kjarni_gemm(const Queue& queue, DType::Kind kind, const GemmTiles& tiles, bool transpose_a, bool transpose_b,
                 std::size_t m, std::size_t n, std::size_t k, double alpha, const GemmMatrix& a, const GemmMatrix& b,
                 double beta, const GemmMatrix& c, std::size_t batch) {
    const BoundDevice& device = queue.device();
    if (const std::string problem = gemm_tiles_problem(tiles, kind, device.params()); !problem.empty())
        throw ArgumentError("tiles", fmt::format("{}: {}", tiles.describe(), problem));
    if (std::max({m, n, k}) > static_cast<std::size_t>(INT_MAX))
        throw ArgumentError("m, n, k",
                            fmt::format("{} x {} x {} exceeds kjarni's GEMM kernel's 32-bit extents", m, n, k));
    const bool cuda = kjarni::detail::is_cuda(device.context());
    const bool aligned = m % tiles.mwg == 0 && n % tiles.nwg == 0 && k % tiles.kwg == 0 &&
                         gemm_operand_aligned(a, tiles.vwg, cuda) && gemm_operand_aligned(b, tiles.vwg, cuda);
    const bool native_mma = tiles.form == 1 && kjarni_gemm_tensor_native(queue);
    if (native_mma && tiles.mma_m == 16 && !kjarni_gemm_tensor_m16(queue))
        throw ArgumentError("tiles",
                            fmt::format("{}: the m16n8k4 DMMA needs compute capability 9.0", tiles.describe()));
    if (tiles.form == 1 && !native_mma) {
        // The emulated DMMA exchanges fragments through local memory beside the slices.
        const std::size_t scratch =
            (tiles.mwg / (8 * tiles.warps_m) + tiles.nwg / (8 * tiles.warps_n)) * gemm_group_size(tiles) * 8;
        const bool swizzle = tiles.swizzle != 0;
        const std::size_t slices =
            tiles.buffers * tiles.kwg *
            (gemm_tensor_local_ld(tiles.mwg, swizzle) + gemm_tensor_local_ld(tiles.nwg, swizzle)) * 8;
        if (slices + scratch > device.params().local_mem_size)
            throw ArgumentError("tiles", fmt::format("{}: the emulated DMMA needs {} bytes of local memory",
                                                     tiles.describe(), slices + scratch));
    }
    auto kernel = gemm_kernel_for(device, tiles, kind, transpose_a, transpose_b, aligned, native_mma);

    const bool single = kind == DType::Kind::float32;
    const auto real = [&](double value) {
        return single ? gemm_scalar_arg(static_cast<float>(value)) : gemm_scalar_arg(value);
    };
    const auto i64 = [](std::size_t value) { return gemm_scalar_arg(static_cast<std::int64_t>(value)); };
    const auto i32 = [](std::size_t value) { return gemm_scalar_arg(static_cast<int>(value)); };
    const std::size_t groups_m = (m + tiles.mwg - 1) / tiles.mwg;
    const std::size_t groups_n = (n + tiles.nwg - 1) / tiles.nwg;
    // A grid's third dimension takes 65535 groups on CUDA: longer batches go in chunks.
    constexpr std::size_t max_batch_chunk = 65535;
    for (std::size_t first = 0; first < batch; first += max_batch_chunk) {
        const std::size_t chunk = std::min(max_batch_chunk, batch - first);
        const std::array<kjarni::detail::KernelArg, 17> args{gemm_buffer_arg(a.array),
                                                             i64(a.offset + first * a.stride),
                                                             i64(a.ld),
                                                             i64(a.stride),
                                                             gemm_buffer_arg(b.array),
                                                             i64(b.offset + first * b.stride),
                                                             i64(b.ld),
                                                             i64(b.stride),
                                                             gemm_buffer_arg(c.array),
                                                             i64(c.offset + first * c.stride),
                                                             i64(c.ld),
                                                             i64(c.stride),
                                                             i32(m),
                                                             i32(n),
                                                             i32(k),
                                                             real(alpha),
                                                             real(beta)};
        const bool tensor = tiles.form == 1;
        const std::size_t local_x = tensor ? gemm_group_size(tiles) : tiles.mdimc;
        const std::size_t local_y = tensor ? 1 : tiles.ndimc;
        const std::array<std::size_t, 3> global{groups_m * local_x, groups_n * local_y, chunk};
        const std::array<std::size_t, 3> local{local_x, local_y, 1};
        kernel->launch(*kjarni::detail::backend_of(queue), 3, global.data(), local.data(), 0, args, false);
    }
}

}  // namespace kjarni::blas::detail
