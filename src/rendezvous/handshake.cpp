#include "rendezvous/handshake.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <utility>

#include "kjarni/error.hpp"
#include "kjarni/rendezvous.hpp"

namespace kjarni::rendezvous {

namespace {

constexpr std::size_t greeting_bytes = 2 + challenge_bytes;

// The proof of `role` over the whole exchange: the purpose, the job, the body's kind, both
// challenges (the connector's first) and the body.
Mac proof_of(std::string_view secret, std::string_view role, Purpose purpose, std::uint64_t job_nonce, Kind body_kind,
             const Challenge& connector, const Challenge& acceptor, std::span<const std::byte> body) {
    Writer writer;
    writer.text(role);
    writer.u16(static_cast<std::uint16_t>(purpose));
    writer.u64(job_nonce);
    writer.u16(static_cast<std::uint16_t>(body_kind));
    writer.raw(connector);
    writer.raw(acceptor);
    writer.raw(body);
    return hmac_sha256(secret, writer.bytes());
}

constexpr std::string_view connector_role = "kjarni rendezvous 2: connector";
constexpr std::string_view acceptor_role = "kjarni rendezvous 2: acceptor";

bool is_ours(const Header& header) { return header.magic == wire_magic && header.version == wire_version; }

std::string printable(std::string text) {
    for (char& c : text) {
        if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f) c = '?';
    }
    return text;
}

}  // namespace

Challenge fresh_challenge() {
    Challenge challenge{};
    random_bytes(challenge);
    return challenge;
}

std::vector<std::byte> frame(Kind kind, std::uint64_t nonce, std::span<const std::byte> payload) {
    const auto header = Header{.kind = kind, .nonce = nonce, .size = payload.size()}.encode();
    std::vector<std::byte> out(header.begin(), header.end());
    out.insert(out.end(), payload.begin(), payload.end());
    return out;
}

std::vector<std::byte> encode_refusal(std::uint32_t code, int peer, const std::string& argument,
                                      const std::string& reason) {
    Writer writer;
    writer.u32(code);
    writer.u32(static_cast<std::uint32_t>(peer));
    // Cut to what a reader takes (the texts are ours, but a reader must not have to trust that).
    writer.text(argument.substr(0, 256));
    writer.text(reason.substr(0, max_refusal_bytes - 256 - 16));
    return std::move(writer.bytes());
}

void throw_refusal(std::span<const std::byte> payload, int sender, int count) {
    Reader reader(payload);
    const std::uint32_t code = reader.u32();
    const auto peer = static_cast<std::int32_t>(reader.u32());
    const std::string argument = printable(reader.text());
    const std::string reason = printable(reader.text());
    const bool known_rank = peer >= -1 && (count < 0 || peer < count);
    if (!reader.ok() || (code != refusal_argument && code != refusal_peer) || !known_rank) {
        throw PeerError(sender, "refused this rank with a message that does not parse");
    }
    if (code == refusal_argument) {
        throw ArgumentError(argument, fmt::format("rank {} refused the job: {}", sender, reason));
    }
    throw PeerError(peer, fmt::format("rank {} could not start the job: {}", sender, reason));
}

std::size_t MessageReader::wanted() const {
    if (!has_header()) return raw_.size() - header_done_;
    if (!expecting_) return 0;
    return static_cast<std::size_t>(header_.size) - payload_.size();
}

void MessageReader::feed(std::span<const std::byte> bytes) {
    if (bytes.size() > wanted()) throw Error("rendezvous: more bytes fed to a message than it takes");
    if (!has_header()) {
        std::copy(bytes.begin(), bytes.end(), raw_.begin() + static_cast<std::ptrdiff_t>(header_done_));
        header_done_ += bytes.size();
        if (has_header()) header_ = Header::decode(raw_);
        return;
    }
    payload_.insert(payload_.end(), bytes.begin(), bytes.end());
}

void MessageReader::expect_payload() {
    expecting_ = true;
    payload_.reserve(static_cast<std::size_t>(header_.size));
}

AcceptorHandshake::AcceptorHandshake(std::string_view secret, Purpose purpose, std::uint64_t job_nonce, Kind body_kind,
                                     std::size_t body_bytes, const Challenge& own)
    : secret_(secret), purpose_(purpose), job_nonce_(job_nonce), body_kind_(body_kind), body_bytes_(body_bytes),
      own_(own) {}

std::size_t AcceptorHandshake::wanted() const { return done() ? 0 : reader_.wanted(); }

void AcceptorHandshake::check_header() {
    const Header& header = reader_.header();
    const Kind kind = step_ == Step::greeting ? Kind::greeting : body_kind_;
    const std::size_t size = step_ == Step::greeting ? greeting_bytes : mac_bytes + body_bytes_;
    if (!is_ours(header)) throw PeerError(-1, "sent bytes that are no kjarni rendezvous handshake (of this version)");
    if (header.kind != kind || header.size != size || header.nonce != job_nonce_) {
        throw PeerError(-1, fmt::format("sent a {} message of {} bytes instead of the handshake's {} of {} bytes (or "
                                        "one of another job)",
                                        kind_name(header.kind), header.size, kind_name(kind), size));
    }
    reader_.expect_payload();
}

