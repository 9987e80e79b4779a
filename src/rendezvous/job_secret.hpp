#pragma once
// Where a TcpRendezvous finds the job's secret (TcpRendezvousOptions::secret, else the launcher's
// environment: KJARNI_JOB_SECRET, else the file KJARNI_JOB_SECRET_FILE), and the rule that a job
// without one runs on loopback only.

#include <optional>
#include <string>

namespace kjarni::rendezvous {

/// The fewest bytes a secret may have: 128 bits if every byte were random (a shorter one could be
/// guessed offline from one recorded handshake).
inline constexpr std::size_t min_secret_bytes = 16;
/// The most bytes a secret file may have.
inline constexpr std::size_t max_secret_bytes = 4096;

struct JobSecret {
    std::string key;     // empty: no secret
    std::string source;  // where it came from, for messages
};

/// The secret `given`, else the environment's. ArgumentError naming "secret" (or the variable) for a
/// secret shorter than min_secret_bytes, a file that cannot be read, is not a regular file of this
/// user, or that group or others may read or write.
JobSecret find_job_secret(const std::optional<std::string>& given);

/// ArgumentError naming "secret", saying how to set one, when `secret` is empty and rank 0's
/// `address` is not a loopback address, or it is told to listen (`listen_address`) anywhere else.
void require_secret_off_loopback(const JobSecret& secret, const std::string& address,
                                 const std::string& listen_address);

}  // namespace kjarni::rendezvous
