#pragma once
// The source a device compiles: prelude, constant array declarations, then the user's code. Also
// the hook through which the test suite sees every program built (to compile it for CUDA with
// NVRTC as well, on machines without a GPU).

#include <functional>
#include <string>
#include <string_view>

#include "kjarni/api.hpp"
#include "kjarni/program.hpp"

namespace kjarni::detail {

/// The complete source for an API. UnsupportedError for constant arrays on OpenCL.
std::string full_source(const ApiId& api, std::string_view source, const ProgramOptions& options);

/// Called with every user source a Program compiled successfully (once per Program).
using BuildObserver = std::function<void(std::string_view source, const ProgramOptions& options)>;
/// Installs (or, with an empty function, removes) the process-wide observer.
void set_build_observer(BuildObserver observer);
void notify_build_observer(std::string_view source, const ProgramOptions& options);

}  // namespace kjarni::detail
