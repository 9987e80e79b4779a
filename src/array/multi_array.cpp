// MultiArray: parts of an array on several devices, by splay.

#include "kjarni/multi_array.hpp"

#include <fmt/format.h>

namespace kjarni {

std::vector<std::vector<Slice>> CloneSplay::operator()(const std::vector<std::size_t>&,
                                                       std::size_t device_count) const {
    return std::vector<std::vector<Slice>>(device_count);
}

std::vector<std::vector<Slice>> EqualSplay::operator()(const std::vector<std::size_t>& shape,
                                                       std::size_t device_count) const {
    if (shape.empty()) throw ArgumentError("shape", "EqualSplay needs at least one dimension");
    if (shape[0] < device_count)
        throw ArgumentError("shape",
                            fmt::format("EqualSplay: the outermost dimension ({}) is less than the device count ({})",
                                        shape[0], device_count));
    std::vector<std::vector<Slice>> out;
    const std::size_t base = shape[0] / device_count, extra = shape[0] % device_count;
    std::size_t start = 0;
    for (std::size_t i = 0; i < device_count; ++i) {
        const std::size_t n = base + (i < extra ? 1 : 0);
        out.push_back({Slice{static_cast<std::ptrdiff_t>(start), static_cast<std::ptrdiff_t>(start + n)}});
        start += n;
    }
    return out;
}

namespace {
bool is_clone(const std::shared_ptr<const Splay>& splay) {
    return dynamic_cast<const CloneSplay*>(splay.get()) != nullptr;
}
}  // namespace

MultiArray MultiArray::empty(const BoundMultiDevice& devices, std::vector<std::size_t> shape, const DType& dtype,
                             const Allocator& allocator, std::shared_ptr<const Splay> splay) {
    MultiArray a(devices);
    a.dtype_ = dtype;
    a.shape_ = std::move(shape);
    a.splay_ = splay ? std::move(splay) : std::make_shared<const EqualSplay>();
    a.regions_ = (*a.splay_)(a.shape_, devices.size());
    if (a.regions_.size() != devices.size())
        throw ArgumentError("splay", fmt::format("gave {} parts for {} devices", a.regions_.size(), devices.size()));
    const Layout whole = Layout::contiguous(a.shape_, dtype.itemsize());
    for (std::size_t i = 0; i < devices.size(); ++i) {
        for (const auto& s : a.regions_[i]) {
            if (s.step <= 0) throw ArgumentError("splay", "parts must be taken with positive steps");
        }
        const Layout part = whole.slice(a.regions_[i]);
        a.parts_.push_back(Array::empty(devices[i], part.shape, dtype, std::nullopt, 0, allocator));
    }
    return a;
}

MultiArray MultiArray::from_host(const MultiQueue& queue, const HostArray& host, std::shared_ptr<const Splay> splay) {
    MultiArray a = empty(queue.devices(), host.shape(), host.dtype(), {}, std::move(splay));
    a.set(queue, host);
    return a;
}

std::vector<std::vector<std::size_t>> MultiArray::shapes() const {
    std::vector<std::vector<std::size_t>> out;
    for (const auto& p : parts_) out.push_back(p.shape());
    return out;
}

const Array& MultiArray::part(const BoundDevice& device) const {
    for (std::size_t i = 0; i < devices_.size(); ++i) {
        if (devices_[i] == device) return parts_[i];
    }
    throw ArgumentError("device", "the MultiArray has no part on " + device.name());
}

std::vector<std::size_t> MultiArray::read_parts() const {
    if (is_clone(splay_)) return {0};
    std::vector<std::size_t> all(parts_.size());
    for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
    return all;
}

const Queue& MultiArray::queue_of(const MultiQueue& queue, std::size_t position) const {
    return queue[devices_[position]];
}

HostArray MultiArray::get(const MultiQueue& queue, bool async) const {
    HostArray out(dtype_, shape_);
    get(queue, out, async);
    return out;
}

void MultiArray::get(const MultiQueue& queue, const HostArray& dest, bool async) const {
    if (dest.shape() != shape_ || dest.dtype().itemsize() != dtype_.itemsize())
        throw ArgumentError("dest", "shape or dtype differ from the MultiArray's");
    for (auto i : read_parts()) parts_[i].get(queue_of(queue, i), dest.slice(regions_[i]), async);
}

void MultiArray::set(const MultiQueue& queue, const HostArray& source, bool async) const {
    if (source.shape() != shape_ || source.dtype().itemsize() != dtype_.itemsize())
        throw ArgumentError("source", "shape or dtype differ from the MultiArray's");
    for (std::size_t i = 0; i < parts_.size(); ++i) parts_[i].set(queue_of(queue, i), source.slice(regions_[i]), async);
}

void MultiArray::set(const MultiQueue& queue, const MultiArray& source, bool async) const {
    if (!(source.devices_ == devices_) || source.shapes() != shapes())
        throw ArgumentError("source", "has other devices or parts than this MultiArray");
    for (std::size_t i = 0; i < parts_.size(); ++i) parts_[i].set(queue_of(queue, i), source.parts_[i], async);
}

detail::KernelArg pack_kernel_arg(const MultiArray& array, const detail::LaunchTarget& target) {
    for (std::size_t i = 0; i < array.devices().size(); ++i) {
        if (array.devices().indices()[i] == target.device_index) return pack_kernel_arg(array.parts()[i], target);
    }
    throw ArgumentError("MultiArray", fmt::format("has no part on device {} of the context", target.device_index));
}

}  // namespace kjarni
