#pragma once
// The shared state behind Program, Kernel and PreparedKernel handles.

#include <array>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "backend/backend.hpp"
#include "kjarni/program.hpp"
#include "program/cache/bytes.hpp"

namespace kjarni::detail {

struct DeviceProgram {
    BoundDevice device;
    std::string source;
    std::shared_ptr<backend::Module> module;
    std::optional<std::filesystem::path> kept_files;
    /// The compiled code the module was loaded from (empty where the backend gives none).
    std::shared_ptr<const Bytes> binary;
};

struct ProgramState {
    BoundMultiDevice devices;
    ProgramOptions options;
    std::vector<DeviceProgram> programs;  // in the order of `devices`

    const DeviceProgram& on(const BoundDevice& device) const;
};

struct KernelState {
    std::shared_ptr<const ProgramState> program;
    std::string name;
    std::vector<std::shared_ptr<backend::Kernel>> kernels;  // in the order of program->programs
};

/// What a launch checks of a kernel parameter: ParamInfo without its names, so that the checks of
/// a launch read a few words per argument (the names are read only to report a mismatch).
struct ParamCheck {
    backend::ParamInfo::Kind kind = backend::ParamInfo::Kind::unknown;
    bool sampler_next = false;  // the next parameter is a sampler (an OpenCL sampled image's)
    /// Derived from kind and size for the launch's first, quick pass (see check_args): a Buffer
    /// fits (a global pointer, or a parameter CUDA reports only as 8 bytes or no size), a scalar
    /// of `size` bytes fits (any size where `size` is 0).
    bool takes_buffer = false;
    bool takes_scalar = false;
    std::size_t size = 0;
};

/// The checks of `params`, in order.
std::vector<ParamCheck> param_checks(const std::vector<backend::ParamInfo>& params);

struct PreparedEntry {
    std::size_t device_index = 0;
    backend::Kernel* kernel = nullptr;  // kept alive by PreparedState::source
    std::vector<ParamCheck> checks;     // of kernel->params()
    unsigned dims = 1;
    std::array<std::size_t, 3> global{};
    std::array<std::size_t, 3> local{};
    Sizes global_size;
    Sizes local_size;
};

struct PreparedState {
    std::shared_ptr<const KernelState> source;
    const backend::Context* context = nullptr;
    std::size_t local_mem = 0;
    std::vector<PreparedEntry> entries;
};

/// A BoundKernel: the queue's entry of a prepared kernel and arguments checked for it.
struct BoundState {
    std::shared_ptr<const PreparedState> prepared;
    Queue queue;
    const PreparedEntry* entry = nullptr;  // in *prepared
    std::vector<KernelArg> args;
    std::shared_ptr<const void> owner;  // what keeps the arguments' memory
};

}  // namespace kjarni::detail
