// Device characterization: the vendor rules on device descriptions, the local-memory conflict
// analysis against a brute-force simulation of the banks, byte by byte, and the queries on the
// devices under test.

#include <gtest/gtest.h>

#include <map>
#include <numeric>
#include <set>
#include <vector>

#include "backend/backend.hpp"
#include "support/random_data.hpp"
#include "support/test_devices.hpp"

namespace kjarni::test {
namespace {

using namespace kjarni::characterize;

DeviceFacts nvidia(int major, int minor) {
    DeviceFacts facts;
    facts.cuda = true;
    facts.vendor = "NVIDIA Corporation";
    facts.type = DeviceType::gpu;
    facts.compute_capability = ComputeCapability{major, minor};
    facts.warp_size = 32;
    facts.local_mem_size = 49152;
    return facts;
}

DeviceFacts opencl_device(std::string vendor, DeviceType type, std::size_t warp_size) {
    DeviceFacts facts;
    facts.vendor = std::move(vendor);
    facts.type = type;
    facts.warp_size = warp_size;
    facts.local_mem_size = 65536;
    facts.unified_memory = type == DeviceType::cpu;
    return facts;
}

// The reference: every byte of every work item's item, its word and bank; a bank needs as many
// passes as it has distinct words.
std::size_t simulated_passes(std::size_t banks, std::size_t granularity, std::size_t itemsize,
                             const std::vector<std::size_t>& offsets) {
    std::map<std::size_t, std::set<std::size_t>> words;
    for (const std::size_t offset : offsets) {
        for (std::size_t byte = offset * itemsize; byte < (offset + 1) * itemsize; ++byte) {
            words[(byte / granularity) % banks].insert(byte / granularity);
        }
    }
    std::size_t passes = 1;
    for (const auto& [bank, set] : words) passes = std::max(passes, set.size());
    return passes;
}

TEST(Characterize, VendorRules) {
    EXPECT_EQ(vendor_of("NVIDIA Corporation"), Vendor::nvidia);
    EXPECT_EQ(vendor_of("Advanced Micro Devices, Inc."), Vendor::amd);
    EXPECT_EQ(vendor_of("Intel(R) Corporation"), Vendor::intel);
    EXPECT_EQ(vendor_of("GenuineIntel"), Vendor::intel);
    EXPECT_EQ(vendor_of("Apple"), Vendor::apple);
    EXPECT_EQ(vendor_of("ARM"), Vendor::arm);
    EXPECT_EQ(vendor_of("QUALCOMM"), Vendor::other);  // not "Qualcomm": unknown, said so
    EXPECT_EQ(vendor_of("Portable Computing Language"), Vendor::other);

    for (int major : {2, 3, 5, 6, 7, 8, 9, 10, 12}) {
        const auto banks = local_memory_banks(nvidia(major, 0));
        ASSERT_TRUE(banks) << major;
        EXPECT_EQ(banks->count, 32u);
        EXPECT_EQ(banks->granularity, 4u);
        EXPECT_EQ(banks->simultaneous_work_items, 32u);
        EXPECT_EQ(usable_local_mem_size(nvidia(major, 0)), 49152u);
        EXPECT_EQ(usable_local_mem_size(nvidia(major, 0), 10), 49152u);
    }
    const auto tesla = local_memory_banks(nvidia(1, 3));
    ASSERT_TRUE(tesla);
    EXPECT_EQ(tesla->count, 16u);
    EXPECT_EQ(tesla->simultaneous_work_items, 16u);
    EXPECT_EQ(usable_local_mem_size(nvidia(1, 3)), 49152u - 256u);
    EXPECT_EQ(usable_local_mem_size(nvidia(1, 3), 5), 49152u - 20u);

    DeviceFacts unknown_cc = nvidia(8, 0);
    unknown_cc.compute_capability.reset();
    EXPECT_FALSE(local_memory_banks(unknown_cc));
    EXPECT_NE(local_memory_banks_unknown_reason(unknown_cc).find("compute capability"), std::string::npos);

    const DeviceFacts amd = opencl_device("Advanced Micro Devices, Inc.", DeviceType::gpu, 64);
    ASSERT_TRUE(local_memory_banks(amd));
    EXPECT_EQ(local_memory_banks(amd)->count, 32u);
    EXPECT_EQ(simd_group_size(amd, 4), 64u);
    const DeviceFacts intel = opencl_device("Intel(R) Corporation", DeviceType::gpu, 1);
    EXPECT_FALSE(local_memory_banks(intel));
    EXPECT_FALSE(simd_group_size(intel, 4));  // no API number: unknown, not guessed
    EXPECT_NE(local_memory_banks_unknown_reason(intel).find("Intel"), std::string::npos);
    DeviceFacts cpu = opencl_device("GenuineIntel", DeviceType::cpu, 1);
    cpu.native_vector_width_1 = 32;
    cpu.native_vector_width_4 = 8;
    EXPECT_FALSE(local_memory_banks(cpu));
    EXPECT_EQ(local_memory_banks_unknown_reason(cpu), "a CPU serves local memory from its caches: it has no banks");
    EXPECT_EQ(simd_group_size(cpu, 1), 32u);
    EXPECT_EQ(simd_group_size(cpu, 4), 8u);
    EXPECT_FALSE(simd_group_size(cpu, 8));
    EXPECT_EQ(simd_group_size(nvidia(9, 0), 1), 32u);
    EXPECT_EQ(simd_group_size(nvidia(9, 0), 8), 32u);
    EXPECT_THROW(simd_group_size(cpu, 3), ArgumentError);
    EXPECT_THROW(simd_group_size(cpu, 16), ArgumentError);

    EXPECT_EQ(fast_inaccurate_build_options(nvidia(9, 0)).front(), "--use_fast_math");
    const auto cl_options = fast_inaccurate_build_options(cpu);
    EXPECT_NE(std::find(cl_options.begin(), cl_options.end(), "-cl-fast-relaxed-math"), cl_options.end());
    EXPECT_NE(std::find(cl_options.begin(), cl_options.end(), "-cl-mad-enable"), cl_options.end());
}

TEST(Characterize, DriverQuirks) {
    EXPECT_TRUE(driver_quirks(nvidia(9, 0)).empty());  // every known quirk is an OpenCL driver's
    DeviceFacts nv_cl = nvidia(9, 0);
    nv_cl.cuda = false;
    EXPECT_TRUE(has_driver_quirk(nv_cl, "nvidia_svm_argument_sticks"));
    EXPECT_TRUE(has_driver_quirk(nv_cl, "nvidia_mapped_copy"));  // no unified memory
    EXPECT_FALSE(has_driver_quirk(nv_cl, "pocl_local_size_beyond_3"));
    DeviceFacts pocl = opencl_device("GenuineIntel", DeviceType::cpu, 1);
    pocl.platform_name = "Portable Computing Language";
    EXPECT_TRUE(has_driver_quirk(pocl, "pocl_local_size_beyond_3"));
    EXPECT_FALSE(has_driver_quirk(pocl, "nvidia_mapped_copy"));  // it shares the host's memory
    EXPECT_FALSE(has_driver_quirk(pocl, "nvidia_late_allocation_failure"));
    EXPECT_THROW(has_driver_quirk(pocl, "no_such_quirk"), ArgumentError);
    for (const DriverQuirk& quirk : all_driver_quirks()) {
        EXPECT_FALSE(quirk.description.empty()) << quirk.name;
        EXPECT_FALSE(quirk.workaround.empty()) << quirk.name;
    }
}

// PyOpenCL's has_struct_arg_count_bug and get_pocl_version, rule by rule.
TEST(Characterize, StructArgCountBug) {
    const std::string pocl_name = "Portable Computing Language";
    EXPECT_EQ(pocl_version(pocl_name, "OpenCL 3.0 PoCL 3.1+debian  Linux, None+Asserts"), (std::pair{3, 1}));
    EXPECT_EQ(pocl_version(pocl_name, "OpenCL 1.2 pocl 0.13-pre"), (std::pair{0, 13}));
    EXPECT_EQ(pocl_version(pocl_name, "OpenCL 2.0 POCL 1.8"), std::nullopt);  // only P, C, L change case
    EXPECT_EQ(pocl_version(pocl_name, "OpenCL PoCL 1.8"), std::nullopt);
    EXPECT_EQ(pocl_version("Other Platform", "OpenCL 3.0 PoCL 3.1"), std::nullopt);

    DeviceFacts pocl = opencl_device("GenuineIntel", DeviceType::cpu, 1);
    pocl.platform_name = pocl_name;
    pocl.platform_version = "OpenCL 1.2 pocl 0.13";
    EXPECT_EQ(has_struct_arg_count_bug(pocl), "pocl");
    EXPECT_TRUE(has_driver_quirk(pocl, "pocl_struct_arg_count"));
    pocl.platform_version = "OpenCL 1.2 pocl 0.14";
    EXPECT_EQ(has_struct_arg_count_bug(pocl), "");  // 0.14: only where measured
    pocl.struct_arg_counted_per_field = true;
    EXPECT_EQ(has_struct_arg_count_bug(pocl), "pocl");
    pocl.platform_version = "something unreadable";  // taken as 0.14
    EXPECT_EQ(has_struct_arg_count_bug(pocl), "pocl");
    pocl.struct_arg_counted_per_field = false;
    EXPECT_EQ(has_struct_arg_count_bug(pocl), "");
    pocl.platform_version = "OpenCL 3.0 PoCL 3.1";
    pocl.struct_arg_counted_per_field = true;  // later versions: fixed, whatever was measured
    EXPECT_EQ(has_struct_arg_count_bug(pocl), "");
    EXPECT_FALSE(has_driver_quirk(pocl, "pocl_struct_arg_count"));

    DeviceFacts apple = opencl_device("Intel", DeviceType::cpu, 1);
    apple.platform_name = "Apple";
    EXPECT_EQ(has_struct_arg_count_bug(apple), "apple");
    EXPECT_TRUE(has_driver_quirk(apple, "apple_struct_arg_count"));
    apple.type = DeviceType::gpu;
    EXPECT_EQ(has_struct_arg_count_bug(apple), "");
    EXPECT_EQ(has_struct_arg_count_bug(nvidia(9, 0)), "");
}

// PyOpenCL's has_amd_double_support: cl_amd_fp64 among the extensions, as a whole word.
TEST(Characterize, AmdDoubleSupport) {
    DeviceFacts amd = opencl_device("Advanced Micro Devices, Inc.", DeviceType::gpu, 64);
    amd.extensions = "cl_khr_global_int32_base_atomics cl_amd_fp64 cl_khr_byte_addressable_store";
    EXPECT_TRUE(has_amd_double_support(amd));
    EXPECT_TRUE(has_driver_quirk(amd, "amd_double_support"));
    amd.extensions = "cl_khr_fp64 cl_amd_fp64";  // with the Khronos extension too: still true
    EXPECT_TRUE(has_amd_double_support(amd));
    amd.extensions = "cl_khr_fp64 cl_amd_fp64x";
    EXPECT_FALSE(has_amd_double_support(amd));
    amd.extensions = "";
    EXPECT_FALSE(has_amd_double_support(amd));
    EXPECT_FALSE(has_driver_quirk(amd, "amd_double_support"));
}

// DeviceParameters::local_mem_banks as characterize derives it: vendor data, else 1 on CPUs, else 32.
TEST(Characterize, LocalMemBanksParameter) {
    EXPECT_EQ(local_mem_banks_parameter(nvidia(9, 0)), 32u);
    EXPECT_EQ(local_mem_banks_parameter(nvidia(1, 3)), 16u);
    EXPECT_EQ(local_mem_banks_parameter(opencl_device("Advanced Micro Devices, Inc.", DeviceType::gpu, 64)), 32u);
    EXPECT_EQ(local_mem_banks_parameter(opencl_device("GenuineIntel", DeviceType::cpu, 1)), 1u);
    EXPECT_EQ(local_mem_banks_parameter(opencl_device("Advanced Micro Devices, Inc.", DeviceType::cpu, 1)), 1u);
    // No vendor data: the documented default.
    EXPECT_EQ(local_mem_banks_parameter(opencl_device("Intel(R) Corporation", DeviceType::gpu, 1)), 32u);
    DeviceFacts unknown_nvidia = nvidia(9, 0);
    unknown_nvidia.compute_capability.reset();
    EXPECT_EQ(local_mem_banks_parameter(unknown_nvidia), 32u);
}

// Strided accesses of 32 work items on 32 banks of 4 bytes: stride s collides gcd(s, 32) ways.
TEST(Characterize, StridedAccessesMatchTheClassicTable) {
    const LocalMemoryBanks banks{32, 4, 32};
    for (std::size_t stride = 1; stride <= 256; ++stride) {
        std::vector<std::size_t> offsets(32);
        for (std::size_t w = 0; w < 32; ++w) offsets[w] = w * stride;
        const LocalAccessConflict found = local_access_conflicts(banks, 4, offsets);
        EXPECT_EQ(found.multiplicity, std::gcd(stride, std::size_t{32})) << stride;
        EXPECT_EQ(found.minimum, 1u);
        EXPECT_EQ(found.conflict_free(), found.multiplicity == 1) << stride;
        EXPECT_EQ(found.explanation.empty(), found.conflict_free()) << stride;
    }
    // Everyone reading one word is a broadcast, not a conflict.
    const std::vector<std::size_t> same(32, 7);
    EXPECT_TRUE(local_access_conflicts(banks, 4, same).conflict_free());
    // 8-byte items at stride 1 need two passes in any layout: not a conflict.
    std::vector<std::size_t> consecutive(32);
    std::iota(consecutive.begin(), consecutive.end(), std::size_t{0});
    const auto wide = local_access_conflicts(banks, 8, consecutive);
    EXPECT_EQ(wide.multiplicity, 2u);
    EXPECT_EQ(wide.minimum, 2u);
    EXPECT_TRUE(wide.conflict_free());
}

// Random access patterns, bank geometries and item sizes against the simulation.
TEST(Characterize, GeneralAccessesMatchTheSimulation) {
    for (int round = 0; round < 400; ++round) {
        const std::size_t count = std::size_t{1} << random_vector<int>(1, 2, 5)[0];
        const std::size_t granularity = std::size_t{1} << random_vector<int>(1, 0, 3)[0];
        const std::size_t simultaneous = static_cast<std::size_t>(random_vector<int>(1, 1, 64)[0]);
        const std::size_t itemsize = static_cast<std::size_t>(random_vector<int>(1, 1, 16)[0]);
        const std::size_t items = static_cast<std::size_t>(random_vector<int>(1, 1, static_cast<int>(simultaneous))[0]);
        const auto drawn = random_vector<std::uint32_t>(items, 0, 300);
        const std::vector<std::size_t> offsets(drawn.begin(), drawn.end());
        const LocalMemoryBanks banks{count, granularity, simultaneous};
        const LocalAccessConflict found = local_access_conflicts(banks, itemsize, offsets);
        ASSERT_EQ(found.multiplicity, simulated_passes(count, granularity, itemsize, offsets))
            << "round " << round << " banks " << count << "x" << granularity << " itemsize " << itemsize;
    }
}

// The shaped form: every small shape, padding, axis and item size, against the simulation of the
// work items' indices (mixed radix over the axes up to `axis`).
TEST(Characterize, ShapedAccessesMatchTheSimulation) {
    const LocalMemoryBanks banks{32, 4, 32};
    const std::vector<std::vector<std::size_t>> shapes = {{64},       {32, 32},  {16, 16}, {8, 33},
                                                          {4, 8, 16}, {3, 5, 7}, {2, 64}};
    for (const auto& shape : shapes) {
        for (std::size_t pad = 0; pad <= 3; ++pad) {
            std::vector<std::size_t> stored = shape;
            stored.back() += pad;
            for (std::size_t itemsize : {1u, 2u, 4u, 8u, 16u}) {
                for (std::size_t axis = 0; axis < shape.size(); ++axis) {
                    std::vector<std::size_t> offsets(32);
                    for (std::size_t w = 0; w < 32; ++w) {
                        // Index by index, slowest axis first, with strides from the stored shape.
                        std::vector<std::size_t> index(shape.size(), 0);
                        std::size_t rest = w;
                        for (std::size_t d = axis + 1; d-- > 0;) {
                            index[d] = rest % shape[d];
                            rest /= shape[d];
                        }
                        std::size_t offset = 0;
                        for (std::size_t d = 0; d < shape.size(); ++d) offset = offset * stored[d] + index[d];
                        offsets[w] = offset;
                    }
                    const std::size_t expected = simulated_passes(32, 4, itemsize, offsets);
                    const auto found = why_not_local_access_conflict_free(banks, itemsize, shape, stored, axis);
                    ASSERT_EQ(found.multiplicity, expected) << "axis " << axis << " itemsize " << itemsize;
                }
                EXPECT_GE(why_not_local_access_conflict_free(banks, itemsize, shape, stored).multiplicity, 1u);
            }
        }
    }
    // The textbook case: a 32 x 32 float tile read down a column conflicts 32 ways; padding each row
    // by one float removes the conflict.
    const std::vector<std::size_t> tile = {32, 32};
    const std::vector<std::size_t> padded = {32, 33};
    const auto column = why_not_local_access_conflict_free(banks, 4, tile, {}, 0);
    EXPECT_EQ(column.multiplicity, 32u);
    EXPECT_NE(column.explanation.find("axis 0"), std::string::npos) << column.explanation;
    EXPECT_TRUE(why_not_local_access_conflict_free(banks, 4, tile, padded, 0).conflict_free());
    EXPECT_TRUE(why_not_local_access_conflict_free(banks, 4, tile, {}, 1).conflict_free());
    EXPECT_EQ(why_not_local_access_conflict_free(banks, 4, tile).multiplicity, 32u);  // the worst axis
}

TEST(Characterize, BadArgumentsAreTyped) {
    const LocalMemoryBanks banks{32, 4, 32};
    const std::vector<std::size_t> shape = {8, 8};
    const std::vector<std::size_t> empty;
    const std::vector<std::size_t> zero = {8, 0};
    const std::vector<std::size_t> small = {8, 4};
    const std::vector<std::size_t> rank3 = {8, 8, 8};
    EXPECT_THROW(why_not_local_access_conflict_free(banks, 0, shape), ArgumentError);
    EXPECT_THROW(why_not_local_access_conflict_free(banks, 4, empty), ArgumentError);
    EXPECT_THROW(why_not_local_access_conflict_free(banks, 4, zero), ArgumentError);
    EXPECT_THROW(why_not_local_access_conflict_free(banks, 4, shape, small), ArgumentError);
    EXPECT_THROW(why_not_local_access_conflict_free(banks, 4, shape, rank3), ArgumentError);
    EXPECT_THROW(why_not_local_access_conflict_free(banks, 4, shape, {}, 2), ArgumentError);
    EXPECT_THROW(why_not_local_access_conflict_free(LocalMemoryBanks{0, 4, 32}, 4, shape), ArgumentError);
    const std::vector<std::size_t> too_many(33, 0);
    EXPECT_THROW(local_access_conflicts(banks, 4, too_many), ArgumentError);
}

// The queries on the devices under test: consistent with the rules on the device's facts.
class CharacterizeDevice : public DeviceTest {};

TEST_P(CharacterizeDevice, QueriesFollowTheFacts) {
    const Device device = bound_device().device();
    const DeviceFacts facts = facts_of(device);
    const auto banks = local_memory_banks(facts);
    EXPECT_EQ(local_memory_bank_count(device), banks ? std::optional(banks->count) : std::nullopt);
    EXPECT_EQ(local_memory_access_granularity(device), banks ? std::optional(banks->granularity) : std::nullopt);
    EXPECT_EQ(simultaneous_work_items_on_local_access(device),
              banks ? std::optional(banks->simultaneous_work_items) : std::nullopt);
    EXPECT_LE(usable_local_mem_size(device), device.params().local_mem_size);
    const std::vector<std::size_t> tile = {32, 32};
    if (banks) {
        EXPECT_EQ(why_not_local_access_conflict_free(device, 4, tile, {}, 1).multiplicity, 1u);
    } else {
        EXPECT_THROW(why_not_local_access_conflict_free(device, 4, tile), UnsupportedError);
    }
    EXPECT_FALSE(fast_inaccurate_build_options(device).empty());
    // Every fast option is accepted by the device's compiler.
    ProgramOptions options;
    options.compiler_options = fast_inaccurate_build_options(device);
    EXPECT_NO_THROW(Program(bound_device(), "KERNEL void nothing(GLOBAL_MEM float* x) { x[0] = 1.0f; }", options));
    if (context().api().id() == ApiId::cuda()) {
        EXPECT_EQ(simd_group_size(device, 4), device.params().warp_size);
        EXPECT_TRUE(driver_quirks(device).empty());
    }
    if (device.platform().name().find("Portable Computing Language") != std::string::npos) {
        EXPECT_TRUE(has_driver_quirk(device, "pocl_local_size_beyond_3"));
    }
    // The device's parameters agree with the rules (vendor data, else the documented default).
    EXPECT_EQ(device.params().local_mem_banks, local_mem_banks_parameter(facts));
    if (banks) {
        EXPECT_EQ(device.params().local_mem_banks, banks->count);
    }
    // The quirk queries agree with the quirk table, and with the extensions the device reports.
    const std::string struct_bug = has_struct_arg_count_bug(device);
    EXPECT_EQ(has_driver_quirk(device, "pocl_struct_arg_count"), struct_bug == "pocl");
    EXPECT_EQ(has_driver_quirk(device, "apple_struct_arg_count"), struct_bug == "apple");
    EXPECT_EQ(has_driver_quirk(device, "amd_double_support"), has_amd_double_support(device));
    if (context().api().id() == ApiId::cuda()) {
        EXPECT_EQ(struct_bug, "");
        EXPECT_FALSE(has_amd_double_support(device));
        EXPECT_EQ(detail::backend_of(device)->struct_argument_count(), std::nullopt);
    } else {
        // The measurement PyOpenCL makes for PoCL 0.14, made here on any OpenCL device: a driver
        // without the bug counts the struct as one argument.
        const auto count = detail::backend_of(device)->struct_argument_count();
        ASSERT_TRUE(count.has_value());
        if (struct_bug.empty()) {
            EXPECT_EQ(*count, 1u);
        }
        EXPECT_FALSE(facts.extensions.empty());
        EXPECT_EQ(has_amd_double_support(device),
                  (" " + facts.extensions + " ").find(" cl_amd_fp64 ") != std::string::npos);
    }
}

}  // namespace

KJARNI_INSTANTIATE_DEVICE_TESTS(CharacterizeDevice);

}  // namespace kjarni::test
