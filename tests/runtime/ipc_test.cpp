// Interprocess memory and events: UnsupportedError on OpenCL; on CUDA, what can be exported, and a
// producer (this process) and a consumer (kjarni_ipc_peer, tests/ipc/) sharing one device's memory
// ordered by an interprocess event.

#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>

#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "ipc/ipc_protocol.hpp"
#include "kjarni/host_memory.hpp"
#include "kjarni/ipc.hpp"
#include "kjarni/memory_pool.hpp"
#include "kjarni/virtual_buffers.hpp"
#include "support/argument_errors.hpp"
#include "support/random_data.hpp"
#include "support/test_devices.hpp"

extern char** environ;

namespace kjarni::test {
namespace {

class IpcTest : public DeviceTest {};

template <class F>
std::string unsupported_message(F&& call) {
    return read_thrown<UnsupportedError>(
        call, [](const UnsupportedError& e) { return std::string(e.what()); }, "no UnsupportedError");
}

TEST_P(IpcTest, OpenClHasNoHandles) {
    if (is_cuda()) GTEST_SKIP() << "CUDA has interprocess handles";
    const Buffer buffer = Buffer::allocate(bound_device(), 256);
    EXPECT_NE(unsupported_message([&] { buffer.ipc_handle(); }).find("OpenCL"), std::string::npos);
    EXPECT_NE(unsupported_message([&] { IpcEvent::create(bound_device()); }).find("OpenCL"), std::string::npos);
    // A well-formed handle (as a CUDA process would send) is refused for the API, not the bytes.
    std::vector<std::byte> memory_handle(ipc_memory_handle_bytes, std::byte{0});
    const unsigned char memory_head[] = {0x4b, 0x4a, 0x49, 0x50, 1, 0, 0, 0};
    std::memcpy(memory_handle.data(), memory_head, sizeof(memory_head));
    EXPECT_NE(unsupported_message([&] { Buffer::open_ipc(bound_device(), memory_handle); }).find("OpenCL"),
              std::string::npos);
    std::vector<std::byte> event_handle(ipc_event_handle_bytes, std::byte{0});
    const unsigned char event_head[] = {0x4b, 0x4a, 0x49, 0x45, 1, 0, 0, 0};
    std::memcpy(event_handle.data(), event_head, sizeof(event_head));
    EXPECT_NE(unsupported_message([&] { IpcEvent::open(bound_device(), event_handle); }).find("OpenCL"),
              std::string::npos);
}

TEST_P(IpcTest, BytesThatAreNoHandleAreRefused) {
    const auto garbage = random_bytes(ipc_memory_handle_bytes);
    EXPECT_THROW(Buffer::open_ipc(bound_device(), garbage), ArgumentError);
    EXPECT_THROW(Buffer::open_ipc(bound_device(), std::span<const std::byte>(garbage).first(10)), ArgumentError);
    EXPECT_THROW(IpcEvent::open(bound_device(), std::span<const std::byte>(garbage).first(ipc_event_handle_bytes)),
                 ArgumentError);
}

TEST_P(IpcTest, OnlyOwnAllocationsAreExported) {
    if (!is_cuda()) GTEST_SKIP() << "interprocess handles are CUDA's";
    const Buffer buffer = Buffer::allocate(bound_device(), 4096);
    EXPECT_EQ(buffer.ipc_handle().size(), ipc_memory_handle_bytes);
    EXPECT_EQ(buffer.get_sub_region(1024, 512).ipc_handle().size(), ipc_memory_handle_bytes);
    MemoryPool pool;
    const Buffer pooled = pool.allocate(bound_device(), 4096);
    EXPECT_NE(unsupported_message([&] { pooled.ipc_handle(); }).find("memory pool"), std::string::npos);
    TrivialManager manager(bound_device());
    const Buffer virtual_buffer = manager.allocate(4096);
    EXPECT_NE(unsupported_message([&] { virtual_buffer.ipc_handle(); }).find("virtual"), std::string::npos);
    const IpcEvent event = IpcEvent::create(bound_device());
    EXPECT_EQ(event.handle().size(), ipc_event_handle_bytes);
    event.record(queue());
    event.event().wait();
    EXPECT_TRUE(event.event().is_complete());
}

// The producer writes y with a slow kernel and records the event without waiting; the consumer
// (another process) opens y, z and the event, waits for the event on its queue, checks y and writes
// z = 3 y + 1; the producer then checks z against its own y.
TEST_P(IpcTest, TwoProcessesShareMemoryInOrder) {
    if (!is_cuda()) GTEST_SKIP() << "interprocess handles are CUDA's";
    // About 2 s of kernel on an H100 (ipc_protocol.hpp), longer than the consumer takes to start.
    constexpr std::uint32_t n = 1 << 16;
    constexpr std::uint32_t rounds = 200000000;
    const auto seed = static_cast<std::uint32_t>(random_engine()());
    const Buffer y = Buffer::allocate(bound_device(), n * sizeof(std::uint32_t));
    const Buffer z = Buffer::allocate(bound_device(), n * sizeof(std::uint32_t));
    const std::byte ones[4] = {std::byte{0xff}, std::byte{0xff}, std::byte{0xff}, std::byte{0xff}};
    y.fill(queue(), ones);
    z.fill(queue(), ones);
    const IpcEvent produced = IpcEvent::create(bound_device());
    Program program(bound_device(), ipc::producer_source);
    program.kernel("produce")(queue(), {n}, std::nullopt, y, seed, rounds, n);
    produced.record(queue());

    std::vector<std::string> arguments{KJARNI_IPC_PEER,
                                       std::to_string(GetParam().device_index),
                                       ipc::to_hex(y.ipc_handle()),
                                       ipc::to_hex(z.ipc_handle()),
                                       ipc::to_hex(produced.handle()),
                                       std::to_string(n),
                                       std::to_string(seed),
                                       std::to_string(rounds)};
    std::vector<char*> argv;
    for (auto& argument : arguments) argv.push_back(argument.data());
    argv.push_back(nullptr);
    pid_t pid = 0;
    ASSERT_EQ(posix_spawn(&pid, argv[0], nullptr, nullptr, argv.data(), environ), 0) << argv[0];
    int status = -1;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
    while (waitpid(pid, &status, WNOHANG) == 0) {
        if (std::chrono::steady_clock::now() > deadline) {
            kill(pid, SIGKILL);
            waitpid(pid, &status, 0);
            FAIL() << "the consumer hung";
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "the consumer failed (its output is above)";

    std::vector<std::uint32_t> y_host(n), z_host(n);
    y.get(queue(), std::span<std::uint32_t>(y_host));
    z.get(queue(), std::span<std::uint32_t>(z_host));
    for (std::uint32_t i = 0; i < n; ++i) ASSERT_EQ(y_host[i], ipc::produced(i, seed, rounds)) << i;
    for (std::uint32_t i = 0; i < n; ++i) ASSERT_EQ(z_host[i], y_host[i] * 3u + 1u) << i;
}

KJARNI_INSTANTIATE_DEVICE_TESTS(IpcTest);

}  // namespace
}  // namespace kjarni::test
