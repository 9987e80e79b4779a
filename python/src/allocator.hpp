#pragma once
// What Python passes as an allocator (None, a MemoryPool, or a callable (device, size) -> Buffer)
// as kjarni's Allocator.
#include <nanobind/nanobind.h>

#include <kjarni/array.hpp>

namespace kjarni::python {

Allocator to_allocator(const nanobind::object& allocator);

}  // namespace kjarni::python
