#pragma once
/// Which API (CUDA or OpenCL) a thing belongs to, as a value that exists whether or not the API can
/// be loaded here: the vocabulary the backends and the public classes share (kjarni/api.hpp has
/// the Api itself). \file

#include <string>
#include <utility>
#include <vector>

namespace kjarni {

/// Identifies an API independently of whether it can be loaded here.
class ApiId {
public:
    /// The short name used on command lines and in KJARNI_TEST: "cuda" or "opencl".
    const std::string& shortcut() const noexcept { return shortcut_; }
    friend bool operator==(const ApiId&, const ApiId&) = default;

    static ApiId cuda();
    static ApiId opencl();

private:
    explicit ApiId(std::string shortcut) : shortcut_(std::move(shortcut)) {}
    std::string shortcut_;
};

/// Every API kjarni knows, available or not.
std::vector<ApiId> all_api_ids();
ApiId cuda_api_id();
ApiId opencl_api_id();

}  // namespace kjarni
