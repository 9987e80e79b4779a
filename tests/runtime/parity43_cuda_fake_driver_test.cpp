// Issue 43's CUDA paths (items 6, 9, 10, 13) against a fake driver: a table of driver functions that
// record what kjarni asks of them, so that the flags of cuCtxCreate, the primary context's flags, the
// shared memory configuration, the context stack, peer access toggles, cuCtxSynchronize and the JIT
// option arrays are checked without a GPU. The same paths on a real GPU: parity43_context_test.cpp.

#include <gtest/gtest.h>

#ifdef KJARNI_WITH_CUDA

#include <cuda.h>

#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "backend/cuda/cuda_api.hpp"
#include "backend/cuda/cuda_context.hpp"
#include "backend/cuda/cuda_driver.hpp"
#include "backend/cuda/cuda_jit_options.hpp"
#include "kjarni/context.hpp"
#include "kjarni/error.hpp"
#include "kjarni/peer_access.hpp"

namespace kjarni::test::parity43_fake_cuda {
namespace {

// What the fake driver was asked. Driver entries are plain function pointers, so the record is
// global; each test starts from a fresh one (the fixture).
struct Record {
    int devices = 2;
    std::vector<std::pair<unsigned, CUdevice>> created;        // cuCtxCreate(flags, device)
    std::vector<std::pair<CUdevice, unsigned>> primary_flags;  // cuDevicePrimaryCtxSetFlags
    std::vector<CUdevice> retained, released;
    std::vector<CUcontext> destroyed;
    std::vector<CUsharedconfig> shared_configs;
    std::vector<CUcontext> synchronized;
    std::vector<std::pair<CUcontext, CUcontext>> enabled, disabled;  // (current, peer)
    int pops = 0;
    CUcontext current = nullptr;
    std::vector<CUcontext> stack;
    bool can_access = true;
    std::size_t allocatable = 0;  // cuMemAlloc succeeds up to this many bytes
    int allocations = 0, frees = 0;
};
Record record;

// Contexts are fake addresses: own ones from 0x1000 up, primary ones 0x100 + device.
std::uintptr_t next_context = 0x1000;
CUcontext primary(CUdevice device) {
    return reinterpret_cast<CUcontext>(std::uintptr_t{0x100} + static_cast<std::uintptr_t>(device));
}

// clang-format off
std::unique_ptr<backend::cuda::Driver> fake_driver() {
    auto d = std::make_unique<backend::cuda::Driver>();
    d->DriverGetVersion = [](int* v) { *v = 13000; return CUDA_SUCCESS; };
    d->GetErrorName = [](CUresult, const char** s) { *s = "CUDA_ERROR_FAKE"; return CUDA_SUCCESS; };
    d->GetErrorString = [](CUresult, const char** s) { *s = "fake"; return CUDA_SUCCESS; };
    d->DeviceGetCount = [](int* n) { *n = record.devices; return CUDA_SUCCESS; };
    d->DeviceGet = [](CUdevice* device, int ordinal) { *device = ordinal; return CUDA_SUCCESS; };
    d->DeviceGetName = [](char* name, int length, CUdevice) {
        std::strncpy(name, "Fake GPU", static_cast<std::size_t>(length));
        return CUDA_SUCCESS;
    };
    d->DeviceGetAttribute = [](int* value, CUdevice_attribute which, CUdevice) {
        switch (which) {
            case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: *value = 9; break;
            case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: *value = 0; break;
            case CU_DEVICE_ATTRIBUTE_WARP_SIZE: *value = 32; break;
            default: *value = 1024; break;
        }
        return CUDA_SUCCESS;
    };
    d->DeviceTotalMem = [](std::size_t* bytes, CUdevice) { *bytes = std::size_t{1} << 34; return CUDA_SUCCESS; };
    d->DeviceGetPCIBusId = [](char* id, int length, CUdevice device) {
        std::snprintf(id, static_cast<std::size_t>(length), "0000:%02x:00.0", device + 1);
        return CUDA_SUCCESS;
    };
    d->DeviceCanAccessPeer = [](int* can, CUdevice, CUdevice) { *can = record.can_access ? 1 : 0; return CUDA_SUCCESS; };
    d->DevicePrimaryCtxRetain = [](CUcontext* ctx, CUdevice device) {
        record.retained.push_back(device);
        *ctx = primary(device);
        return CUDA_SUCCESS;
    };
    d->DevicePrimaryCtxRelease = [](CUdevice device) { record.released.push_back(device); return CUDA_SUCCESS; };
    d->DevicePrimaryCtxSetFlags = [](CUdevice device, unsigned flags) {
        record.primary_flags.emplace_back(device, flags);
        return CUDA_SUCCESS;
    };
    d->CtxCreate = [](CUcontext* ctx, unsigned flags, CUdevice device) {
        record.created.emplace_back(flags, device);
        *ctx = reinterpret_cast<CUcontext>(next_context++);
        record.stack.push_back(record.current);
        record.current = *ctx;  // cuCtxCreate pushes the new context
        return CUDA_SUCCESS;
    };
    d->CtxPopCurrent = [](CUcontext* popped) {
        ++record.pops;
        *popped = record.current;
        record.current = record.stack.empty() ? nullptr : record.stack.back();
        if (!record.stack.empty()) record.stack.pop_back();
        return CUDA_SUCCESS;
    };
    d->CtxDestroy = [](CUcontext ctx) { record.destroyed.push_back(ctx); return CUDA_SUCCESS; };
    d->CtxGetCurrent = [](CUcontext* ctx) { *ctx = record.current; return CUDA_SUCCESS; };
    d->CtxSetCurrent = [](CUcontext ctx) { record.current = ctx; return CUDA_SUCCESS; };
    d->CtxSetSharedMemConfig = [](CUsharedconfig config) {
        record.shared_configs.push_back(config);
        return CUDA_SUCCESS;
    };
    d->CtxSynchronize = []() { record.synchronized.push_back(record.current); return CUDA_SUCCESS; };
    d->CtxEnablePeerAccess = [](CUcontext peer, unsigned) {
        record.enabled.emplace_back(record.current, peer);
        return CUDA_SUCCESS;
    };
    d->CtxDisablePeerAccess = [](CUcontext peer) {
        record.disabled.emplace_back(record.current, peer);
        return CUDA_SUCCESS;
    };
    d->MemGetInfo = [](std::size_t* free, std::size_t* total) {
        *free = std::size_t{4} << 30;
        *total = std::size_t{1} << 34;
        return CUDA_SUCCESS;
    };
    d->MemAlloc = [](CUdeviceptr* pointer, std::size_t bytes) {
        if (bytes > record.allocatable) return CUDA_ERROR_OUT_OF_MEMORY;
        ++record.allocations;
        *pointer = 0x10000;
        return CUDA_SUCCESS;
    };
    d->MemFree = [](CUdeviceptr) { ++record.frees; return CUDA_SUCCESS; };
    return d;
}
// clang-format on

class Parity43FakeCuda : public ::testing::Test {
protected:
    void SetUp() override { record = Record{}; }
    // A CUDA Api over the fake driver (lives as long as the test; contexts die first).
    std::unique_ptr<backend::cuda::CudaApi> api = [] {
        record = Record{};
        return std::make_unique<backend::cuda::CudaApi>(fake_driver());
    }();
    std::vector<Device> devices() const {
        std::vector<Device> result;
        for (const auto& d : api->platforms()[0]->devices()) result.push_back(detail::BackendAccess::make<Device>(d));
        return result;
    }
};

TEST_F(Parity43FakeCuda, Item9OwnContextsGetTheFlagsAndLeaveTheStackAlone) {
    ContextOptions options;
    options.own_contexts = true;
    options.scheduling = Scheduling::blocking_sync;
    options.map_host = true;
    options.lmem_resize_to_max = true;
    options.shared_memory_banks = SharedMemoryBanks::eight_bytes;
    {
        const Context context = Context::from_devices(devices(), options);
        ASSERT_EQ(record.created.size(), 2u);
        const unsigned expected = static_cast<unsigned>(CU_CTX_SCHED_BLOCKING_SYNC) |
                                  static_cast<unsigned>(CU_CTX_MAP_HOST) |
                                  static_cast<unsigned>(CU_CTX_LMEM_RESIZE_TO_MAX);
        EXPECT_EQ(record.created[0], std::make_pair(expected, CUdevice{0}));
        EXPECT_EQ(record.created[1], std::make_pair(expected, CUdevice{1}));
        // Each creation was popped: no context of kjarni's stays pushed on the thread.
        EXPECT_EQ(record.pops, 2);
        EXPECT_TRUE(record.stack.empty());
        EXPECT_TRUE(record.retained.empty()) << "own contexts must not retain primary ones";
        EXPECT_TRUE(record.primary_flags.empty());
        EXPECT_EQ(record.shared_configs, std::vector<CUsharedconfig>(2, CU_SHARED_MEM_CONFIG_EIGHT_BYTE_BANK_SIZE));
        EXPECT_NE(context.native_handle(0), reinterpret_cast<std::uintptr_t>(primary(0)));
        EXPECT_EQ(context.options(), options);
        // Peer access between the two was enabled at creation, both ways.
        EXPECT_EQ(record.enabled.size(), 2u);
        context.synchronize();
        ASSERT_EQ(record.synchronized.size(), 2u);
        EXPECT_EQ(reinterpret_cast<std::uintptr_t>(record.synchronized[0]), context.native_handle(0));
        EXPECT_EQ(reinterpret_cast<std::uintptr_t>(record.synchronized[1]), context.native_handle(1));
    }
    // Destroyed with the kjarni context; nothing primary released.
    EXPECT_EQ(record.destroyed.size(), 2u);
    EXPECT_TRUE(record.released.empty());
}

TEST_F(Parity43FakeCuda, Item6SchedulingOnPrimaryContextsSetsTheirFlags) {
    const std::map<Scheduling, unsigned> expected = {{Scheduling::spin, static_cast<unsigned>(CU_CTX_SCHED_SPIN)},
                                                     {Scheduling::yield, static_cast<unsigned>(CU_CTX_SCHED_YIELD)},
                                                     {Scheduling::blocking_sync,
                                                      static_cast<unsigned>(CU_CTX_SCHED_BLOCKING_SYNC)}};
    for (const auto& [scheduling, flag] : expected) {
        record.primary_flags.clear();
        ContextOptions options;
        options.scheduling = scheduling;
        const Context context = Context::from_devices(devices()[0], options);
        ASSERT_EQ(record.primary_flags.size(), 1u) << to_string(scheduling);
        EXPECT_EQ(record.primary_flags[0], std::make_pair(CUdevice{0}, flag)) << to_string(scheduling);
        EXPECT_EQ(context.native_handle(0), reinterpret_cast<std::uintptr_t>(primary(0)));
        EXPECT_TRUE(record.created.empty());
    }
    // The defaults touch no flags.
    record.primary_flags.clear();
    const Context plain = Context::from_devices(devices()[0], ContextOptions{});
    EXPECT_TRUE(record.primary_flags.empty());
    EXPECT_EQ(backend::cuda::context_creation_flags({}), static_cast<unsigned>(CU_CTX_SCHED_AUTO));
}

TEST_F(Parity43FakeCuda, Item6SharedMemoryBanksNeedTheDriverCall) {
    // A driver without cuCtxSetSharedMemConfig (it is deprecated): the setting is refused by name.
    auto driver = fake_driver();
    driver->CtxSetSharedMemConfig = nullptr;
    backend::cuda::CudaApi old_api(std::move(driver));
    ContextOptions options;
    options.shared_memory_banks = SharedMemoryBanks::four_bytes;
    const Device device = detail::BackendAccess::make<Device>(old_api.platforms()[0]->devices()[0]);
    try {
        Context::from_devices(device, options);
        FAIL() << "no error";
    } catch (const UnsupportedError& e) {
        EXPECT_NE(std::string(e.what()).find("four_bytes"), std::string::npos) << e.what();
    }
    EXPECT_TRUE(record.retained.empty()) << "refused before any context was taken";
}

TEST_F(Parity43FakeCuda, Item6LargestMemblockIsExactAndFreesItsProbes) {
    const Context context = Context::from_devices(devices()[0]);
    // Fragmented memory: 4 GiB free in all, one allocation of at most this many bytes possible.
    record.allocatable = 3'000'000'123;
    EXPECT_EQ(largest_memblock(context.devices()[0]), std::optional<std::uint64_t>(3'000'000'123));
    EXPECT_GT(record.allocations, 0);
    EXPECT_EQ(record.allocations, record.frees) << "every probe is freed";
    record.allocatable = 0;
    EXPECT_EQ(largest_memblock(context.devices()[0]), std::optional<std::uint64_t>(0));
    EXPECT_EQ(bin_id(context.devices()[0]), "sm_90");
}

TEST_F(Parity43FakeCuda, Item10PeerAccessToggleWithinAndAcrossContexts) {
    ContextOptions own;
    own.own_contexts = true;
    const Context a = Context::from_devices(devices(), own);
    const Context b = Context::from_devices(devices()[1], own);
    const BoundDevice a0 = a.devices()[0], a1 = a.devices()[1], b0 = b.devices()[0];
    EXPECT_TRUE(can_access_peer(a0, a1));
    EXPECT_TRUE(peer_access_enabled(a0, a1));  // enabled when the context was made
    record.enabled.clear();
    disable_peer_access(a0, a1);
    ASSERT_EQ(record.disabled.size(), 1u);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(record.disabled[0].first), a.native_handle(0));
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(record.disabled[0].second), a.native_handle(1));
    EXPECT_FALSE(peer_access_enabled(a0, a1));
    enable_peer_access(a0, a1);
    EXPECT_TRUE(peer_access_enabled(a0, a1));
    // Across contexts: device 0 of `a` to `b`'s own context on device 1.
    EXPECT_TRUE(can_access_peer(a0, b0));
    EXPECT_FALSE(peer_access_enabled(a0, b0));
    enable_peer_access(a0, b0);
    ASSERT_EQ(record.enabled.size(), 2u);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(record.enabled[1].second), b.native_handle(0));
    EXPECT_TRUE(peer_access_enabled(a0, b0));
    disable_peer_access(a0, b0);
    EXPECT_FALSE(peer_access_enabled(a0, b0));
    // Another context on the same device: no peer access (a device does not peer with itself).
    EXPECT_FALSE(can_access_peer(a1, b0));
    EXPECT_THROW(enable_peer_access(a1, b0), UnsupportedError);
    EXPECT_THROW(enable_peer_access(a0, a0), ArgumentError);
    // Where the driver says no.
    record.can_access = false;
    EXPECT_FALSE(can_access_peer(a0, b0));
    EXPECT_THROW(enable_peer_access(a0, b0), UnsupportedError);
    // Two kjarni contexts over the same primary context share it: access is a given.
    const Context p = Context::from_devices(devices()[0]);
    const Context q = Context::from_devices(devices()[0]);
    EXPECT_TRUE(can_access_peer(p.devices()[0], q.devices()[0]));
    EXPECT_TRUE(peer_access_enabled(p.devices()[0], q.devices()[0]));
}

TEST(Parity43FakeCudaJit, Item13OptionArraysCarryEveryJitOption) {
    backend::BuildOptions options;
    options.jit_optimization_level = 3;
    options.jit.threads_per_block = 256;
    options.jit.fallback = JitFallback::prefer_binary;
    options.jit.cache_mode = JitCacheMode::global_l1;
    options.jit.info_log_bytes = 4096;
    options.jit.error_log_bytes = 1024;
    options.jit.log_verbose = true;
    backend::cuda::JitOptionList list(options);
    EXPECT_EQ(list.value(CU_JIT_THREADS_PER_BLOCK), 256u);
    EXPECT_EQ(list.value(CU_JIT_FALLBACK_STRATEGY), std::uintptr_t{CU_PREFER_BINARY});
    EXPECT_EQ(list.value(CU_JIT_CACHE_MODE), std::uintptr_t{CU_JIT_CACHE_OPTION_CA});
    EXPECT_EQ(list.value(CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES), 4096u);
    EXPECT_EQ(list.value(CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES), 1024u);
    EXPECT_EQ(list.value(CU_JIT_LOG_VERBOSE), 1u);
    EXPECT_EQ(list.value(CU_JIT_OPTIMIZATION_LEVEL), 3u);
    EXPECT_TRUE(list.value(CU_JIT_WALL_TIME).has_value());
    EXPECT_FALSE(list.value(CU_JIT_MAX_REGISTERS).has_value());
    EXPECT_EQ(list.size(), list.option_ids().size());

    // What a driver writes back: the wall time as a float in its slot, the logs and their lengths,
    // and the threads per block it compiled for.
    std::map<CUjit_option, std::size_t> slot;
    for (std::size_t i = 0; i < list.option_ids().size(); ++i) slot[list.option_ids()[i]] = i;
    const float wall = 12.5f;
    std::memcpy(&list.values()[slot[CU_JIT_WALL_TIME]], &wall, sizeof wall);
    std::strcpy(static_cast<char*>(list.values()[slot[CU_JIT_INFO_LOG_BUFFER]]), "info: 12 registers");
    list.values()[slot[CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES]] = reinterpret_cast<void*>(std::uintptr_t{19});
    std::strcpy(static_cast<char*>(list.values()[slot[CU_JIT_ERROR_LOG_BUFFER]]), "no error");
    list.values()[slot[CU_JIT_THREADS_PER_BLOCK]] = reinterpret_cast<void*>(std::uintptr_t{192});
    const JitReport report = list.report();
    EXPECT_EQ(report.wall_time_ms, 12.5f);
    EXPECT_EQ(report.info_log, "info: 12 registers");
    EXPECT_EQ(report.error_log, "no error");
    EXPECT_EQ(report.threads_per_block, 192u);

    // The other modes and fallback.
    backend::BuildOptions other;
    other.jit.fallback = JitFallback::prefer_ptx;
    other.jit.cache_mode = JitCacheMode::global_l2;
    backend::cuda::JitOptionList second(other);
    EXPECT_EQ(second.value(CU_JIT_FALLBACK_STRATEGY), std::uintptr_t{CU_PREFER_PTX});
    EXPECT_EQ(second.value(CU_JIT_CACHE_MODE), std::uintptr_t{CU_JIT_CACHE_OPTION_CG});
    EXPECT_FALSE(second.value(CU_JIT_INFO_LOG_BUFFER).has_value()) << "no info log unless asked";
    other.jit.cache_mode = JitCacheMode::none;
    EXPECT_EQ(backend::cuda::JitOptionList(other).value(CU_JIT_CACHE_MODE), std::uintptr_t{CU_JIT_CACHE_OPTION_NONE});
}

TEST(Parity43FakeCudaJit, Item13SettableAttributesMapToTheDriver) {
    using backend::cuda::driver_attribute;
    EXPECT_EQ(driver_attribute(KernelAttribute::max_dynamic_shared_bytes),
              CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES);
    EXPECT_EQ(driver_attribute(KernelAttribute::preferred_shared_memory_carveout),
              CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT);
    EXPECT_EQ(driver_attribute(KernelAttribute::required_cluster_width), CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH);
    EXPECT_EQ(driver_attribute(KernelAttribute::required_cluster_height), CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT);
    EXPECT_EQ(driver_attribute(KernelAttribute::required_cluster_depth), CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH);
    EXPECT_EQ(driver_attribute(KernelAttribute::non_portable_cluster_size_allowed),
              CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED);
    EXPECT_EQ(driver_attribute(KernelAttribute::cluster_scheduling_policy_preference),
              CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE);
}

}  // namespace
}  // namespace kjarni::test::parity43_fake_cuda

#endif  // KJARNI_WITH_CUDA
