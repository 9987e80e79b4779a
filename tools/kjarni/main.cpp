// The kjarni command-line tool.

#include <CLI/CLI.hpp>

#include <iostream>

#include "info_command.hpp"
#include "kjarni/error.hpp"

int main(int argc, char** argv) {
    CLI::App app{"kjarni: GPU programming over CUDA and OpenCL"};
    app.require_subcommand(1);

    bool json = false;
    CLI::App* info = app.add_subcommand("info", "List every API, platform and device with its parameters");
    info->add_flag("--json", json, "Print JSON instead of a table");

    CLI11_PARSE(app, argc, argv);
    try {
        if (info->parsed()) {
            const auto data = kjarni::tool::collect_info();
            if (json) {
                std::cout << data.dump(2) << '\n';
            } else {
                kjarni::tool::print_info_table(data, std::cout);
            }
        }
    } catch (const kjarni::Error& e) {
        std::cerr << "kjarni: " << e.what() << '\n';
        return 1;
    }
    return 0;
}
