#pragma once
// `kjarni compile FILE`: a kernel file compiled for a device, with the build log, each kernel's
// attributes, and the intermediate files (source, log, binary; PTX and cubin on CUDA) copied out.

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace kjarni::tool {

struct CompileRequest {
    std::string file;
    std::string device;                // api[:platform[:device]], empty: the default device
    bool render = false;               // the file is a template (implied by globals)
    std::vector<std::string> globals;  // NAME=VALUE
    bool no_prelude = false;
    bool fast_math = false;
    std::vector<std::string> compiler_options;
    std::vector<std::string> include_dirs;
    std::optional<std::string> output_dir;  // where the intermediate files are copied
};

/// Compiles (never from the caches) and reports: {"device", "api", "seconds", "log", "kernels",
/// "files"}. CompileError / RenderError propagate.
nlohmann::json compile_file(const CompileRequest& request);

void print_compile_report(const nlohmann::json& report, std::ostream& out);

}  // namespace kjarni::tool
