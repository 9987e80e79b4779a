// ScanKernel, cumsum and cumprod: specs for the scan engine.

#include "kjarni/scan.hpp"

#include <algorithm>
#include <map>
#include <memory>
#include <mutex>
#include <numeric>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "algorithms/device_code.hpp"
#include "algorithms/multi_parts.hpp"
#include "algorithms/reduction_out.hpp"
#include "algorithms/reduction_types.hpp"
#include "algorithms/scan_engine.hpp"
#include "kjarni/error.hpp"
#include "kjarni/expression.hpp"
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
                 const std::optional<Array>& out, bool multiply, const Allocator& allocator) {
    const char* what = multiply ? "cumprod" : "cumsum";
    if (array.dtype().is_struct())
        throw ArgumentError("array", fmt::format("{}: struct arrays cannot be scanned", what));
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
        if (!out) return Array::empty(queue.device(), input.shape(), result, std::nullopt, 0, allocator);
        detail::check_device(queue, *out, "out");
        out->require_writeable("out");
        if (out->shape() != input.shape())
            throw ArgumentError("out", fmt::format("{}: has shape ({}), the result has shape ({})", what,
                                                   fmt::join(out->shape(), ", "), fmt::join(input.shape(), ", ")));
        if (!(out->dtype() == result))
            throw ArgumentError("out", fmt::format("{}: has dtype {}, the result has dtype {}", what,
                                                   out->dtype().name(), result.name()));
        return *out;
    }();
    if (input.ndim() == 0) throw ArgumentError("array", fmt::format("{}: a 0-d array has no axis to scan", what));

    // "<what> <dtype> <result>", appended (fmt::format costs about a thousand instructions more a call)
    std::string key(what);
    key.append(" ").append(array.dtype().name()).append(" ").append(result.name());
    static std::mutex mutex;
    static std::map<std::string, std::unique_ptr<const ScanSpec>> specs;
    std::unique_lock lock(mutex);
    auto& slot = specs[key];
    if (!slot) {
        Globals globals;
        const std::string value = detail::load_as(array.dtype(), "x[i]", result, "load", globals);
        // Integers wrap as numpy's (in unsigned types: signed overflow is undefined in C).
        // numpy's accumulate starts from the first element itself; the scan combines it with the
        // neutral item, which must then leave it as it is, bit for bit: sums start from -0.0 (-0.0
        // + x is x for every x, where 0.0 + -0.0 is 0.0), and a complex product passes an operand
        // by when the other is exactly 1 + 0j ((1 + 0j) * (x + infj) has a NaN real part: 0 * inf).
        // (Inside a row a factor or running product of exactly 1 + 0j passes the other by too,
        // which differs from numpy's product only where the other has an infinite or NaN part or a
        // signed zero; the positions after such a part depend on the order of the products anyway,
        // which the scan's tree does not keep.)
        std::string op = detail::wrapping_arithmetic(item, multiply ? '*' : '+', "a", "b");
        std::string preamble;
        if (is_complex(item)) {
            globals["op"] = multiply ? functions::mul({item, item}) : functions::add({item, item});
            op = "${op}(a, b)";
            if (multiply) {
                preamble = "#define KJ_SCAN_UNIT(v) ((v).x == 1 && (v).y == 0 && !signbit((v).y))\n";
                op = "(KJ_SCAN_UNIT(a) ? b : KJ_SCAN_UNIT(b) ? a : ${op}(a, b))";
            }
        }
        const bool floating = item.kind() == Kind::float32 || item.kind() == Kind::float64;
        std::string neutral;
        if (item.kind() == Kind::complex64)
            neutral = multiply ? "COMPLEX64_CTR(1.0f, 0.0f)" : "COMPLEX64_CTR(-0.0f, -0.0f)";
        else if (item.kind() == Kind::complex128)
            neutral = multiply ? "COMPLEX128_CTR(1.0, 0.0)" : "COMPLEX128_CTR(-0.0, -0.0)";
        else if (floating && !multiply) neutral = fmt::format("({})-0.0", detail::compute_ctype(item));
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
        spec.commutative = true;
        spec.code = detail::scan_code(spec.arguments, preamble, neutral, op, value, store, globals, what);
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

namespace {

// out= as numpy's np.cumsum takes it (ufunc.accumulate casts its result into out unsafely, whatever
// out's dtype, computing in the loop numpy's add / multiply takes for out's dtype): straight into
// out where that is out's dtype, else through a temporary converted into out.
Array cumulative_into(const Queue& queue, const Array& array, std::optional<int> axis,
                      const std::optional<DType>& dtype, const std::optional<Array>& out, bool multiply,
                      const Allocator& allocator) {
    if (!out || array.dtype().is_struct()) return cumulative(queue, array, axis, dtype, out, multiply, allocator);
    const std::optional<DType> acc = dtype ? dtype : detail::accumulation_for_out(array.dtype(), out->dtype());
    if (out->dtype() == (acc ? *acc : accumulate_dtype(array.dtype())))
        return cumulative(queue, array, axis, acc, out, multiply, allocator);
    const Array result = cumulative(queue, array, axis, acc, std::nullopt, multiply, allocator);
    detail::convert_into_out(queue, result, *out, multiply ? "cumprod" : "cumsum");
    return *out;
}

}  // namespace

Array cumsum(const Queue& queue, const Array& array, std::optional<int> axis, const std::optional<DType>& dtype,
             const std::optional<Array>& out, const Allocator& allocator) {
    return cumulative_into(queue, array, axis, dtype, out, false, allocator);
}

Array cumprod(const Queue& queue, const Array& array, std::optional<int> axis, const std::optional<DType>& dtype,
              const std::optional<Array>& out, const Allocator& allocator) {
    return cumulative_into(queue, array, axis, dtype, out, true, allocator);
}

namespace {

/// cumsum_parts (product false) and cumprod_parts (true); `what` names the function in errors.
MultiArray cumulative_parts(const MultiQueue& queue, const MultiArray& array, int axis,
                            const std::optional<DType>& dtype, bool product, const char* what) {
    const auto scan = [product](const Queue& q, const Array& in, int ax, const std::optional<DType>& d,
                                const Array& into) {
        return product ? cumprod(q, in, ax, d, into) : cumsum(q, in, ax, d, into);
    };
    const std::vector<bool> scanned = detail::reduced_axes(std::vector<int>{axis}, array.shape().size(), what, "axis");
    const auto a = static_cast<std::size_t>(std::find(scanned.begin(), scanned.end(), true) - scanned.begin());
    const detail::Partition partition = detail::partition_of(array);
    const auto& devices = array.devices();
    const DType result = dtype ? *dtype : accumulate_dtype(array.dtype());
    if (result.is_struct()) throw ArgumentError("dtype", fmt::format("{}: a struct dtype cannot accumulate", what));
    MultiArray out = MultiArray::empty(devices, array.shape(), result, {}, array.splay());
    if (!partition.split[a]) {
        for (std::size_t k = 0; k < devices.size(); ++k)
            scan(queue[devices[k]], array.parts()[k], axis, dtype, out.parts()[k]);
        return out;
    }
    // Along the split axis: every part scans its own rows, then, in the order of the parts along
    // the axis, combines the carry of those before it: the last position of its predecessor (the part
    // holding the positions just before its first, over the same region of the other axes), which
    // is by then the whole prefix. float16 is scanned and carried in float32, stored at the end.
    const std::size_t parts = devices.size();
    for (const auto& p : partition.parts)
        if (p.step[a] != 1)
            throw UnsupportedError(fmt::format("{}: the splay gives a part a stepped slice of the scanned axis", what));
    const DType acc = result.kind() == Kind::float16 ? DType(Kind::float32) : result;
    std::vector<Array> scans;
    for (std::size_t k = 0; k < parts; ++k)
        scans.push_back(acc == result ? out.parts()[k] : Array::empty(devices[k], array.parts()[k].shape(), acc));
    for (std::size_t k = 0; k < parts; ++k) scan(queue[devices[k]], array.parts()[k], axis, acc, scans[k]);
    const auto same_rows = [&](std::size_t j, std::size_t k) {
        for (std::size_t d = 0; d < array.shape().size(); ++d) {
            if (d == a) continue;
            const auto& pj = partition.parts[j];
            const auto& pk = partition.parts[k];
            if (pj.start[d] != pk.start[d] || pj.step[d] != pk.step[d] || pj.extent[d] != pk.extent[d]) return false;
        }
        return true;
    };
    std::vector<std::size_t> order(parts);
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](std::size_t j, std::size_t k) {
        return partition.parts[j].start[a] < partition.parts[k].start[a];
    });
    std::vector<Array> keep;  // carries, alive until the work reading them is done
    for (const std::size_t k : order) {
        const auto& pk = partition.parts[k];
        const Queue& qk = queue[devices[k]];
        if (pk.start[a] != 0 && pk.extent[a] != 0) {
            std::optional<std::size_t> before;
            for (std::size_t j = 0; j < parts; ++j) {
                const auto& pj = partition.parts[j];
                if (j != k && pj.extent[a] != 0 && pj.start[a] + pj.extent[a] == pk.start[a] && same_rows(j, k))
                    before = j;
            }
            if (!before)
                throw UnsupportedError(fmt::format("{}: no part holds the positions just before part {}'s "
                                                   "(the splay's parts do not tile the scanned axis)",
                                                   what, k));
            const Queue& qj = queue[devices[*before]];
            // The predecessor's last position along the axis, contiguous, copied to this device.
            std::vector<Slice> last(array.shape().size());
            const auto end = static_cast<std::ptrdiff_t>(partition.parts[*before].extent[a]);
            last[a] = Slice{end - 1, end};
            const Array from = scans[*before].slice(last).ascontiguous(qj);
            Array carry = from;
            if (!(qj == qk)) {
                carry = Array::empty(devices[k], from.shape(), acc);
                qk.wait_for(qj.record_event());
                carry.data().set(qk, from.data(), true);
            }
            keep.push_back(from);
            keep.push_back(carry);
            assign(qk, scans[k], product ? Expr(scans[k]) * Expr(carry) : Expr(scans[k]) + Expr(carry));
        }
        if (!(acc == result)) fill(qk, out.parts()[k], Expr(scans[k]));
    }
    // Nothing enqueued may outlive the carries it reads.
    queue.synchronize();
    return out;
}

}  // namespace

MultiArray cumsum_parts(const MultiQueue& queue, const MultiArray& array, int axis, const std::optional<DType>& dtype) {
    return cumulative_parts(queue, array, axis, dtype, false, "cumsum_parts");
}

MultiArray cumprod_parts(const MultiQueue& queue, const MultiArray& array, int axis,
                         const std::optional<DType>& dtype) {
    return cumulative_parts(queue, array, axis, dtype, true, "cumprod_parts");
}

}  // namespace kjarni