void AcceptorHandshake::feed(std::span<const std::byte> bytes) {
    while (!bytes.empty()) {
        const std::size_t part = std::min(wanted(), bytes.size());
        if (part == 0) throw Error("rendezvous: more bytes fed to a handshake than it takes");
        feed_part(bytes.first(part));
        bytes = bytes.subspan(part);
    }
}

void AcceptorHandshake::feed_part(std::span<const std::byte> bytes) {
    reader_.feed(bytes);
    if (reader_.has_header() && reader_.wanted() == 0 && !reader_.complete()) check_header();
    if (!reader_.complete()) return;
    const auto payload = reader_.payload();
    if (step_ == Step::greeting) {
        Reader reader(payload);
        if (reader.u16() != static_cast<std::uint16_t>(purpose_)) {
            throw PeerError(-1, "greeted for another purpose (a join where a mesh connection is expected, or the "
                                "other way round)");
        }
        const auto theirs = reader.raw(challenge_bytes);
        std::copy(theirs.begin(), theirs.end(), theirs_.begin());
        output_ = frame(Kind::challenge, job_nonce_, own_);
        reader_ = MessageReader();
        step_ = Step::proof;
        return;
    }
    const auto body = payload.subspan(mac_bytes);
    const Mac expected = proof_of(secret_, connector_role, purpose_, job_nonce_, body_kind_, theirs_, own_, body);
    if (!same_mac(expected, payload.first<mac_bytes>())) {
        refused_proof_ = true;
        throw PeerError(-1, "offered a wrong proof of the job's secret");
    }
    output_ = frame(Kind::proof, job_nonce_,
                    proof_of(secret_, acceptor_role, purpose_, job_nonce_, body_kind_, theirs_, own_, body));
    step_ = Step::done;
}

std::vector<std::byte> AcceptorHandshake::take_output() { return std::exchange(output_, {}); }

std::span<const std::byte> AcceptorHandshake::body() const {
    return done() ? reader_.payload().subspan(mac_bytes) : std::span<const std::byte>();
}

ConnectorHandshake::ConnectorHandshake(std::string_view secret, Purpose purpose, std::uint64_t job_nonce,
                                       Kind body_kind, std::span<const std::byte> body, const Challenge& own, int peer)
    : secret_(secret), purpose_(purpose), job_nonce_(job_nonce), body_kind_(body_kind), body_(body.begin(), body.end()),
      own_(own), peer_(peer) {
    Writer greeting;
    greeting.u16(static_cast<std::uint16_t>(purpose_));
    greeting.raw(own_);
    output_ = frame(Kind::greeting, job_nonce_, greeting.bytes());
}

static_assert(challenge_bytes == mac_bytes, "the connector reads the challenge and the proof alike");

std::size_t ConnectorHandshake::wanted() const { return done() ? 0 : reader_.wanted(); }

void ConnectorHandshake::check_header() {
    const Header& header = reader_.header();
    if (!is_ours(header)) {
        throw PeerError(peer_, "answered the handshake with bytes that are no kjarni rendezvous handshake (of this "
                               "version): another program listens there, or another kjarni version");
    }
    const Kind kind = step_ == Step::challenge ? Kind::challenge : Kind::proof;
    const bool refusal = header.kind == Kind::refusal && header.size <= max_refusal_bytes;
    if (!refusal && (header.kind != kind || header.size != challenge_bytes || header.nonce != job_nonce_)) {
        throw PeerError(peer_, fmt::format("answered the handshake with a {} message of {} bytes instead of a {} of "
                                           "{} bytes (or one of another job)",
                                           kind_name(header.kind), header.size, kind_name(kind), challenge_bytes));
    }
    reader_.expect_payload();
}

void ConnectorHandshake::feed(std::span<const std::byte> bytes) {
    while (!bytes.empty()) {
        const std::size_t part = std::min(wanted(), bytes.size());
        if (part == 0) throw Error("rendezvous: more bytes fed to a handshake than it takes");
        feed_part(bytes.first(part));
        bytes = bytes.subspan(part);
    }
}

void ConnectorHandshake::feed_part(std::span<const std::byte> bytes) {
    reader_.feed(bytes);
    if (reader_.has_header() && reader_.wanted() == 0 && !reader_.complete()) check_header();
    if (!reader_.complete()) return;
    const auto payload = reader_.payload();
    if (reader_.header().kind == Kind::refusal) throw_refusal(payload, peer_);
    if (step_ == Step::challenge) {
        std::copy(payload.begin(), payload.end(), theirs_.begin());
        const Mac proof = proof_of(secret_, connector_role, purpose_, job_nonce_, body_kind_, own_, theirs_, body_);
        std::vector<std::byte> message(proof.begin(), proof.end());
        message.insert(message.end(), body_.begin(), body_.end());
        output_ = frame(body_kind_, job_nonce_, message);
        reader_ = MessageReader();
        step_ = Step::proof;
        return;
    }
    const Mac expected = proof_of(secret_, acceptor_role, purpose_, job_nonce_, body_kind_, own_, theirs_, body_);
    if (!same_mac(expected, payload.first<mac_bytes>())) {
        throw PeerError(peer_, "answered with a wrong proof of the job's secret: it is no rank of this job");
    }
    step_ = Step::done;
}

std::vector<std::byte> ConnectorHandshake::take_output() { return std::exchange(output_, {}); }

}  // namespace kjarni::rendezvous
