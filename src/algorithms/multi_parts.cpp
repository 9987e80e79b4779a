#include "algorithms/multi_parts.hpp"

#include <algorithm>

namespace kjarni::detail {

Partition partition_of(const MultiArray& array) {
    Partition out;
    const auto& shape = array.shape();
    out.clone = dynamic_cast<const CloneSplay*>(array.splay().get()) != nullptr;
    out.split.assign(shape.size(), false);
    const auto shapes = array.shapes();
    for (std::size_t k = 0; k < array.parts().size(); ++k) {
        PartRegion region;
        const auto& slices = array.regions()[k];
        for (std::size_t d = 0; d < shape.size(); ++d) {
            const auto n = static_cast<std::ptrdiff_t>(shape[d]);
            // Splays give positive steps (multi_array.hpp); missing trailing slices take the whole axis.
            const Slice s = d < slices.size() ? slices[d] : Slice{};
            std::ptrdiff_t start = s.start.value_or(0);
            if (start < 0) start += n;
            start = std::clamp<std::ptrdiff_t>(start, 0, n);
            region.start.push_back(static_cast<std::size_t>(start));
            region.step.push_back(static_cast<std::size_t>(std::max<std::ptrdiff_t>(s.step, 1)));
            region.extent.push_back(shapes[k][d]);
            if (!out.clone && shapes[k][d] != shape[d]) out.split[d] = true;
        }
        out.parts.push_back(std::move(region));
    }
    return out;
}

}  // namespace kjarni::detail
