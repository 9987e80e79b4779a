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

struct PreparedEntry {
    std::size_t device_index = 0;
    backend::Kernel* kernel = nullptr;  // kept alive by PreparedState::source
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

}  // namespace kjarni::detail
