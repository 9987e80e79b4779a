#include "support/random_data.hpp"

#include <cstdio>
#include <cstdlib>
#include <string>

namespace kjarni::test {

std::mt19937_64& random_engine() {
    static std::mt19937_64 engine = [] {
        const char* fixed = std::getenv("KJARNI_TEST_SEED");
        const std::uint64_t seed = fixed != nullptr ? std::stoull(fixed) : std::random_device{}();
        std::printf("random data: KJARNI_TEST_SEED=%llu\n", static_cast<unsigned long long>(seed));
        return std::mt19937_64(seed);
    }();
    return engine;
}

std::vector<std::byte> random_bytes(std::size_t count) {
    std::vector<std::byte> bytes(count);
    auto& engine = random_engine();
    for (auto& b : bytes) b = static_cast<std::byte>(engine() & 0xFF);
    return bytes;
}

}  // namespace kjarni::test
