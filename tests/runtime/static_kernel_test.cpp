// Static kernels with virtual sizes (reference 000 §3.3.9): for a sweep of virtual grids (1 to 6
// dimensions, odd sizes, more groups than one real dimension takes, explicit and automatic local
// sizes), a probe kernel counts the visits of every virtual global id and records each work item's
// ids and sizes; the host checks every id is visited exactly once, nothing else is written, and
// global = group x local size + local in every dimension.

#include <gtest/gtest.h>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdint>
#include <random>

#include "kjarni/static_kernel.hpp"
#include "program/static_kernel_state.hpp"
#include "support/random_data.hpp"
#include "support/test_devices.hpp"

namespace kjarni::test {
namespace {

// Per work item: for each virtual dimension and one past them, local id, group id, global id, local
// size, number of groups, global size; then the flat global size.
constexpr const char* probe_source = R"SRC(
KERNEL void probe(GLOBAL_MEM unsigned int* counter, GLOBAL_MEM unsigned int* records)
{
    if (${static.skip}()) return;
    VSIZE_T flat = ${static.global_flat_id}();
    const bool outside = flat >= ${static.global_flat_size}();
    if (outside) flat = ${static.global_flat_size}();  // counted on the first guard counter
#ifdef KJARNI_CUDA_API
    atomicAdd(counter + flat, 1u);
#else
    atomic_inc(counter + flat);
#endif
    if (outside) return;
% if record:
    GLOBAL_MEM unsigned int* r = records + flat * ${record_size};
% for d in range(dims + 1):
    r[${6 * d + 0}] = (unsigned int)${static.local_id}(${d});
    r[${6 * d + 1}] = (unsigned int)${static.group_id}(${d});
    r[${6 * d + 2}] = (unsigned int)${static.global_id}(${d});
    r[${6 * d + 3}] = (unsigned int)${static.local_size}(${d});
    r[${6 * d + 4}] = (unsigned int)${static.num_groups}(${d});
    r[${6 * d + 5}] = (unsigned int)${static.global_size}(${d});
% endfor
    r[${record_size - 1}] = (unsigned int)${static.global_flat_size}();
% endif
}
)SRC";

constexpr std::size_t guard = 64;  // counters past the grid, which must stay 0

std::size_t record_size(std::size_t dims) { return 6 * (dims + 1) + 1; }

std::size_t product(const Sizes& sizes) {
    std::size_t p = 1;
    for (std::size_t s : sizes) p *= s;
    return p;
}

std::string describe(const Sizes& global, const std::optional<Sizes>& local) {
    return fmt::format("global {} local {}", fmt::join(global, "x"),
                       local ? fmt::format("{}", fmt::join(*local, "x")) : std::string("auto"));
}

Globals probe_globals(const Sizes& global, bool record) {
    return {{"dims", global.size()}, {"record", record}, {"record_size", record_size(global.size())}};
}

struct Case {
    Sizes global;
    std::optional<Sizes> local;
};

class StaticKernels : public DeviceTest {
protected:
    StaticKernel probe(const Case& c, bool record = true) {
        return StaticKernel(bound_device(), TemplateSource{std::string(probe_source)}, "probe", c.global, c.local, {},
                            probe_globals(c.global, record));
    }

