// Virtual buffers: ZeroOffsetManager's physical bytes against the lower bound (the largest total of
// virtual allocations alive at once) on the temporaries of FFT-convolution pipelines, and against
// TrivialManager and one persistent buffer per temporary. A plain program printing a table.
//
// The pipeline (complex64): pad the signal and the kernel to 2N, forward FFT of each as radix-4
// passes ping-ponging between temporaries (a twiddle table alive during each FFT), pointwise product,
// inverse FFT, crop to N, and a reduction to a small vector of per-batch norms. Every temporary is
// allocated with the virtual allocations alive at that moment as its dependencies (all of them hold
// data still needed), and goes after its last use.

#include <fmt/core.h>

#include <algorithm>
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "kjarni/kjarni.hpp"

namespace {

struct Op {
    std::size_t size;         // bytes of the output temporary
    std::vector<int> inputs;  // indices of earlier ops' outputs
};

std::vector<Op> fft_convolution(std::size_t n, std::size_t batch) {
    constexpr std::size_t complex64 = 8;
    std::vector<Op> ops;
    auto add = [&](std::size_t size, std::vector<int> inputs) {
        ops.push_back({size, std::move(inputs)});
        return static_cast<int>(ops.size()) - 1;
    };
    const std::size_t padded = 2 * n;
    auto fft = [&](int input, bool inverse) {
        const int twiddles = add(padded / 2 * complex64, {});
        (void)inverse;
        int current = input;
        for (std::size_t stride = 1; stride < padded; stride *= 4) {
            current = add(padded * batch * complex64, {current, twiddles});
        }
        return current;
    };
    const int signal = add(padded * batch * complex64, {});          // padded copy of the input
    const int kernel = add(padded * complex64, {});                  // padded kernel (one for the batch)
    const int kernel_b = add(padded * batch * complex64, {kernel});  // broadcast over the batch
    const int fs = fft(signal, false);
    const int fk = fft(kernel_b, false);
    const int product = add(padded * batch * complex64, {fs, fk});
    const int back = fft(product, true);
    const int cropped = add(n * batch * complex64, {back});
    add(batch * 4, {cropped});  // per-batch norms (float32): the pipeline's result
    return ops;
}

struct Figures {
    std::size_t lower_bound = 0;  // the largest live total
    std::size_t persistent = 0;   // one buffer per temporary
    std::size_t real_bytes = 0;   // the manager's real allocations after the run
    std::size_t real_num = 0;
    std::size_t peak_real_bytes = 0;
};

Figures run(const kjarni::VirtualManager& manager, const std::vector<Op>& ops, int repeats) {
    std::vector<int> last_use(ops.size());
    for (std::size_t i = 0; i < ops.size(); ++i) {
        last_use[i] = static_cast<int>(i);
        for (int input : ops[i].inputs) last_use[static_cast<std::size_t>(input)] = static_cast<int>(i);
    }
    Figures f;
    for (int r = 0; r < repeats; ++r) {
        std::vector<std::optional<kjarni::Buffer>> live(ops.size());
        for (std::size_t i = 0; i < ops.size(); ++i) {
            std::vector<kjarni::Buffer> dependencies;
            for (const auto& b : live) {
                if (b) dependencies.push_back(*b);
            }
            live[i] = manager.allocator(dependencies)(manager.device(), ops[i].size);
            f.persistent += r == 0 ? ops[i].size : 0;
            const auto stats = manager.statistics();
            f.lower_bound = std::max(f.lower_bound, stats.virtual_size_total);
            f.peak_real_bytes = std::max(f.peak_real_bytes, stats.real_size_total);
            for (std::size_t j = 0; j <= i; ++j) {
                if (last_use[j] == static_cast<int>(i) && j != ops.size() - 1) live[j].reset();
            }
        }
    }
    const auto stats = manager.statistics();
    f.real_bytes = stats.real_size_total;
    f.real_num = stats.real_num;
    return f;
}

std::string mib(std::size_t bytes) { return fmt::format("{:.2f}", static_cast<double>(bytes) / (1 << 20)); }

}  // namespace

int main() {
    std::optional<kjarni::BoundDevice> device;
    std::optional<kjarni::Context> context;
    for (const kjarni::Api& api : kjarni::Api::all_available()) {
        for (const kjarni::Platform& platform : api.platforms()) {
            if (!platform.devices().empty() && !context) {
                context = kjarni::Context::from_devices(platform.devices()[0]);
                fmt::print("device: {} ({})\n", platform.devices()[0].name(), api.shortcut());
            }
        }
    }
    if (!context) {
        fmt::print("no device\n");
        return 1;
    }
    const kjarni::BoundDevice bound = context->devices()[0];
    fmt::print("{:>9} {:>6} {:>4} | {:>11} {:>11} {:>11} {:>9} | {:>11} {:>9} | {:>13}\n", "N", "batch", "ops",
               "persist MiB", "lower MiB", "zero-off MiB", "zero/low", "trivial pk", "triv/low", "zero reals");
    for (auto [n, batch] :
         {std::pair<std::size_t, std::size_t>{1 << 10, 64}, {1 << 14, 16}, {1 << 16, 4}, {1 << 18, 1}}) {
        const auto ops = fft_convolution(n, batch);
        kjarni::ZeroOffsetManager zero(bound);
        kjarni::TrivialManager trivial(bound);
        const Figures z = run(zero, ops, 3);
        const Figures t = run(trivial, ops, 1);
        fmt::print("{:>9} {:>6} {:>4} | {:>11} {:>11} {:>11} {:>9.3f} | {:>11} {:>9.3f} | {:>13}\n", n, batch,
                   ops.size(), mib(z.persistent), mib(z.lower_bound), mib(z.real_bytes),
                   static_cast<double>(z.real_bytes) / static_cast<double>(z.lower_bound), mib(t.peak_real_bytes),
                   static_cast<double>(t.peak_real_bytes) / static_cast<double>(t.lower_bound), z.real_num);
    }
    fmt::print("zero-off: ZeroOffsetManager's real bytes after 3 runs of the pipeline (reused, none new after the "
               "first);\ntrivial pk: TrivialManager's peak real bytes (it allocates and frees every temporary, "
               "every run).\n");
    return 0;
}
