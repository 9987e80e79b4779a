#include "rendezvous/job_secret.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "kjarni/error.hpp"
#include "rendezvous/socket.hpp"

namespace kjarni::rendezvous {

namespace {

constexpr const char* how_to_set =
    "give every rank the same secret of at least 16 bytes: e.g. `export KJARNI_JOB_SECRET=$(openssl rand -hex 32)` "
    "before mpirun (with -x KJARNI_JOB_SECRET) or srun, or a file of mode 0600 named by KJARNI_JOB_SECRET_FILE, "
    "or TcpRendezvousOptions::secret (docs/security.md)";

void check_length(const JobSecret& secret, const std::string& argument) {
    if (!secret.key.empty() && secret.key.size() < min_secret_bytes) {
        throw ArgumentError(argument, fmt::format("the job's secret ({}) has {} bytes; it needs at least {}: {}",
                                                  secret.source, secret.key.size(), min_secret_bytes, how_to_set));
    }
}

// The secret in `path`, which must be this user's own regular file, private to it: a secret that
// others can read is no secret, and one that others can write lets them choose it.
std::string read_private_file(const std::string& path) {
    const char* variable = "KJARNI_JOB_SECRET_FILE";
    // O_NOFOLLOW: a link placed there by someone else is not followed.
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) throw ArgumentError(variable, fmt::format("'{}' cannot be opened: {}", path, std::strerror(errno)));
    struct Closer {
        int fd;
        ~Closer() { ::close(fd); }
    } closer{fd};
    struct stat status {};
    if (::fstat(fd, &status) != 0) {
        throw ArgumentError(variable, fmt::format("'{}' cannot be examined: {}", path, std::strerror(errno)));
    }
    if (!S_ISREG(status.st_mode)) throw ArgumentError(variable, fmt::format("'{}' is not a regular file", path));
    if (status.st_uid != ::geteuid()) {
        throw ArgumentError(variable, fmt::format("'{}' belongs to user {}, not to this user ({})", path, status.st_uid,
                                                  ::geteuid()));
    }
    if ((status.st_mode & 077) != 0) {
        throw ArgumentError(variable, fmt::format("'{}' has mode {:o}: group or others may read or write it "
                                                  "(chmod 600 '{}')",
                                                  path, status.st_mode & 0777, path));
    }
    if (static_cast<std::size_t>(status.st_size) > max_secret_bytes) {
        throw ArgumentError(variable, fmt::format("'{}' has {} bytes; a secret file has at most {}", path,
                                                  status.st_size, max_secret_bytes));
    }
    std::string text(max_secret_bytes + 1, '\0');
    std::size_t got = 0;
    for (;;) {
        const ssize_t n = ::read(fd, text.data() + got, text.size() - got);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) throw ArgumentError(variable, fmt::format("'{}' cannot be read: {}", path, std::strerror(errno)));
        if (n == 0) break;
        got += static_cast<std::size_t>(n);
        if (got > max_secret_bytes) {
            throw ArgumentError(variable, fmt::format("'{}' has more than {} bytes", path, max_secret_bytes));
        }
    }
    text.resize(got);
    // `openssl rand -hex 32 > file` ends with a newline, which no other rank's copy may lack.
    while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
    return text;
}

}  // namespace

JobSecret find_job_secret(const std::optional<std::string>& given) {
    if (given) {
        JobSecret secret{*given, "TcpRendezvousOptions::secret"};
        check_length(secret, "secret");
        return secret;
    }
    if (const char* value = std::getenv("KJARNI_JOB_SECRET"); value != nullptr && *value != '\0') {
        JobSecret secret{value, "KJARNI_JOB_SECRET"};
        check_length(secret, "KJARNI_JOB_SECRET");
        return secret;
    }
    if (const char* path = std::getenv("KJARNI_JOB_SECRET_FILE"); path != nullptr && *path != '\0') {
        JobSecret secret{read_private_file(path), fmt::format("the file {} (KJARNI_JOB_SECRET_FILE)", path)};
        if (secret.key.empty()) throw ArgumentError("KJARNI_JOB_SECRET_FILE", fmt::format("'{}' is empty", path));
        check_length(secret, "KJARNI_JOB_SECRET_FILE");
        return secret;
    }
    return JobSecret{};
}

void require_secret_off_loopback(const JobSecret& secret, const std::string& address,
                                 const std::string& listen_address) {
    if (!secret.key.empty()) return;
    const bool everywhere = listen_address == "any" || listen_address == "*";
    const std::string& where = listen_address.empty() ? address : listen_address;
    if (!everywhere && is_loopback(where)) return;
    throw ArgumentError("secret", fmt::format("no job secret is set, and rank 0 would listen at {}, which is not a "
                                              "loopback address: a rendezvous reachable from other hosts needs a "
                                              "secret that keeps others out of the job; {}",
                                              everywhere ? "every interface" : "'" + where + "'", how_to_set));
}

}  // namespace kjarni::rendezvous
