// The TCP rendezvous against hostile peers on loopback: wrong and missing secrets, a replayed
// handshake, a listener posing as rank 0, size fields that announce more than a rank accepts,
// truncated and stalled messages, a connection that never speaks, and where rank 0 listens. The
// timeouts are short so that the tests stay fast; each test bounds how long its failure may take.

#include <fcntl.h>
#include <ifaddrs.h>
#include <sys/stat.h>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "kjarni/rendezvous.hpp"
#include "rendezvous/hostile_peer.hpp"
#include "rendezvous/rank_threads.hpp"
#include "support/argument_errors.hpp"
#include "support/random_data.hpp"

namespace kjarni::test {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;
namespace wire = kjarni::rendezvous;

// A random secret of 32 hex digits, as `openssl rand -hex 16` makes.
std::string random_secret() {
    std::string secret;
    for (const auto byte : random_bytes(16)) secret += fmt::format("{:02x}", static_cast<unsigned>(byte));
    return secret;
}

TcpRendezvousOptions with(const std::string& secret, std::chrono::milliseconds timeout) {
    TcpRendezvousOptions options;
    options.secret = secret;
    options.timeout = timeout;
    return options;
}

std::string message_of(const std::exception_ptr& error) {
    try {
        if (error) std::rethrow_exception(error);
    } catch (const std::exception& e) {
        return e.what();
    }
    return "";
}

// Rank 0 of a job of 2 on its own thread, its outcome kept; `body` runs on the test's thread
// meanwhile (as the other rank, or a hostile one).
struct RootThread {
    std::unique_ptr<TcpRendezvous> rendezvous;
    std::exception_ptr error;
    std::thread thread;
    RootThread(std::uint16_t port, const TcpRendezvousOptions& options)
        : thread([this, port, options] {
              try {
                  rendezvous = TcpRendezvous::create("127.0.0.1", port, 0, 2, options);
              } catch (...) {
                  error = std::current_exception();
              }
          }) {}
    void join() {
        if (thread.joinable()) thread.join();
    }
    ~RootThread() { join(); }
};

TEST(TcpRendezvousSecurity, AWrongSecretIsRefusedAtOnceAndNamed) {
    const std::uint16_t port = free_port();
    const auto start = Clock::now();
    std::vector<std::chrono::milliseconds> took(2);
    auto errors = on_rank_threads(2, [&](int rank) {
        const auto begin = Clock::now();
        try {
            TcpRendezvous::create("127.0.0.1", port, rank, 2,
                                  with(rank == 0 ? random_secret() : random_secret(), 800ms));
        } catch (...) {
            took[static_cast<std::size_t>(rank)] =
                std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - begin);
            throw;
        }
    });
    // Rank 1 learns from rank 0's refusal, at once; rank 0 waits its timeout for a rank with the secret.
    EXPECT_EQ(outcome(errors[1]), "ArgumentError secret") << message_of(errors[1]);
    EXPECT_LT(took[1], 600ms);
    EXPECT_EQ(outcome(errors[0]), "PeerError 1");
    EXPECT_NE(message_of(errors[0]).find("not given the same secret"), std::string::npos) << message_of(errors[0]);
    EXPECT_LT(Clock::now() - start, 4s);
}

TEST(TcpRendezvousSecurity, NoSecretOnlyOnLoopback) {
    // Explicitly no secret: rank 0's address and where it listens must be loopback ones.
    auto none = with("", 1s);
    EXPECT_EQ(argument_named_by([&] { TcpRendezvous::create("192.0.2.1", 1, 1, 2, none); }), "secret");
    none.listen_address = "any";
    EXPECT_EQ(argument_named_by([&] { TcpRendezvous::create("127.0.0.1", 1, 0, 2, none); }), "secret");
    none.listen_address = "192.0.2.1";
    EXPECT_EQ(argument_named_by([&] { TcpRendezvous::create("127.0.0.1", 1, 0, 2, none); }), "secret");
    // A short secret is refused whatever the address.
    EXPECT_EQ(argument_named_by([&] { TcpRendezvous::create("127.0.0.1", 1, 0, 1, with("short", 1s)); }), "secret");
    // On loopback without one, the job runs, unauthenticated.
    const std::uint16_t port = free_port();
    std::vector<std::unique_ptr<TcpRendezvous>> group(2);
    rethrow_any(on_rank_threads(2, [&](int rank) {
        group[static_cast<std::size_t>(rank)] = TcpRendezvous::create("127.0.0.1", port, rank, 2, with("", 5s));
    }));
    EXPECT_FALSE(group[0]->authenticated());
    EXPECT_EQ(group[0]->job_nonce(), group[1]->job_nonce());
}

