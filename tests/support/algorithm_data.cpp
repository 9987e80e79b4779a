#include "support/algorithm_data.hpp"

#include <random>

#include "support/random_data.hpp"

namespace kjarni::test {

HostArray random_host_array(const DType& dtype, std::vector<std::size_t> shape, double range) {
    HostArray out(dtype, std::move(shape));
    const std::size_t itemsize = dtype.itemsize();
    std::uniform_real_distribution<double> real(-range, range);
    std::uniform_int_distribution<std::int64_t> integer(std::numeric_limits<std::int64_t>::min(),
                                                        std::numeric_limits<std::int64_t>::max());
    for (std::size_t k = 0; k < out.size(); ++k) {
        detail::ScalarValue v;
        if (is_integer(dtype) || dtype.kind() == DType::Kind::bool_) {
            v.kind = detail::ScalarValue::Kind::signed_integer;
            v.i = integer(random_engine());
            if (dtype.kind() == DType::Kind::bool_) v.i &= 1;
        } else {
            v.kind = detail::ScalarValue::Kind::floating;
            v.c = {real(random_engine()), is_complex(dtype) ? real(random_engine()) : 0.0};
        }
        const auto bytes = v.write(dtype);
        std::memcpy(out.data() + k * itemsize, bytes.data(), itemsize);
    }
    return out;
}

detail::ScalarValue broadcast_element(const HostArray& array, const std::vector<std::size_t>& shape, std::size_t flat) {
    std::vector<std::size_t> index(array.ndim());
    for (std::size_t d = shape.size(); d-- > 0;) {
        const std::size_t i = flat % shape[d];
        flat /= shape[d];
        const std::size_t lead = shape.size() - array.ndim();
        if (d >= lead) index[d - lead] = array.shape()[d - lead] == 1 ? 0 : i;
    }
    const std::byte* element = array.data();
    for (std::size_t d = 0; d < index.size(); ++d)
        element += static_cast<std::ptrdiff_t>(index[d]) * array.strides()[d];
    return detail::ScalarValue::read(std::span<const std::byte>(element, array.dtype().itemsize()), array.dtype());
}

ViewCase random_view(const Queue& queue, const DType& dtype, const std::string& kind, std::size_t rows,
                     std::size_t columns) {
    using S = Slice;
    if (kind == "contiguous") {
        HostArray h = random_host_array(dtype, {rows, columns});
        return {Array::from_host(queue, h), h};
    }
    if (kind == "stepped") {
        HostArray h = random_host_array(dtype, {rows, 2 * columns});
        const Array full = Array::from_host(queue, h);
        return {full[{S{}, S{std::nullopt, std::nullopt, 2}}], h[{S{}, S{std::nullopt, std::nullopt, 2}}].copy()};
    }
    if (kind == "negative") {
        HostArray h = random_host_array(dtype, {rows, columns});
        const Array full = Array::from_host(queue, h);
        const S reverse{std::nullopt, std::nullopt, -1};
        return {full[{reverse, reverse}], h[{reverse, reverse}].copy()};
    }
    if (kind == "transposed") {
        HostArray h = random_host_array(dtype, {columns, rows});
        const Array full = Array::from_host(queue, h);
        return {full.transpose(), h.transpose().copy()};
    }
    if (kind == "offset") {
        HostArray h = random_host_array(dtype, {rows * columns + 1});
        const Array full = Array::from_host(queue, h);
        const S tail{1, std::nullopt};
        return {full[{tail}].reshape({static_cast<std::ptrdiff_t>(rows), static_cast<std::ptrdiff_t>(columns)}),
                h[{tail}].copy().reshape({static_cast<std::ptrdiff_t>(rows), static_cast<std::ptrdiff_t>(columns)})};
    }
    throw std::invalid_argument("no view kind " + kind);
}

Array foreign_array_at(const BoundDevice& device, const DType& dtype, std::size_t n, std::size_t skip) {
    const Buffer whole = Buffer::allocate(device, n * dtype.itemsize() + skip);
    const Buffer foreign = Buffer::from_backend_buffer(device, whole.native_handle() + skip, n * dtype.itemsize(),
                                                       false, std::make_shared<Buffer>(whole));
    return Array::from_buffer(foreign, dtype, Layout::contiguous({n}, dtype.itemsize()));
}

}  // namespace kjarni::test
