#pragma once
// Python launch arguments packed as kjarni's KernelArg, on the caller's stack.
#include <nanobind/nanobind.h>

#include <cstddef>
#include <new>
#include <span>
#include <type_traits>

#include <kjarni/program.hpp>

namespace kjarni::python {

/// The most arguments a Python launch takes (kjarni's launch path needs no allocation up to this).
inline constexpr std::size_t max_kernel_args = 64;

/// Room for max_kernel_args arguments, filled from the front: the slots past `count` are left
/// unmade (making all 64 would zero 5 KiB on every launch).
class PackedArgs {
public:
    PackedArgs() noexcept {}  // the slots are made one by one, in add()
    PackedArgs(const PackedArgs&) = delete;
    PackedArgs& operator=(const PackedArgs&) = delete;
    /// Appends the argument `make()` returns, made in its slot (no copy: a copy read back at once
    /// stalled on the store of the bytes just written); at most max_kernel_args in all (pack_args checks).
    template <class Make>
    void emplace(Make&& make) {
        new (storage_ + count_ * sizeof(detail::KernelArg)) detail::KernelArg(make());
        ++count_;
    }
    std::span<const detail::KernelArg> span() const noexcept {
        return {std::launder(reinterpret_cast<const detail::KernelArg*>(storage_)), count_};
    }

private:
    static_assert(std::is_trivially_destructible_v<detail::KernelArg>);
    alignas(detail::KernelArg) std::byte storage_[max_kernel_args * sizeof(detail::KernelArg)];
    std::size_t count_ = 0;
};

/// Packs `args[first:]` for a launch on `target`: Array, MultiArray and Buffer objects, numpy
/// scalars (their C type is their dtype's), and dicts {device index: value} for values that differ
/// per device. ArgumentError (naming the argument's position) for anything else, Python numbers
/// included: their C type would be a guess, so pass numpy.int32(3), numpy.float32(0.5)...
/// `parameters`, when not None, is the kernel's parameter list as kjarni/_kernel_parameters.py reads
/// it from the source: per parameter None (not checked) or (DType, declaration); an Array or
/// MultiArray passed for a pointer parameter must then have that element type (ArgumentError naming
/// the argument and the declaration otherwise: the kernel would read its bytes as another type).
void pack_args(const nanobind::args& args, std::size_t first, const detail::LaunchTarget& target, PackedArgs& out,
               nanobind::handle parameters = nanobind::handle());

}  // namespace kjarni::python