// The secret from the environment: KJARNI_JOB_SECRET, else a private file.
TEST(TcpRendezvousSecurity, TheSecretFromTheEnvironment) {
    const char* saved = std::getenv("KJARNI_JOB_SECRET");
    const std::string saved_value = saved != nullptr ? saved : "";
    const char* saved_file = std::getenv("KJARNI_JOB_SECRET_FILE");
    const std::string saved_file_value = saved_file != nullptr ? saved_file : "";
    unsetenv("KJARNI_JOB_SECRET");
    const auto path = std::filesystem::temp_directory_path() / fmt::format("kjarni-secret-{}", ::getpid());
    const std::string secret = random_secret();
    {
        std::ofstream out(path);
        out << secret << "\n";  // as `openssl rand -hex 32 > file` writes it
    }
    setenv("KJARNI_JOB_SECRET_FILE", path.c_str(), 1);
    const auto run = [&](const std::string& other) {
        const std::uint16_t port = free_port();
        return on_rank_threads(2, [&](int rank) {
            TcpRendezvousOptions options;  // rank 0 from the environment, rank 1 given `other`
            options.timeout = 600ms;
            if (rank == 1) options.secret = other;
            auto r = TcpRendezvous::create("127.0.0.1", port, rank, 2, options);
            if (!r->authenticated()) throw std::runtime_error("not authenticated");
        });
    };
    ::chmod(path.c_str(), 0644);
    EXPECT_EQ(outcome(run(secret)[0]), "ArgumentError KJARNI_JOB_SECRET_FILE");  // others may read it
    ::chmod(path.c_str(), 0600);
    auto errors = run(secret);  // the file's newline is not part of the secret
    EXPECT_EQ(outcome(errors[0]), "ok") << message_of(errors[0]);
    EXPECT_EQ(outcome(errors[1]), "ok") << message_of(errors[1]);
    setenv("KJARNI_JOB_SECRET", secret.c_str(), 1);  // the variable wins over the file
    ::chmod(path.c_str(), 0644);
    errors = run(secret);
    EXPECT_EQ(outcome(errors[0]), "ok") << message_of(errors[0]);
    std::filesystem::remove(path);
    unsetenv("KJARNI_JOB_SECRET");
    unsetenv("KJARNI_JOB_SECRET_FILE");
    if (!saved_value.empty()) setenv("KJARNI_JOB_SECRET", saved_value.c_str(), 1);
    if (!saved_file_value.empty()) setenv("KJARNI_JOB_SECRET_FILE", saved_file_value.c_str(), 1);
}

// A handshake that passed once, replayed byte for byte on a new connection, does not pass again:
// rank 0's challenge is fresh. The job then starts with the real rank.
TEST(TcpRendezvousSecurity, AReplayedHandshakeIsRefused) {
    const std::string secret = random_secret();
    // A complete, valid exchange recorded between the real two sides of the handshake.
    wire::Writer hello;
    hello.u32(1);
    hello.u32(2);
    hello.u16(9);
    wire::ConnectorHandshake connector(secret, wire::Purpose::join, 0, wire::Kind::hello, hello.bytes(),
                                       wire::fresh_challenge(), 0);
    wire::AcceptorHandshake acceptor(secret, wire::Purpose::join, 0, wire::Kind::hello, 10, wire::fresh_challenge());
    std::vector<std::byte> recorded;
    while (!connector.done()) {
        const auto sent = connector.take_output();
        recorded.insert(recorded.end(), sent.begin(), sent.end());
        acceptor.feed(sent);
        connector.feed(acceptor.take_output());
    }
    ASSERT_TRUE(acceptor.done());

    const std::uint16_t port = free_port();
    RootThread root(port, with(secret, 3s));
    {
        RawConnection replay(port);
        replay.send(recorded);
        const auto [challenge, nonce] = replay.receive_message();
        EXPECT_EQ(challenge.kind, wire::Kind::challenge);
        const auto [refusal, why] = replay.receive_message();  // the wrong proof's answer
        EXPECT_EQ(refusal.kind, wire::Kind::refusal);
        EXPECT_TRUE(replay.closed_by_peer());
    }
    auto real = TcpRendezvous::create("127.0.0.1", port, 1, 2, with(secret, 3s));
    root.join();
    EXPECT_EQ(outcome(root.error), "ok") << message_of(root.error);
    EXPECT_TRUE(real->authenticated());
}

