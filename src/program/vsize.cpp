#include "program/vsize.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <limits>
#include <map>
#include <string>

#include "kjarni/error.hpp"
#include "kjarni/template/module.hpp"

namespace kjarni::detail {

namespace {

constexpr std::uint64_t unlimited = std::numeric_limits<std::uint64_t>::max();

// a * b, saturating at `unlimited`.
std::uint64_t mul_sat(std::uint64_t a, std::uint64_t b) {
    std::uint64_t result = 0;
    return __builtin_mul_overflow(a, b, &result) ? unlimited : result;
}

std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) { return a / b + (a % b != 0 ? 1 : 0); }

// The largest divisor of n not above limit.
std::size_t largest_divisor(std::size_t n, std::size_t limit) {
    std::size_t best = 1;
    for (std::size_t d = 1; d * d <= n; ++d) {
        if (n % d != 0) continue;
        if (d <= limit) best = std::max(best, d);
        if (n / d <= limit) best = std::max(best, n / d);
    }
    return best;
}

std::array<std::size_t, 3> three(const std::vector<std::size_t>& values) {
    std::array<std::size_t, 3> result{1, 1, 1};
    for (std::size_t i = 0; i < std::min<std::size_t>(3, values.size()); ++i) result[i] = std::max<std::size_t>(1, values[i]);
    return result;
}

std::string shape(const Sizes& sizes) { return fmt::format("{}", fmt::join(sizes, " x ")); }

// Local sizes when none are given: the first dimension first (it is the contiguous one), each one
// as even a split of its global size as the budget allows (least padding), the first rounded up to
// whole warps when it is at least a warp long.
Sizes choose_local_size(const Sizes& global, std::size_t budget, std::size_t warp) {
    Sizes local(global.size(), 1);
    for (std::size_t d = 0; d < global.size() && budget > 1; ++d) {
        const std::size_t groups = ceil_div(global[d], budget);
        std::size_t l = ceil_div(global[d], groups);
        if (d == 0 && warp > 1 && global[d] >= warp) {
            const std::size_t aligned = ceil_div(l, warp) * warp;
            if (aligned <= budget) l = aligned;
        }
        local[d] = l;
        budget /= l;
    }
    return local;
}

}  // namespace

Sizes VsizePlan::real_global_size() const {
    Sizes result;
    for (unsigned d = 0; d < real_dims; ++d) result.push_back(real_groups[d] * real_local[d]);
    return result;
}

Sizes VsizePlan::real_local_size() const { return Sizes(real_local.begin(), real_local.begin() + real_dims); }

