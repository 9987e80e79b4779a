#pragma once
/// Programs and kernels (reference: grunnur Program, Kernel, PreparedKernel; PyCUDA function
/// attributes). One kernel source, written against the prelude (KERNEL, GLOBAL_MEM, get_global_id,
/// ...), compiles for every device of a context: CUDA through NVRTC straight to a cubin, OpenCL
/// through clBuildProgram. Compiled programs are cached in memory per context and on disk per user
/// (see compilation_cache.hpp).
///
/// Sizes are given per dimension with the first dimension varying fastest: global_size[0] is what
/// get_global_size(0) returns, on both APIs. A global size must be a multiple of the local size in
/// each dimension. \file

#include <array>
#include <complex>
#include <concepts>
#include <cstddef>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "kjarni/buffer.hpp"
#include "kjarni/context.hpp"
#include "kjarni/detail/kernel_arg.hpp"
#include "kjarni/device_settings.hpp"
#include "kjarni/dtype.hpp"
#include "kjarni/error.hpp"
#include "kjarni/event.hpp"
#include "kjarni/kernel_attributes.hpp"
#include "kjarni/memory_pool.hpp"
#include "kjarni/queue.hpp"
#include "kjarni/template_fwd.hpp"

namespace kjarni {

namespace backend {
class Module;
class Kernel;
}  // namespace backend

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

/// A program-scope variable (CUDA __device__ or __constant__; PyCUDA's Module.get_global): its
/// device address and size, and a Buffer over it (read and write it with Buffer::get / set / fill and
/// copies, in queue order). The buffer keeps the program's module loaded.
struct GlobalVariable {
    std::uintptr_t address = 0;
    std::size_t size = 0;
    Buffer buffer;
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

/// Up to three extents; {n}, {x, y}, {x, y, z}.
using Sizes = std::vector<std::size_t>;

/// pygpu's `GpuKernel(..., n=n)`: at least `n` work items in one dimension, the total padded up to
/// a multiple of the work-group size kjarni picks per device (the largest multiple of the kernel's
/// preferred_local_size_multiple within min(256, max_total_local_size), no larger than `n` padded
/// to that multiple). The kernel runs a few more work items than `n` and must compare its index
/// with `n`, as pygpu's must. ArgumentError for n = 0.
struct TotalSize {
    std::size_t n = 0;
};

class Kernel;
class PreparedKernel;
class BoundKernel;
class StaticKernel;

namespace detail {
struct ProgramState;
struct KernelState;
struct PreparedState;
struct BoundState;
}  // namespace detail

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

/// A value of a trivially copyable C++ type passed to a kernel by value, as the C struct that the
/// struct dtype `dtype` describes (make it with struct_arg). The layouts are checked as far as C++
/// lets them be: sizeof(T) must be the dtype's itemsize and alignof(T) at least its alignment
/// (ArgumentError otherwise); the kernel's parameter size too, where the API reports it. Field by
/// field agreement is the caller's (declare T with the dtype's fields, in order).
/// The StructArg refers to `value`: use it within the launch's full expression.
class StructArg {
public:
    template <class T>
    StructArg(const T& value, const DType& dtype) : bytes_(&value), size_(sizeof(T)) {
        static_assert(std::is_trivially_copyable_v<T>, "a kernel takes trivially copyable values only");
        check(sizeof(T), alignof(T), dtype);
    }
    const void* bytes() const noexcept { return bytes_; }
    std::size_t size() const noexcept { return size_; }

private:
    static void check(std::size_t size, std::size_t alignment, const DType& dtype);
    const void* bytes_;
    std::size_t size_;
};

/// `value` as the struct `dtype` describes, for a kernel argument by value.
template <class T>
StructArg struct_arg(const T& value, const DType& dtype) {
    return StructArg(value, dtype);
}

namespace detail {
/// Contiguous host memory of known size: what std::data and std::size take (containers with
/// data(), arrays, spans). Spelled with <span>'s std::data / std::size rather than the range
/// concepts of <ranges>, which would cost every includer of program.hpp that header.
template <class R>
concept HostRange = requires(R& range) {
    { std::data(range) };
    { std::size(range) } -> std::convertible_to<std::size_t>;
} && std::is_pointer_v<decltype(std::data(std::declval<R&>()))>;
/// A HostRange whose elements may be written.
template <class R>
concept WritableHostRange =
    HostRange<R> && !std::is_const_v<std::remove_pointer_t<decltype(std::data(std::declval<R&>()))>>;
}  // namespace detail

/// Host memory passed straight to a launch (PyCUDA's In / Out / InOut): the launch allocates a
/// temporary device buffer of the host range's size (from `pool` when one is given, for the
/// launch's queue; else Buffer::allocate), copies the host data into it on the launch's queue before
/// the kernel (In, InOut), passes the buffer in its place, and after the kernel copies the buffer
/// back into the host range (Out, InOut), waiting for that copy. A launch given any of these returns
/// only once the kernel has finished, so the host range needs to live only through the launch's
/// full expression. Launches on a single Queue only (not on a MultiQueue). An empty range is
/// ArgumentError at launch.
class HostArgument {
public:
    enum class Direction : std::uint8_t { in, out, in_out };
    Direction direction() const noexcept { return direction_; }
    std::span<std::byte> bytes() const noexcept { return bytes_; }
    const std::optional<MemoryPool>& pool() const noexcept { return pool_; }

protected:
    HostArgument(std::span<std::byte> bytes, Direction direction, std::optional<MemoryPool> pool)
        : bytes_(bytes), direction_(direction), pool_(std::move(pool)) {}