// A listener at rank 0's port that does not know the secret: silent, or answering with a made-up
// proof. The rank believes neither, and says so within its timeout.
TEST(TcpRendezvousSecurity, AnImpostorRootIsNotBelieved) {
    for (const bool silent : {true, false}) {
        const std::uint16_t port = free_port();
        const int listener = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        sockaddr_in address{};
        address.sin_family = AF_INET;
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        address.sin_port = htons(port);
        ASSERT_EQ(::bind(listener, reinterpret_cast<sockaddr*>(&address), sizeof(address)), 0);
        ASSERT_EQ(::listen(listener, 4), 0);
        std::thread impostor([&] {
            RawConnection connection(::accept(listener, nullptr, nullptr));
            const auto [greeting, challenge] = connection.receive_message();
            if (silent) {
                connection.receive(1);  // until the rank gives up
                return;
            }
            const auto own = random_bytes(wire::challenge_bytes);
            connection.send(header_bytes(wire::Kind::challenge, 0, own.size()));
            connection.send(own);
            const auto [proof, body] = connection.receive_message();
            const auto made_up = random_bytes(wire::mac_bytes);
            connection.send(header_bytes(wire::Kind::proof, 0, made_up.size()));
            connection.send(made_up);
            connection.receive(1);
        });
        const auto start = Clock::now();
        std::exception_ptr error;
        try {
            TcpRendezvous::create("127.0.0.1", port, 1, 2, with(random_secret(), 400ms));
        } catch (...) {
            error = std::current_exception();
        }
        EXPECT_EQ(outcome(error), "PeerError 0") << message_of(error);
        EXPECT_NE(message_of(error).find(silent ? "did not answer the handshake" : "wrong proof"), std::string::npos)
            << message_of(error);
        EXPECT_LT(Clock::now() - start, 3s);
        impostor.join();
        ::close(listener);
    }
}

// After the handshake, a proven peer announcing more than a rank accepts (over the cap of a message
// of unknown size, or more than the known size), or a barrier that carries bytes: a PeerError (or
// ArgumentError for a known size that differs) before anything is allocated; a size near 2^64 would
// otherwise throw std::bad_alloc or kill the process.
TEST(TcpRendezvousSecurity, OversizedSizeFieldsAreRefusedBeforeAllocating) {
    const std::string secret = random_secret();
    const std::uint64_t sizes[] = {std::uint64_t{1} << 62, (std::uint64_t{1} << 20) + 1};
    for (const std::uint64_t size : sizes) {
        for (const auto kind : {wire::Kind::all_gather, wire::Kind::broadcast, wire::Kind::barrier}) {
            const std::uint16_t port = free_port();
            auto options = with(secret, 3s);
            options.max_message_bytes = std::size_t{1} << 20;
            RootThread root(port, options);
            RawConnection hostile(port);
            const std::uint64_t nonce = join_as_rank_one(hostile, secret);
            root.join();
            ASSERT_EQ(outcome(root.error), "ok") << message_of(root.error);
            hostile.send(header_bytes(kind, nonce, size));
            const auto start = Clock::now();
            std::exception_ptr error;
            try {
                if (kind == wire::Kind::all_gather) root.rendezvous->all_gather(random_bytes(8));
                if (kind == wire::Kind::broadcast) root.rendezvous->broadcast({}, 1);
                if (kind == wire::Kind::barrier) root.rendezvous->barrier();
            } catch (...) {
                error = std::current_exception();
            }
            EXPECT_EQ(outcome(error), "PeerError 1") << wire::kind_name(kind) << ": " << message_of(error);
            EXPECT_NE(message_of(error).find("more than"), std::string::npos) << message_of(error);
            EXPECT_LT(Clock::now() - start, 1s);
        }
    }
    // A recv of a known size: the announced one must be it.
    const std::uint16_t port = free_port();
    RootThread root(port, with(secret, 3s));
    RawConnection hostile(port);
    const std::uint64_t nonce = join_as_rank_one(hostile, secret);
    root.join();
    hostile.send(header_bytes(wire::Kind::message, nonce, std::uint64_t{1} << 62));
    std::vector<std::byte> into(64);
    EXPECT_EQ(argument_named_by([&] { root.rendezvous->recv(1, into); }), "data");
}

// A message cut short: closed half-way (named at once), or stalled half-way (named at the timeout).
TEST(TcpRendezvousSecurity, TruncatedAndStalledMessagesAreNamed) {
    const std::string secret = random_secret();
    for (const bool closes : {true, false}) {
        const std::uint16_t port = free_port();
        RootThread root(port, with(secret, 300ms));
        RawConnection hostile(port);
        const std::uint64_t nonce = join_as_rank_one(hostile, secret);
        root.join();
        ASSERT_EQ(outcome(root.error), "ok") << message_of(root.error);
        auto bytes = header_bytes(wire::Kind::message, nonce, 64);
        bytes.resize(bytes.size() + 10);  // 10 of the 64 payload bytes
        hostile.send(bytes);
        if (closes) hostile.close();
        std::vector<std::byte> into(64);
        const auto start = Clock::now();
        std::exception_ptr error;
        try {
            root.rendezvous->recv(1, into);
        } catch (...) {
            error = std::current_exception();
        }
        const auto waited = Clock::now() - start;
        EXPECT_EQ(outcome(error), "PeerError 1") << message_of(error);
        EXPECT_NE(message_of(error).find(closes ? "closed" : "sent nothing for 300 ms"), std::string::npos)
            << message_of(error);
        if (closes) {
            EXPECT_LT(waited, 250ms);
        } else {
            EXPECT_GE(waited, 300ms);
        }
        EXPECT_LT(waited, 2s);
        EXPECT_THROW(root.rendezvous->barrier(), Error);  // broken after the error
    }
}