VsizePlan plan_vsize(const Sizes& global_size, const std::optional<Sizes>& local_size, const DeviceParameters& device,
                     std::optional<std::size_t> kernel_max_total, std::uint64_t max_vsize,
                     std::string_view kernel_name) {
    const std::size_t dims = global_size.size();
    if (dims == 0 || dims > max_virtual_dims) {
        throw ArgumentError("global_size", fmt::format("static kernel '{}': {} dimensions given; 1 to {} are supported",
                                                       kernel_name, dims, max_virtual_dims));
    }
    for (std::size_t d = 0; d < dims; ++d) {
        if (global_size[d] == 0) {
            throw ArgumentError("global_size", fmt::format("static kernel '{}': dimension {} of {} is 0", kernel_name,
                                                           d, shape(global_size)));
        }
    }
    if (local_size && local_size->size() != dims) {
        throw ArgumentError("local_size", fmt::format("static kernel '{}': {} dimensions ({}), but the global size has "
                                                      "{} ({})",
                                                      kernel_name, local_size->size(), shape(*local_size), dims,
                                                      shape(global_size)));
    }

    const auto max_local = three(device.max_local_sizes);
    const auto max_groups = three(device.max_num_groups);
    const std::size_t device_max_total = std::max<std::size_t>(1, device.max_total_local_size);

    VsizePlan plan;
    plan.global_size = global_size;
    if (local_size) {
        std::uint64_t total = 1;
        for (std::size_t d = 0; d < dims; ++d) {
            if ((*local_size)[d] == 0) {
                throw ArgumentError("local_size", fmt::format("static kernel '{}': dimension {} of {} is 0",
                                                              kernel_name, d, shape(*local_size)));
            }
            total = mul_sat(total, (*local_size)[d]);
        }
        const std::string limits =
            kernel_max_total ? fmt::format("the device allows {} and this kernel {}", device_max_total, *kernel_max_total)
                             : fmt::format("the device allows {} (and this kernel, once compiled, at most that)",
                                           device_max_total);
        if (total > device_max_total || (kernel_max_total && total > *kernel_max_total)) {
            throw ArgumentError("local_size",
                                fmt::format("static kernel '{}': the local size {} makes {} work items per group; {}",
                                            kernel_name, shape(*local_size), total, limits));
        }
        plan.local_size = *local_size;
    } else {
        std::size_t budget = std::min({device_max_total, preferred_virtual_local_size, max_local[0]});
        if (kernel_max_total) budget = std::min(budget, std::max<std::size_t>(1, *kernel_max_total));
        plan.local_size = choose_local_size(global_size, budget, device.warp_size);
    }

    // The virtual grid, padded to whole groups, must be addressable with VSIZE_T.
    std::uint64_t padded_total = 1;
    for (std::size_t d = 0; d < dims; ++d) {
        const std::size_t groups = ceil_div(global_size[d], plan.local_size[d]);
        plan.num_groups.push_back(groups);
        plan.total_local *= plan.local_size[d];
        plan.total_groups = mul_sat(plan.total_groups, groups);
        padded_total = mul_sat(padded_total, mul_sat(groups, plan.local_size[d]));
    }
    if (padded_total > max_vsize) {
        throw ArgumentError("global_size",
                            fmt::format("static kernel '{}': the grid {} with local size {} ({} work items with the "
                                        "padding) does not fit VSIZE_T on this API (at most {})",
                                        kernel_name, shape(global_size), shape(plan.local_size),
                                        padded_total == unlimited ? std::string("too many") : std::to_string(padded_total),
                                        max_vsize));
    }

    // A virtual group is one real group, its work items laid over the real local dimensions.
    {
        const std::size_t total = plan.total_local;
        const std::size_t r0 = total <= max_local[0] ? total : largest_divisor(total, max_local[0]);
        const std::size_t rest = total / r0;
        const std::size_t r1 = rest <= max_local[1] ? rest : largest_divisor(rest, max_local[1]);
        const std::size_t r2 = rest / r1;
        if (r2 > max_local[2]) {
            throw ArgumentError("local_size",
                                fmt::format("static kernel '{}': {} work items per group ({}) cannot be laid out "
                                            "within the device's group extents {}",
                                            kernel_name, total, shape(plan.local_size), shape(device.max_local_sizes)));
        }
        plan.real_local = {r0, r1, r2};
    }

    // The virtual groups, numbered with dimension 0 fastest, over the real grid: x alone while they
    // fit, else x and y, else x, y and z, each split as evenly as the limits allow (least padding).
    {
        const std::uint64_t n = plan.total_groups;
        const std::uint64_t xy = mul_sat(max_groups[0], max_groups[1]);
        std::uint64_t g0 = 1, g1 = 1, g2 = 1;
        if (n <= max_groups[0]) {
            g0 = n;
        } else if (n <= xy) {
            g1 = ceil_div(n, max_groups[0]);
            g0 = ceil_div(n, g1);
        } else if (n <= mul_sat(xy, max_groups[2]) && n != unlimited) {
            g2 = ceil_div(n, xy);
            const std::uint64_t rest = ceil_div(n, g2);
            g1 = ceil_div(rest, max_groups[0]);
            g0 = ceil_div(rest, g1);
        } else {
            throw ArgumentError("global_size",
                                fmt::format("static kernel '{}': the grid {} with local size {} needs {} groups; the "
                                            "device allows {} in all",
                                            kernel_name, shape(global_size), shape(plan.local_size),
                                            n == unlimited ? std::string("too many") : std::to_string(n),
                                            shape(device.max_num_groups)));
        }
        const std::uint64_t real_total = mul_sat(mul_sat(g0, g1), g2);
        if (g0 > max_groups[0] || g1 > max_groups[1] || g2 > max_groups[2] || real_total < n) {
            throw Error(fmt::format("static kernel '{}': internal error laying {} groups over {}", kernel_name, n,
                                    shape(device.max_num_groups)));
        }
        if (real_total > max_vsize) {
            throw ArgumentError("global_size",
                                fmt::format("static kernel '{}': the grid {} with local size {} needs {} real groups, "
                                            "more than VSIZE_T holds on this API ({})",
                                            kernel_name, shape(global_size), shape(plan.local_size), real_total,
                                            max_vsize));
        }
        plan.real_groups = {static_cast<std::size_t>(g0), static_cast<std::size_t>(g1), static_cast<std::size_t>(g2)};
    }

    plan.real_dims = 1;
    for (unsigned d = 1; d < 3; ++d) {
        if (plan.real_local[d] > 1 || plan.real_groups[d] > 1) plan.real_dims = d + 1;
    }
    return plan;
}