    // Runs the probe and checks what it wrote.
    ::testing::AssertionResult run_and_check(const StaticKernel& kernel, const Case& c, bool record = true) {
        const BoundDevice device = bound_device();
        const std::size_t dims = c.global.size();
        const std::size_t total = product(c.global);
        if (kernel.global_size(device) != c.global) return ::testing::AssertionFailure() << "global_size() differs";
        const Sizes local = kernel.local_size(device);
        if (local.size() != dims) return ::testing::AssertionFailure() << "local_size() has the wrong dimensions";
        if (c.local && local != *c.local) return ::testing::AssertionFailure() << "local_size() differs";
        const std::size_t max_total = std::min(device.params().max_total_local_size,
                                               kernel.program(device).kernel("probe").max_total_local_sizes().at(0));
        if (product(local) > max_total) {
            return ::testing::AssertionFailure()
                   << "local size " << fmt::format("{}", fmt::join(local, "x")) << " over the limit " << max_total;
        }

        auto counter = Buffer::allocate(device, (total + guard) * sizeof(std::uint32_t));
        const std::byte zero{0}, poison{0xff};
        counter.fill(queue(), std::span(&zero, 1));
        const std::size_t rs = record_size(dims);
        auto records = Buffer::allocate(device, (record ? total * rs : 1) * sizeof(std::uint32_t));
        records.fill(queue(), std::span(&poison, 1));
        kernel(queue(), counter, records);

        std::vector<std::uint32_t> counts(total + guard);
        counter.get(queue(), std::span<std::uint32_t>(counts));
        for (std::size_t i = 0; i < total + guard; ++i) {
            const std::uint32_t expected = i < total ? 1 : 0;
            if (counts[i] != expected) {
                return ::testing::AssertionFailure() << "counter " << i << " (of " << total << ") is " << counts[i];
            }
        }
        if (!record) return ::testing::AssertionSuccess();

        std::vector<std::uint32_t> r(total * rs);
        records.get(queue(), std::span<std::uint32_t>(r));
        Sizes id(dims, 0);  // the virtual global id of flat index i, the last dimension fastest
        for (std::size_t i = 0; i < total; ++i) {
            const std::uint32_t* rec = r.data() + i * rs;
            for (std::size_t d = 0; d <= dims; ++d) {
                const std::uint32_t* v = rec + 6 * d;
                const std::size_t l = d < dims ? local[d] : 1;
                const std::size_t g = d < dims ? c.global[d] : 1;
                const std::size_t n = d < dims ? (g + l - 1) / l : 1;
                const std::size_t want_id = d < dims ? id[d] : 0;
                const bool ok = v[2] == want_id && v[2] == v[1] * v[3] + v[0] && v[0] < l && v[1] < n && v[3] == l &&
                                v[4] == n && v[5] == g;
                if (!ok) {
                    return ::testing::AssertionFailure() << fmt::format(
                               "flat id {} (global id {}), dimension {}: local id {}, group id {}, global id {}, local "
                               "size {}, groups {}, global size {}; expected global id {}, local size {}, groups {}, "
                               "global size {}",
                               i, fmt::join(id, ","), d, v[0], v[1], v[2], v[3], v[4], v[5], want_id, l, n, g);
                }
            }
            if (rec[rs - 1] != total) {
                return ::testing::AssertionFailure() << "flat id " << i << ": global_flat_size " << rec[rs - 1];
            }
            for (std::size_t d = dims; d-- > 0;) {
                if (++id[d] < c.global[d]) break;
                id[d] = 0;
            }
        }
        return ::testing::AssertionSuccess();
    }
};

TEST_P(StaticKernels, SweepOfShapes) {
    const std::vector<Case> cases{
        {{1}, std::nullopt},
        {{97}, std::nullopt},
        {{97}, Sizes{16}},
        {{100003}, std::nullopt},
        {{7, 13}, std::nullopt},
        {{13, 7}, Sizes{4, 3}},
        {{5, 3}, Sizes{8, 4}},      // local larger than global
        {{3, 70001}, Sizes{1, 1}},  // more groups in dimension 1 than CUDA's y takes
        {{1, 1, 70001}, Sizes{1, 1, 1}},
        {{5, 7, 11}, Sizes{2, 3, 4}},
        {{97, 13, 3}, std::nullopt},
        {{3, 5, 7, 2}, std::nullopt},
        {{3, 5, 7, 2}, Sizes{2, 2, 2, 2}},
        {{3, 2, 5, 1, 7}, Sizes{1, 2, 3, 1, 2}},
        {{2, 3, 2, 5, 3, 7}, std::nullopt},
        {{2, 3, 2, 5, 3, 7}, Sizes{2, 1, 2, 3, 1, 4}},
        {{13, 1, 7, 1, 1, 9}, Sizes{5, 1, 2, 1, 1, 3}},
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(describe(c.global, c.local));
        EXPECT_TRUE(run_and_check(probe(c), c));
    }
}

TEST_P(StaticKernels, RandomShapes) {
    // Seeded by the suite's seed (printed; KJARNI_TEST_SEED replays it). Local sizes stay at or
    // below 256 work items per group, which every device takes.
    auto& engine = random_engine();
    for (int i = 0; i < 8; ++i) {
        const std::size_t dims = std::uniform_int_distribution<std::size_t>(1, 6)(engine);
        Case c;
        Sizes local;
        for (std::size_t d = 0; d < dims; ++d) {
            c.global.push_back(std::uniform_int_distribution<std::size_t>(1, dims <= 2 ? 300 : 12)(engine));
            local.push_back(std::uniform_int_distribution<std::size_t>(1, dims <= 2 ? 16 : 2)(engine));
        }
        if (i % 2 == 0) c.local = local;
        SCOPED_TRACE(describe(c.global, c.local));
        EXPECT_TRUE(run_and_check(probe(c), c));
    }
}

// The same probes within smaller limits than the device's, so that the groups spread over two or
// three real dimensions and the work items of a group over several real local dimensions.
TEST_P(StaticKernels, SpreadOverRealDimensionsWithinSmallLimits) {
    const BoundDevice device = bound_device();
    const std::vector<Case> cases{
        {{97, 13}, Sizes{4, 6}},  // 75 groups over 7 x 5 x ..., 24 work items over 8 x 3
        {{1000}, Sizes{3}},       // 334 groups
        {{30}, Sizes{1}},         // 30 groups: x and y
        {{37}, Sizes{1}},         // 37 groups over 7 x 3 x 2: spare groups, no padding in the grid
        {{2, 37}, Sizes{2, 1}},  {{3, 5, 7, 11, 2, 3}, std::nullopt}, {{17, 19}, Sizes{2, 16}},  // 32 work items: 8 x 4
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(describe(c.global, c.local));
        detail::StaticKernelRequest request{BoundMultiDevice(device.context(), {device.index()}),
                                            TemplateSource{std::string(probe_source)},
                                            "probe",
                                            PerDeviceSizes{{{device.index(), StaticSizes{c.global, c.local}}}},
                                            {},
                                            probe_globals(c.global, true),
                                            {},
                                            [](const BoundDevice& d) {
                                                DeviceParameters limits = d.params();
                                                const std::array<std::size_t, 3> groups{7, 5, 1000};
                                                const std::array<std::size_t, 3> locals{8, 4, 64};
                                                for (std::size_t i = 0; i < 3; ++i) {
                                                    limits.max_num_groups.at(i) =
                                                        std::min(limits.max_num_groups.at(i), groups[i]);
                                                    limits.max_local_sizes.at(i) =
                                                        std::min(limits.max_local_sizes.at(i), locals[i]);
                                                }
                                                return limits;
                                            }};
        const StaticKernel kernel(detail::build_static_kernel(request));
        const Sizes& real_global = kernel.real_global_size(device);
        const Sizes& real_local = kernel.real_local_size(device);
        EXPECT_GE(real_global.size(), 2u) << fmt::format("{}", fmt::join(real_global, "x"));
        for (std::size_t d = 0; d < real_global.size(); ++d) {
            EXPECT_LE(real_global[d] / real_local[d], d == 0 ? 7u : d == 1 ? 5u : 1000u);
            EXPECT_LE(real_local[d], d == 0 ? 8u : d == 1 ? 4u : 64u);
        }
        EXPECT_TRUE(run_and_check(kernel, c));
    }
}

// More groups than the device's own limit in real dimension 0, where the memory that takes is
// reasonable (not on GPUs, whose x dimension takes 2^31 - 1 groups).
TEST_P(StaticKernels, MoreGroupsThanTheDeviceTakesInOneDimension) {
    const std::size_t max_groups = bound_device().params().max_num_groups.at(0);
    constexpr std::size_t max_items = std::size_t{1} << 24;
    if (max_groups >= max_items) {
        GTEST_SKIP() << "the device takes " << max_groups << " groups in dimension 0; exceeding that needs more than "
                     << max_items << " counters";
    }
    const Case c{{2, max_groups / 2 + 3}, Sizes{1, 1}};
    const StaticKernel kernel = probe(c, false);
    EXPECT_GE(kernel.real_global_size(bound_device()).size(), 2u);
    EXPECT_TRUE(run_and_check(kernel, c, false));
}

TEST_P(StaticKernels, FunctionsPastTheVirtualDimensionsAndTheSource) {
    const Case c{{5, 3}, Sizes{2, 2}};
    const StaticKernel kernel = probe(c);
    const std::string& source = kernel.source(bound_device());
    EXPECT_NE(source.find("_mod_vsize_skip_"), std::string::npos);
    EXPECT_NE(source.find("KERNEL void probe"), std::string::npos);
    EXPECT_EQ(kernel.name(), "probe");
    EXPECT_EQ(kernel.devices().size(), 1u);
    EXPECT_TRUE(run_and_check(kernel, c));  // checks dimension 2 too: ids 0, sizes 1
}

TEST_P(StaticKernels, ScalarArgumentsAndEnqueue) {
    const std::string source = R"SRC(
KERNEL void scale(GLOBAL_MEM float* y, GLOBAL_MEM const float* x, float factor)
{
    if (${static.skip}()) return;
    const VSIZE_T i = ${static.global_flat_id}();
    y[i] = x[i] * factor;
}
)SRC";
    const Sizes global{33, 7};
    const std::size_t n = product(global);
    const StaticKernel kernel(bound_device(), TemplateSource{source}, "scale", global);
    const auto x = random_vector<float>(n, -10.0f, 10.0f);
    auto xb = Buffer::allocate(bound_device(), n * sizeof(float));
    auto yb = Buffer::allocate(bound_device(), n * sizeof(float));
    xb.set(queue(), std::span<const float>(x));
    kernel(queue(), yb, xb, 3.0f).wait();
    std::vector<float> y(n);
    yb.get(queue(), std::span<float>(y));
    for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(y[i], x[i] * 3.0f) << i;
    kernel.enqueue(queue(), yb, xb, -1.0f);
    yb.get(queue(), std::span<float>(y));
    for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(y[i], -x[i]) << i;
    EXPECT_THROW(kernel(queue(), yb, xb), ArgumentError);  // too few arguments
    // Bound once, launched twice on new input; a wrong argument is refused when bound.
    const BoundKernel halved = kernel.bind(queue(), yb, xb, 0.5f);
    for (int round = 0; round < 2; ++round) {
        const auto fresh = random_vector<float>(n, -10.0f, 10.0f);
        xb.set(queue(), std::span<const float>(fresh));
        halved.enqueue();
        yb.get(queue(), std::span<float>(y));
        for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(y[i], fresh[i] * 0.5f) << "round " << round << ", " << i;
    }
    EXPECT_THROW(kernel.bind(queue(), yb, xb, 0.5), ArgumentError);  // a double for a float
}

