// libFuzzer entry point: struct dtypes built from the input (nested fields, explicit offsets and
// itemsizes, subarray shapes, aligned or packed) and everything kjarni derives from them: name,
// descr, align(), flatten_dtype, c_path, field_at, c_constant of the bytes, and the C rendering of
// ctype_struct (rendered through render_with_modules). kjarni::Error is the expected way to fail;
// any other exception, a crash, a hang or a sanitizer report is a finding.

#include <kjarni/dtype.hpp>
#include <kjarni/error.hpp>
#include <kjarni/template.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace {

/// Reads the input a byte at a time; past its end, zeros.
class Input {
public:
    Input(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}
    std::uint8_t byte() { return at_ < size_ ? data_[at_++] : 0; }
    bool done() const { return at_ >= size_; }

private:
    const std::uint8_t* data_;
    std::size_t size_;
    std::size_t at_ = 0;
};

kjarni::DType scalar(Input& in) {
    const auto& scalars = kjarni::dtypes::all_scalars();
    return scalars[in.byte() % scalars.size()];
}

kjarni::DType make_dtype(Input& in, int depth) {
    const std::uint8_t shape_byte = in.byte();
    if (depth >= 3 || (shape_byte & 3) != 0) return scalar(in);
    std::vector<kjarni::FieldSpec> fields;
    const std::size_t count = in.byte() % 5;
    for (std::size_t i = 0; i < count; ++i) {
        const std::uint8_t flags = in.byte();
        // Names: mostly distinct and valid, sometimes repeated, empty or not identifiers.
        std::string name = "f" + std::to_string(in.byte() % 8);
        if ((flags & 0x40) != 0) name = (flags & 0x80) != 0 ? "" : "bad name";
        const kjarni::DType field = make_dtype(in, depth + 1);
        std::vector<std::size_t> shape;
        if ((flags & 1) != 0) shape.push_back(in.byte() % 4);
        if ((flags & 2) != 0) shape.push_back(in.byte() % 3 + 1);
        if ((flags & 4) != 0) {
            fields.emplace_back(name, field, kjarni::Offset{static_cast<std::size_t>(in.byte()) * (flags & 8 ? 8 : 1)},
                                shape);
        } else {
            fields.emplace_back(name, field, shape);
        }
    }
    kjarni::StructOptions options;
    const std::uint8_t option_byte = in.byte();
    options.aligned = (option_byte & 1) != 0;
    if ((option_byte & 2) != 0) options.itemsize = in.byte();
    return kjarni::DType::struct_(fields, options);
}

void exercise(const kjarni::DType& dtype, Input& in) {
    (void)dtype.name();
    (void)dtype.descr();
    (void)kjarni::align(dtype);
    for (const auto& [path, leaf] : kjarni::flatten_dtype(dtype)) {
        (void)kjarni::c_path(path);
        const auto [offset, found] = kjarni::field_at(dtype, path);
        if (offset + found.itemsize() > dtype.itemsize()) __builtin_trap();  // a field outside its struct
    }
    // A value of the dtype from the input's bytes (floats may be NaN or infinite: an Error then).
    std::vector<std::byte> element(dtype.itemsize());
    for (auto& b : element) b = static_cast<std::byte>(in.byte());
    try {
        (void)kjarni::c_constant(element, dtype);
    } catch (const kjarni::Error&) {
    }
    if (dtype.kind() == kjarni::DType::Kind::struct_) {
        const bool ignore_alignment = (in.byte() & 1) != 0;
        const kjarni::Module module = kjarni::ctype_struct(dtype, ignore_alignment);
        (void)kjarni::render_with_modules(std::string("${t} x;"), {}, {{"t", module}});
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    Input in(data, size);
    try {
        const kjarni::DType dtype = make_dtype(in, 0);
        exercise(dtype, in);
    } catch (const kjarni::Error&) {
        // Expected: a bad struct (overlapping or repeated fields, an itemsize too small...).
    }
    return 0;
}
