#pragma once
// Virtual sizes (reference 000 §3.3.9, grunnur.vsize): a grid of any number of dimensions, with
// sizes that need not be multiples of the local size, mapped onto the device's real grid of up to
// three dimensions.
//
// The mapping. The virtual grid has D dimensions with global sizes G[d] and local sizes L[d];
// N[d] = ceil(G[d] / L[d]) groups in each. A virtual group of prod(L) threads is one real group:
// the real flat local id (x fastest) is decomposed into the virtual local ids, virtual dimension 0
// fastest, so that neighbouring threads of virtual dimension 0 are neighbours on the device too.
// The prod(N) virtual groups are numbered the same way (dimension 0 fastest) and laid over the
// real grid: in x alone while they fit under the device's limit there, otherwise spread over x, y
// and z, with a few real groups to spare at the end. The threads of those spare groups, and the
// threads whose virtual global id is past G[d] in some dimension (the rounding up to whole
// groups), are the padding, for which skip() is true. All sizes are baked into the rendered source
// as constants, so the decomposition is divisions by constants.

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "kjarni/device_parameters.hpp"
#include "kjarni/program.hpp"
#include "kjarni/template/value.hpp"

namespace kjarni::detail {

/// The most virtual dimensions a static kernel takes.
inline constexpr std::size_t max_virtual_dims = 16;

/// Threads per group aimed at when choosing local sizes automatically.
inline constexpr std::size_t preferred_virtual_local_size = 256;

struct VsizePlan {
    // The virtual grid.
    Sizes global_size;
    Sizes local_size;
    Sizes num_groups;
    std::size_t total_local = 1;   // prod(local_size)
    std::size_t total_groups = 1;  // prod(num_groups)
    // The real launch.
    unsigned real_dims = 1;
    std::array<std::size_t, 3> real_local{1, 1, 1};
    std::array<std::size_t, 3> real_groups{1, 1, 1};

    Sizes real_global_size() const;
    Sizes real_local_size() const;
};

/// Plans the mapping for a device. `local_size` empty: chosen within the device's limit, the
/// kernel's (`kernel_max_total`, when known) and preferred_virtual_local_size. `max_vsize` is the
/// largest value VSIZE_T holds on the API. ArgumentError (naming the limits) when the sizes are
/// malformed or do not fit.
VsizePlan plan_vsize(const Sizes& global_size, const std::optional<Sizes>& local_size, const DeviceParameters& device,
                     std::optional<std::size_t> kernel_max_total, std::uint64_t max_vsize,
                     std::string_view kernel_name);

/// The `static` object a static kernel's template receives (grunnur's VsizeModules): an Object
/// whose attributes local_id, local_size, group_id, num_groups, global_id, global_size,
/// global_flat_id, global_flat_size and skip are Modules rendering the functions for `plan`.
Value vsize_modules(const VsizePlan& plan);

}  // namespace kjarni::detail