TEST_P(StaticKernels, LocalSizeBeyondTheDeviceLimitNamesBothLimits) {
    const std::size_t device_max = bound_device().params().max_total_local_size;
    const Case c{{device_max * 2, 3}, Sizes{device_max, 2}};
    try {
        probe(c);
        FAIL() << "no error";
    } catch (const ArgumentError& e) {
        const std::string message = e.what();
        EXPECT_NE(message.find(std::to_string(device_max * 2) + " work items per group"), std::string::npos) << message;
        EXPECT_NE(message.find("the device allows " + std::to_string(device_max)), std::string::npos) << message;
        EXPECT_NE(message.find("this kernel"), std::string::npos) << message;
    }
}

TEST_P(StaticKernels, LocalSizeBeyondTheKernelLimitNamesBothLimits) {
    // Claim a device twice as large as it is: the kernel's own limit (at most the real device's)
    // is what the local size runs into, once compiled.
    const BoundDevice device = bound_device();
    const std::size_t real_max = device.params().max_total_local_size;
    const Case c{{real_max * 2}, Sizes{real_max * 2}};
    detail::StaticKernelRequest request{BoundMultiDevice(device.context(), {device.index()}),
                                        TemplateSource{std::string(probe_source)},
                                        "probe",
                                        PerDeviceSizes{{{device.index(), StaticSizes{c.global, c.local}}}},
                                        {},
                                        probe_globals({9}, false),
                                        {},
                                        [](const BoundDevice& d) {
                                            DeviceParameters limits = d.params();
                                            limits.max_total_local_size *= 2;
                                            for (auto& l : limits.max_local_sizes) l *= 2;
                                            return limits;
                                        }};
    try {
        detail::build_static_kernel(request);
        FAIL() << "no error";
    } catch (const ArgumentError& e) {
        const std::string message = e.what();
        EXPECT_NE(message.find("the device allows " + std::to_string(real_max * 2) + " and this kernel "),
                  std::string::npos)
            << message;
    }
}

