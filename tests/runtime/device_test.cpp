// Device parameters and raw attributes, checked against each other on every selected device.

#include <gtest/gtest.h>

#include <algorithm>

#include "support/test_devices.hpp"

namespace kjarni::test {
namespace {

class DeviceParams : public DeviceTest {};

std::int64_t integer(const Device& device, std::string_view name) {
    const auto value = device.attribute(name);
    if (!value || !std::holds_alternative<std::int64_t>(*value)) {
        ADD_FAILURE() << "attribute " << name << " missing or not an integer";
        return -1;
    }
    return std::get<std::int64_t>(*value);
}

TEST_P(DeviceParams, ParametersAreConsistent) {
    const Device device = GetParam().device();
    const DeviceParameters& p = device.params();
    EXPECT_EQ(device.name(), GetParam().name);
    EXPECT_GT(p.compute_units, 0u);
    EXPECT_GT(p.local_mem_size, 0u);
    EXPECT_GT(p.local_mem_banks, 0u);
    EXPECT_GT(p.warp_size, 0u);
    ASSERT_GE(p.max_local_sizes.size(), 1u);
    EXPECT_EQ(p.max_num_groups.size(), p.max_local_sizes.size());
    for (std::size_t size : p.max_local_sizes) EXPECT_GT(size, 0u);
    for (std::size_t groups : p.max_num_groups) EXPECT_GT(groups, 0u);
    // A block can never hold more threads than its largest dimension allows times the others.
    EXPECT_LE(p.max_local_sizes[0], p.max_total_local_size);
    EXPECT_EQ(p.max_total_local_size % p.warp_size, 0u);
    EXPECT_NE(p.type, DeviceType::other);
}

TEST_P(DeviceParams, PropertiesAreConsistent) {
    const Device device = GetParam().device();
    const DeviceProperties& props = device.properties();
    EXPECT_FALSE(props.vendor.empty());
    EXPECT_FALSE(props.driver_version.empty());
    EXPECT_GT(props.total_memory, 0u);
    EXPECT_GT(props.max_allocation_size, 0u);
    EXPECT_LE(props.max_allocation_size, props.total_memory);
    EXPECT_GT(props.clock_rate_khz, 0u);
    if (props.pci_bus_id) {
        EXPECT_EQ(props.pci_bus_id->size(), 12u) << *props.pci_bus_id;  // "0000:65:00.0"
    }
}

TEST_P(DeviceParams, ParametersAgreeWithRawAttributes) {
    const Device device = GetParam().device();
    const DeviceParameters& p = device.params();
    EXPECT_FALSE(device.attributes().empty());
    EXPECT_FALSE(device.attribute("NO_SUCH_ATTRIBUTE").has_value());
    if (GetParam().api == "opencl") {
        EXPECT_EQ(integer(device, "CL_DEVICE_MAX_COMPUTE_UNITS"), static_cast<std::int64_t>(p.compute_units));
        EXPECT_EQ(integer(device, "CL_DEVICE_LOCAL_MEM_SIZE"), static_cast<std::int64_t>(p.local_mem_size));
        EXPECT_EQ(integer(device, "CL_DEVICE_MAX_WORK_GROUP_SIZE"), static_cast<std::int64_t>(p.max_total_local_size));
        EXPECT_EQ(integer(device, "CL_DEVICE_GLOBAL_MEM_SIZE"),
                  static_cast<std::int64_t>(device.properties().total_memory));
        const auto sizes = device.attribute("CL_DEVICE_MAX_WORK_ITEM_SIZES");
        ASSERT_TRUE(sizes.has_value());
        const auto& list = std::get<std::vector<std::int64_t>>(*sizes);
        ASSERT_EQ(list.size(), p.max_local_sizes.size());
        for (std::size_t i = 0; i < list.size(); ++i) {
            EXPECT_EQ(list[i], static_cast<std::int64_t>(p.max_local_sizes[i]));
        }
        EXPECT_EQ(std::get<std::string>(*device.attribute("CL_DEVICE_NAME")), device.name());
    } else {
        EXPECT_EQ(integer(device, "MULTIPROCESSOR_COUNT"), static_cast<std::int64_t>(p.compute_units));
        EXPECT_EQ(integer(device, "MAX_THREADS_PER_BLOCK"), static_cast<std::int64_t>(p.max_total_local_size));
        EXPECT_EQ(integer(device, "WARP_SIZE"), static_cast<std::int64_t>(p.warp_size));
        EXPECT_EQ(integer(device, "MAX_BLOCK_DIM_X"), static_cast<std::int64_t>(p.max_local_sizes[0]));
        EXPECT_EQ(integer(device, "MAX_GRID_DIM_Y"), static_cast<std::int64_t>(p.max_num_groups[1]));
        const auto& props = device.properties();
        ASSERT_TRUE(props.compute_capability.has_value());
        EXPECT_EQ(integer(device, "COMPUTE_CAPABILITY_MAJOR"), props.compute_capability->major);
        EXPECT_EQ(p.type, DeviceType::gpu);
        EXPECT_TRUE(props.pci_bus_id.has_value());
    }
}

KJARNI_INSTANTIATE_DEVICE_TESTS(DeviceParams);

TEST(TestDevices, SelectionIsNotEmpty) {
    // The suite must test something: an empty selection is a setup error, not a pass.
    EXPECT_FALSE(test_devices().empty()) << "KJARNI_TEST selects no device";
}

}  // namespace
}  // namespace kjarni::test
