// kjarni_numpy_runner: runs a batch of the numpy fuzzer's programs with kjarni on one device and
// writes what every operation produced, for the Python side to compare with numpy
// (tests/numpy_fuzz/README.md).
//
//   kjarni_numpy_runner [--device SPECIFIER] [--gpu-forms] [--start N] BATCH_DIR
//
// --gpu-forms: a CPU device runs the kernels' GPU forms (what a GPU runs) instead of its CPU forms,
// so that the GPU forms are compared with numpy where there is no GPU.
//
// BATCH_DIR/programs.json holds {"programs": [...]}, BATCH_DIR/inputs.bin the inputs' bytes (each
// input C-contiguous at its "offset"). For each program from the N-th on, a line {"started": id}
// goes to BATCH_DIR/results.jsonl before it runs and its result line after (both flushed), so that
// after a crash the caller knows which program crashed and restarts the runner past it. One
// context and queue serve the whole batch, so kernels compiled for one program serve the next.
// The device is the first that SPECIFIER names (KJARNI_TEST's syntax; default: $KJARNI_TEST, else
// the first device of the first available API).

#include <fmt/format.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>

#include "interpreter.hpp"
#include "kjarni/device_specifier.hpp"
#include "kjarni/error.hpp"
#include "program/cpu_forms.hpp"

namespace kjarni::numpy_fuzz {
namespace {

// The bytes of every value written, in one file per runner process.
class ValueWriter {
public:
    ValueWriter(const std::string& dir, const std::string& file)
        : file_(file), out_(dir + "/" + file, std::ios::binary | std::ios::trunc) {}

    Json write(const Queue& queue, const Array& array) {
        const HostArray host = array.get(queue);
        Json ref = {{"blob", file_},
                    {"offset", offset_},
                    {"nbytes", host.nbytes()},
                    {"dtype", array.dtype().name()},
                    {"shape", array.shape()}};
        if (host.nbytes() > 0) {
            const auto bytes = host.bytes();
            out_.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
            offset_ += bytes.size();
        }
        out_.flush();
        return ref;
    }

private:
    std::string file_;
    std::ofstream out_;
    std::size_t offset_ = 0;
};

// The kjarni exception's class name (the most derived one of error.hpp).
Json error_of(const std::exception& e) {
    const char* type = "std::exception";
    if (dynamic_cast<const OutOfMemoryError*>(&e)) type = "OutOfMemoryError";
    else if (dynamic_cast<const BackendError*>(&e)) type = "BackendError";
    else if (dynamic_cast<const ApiUnavailableError*>(&e)) type = "ApiUnavailableError";
    else if (dynamic_cast<const NotFoundError*>(&e)) type = "NotFoundError";
    else if (dynamic_cast<const UnsupportedError*>(&e)) type = "UnsupportedError";
    else if (dynamic_cast<const CompileError*>(&e)) type = "CompileError";
    else if (dynamic_cast<const LinkError*>(&e)) type = "LinkError";
    else if (dynamic_cast<const ArgumentTypeError*>(&e)) type = "ArgumentTypeError";
    else if (dynamic_cast<const AxisError*>(&e)) type = "AxisError";
    else if (dynamic_cast<const IndexOutOfBoundsError*>(&e)) type = "IndexOutOfBoundsError";
    else if (dynamic_cast<const ScalarOverflowError*>(&e)) type = "ScalarOverflowError";
    else if (dynamic_cast<const ArgumentError*>(&e)) type = "ArgumentError";
    else if (dynamic_cast<const Error*>(&e)) type = "Error";
    else if (dynamic_cast<const ProgramError*>(&e)) type = "ProgramError";
    return {{"type", type}, {"message", e.what()}};
}

Json run_program(const Queue& queue, const Json& program, const std::vector<char>& inputs, ValueWriter& writer) {
    Json result = {{"id", program.at("id")}, {"snapshots", Json::array()}, {"error", nullptr}};
    ProgramState state{queue, {}};
    std::size_t op_index = 0;
    try {
        for (const Json& input : program.at("inputs")) {
            const DType dtype = dtype_named(input.at("dtype").get<std::string>());
            const auto shape = input.at("shape").get<std::vector<std::size_t>>();
            HostArray host(dtype, shape);
            const auto offset = input.at("offset").get<std::size_t>();
            if (offset + host.nbytes() > inputs.size()) throw ProgramError("input past the end of inputs.bin");
            if (host.nbytes() > 0) std::memcpy(host.data(), inputs.data() + offset, host.nbytes());
            state.values.insert_or_assign(input.at("name").get<std::string>(), Array::from_host(queue, host));
        }
        for (const Json& op : program.at("ops")) {
            for (const std::string& name : run_operation(state, op))
                result["snapshots"].push_back(
                    {{"op", op_index}, {"name", name}, {"value", writer.write(queue, state.at(name))}});
            ++op_index;
        }
    } catch (const std::exception& e) {
        result["error"] = error_of(e);
        result["error"]["op"] = op_index;
    }
    // Every array at the end (or where the program stopped), so that writes through views show.
    Json final = Json::object();
    try {
        for (const auto& [name, array] : state.values) final[name] = writer.write(queue, array);
    } catch (const std::exception& e) {
        result["final_error"] = error_of(e);
    }
    result["final"] = final;
    return result;
}

int run(int argc, char** argv) {
    std::string device_list = std::getenv("KJARNI_TEST") ? std::getenv("KJARNI_TEST") : "";
    std::size_t start = 0;
    std::string dir;
    for (int k = 1; k < argc; ++k) {
        const std::string arg = argv[k];
        if (arg == "--device" && k + 1 < argc) device_list = argv[++k];
        else if (arg == "--start" && k + 1 < argc) start = std::stoul(argv[++k]);
        else if (arg == "--gpu-forms") detail::allow_cpu_code(false);
        else if (!arg.empty() && arg[0] != '-' && dir.empty()) dir = arg;
        else {
            std::cerr << "usage: kjarni_numpy_runner [--device SPECIFIER] [--gpu-forms] [--start N] BATCH_DIR\n";
            return 2;
        }
    }
    if (dir.empty()) {
        std::cerr << "usage: kjarni_numpy_runner [--device SPECIFIER] [--gpu-forms] [--start N] BATCH_DIR\n";
        return 2;
    }
    std::ifstream programs_file(dir + "/programs.json");
    const Json batch = Json::parse(programs_file);
    std::ifstream inputs_file(dir + "/inputs.bin", std::ios::binary);
    const std::vector<char> inputs((std::istreambuf_iterator<char>(inputs_file)), std::istreambuf_iterator<char>());

    const Device device = devices_from_specifiers(device_list).at(0);
    Context context = Context::from_devices(device);
    Queue queue(context.devices()[0]);
    std::cerr << "kjarni_numpy_runner: " << device_specifier(device) << " (" << device.name() << ")\n";

    ValueWriter writer(dir, fmt::format("outputs-{}.bin", start));
    std::ofstream results(dir + "/results.jsonl", std::ios::app);
    const Json& programs = batch.at("programs");
    for (std::size_t k = start; k < programs.size(); ++k) {
        results << Json{{"started", programs[k].at("id")}}.dump() << '\n' << std::flush;
        results << run_program(queue, programs[k], inputs, writer).dump() << '\n' << std::flush;
    }
    return 0;
}

}  // namespace
}  // namespace kjarni::numpy_fuzz

int main(int argc, char** argv) {
    try {
        return kjarni::numpy_fuzz::run(argc, argv);
    } catch (const std::exception& e) {
        std::cerr << "kjarni_numpy_runner: " << e.what() << '\n';
        return 1;
    }
}
