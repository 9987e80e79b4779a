#pragma once
// Runs one fuzzer program with kjarni: its inputs become device arrays, then each operation in
// turn (one handler per operation name, the generator's names) produces or changes named arrays.

#include <map>
#include <string>
#include <vector>

#include "json_decoding.hpp"
#include "kjarni/array.hpp"
#include "kjarni/queue.hpp"

namespace kjarni::numpy_fuzz {

/// The named arrays of a program being run.
struct ProgramState {
    const Queue& queue;
    std::map<std::string, Array> values;

    const Array& at(const std::string& name) const;
};

/// Runs operation `op` of a program; returns the names of the arrays it made or wrote (in the
/// order the generator lists them). kjarni's exceptions pass through.
std::vector<std::string> run_operation(ProgramState& state, const Json& op);

}  // namespace kjarni::numpy_fuzz
