// TcpRendezvous between separate processes: kjarni_rendezvous_peer (peer_main.cpp) started once
// per rank with the rank, count, address and port in the environment, as a launcher would.

#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "rendezvous/rank_threads.hpp"
#include "support/random_data.hpp"

extern char** environ;

namespace kjarni::test {
namespace {

using namespace std::chrono_literals;

// Starts one peer process per rank and waits for all (killing them past `limit`); their exit codes.
std::vector<int> run_peers(const std::string& mode, int count, const std::vector<std::string>& extra,
                           std::chrono::seconds limit) {
    const std::string port = std::to_string(free_port());
    const std::string seed = std::to_string(random_engine()());
    // The job's secret, as a launcher would set it: the processes authenticate each other.
    const std::string secret = std::to_string(random_engine()()) + std::to_string(random_engine()());
    std::vector<pid_t> pids;
    for (int rank = 0; rank < count; ++rank) {
        std::vector<std::string> variables;
        for (char** entry = environ; *entry != nullptr; ++entry) {
            const std::string variable(*entry);
            // The parent's own launcher variables would be read before the test's.
            if (variable.rfind("KJARNI_RANK=", 0) == 0 || variable.rfind("KJARNI_WORLD_SIZE=", 0) == 0 ||
                variable.rfind("KJARNI_JOB_SECRET", 0) == 0) {
                continue;
            }
            variables.push_back(variable);
        }
        variables.push_back("KJARNI_RANK=" + std::to_string(rank));
        variables.push_back("KJARNI_WORLD_SIZE=" + std::to_string(count));
        variables.push_back("KJARNI_MASTER_ADDR=127.0.0.1");
        variables.push_back("KJARNI_MASTER_PORT=" + port);
        variables.push_back("KJARNI_TEST_SEED=" + seed);
        variables.push_back("KJARNI_JOB_SECRET=" + secret);
        for (const auto& variable : extra) variables.push_back(variable);
        std::vector<char*> envp;
        for (auto& variable : variables) envp.push_back(variable.data());
        envp.push_back(nullptr);
        std::string program = KJARNI_RENDEZVOUS_PEER;
        std::string argument = mode;
        char* argv[] = {program.data(), argument.data(), nullptr};
        pid_t pid = 0;
        EXPECT_EQ(posix_spawn(&pid, program.c_str(), nullptr, nullptr, argv, envp.data()), 0) << program;
        pids.push_back(pid);
    }
    std::vector<int> codes(pids.size(), -1);
    const auto deadline = std::chrono::steady_clock::now() + limit;
    std::size_t done = 0;
    while (done < pids.size()) {
        for (std::size_t i = 0; i < pids.size(); ++i) {
            if (codes[i] != -1) continue;
            int status = 0;
            if (waitpid(pids[i], &status, WNOHANG) == pids[i]) {
                codes[i] = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
                ++done;
            }
        }
        if (std::chrono::steady_clock::now() > deadline) {
            for (std::size_t i = 0; i < pids.size(); ++i) {
                if (codes[i] == -1) {
                    kill(pids[i], SIGKILL);
                    waitpid(pids[i], nullptr, 0);
                    codes[i] = 999;  // hung
                }
            }
            break;
        }
        std::this_thread::sleep_for(10ms);
    }
    return codes;
}

TEST(TcpRendezvousProcesses, EveryMethodOnThreeProcesses) {
    const auto codes = run_peers("check", 3, {"KJARNI_TEST_LARGE=16777216"}, 60s);
    EXPECT_EQ(codes, std::vector<int>(3, 0));
}

TEST(TcpRendezvousProcesses, AnEarlyExitIsNamedAtOnce) {
    const auto start = std::chrono::steady_clock::now();
    // A long timeout: the survivors must learn of the exit from the closed connection, not wait it out.
    const auto codes = run_peers("exit_early", 3, {"KJARNI_TEST_TIMEOUT_MS=30000"}, 60s);
    EXPECT_EQ(codes, std::vector<int>(3, 0));
    EXPECT_LT(std::chrono::steady_clock::now() - start, 15s);
}

}  // namespace
}  // namespace kjarni::test
