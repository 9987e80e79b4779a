// Array::astype: an element-wise conversion kernel using functions::cast.

#include "kjarni/array.hpp"
#include "kjarni/functions.hpp"
#include "kjarni/program.hpp"
#include "kjarni/template.hpp"

namespace kjarni {

Array Array::astype(const Queue& queue, const DType& dtype, Order order, bool copy_always) const {
    if (dtype == dtype_ && !copy_always) return *this;
    if (dtype == dtype_) return copy(queue, order);
    const Array source = ascontiguous(queue);
    const Array converted = empty(queue.device(), shape(), dtype);
    if (size() != 0) {
        const std::string kernel = R"(
KERNEL void astype(GLOBAL_MEM ${out_t}* out, GLOBAL_MEM const ${in_t}* in, uint64_t in_offset, uint32_t n)
{
    const SIZE_T i = get_global_id(0);
    if (i < n) out[i] = ${convert}(in[in_offset + i]);
}
)";
        const Program program(queue.device(), TemplateSource{std::string(kernel)}, {},
                              {{"out_t", dtype}, {"in_t", dtype_}, {"convert", functions::cast(dtype_, dtype)}});
        if (size() > 0xffffffffu) throw UnsupportedError("astype of more than 2^32 - 1 elements");
        program.kernel("astype")(queue, {(size() + 63) / 64 * 64}, std::nullopt, converted.base(), source.base_,
                                 static_cast<std::uint64_t>(source.offset() / dtype_.itemsize()),
                                 static_cast<std::uint32_t>(size()));
        if (detail::backend_of(source.base_) != detail::backend_of(base_)) queue.synchronize();  // the temporary goes now
    }
    if (order == Order::F && !converted.is_f_contiguous()) {
        const Array f = converted.copy(queue, Order::F);
        queue.synchronize();  // `converted` goes now
        return f;
    }
    return converted;
}

}  // namespace kjarni