namespace {

// Sizes are baked in as constants of VSIZE_T; UL keeps a literal above 2^32 whole on OpenCL (and is
// 64 bits on CUDA under Linux, where VSIZE_T is 32 bits and the plan keeps values below 2^32).
std::string lit(std::uint64_t value) { return fmt::format("((VSIZE_T){}UL)", value); }

std::uint64_t product(const Sizes& sizes, std::size_t end) {
    std::uint64_t p = 1;
    for (std::size_t i = 0; i < end; ++i) p *= sizes[i];
    return p;
}

// Component d of `flat`, an index over `extents` with dimension 0 fastest. No modulo after the
// last non-trivial dimension: `flat` stays below the product there (or, for the padding groups,
// gives an id out of range, which skip() catches anyway).
std::string component(const std::string& flat, const Sizes& extents, std::size_t d) {
    if (extents[d] == 1) return lit(0);
    const std::uint64_t stride = product(extents, d);
    std::string e = stride == 1 ? flat : fmt::format("{} / {}", flat, lit(stride));
    bool last = true;
    for (std::size_t i = d + 1; i < extents.size(); ++i) last = last && extents[i] == 1;
    if (!last) e = stride == 1 ? fmt::format("{} % {}", e, lit(extents[d])) : fmt::format("({}) % {}", e, lit(extents[d]));
    return e;
}

// `FUNCTION INLINE VSIZE_T ${prefix}(unsigned int dim)` returning values[dim], `otherwise` past
// the virtual dimensions (as OpenCL's functions do past the third).
std::string per_dim_function(const std::vector<std::string>& values, const std::string& otherwise,
                             const std::string& preamble = {}) {
    std::string body;
    for (std::size_t d = 0; d < values.size(); ++d) body += fmt::format("dim == {} ? {} :\n        ", d, values[d]);
    return fmt::format("FUNCTION INLINE VSIZE_T ${{prefix}}(unsigned int dim)\n{{\n{}    return {}{};\n}}\n", preamble,
                       body, otherwise);
}

std::string constants_function(const Sizes& sizes) {
    std::vector<std::string> values;
    for (std::size_t s : sizes) values.push_back(lit(s));
    return per_dim_function(values, lit(1));
}

// The flat id over the real dimensions with extents `extents` (x fastest), from `id_function`.
std::string real_flat(const char* id_function, const std::array<std::size_t, 3>& extents) {
    std::string e;
    std::uint64_t stride = 1;
    for (unsigned d = 0; d < 3; ++d) {
        if (extents[d] > 1) {
            if (!e.empty()) e += " + ";
            e += stride == 1 ? fmt::format("(VSIZE_T){}({})", id_function, d)
                             : fmt::format("(VSIZE_T){}({}) * {}", id_function, d, lit(stride));
        }
        stride *= extents[d];
    }
    return e.empty() ? lit(0) : e;
}

class VsizeModules final : public Object {
public:
    explicit VsizeModules(std::map<std::string, Value> modules) : modules_(std::move(modules)) {}
    std::string type_name() const override { return "VsizeModules"; }
    std::string to_string() const override { return "VsizeModules"; }
    Value attribute(const std::string& name) const override {
        const auto it = modules_.find(name);
        return it != modules_.end() ? it->second : Object::attribute(name);
    }
    std::shared_ptr<const Object> process_modules(const std::function<Value(const Value&)>& process) const override {
        std::map<std::string, Value> processed;
        for (const auto& [name, module] : modules_) processed.emplace(name, process(module));
        return std::make_shared<VsizeModules>(std::move(processed));
    }

private:
    std::map<std::string, Value> modules_;
};

}  // namespace