// On CUDA __launch_bounds__ lowers the kernel's own limit below the device's: the automatic local
// size is chosen again within it (after a first compilation), and an explicit one beyond it is an
// error naming both limits. Elsewhere the same source runs with the device's limits.
TEST_P(StaticKernels, AutomaticLocalSizeWithinTheKernelsLimit) {
    const std::string source = R"SRC(
KERNEL
#ifdef KJARNI_CUDA_API
__launch_bounds__(64)
#endif
void count(GLOBAL_MEM unsigned int* counter)
{
    if (${static.skip}()) return;
    counter[${static.global_flat_id}()] += 1u;
}
)SRC";
    const Sizes global{1000, 3};
    const StaticKernel kernel(bound_device(), TemplateSource{source}, "count", global);
    const std::size_t kernel_max = kernel.program(bound_device()).kernel("count").max_total_local_sizes().at(0);
    if (GetParam().api == "cuda") {
        EXPECT_EQ(kernel_max, 64u);
    }
    EXPECT_LE(product(kernel.local_size(bound_device())), kernel_max);
    auto counter = Buffer::allocate(bound_device(), 3000 * sizeof(std::uint32_t));
    const std::byte zero{0};
    counter.fill(queue(), std::span(&zero, 1));
    kernel(queue(), counter);
    std::vector<std::uint32_t> counts(3000);
    counter.get(queue(), std::span<std::uint32_t>(counts));
    for (std::size_t i = 0; i < counts.size(); ++i) ASSERT_EQ(counts[i], 1u) << i;

    if (GetParam().api != "cuda") return;
    try {
        StaticKernel(bound_device(), TemplateSource{source}, "count", global, Sizes{128, 1});
        FAIL() << "no error";
    } catch (const ArgumentError& e) {
        const std::string message = e.what();
        EXPECT_NE(message.find(fmt::format("the device allows {} and this kernel 64",
                                           bound_device().params().max_total_local_size)),
                  std::string::npos)
            << message;
    }
}

