// libFuzzer entry point: what the TCP rendezvous reads from the network. The first byte of an input
// picks the reader, the rest is what a peer sent:
//   0  the accepting side of a handshake (a join or a mesh connection), fed the bytes in pieces;
//   1  the connecting side, fed the bytes as the acceptor's answers;
//   2  a real handshake between both sides whose bytes in flight the input rewrites: it must fail,
//      or pass with the body the connector sent (tampering never passes unnoticed);
//   3  the transfer engine receiving one message through a socket pair (of a known size, or of an
//      unknown one under a cap from the input), the input as the stream;
//   4  rank 0's table and a refusal, parsed.
// kjarni::Error is the expected way to fail; any other exception, a crash, a hang, a sanitizer
// report, an allocation beyond the sizes the readers allow, or an invariant broken
// (__builtin_trap) is a finding.

#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "kjarni/error.hpp"
#include "rendezvous/handshake.hpp"
#include "rendezvous/tcp_state.hpp"
#include "rendezvous/transfer.hpp"

namespace {

namespace wire = kjarni::rendezvous;
const std::string secret = "the fuzzer's job secret, 0123456789";

wire::Challenge fixed_challenge(std::uint8_t seed) {
    wire::Challenge challenge{};
    for (std::size_t i = 0; i < challenge.size(); ++i) challenge[i] = static_cast<std::byte>(seed + 7 * i);
    return challenge;
}

// Feeds `bytes` to a handshake in pieces of the sizes a reader would ask for (at most wanted()),
// taking its output as it comes.
template <class Handshake>
void feed_in_pieces(Handshake& handshake, std::span<const std::byte> bytes) {
    while (!bytes.empty() && handshake.wanted() > 0) {
        const std::size_t piece = std::min({handshake.wanted(), bytes.size(), std::size_t{1} + (bytes.size() % 61)});
        handshake.feed(bytes.first(piece));
        bytes = bytes.subspan(piece);
        handshake.take_output();
    }
}

void acceptor(std::span<const std::byte> input) {
    const bool mesh = !input.empty() && (static_cast<unsigned>(input[0]) & 1) != 0;
    wire::AcceptorHandshake handshake(secret, mesh ? wire::Purpose::mesh : wire::Purpose::join, mesh ? 77 : 0,
                                      mesh ? wire::Kind::mesh : wire::Kind::hello, mesh ? 8 : 10, fixed_challenge(1));
    feed_in_pieces(handshake, input.empty() ? input : input.subspan(1));
    // Only a connector that knows the secret gets through; the fuzzer does not know it.
    if (handshake.done()) __builtin_trap();
}

void connector(std::span<const std::byte> input) {
    const std::byte body[10] = {};
    wire::ConnectorHandshake handshake(secret, wire::Purpose::join, 0, wire::Kind::hello, body, fixed_challenge(2), 0);
    handshake.take_output();
    feed_in_pieces(handshake, input);
    if (handshake.done()) __builtin_trap();  // the acceptor's proof cannot be guessed
}

// Both real sides; the input is a list of (offset, value) rewrites of the bytes in flight.
void tampered(std::span<const std::byte> input) {
    std::vector<std::byte> body(8);
    for (std::size_t i = 0; i < body.size() && i < input.size(); ++i) body[i] = input[i];
    wire::ConnectorHandshake connector(secret, wire::Purpose::mesh, 5, wire::Kind::mesh, body, fixed_challenge(3), 1);
    wire::AcceptorHandshake acceptor(secret, wire::Purpose::mesh, 5, wire::Kind::mesh, body.size(), fixed_challenge(4));
    std::size_t flowed = 0;  // bytes in flight so far, both ways: the rewrites' offsets count in them
    bool rewritten = false;
    auto rewrite = [&](std::vector<std::byte> bytes) {
        const std::vector<std::byte> original = bytes;
        for (std::size_t at = 8; at + 2 <= input.size(); at += 2) {
            const std::size_t offset = static_cast<std::size_t>(input[at]);
            if (offset >= flowed && offset < flowed + bytes.size()) bytes[offset - flowed] = input[at + 1];
        }
        rewritten = rewritten || bytes != original;
        flowed += bytes.size();
        return bytes;
    };
    for (int round = 0; round < 4 && !(connector.done() && acceptor.done()); ++round) {
        acceptor.feed(rewrite(connector.take_output()));
        connector.feed(rewrite(acceptor.take_output()));
    }
    if (!connector.done() || !acceptor.done()) {
        // A clean exchange ends in two rounds. A rewritten one may stop short, waiting for bytes that
        // never come (a header rewritten into a refusal announcing more bytes than were sent): a
        // real reader times out there. Stopping short with neither side waiting is a finding.
        if (!rewritten) __builtin_trap();
        if (connector.wanted() == 0 && acceptor.wanted() == 0) __builtin_trap();
        return;
    }
    const auto got = acceptor.body();
    if (!std::equal(got.begin(), got.end(), body.begin(), body.end())) __builtin_trap();
    if (rewritten) __builtin_trap();  // a rewritten exchange must not pass
}

void transfer(std::span<const std::byte> input) {
    if (input.size() < 2) return;
    const bool grown = (static_cast<unsigned>(input[0]) & 1) != 0;
    const std::size_t size_or_limit = static_cast<std::size_t>(input[1]) * 16;
    const auto stream = input.subspan(2);
    int pair[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0) return;
    wire::Socket reading(pair[0]);
    {
        wire::Socket writing(pair[1]);
        // The socket's buffer holds any input of -max_len: written at once, then closed.
        for (std::size_t sent = 0; sent < stream.size();) {
            const ssize_t n = ::send(writing.fd(), stream.data() + sent, stream.size() - sent, MSG_NOSIGNAL);
            if (n <= 0) return;
            sent += static_cast<std::size_t>(n);
        }
    }
    std::vector<std::byte> into(grown ? 0 : size_or_limit);
    std::vector<std::byte> grown_into;
    wire::Incoming incoming = grown ? wire::Incoming(reading, 1, wire::Kind::all_gather, 42, grown_into, size_or_limit)
                                    : wire::Incoming(reading, 1, wire::Kind::message, 42, std::span(into));
    wire::transfer({}, std::span(&incoming, 1), std::chrono::milliseconds(200));
    if (grown && grown_into.size() > size_or_limit) __builtin_trap();
    if (!incoming.complete()) __builtin_trap();
}

void parse(std::span<const std::byte> input) {
    if (input.empty()) return;
    const int count = 1 + static_cast<int>(input[0]) % 8;
    try {
        const auto endpoints = kjarni::rendezvous::parse_table(input.subspan(1), count);
        if (endpoints.size() != static_cast<std::size_t>(count)) __builtin_trap();
        for (const auto& endpoint : endpoints) static_cast<void>(endpoint.to_string());
    } catch (const kjarni::Error&) {
    }
    wire::throw_refusal(input.subspan(1), 0);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0) return 0;
    const auto input = std::as_bytes(std::span(data + 1, size - 1));
    try {
        switch (data[0] % 5) {
        case 0: acceptor(input); break;
        case 1: connector(input); break;
        case 2: tampered(input); break;
        case 3: transfer(input); break;
        default: parse(input); break;
        }
    } catch (const kjarni::Error&) {
        // The expected way for a reader to turn bytes down.
    }
    return 0;
}
