#pragma once
// Fresh random test data. The seed is printed by the suite (and can be fixed with
// KJARNI_TEST_SEED=<n>) so that a failure can be replayed.

#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

namespace kjarni::test {

/// The process-wide generator, seeded once from KJARNI_TEST_SEED or std::random_device.
std::mt19937_64& random_engine();

std::vector<std::byte> random_bytes(std::size_t count);

}  // namespace kjarni::test