TEST_P(StaticKernels, MalformedSizesAreArgumentErrors) {
    auto make = [&](const Sizes& global, const std::optional<Sizes>& local) {
        return StaticKernel(bound_device(), TemplateSource{std::string(probe_source)}, "probe", global, local, {},
                            probe_globals(global, false));
    };
    EXPECT_THROW(make({}, std::nullopt), ArgumentError);
    EXPECT_THROW(make({4, 0}, std::nullopt), ArgumentError);
    EXPECT_THROW(make({4, 4}, Sizes{2}), ArgumentError);
    EXPECT_THROW(make({4, 4}, Sizes{2, 0}), ArgumentError);
    EXPECT_THROW(make(Sizes(StaticKernel::max_dims + 1, 1), std::nullopt), ArgumentError);
    EXPECT_NO_THROW(make(Sizes(StaticKernel::max_dims, 1), std::nullopt));
    // `static` is the kernel's.
    EXPECT_THROW(StaticKernel(bound_device(), TemplateSource{std::string(probe_source)}, "probe", {4}, std::nullopt, {},
                              {{"static", 1}, {"dims", 1}, {"record", false}, {"record_size", 1}}),
                 ArgumentError);
    // A launch on a device it was not built for.
    const Context other = Context::from_devices(GetParam().device());
    Queue other_queue(other.devices()[0]);
    const StaticKernel kernel = make({4}, std::nullopt);
    auto counter = Buffer::allocate(other.devices()[0], 64);
    EXPECT_THROW(kernel(other_queue, counter, counter), ArgumentError);
}

TEST_P(StaticKernels, TemplateWithArgumentsAndOwnModules) {
    const Module offset = Module::from_callable(
        {"prefix", "amount"}, [] { return "FUNCTION INLINE int ${prefix}(int v) { return v + ${amount}; }\n"; },
        "offset");
    const DefTemplate def = DefTemplate::from_string("k", {"kernel_name"}, R"(
KERNEL void ${kernel_name}(GLOBAL_MEM int* out)
{
    if (${static.skip}()) return;
    out[${static.global_flat_id}()] = ${add(5)}((int)${static.global_id}(1));
}
)");
    const Sizes global{3, 11};
    const StaticKernel kernel(bound_device(), TemplateSource{def}, "ids", global, Sizes{2, 4}, {"ids"},
                              {{"add", offset}});
    auto out = Buffer::allocate(bound_device(), 33 * sizeof(int));
    kernel(queue(), out);
    std::vector<int> back(33);
    out.get(queue(), std::span<int>(back));
    for (std::size_t i = 0; i < 33; ++i) EXPECT_EQ(back[i], static_cast<int>(i % 11) + 5) << i;  // (C order)
}

