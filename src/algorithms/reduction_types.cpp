#include "algorithms/reduction_types.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <complex>
#include <cstring>

#include <fmt/format.h>

#include "algorithms/device_code.hpp"
#include "algorithms/expression_codegen.hpp"
#include "algorithms/generated_kernel.hpp"
#include "algorithms/indexing.hpp"
#include "core/context_state.hpp"
#include "kjarni/error.hpp"
#include "kjarni/functions.hpp"

namespace kjarni::detail {

using Kind = DType::Kind;

std::vector<std::byte> convert_scalar(const Operand& scalar, const DType& dtype) {
    const auto bytes = scalar.converted(dtype);
    return {bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(dtype.itemsize())};
}

void push_operands(std::vector<KernelArg>& args, const std::vector<CArgument>& declarations,
                   const std::vector<Operand>& arguments, std::vector<std::vector<std::byte>>& scalars) {
    for (std::size_t k = 0; k < arguments.size(); ++k) {
        if (arguments[k].is_array()) {
            args.push_back(whole_allocation(arguments[k].array()));
        } else {
            scalars.push_back(convert_scalar(arguments[k], declarations[k].dtype));
            args.push_back(scalar_arg(scalars.back().data(), scalars.back().size()));
        }
    }
}

void check_device(const Queue& queue, const Array& array, const std::string& name) {
    if (!(array.device().context() == queue.device().context()))
        throw ArgumentError(name, "is an array of another context than the queue's");
    if (!(array.device() == queue.device()))
        throw ArgumentError(name, fmt::format("lives on device {} of the context, the queue on device {}",
                                              array.device().index(), queue.device().index()));
}

std::vector<ArrayOperand> check_arguments(const Queue& queue, const std::vector<CArgument>& declarations,
                                          const std::vector<Operand>& arguments, const std::string& what) {
    if (arguments.size() != declarations.size())
        throw ArgumentError("arguments", fmt::format("{} takes {} arguments, {} were given", what, declarations.size(),
                                                     arguments.size()));
    std::vector<ArrayOperand> arrays;
    for (std::size_t k = 0; k < arguments.size(); ++k) {
        const CArgument& d = declarations[k];
        const Array* array = arguments[k].is_array() ? &arguments[k].array() : nullptr;
        if (d.pointer != (array != nullptr))
            throw ArgumentError(d.name,
                                fmt::format("{}: declared as {}, given {}", what, d.pointer ? "an array" : "a scalar",
                                            array ? "an array" : "a scalar"));
        if (!array) continue;
        check_device(queue, *array, d.name);
        if (!(array->dtype() == d.dtype))
            throw ArgumentError(d.name, fmt::format("{}: declared {}, given an array of {}", what, d.dtype.name(),
                                                    array->dtype().name()));
        arrays.push_back({k, array});
    }
    return arrays;
}

std::vector<bool> reduced_axes(const std::optional<std::vector<int>>& axes, std::size_t ndim, const std::string& what,
                               const char* argument) {
    std::vector<bool> reduced(ndim, !axes.has_value());
    if (!axes) return reduced;
    for (const int axis : *axes) {
        const long long n = static_cast<long long>(ndim);
        if (axis < -n || axis >= n)
            throw AxisError(argument,
                            fmt::format("{}: axis {} is out of range for an array of {} dimensions", what, axis, ndim));
        const auto a = static_cast<std::size_t>(axis < 0 ? axis + n : axis);
        if (reduced[a]) throw ArgumentError(argument, fmt::format("{}: axis {} is repeated", what, axis));
        reduced[a] = true;
    }
    return reduced;
}

std::string load_as(const DType& dtype, const std::string& element, const DType& to, const std::string& name,
                    Globals& globals) {
    const DType to_compute = to.kind() == DType::Kind::float16 ? DType(DType::Kind::float32) : to;
    if (to.kind() == DType::Kind::float16 && dtype.kind() != DType::Kind::float16) {
        // numpy casts each element to dtype= first (its buffers hold float16: a complex's real
        // part, 9e15 already inf there), then adds in float.
        return convert_value(load_value(element, dtype), dtype, to);
    }
    if (dtype.kind() == DType::Kind::bool_) {
        globals[name] = functions::cast(DType::Kind::bool_, to_compute);
        return fmt::format("${{{}}}({} != 0)", name, element);
    }
    // float16 is read as float32, then converted as float32 is.
    const bool half = dtype.kind() == DType::Kind::float16;
    std::string value = half ? fmt::format("kjarni_h2f({})", element) : element;
    const DType from = half ? DType(DType::Kind::float32) : dtype;
    if (from == to_compute) return value;
    // A float (a complex's real part) into an integer dtype= as numpy's astype on x86-64 (through
    // int32 or int64: -1.0 into uint8 is 255), as the expressions convert; a C cast differs per
    // device (CUDA saturates it to 0). Into bool as numpy's astype too: != 0, a complex's either
    // part (a cast took the real part only: sum(dtype=bool) of 2j was False).
    if (((is_real(from) || is_complex(from)) && is_integer(to_compute)) || to_compute.kind() == DType::Kind::bool_)
        return convert_value(value, from, to_compute);
    globals[name] = functions::cast(from, to_compute);
    return fmt::format("${{{}}}({})", name, value);
}

namespace {

/// The temporaries of the algorithms, one pool per context (a service of its state): what it holds
/// is freed with the context. A pool for the whole process would hold blocks of every context it
/// served until the process ends, and a user running under a leak checker would see them.
struct TemporaryPool {
    MemoryPool pool;
};

}  // namespace

Buffer temporary_buffer(const Queue& queue, std::size_t size) {
    const MemoryPool& pool = detail::state_of(queue.device().context()).service<TemporaryPool>().pool;
    return pool.allocate(queue, std::max<std::size_t>(size, 16));
}

void pad_axes(IterationSpace& space) {
    const std::size_t n = space.ndim();
    if (layout_in_table(n)) return pad_table_axes(space);
    const std::size_t target = n <= 1 ? 1 : n <= 4 ? 4 : 8;
    const std::size_t extra = target - n;
    space.shape.insert(space.shape.begin(), extra, 1);
    space.reduced.insert(space.reduced.begin(), extra, false);
    for (auto& st : space.strides) st.insert(st.begin(), extra, 0);
}

std::size_t floor_pow2(std::size_t value) { return std::bit_floor(std::max<std::size_t>(value, 1)); }

}  // namespace kjarni::detail
