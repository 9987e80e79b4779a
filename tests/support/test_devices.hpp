#pragma once
// The suite's device parametrization is the public one (kjarni/testing.hpp); the tests also see
// the whole API through it.

#include "kjarni/kjarni.hpp"
#include "kjarni/testing.hpp"
