#pragma once
// The cryptography of the rendezvous' handshake, from OpenSSL's libcrypto (never written here):
// HMAC-SHA256, random bytes from its CSPRNG, and a comparison whose time does not depend on where
// two MACs differ. libcrypto is loaded at run time (crypto.cpp says why), so a machine without it
// gets an UnsupportedError naming it from the first call, and nothing else of kjarni needs it.

#include <array>
#include <cstddef>
#include <span>
#include <string_view>

namespace kjarni::rendezvous {

inline constexpr std::size_t mac_bytes = 32;  // SHA-256
using Mac = std::array<std::byte, mac_bytes>;

/// HMAC-SHA256 of `message` under `key` (any length, empty included).
Mac hmac_sha256(std::string_view key, std::span<const std::byte> message);
/// Fills `out` from OpenSSL's RAND_bytes; Error when it fails (an unseeded generator).
void random_bytes(std::span<std::byte> out);
/// Whether two MACs are equal, in time that does not depend on their contents (CRYPTO_memcmp).
bool same_mac(const Mac& a, std::span<const std::byte, mac_bytes> b);
/// UnsupportedError naming libcrypto and how to install it, unless it is loaded.
void require_crypto();

}  // namespace kjarni::rendezvous
