#include "algorithms/indexing.hpp"

#include <cstdint>

#include <fmt/format.h>

#include "algorithms/generated_kernel.hpp"
#include "kjarni/error.hpp"

namespace kjarni::detail {

const char* index_type(bool use_32_bits) { return use_32_bits ? "int32_t" : "int64_t"; }

std::string layout_parameters(std::size_t ndim, const std::vector<std::string>& operands, const char* idx) {
    std::string out;
    for (std::size_t d = 0; d < ndim; ++d) out += fmt::format(", {} n{}", idx, d);
    for (const auto& name : operands) {
        out += fmt::format(", {} {}_off", idx, name);
        for (std::size_t d = 0; d < ndim; ++d) out += fmt::format(", {} {}_s{}", idx, name, d);
    }
    return out;
}

std::string decode_offsets(std::size_t ndim, const std::vector<std::string>& operands, const char* idx,
                           const std::string& flat) {
    std::string out;
    for (const auto& name : operands) out += fmt::format("    {} {}_o = {}_off;\n", idx, name, name);
    if (ndim == 0) return out;
    out += fmt::format("    {{\n        {} rest = {};\n", idx, flat);
    // The last axis varies fastest; the first needs no division.
    for (std::size_t d = ndim; d-- > 0;) {
        if (d == 0) {
            for (const auto& name : operands) out += fmt::format("        {}_o += rest * {}_s0;\n", name, name);
        } else {
            out += fmt::format("        {{ const {} c = rest % n{}; rest /= n{};\n", idx, d, d);
            for (const auto& name : operands) out += fmt::format("          {}_o += c * {}_s{};\n", name, name, d);
            out += "        }\n";
        }
    }
    out += "    }\n";
    return out;
}

void push_index(std::vector<KernelArg>& args, std::int64_t value, bool use_32_bits) {
    if (use_32_bits) {
        const auto v = static_cast<std::int32_t>(value);
        args.push_back(scalar_arg(&v, sizeof(v)));
    } else {
        args.push_back(scalar_arg(&value, sizeof(value)));
    }
}

void push_layout_arguments(std::vector<KernelArg>& args, const IterationSpace& space,
                           const std::vector<std::ptrdiff_t>& offsets, bool use_32_bits) {
    for (const std::size_t extent : space.shape) push_index(args, static_cast<std::int64_t>(extent), use_32_bits);
    for (std::size_t k = 0; k < space.strides.size(); ++k) {
        push_index(args, offsets.at(k), use_32_bits);
        for (const std::ptrdiff_t s : space.strides[k]) push_index(args, s, use_32_bits);
    }
}

void check_axis_count(const IterationSpace& space, const std::string& what) {
    if (space.ndim() > max_generated_axes)
        throw UnsupportedError(fmt::format("{}: the operands' layouts leave {} axes that cannot be merged; generated "
                                           "kernels take at most {}",
                                           what, space.ndim(), max_generated_axes));
}

}  // namespace kjarni::detail
