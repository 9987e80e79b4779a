// Managed memory on fake devices: what allocation decides before the driver is asked (a device
// without the capability is refused by name, the free memory bounds the request, the SVM grain
// and atomics follow the devices concerned), without needing such devices or a GPU.

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "backend/backend.hpp"
#include "kjarni/managed_memory.hpp"
#include "support/fake_backend.hpp"

namespace kjarni::test {
namespace {

// An OpenCL device with the given CL_DEVICE_SVM_CAPABILITIES bits and memory sizes.
class SvmFakeDevice final : public backend::Device {
public:
    SvmFakeDevice(backend::Platform& platform, std::string name, std::int64_t svm_capabilities,
                  std::uint64_t total_memory, std::uint64_t max_allocation_size)
        : platform_(platform), name_(std::move(name)) {
        params_.max_local_sizes = {1};
        params_.max_num_groups = {1};
        properties_.total_memory = total_memory;
        properties_.max_allocation_size = max_allocation_size;
        attributes_ = {{"CL_DEVICE_SVM_CAPABILITIES", svm_capabilities},
                       {"CL_DEVICE_VERSION", std::string("OpenCL 2.0 fake")}};
    }
    backend::Platform& platform() const override { return platform_; }
    const std::string& name() const override { return name_; }
    const DeviceParameters& params() const override { return params_; }
    const DeviceProperties& properties() const override { return properties_; }
    const std::vector<DeviceAttribute>& attributes() const override { return attributes_; }
    std::uintptr_t native_handle() const override { return 43; }

private:
    backend::Platform& platform_;
    std::string name_;
    DeviceParameters params_;
    DeviceProperties properties_;
    std::vector<DeviceAttribute> attributes_;
};

// Host memory standing in for an SVM allocation: records what it was asked to be.
class FakeManagedAllocation final : public backend::ManagedAllocation {
public:
    FakeManagedAllocation(std::size_t size, backend::ManagedAllocationFlags flags) : storage_(size), flags_(flags) {}
    void* pointer() const override { return const_cast<std::byte*>(storage_.data()); }
    std::size_t size() const override { return storage_.size(); }
    backend::ManagedAllocationFlags flags() const override { return flags_; }
    void begin_host_access(backend::Queue&, std::size_t, std::size_t, bool, bool, bool) override {}
    void end_host_access(backend::Queue&, std::size_t) override {}
    void prefetch(backend::Queue&, std::size_t, std::size_t, bool) override { throw UnsupportedError("fake"); }
    void attach(backend::Queue&, int) override { throw UnsupportedError("fake"); }
    std::shared_ptr<backend::Buffer> device_buffer(std::size_t) override { throw UnsupportedError("fake"); }

private:
    std::vector<std::byte> storage_;
    backend::ManagedAllocationFlags flags_;
};

// A context over fake devices: implements only what allocation asks of a context, reports
// `free_bytes` as every device's free memory, and counts the allocations it is asked for.
class FakeContext final : public backend::Context {
public:
    FakeContext(FakeApi& api, std::vector<std::shared_ptr<backend::Device>> devices,
                std::optional<std::uint64_t> free_bytes = std::nullopt)
        : api_(api), devices_(std::move(devices)), free_bytes_(free_bytes) {}
    backend::Api& api() const override { return api_; }
    const std::vector<std::shared_ptr<backend::Device>>& devices() const override { return devices_; }
    std::uintptr_t native_handle(std::size_t) const override { return 0; }
    std::shared_ptr<backend::Queue> create_queue(std::size_t) override { throw UnsupportedError("fake"); }
    std::shared_ptr<backend::Buffer> allocate(std::size_t, std::size_t) override { throw UnsupportedError("fake"); }
    std::shared_ptr<backend::HostAllocation> allocate_host(std::size_t, backend::HostAllocationFlags) override {
        throw UnsupportedError("fake");
    }
    bool can_access_peer(std::size_t, std::size_t) const override { return false; }
    backend::BuildOutput build(std::size_t, const std::string&, const backend::BuildOptions&) override {
        throw UnsupportedError("fake");
    }
    std::shared_ptr<backend::Module> load(std::size_t, std::span<const std::byte>,
                                          const backend::BuildOptions&) override {
        throw UnsupportedError("fake");
    }
    std::string compiler_identity(std::size_t) const override { return "fake"; }
    std::optional<std::uint64_t> free_memory(std::size_t) const override { return free_bytes_; }
    std::shared_ptr<backend::ManagedAllocation> allocate_managed(std::size_t, std::size_t size,
                                                                 backend::ManagedAllocationFlags flags) override {
        ++allocations;
        return std::make_shared<FakeManagedAllocation>(size, flags);
    }

