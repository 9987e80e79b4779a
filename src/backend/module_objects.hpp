#pragma once
// Compiled programs: what a build takes and gives (program_service.hpp builds), the modules it
// makes for one device, and their kernels with the parameters they declare.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "backend/backend_fwd.hpp"

namespace kjarni::backend {

/// How to compile a program for one device. The source is complete (prelude included).
struct BuildOptions {
    bool fast_math = false;
    /// Passed to the compiler verbatim, after kjarni's own options.
    std::vector<std::string> compiler_options;
    std::vector<std::string> include_dirs;
    /// When set, the backend writes its intermediate files (source, log, binary, PTX where there
    /// is one) into this existing directory and leaves them there.
    std::optional<std::filesystem::path> keep_dir;
    /// CUDA: the architecture to compile for, "sm_XY" (a cubin) or "compute_XY" (PTX the driver
    /// compiles when loading); empty: the device's own. UnsupportedError elsewhere.
    std::string cuda_arch;
    /// CUDA, when loading PTX (Context::load): the driver's JIT options (CU_JIT_MAX_REGISTERS,
    /// CU_JIT_OPTIMIZATION_LEVEL). UnsupportedError elsewhere.
    std::optional<unsigned> jit_max_registers;
    std::optional<unsigned> jit_optimization_level;
    /// The rest of the JIT options (the public JitOptions; CUDA only).
    JitOptions jit;

    // For the program layer, not the backend: which on-disk cache a program uses.
    /// false: the disk cache is neither read nor written.
    bool disk_cache = true;
    /// A cache directory of the program's own (nullopt: the context's, else the environment's).
    std::optional<std::filesystem::path> cache_dir;
};

/// One unit of Context::link: a complete source, compiled on its own as relocatable device code
/// (CUDA: NVRTC -rdc=true to PTX; OpenCL: clCompileProgram), or compiled code (CUDA: PTX, a
/// relocatable cubin, a fatbin; OpenCL: a compiled object or library binary, as compile_unit gives).
struct LinkUnit {
    bool is_source = true;
    std::string source;
    std::vector<std::byte> code;
};

struct BuildOutput {
    std::shared_ptr<Module> module;
    /// What load() accepts to recreate the module without compiling (cubin / OpenCL program
    /// binary); empty if the backend cannot give one (then nothing is cached on disk).
    std::vector<std::byte> binary;
    /// The compiler's log, warnings included (may be empty).
    std::string log;
};

/// One kernel parameter as the compiled kernel declares it, as far as the API can tell.
struct ParamInfo {
    enum class Kind : std::uint8_t {
        global_pointer,  // a buffer argument (OpenCL __global/__constant pointer)
        local_pointer,   // OpenCL __local pointer (its size is given at launch)
        scalar,          // passed by value
        unknown,         // CUDA cannot tell a pointer from an 8-byte scalar: size only
        image,           // OpenCL image*_t (an Image or the first half of a SampledImage)
        sampler,         // OpenCL sampler_t (the second half of a SampledImage)
    };
    Kind kind = Kind::unknown;
    /// Bytes passed; 0 when the API does not say.
    std::size_t size = 0;
    /// Type and parameter names where the API reports them (OpenCL with -cl-kernel-arg-info).
    std::string type_name;
    std::string name;
};

/// A program compiled for one device.
class Module {
public:
    virtual ~Module() = default;
    virtual std::size_t device_index() const = 0;
    /// nullptr when the module has no kernel of that name.
    virtual std::shared_ptr<Kernel> kernel(const std::string& name) = 0;
    virtual std::vector<std::string> kernel_names() const = 0;
    /// Size in bytes of a program-scope constant (CUDA __constant__), or nullopt if there is none
    /// of that name. UnsupportedError where the API cannot address them (OpenCL).
    virtual std::optional<std::size_t> constant_size(const std::string& name) = 0;
    /// Copies `size` bytes (the caller checked them against constant_size) into the constant,
    /// from host memory or from a buffer region, in queue order.
    virtual void set_constant(Queue& queue, const std::string& name, const void* host, std::size_t size) = 0;
    virtual void set_constant(Queue& queue, const std::string& name, Buffer& source, std::size_t source_offset,
                              std::size_t size) = 0;
    /// A program-scope variable (CUDA __device__ / __constant__) as a buffer of its size that keeps
    /// the module loaded; nullptr if there is none of that name. The default throws UnsupportedError.
    virtual std::shared_ptr<Buffer> global_buffer(const std::string& name);
    /// What the driver's JIT said when it compiled PTX into this module (CUDA, PTX loaded with
    /// JitOptions asking for it); nullopt otherwise (the default).
    virtual std::optional<JitReport> jit_report() const { return std::nullopt; }
};

/// A kernel of a module. Launching is the hot path: launch() must not allocate for up to 64
/// arguments, nor look anything up by name.
class Kernel {
public:
    virtual ~Kernel() = default;
    virtual const KernelAttributes& attributes() const = 0;
    /// The declared parameters, in order; empty when the API cannot report them (the count is then
    /// unknown too).
    virtual const std::vector<ParamInfo>& params() const = 0;
    /// CUfunction / cl_kernel.
    virtual std::uintptr_t native_handle() const = 0;
    /// CUDA cuFuncSetCacheConfig / CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT (percent,
    /// -1: the default). The defaults throw UnsupportedError.
    virtual void set_cache_preference(CachePreference preference);
    virtual void set_shared_memory_carveout(int percent);
    /// cuFuncSetAttribute of a settable attribute (the public layer checked the value's range).
    /// The default throws UnsupportedError.
    virtual void set_attribute(KernelAttributeId attribute, int value);
    /// Sizes in work items (OpenCL semantics: global is the total, a multiple of local, checked by
    /// the caller), `dims` in 1..3. With `want_event`, returns an event marking the launch's end.
    virtual std::shared_ptr<Event> launch(Queue& queue, unsigned dims, const std::size_t* global_size,
                                          const std::size_t* local_size, std::size_t dynamic_local_mem,
                                          std::span<const KernelArg> args, bool want_event) = 0;
};

}  // namespace kjarni::backend