    template <class R>
    static std::span<std::byte> bytes_of(R& range) {
        using T = std::remove_cv_t<std::remove_pointer_t<decltype(std::data(range))>>;
        static_assert(std::is_trivially_copyable_v<T>, "host arguments hold trivially copyable values");
        // In only reads the bytes; the one span type keeps the three wrappers one class.
        auto* data = const_cast<T*>(std::data(range));
        return std::as_writable_bytes(std::span<T>(data, std::size(range)));
    }

private:
    std::span<std::byte> bytes_;
    Direction direction_;
    std::optional<MemoryPool> pool_;
};

/// Host data copied to the device before the launch (read by the kernel).
class In : public HostArgument {
public:
    template <detail::HostRange R>
    explicit In(const R& host, std::optional<MemoryPool> pool = std::nullopt)
        : HostArgument(bytes_of(host), Direction::in, std::move(pool)) {}
};

/// A host range the kernel writes: copied back from the device after the launch.
class Out : public HostArgument {
public:
    template <class R>
        requires detail::WritableHostRange<std::remove_reference_t<R>>
    explicit Out(R&& host, std::optional<MemoryPool> pool = std::nullopt)
        : HostArgument(bytes_of(host), Direction::out, std::move(pool)) {}
};

/// A host range copied in before the launch and back after it.
class InOut : public HostArgument {
public:
    template <class R>
        requires detail::WritableHostRange<std::remove_reference_t<R>>
    explicit InOut(R&& host, std::optional<MemoryPool> pool = std::nullopt)
        : HostArgument(bytes_of(host), Direction::in_out, std::move(pool)) {}
};

/// A value given per device for a launch on a MultiQueue: values[i] goes to the i-th device of the
/// queue's devices.
template <class T>
struct PerDevice {
    std::vector<T> values;
};

namespace detail {

template <class T>
struct IsPerDevice : std::false_type {};
template <class T>
struct IsPerDevice<PerDevice<T>> : std::true_type {};

/// What may be passed to a kernel by value: arithmetic types, std::complex of float/double, and
/// float16_t (its 16 bits: the kernel declares it `half` on CUDA, and on OpenCL `half` where the
/// device has cl_khr_fp16, else a 16-bit integer type to read with vload_half).
template <class T>
concept KernelScalar = (std::is_arithmetic_v<T> || std::same_as<T, std::complex<float>> ||
                        std::same_as<T, std::complex<double>> || std::same_as<T, float16_t>) && sizeof(T) <= 16;

/// Other types (Array, MultiArray) become kernel arguments through a function
/// `detail::KernelArg pack_kernel_arg(const T&, const detail::LaunchTarget&)` found by ADL.
template <class T>
concept PackableByAdl = requires(const T& value, const LaunchTarget& target) {
    { pack_kernel_arg(value, target) } -> std::same_as<KernelArg>;
};

template <class T>
concept HostArgumentType = std::derived_from<T, HostArgument>;

template <class T>
concept KernelArgument = KernelScalar<T> || std::same_as<T, Buffer> || std::same_as<T, StructArg> ||
                         IsPerDevice<T>::value || PackableByAdl<T> || HostArgumentType<T>;

inline KernelArg pack(const StructArg& value, const LaunchTarget&) {
    KernelArg arg;
    arg.size = value.size();
    if (value.size() <= sizeof arg.scalar) {
        std::memcpy(arg.scalar, value.bytes(), value.size());
    } else {
        arg.bytes = value.bytes();
    }
    return arg;
}

inline KernelArg pack(const Buffer& buffer, const LaunchTarget&) {
    KernelArg arg;
    arg.kind = KernelArg::Kind::buffer;
    arg.buffer = backend_of(buffer).get();
    arg.offset = buffer.offset();
    arg.size = buffer.size();
    arg.device_index = buffer.device().index();
    arg.context = backend_of(buffer.device().context()).get();
    return arg;
}

template <KernelScalar T>
KernelArg pack(const T& value, const LaunchTarget&) {
    KernelArg arg;
    std::memcpy(arg.scalar, &value, sizeof(T));
    arg.size = sizeof(T);
    return arg;
}

template <PackableByAdl T>
KernelArg pack(const T& value, const LaunchTarget& target) {
    return pack_kernel_arg(value, target);
}

template <class T>
KernelArg pack(const PerDevice<T>& values, const LaunchTarget& target) {
    const std::size_t position = target.position;
    if (position >= values.values.size()) {
        throw ArgumentError("PerDevice", "has " + std::to_string(values.values.size()) +
                                             " values, but the launch goes to device position " +
                                             std::to_string(position));
    }
    return pack(values.values[position], target);
}

/// The temporary buffers of a launch's host arguments: copies in as each argument is packed, and
/// copies out (or waits for the kernel) in finish().
class HostArgumentStaging {
public:
    explicit HostArgumentStaging(const Queue& queue) : queue_(queue) {}
    template <class T>
    KernelArg pack_staged(const T& value, const LaunchTarget& target) {
        if constexpr (HostArgumentType<T>) {
            return pack(stage(value), target);
        } else {
            return pack(value, target);
        }
    }
    /// Copies the Out and InOut buffers back, waiting for them; with none, waits for the queue
    /// (the temporary buffers go when the staging does).
    void finish();

private:
    const Buffer& stage(const HostArgument& argument);
    const Queue& queue_;
    std::vector<std::pair<Buffer, const HostArgument*>> staged_;
};

}  // namespace detail

/// One kernel of a Program, not yet given sizes: prepare() it for sizes, or launch it directly with
/// its sizes and arguments. Copies share the kernel; it keeps its program alive.
class Kernel {
public:
    const std::string& name() const;
    /// Sizes for every device of the program; local chosen automatically when not given.
    PreparedKernel prepare(const Sizes& global_size, const std::optional<Sizes>& local_size = std::nullopt,
                           std::size_t local_mem = 0) const;
    /// Sizes per device (only those devices are prepared): keys are context device indices.
    PreparedKernel prepare(const std::map<std::size_t, Sizes>& global_sizes,
                           const std::map<std::size_t, std::optional<Sizes>>& local_sizes = {},
                           std::size_t local_mem = 0) const;
    /// Sizes from a total (see TotalSize), on every device of the program.
    /// (Named apart from prepare so that `prepare({n})` stays unambiguous.)
    PreparedKernel prepare_total(TotalSize total, std::size_t local_mem = 0) const;
    /// The global and local sizes TotalSize gives on a device (one extent each).
    std::pair<std::size_t, std::size_t> padded_sizes(const BoundDevice& device, TotalSize total) const;
    /// pygpu's GpuKernel.numargs: the parameters the kernel declares, as the driver reports them
    /// (OpenCL CL_KERNEL_NUM_ARGS; CUDA cuFuncGetParamCount or, on older drivers, the module image).
    std::size_t numargs() const;
    /// The most threads / work items per block for this kernel, per program device (in order).
    std::vector<std::size_t> max_total_local_sizes() const;
    KernelAttributes attributes(const BoundDevice& device) const;
    /// CUfunction / cl_kernel on a device, for interoperation with the raw API. (OpenCL: kjarni's
    /// launches stop skipping arguments they set before, since the handle's holder may set others.)
    std::uintptr_t native_handle(const BoundDevice& device) const;
    /// The kernel's L1 / shared memory preference on a device (PyCUDA's Function.set_cache_config;
    /// CUDA cuFuncSetCacheConfig). UnsupportedError on OpenCL.
    void set_cache_preference(const BoundDevice& device, CachePreference preference) const;
    /// The share of the L1 / shared memory the kernel prefers as shared memory, percent 0..100, or -1
    /// for the driver's default (CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT). UnsupportedError
    /// on OpenCL. (The most dynamic shared memory needs no setting: a launch asking for more than
    /// 48 KiB raises the kernel's limit itself, up to max_dynamic_local_bytes.)
    void set_shared_memory_carveout(const BoundDevice& device, int percent) const;
    /// Sets a kernel attribute on a device (PyCUDA's Function.set_attribute; cuFuncSetAttribute).
    /// ArgumentError naming "value" for a value out of the attribute's range (negative sizes,
    /// a carveout outside -1..100, a flag other than 0 or 1); UnsupportedError on OpenCL.
    void set_attribute(const BoundDevice& device, KernelAttribute attribute, int value) const;

