#pragma once
// The handshake every TCP rendezvous connection opens with: each side proves that it knows the
// job's secret before any job data flows, by an HMAC-SHA256 over a fresh challenge of the other
// side (so a recorded handshake does not pass again) and the whole exchange. The side that
// connects proves first, so that a process that merely reaches the listening port learns no MAC
// of the secret at all (nothing to guess the secret from offline):
//
//   connector -> acceptor   greeting   purpose, the connector's challenge          (34 bytes)
//   acceptor  -> connector  challenge  the acceptor's challenge                    (32 bytes)
//   connector -> acceptor   hello|mesh the connector's proof, then the body        (32 + body)
//   acceptor  -> connector  proof      the acceptor's proof (or a refusal: wrong secret)
//
// proof = HMAC-SHA256(secret, role, purpose, job nonce, body kind, both challenges, body), the role
// ("connector" or "acceptor") differing so that neither proof can be reflected as the other.
// Both sides are pure byte machines (no sockets): tcp_bootstrap.cpp moves their bytes, and the wire
// fuzzer (fuzz/rendezvous_wire_fuzzer.cpp) feeds them whatever it likes. Every size is known
// before a byte of the payload is read: a header announcing anything else fails at once.

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "rendezvous/crypto.hpp"
#include "rendezvous/wire.hpp"

namespace kjarni::rendezvous {

inline constexpr std::size_t challenge_bytes = 32;
using Challenge = std::array<std::byte, challenge_bytes>;
/// A challenge from OpenSSL's RAND_bytes.
Challenge fresh_challenge();

/// What a connection is opened for: a rank joining rank 0, or a rank reaching a lower one.
enum class Purpose : std::uint16_t { join = 1, mesh = 2 };

/// The largest refusal (its two texts and codes) anyone reads.
inline constexpr std::size_t max_refusal_bytes = 4096;
inline constexpr std::uint32_t refusal_argument = 1;  // the job is misconfigured: ArgumentError
inline constexpr std::uint32_t refusal_peer = 2;      // a rank failed: PeerError

/// A refusal's payload: the code, the rank at fault (-1: none), the argument and the reason.
std::vector<std::byte> encode_refusal(std::uint32_t code, int peer, const std::string& argument,
                                      const std::string& reason);
/// Throws what a refusal from `sender` says: ArgumentError (the argument it names) or PeerError;
/// PeerError naming `sender` when it does not parse or names a rank outside -1..count-1 (`count`
/// -1: not known yet, any rank from -1 up). Its texts are the sender's: non-printable characters
/// become '?'.
[[noreturn]] void throw_refusal(std::span<const std::byte> payload, int sender, int count = -1);

/// One message read byte by byte: its header first, checked by the owner before any payload byte
/// is read (`expect`), then exactly the payload the header announced.
class MessageReader {
public:
    /// Bytes it can take now: the rest of the header, or of the payload once expected.
    std::size_t wanted() const;
    /// Takes at most wanted() bytes.
    void feed(std::span<const std::byte> bytes);
    bool has_header() const { return header_done_ == raw_.size(); }
    /// The decoded header, once has_header().
    const Header& header() const { return header_; }
    /// Allows the payload of the header's size; the caller checked that size first.
    void expect_payload();
    bool complete() const { return has_header() && expecting_ && payload_.size() == header_.size; }
    std::span<const std::byte> payload() const { return payload_; }

private:
    std::array<std::byte, Header::bytes> raw_{};
    std::size_t header_done_ = 0;
    Header header_;
    bool expecting_ = false;
    std::vector<std::byte> payload_;
};

/// The accepting side of one connection. Its failures throw PeerError (peer -1: who connected is
/// not known yet); refused_proof() tells a wrong proof (worth a refusal, the sender may be a rank
/// with another secret) from bytes that are no handshake (a stray, dropped silently).
class AcceptorHandshake {
public:
    /// `body_kind` and `body_bytes`: the message that carries the connector's proof.
    AcceptorHandshake(std::string_view secret, Purpose purpose, std::uint64_t job_nonce, Kind body_kind,
                      std::size_t body_bytes, const Challenge& own);
    std::size_t wanted() const;
    /// Takes bytes as they come (Error when they go past the handshake's end: a reader reads at
    /// most wanted(), so that it never takes the bytes of the message after the handshake).
    void feed(std::span<const std::byte> bytes);
    /// What to send now (empty when nothing); each output is taken once.
    std::vector<std::byte> take_output();
    bool done() const { return step_ == Step::done; }
    bool refused_proof() const { return refused_proof_; }
    /// The connector's body and its header, once done().
    std::span<const std::byte> body() const;
    const Header& body_header() const { return reader_.header(); }

private:
    enum class Step { greeting, proof, done };
    void feed_part(std::span<const std::byte> bytes);
    void check_header();
    std::string secret_;
    Purpose purpose_;
    std::uint64_t job_nonce_;
    Kind body_kind_;
    std::size_t body_bytes_;
    Challenge own_;
    Challenge theirs_{};
    Step step_ = Step::greeting;
    MessageReader reader_;
    std::vector<std::byte> output_;
    bool refused_proof_ = false;
};

/// The connecting side. Its failures throw PeerError naming `peer` (no handshake, a wrong proof,
/// no answer), or what the acceptor's refusal says (ArgumentError naming "secret" for a wrong one).
class ConnectorHandshake {
public:
    ConnectorHandshake(std::string_view secret, Purpose purpose, std::uint64_t job_nonce, Kind body_kind,
                       std::span<const std::byte> body, const Challenge& own, int peer);
    std::size_t wanted() const;
    /// As AcceptorHandshake::feed.
    void feed(std::span<const std::byte> bytes);
    std::vector<std::byte> take_output();
    bool done() const { return step_ == Step::done; }

private:
    enum class Step { challenge, proof, done };
    void feed_part(std::span<const std::byte> bytes);
    void check_header();
    std::string secret_;
    Purpose purpose_;
    std::uint64_t job_nonce_;
    Kind body_kind_;
    std::vector<std::byte> body_;
    Challenge own_;
    Challenge theirs_{};
    int peer_;
    Step step_ = Step::challenge;
    MessageReader reader_;
    std::vector<std::byte> output_;
};

/// A whole message: the header (with `nonce`) and the payload.
std::vector<std::byte> frame(Kind kind, std::uint64_t nonce, std::span<const std::byte> payload);

}  // namespace kjarni::rendezvous
