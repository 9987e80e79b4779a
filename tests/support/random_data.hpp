#pragma once
// Fresh random test data. The seed is printed by the suite (and can be fixed with
// KJARNI_TEST_SEED=<n>) so that a failure can be replayed.

#include <cstddef>
#include <cstdint>
#include <random>
#include <type_traits>
#include <vector>

namespace kjarni::test {

/// The process-wide generator, seeded once from KJARNI_TEST_SEED or std::random_device.
std::mt19937_64& random_engine();

std::vector<std::byte> random_bytes(std::size_t count);

/// Integers uniform over [low, high]; floats uniform over [low, high).
template <class T>
std::vector<T> random_vector(std::size_t count, T low, T high) {
    std::vector<T> values(count);
    if constexpr (std::is_floating_point_v<T>) {
        std::uniform_real_distribution<T> distribution(low, high);
        for (auto& v : values) v = distribution(random_engine());
    } else {
        std::uniform_int_distribution<long long> distribution(static_cast<long long>(low),
                                                              static_cast<long long>(high));
        for (auto& v : values) v = static_cast<T>(distribution(random_engine()));
    }
    return values;
}

}  // namespace kjarni::test
