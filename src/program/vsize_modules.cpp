// The `static` object of a static kernel's template (vsize.hpp's vsize_modules): the functions
// that map the device's real ids onto the virtual grid, rendered with the plan's sizes as constants.

#include "program/vsize.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <map>
#include <string>

#include "kjarni/error.hpp"
#include "kjarni/template/module.hpp"

namespace kjarni::detail {

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
    if (!last)
        e = stride == 1 ? fmt::format("{} % {}", e, lit(extents[d])) : fmt::format("({}) % {}", e, lit(extents[d]));
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
    const Module real =
        Module::from_string(fmt::format("FUNCTION INLINE VSIZE_T ${{prefix}}flat_local_id()\n{{\n    return {};\n}}\n"
                                        "FUNCTION INLINE VSIZE_T ${{prefix}}flat_group_id()\n{{\n    return {};\n}}\n",
                                        real_flat("get_local_id", plan.real_local),
                                        real_flat("get_group_id", plan.real_groups)),
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

    const Module global_id =
        Module::from_string("FUNCTION INLINE VSIZE_T ${prefix}(unsigned int dim)\n"
                            "{\n    return ${group_id}(dim) * ${local_size}(dim) + ${local_id}(dim);\n}\n",
                            "vsize_global_id",
                            {{"group_id", group_id}, {"local_size", local_size}, {"local_id", local_id}});

    // The flat id in C order, the last dimension fastest (grunnur's; a C-ordered array of the
    // global size is indexed by it).
    std::string flat_id;
    for (std::size_t d = 0; d < dims; ++d) {
        if (plan.global_size[d] == 1) continue;
        if (!flat_id.empty()) flat_id += " + ";
        const std::uint64_t stride = product(plan.global_size, dims) / product(plan.global_size, d + 1);
        flat_id +=
            stride == 1 ? fmt::format("${{global_id}}({})", d) : fmt::format("${{global_id}}({}) * {}", d, lit(stride));
    }
    const Module global_flat_id =
        Module::from_string(fmt::format("FUNCTION INLINE VSIZE_T ${{prefix}}()\n{{\n    return {};\n}}\n",
                                        flat_id.empty() ? lit(0) : flat_id),
                            "vsize_global_flat_id", {{"global_id", global_id}});
    const Module global_flat_size =
        Module::from_string(fmt::format("FUNCTION INLINE VSIZE_T ${{prefix}}()\n{{\n    return {};\n}}\n",
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
    const Module skip =
        Module::from_string(fmt::format("FUNCTION INLINE bool ${{prefix}}()\n{{\n    return {};\n}}\n",
                                        conditions.empty() ? std::string("false")
                                                           : fmt::format("{}", fmt::join(conditions, " ||\n        "))),
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
