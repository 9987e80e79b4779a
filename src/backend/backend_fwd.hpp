#pragma once
// The classes of the backend interface declared ahead, and the public types it uses under its own
// names; what a header needs that only passes these around.

#include "kjarni/detail/kernel_arg.hpp"
#include "kjarni/device_parameters.hpp"
#include "kjarni/kernel_attributes.hpp"

namespace kjarni::backend {

class Platform;
class Device;
class Context;
class Queue;
class Buffer;
class Event;
class Module;
class Kernel;
class HostAllocation;
class ManagedAllocation;
class Image;
class ImageSampler;

using JitReport = kjarni::JitReport;
using JitOptions = kjarni::JitOptions;

/// Settable kernel attributes (the public kjarni::KernelAttribute).
using KernelAttributeId = kjarni::KernelAttribute;

using ContextLimit = kjarni::ContextLimit;
using CachePreference = kjarni::CachePreference;

using KernelAttributes = kjarni::KernelAttributes;

/// One launch argument, packed by the public layer without allocating.
using KernelArg = kjarni::detail::KernelArg;

}  // namespace kjarni::backend
