// Searches CLBlast's Xgemm parameters for one OpenCL device at the size that matters (8192^3
// SGEMM by default), where CLBlast's own tuner (scripts/tune-clblast.sh) measures at 1024^3 on a
// random sample of a huge space. This walks a focused part of the space (the large tiles that GPUs
// of today favour), in one process: for each valid configuration it hands the parameters to
// CLBlastOverrideParameters, clears CLBlast's program cache, and times CLBlastSgemm (one untimed
// call, then the median of five). It prints one line per configuration and, at the end, the best
// as the JSON file that data/clblast/ holds (scripts/tune-clblast.sh's format).
//
//   kjarni_clblast_gemm_search [platform word, default NVIDIA] [seconds, default 240] [n, default 8192]
//
// Environment: KJARNI_SEARCH_SEED (default 1) orders the configurations; the search stops when the
// time is spent.

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <dlfcn.h>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <clblast_c.h>
#include <fmt/format.h>

#include "kjarni/kjarni.hpp"

namespace {

struct Config {
    std::vector<std::pair<const char*, std::size_t>> p;
    std::size_t get(const char* name) const {
        for (const auto& [n, v] : p)
            if (std::string(n) == name) return v;
        return 0;
    }
    std::string json(int indent) const {
        std::string out;
        for (std::size_t i = 0; i < p.size(); ++i)
            out += fmt::format("{:{}}\"{}\": {}{}\n", "", indent, p[i].first, p[i].second, i + 1 < p.size() ? "," : "");
        return out;
    }
};

bool multiple(std::size_t x, std::size_t y) { return y != 0 && x % y == 0; }

/// The Xgemm (GEMMK=0) configurations CLBlast's constraints allow, within 48 KiB of local memory,
/// among large work-group tiles.
std::vector<Config> candidates() {
    std::vector<Config> out;
    for (std::size_t mwg : {64UL, 128UL})
        for (std::size_t nwg : {64UL, 128UL})
            for (std::size_t kwg : {16UL, 32UL})
                for (std::size_t mdimc : {8UL, 16UL, 32UL})
                    for (std::size_t ndimc : {8UL, 16UL, 32UL})
                        for (std::size_t mdima : {8UL, 16UL, 32UL})
                            for (std::size_t ndimb : {8UL, 16UL, 32UL})
                                for (std::size_t vwm : {2UL, 4UL, 8UL})
                                    for (std::size_t vwn : {2UL, 4UL, 8UL})
                                        for (std::size_t kwi : {2UL, 8UL})
                                            for (std::size_t strm : {0UL, 1UL})
                                                for (std::size_t strn : {0UL, 1UL}) {
                                                    const std::size_t threads = mdimc * ndimc;
                                                    if (threads < 128 || threads > 256) continue;
                                                    if (!multiple(kwg, kwi) || !multiple(mwg, mdimc * vwm) ||
                                                        !multiple(nwg, ndimc * vwn) || !multiple(mwg, mdima * vwm) ||
                                                        !multiple(nwg, ndimb * vwn) || !multiple(kwg, threads / mdima) ||
                                                        !multiple(kwg, threads / ndimb) || threads % mdima != 0 ||
                                                        threads % ndimb != 0)
                                                        continue;
                                                    if (4 * (kwg * mwg + kwg * nwg) > 48 * 1024) continue;
                                                    // At most 64 accumulators per work item (registers).
                                                    if ((mwg / mdimc) * (nwg / ndimc) > 64) continue;
                                                    out.push_back(Config{{{"GEMMK", 0}, {"KREG", 1}, {"KWG", kwg},
                                                                          {"KWI", kwi}, {"MDIMA", mdima},
                                                                          {"MDIMC", mdimc}, {"MWG", mwg},
                                                                          {"NDIMB", ndimb}, {"NDIMC", ndimc},
                                                                          {"NWG", nwg}, {"SA", 1}, {"SB", 1},
                                                                          {"STRM", strm}, {"STRN", strn},
                                                                          {"VWM", vwm}, {"VWN", vwn}}});
                                                }
    return out;
}

template <class Fn>
Fn load(void* library, const char* name) {
    return library == nullptr ? nullptr : reinterpret_cast<Fn>(dlsym(library, name));
}

}  // namespace

