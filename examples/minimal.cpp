// The minimal program of the README: copy data to a device and back.
#include <kjarni/kjarni.hpp>

#include <iostream>
#include <numeric>
#include <vector>

int main() {
    kjarni::Api api = kjarni::Api::all_available().at(0);  // CUDA if present, else OpenCL
    kjarni::Context context = kjarni::Context::from_criteria(api);
    kjarni::BoundDevice device = context.devices()[0];
    kjarni::Queue queue(device);

    std::vector<float> host(1024);
    std::iota(host.begin(), host.end(), 0.0f);
    kjarni::Buffer buffer = kjarni::Buffer::allocate(device, host.size() * sizeof(float));
    buffer.set(queue, std::span<const float>(host));

    std::vector<float> back(host.size());
    buffer.get(queue, std::span<float>(back));
    std::cout << device.name() << ": " << (back == host ? "round trip OK" : "MISMATCH") << '\n';
    return back == host ? 0 : 1;
}
