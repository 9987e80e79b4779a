#pragma once
// An Api that cannot be used, with the reason; what a backend's factory returns when its driver
// library is missing.

#include <string>
#include <utility>

#include "backend/backend.hpp"
#include "kjarni/error.hpp"

namespace kjarni::backend {

class UnavailableApi final : public Api {
public:
    UnavailableApi(ApiId id, std::string reason) : id_(std::move(id)), reason_(std::move(reason)) {}

    ApiId id() const override { return id_; }
    const std::string& unavailable_reason() const override { return reason_; }
    std::string driver_version() const override { return {}; }
    const std::vector<std::shared_ptr<Platform>>& platforms() const override { return none_; }
    std::shared_ptr<Device> device_from_native(std::uintptr_t) const override { throw_unavailable(); }
    std::shared_ptr<Context> create_context(std::span<const std::shared_ptr<Device>>) override { throw_unavailable(); }
    std::shared_ptr<Context> context_from_native(std::span<const std::uintptr_t>, bool) override {
        throw_unavailable();
    }

private:
    [[noreturn]] void throw_unavailable() const {
        throw ApiUnavailableError(id_.shortcut() + " is not available: " + reason_);
    }
    ApiId id_;
    std::string reason_;
    std::vector<std::shared_ptr<Platform>> none_;
};

}  // namespace kjarni::backend
