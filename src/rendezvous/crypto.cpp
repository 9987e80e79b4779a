// OpenSSL's libcrypto loaded at run time, as kjarni loads its other third-party libraries
// (drivers, NCCL, cuBLAS, CLBlast): the rendezvous is folded into libkjarni, and a link dependency
// there would reach every consumer of the static library, its pkg-config file and the Python
// extension, which links the static library with a fixed list; loaded this way, only a TCP
// rendezvous needs libcrypto, and says so when it is missing. The types of the four functions come
// from OpenSSL's own headers (decltype), so the compiler checks every call as it would a linked one;
// the soname pins the ABI (the one-shot HMAC(), RAND_bytes, CRYPTO_memcmp and EVP_sha256 have the
// same signatures in OpenSSL 1.1 and 3). dlopen finds the library by the loader's usual search, the
// same a link dependency would use.

#include "rendezvous/crypto.hpp"

#include <dlfcn.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include <fmt/format.h>

#include <climits>
#include <string>

#include "kjarni/error.hpp"

namespace kjarni::rendezvous {

namespace {

struct Library {
    decltype(&::HMAC) hmac = nullptr;
    decltype(&::EVP_sha256) sha256 = nullptr;
    decltype(&::RAND_bytes) rand_bytes = nullptr;
    decltype(&::CRYPTO_memcmp) memcmp = nullptr;
};

template <class Fn>
bool find(void* handle, Fn*& fn, const char* symbol) {
    fn = reinterpret_cast<Fn*>(dlsym(handle, symbol));
    return fn != nullptr;
}

// The library, or nullptr with `why` set; loaded once (a static's initialization is thread-safe).
const Library* load(std::string& why) {
    static std::string failure;
    static const Library* const instance = []() -> const Library* {
        for (const char* name : {"libcrypto.so.3", "libcrypto.so.1.1"}) {
            // RTLD_LOCAL: its symbols stay out of the process' global namespace. Never closed.
            void* handle = dlopen(name, RTLD_NOW | RTLD_LOCAL);
            if (handle == nullptr) {
                const char* error = dlerror();
                failure += fmt::format("{}{}", failure.empty() ? "" : "; ", error != nullptr ? error : name);
                continue;
            }
            Library f;
            if (find(handle, f.hmac, "HMAC") && find(handle, f.sha256, "EVP_sha256") &&
                find(handle, f.rand_bytes, "RAND_bytes") && find(handle, f.memcmp, "CRYPTO_memcmp")) {
                return new Library(f);  // lives for the process, like the library
            }
            failure += fmt::format("{}{} lacks HMAC, EVP_sha256, RAND_bytes or CRYPTO_memcmp",
                                   failure.empty() ? "" : "; ", name);
        }
        return nullptr;
    }();
    why = failure;
    return instance;
}

const Library& library() {
    std::string why;
    const Library* f = load(why);
    if (f == nullptr) {
        throw UnsupportedError(fmt::format("the TCP rendezvous authenticates its ranks with OpenSSL's libcrypto "
                                           "(libcrypto.so.3; Debian: libssl3), which could not be loaded: {}",
                                           why));
    }
    return *f;
}

}  // namespace

void require_crypto() { static_cast<void>(library()); }

Mac hmac_sha256(std::string_view key, std::span<const std::byte> message) {
    const Library& f = library();
    if (key.size() > INT_MAX) throw ArgumentError("secret", "is longer than OpenSSL's HMAC takes");
    Mac out{};
    unsigned int length = 0;
    // A non-null key pointer even when empty: HMAC() reads it as "no key given" otherwise.
    static const char empty = 0;
    const unsigned char* done = f.hmac(f.sha256(), key.empty() ? &empty : key.data(), static_cast<int>(key.size()),
                                       reinterpret_cast<const unsigned char*>(message.data()), message.size(),
                                       reinterpret_cast<unsigned char*>(out.data()), &length);
    if (done == nullptr || length != mac_bytes) throw Error("rendezvous: OpenSSL's HMAC-SHA256 failed");
    return out;
}

void random_bytes(std::span<std::byte> out) {
    const Library& f = library();
    if (out.size() > INT_MAX ||
        f.rand_bytes(reinterpret_cast<unsigned char*>(out.data()), static_cast<int>(out.size())) != 1) {
        throw Error("rendezvous: OpenSSL's RAND_bytes failed (no entropy?)");
    }
}

bool same_mac(const Mac& a, std::span<const std::byte, mac_bytes> b) {
    return library().memcmp(a.data(), b.data(), mac_bytes) == 0;
}

}  // namespace kjarni::rendezvous
