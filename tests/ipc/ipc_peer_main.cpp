// kjarni_ipc_peer: the consumer of the two-process IPC test (tests/runtime/ipc_test.cpp), started
// by the producer with its handles on the command line:
//   kjarni_ipc_peer DEVICE Y_HANDLE Z_HANDLE EVENT_HANDLE N SEED ROUNDS
// Opens y, z and the event on CUDA device DEVICE, makes its queue wait for the event, checks
// samples of y against the CPU reference and writes z = 3 y + 1 with a kernel of its own. Exit
// status 0 when y was right and z is written. Says whether the producer's kernel was still running
// when the wait was enqueued (then the wait was put to the test).

#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "ipc/ipc_protocol.hpp"
#include "kjarni/kjarni.hpp"

int main(int argc, char** argv) {
    using namespace kjarni;
    namespace ipc = kjarni::test::ipc;
    if (argc != 8) {
        std::fprintf(stderr, "usage: kjarni_ipc_peer DEVICE Y Z EVENT N SEED ROUNDS\n");
        return 2;
    }
    try {
        const auto device_index = static_cast<std::size_t>(std::stoul(argv[1]));
        const auto n = static_cast<std::uint32_t>(std::stoul(argv[5]));
        const auto seed = static_cast<std::uint32_t>(std::stoul(argv[6]));
        const auto rounds = static_cast<std::uint32_t>(std::stoul(argv[7]));
        const Api api = Api::all_by_shortcut("cuda").at(0);
        Context context = Context::from_devices(Device::from_index(Platform::from_index(api, 0), device_index));
        const BoundDevice device = context.devices()[0];
        Queue queue(device);

        const Buffer y = Buffer::open_ipc(device, ipc::from_hex(argv[2]));
        const Buffer z = Buffer::open_ipc(device, ipc::from_hex(argv[3]));
        const IpcEvent produced = IpcEvent::open(device, ipc::from_hex(argv[4]));
        if (y.size() != n * sizeof(std::uint32_t) || z.size() != y.size()) {
            std::printf("consumer: opened buffers of %zu and %zu bytes, expected %zu\n", y.size(), z.size(),
                        n * sizeof(std::uint32_t));
            return 1;
        }
        // Everything below is ordered after the producer's kernel.
        const bool pending = !produced.event().is_complete();
        queue.wait_for(produced.event());
        Program program(device, ipc::consumer_source);
        program.kernel("consume")(queue, {n}, std::nullopt, z, y, n);
        std::vector<std::uint32_t> host(n);
        y.get(queue, std::span<std::uint32_t>(host));
        queue.synchronize();

        for (std::uint32_t i = 0; i < n; ++i) {
            if (host[i] != ipc::produced(i, seed, rounds)) {
                std::printf("consumer: y[%u] = %u, expected %u (did the queue wait for the producer?)\n", i, host[i],
                            ipc::produced(i, seed, rounds));
                return 1;
            }
        }
        std::printf("consumer: y checked, z written; the producer's kernel was %s when the wait was enqueued\n",
                    pending ? "still running" : "already done (the wait was not put to the test)");
        return 0;
    } catch (const std::exception& error) {
        std::printf("consumer failed: %s\n", error.what());
        return 1;
    }
}
