#pragma once
// The whole public API of kjarni.

#include "kjarni/api.hpp"
#include "kjarni/array.hpp"
#include "kjarni/buffer.hpp"
#include "kjarni/context.hpp"
#include "kjarni/device.hpp"
#include "kjarni/device_parameters.hpp"
#include "kjarni/discovery.hpp"
#include "kjarni/dtype.hpp"
#include "kjarni/error.hpp"
#include "kjarni/event.hpp"
#include "kjarni/functions.hpp"
#include "kjarni/multi_array.hpp"
#include "kjarni/platform.hpp"
#include "kjarni/program.hpp"
#include "kjarni/queue.hpp"
#include "kjarni/version.hpp"
