// rendezvous_from_environment: which variables it reads, in which order, and what it says when
// they are missing or wrong.

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "kjarni/rendezvous.hpp"
#include "rendezvous/rank_threads.hpp"
#include "support/argument_errors.hpp"

namespace kjarni::test {
namespace {

using namespace std::chrono_literals;

// clang-format off
const char* const all_variables[] = {"KJARNI_RANK", "RANK", "OMPI_COMM_WORLD_RANK", "PMI_RANK", "SLURM_PROCID",
                                     "KJARNI_WORLD_SIZE", "WORLD_SIZE", "OMPI_COMM_WORLD_SIZE", "PMI_SIZE",
                                     "SLURM_NTASKS", "KJARNI_MASTER_ADDR", "MASTER_ADDR", "KJARNI_MASTER_PORT",
                                     "MASTER_PORT", "KJARNI_JOB_SECRET", "KJARNI_JOB_SECRET_FILE",
                                     "KJARNI_LISTEN_ADDR", "KJARNI_RENDEZVOUS_MAX_MESSAGE_BYTES"};
// clang-format on

// Clears the launcher variables for one test and restores them after it.
class RendezvousEnvironment : public ::testing::Test {
protected:
    void SetUp() override {
        for (const char* name : all_variables) {
            if (const char* value = std::getenv(name)) saved_.emplace_back(name, value);
            unsetenv(name);
        }
    }
    void TearDown() override {
        for (const char* name : all_variables) unsetenv(name);
        for (const auto& [name, value] : saved_) setenv(name.c_str(), value.c_str(), 1);
    }
    static std::string missing_argument() {
        return argument_named_by([] { rendezvous_from_environment(1s); });
    }

private:
    std::vector<std::pair<std::string, std::string>> saved_;
};

TEST_F(RendezvousEnvironment, NamesWhatIsMissingOrWrong) {
    EXPECT_EQ(missing_argument(), "KJARNI_WORLD_SIZE");
    setenv("WORLD_SIZE", "2", 1);
    EXPECT_EQ(missing_argument(), "KJARNI_RANK");
    setenv("RANK", "two", 1);
    EXPECT_EQ(missing_argument(), "RANK");
    setenv("RANK", "2", 1);  // out of range for a count of 2
    EXPECT_EQ(missing_argument(), "RANK");
    setenv("RANK", "0", 1);
    setenv("MASTER_PORT", "70000", 1);
    EXPECT_EQ(missing_argument(), "MASTER_PORT");
    setenv("MASTER_PORT", "29571", 1);
    setenv("KJARNI_RENDEZVOUS_MAX_MESSAGE_BYTES", "lots", 1);
    EXPECT_EQ(missing_argument(), "KJARNI_RENDEZVOUS_MAX_MESSAGE_BYTES");
    unsetenv("KJARNI_RENDEZVOUS_MAX_MESSAGE_BYTES");
    // Off loopback, a secret is needed; a short one is refused.
    setenv("MASTER_ADDR", "192.0.2.1", 1);
    EXPECT_EQ(missing_argument(), "secret");
    setenv("KJARNI_JOB_SECRET", "too short", 1);
    EXPECT_EQ(missing_argument(), "KJARNI_JOB_SECRET");
    unsetenv("KJARNI_JOB_SECRET");
    setenv("MASTER_ADDR", "127.0.0.1", 1);
    setenv("KJARNI_LISTEN_ADDR", "any", 1);  // every interface: a secret again
    EXPECT_EQ(missing_argument(), "secret");
    setenv("KJARNI_WORLD_SIZE", "0", 1);
    EXPECT_EQ(missing_argument(), "KJARNI_WORLD_SIZE");
}

// Open MPI's variables give the rank and count; kjarni's own win over torch's, torch's over MPI's.
TEST_F(RendezvousEnvironment, ReadsLaunchersInOrder) {
    setenv("OMPI_COMM_WORLD_RANK", "0", 1);
    setenv("OMPI_COMM_WORLD_SIZE", "1", 1);
    setenv("MASTER_PORT", std::to_string(free_port()).c_str(), 1);
    auto alone = rendezvous_from_environment(2s);
    EXPECT_EQ(alone->rank(), 0);
    EXPECT_EQ(alone->count(), 1);
    alone.reset();

    const std::uint16_t port = free_port();
    setenv("SLURM_NTASKS", "5", 1);  // lower priority than all the others
    setenv("PMI_SIZE", "7", 1);
    setenv("WORLD_SIZE", "2", 1);
    setenv("KJARNI_MASTER_PORT", std::to_string(port).c_str(), 1);
    setenv("MASTER_ADDR", "localhost", 1);
    setenv("KJARNI_MASTER_ADDR", "127.0.0.1", 1);
    // Rank 1 comes from KJARNI_RANK in a thread of its own; rank 0 from OMPI_COMM_WORLD_RANK here.
    std::unique_ptr<TcpRendezvous> root;
    std::thread other([&] {
        // Environment variables are per process: rank 1 joins through create() with what
        // rendezvous_from_environment must have chosen (the port of KJARNI_MASTER_PORT, count 2).
        auto r = TcpRendezvous::create("127.0.0.1", port, 1, 2, 5s);
        r->barrier();
    });
    root = rendezvous_from_environment(5s);
    root->barrier();
    other.join();
    EXPECT_EQ(root->rank(), 0);
    EXPECT_EQ(root->count(), 2);
}

}  // namespace
}  // namespace kjarni::test
