// ScanKernel, cumsum and cumprod: specs for the scan engine.

#include "kjarni/scan.hpp"

#include <map>
#include <memory>
#include <mutex>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "algorithms/reduction_types.hpp"
#include "algorithms/scan_engine.hpp"
#include "kjarni/error.hpp"
#include "kjarni/functions.hpp"

namespace kjarni {

using detail::CArgument;
using detail::ScanSpec;
using Kind = DType::Kind;

struct ScanKernel::Impl {
    ScanSpec spec;
};

ScanKernel::ScanKernel(const DType& dtype, std::string neutral, std::string scan_expr, std::string input_expr,
                       std::string output_statement, const std::string& arguments, std::string preamble,
                       Globals render_globals, std::string name) {
    if (dtype.is_struct()) throw ArgumentError("dtype", "ScanKernel: struct items are not supported");
    auto impl = std::make_shared<Impl>();
    impl->spec.what = name;
    impl->spec.arguments = detail::parse_c_arguments(arguments, "arguments");
    impl->spec.item_ctype = detail::compute_ctype(dtype);
    impl->spec.item_size = dtype.kind() == Kind::float16 ? 4 : dtype.itemsize();
    impl->spec.uses_last_item = output_statement.find("last_item") != std::string::npos;
    impl->spec.code = detail::scan_code(impl->spec.arguments, preamble, neutral, scan_expr, input_expr,
                                        output_statement, render_globals, name);
    impl_ = std::move(impl);
}

void ScanKernel::operator()(const Queue& queue, const std::vector<Operand>& arguments, int axis) const {
    detail::run_scan(queue, impl_->spec, arguments, axis);
}

namespace {


DType accumulate_dtype(const DType& d) {
    switch (d.kind()) {
        case Kind::bool_:
        case Kind::int8:
        case Kind::int16:
        case Kind::int32:
        case Kind::int64: return Kind::int64;
        case Kind::uint8:
        case Kind::uint16:
        case Kind::uint32:
        case Kind::uint64: return Kind::uint64;
        default: return d;
    }
}

Array cumulative(const Queue& queue, const Array& array, std::optional<int> axis, const std::optional<DType>& dtype,
                 const std::optional<Array>& out, bool multiply) {
    const char* what = multiply ? "cumprod" : "cumsum";
    if (array.dtype().is_struct()) throw ArgumentError("array", fmt::format("{}: struct arrays cannot be scanned", what));
    detail::check_device(queue, array, "array");
    const DType result = dtype ? *dtype : accumulate_dtype(array.dtype());
    if (result.is_struct()) throw ArgumentError("dtype", fmt::format("{}: a struct dtype cannot accumulate", what));
    const DType item = result.kind() == Kind::float16 ? DType(Kind::float32) : result;

    Array input = array;
    int scan_axis = 0;
    if (axis) {
        scan_axis = *axis;
    } else if (array.ndim() != 1) {
        // numpy flattens in C order.
        const std::ptrdiff_t flat[1] = {-1};
        input = array.ascontiguous(queue).reshape(std::span<const std::ptrdiff_t>(flat, 1));
    }
    Array y = [&] {
        if (!out) return Array::empty(queue.device(), input.shape(), result);
        detail::check_device(queue, *out, "out");
        if (out->shape() != input.shape())
            throw ArgumentError("out", fmt::format("{}: has shape ({}), the result has shape ({})", what,
                                                   fmt::join(out->shape(), ", "), fmt::join(input.shape(), ", ")));
        if (!(out->dtype() == result))
            throw ArgumentError("out", fmt::format("{}: has dtype {}, the result has dtype {}", what, out->dtype().name(),
                                                   result.name()));
        return *out;
    }();
    if (input.ndim() == 0) throw ArgumentError("array", fmt::format("{}: a 0-d array has no axis to scan", what));

    const std::string key = fmt::format("{} {} {}", what, array.dtype().name(), result.name());
    static std::mutex mutex;
    static std::map<std::string, std::unique_ptr<const ScanSpec>> specs;
    std::unique_lock lock(mutex);
    auto& slot = specs[key];
    if (!slot) {
        Globals globals;
        std::string value;
        if (array.dtype().kind() == Kind::float16) {
            value = "kjarni_h2f(x[i])";
            if (item.kind() != Kind::float32) {
                globals["load"] = functions::cast(Kind::float32, item);
                value = "${load}(" + value + ")";
            }
        } else {
            globals["load"] = functions::cast(array.dtype(), item);
            value = array.dtype().kind() == Kind::bool_ ? "${load}(x[i] != 0)" : "${load}(x[i])";
        }
        std::string op = multiply ? "a * b" : "a + b";
        if (is_complex(item)) {
            globals["op"] = multiply ? functions::mul({item, item}) : functions::add({item, item});
            op = "${op}(a, b)";
        }
        std::string neutral;
        if (item.kind() == Kind::complex64) neutral = multiply ? "COMPLEX64_CTR(1.0f, 0.0f)" : "COMPLEX64_CTR(0.0f, 0.0f)";
        else if (item.kind() == Kind::complex128) neutral = multiply ? "COMPLEX128_CTR(1.0, 0.0)" : "COMPLEX128_CTR(0.0, 0.0)";
        else neutral = fmt::format("({}){}", detail::compute_ctype(item), multiply ? 1 : 0);
        std::string store = "y[i] = item;";
        if (result.kind() == Kind::float16) store = "y[i] = kjarni_f2h(item);";
        else if (result.kind() == Kind::bool_) store = "y[i] = (uint8_t)(item != 0);";

        ScanSpec spec;
        spec.what = what;
        spec.arguments = {CArgument{"x", array.dtype(), true, true, detail::c_type_name(array.dtype())},
                          CArgument{"y", result, true, false, detail::c_type_name(result)}};
        spec.item_ctype = detail::compute_ctype(item);
        spec.item_size = item.itemsize();
        spec.code = detail::scan_code(spec.arguments, "", neutral, op, value, store, globals, what);
        slot = std::make_unique<const ScanSpec>(std::move(spec));
    }
    const ScanSpec& spec = *slot;
    lock.unlock();
    detail::run_scan(queue, spec, {input, y}, scan_axis);
    // A flattened copy was made: keep it alive until the scan has read it.
    if (detail::backend_of(input.base()) != detail::backend_of(array.base())) queue.synchronize();
    return y;
}

}  // namespace

Array cumsum(const Queue& queue, const Array& array, std::optional<int> axis, const std::optional<DType>& dtype,
             const std::optional<Array>& out) {
    return cumulative(queue, array, axis, dtype, out, false);
}

Array cumprod(const Queue& queue, const Array& array, std::optional<int> axis, const std::optional<DType>& dtype,
              const std::optional<Array>& out) {
    return cumulative(queue, array, axis, dtype, out, true);
}

MultiArray cumsum_parts(const MultiQueue& queue, const MultiArray& array, int axis, const std::optional<DType>& dtype) {
    const std::vector<bool> scanned = detail::reduced_axes(std::vector<int>{axis}, array.shape().size(), "cumsum_parts", "axis");
    const bool clone = dynamic_cast<const CloneSplay*>(array.splay().get()) != nullptr;
    if (!clone && scanned[0])
        throw UnsupportedError("cumsum_parts: the scan runs along the axis the parts split; it would cross the parts");
    const auto& devices = array.devices();
    const DType result = dtype ? *dtype : accumulate_dtype(array.dtype());
    MultiArray out = MultiArray::empty(devices, array.shape(), result, {}, array.splay());
    for (std::size_t k = 0; k < devices.size(); ++k)
        cumsum(queue[devices[k]], array.parts()[k], axis, dtype, out.parts()[k]);
    return out;
}

}  // namespace kjarni
