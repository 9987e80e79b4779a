#pragma once
// What Python passes as an allocator (None, a MemoryPool, or a callable (device, size) -> Buffer)
// as kjarni's Allocator.
#include <nanobind/nanobind.h>

#include <kjarni/array.hpp>
#include <kjarni/queue.hpp>

namespace kjarni::python {

Allocator to_allocator(const nanobind::object& allocator);
/// As above, for a result made by an operation on `queue`: None is the default memory pool of the
/// queue's context while it is on (default_pool.cpp), else the driver.
Allocator to_allocator(const nanobind::object& allocator, const Queue& queue);

}  // namespace kjarni::python
