#pragma once
// Reading the fuzzer's program JSON (tests/numpy_fuzz/README.md describes the format) into kjarni's
// values: dtypes by numpy's names, indices, scalars (NaN and infinities are strings, since JSON has
// no such numbers; complex values are [real, imaginary]) and expression trees.

#include <nlohmann/json.hpp>

#include <complex>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "kjarni/array.hpp"
#include "kjarni/dtype.hpp"
#include "kjarni/expression.hpp"

namespace kjarni::numpy_fuzz {

using Json = nlohmann::json;

/// A program the runner cannot read (a bug of the generator, not of kjarni).
class ProgramError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// The dtype numpy calls `name` ("bool", "int8", ..., "complex128").
DType dtype_named(const std::string& name);

/// A real number: a JSON number, or "nan", "inf", "-inf".
double real_value(const Json& value);
/// A complex number: [real, imaginary] (each as real_value), or a real number.
std::complex<double> complex_value(const Json& value);

/// One entry of basic indexing: an integer, [start, stop, step] (null for a missing bound),
/// "newaxis" or "...".
Index index_entry(const Json& entry);

/// An expression tree; `array_named` gives the Array a {"array": name} leaf refers to.
Expr expression(const Json& node, const std::function<Array(const std::string&)>& array_named);

}  // namespace kjarni::numpy_fuzz
