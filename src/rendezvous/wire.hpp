#pragma once
// What the TCP rendezvous puts on the wire: every message starts with a fixed header that carries a
// magic number (so that a connection from another program is told apart at once), the protocol
// version, the kind of message (so that ranks calling different operations are told apart instead
// of misreading each other), the job's nonce (so that a rank of another job is refused) and the
// payload's size. Numbers are little-endian whatever the host. Every connection opens with the
// handshake of handshake.hpp (greeting, challenge, proof) before any other message.

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace kjarni::rendezvous {

inline constexpr std::uint32_t wire_magic = 0x4b4a5256;  // "KJRV"
inline constexpr std::uint16_t wire_version = 2;         // 2: the authenticated handshake

enum class Kind : std::uint16_t {
    hello = 1,    // a rank to rank 0: its proof, then rank, count, the port it listens at
    table = 2,    // rank 0 to a rank: every rank's endpoint (the header carries the nonce)
    refusal = 3,  // rank 0 to a rank: the job cannot start, and why
    mesh = 4,     // a rank to a lower one: its proof, then who connects to whom
    message = 5,  // send / recv / exchange
    broadcast = 6,
    all_gather = 7,
    barrier = 8,
    greeting = 9,    // the connecting side's first message: the purpose and its challenge
    challenge = 10,  // the accepting side's answer: its challenge
    proof = 11,      // the accepting side's proof, once it has checked the connecting side's
};

std::string_view kind_name(Kind kind);

struct Header {
    std::uint32_t magic = wire_magic;
    std::uint16_t version = wire_version;
    Kind kind = Kind::message;
    std::uint64_t nonce = 0;
    std::uint64_t size = 0;

    static constexpr std::size_t bytes = 24;
    std::array<std::byte, bytes> encode() const;
    static Header decode(std::span<const std::byte, bytes> raw);
};

/// Appends and reads little-endian numbers and strings of a payload.
class Writer {
public:
    void u16(std::uint16_t value) { put(value, 2); }
    void u32(std::uint32_t value) { put(value, 4); }
    void u64(std::uint64_t value) { put(value, 8); }
    void raw(std::span<const std::byte> bytes) { out_.insert(out_.end(), bytes.begin(), bytes.end()); }
    void text(std::string_view value);
    std::vector<std::byte>& bytes() { return out_; }

private:
    void put(std::uint64_t value, int size);
    std::vector<std::byte> out_;
};

class Reader {
public:
    explicit Reader(std::span<const std::byte> in) : in_(in) {}
    std::uint16_t u16() { return static_cast<std::uint16_t>(get(2)); }
    std::uint32_t u32() { return static_cast<std::uint32_t>(get(4)); }
    std::uint64_t u64() { return get(8); }
    std::span<const std::byte> raw(std::size_t size);
    std::string text();
    /// False once a read went past the end (the reads then give zeros).
    bool ok() const { return ok_; }

private:
    std::uint64_t get(int size);
    std::span<const std::byte> in_;
    std::size_t at_ = 0;
    bool ok_ = true;
};

}  // namespace kjarni::rendezvous
