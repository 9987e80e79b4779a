#pragma once
// Compilation in a backend context: sources built into modules for one device, modules loaded
// from binaries, units compiled apart and linked, PTX, and what identifies the compiler (the disk
// cache's key). The defaults (program_service.cpp) throw UnsupportedError naming the backend.

#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "backend/context_service.hpp"
#include "backend/module_objects.hpp"

namespace kjarni::backend {

class ContextPrograms : public virtual ContextService {
public:
    /// Compiles a complete source for one device. Throws CompileError with the log on failure.
    virtual BuildOutput build(std::size_t device_index, const std::string& source, const BuildOptions& options) = 0;
    /// Recreates a module from BuildOutput::binary (e.g. from the disk cache). Throws Error if the
    /// binary is refused; the caller then compiles from source.
    virtual std::shared_ptr<Module> load(std::size_t device_index, std::span<const std::byte> binary,
                                         const BuildOptions& options) = 0;
    /// Compiles the source units each on its own and links them with the code units into one
    /// module (cuLink*, clCompileProgram + clLinkProgram). CompileError when a unit does not
    /// compile, LinkError (with the linker's log) when they do not link. The default throws
    /// UnsupportedError naming the backend.
    virtual BuildOutput link(std::size_t device_index, std::span<const LinkUnit> units, const BuildOptions& options);
    /// Compiles a complete source on its own into a relocatable object that link() takes back as a
    /// code unit (CUDA: NVRTC -rdc=true to PTX, NUL-terminated; OpenCL: clCompileProgram's binary,
    /// CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT). CompileError when it does not compile. The
    /// default throws UnsupportedError naming the backend.
    virtual std::vector<std::byte> compile_unit(std::size_t device_index, const std::string& source,
                                                const BuildOptions& options);
    /// The PTX of a complete source for one device (CUDA, through NVRTC, for the architecture build()
    /// would use). The default throws UnsupportedError naming the backend.
    virtual std::string ptx(std::size_t device_index, const std::string& source, const BuildOptions& options);
    /// Everything besides source and options that changes what build() produces for this device
    /// (device name and architecture, driver and compiler versions): part of the cache key.
    virtual std::string compiler_identity(std::size_t device_index) const = 0;
};

}  // namespace kjarni::backend
