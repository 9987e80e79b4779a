#pragma once
// What the NaN-aware reductions and the moments (reduction_nan.cpp, reduction_moments.cpp) share:
// their specs made once per key (the other built-in reductions' too, reduction.cpp: the keys start
// with the reduction's name), and the device code of an element's value and of its NaN test.

#include <functional>
#include <string>

#include "algorithms/reduction_engine.hpp"
#include "kjarni/dtype.hpp"

namespace kjarni::detail {

/// The spec made by `make` for `key`, made once (rendering costs more than a launch).
const ReductionSpec& cached_spec(const std::string& key, const std::function<ReductionSpec()>& make);

/// A spec reading one array `x` of the array's dtype (ArgumentError for struct arrays).
ReductionSpec one_array_spec(const std::string& what, const DType& dtype);

/// The value of element `x[i]` of `dtype` as a value of the compute type of `to` (C's
/// conversions; complex from real with a zero imaginary part).
std::string element_as(const DType& dtype, const DType& to);

/// A C truth value: the compute value `v` of `dtype` is NaN (complex: either part).
std::string nan_test(const std::string& v, const DType& dtype);

/// Device code defining the functions nan_literal() calls.
std::string nan_functions();

/// The C literal of a quiet NaN of `dtype`'s compute type (float or complex: both parts NaN).
std::string nan_literal(const DType& dtype);

}  // namespace kjarni::detail
