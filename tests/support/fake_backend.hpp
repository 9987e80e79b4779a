#pragma once
// A backend Api with one platform and one device that exist only in memory: lets tests put a
// device of another platform next to a real one without a second driver, and test what sits above
// the backend (the memory pools) without one, under ThreadSanitizer too (no uninstrumented driver
// in the way). Its contexts keep buffers and page-locked memory in host memory; its queues do
// their work at once, in the calling thread, so every access to a buffer's bytes is a plain
// memory access TSan sees.

#include <atomic>
#include <cstddef>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "backend/backend.hpp"
#include "kjarni/device.hpp"
#include "kjarni/error.hpp"

namespace kjarni::test {

class FakeApi;

class FakeDevice final : public backend::Device {
public:
    explicit FakeDevice(backend::Platform& platform) : platform_(platform) {
        params_.max_local_sizes = {1};
        params_.max_num_groups = {1};
    }
    backend::Platform& platform() const override { return platform_; }
    const std::string& name() const override { return name_; }
    const DeviceParameters& params() const override { return params_; }
    const DeviceProperties& properties() const override { return properties_; }
    const std::vector<DeviceAttribute>& attributes() const override { return attributes_; }
    std::uintptr_t native_handle() const override { return 42; }

private:
    backend::Platform& platform_;
    std::string name_ = "fake device";
    DeviceParameters params_;
    DeviceProperties properties_;
    std::vector<DeviceAttribute> attributes_;
};

class FakePlatform final : public backend::Platform {
public:
    explicit FakePlatform(backend::Api& api) : api_(api) { devices_.push_back(std::make_shared<FakeDevice>(*this)); }
    backend::Api& api() const override { return api_; }
    const std::string& name() const override { return name_; }
    const std::string& vendor() const override { return name_; }
    const std::string& version() const override { return name_; }
    const std::vector<std::shared_ptr<backend::Device>>& devices() const override { return devices_; }
    std::uintptr_t native_handle() const override { return 7; }

private:
    backend::Api& api_;
    std::string name_ = "fake platform";
    std::vector<std::shared_ptr<backend::Device>> devices_;
};

class FakeBuffer final : public backend::Buffer {
public:
    FakeBuffer(std::size_t device_index, std::size_t size, std::atomic<long>& live)
        : bytes(size), device_index_(device_index), live_(live) {
        ++live_;
    }
    FakeBuffer(const FakeBuffer&) = delete;
    FakeBuffer& operator=(const FakeBuffer&) = delete;
    ~FakeBuffer() override { --live_; }
    std::size_t size() const override { return bytes.size(); }
    std::size_t device_index() const override { return device_index_; }
    std::uintptr_t native_handle() const override { return reinterpret_cast<std::uintptr_t>(bytes.data()); }

    std::vector<std::byte> bytes;

private:
    std::size_t device_index_;
    std::atomic<long>& live_;
};

class FakeEvent final : public backend::Event {
public:
    void wait() override {}
    bool is_complete() override { return true; }
    double time_since(backend::Event&) override { return 0; }
};

class FakeQueue final : public backend::Queue {
public:
    explicit FakeQueue(std::size_t device_index) : device_index_(device_index) {}
    std::size_t device_index() const override { return device_index_; }
    void synchronize() override {}
    std::shared_ptr<backend::Event> record_event() override {
        ++events_recorded;
        return std::make_shared<FakeEvent>();
    }
    void wait_for(backend::Event&) override { ++waits; }
    void write(backend::Buffer& dst, std::size_t dst_offset, const void* src, std::size_t size, bool) override {
        std::memcpy(bytes_of(dst) + dst_offset, src, size);
    }
    void read(void* dst, backend::Buffer& src, std::size_t src_offset, std::size_t size, bool) override {
        std::memcpy(dst, bytes_of(src) + src_offset, size);
    }
    void copy(backend::Buffer& dst, std::size_t dst_offset, backend::Buffer& src, std::size_t src_offset,
              std::size_t size, bool) override {
        std::memmove(bytes_of(dst) + dst_offset, bytes_of(src) + src_offset, size);
    }
    void fill(backend::Buffer& dst, std::size_t offset, std::size_t size, const void* pattern, std::size_t pattern_size,
              bool) override {
        for (std::size_t at = 0; at < size; at += pattern_size)
            std::memcpy(bytes_of(dst) + offset + at, pattern, pattern_size);
    }
    std::uintptr_t native_handle() const override { return reinterpret_cast<std::uintptr_t>(this); }