    /// Prepares and launches in one go (grunnur's Kernel.__call__).
    template <detail::KernelArgument... Args>
    Event operator()(const Queue& queue, const Sizes& global_size, const std::optional<Sizes>& local_size,
                     const Args&... args) const;
    /// pygpu's `k(args..., n=n)`: prepares with TotalSize and launches on the queue's device.
    template <detail::KernelArgument... Args>
    Event operator()(const Queue& queue, TotalSize total, const Args&... args) const {
        const auto [global, local] = padded_sizes(queue.device(), total);
        return (*this)(queue, Sizes{global}, Sizes{local}, args...);
    }

private:
    friend class Program;
    explicit Kernel(std::shared_ptr<const detail::KernelState> state) : state_(std::move(state)) {}
    std::shared_ptr<const detail::KernelState> state_;
};

/// A kernel with its sizes fixed and checked, per device: the fast launch path.
class PreparedKernel {
public:
    /// Launches on the queue's device; returns an event marking the launch's end.
    /// Host arguments (In, Out, InOut) are copied in before and out after the launch, which then
    /// returns once the kernel has finished.
    template <detail::KernelArgument... Args>
    Event operator()(const Queue& queue, const Args&... args) const {
        [[maybe_unused]] const detail::LaunchTarget target{0, queue.device().index()};
        if constexpr ((detail::HostArgumentType<Args> || ...)) {
            detail::HostArgumentStaging staging(queue);
            // Braced initialisation packs (and stages) the arguments in order.
            const std::array<detail::KernelArg, sizeof...(Args)> packed{staging.pack_staged(args, target)...};
            Event event = detail::BackendAccess::make<Event>(launch(queue, packed, true));
            staging.finish();
            return event;
        } else {
            const std::array<detail::KernelArg, sizeof...(Args)> packed{detail::pack(args, target)...};
            return detail::BackendAccess::make<Event>(launch(queue, packed, true));
        }
    }
    /// Launches on every device of the multi-queue (each must be prepared); one event per device.
    template <detail::KernelArgument... Args>
    std::vector<Event> operator()(const MultiQueue& queue, const Args&... args) const {
        static_assert(!(detail::HostArgumentType<Args> || ...),
                      "host arguments (In, Out, InOut) go to launches on a single Queue");
        std::vector<Event> events;
        for (std::size_t position = 0; position < queue.queues().size(); ++position) {
            [[maybe_unused]] const detail::LaunchTarget target{position, queue.queues()[position].device().index()};
            const std::array<detail::KernelArg, sizeof...(Args)> packed{detail::pack(args, target)...};
            events.push_back(detail::BackendAccess::make<Event>(launch(queue.queues()[position], packed, true)));
        }
        return events;
    }
    /// Launches, waits for the launch, and returns the seconds it took on the device, measured by
    /// events recorded around it (PyCUDA's time_kernel=True).
    template <detail::KernelArgument... Args>
    double timed(const Queue& queue, const Args&... args) const {
        const Event start = queue.record_event();
        enqueue(queue, args...);
        const Event end = queue.record_event();
        end.wait();
        return end.time_since(start) * 1e-3;
    }
    /// The hot path: launches without making an event (no allocation, no string work, no look-up
    /// by name).
    template <detail::KernelArgument... Args>
    void enqueue(const Queue& queue, const Args&... args) const {
        if constexpr ((detail::HostArgumentType<Args> || ...)) {
            (*this)(queue, args...);  // host arguments need the staged launch
        } else {
            [[maybe_unused]] const detail::LaunchTarget target{0, queue.device().index()};
            const std::array<detail::KernelArg, sizeof...(Args)> packed{detail::pack(args, target)...};
            launch(queue, packed, false);
        }
    }

