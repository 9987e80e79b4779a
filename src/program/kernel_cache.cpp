#include "program/inline_ptx.hpp"
#include "program/kernel_cache.hpp"

#include <fmt/format.h>

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <variant>

#include "core/context_state.hpp"
#include "core/device_extensions.hpp"
#include "kjarni/api.hpp"
#include "kjarni/error.hpp"
#include "program/module_cache.hpp"
#include "program/program_source.hpp"

namespace kjarni::detail {

namespace {

/// Whether an OpenCL device divides and takes square roots of floats correctly rounded when asked
/// (CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT in CL_DEVICE_SINGLE_FP_CONFIG).
bool offers_exact_float_division(const BoundDevice& device) {
    constexpr std::int64_t correctly_rounded_divide_sqrt = std::int64_t{1} << 7;
    const auto config = device.device().attribute("CL_DEVICE_SINGLE_FP_CONFIG");
    if (!config) return false;
    const auto* bits = std::get_if<std::int64_t>(&*config);
    return bits != nullptr && (*bits & correctly_rounded_divide_sqrt) != 0;
}

/// What a generated kernel is kept under: the device, the kernel's name, its arithmetic, its register
/// limit and the key that identifies its source. Looked up through views, so that a call that finds
/// its kernel copies none of the key's text.
struct KernelKeyView {
    std::size_t device = 0;
    std::string_view name;
    bool exact = true;
    std::size_t max_registers = 0;
    std::string_view key;
};

struct KernelKey {
    std::size_t device = 0;
    std::string name;
    bool exact = true;
    std::size_t max_registers = 0;
    std::string key;
    KernelKeyView view() const { return {device, name, exact, max_registers, key}; }
};

KernelKeyView view_of(const KernelKeyView& k) { return k; }
KernelKeyView view_of(const KernelKey& k) { return k.view(); }

// An ordered map rather than a hash: the keys of reductions and scans run to hundreds of bytes, which
// a hash reads whole on every call, where a comparison stops at the first difference.
struct KernelKeyLess {
    using is_transparent = void;
    template <class A, class B>
    bool operator()(const A& a, const B& b) const {
        const KernelKeyView x = view_of(a);
        const KernelKeyView y = view_of(b);
        if (x.device != y.device) return x.device < y.device;
        if (x.exact != y.exact) return x.exact < y.exact;
        if (x.max_registers != y.max_registers) return x.max_registers < y.max_registers;
        if (const int c = x.name.compare(y.name); c != 0) return c < 0;
        return x.key.compare(y.key) < 0;
    }
};

/// Generated kernels per context (a service of its state). Backend kernels, not public Programs: a
/// Program holds its Context, and the context's state holding one would keep the context alive
/// forever.
class GeneratedKernelCache {
public:
    std::shared_ptr<const CachedKernel> find(const KernelKeyView& key) const {
        const std::lock_guard lock(mutex_);
        auto found = kernels_.find(key);
        return found == kernels_.end() ? nullptr : found->second;
    }
    /// The kernel kept under `key`: `kernel`, or the one another thread kept first.
    std::shared_ptr<const CachedKernel> insert(const KernelKeyView& key, std::shared_ptr<const CachedKernel> kernel) {
        const std::lock_guard lock(mutex_);
        KernelKey owned{key.device, std::string(key.name), key.exact, key.max_registers, std::string(key.key)};
        return kernels_.emplace(std::move(owned), std::move(kernel)).first->second;
    }

private:
    mutable std::mutex mutex_;
    std::map<KernelKey, std::shared_ptr<const CachedKernel>, KernelKeyLess> kernels_;
};

}  // namespace

std::shared_ptr<const CachedKernel> cached_kernel(const BoundDevice& device, const std::string& key,
                                                  const std::string& name, const std::function<std::string()>& render,
                                                  Contraction contraction, std::size_t max_registers) {
    GeneratedKernelCache& cache = state_of(device.context()).service<GeneratedKernelCache>();
    const bool exact = contraction == Contraction::off;
    const KernelKeyView full_key{device.index(), name, exact, max_registers, key};
    if (auto found = cache.find(full_key)) return found;
    const bool cuda = device.context().api().id() == ApiId::cuda();
    // No contraction: each multiplication and addition rounded on its own, as numpy's separate
    // ufuncs round them, so that a value is the same whichever kernel computes it (an expression's
    // own, a reduction's loads, a fused row). NVRTC contracts unless told --fmad=false; OpenCL C's
    // FP_CONTRACT is on by default, switched off for the whole source by the pragma.
    // KJARNI_INLINE_PTX: an OpenCL compiler that takes PTX asm statements (NVIDIA's), for the
    // helpers that work around its code generator (algorithms/device_code.cpp's kj_opaque_u32).
    std::string source = exact ? "#ifndef KJARNI_CUDA_API\n#pragma OPENCL FP_CONTRACT OFF\n#endif\n" : "";
    if (!cuda && takes_inline_ptx(device)) source += "#define KJARNI_INLINE_PTX 1\n";
    source += render();
    const ProgramOptions options;
    const std::string full = full_source(device.context().api().id(), source, options);
    backend::BuildOptions build;
    if (exact && cuda) build.compiler_options.push_back("--fmad=false");
    // numpy's float32 a / b and sqrt are correctly rounded, as CUDA's are by default; OpenCL C allows
    // them 2.5 and 3 ulp unless the program asks, which a device may offer (NVIDIA's does).
    if (exact && !cuda && offers_exact_float_division(device))
        build.compiler_options.emplace_back("-cl-fp32-correctly-rounded-divide-sqrt");
    if (max_registers != 0 && !cuda && has_extension(device.device(), "cl_nv_compiler_options"))
        build.compiler_options.push_back(fmt::format("-cl-nv-maxrregcount={}", max_registers));
    auto module = obtain_module(device, full, build);
    std::shared_ptr<backend::Kernel> kernel = module->kernel(name);
    if (!kernel) throw Error(fmt::format("generated program has no kernel '{}'", name));
    notify_build_observer(source, options);
    auto cached = std::make_shared<CachedKernel>();
    cached->checked = checked_kernel(*kernel, device, name);
    cached->owner = std::move(kernel);
    return cache.insert(full_key, std::move(cached));
}

}  // namespace kjarni::detail
