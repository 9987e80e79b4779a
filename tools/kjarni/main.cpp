// The kjarni command-line tool: info, render, compile, cache, bench (each with --json).

// GCC 12 sees a "potential null pointer dereference" in std::string code that CLI11's option
// parsing inlines here (a false positive in library code): not ours to fix, so not a warning here.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wnull-dereference"
#include <CLI/CLI.hpp>
#pragma GCC diagnostic pop

#include <exception>
#include <iostream>

#include "bench_command.hpp"
#include "cache_command.hpp"
#include "compile_command.hpp"
#include "info_command.hpp"
#include "kjarni/error.hpp"
#include "render_command.hpp"

namespace {

constexpr const char* device_help =
    "The device: api[:platform_regex[:device_regex]], cudaN, openclP:D or pci:BUS_ID (default: the first device)";

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{"kjarni: GPU programming over CUDA and OpenCL"};
    app.require_subcommand(1);
    bool json = false;
    constexpr const char* json_help = "Print JSON instead of text";

    CLI::App* info = app.add_subcommand("info", "List every API, platform and device with its parameters");
    info->add_flag("--json", json, json_help);

    kjarni::tool::RenderRequest render_request;
    std::string def_name;
    CLI::App* render = app.add_subcommand("render", "Render a template file (the Mako-style language) to source");
    render->add_option("file", render_request.file, "The template file")->required();
    render->add_option("-a,--arg", render_request.globals,
                       "A render global NAME=VALUE (VALUE read as JSON where it parses)");
    render->add_option("--def", def_name, "Render this <%def> instead of the top level");
    render->add_option("-p,--def-arg", render_request.def_args, "A positional argument of the def (JSON or text)");
    render->add_flag("--json", json, json_help);

    kjarni::tool::CompileRequest compile_request;
    std::string output_dir;
    CLI::App* compile =
        app.add_subcommand("compile", "Compile a kernel file for a device: log, kernel attributes, binary");
    compile->add_option("file", compile_request.file, "The kernel source (or template, with --render or -a)")
        ->required();
    compile->add_option("-d,--device", compile_request.device, device_help);
    compile->add_flag("--render", compile_request.render, "Render the file as a template first");
    compile->add_option("-a,--arg", compile_request.globals, "A render global NAME=VALUE (implies --render)");
    compile->add_flag("--no-prelude", compile_request.no_prelude, "Compile without kjarni's prelude");
    compile->add_flag("--fast-math", compile_request.fast_math, "Faster, less accurate math");
    compile->add_option("-O,--compiler-option", compile_request.compiler_options, "Passed to the compiler verbatim");
    compile->add_option("-I,--include-dir", compile_request.include_dirs, "An include directory");
    compile->add_option("-o,--output-dir", output_dir, "Copy the source, log and binary (PTX, cubin) here");
    compile->add_flag("--json", json, json_help);

    std::string cache_action;
    CLI::App* cache = app.add_subcommand("cache", "The on-disk cache of compiled programs");
    cache->add_option("action", cache_action, "size, list or clear")
        ->required()
        ->check(CLI::IsMember({"size", "list", "clear"}));
    cache->add_flag("--json", json, json_help);

    kjarni::tool::BenchRequest bench_request;
    CLI::App* bench = app.add_subcommand("bench", "A device's launch overhead and copy bandwidth");
    bench->add_option("-d,--device", bench_request.device, device_help);
    bench->add_option("--bytes", bench_request.bytes, "Bytes per copy")->capture_default_str();
    bench->add_option("--launches", bench_request.launches, "Launches timed")->capture_default_str();
    bench->add_option("--repetitions", bench_request.repetitions, "Runs of each copy (the best counts)")
        ->capture_default_str();
    bench->add_flag("--json", json, json_help);

    CLI11_PARSE(app, argc, argv);
    try {
        if (info->parsed()) {
            const auto data = kjarni::tool::collect_info();
            if (json) {
                std::cout << data.dump(2) << '\n';
            } else {
                kjarni::tool::print_info_table(data, std::cout);
            }
        } else if (render->parsed()) {
            if (!def_name.empty()) render_request.def = def_name;
            const std::string source = kjarni::tool::render_file(render_request);
            if (json) {
                std::cout << nlohmann::json{{"file", render_request.file}, {"source", source}}.dump(2) << '\n';
            } else {
                std::cout << source;
            }
        } else if (compile->parsed()) {
            if (!output_dir.empty()) compile_request.output_dir = output_dir;
            const auto report = kjarni::tool::compile_file(compile_request);
            if (json) {
                std::cout << report.dump(2) << '\n';
            } else {
                kjarni::tool::print_compile_report(report, std::cout);
            }
        } else if (cache->parsed()) {
            const auto report = kjarni::tool::cache_command(cache_action);
            if (json) {
                std::cout << report.dump(2) << '\n';
            } else {
                kjarni::tool::print_cache_report(cache_action, report, std::cout);
            }
        } else if (bench->parsed()) {
            const auto report = kjarni::tool::run_bench(bench_request);
            if (json) {
                std::cout << report.dump(2) << '\n';
            } else {
                kjarni::tool::print_bench_report(report, std::cout);
            }
        }
    } catch (const std::exception& e) {
        // kjarni errors (a template's position, a compile log) and file-system errors alike.
        if (json) {
            std::cout << kjarni::tool::error_json(e).dump(2) << '\n';
        } else {
            std::cerr << "kjarni: " << e.what() << '\n';
        }
        return 1;
    }
    return 0;
}
