#pragma once
// Faults injected into the real OpenCL backend: the entry points kjarni loads from the ICD loader
// (src/backend/opencl/opencl_library.hpp) are replaced with wrappers that count their calls and
// can fail the Nth one of a kind the way a driver does (an error code, a null handle with the code
// in errcode_ret). Everything above the driver (the backend, the public layer) runs unchanged, so
// every failure path kjarni has is exercised, RAII guards and cleanup included. The wrappers also
// keep the count of live handles (created or retained, not yet released) per kind of OpenCL object,
// so that a test sees a handle kjarni drops on an error path.

#include <array>
#include <cstddef>
#include <string>

namespace kjarni::test::faults {

/// What a call does, for the report and for choosing what to fail.
enum class CallKind : std::size_t { allocation, compilation, module_load, launch, copy, event, queue, context, count };

const char* name(CallKind kind);

/// Installs the wrappers (once; later calls do nothing). Must run before other threads use OpenCL.
void install();

/// Calls counted since reset(); the call numbered `fail_at` (1-based, across all kinds) fails.
void reset(std::size_t fail_at = 0);
std::size_t calls();
/// The kind and entry point of the call that was failed, if one was.
bool fired();
CallKind fired_kind();
const char* fired_function();

/// Live OpenCL handles per object kind: memory objects, programs, kernels, queues, contexts.
struct LiveHandles {
    std::array<long, 5> counts{};
    bool operator==(const LiveHandles&) const = default;
    std::string describe() const;
};
LiveHandles live_handles();

}  // namespace kjarni::test::faults