    /// How often other work recorded an event on this queue / this queue waited for one.
    std::atomic<long> events_recorded{0};
    std::atomic<long> waits{0};

private:
    static std::byte* bytes_of(backend::Buffer& buffer) { return static_cast<FakeBuffer&>(buffer).bytes.data(); }
    std::size_t device_index_;
};

class FakeHostAllocation final : public backend::HostAllocation {
public:
    FakeHostAllocation(std::size_t size, backend::HostAllocationFlags flags, std::atomic<long>& live)
        : bytes_(size), flags_(flags), live_(live) {
        ++live_;
    }
    FakeHostAllocation(const FakeHostAllocation&) = delete;
    FakeHostAllocation& operator=(const FakeHostAllocation&) = delete;
    ~FakeHostAllocation() override { --live_; }
    void* host_pointer() const override { return const_cast<std::byte*>(bytes_.data()); }
    std::size_t size() const override { return bytes_.size(); }
    backend::HostAllocationFlags flags() const override { return flags_; }
    std::shared_ptr<backend::Buffer> device_buffer(std::size_t) override {
        throw UnsupportedError("the fake API maps no host memory");
    }

private:
    std::vector<std::byte> bytes_;
    backend::HostAllocationFlags flags_;
    std::atomic<long>& live_;
};

/// A context whose memory is host memory. Counts what is alive, so tests can see nothing leaks.
class FakeContext final : public backend::Context {
public:
    FakeContext(backend::Api& api, std::vector<std::shared_ptr<backend::Device>> devices)
        : api_(api), devices_(std::move(devices)) {}
    backend::Api& api() const override { return api_; }
    const std::vector<std::shared_ptr<backend::Device>>& devices() const override { return devices_; }
    std::uintptr_t native_handle(std::size_t) const override { return reinterpret_cast<std::uintptr_t>(this); }
    std::shared_ptr<backend::Queue> create_queue(std::size_t device_index) override {
        return std::make_shared<FakeQueue>(device_index);
    }
    std::shared_ptr<backend::Buffer> allocate(std::size_t device_index, std::size_t size) override {
        return std::make_shared<FakeBuffer>(device_index, size, live_buffers);
    }
    std::shared_ptr<backend::HostAllocation> allocate_host(std::size_t size,
                                                           backend::HostAllocationFlags flags) override {
        return std::make_shared<FakeHostAllocation>(size, flags, live_host_allocations);
    }
    bool can_access_peer(std::size_t, std::size_t) const override { return false; }
    backend::BuildOutput build(std::size_t, const std::string&, const backend::BuildOptions&) override {
        throw UnsupportedError("the fake API compiles nothing");
    }
    std::shared_ptr<backend::Module> load(std::size_t, std::span<const std::byte>,
                                          const backend::BuildOptions&) override {
        throw UnsupportedError("the fake API compiles nothing");
    }
    std::string compiler_identity(std::size_t) const override {
        ++identity_asks;
        return "fake";
    }

    /// How often any fake context was asked its compiler identity.
    inline static std::atomic<long> identity_asks{0};
    std::atomic<long> live_buffers{0};
    std::atomic<long> live_host_allocations{0};

private:
    backend::Api& api_;
    std::vector<std::shared_ptr<backend::Device>> devices_;
};

class FakeApi final : public backend::Api {
public:
    FakeApi() { platforms_.push_back(std::make_shared<FakePlatform>(*this)); }
    ApiId id() const override { return ApiId::opencl(); }
    const std::string& unavailable_reason() const override { return reason_; }
    std::string driver_version() const override { return "fake"; }
    const std::vector<std::shared_ptr<backend::Platform>>& platforms() const override { return platforms_; }
    std::shared_ptr<backend::Device> device_from_native(std::uintptr_t) const override {
        return platforms_[0]->devices()[0];
    }
    std::shared_ptr<backend::Context> create_context(
        std::span<const std::shared_ptr<backend::Device>> devices) override {
        return std::make_shared<FakeContext>(*this, std::vector(devices.begin(), devices.end()));
    }
    std::shared_ptr<backend::Context> context_from_native(std::span<const std::uintptr_t>, bool) override {
        throw UnsupportedError("the fake API makes no contexts");
    }

    /// The fake device, as a public handle.
    kjarni::Device device() const {
        return kjarni::detail::BackendAccess::make<kjarni::Device>(platforms_[0]->devices()[0]);
    }

private:
    std::string reason_;
    std::vector<std::shared_ptr<backend::Platform>> platforms_;
};

}  // namespace kjarni::test