    /// Launches with arguments packed at run time (language bindings, where the count and the kinds
    /// are known only then); the same checks as operator(). With `want_event` the returned event
    /// marks the launch's end, else it is empty (null).
    std::shared_ptr<backend::Event> launch_packed(const Queue& queue, std::span<const detail::KernelArg> args,
                                                  bool want_event) const {
        return launch(queue, args, want_event);
    }
    /// The kernel with its queue and arguments fixed: they are checked and packed here, once, and
    /// the BoundKernel launches them as often as asked (for loops that launch a kernel with the
    /// same arguments, where packing and checking them would cost more than the launch's own
    /// driver call: see BoundKernel). The arguments are copied (handles share their memory, so
    /// buffers and arrays stay alive while the BoundKernel lives). No host arguments.
    template <detail::KernelArgument... Args>
    BoundKernel bind(const Queue& queue, const Args&... args) const;
    /// bind() with arguments packed at run time (language bindings): checks `args` as a launch
    /// would, and keeps `owner`, which must keep alive whatever the packed arguments point to
    /// (their buffers), as long as the BoundKernel and its copies live.
    BoundKernel bind_packed(const Queue& queue, std::vector<detail::KernelArg> args,
                            std::shared_ptr<const void> owner) const;
    /// The sizes used on a device (context index).
    const Sizes& global_size(std::size_t device_index) const;
    const Sizes& local_size(std::size_t device_index) const;

private:
    friend class Kernel;
    friend class StaticKernel;  // launches its per-device prepared kernels with packed arguments
    explicit PreparedKernel(std::shared_ptr<const detail::PreparedState> state) : state_(std::move(state)) {}
    std::shared_ptr<backend::Event> launch(const Queue& queue, std::span<const detail::KernelArg> args,
                                           bool want_event) const;
    std::shared_ptr<const detail::PreparedState> state_;
};

/// A PreparedKernel bound to a queue and to arguments checked once (PreparedKernel::bind): a launch
/// hands the packed arguments to the driver as they are, at the cost of the raw driver call plus
/// a few nanoseconds. Copies share the binding.
class BoundKernel {
public:
    /// Launches; returns an event marking the launch's end.
    Event operator()() const;
    /// Launches without making an event.
    void enqueue() const;
    const Queue& queue() const;

private:
    friend class PreparedKernel;
    explicit BoundKernel(std::shared_ptr<const detail::BoundState> state) : state_(std::move(state)) {}
    std::shared_ptr<const detail::BoundState> state_;
};

template <detail::KernelArgument... Args>
BoundKernel PreparedKernel::bind(const Queue& queue, const Args&... args) const {
    static_assert(!(detail::HostArgumentType<Args> || ...),
                  "host arguments (In, Out, InOut) are staged per launch: use operator() or enqueue()");
    // Packed from the kept copies, so that what the packed arguments point to (a struct's bytes)
    // lives as long as they do.
    auto kept = std::make_shared<const std::tuple<Args...>>(args...);
    [[maybe_unused]] const detail::LaunchTarget target{0, queue.device().index()};
    std::vector<detail::KernelArg> packed = std::apply(
        [&](const auto&... held) { return std::vector<detail::KernelArg>{detail::pack(held, target)...}; }, *kept);
    return bind_packed(queue, std::move(packed), std::move(kept));
}

template <detail::KernelArgument... Args>
Event Kernel::operator()(const Queue& queue, const Sizes& global_size, const std::optional<Sizes>& local_size,
                         const Args&... args) const {
    const std::map<std::size_t, Sizes> global{{queue.device().index(), global_size}};
    const std::map<std::size_t, std::optional<Sizes>> local{{queue.device().index(), local_size}};
    return prepare(global, local)(queue, args...);
}

}  // namespace kjarni
