#pragma once
/// How a Program is compiled (ProgramOptions, the constant arrays it declares) and the units
/// Program::link takes (LinkInput). \file

#include <cstddef>
#include <filesystem>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "kjarni/kernel_attributes.hpp"

namespace kjarni {

/// A constant array declared in the program (CUDA __constant__), filled later from the host or the
/// device with Program::set_constant_array.
struct ConstantArraySpec {
    /// The element's C type as the kernel spells it ("float", "int32_t", "complex64_t", ...).
    std::string ctype;
    std::size_t element_size = 0;
    std::size_t length = 0;
};

/// How a Program is compiled: prelude, fast math, compiler options, include directories, kept
/// files, constant arrays and (CUDA) the target architecture and JIT options.
struct ProgramOptions {
    /// Compile the source as it is, without the prelude.
    bool no_prelude = false;
    /// Faster, less accurate math (--use_fast_math / -cl-fast-relaxed-math); defines KJARNI_FAST_MATH.
    bool fast_math = false;
    /// Passed to the compiler verbatim, after kjarni's own options.
    std::vector<std::string> compiler_options;
    std::vector<std::string> include_dirs;
    /// Keep the intermediate files (source, log, binary) in a fresh directory per device; see
    /// Program::kept_files.
    bool keep = false;
    /// Declared at the top of the program (CUDA only: UnsupportedError on OpenCL).
    std::map<std::string, ConstantArraySpec> constant_arrays;
    /// CUDA: compile for this architecture instead of the device's (PyCUDA's arch/code): "sm_XY"
    /// gives a cubin (which runs on devices of compute capability X.Y' with Y' >= Y), "compute_XY"
    /// PTX the driver compiles when loading. UnsupportedError on OpenCL.
    std::string arch;
    /// CUDA, for Program::from_binary of PTX (PyCUDA's jit_option): the register limit per thread and
    /// the optimization level (0..4) of the driver's PTX compiler. UnsupportedError on OpenCL. (To
    /// limit registers when compiling a source, pass "--maxrregcount=N" in compiler_options.)
    std::optional<unsigned> jit_max_registers;
    std::optional<unsigned> jit_optimization_level;
    /// CUDA, for Program::from_binary of PTX: the rest of the JIT options (threads per block,
    /// fallback strategy, cache mode, log sizes); what the JIT reported is Program::jit_report.
    /// UnsupportedError on OpenCL.
    JitOptions jit;

    /// The on-disk compilation cache for this program (PyCUDA's SourceModule(cache_dir=...)):
    /// false: neither read nor written (the in-memory cache of the context still is);
    /// cache_dir: a directory of the program's own (created if needed), used even where
    /// KJARNI_CACHE turns the process-wide cache off. Unset: the context's
    /// (ContextOptions::kernel_cache_dir), else the environment's.
    bool disk_cache = true;
    std::optional<std::filesystem::path> cache_dir;
};

/// One separately compiled unit of Program::link: a kernel source or compiled code.
struct LinkInput {
    /// A source, rendered as a template with no arguments (as Program's is) and given the prelude
    /// unless ProgramOptions::no_prelude; compiled on its own as relocatable device code. A function
    /// of another unit is declared without a body (`FUNCTION float f(float x);`).
    static LinkInput source(std::string_view text) { return LinkInput{true, std::string(text), {}}; }
    /// Compiled code: what Program::compile_unit gives for a device of the same kind; besides, on
    /// CUDA, PTX text, a cubin compiled with relocatable device code, a fatbin; on OpenCL a program
    /// binary of a compiled object or a library (CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT / _LIBRARY;
    /// an executable binary, SPIR-V or bytes the driver does not take are ArgumentError naming the
    /// unit at link time).
    static LinkInput binary(std::span<const std::byte> code) {
        return LinkInput{false, {}, std::vector<std::byte>(code.begin(), code.end())};
    }

    bool is_source = true;
    std::string text;
    std::vector<std::byte> code;
};

}  // namespace kjarni
