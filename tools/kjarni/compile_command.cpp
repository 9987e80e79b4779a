#include "compile_command.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "common.hpp"
#include "kjarni/error.hpp"
#include "kjarni/program_templates.hpp"  // renders templates: Program from a TemplateSource

namespace kjarni::tool {

namespace {

std::string read_text(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw ArgumentError("FILE", "cannot read " + path.string());
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

nlohmann::json attributes_json(const KernelAttributes& a) {
    return {{"max_total_local_size", a.max_total_local_size},
            {"registers", a.registers},
            {"shared_bytes", a.shared_bytes},
            {"const_bytes", a.const_bytes},
            {"local_bytes", a.local_bytes},
            {"max_dynamic_local_bytes", a.max_dynamic_local_bytes},
            {"preferred_local_size_multiple", a.preferred_local_size_multiple}};
}

}  // namespace

nlohmann::json compile_file(const CompileRequest& request) {
    const std::string text = read_text(request.file);
    const BoundDevice device = choose_device(request.device);
    ProgramOptions options;
    options.no_prelude = request.no_prelude;
    options.fast_math = request.fast_math;
    options.compiler_options = request.compiler_options;
    options.include_dirs = request.include_dirs;
    options.keep = true;  // the intermediate files; kept programs are always compiled afresh

    const auto start = std::chrono::steady_clock::now();
    const bool render = request.render || !request.globals.empty();
    const Program program = render ? Program(device, TemplateSource(text), {}, parse_globals(request.globals), options)
                                   : Program(device, std::string_view(text), options);
    const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;

    nlohmann::json kernels = nlohmann::json::object();
    for (const std::string& name : program.kernel_names()) {
        kernels[name] = attributes_json(program.kernel(name).attributes(device));
    }
    nlohmann::json files = nlohmann::json::array();
    std::string log;
    if (const auto kept = program.kept_files(device)) {
        if (std::filesystem::exists(*kept / "build.log")) log = read_text(*kept / "build.log");
        if (request.output_dir) std::filesystem::create_directories(*request.output_dir);
        for (const auto& entry : std::filesystem::directory_iterator(*kept)) {
            std::filesystem::path path = entry.path();
            if (request.output_dir) {
                const std::filesystem::path target = std::filesystem::path(*request.output_dir) / path.filename();
                std::filesystem::copy_file(path, target, std::filesystem::copy_options::overwrite_existing);
                path = target;
            }
            files.push_back(path.string());
        }
    }
    return {{"file", request.file},
            {"device", device.name()},
            {"api", device.context().api().id().shortcut()},
            {"seconds", elapsed.count()},
            {"log", log},
            {"kernels", kernels},
            {"files", files}};
}

void print_compile_report(const nlohmann::json& report, std::ostream& out) {
    fmt::print(out, "{}: compiled for {} ({}) in {:.3f} s\n", report["file"].get<std::string>(),
               report["device"].get<std::string>(), report["api"].get<std::string>(), report["seconds"].get<double>());
    for (const auto& [name, a] : report["kernels"].items()) {
        fmt::print(out, "  kernel {}: max_total_local_size {}, registers {}, shared {} B, local {} B, const {} B\n",
                   name, a["max_total_local_size"].get<std::size_t>(), a["registers"].get<std::size_t>(),
                   a["shared_bytes"].get<std::size_t>(), a["local_bytes"].get<std::size_t>(),
                   a["const_bytes"].get<std::size_t>());
    }
    const std::string log = report["log"].get<std::string>();
    if (!log.empty()) fmt::print(out, "build log:\n{}\n", log);
    for (const auto& file : report["files"]) fmt::print(out, "  file {}\n", file.get<std::string>());
}

}  // namespace kjarni::tool