    int allocations = 0;

private:
    FakeApi& api_;
    std::vector<std::shared_ptr<backend::Device>> devices_;
    std::optional<std::uint64_t> free_bytes_;
};

constexpr std::int64_t coarse = 1, fine = 2, atomics = 8;
constexpr std::uint64_t gib = std::uint64_t{1} << 30;

TEST(ManagedMemoryFake, DeviceWithoutCapabilitiesIsRefusedByName) {
    FakeApi api;
    const ManagedMemoryCapabilities caps = managed_memory_capabilities(api.device());
    EXPECT_FALSE(caps.supported());
    EXPECT_FALSE(caps.prefetch);
    EXPECT_NE(caps.missing().find("CL_DEVICE_SVM_COARSE_GRAIN_BUFFER"), std::string::npos);
    auto fake = std::make_shared<FakeContext>(api, api.platforms()[0]->devices());
    const Context context = detail::BackendAccess::make<Context>(fake);
    for (const std::size_t size : {std::size_t{0}, std::size_t{4096}}) {
        try {
            ManagedMemory::allocate(context, size);
            FAIL() << "allocated managed memory on a device without it";
        } catch (const UnsupportedError& e) {
            const std::string message = e.what();
            EXPECT_NE(message.find("fake device"), std::string::npos) << message;
            EXPECT_NE(message.find("lacks"), std::string::npos) << message;
        }
        EXPECT_THROW(ManagedMemory::allocate(context.devices()[0], size), UnsupportedError);
    }
    EXPECT_EQ(fake->allocations, 0);
}

TEST(ManagedMemoryFake, BackendWithoutManagedMemoryRefuses) {
    // The default of backend::Context, for backends that never implement it.
    struct Minimal : backend::Context {
        explicit Minimal(FakeApi& api) : api_(api), devices_(api.platforms()[0]->devices()) {}
        backend::Api& api() const override { return api_; }
        const std::vector<std::shared_ptr<backend::Device>>& devices() const override { return devices_; }
        std::uintptr_t native_handle(std::size_t) const override { return 0; }
        std::shared_ptr<backend::Queue> create_queue(std::size_t) override { return nullptr; }
        std::shared_ptr<backend::Buffer> allocate(std::size_t, std::size_t) override { return nullptr; }
        std::shared_ptr<backend::HostAllocation> allocate_host(std::size_t, backend::HostAllocationFlags) override {
            return nullptr;
        }
        bool can_access_peer(std::size_t, std::size_t) const override { return false; }
        backend::BuildOutput build(std::size_t, const std::string&, const backend::BuildOptions&) override {
            return {};
        }
        std::shared_ptr<backend::Module> load(std::size_t, std::span<const std::byte>,
                                              const backend::BuildOptions&) override {
            return nullptr;
        }
        std::string compiler_identity(std::size_t) const override { return ""; }
        FakeApi& api_;
        std::vector<std::shared_ptr<backend::Device>> devices_;
    };
    FakeApi api;
    Minimal minimal(api);
    EXPECT_THROW(minimal.allocate_managed(0, 64, {}), UnsupportedError);
    EXPECT_EQ(minimal.free_memory(0), std::nullopt);
}

TEST(ManagedMemoryFake, FreeMemoryBoundsTheRequest) {
    FakeApi api;
    backend::Platform& platform = *api.platforms()[0];
    auto device = std::make_shared<SvmFakeDevice>(platform, "svm device", coarse, 8 * gib, 4 * gib);
    const std::uint64_t free_bytes = 3 * gib + 12345;
    auto fake = std::make_shared<FakeContext>(api, std::vector<std::shared_ptr<backend::Device>>{device}, free_bytes);
    const Context context = detail::BackendAccess::make<Context>(fake);
    // More than is free (though within the largest allocation and the total): refused, naming both.
    try {
        ManagedMemory::allocate(context, static_cast<std::size_t>(free_bytes + 1));
        FAIL() << "allocated more than the device has free";
    } catch (const OutOfMemoryError& e) {
        const std::string message = e.what();
        EXPECT_NE(message.find(std::to_string(free_bytes + 1) + " bytes"), std::string::npos) << message;
        EXPECT_NE(message.find(std::to_string(free_bytes) + " bytes free"), std::string::npos) << message;
        EXPECT_NE(message.find("svm device"), std::string::npos) << message;
    }
    EXPECT_EQ(fake->allocations, 0);
    // Exactly what is free: allowed.
    const ManagedMemory memory = ManagedMemory::allocate(context.devices()[0], static_cast<std::size_t>(free_bytes));
    EXPECT_EQ(fake->allocations, 1);
    EXPECT_EQ(memory.size(), free_bytes);
    EXPECT_FALSE(memory.fine_grained());

    // Without a free-memory query, the total memory bounds it.
    auto unknown = std::make_shared<FakeContext>(api, std::vector<std::shared_ptr<backend::Device>>{
                                                          std::make_shared<SvmFakeDevice>(platform, "big device",
                                                                                          coarse, 8 * gib, 16 * gib)});
    const Context unknown_context = detail::BackendAccess::make<Context>(unknown);
    try {
        ManagedMemory::allocate(unknown_context, static_cast<std::size_t>(8 * gib + 1));
        FAIL() << "allocated more than the device's memory";
    } catch (const OutOfMemoryError& e) {
        EXPECT_NE(std::string(e.what()).find(std::to_string(8 * gib) + " bytes of memory in all"), std::string::npos)
            << e.what();
    }
    EXPECT_EQ(unknown->allocations, 0);
}

// Fine-grained SVM (with atomics) only where every device concerned has it.
TEST(ManagedMemoryFake, GrainFollowsTheDevicesConcerned) {
    FakeApi api;
    backend::Platform& platform = *api.platforms()[0];
    auto fine_device = std::make_shared<SvmFakeDevice>(platform, "fine", coarse | fine | atomics, gib, gib);
    auto fine_no_atomics = std::make_shared<SvmFakeDevice>(platform, "fine, no atomics", coarse | fine, gib, gib);
    auto coarse_device = std::make_shared<SvmFakeDevice>(platform, "coarse", coarse, gib, gib);
    const auto backend_flags = [](const ManagedMemory& memory) { return detail::backend_of(memory)->flags(); };

    const Context both_fine = detail::BackendAccess::make<Context>(
        std::make_shared<FakeContext>(api,
                                      std::vector<std::shared_ptr<backend::Device>>{fine_device, fine_no_atomics}));
    const ManagedMemory a = ManagedMemory::allocate(both_fine, 256);
    EXPECT_TRUE(a.fine_grained());
    EXPECT_TRUE(backend_flags(a).fine_grain);
    EXPECT_FALSE(backend_flags(a).atomics);  // one device lacks SVM atomics
    const ManagedMemory b = ManagedMemory::allocate(both_fine.devices()[0], 256);
    EXPECT_TRUE(backend_flags(b).fine_grain);
    EXPECT_TRUE(backend_flags(b).atomics);  // only device 0 concerned
    const ManagedMemory c = ManagedMemory::allocate(both_fine, 256, {.coarse_grain = true});
    EXPECT_FALSE(c.fine_grained());
    EXPECT_FALSE(backend_flags(c).fine_grain);
    EXPECT_FALSE(backend_flags(c).atomics);

    const Context mixed = detail::BackendAccess::make<Context>(
        std::make_shared<FakeContext>(api, std::vector<std::shared_ptr<backend::Device>>{fine_device, coarse_device}));
    const ManagedMemory d = ManagedMemory::allocate(mixed, 256);
    EXPECT_FALSE(d.fine_grained());
    EXPECT_FALSE(backend_flags(d).fine_grain);
    EXPECT_TRUE(ManagedMemory::allocate(mixed.devices()[0], 256).fine_grained());

    // Capabilities as read from the attributes.
    const ManagedMemoryCapabilities caps =
        managed_memory_capabilities(detail::BackendAccess::make<Device>(fine_device));
    EXPECT_TRUE(caps.supported());
    EXPECT_TRUE(caps.svm_coarse_grain_buffer && caps.svm_fine_grain_buffer && caps.svm_atomics);
    EXPECT_FALSE(caps.svm_fine_grain_system);
    EXPECT_FALSE(caps.prefetch);  // an OpenCL 2.0 device has no clEnqueueSVMMigrateMem
}

}  // namespace
}  // namespace kjarni::test
