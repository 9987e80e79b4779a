#pragma once
/// Arrays over several devices (grunnur MultiArray and its splays). A
/// MultiArray holds one Array per device; a splay decides which part of the whole array each device
/// holds: CloneSplay gives every device a copy, EqualSplay splits the outermost dimension as evenly
/// as possible (the first `n % devices` parts get one more row), and a user-defined splay derives
/// from Splay. Each device's part is a C-contiguous Array.
///
/// As an argument of a kernel launched on a MultiQueue, a MultiArray passes each device its own part
/// (as Array does: a pointer to the part's first element); on a single Queue, the part on that
/// queue's device. \file

#include <memory>
#include <vector>

#include "kjarni/array.hpp"

namespace kjarni {

/// Which part of an array of `shape` each of `device_count` devices holds: one list of slices per
/// device (applied to the whole array as Array::slice does; steps must be positive).
class Splay {
public:
    virtual ~Splay() = default;
    virtual std::vector<std::vector<Slice>> operator()(const std::vector<std::size_t>& shape,
                                                       std::size_t device_count) const = 0;
};

/// The whole array on every device. get() reads it from the first device.
class CloneSplay final : public Splay {
public:
    std::vector<std::vector<Slice>> operator()(const std::vector<std::size_t>& shape,
                                               std::size_t device_count) const override;
};

/// The outermost dimension split as evenly as possible; it must be at least the device count.
class EqualSplay final : public Splay {
public:
    std::vector<std::vector<Slice>> operator()(const std::vector<std::size_t>& shape,
                                               std::size_t device_count) const override;
};

/// An array split over several devices along its first axis (a Splay decides the parts): one Array
/// per device, worked on through a MultiQueue.
class MultiArray {
public:
    /// Uninitialized parts on every device (EqualSplay when no splay is given).
    static MultiArray empty(const BoundMultiDevice& devices, std::vector<std::size_t> shape, const DType& dtype,
                            const Allocator& allocator = {}, std::shared_ptr<const Splay> splay = nullptr);
    /// Parts filled from a host array through the queues (synchronously).
    static MultiArray from_host(const MultiQueue& queue, const HostArray& host,
                                std::shared_ptr<const Splay> splay = nullptr);

    /// The whole array assembled on the host.
    HostArray get(const MultiQueue& queue, bool async = false) const;
    void get(const MultiQueue& queue, const HostArray& dest, bool async = false) const;
    /// Every part from the corresponding region of a host array of the whole shape.
    void set(const MultiQueue& queue, const HostArray& source, bool async = false) const;
    /// Every part from the same device's part of another MultiArray with the same parts.
    void set(const MultiQueue& queue, const MultiArray& source, bool async = false) const;

    const BoundMultiDevice& devices() const noexcept { return devices_; }
    const DType& dtype() const noexcept { return dtype_; }
    const std::vector<std::size_t>& shape() const noexcept { return shape_; }
    /// Shapes of the parts, in the order of devices().
    std::vector<std::vector<std::size_t>> shapes() const;
    /// The parts, in the order of devices().
    const std::vector<Array>& parts() const noexcept { return parts_; }
    /// The part on a device; ArgumentError if it holds none.
    const Array& part(const BoundDevice& device) const;
    /// The slices of the whole array each part holds, in the order of devices().
    const std::vector<std::vector<Slice>>& regions() const noexcept { return regions_; }
    const std::shared_ptr<const Splay>& splay() const noexcept { return splay_; }

private:
    explicit MultiArray(BoundMultiDevice devices) : devices_(std::move(devices)) {}
    // Indices of the parts get() reads (all but clones).
    std::vector<std::size_t> read_parts() const;
    // The queue of the part's device.
    const Queue& queue_of(const MultiQueue& queue, std::size_t position) const;

    BoundMultiDevice devices_;
    DType dtype_;
    std::vector<std::size_t> shape_;
    std::shared_ptr<const Splay> splay_;
    std::vector<std::vector<Slice>> regions_;
    std::vector<Array> parts_;
};

/// The kernel argument of a MultiArray: the part on the launch's device.
detail::KernelArg pack_kernel_arg(const MultiArray& array, const detail::LaunchTarget& target);

}  // namespace kjarni
