#pragma once
// What the bad-input tests check: that a call throws kjarni::ArgumentError, which argument the error
// names and what its message says. The first two return strings for the test to compare, so that a
// failure prints what was thrown (or that nothing was).

#include <gtest/gtest.h>

#include <string>

#include "kjarni/error.hpp"

namespace kjarni::test {

inline const std::string no_argument_error = "(no ArgumentError)";

/// `read` of the Error that `call` throws; `none` when it returns. Other exceptions pass through.
template <class Error, class Call, class Read>
std::string read_thrown(Call&& call, Read&& read, const std::string& none) {
    try {
        call();
    } catch (const Error& error) {
        return read(error);
    }
    return none;
}

/// The argument named by the ArgumentError that `call` throws; no_argument_error when it returns.
template <class Call>
std::string argument_named_by(Call&& call) {
    return read_thrown<ArgumentError>(
        call, [](const ArgumentError& e) { return e.argument(); }, no_argument_error);
}

/// The message of the ArgumentError that `call` throws; no_argument_error when it returns.
template <class Call>
std::string argument_error_message(Call&& call) {
    return read_thrown<ArgumentError>(
        call, [](const ArgumentError& e) { return std::string(e.what()); }, no_argument_error);
}

/// Expects `call` to throw an ArgumentError naming `argument`.
template <class Call>
void expect_argument(const std::string& argument, Call&& call) {
    EXPECT_EQ(argument_named_by(call), argument);
}

}  // namespace kjarni::test
