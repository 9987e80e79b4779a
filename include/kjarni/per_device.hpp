#pragma once
/// Kernel arguments given per device for a launch on a MultiQueue (PerDevice). \file

#include <vector>

namespace kjarni {

/// A value given per device for a launch on a MultiQueue: values[i] goes to the i-th device of the
/// queue's devices.
template <class T>
struct PerDevice {
    std::vector<T> values;
};

}  // namespace kjarni
