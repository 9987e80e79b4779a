// The same GPU seen through CUDA and through OpenCL (NVIDIA's driver) must report the same facts.
// Runs where both APIs see devices, i.e. on the GPU machine; skipped elsewhere.

#include <gtest/gtest.h>

#include "kjarni/kjarni.hpp"

namespace kjarni {
namespace {

std::vector<Device> devices_of(const ApiId& id) {
    std::vector<Device> result;
    for (const Api& api : Api::all_available()) {
        if (api.id() != id) continue;
        for (const Platform& p : api.platforms()) {
            for (const Device& d : p.devices()) result.push_back(d);
        }
    }
    return result;
}

TEST(CrossApi, OneGpuThroughBothApisAgrees) {
    const auto cuda = devices_of(ApiId::cuda());
    const auto opencl = devices_of(ApiId::opencl());
    std::size_t matched = 0;
    for (const Device& c : cuda) {
        for (const Device& o : opencl) {
            if (!o.properties().pci_bus_id || o.properties().pci_bus_id != c.properties().pci_bus_id) continue;
            ++matched;
            SCOPED_TRACE(c.name() + " at " + *c.properties().pci_bus_id);
            EXPECT_EQ(o.name(), c.name());
            EXPECT_EQ(o.params().compute_units, c.params().compute_units);
            EXPECT_EQ(o.params().warp_size, c.params().warp_size);
            EXPECT_EQ(o.params().max_total_local_size, c.params().max_total_local_size);
            EXPECT_EQ(o.params().max_local_sizes, c.params().max_local_sizes);
            EXPECT_EQ(o.params().local_mem_size, c.params().local_mem_size);
            EXPECT_EQ(o.properties().compute_capability, c.properties().compute_capability);
            EXPECT_EQ(o.properties().total_memory, c.properties().total_memory);
        }
    }
    if (matched == 0) GTEST_SKIP() << "no GPU is visible through both CUDA and OpenCL";
    EXPECT_EQ(matched, cuda.size()) << "every CUDA device should have an OpenCL twin on this machine";
}

}  // namespace
}  // namespace kjarni
