#pragma once
/// Programs (reference: grunnur Program; PyCUDA SourceModule, module_from_buffer and Linker). One
/// kernel source, written against the prelude (KERNEL, GLOBAL_MEM, get_global_id, ...), compiles
/// for every device of a context: CUDA through NVRTC straight to a cubin, OpenCL through
/// clBuildProgram. Compiled programs are cached in memory per context and on disk per user (see
/// compilation_cache.hpp).
///
/// Including this header gives everything a program's kernels need, as it always has: Kernel
/// (kernel.hpp), PreparedKernel and BoundKernel (prepared_kernel.hpp), ProgramOptions and LinkInput
/// (program_options.hpp), Sizes and TotalSize (launch_sizes.hpp), StructArg (struct_arg.hpp), In,
/// Out and InOut (host_argument.hpp) and PerDevice (per_device.hpp). \file

#include <complex>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "kjarni/buffer.hpp"
#include "kjarni/context.hpp"
#include "kjarni/device_settings.hpp"
#include "kjarni/dtype.hpp"
#include "kjarni/error.hpp"
#include "kjarni/event.hpp"
#include "kjarni/host_argument.hpp"
#include "kjarni/kernel.hpp"
#include "kjarni/kernel_attributes.hpp"
#include "kjarni/launch_sizes.hpp"
#include "kjarni/memory_pool.hpp"
#include "kjarni/per_device.hpp"
#include "kjarni/prepared_kernel.hpp"
#include "kjarni/program_options.hpp"
#include "kjarni/queue.hpp"
#include "kjarni/struct_arg.hpp"
#include "kjarni/template_fwd.hpp"

namespace kjarni {

namespace backend {
class Module;
}  // namespace backend

namespace detail {
struct ProgramState;
}  // namespace detail

/// A program-scope variable (CUDA __device__ or __constant__; PyCUDA's Module.get_global): its
/// device address and size, and a Buffer over it (read and write it with Buffer::get / set / fill and
/// copies, in queue order). The buffer keeps the program's module loaded.
struct GlobalVariable {
    std::uintptr_t address = 0;
    std::size_t size = 0;
    Buffer buffer;
};

/// Kernel code compiled for every device of a context subset (see the top of the file): its kernels,
/// binaries, globals and constants. Copies share the compiled program.
class Program {
public:
    /// Renders `source` as a template with no arguments and no globals (as grunnur does: RenderError
    /// if it fails), then compiles it for every device in `devices` (CompileError on failure).
    Program(const BoundMultiDevice& devices, std::string_view source, const ProgramOptions& options = {});
    Program(const BoundDevice& device, std::string_view source, const ProgramOptions& options = {});
    /// Renders a template first (a Mako-style string, a DefTemplate or a
    /// Snippet; modules in the globals are rendered at the top), then compiles the result.
    /// RenderError if the template fails. The template types are only declared here: include
    /// kjarni/program_templates.hpp (or kjarni.hpp) to call these.
    Program(const BoundMultiDevice& devices, const TemplateSource& source, const std::vector<Value>& render_args,
            const Globals& render_globals, const ProgramOptions& options = {});
    Program(const BoundDevice& device, const TemplateSource& source, const std::vector<Value>& render_args,
            const Globals& render_globals, const ProgramOptions& options = {});

    /// A program from compiled code instead of a source (PyCUDA's module_from_buffer /
    /// module_from_file, PyOpenCL's Program from binaries or IL), the same code for every device:
    /// CUDA a cubin, a fatbin or PTX text (NUL-terminated or not; JIT options from `options`);
    /// OpenCL a program binary for the device (as binary() gives) or SPIR-V (where the driver takes
    /// IL, OpenCL 2.1). Only `compiler_options` (OpenCL build options) and the JIT options of
    /// `options` apply. BackendError or CompileError when the driver refuses the code.
    static Program from_binary(const BoundMultiDevice& devices, std::span<const std::byte> code,
                               const ProgramOptions& options = {});
    static Program from_binary(const BoundDevice& device, std::span<const std::byte> code,
                               const ProgramOptions& options = {});
    /// from_binary of a file's contents (ArgumentError when it cannot be read).
    static Program from_file(const BoundMultiDevice& devices, const std::filesystem::path& path,
                             const ProgramOptions& options = {});
    static Program from_file(const BoundDevice& device, const std::filesystem::path& path,
                             const ProgramOptions& options = {});