Value vsize_modules(const VsizePlan& plan) {
    const std::size_t dims = plan.global_size.size();

    // The real flat ids, shared by the modules below (rendered once).
    const Module real = Module::from_string(
        fmt::format("FUNCTION INLINE VSIZE_T ${{prefix}}flat_local_id()\n{{\n    return {};\n}}\n"
                    "FUNCTION INLINE VSIZE_T ${{prefix}}flat_group_id()\n{{\n    return {};\n}}\n",
                    real_flat("get_local_id", plan.real_local), real_flat("get_group_id", plan.real_groups)),
        "vsize_real");

    const Module local_size = Module::from_string(constants_function(plan.local_size), "vsize_local_size");
    const Module num_groups = Module::from_string(constants_function(plan.num_groups), "vsize_num_groups");
    const Module global_size = Module::from_string(constants_function(plan.global_size), "vsize_global_size");

    auto decomposed = [&](const char* name, const char* flat_function, const Sizes& extents) {
        std::vector<std::string> values;
        bool uses_flat = false;
        for (std::size_t d = 0; d < dims; ++d) {
            values.push_back(component("flat", extents, d));
            uses_flat = uses_flat || extents[d] > 1;
        }
        const std::string preamble =
            uses_flat ? fmt::format("    const VSIZE_T flat = ${{real}}{}();\n", flat_function) : std::string();
        return Module::from_string(per_dim_function(values, lit(0), preamble), name, {{"real", real}});
    };
    const Module local_id = decomposed("vsize_local_id", "flat_local_id", plan.local_size);
    const Module group_id = decomposed("vsize_group_id", "flat_group_id", plan.num_groups);

    const Module global_id = Module::from_string(
        "FUNCTION INLINE VSIZE_T ${prefix}(unsigned int dim)\n"
        "{\n    return ${group_id}(dim) * ${local_size}(dim) + ${local_id}(dim);\n}\n",
        "vsize_global_id", {{"group_id", group_id}, {"local_size", local_size}, {"local_id", local_id}});

    std::string flat_id;
    for (std::size_t d = 0; d < dims; ++d) {
        if (plan.global_size[d] == 1) continue;
        if (!flat_id.empty()) flat_id += " + ";
        const std::uint64_t stride = product(plan.global_size, d);
        flat_id += stride == 1 ? fmt::format("${{global_id}}({})", d)
                               : fmt::format("${{global_id}}({}) * {}", d, lit(stride));
    }
    const Module global_flat_id = Module::from_string(
        fmt::format("FUNCTION INLINE VSIZE_T ${{prefix}}()\n{{\n    return {};\n}}\n", flat_id.empty() ? lit(0) : flat_id),
        "vsize_global_flat_id", {{"global_id", global_id}});
    const Module global_flat_size = Module::from_string(
        fmt::format("FUNCTION INLINE VSIZE_T ${{prefix}}()\n{{\n    return {};\n}}\n",
                    lit(product(plan.global_size, dims))),
        "vsize_global_flat_size");

    // The padding: real groups past the virtual ones, and ids past the global size.
    std::vector<std::string> conditions;
    const std::uint64_t real_groups = product(Sizes(plan.real_groups.begin(), plan.real_groups.end()), 3);
    if (real_groups != plan.total_groups) {
        conditions.push_back(fmt::format("${{real}}flat_group_id() >= {}", lit(plan.total_groups)));
    }
    for (std::size_t d = 0; d < dims; ++d) {
        if (plan.num_groups[d] * plan.local_size[d] != plan.global_size[d]) {
            conditions.push_back(fmt::format("${{global_id}}({}) >= {}", d, lit(plan.global_size[d])));
        }
    }
    const Module skip = Module::from_string(
        fmt::format("FUNCTION INLINE bool ${{prefix}}()\n{{\n    return {};\n}}\n",
                    conditions.empty() ? std::string("false") : fmt::format("{}", fmt::join(conditions, " ||\n        "))),
        "vsize_skip", {{"real", real}, {"global_id", global_id}});

    return Value(std::make_shared<VsizeModules>(std::map<std::string, Value>{
        {"local_id", local_id},
        {"local_size", local_size},
        {"group_id", group_id},
        {"num_groups", num_groups},
        {"global_id", global_id},
        {"global_size", global_size},
        {"global_flat_id", global_flat_id},
        {"global_flat_size", global_flat_size},
        {"skip", skip},
    }));
}

}  // namespace kjarni::detail
