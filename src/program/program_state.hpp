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
#include "program/checked_launch.hpp"

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

/// A PreparedKernel on one device: the kernel checked by every launch (its backend kernel kept
/// alive by PreparedState::source) and the sizes checked when prepared.
struct PreparedEntry {
    CheckedKernel checked;
    unsigned dims = 1;
    std::array<std::size_t, 3> global{};
    std::array<std::size_t, 3> local{};
    Sizes global_size;
    Sizes local_size;
};

struct PreparedState {
    std::shared_ptr<const KernelState> source;
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
