#pragma once
/// The one exception hierarchy of kjarni. Nothing in kjarni reports failure by a return code or by
/// printing: every failure is one of these, and each carries what a user needs to find the culprit. \file

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace kjarni {

/// Root of every exception kjarni throws.
class Error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// A driver call failed. Carries the API ("CUDA", "OpenCL", "NVRTC"), the call and its status code.
class BackendError : public Error {
public:
    BackendError(std::string api, std::string call, std::int64_t code, std::string code_name,
                 const std::string& detail = {});

    const std::string& api() const noexcept { return api_; }
    const std::string& call() const noexcept { return call_; }
    std::int64_t code() const noexcept { return code_; }
    const std::string& code_name() const noexcept { return code_name_; }

private:
    std::string api_;
    std::string call_;
    std::int64_t code_;
    std::string code_name_;
};

/// The device (or the host, for page-locked memory) ran out of memory.
class OutOfMemoryError : public BackendError {
public:
    using BackendError::BackendError;
};

/// An API whose driver library is missing, or that was built without, was asked for.
class ApiUnavailableError : public Error {
public:
    using Error::Error;
};

/// Discovery found nothing matching the request (no such platform, device, API shortcut...).
class NotFoundError : public Error {
public:
    using Error::Error;
};

/// The request is valid in general but the device or API at hand cannot do it.
class UnsupportedError : public Error {
public:
    using Error::Error;
};

/// A kernel source did not compile. Carries the compiler's log, the options and the source.
class CompileError : public Error {
public:
    CompileError(std::string api, std::string device, std::string log, std::vector<std::string> options,
                 std::string source);

    const std::string& api() const noexcept { return api_; }
    const std::string& device() const noexcept { return device_; }
    const std::string& log() const noexcept { return log_; }
    const std::vector<std::string>& options() const noexcept { return options_; }
    const std::string& source() const noexcept { return source_; }
    /// The source with line numbers, as the compiler's log refers to them.
    std::string numbered_source() const;

private:
    std::string api_;
    std::string device_;
    std::string log_;
    std::vector<std::string> options_;
    std::string source_;
};

/// Separately compiled units did not link (Program::link): an undefined or duplicate symbol, units
/// for different targets. Carries the linker's log as the driver gave it.
class LinkError : public Error {
public:
    LinkError(std::string api, std::string device, std::string log);

    const std::string& api() const noexcept { return api_; }
    const std::string& device() const noexcept { return device_; }
    const std::string& log() const noexcept { return log_; }

private:
    std::string api_;
    std::string device_;
    std::string log_;
};

/// An argument is wrong: names the argument and says why.
class ArgumentError : public Error {
public:
    ArgumentError(std::string argument, const std::string& reason);
    const std::string& argument() const noexcept { return argument_; }

private:
    std::string argument_;
};

/// An argument of a type the operation does not take (numpy's TypeError: a ufunc without a loop for
/// its dtype, bitwise operators of floats); Python's kjarni.ArgumentTypeError, a TypeError.
class ArgumentTypeError : public ArgumentError {
public:
    using ArgumentError::ArgumentError;
};

/// An axis the array does not have (numpy's AxisError: out of range for its number of dimensions);
/// Python's kjarni.AxisError, which is numpy.exceptions.AxisError too (a ValueError and an IndexError).
class AxisError : public ArgumentError {
public:
    using ArgumentError::ArgumentError;
};

/// An index or position past the extent it indexes, or more indices than the array has axes
/// (numpy's IndexError); Python's kjarni.IndexOutOfBoundsError, an IndexError.
class IndexOutOfBoundsError : public ArgumentError {
public:
    using ArgumentError::ArgumentError;
};

/// An integer scalar that the dtype it is computed in cannot hold (numpy 2's OverflowError for a
/// Python int out of bounds, as in int8 + 300); Python's kjarni.ScalarOverflowError, an OverflowError.
class ScalarOverflowError : public ArgumentError {
public:
    using ArgumentError::ArgumentError;
};

}  // namespace kjarni
