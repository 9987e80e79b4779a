#pragma once
// The one internal interface every backend implements. The public classes in include/kjarni are
// written once against it; a backend folder (cuda/, opencl/) is the only place its vendor's headers
// are included. This header gathers its parts; a file that needs one part may include it alone:
//   api.hpp              Api, Platform, Device
//   context.hpp          Context, made of the services of *_service.hpp (memory, queues, peers,
//                        IPC, images, programs, settings): see context.hpp
//   memory_objects.hpp   Buffer, HostAllocation, ManagedAllocation
//   queue_objects.hpp    Queue, Event
//   image_objects.hpp    Image, ImageSampler
//   module_objects.hpp   BuildOptions, BuildOutput, Module, Kernel
//
// Ownership: an Api object lives for the whole process (never destroyed, so nothing is torn down
// while static destructors run), and owns its Platforms, which own their Devices; those may be held
// by raw pointer or reference. Contexts, Queues, Buffers and Events are reference counted: each
// holds a shared_ptr to the Context it belongs to, so the context outlives them all.
//
// Checking arguments against each other (same context, sizes in range, ...) is the public layer's
// job; a backend may assume what the public layer checks and only reports driver failures, through
// the exceptions of kjarni/error.hpp.

#include "backend/api.hpp"
#include "backend/backend_fwd.hpp"
#include "backend/context.hpp"
#include "backend/image_objects.hpp"
#include "backend/memory_objects.hpp"
#include "backend/module_objects.hpp"
#include "backend/queue_objects.hpp"
