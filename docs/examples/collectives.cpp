// The example of docs/collectives.md: collectives over the devices of one context, first from one
// thread over every part of a MultiArray (Communicator::create_all), then with one rank per thread
// meeting through a Rendezvous (Communicator::from_rendezvous), as the processes of a job do. Every
// result is checked against the same reduction computed on the CPU from every rank's random data.
//
// It uses every device of the first device's platform: two PoCL devices when
// POCL_DEVICES="pthread pthread" (as the test suite runs it), one otherwise, where the MultiArray
// part has a single rank and the two rank threads share the device. The first argument names the
// device (a device specifier), else the first device is used.

#include <kjarni/kjarni.hpp>

#include <cmath>
#include <exception>
#include <iostream>
#include <memory>
#include <mutex>
#include <random>
#include <thread>
#include <vector>

namespace {

std::mt19937 engine(std::random_device{}());

std::vector<float> random_floats(std::size_t n) {
    std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
    std::vector<float> values(n);
    for (auto& v : values) v = uniform(engine);
    return values;
}

bool report(bool ok, const char* what) {
    std::cout << what << ": " << (ok ? "OK" : "MISMATCH") << '\n';
    return ok;
}

// Whether `got` is the element-wise sum of `inputs` (one vector per rank). Ranks are summed in no
// fixed order: a float32 sum of n terms is within (n - 1) * 2^-24 of the sum of their magnitudes.
bool is_sum(const std::vector<float>& got, const std::vector<std::vector<float>>& inputs) {
    bool ok = got.size() == inputs[0].size();
    for (std::size_t i = 0; ok && i < got.size(); ++i) {
        double exact = 0, magnitude = 0;
        for (const auto& rank : inputs) {
            exact += rank[i];
            magnitude += std::abs(rank[i]);
        }
        ok = std::abs(got[i] - exact) <= static_cast<double>(inputs.size()) * std::ldexp(1.0, -24) * magnitude;
    }
    return ok;
}

int run(const kjarni::Context& context) {
    constexpr std::size_t n = 1000;
    bool ok = true;

    //! [multi]
    // One communicator per device of the context, all made by this thread: rank i on device i.
    const kjarni::MultiQueue queues = kjarni::MultiQueue::on_devices(context.devices());
    const std::vector<kjarni::Communicator> comms = kjarni::Communicator::create_all(queues);
    std::cout << comms.size() << " ranks, engine " << comms[0].engine() << '\n';

    // A CloneSplay array has a part of the whole shape on every device; here each part gets
    // its own values, and all_reduce sums them into every part, in one call.
    const kjarni::MultiArray gradients = kjarni::MultiArray::empty(context.devices(), {n}, kjarni::dtypes::float32, {},
                                                                   std::make_shared<kjarni::CloneSplay>());
    std::vector<std::vector<float>> inputs(comms.size());
    for (std::size_t part = 0; part < gradients.parts().size(); ++part) {
        inputs[part] = random_floats(n);
        const kjarni::BoundDevice& device = gradients.devices()[part];
        gradients.part(device).set(queues[device], std::span<const float>(inputs[part]));
    }
    kjarni::all_reduce(comms, gradients, gradients);  // in place
    //! [multi]
    bool multi_ok = true;
    for (std::size_t part = 0; part < gradients.parts().size(); ++part) {
        const kjarni::BoundDevice& device = gradients.devices()[part];
        multi_ok = multi_ok && is_sum(gradients.part(device).get(queues[device]).to_vector<float>(), inputs);
    }
    ok = report(multi_ok, "all_reduce over the parts of a MultiArray") && ok;

    //! [ranks]
    // Two ranks as threads of this process, meeting through a LocalRendezvous; a job of processes
    // gets its rendezvous from kjarni::rendezvous_from_environment() instead, and runs the same code.
    constexpr int count = 2;
    const auto rendezvous = kjarni::LocalRendezvous::create_group(count);
    std::vector<std::vector<float>> rank_inputs(count);
    for (auto& values : rank_inputs) values = random_floats(n);
    std::vector<std::vector<float>> sums(count), gathered(count), broadcast(count);
    std::exception_ptr failure;
    std::mutex failure_mutex;
    const auto rank_body = [&](kjarni::Rendezvous& meeting) {
        const auto rank = static_cast<std::size_t>(meeting.rank());
        // Ranks take the context's devices in turn (two ranks share one device when there is one).
        const kjarni::Queue queue(context.devices()[rank % context.device_count()]);
        // Collective: rank 0 makes the clique id and sends it through the rendezvous.
        const kjarni::Communicator comm = kjarni::Communicator::from_rendezvous(queue, meeting);
        const kjarni::Array mine = kjarni::Array::from_host(queue, std::span<const float>(rank_inputs[rank]), {n});
        sums[rank] = comm.all_reduce(mine, kjarni::ReduceOp::sum).get(queue).to_vector<float>();
        gathered[rank] = comm.all_gather(mine).get(queue).to_vector<float>();  // shape {count, n}
        const kjarni::Array shared = mine.copy(queue);
        comm.broadcast(shared, /*root=*/1);  // rank 1's values on every rank
        broadcast[rank] = shared.get(queue).to_vector<float>();
    };
    std::vector<std::thread> threads;
    for (int rank = 0; rank < count; ++rank) {
        threads.emplace_back([&, rank] {
            try {
                rank_body(*rendezvous[static_cast<std::size_t>(rank)]);
            } catch (...) {
                const std::lock_guard lock(failure_mutex);
                if (!failure) failure = std::current_exception();
            }
        });
    }
    for (std::thread& thread : threads) thread.join();
    if (failure) std::rethrow_exception(failure);
    //! [ranks]
    std::vector<float> every_rank;
    for (const auto& values : rank_inputs) every_rank.insert(every_rank.end(), values.begin(), values.end());
    bool ranks_ok = true;
    for (std::size_t rank = 0; rank < count; ++rank) {
        ranks_ok = ranks_ok && is_sum(sums[rank], rank_inputs) && gathered[rank] == every_rank &&
                   broadcast[rank] == rank_inputs[1];
    }
    ok = report(ranks_ok, "ranks as threads: all_reduce, all_gather, broadcast") && ok;
    return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
    try {
        const std::vector<kjarni::Device> devices = kjarni::devices_from_specifiers(argc > 1 ? argv[1] : "");
        if (devices.empty()) throw kjarni::NotFoundError("no device: no GPU API is available here");
        // Every device of the first device's platform: one rank per device.
        return run(kjarni::Context::from_devices(devices.front().platform().devices()));
    } catch (const kjarni::Error& e) {
        std::cerr << "collectives example failed: " << e.what() << '\n';
        return 1;
    }
}