int main(int argc, char** argv) {
    const std::string word = argc > 1 ? argv[1] : "NVIDIA";
    const double budget = argc > 2 ? std::stod(argv[2]) : 240.0;
    const std::size_t n = argc > 3 ? std::stoul(argv[3]) : 8192;
    void* library = dlopen("libclblast.so.1", RTLD_NOW | RTLD_LOCAL);
    const auto sgemm = load<decltype(&::CLBlastSgemm)>(library, "CLBlastSgemm");
    const auto override_parameters = load<decltype(&::CLBlastOverrideParameters)>(library, "CLBlastOverrideParameters");
    const auto clear = load<decltype(&::CLBlastClearCache)>(library, "CLBlastClearCache");
    if (!sgemm || !override_parameters || !clear) {
        fmt::print(stderr, "libclblast.so.1 not found\n");
        return 1;
    }
    std::optional<kjarni::Device> device;
    for (const kjarni::Platform& platform : kjarni::Api::from_api_id(kjarni::ApiId::opencl()).platforms())
        if (platform.name().find(word) != std::string::npos && !platform.devices().empty()) device = platform.devices()[0];
    if (!device) {
        fmt::print(stderr, "no OpenCL platform named like '{}'\n", word);
        return 1;
    }
    const auto context = kjarni::Context::from_devices(*device);
    const kjarni::Queue queue(context.devices()[0]);
    const kjarni::DType dtype = kjarni::DType::of<float>();
    std::mt19937 engine(1);
    std::uniform_real_distribution<float> uniform(-1.0F, 1.0F);
    kjarni::HostArray host(dtype, {n, n});
    for (std::size_t i = 0; i < n * n; ++i) reinterpret_cast<float*>(host.data())[i] = uniform(engine);
    const auto a = kjarni::Array::from_host(queue, host);
    const auto b = kjarni::Array::from_host(queue, host);
    auto c = kjarni::Array::zeros(queue, {n, n}, dtype);
    cl_command_queue q = reinterpret_cast<cl_command_queue>(queue.native_handle());
    const auto mem = [](const kjarni::Array& x) { return reinterpret_cast<cl_mem>(x.base().native_handle()); };
    cl_device_id cl_device = reinterpret_cast<cl_device_id>(device->native_handle());
    const auto run = [&]() {
        return sgemm(CLBlastLayoutColMajor, CLBlastTransposeNo, CLBlastTransposeNo, n, n, n, 1.0F, mem(b), 0, n,
                     mem(a), 0, n, 0.0F, mem(c), 0, n, &q, nullptr);
    };
    const double flop = 2.0 * static_cast<double>(n) * static_cast<double>(n) * static_cast<double>(n);
    const auto time_one = [&]() {  // TFLOP/s of the median of five, after one untimed call; 0 when it fails
        if (run() != CLBlastSuccess) return 0.0;
        queue.synchronize();
        std::vector<double> seconds;
        for (int r = 0; r < 5; ++r) {
            const auto t0 = std::chrono::steady_clock::now();
            if (run() != CLBlastSuccess) return 0.0;
            queue.synchronize();
            seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
        }
        std::sort(seconds.begin(), seconds.end());
        return flop / seconds[2] / 1e12;
    };
    const double builtin = time_one();
    fmt::print("CLBlast's own parameters: {:.2f} TFLOP/s\n", builtin);

    std::vector<Config> all = candidates();
    const char* seed = std::getenv("KJARNI_SEARCH_SEED");
    std::shuffle(all.begin(), all.end(), std::mt19937(seed ? static_cast<unsigned>(std::stoul(seed)) : 1U));
    fmt::print("{} configurations; searching for {} s\n", all.size(), budget);
    const auto start = std::chrono::steady_clock::now();
    double best = 0;
    Config best_config;
    std::size_t tried = 0;
    for (const Config& config : all) {
        if (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() > budget) break;
        std::vector<const char*> names;
        std::vector<std::size_t> values;
        for (const auto& [name, value] : config.p) {
            names.push_back(name);
            values.push_back(value);
        }
        if (override_parameters(cl_device, "Xgemm", CLBlastPrecisionSingle, names.size(), names.data(),
                                values.data()) != CLBlastSuccess)
            continue;
        clear();
        const double tflops = time_one();
        ++tried;
        std::string line;
        for (const auto& [name, value] : config.p) line += fmt::format("{}={} ", name, value);
        fmt::print("{:.2f} TFLOP/s  {}\n", tflops, line);
        std::fflush(stdout);
        if (tflops > best) {
            best = tflops;
            best_config = config;
        }
    }
    fmt::print("tried {}; best {:.2f} TFLOP/s (CLBlast's own {:.2f})\n", tried, best, builtin);
    fmt::print("{{\n  \"device\": \"{}\",\n  \"tool\": \"kjarni_clblast_gemm_search (n={})\",\n  \"kernels\": [\n    {{\n"
               "      \"kernel\": \"Xgemm\",\n      \"precision\": 32,\n      \"parameters\": {{\n{}      }}\n    }}\n  ]\n}}\n",
               queue.device().name(), n, best_config.json(8));
    return 0;
}