    /// Links several separately compiled units into one program (PyCUDA's Linker / cuLink;
    /// OpenCL's clCompileProgram + clLinkProgram), for every device of `devices`: a unit may call
    /// a function that another unit defines. CUDA compiles source units to relocatable PTX and links
    /// them with the code units through the driver's linker (binary() is the linked cubin); OpenCL
    /// needs a device of OpenCL 1.2 or later (UnsupportedError naming the backend otherwise).
    /// `options` apply as for a Program from source, except `keep` and `constant_arrays`
    /// (ArgumentError: a constant declared in every unit would be defined twice). Linked programs
    /// are cached like programs from source, in memory per context and on disk, keyed by every
    /// unit's text or bytes in order, the options and the device's compiler identity (not when
    /// `include_dirs` is given, as for sources). CompileError when a unit does not compile;
    /// LinkError, with the linker's log, when the units do not link (a function declared and
    /// defined nowhere, defined twice).
    static Program link(const BoundMultiDevice& devices, const std::vector<LinkInput>& units,
                        const ProgramOptions& options = {});
    static Program link(const BoundDevice& device, const std::vector<LinkInput>& units,
                        const ProgramOptions& options = {});

    /// Compiles one source on its own into a relocatable object for `device`, for
    /// LinkInput::binary of a later Program::link on that device (or one of the same architecture
    /// and driver). The source is rendered and given the prelude as link's source units are. CUDA:
    /// relocatable PTX text from NVRTC (-rdc=true, for the device's virtual architecture or
    /// options.arch's), NUL-terminated; OpenCL: the program binary clCompileProgram leaves
    /// (a compiled object; devices of OpenCL 1.2 or later, UnsupportedError naming the backend
    /// otherwise). `options` apply as for link (ArgumentError for `keep`, `constant_arrays`). Not
    /// cached. CompileError when the source does not compile; UnsupportedError naming the backend
    /// where the backend cannot compile units on their own.
    static std::vector<std::byte> compile_unit(const BoundDevice& device, std::string_view source,
                                               const ProgramOptions& options = {});

    const BoundMultiDevice& devices() const;
    /// The compiled code of a device, which from_binary takes back: a cubin (or PTX, for an
    /// architecture the device runs only through the driver's compiler) on CUDA, the program binary
    /// on OpenCL (clGetProgramInfo(CL_PROGRAM_BINARIES)). UnsupportedError where the backend gives none.
    std::vector<std::byte> binary(const BoundDevice& device) const;
    /// The PTX of a device's program (CUDA): compiled from the source by NVRTC for the architecture
    /// the program uses; for a program made from PTX, that PTX. UnsupportedError on OpenCL and for
    /// programs made from a cubin.
    std::string ptx(const BoundDevice& device) const;
    /// A global variable of the program on a device (CUDA only: UnsupportedError on OpenCL).
    /// ArgumentError when the program has none of that name.
    GlobalVariable global(const BoundDevice& device, std::string_view name) const;
    /// The full source compiled for a device (prelude and constant declarations included).
    const std::string& source(const BoundDevice& device) const;
    /// Where the intermediate files of a device went, when compiled with `keep`.
    std::optional<std::filesystem::path> kept_files(const BoundDevice& device) const;
    /// What the driver's JIT reported compiling a device's PTX (CUDA, a program from PTX with
    /// ProgramOptions::jit options); nullopt otherwise.
    std::optional<JitReport> jit_report(const BoundDevice& device) const;
    /// The kernel of that name; ArgumentError listing the kernels there are if none.
    Kernel kernel(std::string_view name) const;
    /// The names of the kernels the program defines (as compiled for the first of its devices).
    std::vector<std::string> kernel_names() const;
    /// Fills a constant array on the queue's device from host memory or a buffer (CUDA only);
    /// the size must be the array's.
    void set_constant_array(const Queue& queue, std::string_view name, std::span<const std::byte> host) const;
    void set_constant_array(const Queue& queue, std::string_view name, const Buffer& source) const;
    template <class T>
    void set_constant_array(const Queue& queue, std::string_view name, std::span<const T> host) const {
        set_constant_array(queue, name, std::as_bytes(host));
    }

private:
    explicit Program(std::shared_ptr<const detail::ProgramState> state) : state_(std::move(state)) {}
    std::shared_ptr<const detail::ProgramState> state_;
};

}  // namespace kjarni