TEST_P(StaticKernels, ConstantArrays) {
    const std::string source = R"(
KERNEL void use(GLOBAL_MEM float* y)
{
    if (${static.skip}()) return;
    const VSIZE_T i = ${static.global_flat_id}();
    y[i] = coeffs[i] * 2.0f;
}
)";
    ProgramOptions options;
    options.constant_arrays["coeffs"] = {"float", 4, 16};
    if (GetParam().api != "cuda") {
        EXPECT_THROW(StaticKernel(bound_device(), TemplateSource{source}, "use", {16}, std::nullopt, {}, {}, options),
                     UnsupportedError);
        return;
    }
    const StaticKernel kernel(bound_device(), TemplateSource{source}, "use", {16}, std::nullopt, {}, {}, options);
    const auto values = random_vector<float>(16, -10.0f, 10.0f);
    kernel.set_constant_array(queue(), "coeffs", std::span<const float>(values));
    auto y = Buffer::allocate(bound_device(), 16 * sizeof(float));
    kernel(queue(), y);
    std::vector<float> back(16);
    y.get(queue(), std::span<float>(back));
    for (std::size_t i = 0; i < 16; ++i) EXPECT_EQ(back[i], values[i] * 2.0f);
}

KJARNI_INSTANTIATE_DEVICE_TESTS(StaticKernels);

TEST(MultiDeviceStaticKernels, SizesPerDeviceAndALaunchOnAMultiQueue) {
    Context* context = shared_multi_device_context();
    if (context == nullptr) GTEST_SKIP() << "no platform with two selected devices";
    const BoundMultiDevice devices = context->devices();
    PerDeviceSizes sizes;
    std::vector<Sizes> globals;
    for (std::size_t i = 0; i < devices.size(); ++i) {
        globals.push_back(Sizes{7 + 2 * i, 5, 3 + i});
        sizes.sizes[devices.indices()[i]] =
            StaticSizes{globals.back(), i % 2 == 0 ? std::optional<Sizes>(Sizes{2, 2, 2}) : std::nullopt};
    }
    const StaticKernel kernel(devices, TemplateSource{std::string(probe_source)}, "probe", sizes, {},
                              probe_globals(globals[0], false));
    EXPECT_EQ(kernel.devices(), devices);
    const MultiQueue mq = MultiQueue::on_devices(devices);
    PerDevice<Buffer> counters;
    const std::byte zero{0};
    for (std::size_t i = 0; i < devices.size(); ++i) {
        counters.values.push_back(Buffer::allocate(devices[i], (product(globals[i]) + guard) * sizeof(std::uint32_t)));
        counters.values.back().fill(mq.queues()[i], std::span(&zero, 1));
    }
    kernel(mq, counters, counters);
    for (std::size_t i = 0; i < devices.size(); ++i) {
        EXPECT_EQ(kernel.global_size(devices[i]), globals[i]);
        std::vector<std::uint32_t> counts(product(globals[i]) + guard);
        counters.values[i].get(mq.queues()[i], std::span<std::uint32_t>(counts));
        for (std::size_t j = 0; j < counts.size(); ++j) {
            ASSERT_EQ(counts[j], j < product(globals[i]) ? 1u : 0u) << "device " << i << ", counter " << j;
        }
    }
    // Only the first device.
    PerDeviceSizes first{{{devices.indices()[0], StaticSizes{{9}, std::nullopt}}}};
    const StaticKernel one(devices, TemplateSource{std::string(probe_source)}, "probe", first, {},
                           probe_globals({9}, false));
    EXPECT_EQ(one.devices().size(), 1u);
    EXPECT_THROW(one.source(devices[1]), ArgumentError);
    PerDeviceSizes stranger{{{99, StaticSizes{{9}, std::nullopt}}}};
    EXPECT_THROW(StaticKernel(devices, TemplateSource{std::string(probe_source)}, "probe", stranger, {},
                              probe_globals({9}, false)),
                 ArgumentError);
}

}  // namespace
}  // namespace kjarni::test
