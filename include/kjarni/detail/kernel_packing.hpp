#pragma once
// How launch arguments become KernelArgs: what may be passed to a kernel (the KernelArgument
// concept), the pack() of each kind, and the staging of host arguments. Used by the variadic
// launch templates of the public kernel headers (kjarni/prepared_kernel.hpp,
// kjarni/static_kernel.hpp) and by kjarni's own launches. Not part of the user-facing API.

#include <complex>
#include <concepts>
#include <cstddef>
#include <cstring>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "kjarni/buffer.hpp"
#include "kjarni/context.hpp"
#include "kjarni/detail/backend_access.hpp"
#include "kjarni/detail/kernel_arg.hpp"
#include "kjarni/dtype.hpp"
#include "kjarni/error.hpp"
#include "kjarni/host_argument.hpp"
#include "kjarni/per_device.hpp"
#include "kjarni/queue.hpp"
#include "kjarni/struct_arg.hpp"

namespace kjarni {

namespace detail {

template <class T>
struct IsPerDevice : std::false_type {};
template <class T>
struct IsPerDevice<PerDevice<T>> : std::true_type {};

/// What may be passed to a kernel by value: arithmetic types, std::complex of float/double, and
/// float16_t (its 16 bits: the kernel declares it `half` on CUDA, and on OpenCL `half` where the
/// device has cl_khr_fp16, else a 16-bit integer type to read with vload_half).
// clang-format off
template <class T>
concept KernelScalar = (std::is_arithmetic_v<T> || std::same_as<T, std::complex<float>> ||
                        std::same_as<T, std::complex<double>> || std::same_as<T, float16_t>) && sizeof(T) <= 16;
// clang-format on

/// Other types (Array, MultiArray) become kernel arguments through a function
/// `detail::KernelArg pack_kernel_arg(const T&, const detail::LaunchTarget&)` found by ADL.
// clang-format off
template <class T>
concept PackableByAdl = requires(const T& value, const LaunchTarget& target) {
    { pack_kernel_arg(value, target) } -> std::same_as<KernelArg>;
};
// clang-format on

template <class T>
concept HostArgumentType = std::derived_from<T, HostArgument>;

// clang-format off
template <class T>
concept KernelArgument = KernelScalar<T> || std::same_as<T, Buffer> || std::same_as<T, StructArg> ||
                         IsPerDevice<T>::value || PackableByAdl<T> || HostArgumentType<T>;
// clang-format on

/// A by-value argument of `size` bytes: copied into the argument where it fits (16 bytes), else
/// pointed to (the bytes must then live through the launch call).
inline KernelArg pack_bytes(const void* bytes, std::size_t size) {
    KernelArg arg;
    arg.size = size;
    if (size <= sizeof arg.scalar) {
        std::memcpy(arg.scalar, bytes, size);
    } else {
        arg.bytes = bytes;
    }
    return arg;
}

/// A buffer argument: the region [offset, offset + size) of the allocation behind `buffer` (for
/// memory that moves, the allocation it is in now).
inline KernelArg pack_buffer_region(const Buffer& buffer, std::size_t offset, std::size_t size) {
    KernelArg arg;
    arg.kind = KernelArg::Kind::buffer;
    arg.buffer = backend_of(buffer).get();
    arg.offset = offset;
    arg.size = size;
    arg.device_index = buffer.device().index();
    arg.context = backend_of(buffer.device().context()).get();
    return arg;
}

inline KernelArg pack(const StructArg& value, const LaunchTarget&) { return pack_bytes(value.bytes(), value.size()); }

inline KernelArg pack(const Buffer& buffer, const LaunchTarget&) {
    return pack_buffer_region(buffer, buffer.offset(), buffer.size());
}

template <KernelScalar T>
KernelArg pack(const T& value, const LaunchTarget&) {
    KernelArg arg;
    std::memcpy(arg.scalar, &value, sizeof(T));
    arg.size = sizeof(T);
    return arg;
}

template <PackableByAdl T>
KernelArg pack(const T& value, const LaunchTarget& target) {
    return pack_kernel_arg(value, target);
}

template <class T>
KernelArg pack(const PerDevice<T>& values, const LaunchTarget& target) {
    const std::size_t position = target.position;
    if (position >= values.values.size()) {
        throw ArgumentError("PerDevice", "has " + std::to_string(values.values.size()) +
                                             " values, but the launch goes to device position " +
                                             std::to_string(position));
    }
    return pack(values.values[position], target);
}

/// Argument types whose fit to a kernel's parameters their types decide, but for where a Buffer's
/// memory is: scalars and Buffers.
template <class T>
concept TypeCheckedArgument = KernelScalar<T> || std::same_as<T, Buffer>;

/// The tag of a list of argument types (ArgumentTypes): each list its own address.
template <class... Args>
inline constexpr char argument_list_tag = 0;

/// Whether `value` is a Buffer on another device than `device` (a scalar never is).
template <class T>
bool off_device(const T& value, const BoundDevice& device) noexcept {
    if constexpr (std::same_as<T, Buffer>) {
        return !(value.device() == device);
    } else {
        return false;
    }
}

/// The ArgumentTypes of a launch of `args` on a queue of `device`.
template <class... Args>
ArgumentTypes argument_types(const BoundDevice& device, const Args&... args) noexcept {
    if constexpr ((TypeCheckedArgument<Args> && ...)) {
        if (!(off_device(args, device) || ...)) return {&argument_list_tag<Args...>};
    }
    return {};
}

/// The temporary buffers of a launch's host arguments: copies in as each argument is packed, and
/// copies out (or waits for the kernel) in finish().
class HostArgumentStaging {
public:
    explicit HostArgumentStaging(const Queue& queue) : queue_(queue) {}
    template <class T>
    KernelArg pack_staged(const T& value, const LaunchTarget& target) {
        if constexpr (HostArgumentType<T>) {
            return pack(stage(value), target);
        } else {
            return pack(value, target);
        }
    }
    /// Copies the Out and InOut buffers back, waiting for them; with none, waits for the queue
    /// (the temporary buffers go when the staging does).
    void finish();

private:
    const Buffer& stage(const HostArgument& argument);
    const Queue& queue_;
    std::vector<std::pair<Buffer, const HostArgument*>> staged_;
};

}  // namespace detail

}  // namespace kjarni