// Connections that never speak, or greet and then fall silent, hold rank 0 up no longer than the
// real ranks take; the job starts.
TEST(TcpRendezvousSecurity, ConnectionsThatNeverSpeakDelayNoOne) {
    const std::string secret = random_secret();
    const std::uint16_t port = free_port();
    RootThread root(port, with(secret, 3s));
    std::vector<std::unique_ptr<RawConnection>> silent;
    for (int i = 0; i < 20; ++i) silent.push_back(std::make_unique<RawConnection>(port));
    const auto greeting = wire::frame(wire::Kind::greeting, 0, random_bytes(34));
    silent.front()->send(std::span(greeting).first(30));  // a greeting cut short
    const auto start = Clock::now();
    auto real = TcpRendezvous::create("127.0.0.1", port, 1, 2, with(secret, 3s));
    root.join();
    EXPECT_EQ(outcome(root.error), "ok") << message_of(root.error);
    EXPECT_LT(Clock::now() - start, 1s);
}

// Rank 0 listens on the interface of its address only: at 127.0.0.1, not at this host's other
// addresses (unless told "any").
TEST(TcpRendezvousSecurity, RankZeroListensWhereItWasToldOnly) {
    ifaddrs* list = nullptr;
    ASSERT_EQ(getifaddrs(&list), 0);
    std::string other;
    for (const ifaddrs* entry = list; entry != nullptr; entry = entry->ifa_next) {
        if (entry->ifa_addr == nullptr || entry->ifa_addr->sa_family != AF_INET) continue;
        const auto& v4 = *reinterpret_cast<const sockaddr_in*>(entry->ifa_addr);
        if ((ntohl(v4.sin_addr.s_addr) >> 24) == 127) continue;
        char text[INET_ADDRSTRLEN] = {};
        inet_ntop(AF_INET, &v4.sin_addr, text, sizeof(text));
        other = text;
        break;
    }
    freeifaddrs(list);
    if (other.empty()) GTEST_SKIP() << "this host has no IPv4 address but loopback";
    const std::string secret = random_secret();
    for (const std::string listen : {"", "any"}) {
        const std::uint16_t port = free_port();
        auto options = with(secret, 3s);
        options.listen_address = listen;
        RootThread root(port, options);
        std::this_thread::sleep_for(100ms);  // listening by now
        const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        sockaddr_in address{};
        address.sin_family = AF_INET;
        inet_pton(AF_INET, other.c_str(), &address.sin_addr);
        address.sin_port = htons(port);
        const bool reached = ::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0;
        ::close(fd);
        EXPECT_EQ(reached, listen == "any") << other << ":" << port << " with listen_address '" << listen << "'";
        auto real = TcpRendezvous::create("127.0.0.1", port, 1, 2, options);
        root.join();
        EXPECT_EQ(outcome(root.error), "ok") << message_of(root.error);
    }
}

// The cap on messages of unknown size, between real ranks.
TEST(TcpRendezvousSecurity, TheMessageCapHolds) {
    const std::uint16_t port = free_port();
    auto options = with(random_secret(), 3s);
    options.max_message_bytes = 1000;
    std::vector<std::unique_ptr<TcpRendezvous>> group(2);
    rethrow_any(on_rank_threads(2, [&](int rank) {
        group[static_cast<std::size_t>(rank)] = TcpRendezvous::create("127.0.0.1", port, rank, 2, options);
    }));
    const auto small = random_bytes(1000);
    auto errors = on_rank_threads(2, [&](int rank) {
        const auto got =
            group[static_cast<std::size_t>(rank)]->broadcast(rank == 0 ? small : std::vector<std::byte>{}, 0);
        if (got != small) throw std::runtime_error("broadcast differs");
    });
    rethrow_any(errors);
    const auto large = random_bytes(1001);
    errors = on_rank_threads(2, [&](int rank) { group[static_cast<std::size_t>(rank)]->broadcast(large, 0); });
    EXPECT_EQ(outcome(errors[0]), "ok");
    EXPECT_EQ(outcome(errors[1]), "PeerError 0");
    EXPECT_NE(message_of(errors[1]).find("max_message_bytes"), std::string::npos) << message_of(errors[1]);
}

}  // namespace
}  // namespace kjarni::test
