// DType: scalar kinds, struct layouts, promotion rules.

#include "kjarni/dtype.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

#include "dtype/dtype_impl.hpp"
#include "dtype/numpy_promotion.hpp"
#include "kjarni/error.hpp"

namespace kjarni {

namespace {

using Kind = DType::Kind;

std::size_t scalar_size(Kind kind) noexcept {
    switch (kind) {
    case Kind::bool_:
    case Kind::int8:
    case Kind::uint8: return 1;
    case Kind::int16:
    case Kind::uint16:
    case Kind::float16: return 2;
    case Kind::int32:
    case Kind::uint32:
    case Kind::float32: return 4;
    case Kind::int64:
    case Kind::uint64:
    case Kind::float64:
    case Kind::complex64: return 8;
    case Kind::complex128: return 16;
    case Kind::struct_: return 0;
    }
    return 0;
}

std::size_t round_up(std::size_t value, std::size_t alignment) {
    return (value + alignment - 1) / alignment * alignment;
}

std::size_t low_bit(std::size_t value) { return value & (~value + 1); }

std::string shape_suffix(const std::vector<std::size_t>& shape) {
    std::string s;
    for (auto n : shape) s += fmt::format("[{}]", n);
    return s;
}

}  // namespace

namespace {

// The alignment a C compiler gives a field of `dtype` as ctype_struct() declares it: a scalar's own;
// a struct's is that of its declaration (its fields' and its ALIGN()'s), also where numpy calls the
// struct unaligned (alignment 1) because it lacks the aligned flag.
std::size_t c_alignment(const DType& dtype) {
    if (!dtype.is_struct()) return dtype.alignment();
    const auto& data = *dtype.struct_data();
    const auto layout = detail::c_layout(data.fields, data.itemsize);
    return layout.error.empty() ? layout.alignment : dtype.alignment();
}

}  // namespace

detail::CLayout detail::c_layout(const std::vector<Field>& fields, std::size_t itemsize) {
    CLayout out;
    std::size_t pos = 0;
    std::size_t max_alignment = 1;
    for (const auto& f : fields) {
        const std::size_t natural = c_alignment(f.dtype());
        std::size_t a = natural;
        std::size_t attribute = 0;
        if (round_up(pos, natural) != f.offset) {
            // The smallest alignment that puts the field there (grunnur's choice: a larger one
            // would place it too, but give the struct a larger alignment than it needs).
            a = 0;
            for (std::size_t c = natural * 2; f.offset != 0 && f.offset % c == 0; c *= 2) {
                if (round_up(pos, c) == f.offset) {
                    a = c;
                    break;
                }
            }
            if (a == 0) {
                out.error = fmt::format("field '{}' at offset {} cannot be placed there by alignment attributes "
                                        "(the previous field ends at {})",
                                        f.name, f.offset, pos);
                return out;
            }
            attribute = a;
        }
        out.field_alignments.push_back(attribute);
        max_alignment = std::max(max_alignment, a);
        pos = f.offset + f.size();
    }
    out.alignment = max_alignment;
    if (round_up(pos, max_alignment) != itemsize) {
        const std::size_t a = itemsize == 0 ? 0 : low_bit(itemsize);
        if (a <= max_alignment || round_up(pos, a) != itemsize) {
            out.error = fmt::format("itemsize {} cannot be produced by alignment attributes (the last field ends "
                                    "at {}, alignment {})",
                                    itemsize, pos, max_alignment);
            return out;
        }
        out.struct_alignment = a;
        out.alignment = a;
    }
    return out;
}

std::size_t Field::count() const {
    std::size_t n = 1;
    for (auto e : shape) n *= e;
    return n;
}

std::size_t Field::size() const { return count() * dtype().itemsize(); }

FieldSpec::FieldSpec(std::string name_, const DType& dtype, std::vector<std::size_t> shape_)
    : name(std::move(name_)), dtype_ptr(std::make_shared<const DType>(dtype)), shape(std::move(shape_)) {}

FieldSpec::FieldSpec(std::string name_, const DType& dtype, Offset offset_, std::vector<std::size_t> shape_)
    : name(std::move(name_)), dtype_ptr(std::make_shared<const DType>(dtype)),
      offset(static_cast<std::size_t>(offset_)), shape(std::move(shape_)) {}

DType DType::struct_(const std::vector<FieldSpec>& specs, const StructOptions& options) {
    if (specs.empty()) throw ArgumentError("fields", "a struct dtype needs at least one field");
    auto data = std::make_shared<detail::StructData>();
    data->aligned = options.aligned;
    std::set<std::string> names;
    std::size_t end = 0;
    std::size_t alignment = 1;
    for (const auto& spec : specs) {
        if (spec.name.empty()) throw ArgumentError("fields", "a field needs a name");
        if (!names.insert(spec.name).second) throw ArgumentError("fields", "duplicate field name '" + spec.name + "'");
        for (auto e : spec.shape) {
            if (e == 0) throw ArgumentError("fields", "field '" + spec.name + "' has an empty array shape");
        }
        Field field{spec.name, spec.dtype_ptr, 0, spec.shape};
        const std::size_t field_alignment = options.aligned ? field.dtype().alignment() : 1;
        field.offset = spec.offset ? *spec.offset : round_up(end, field_alignment);
        end = std::max(end, field.offset + field.size());
        alignment = std::max(alignment, field_alignment);
        data->fields.push_back(std::move(field));
    }
    std::stable_sort(data->fields.begin(), data->fields.end(),
                     [](const Field& a, const Field& b) { return a.offset < b.offset; });
    for (std::size_t i = 1; i < data->fields.size(); ++i) {
        const auto& prev = data->fields[i - 1];
        if (prev.offset + prev.size() > data->fields[i].offset) {
            throw ArgumentError("fields", fmt::format("fields '{}' and '{}' overlap", prev.name, data->fields[i].name));
        }
    }
    if (options.itemsize) {
        if (*options.itemsize < end)
            throw ArgumentError("itemsize",
                                fmt::format("{} is less than the end of the last field ({})", *options.itemsize, end));
        data->itemsize = *options.itemsize;
    } else {
        data->itemsize = options.aligned ? round_up(end, alignment) : end;
    }
    // An aligned struct whose explicit offsets or itemsize need alignment attributes: the alignment
    // the C struct ctype_struct() writes has.
    if (options.aligned) {
        const auto layout = detail::c_layout(data->fields, data->itemsize);
        if (layout.error.empty()) alignment = layout.alignment;
    }
    data->alignment = options.aligned ? alignment : 1;
    std::string descr = options.aligned ? "{aligned " : "{";
    for (const auto& f : data->fields) {
        descr += fmt::format("{}:{}{}@{},", f.name, f.dtype().descr(), shape_suffix(f.shape), f.offset);
    }
    descr += fmt::format(" itemsize {}}}", data->itemsize);
    data->descr = std::move(descr);
    return DType(std::shared_ptr<const detail::StructData>(std::move(data)));
}

std::size_t DType::itemsize() const noexcept { return is_struct() ? data_->itemsize : scalar_size(kind_); }

std::size_t DType::alignment() const noexcept { return is_struct() ? data_->alignment : scalar_size(kind_); }

const std::vector<Field>& DType::fields() const noexcept {
    static const std::vector<Field> none;
    return is_struct() ? data_->fields : none;
}

bool DType::is_aligned_struct() const noexcept { return is_struct() && data_->aligned; }

std::string DType::name() const {
    switch (kind_) {
    case Kind::bool_: return "bool";
    case Kind::int8: return "int8";
    case Kind::uint8: return "uint8";
    case Kind::int16: return "int16";
    case Kind::uint16: return "uint16";
    case Kind::int32: return "int32";
    case Kind::uint32: return "uint32";
    case Kind::int64: return "int64";
    case Kind::uint64: return "uint64";
    case Kind::float16: return "float16";
    case Kind::float32: return "float32";
    case Kind::float64: return "float64";
    case Kind::complex64: return "complex64";
    case Kind::complex128: return "complex128";
    case Kind::struct_: return data_->descr;
    }
    return "?";
}

std::string DType::descr() const { return name(); }

bool operator==(const DType& a, const DType& b) noexcept {
    if (a.kind_ != b.kind_) return false;
    if (!a.is_struct()) return true;
    return a.data_ == b.data_ || a.data_->descr == b.data_->descr;
}

const std::vector<DType>& dtypes::all_scalars() {
    static const std::vector<DType> all{bool_, int8,   uint8,   int16,   uint16,  int32,     uint32,
                                        int64, uint64, float16, float32, float64, complex64, complex128};
    return all;
}

DType align(const DType& dtype) {
    if (!dtype.is_struct()) return dtype;
    std::vector<FieldSpec> specs;
    for (const auto& f : dtype.fields()) specs.emplace_back(f.name, align(f.dtype()), f.shape);
    return DType::struct_(specs, StructOptions{true, std::nullopt});
}

// --- Struct helpers ---

namespace {
void flatten_into(const DType& dtype, FieldPath& path, std::vector<std::pair<FieldPath, DType>>& out) {
    if (!dtype.is_struct()) {
        out.emplace_back(path, dtype);
        return;
    }
    for (const auto& f : dtype.fields()) {
        path.emplace_back(f.name);
        if (f.shape.empty()) {
            flatten_into(f.dtype(), path, out);
        } else {
            std::vector<std::size_t> index(f.shape.size(), 0);
            for (std::size_t n = 0; n < f.count(); ++n) {
                for (auto i : index) path.emplace_back(i);
                flatten_into(f.dtype(), path, out);
                path.resize(path.size() - index.size());
                for (std::size_t d = index.size(); d-- > 0;) {
                    if (++index[d] < f.shape[d]) break;
                    index[d] = 0;
                }
            }
        }
        path.pop_back();
    }
}
}  // namespace

std::vector<std::pair<FieldPath, DType>> flatten_dtype(const DType& dtype) {
    std::vector<std::pair<FieldPath, DType>> out;
    FieldPath path;
    flatten_into(dtype, path, out);
    return out;
}

std::string c_path(const FieldPath& path) {
    std::string s;
    for (const auto& p : path) {
        if (const auto* name = std::get_if<std::string>(&p)) {
            if (!s.empty()) s += '.';
            s += *name;
        } else {
            s += fmt::format("[{}]", std::get<std::size_t>(p));
        }
    }
    return s;
}

std::pair<std::size_t, DType> field_at(const DType& dtype, const FieldPath& path) {
    std::size_t offset = 0;
    DType current = dtype;
    std::size_t i = 0;
    while (i < path.size()) {
        const auto* name = std::get_if<std::string>(&path[i]);
        if (name == nullptr || !current.is_struct())
            throw ArgumentError("path", fmt::format("'{}' does not name a field at position {}", c_path(path), i));
        const auto& fields = current.fields();
        auto it = std::find_if(fields.begin(), fields.end(), [&](const Field& f) { return f.name == *name; });
        if (it == fields.end()) throw ArgumentError("path", fmt::format("no field '{}' in {}", *name, current.name()));
        offset += it->offset;
        ++i;
        std::size_t stride = it->size();
        for (std::size_t d = 0; d < it->shape.size() && i < path.size(); ++d) {
            const auto* index = std::get_if<std::size_t>(&path[i]);
            if (index == nullptr) break;
            if (*index >= it->shape[d])
                throw ArgumentError("path", fmt::format("index {} out of range for field '{}'", *index, it->name));
            stride /= it->shape[d];
            offset += *index * stride;
            ++i;
        }
        current = it->dtype();
    }
    return {offset, current};
}

// --- Checks ---

bool is_complex(const DType& d) noexcept { return d.kind() == Kind::complex64 || d.kind() == Kind::complex128; }
bool is_double(const DType& d) noexcept { return d.kind() == Kind::float64 || d.kind() == Kind::complex128; }
bool is_integer(const DType& d) noexcept { return d.kind() >= Kind::int8 && d.kind() <= Kind::uint64; }
bool is_real(const DType& d) noexcept {
    return d.kind() == Kind::float16 || d.kind() == Kind::float32 || d.kind() == Kind::float64;
}
bool is_signed(const DType& d) noexcept {
    switch (d.kind()) {
    case Kind::int8:
    case Kind::int16:
    case Kind::int32:
    case Kind::int64: return true;
    default: return is_real(d) || is_complex(d);
    }
}

DType complex_for(const DType& d) {
    switch (d.kind()) {
    case Kind::float16:
    case Kind::float32:
    case Kind::complex64: return dtypes::complex64;
    case Kind::float64:
    case Kind::complex128: return dtypes::complex128;
    default: throw ArgumentError("dtype", "complex_for: " + d.name() + " is not a floating point type");
    }
}

DType real_for(const DType& d) {
    switch (d.kind()) {
    case Kind::complex64: return dtypes::float32;
    case Kind::complex128: return dtypes::float64;
    case Kind::float16:
    case Kind::float32:
    case Kind::float64: return d;
    default: throw ArgumentError("dtype", "real_for: " + d.name() + " is not a floating point type");
    }
}

// --- Promotion ---

namespace {

DType gpu_rule(const DType& d) {
    if (is_integer(d) && d.itemsize() < 4) return is_signed(d) ? DType(dtypes::int32) : DType(dtypes::uint32);
    if (d.kind() == Kind::float16) return dtypes::float32;
    return d;
}

}  // namespace

DType result_type(std::span<const DType> dtypes_) {
    // numpy's algorithm for several dtypes, not a left fold of the pairwise table (see
    // numpy_promotion.hpp): int8, uint16, float32 is float32.
    return gpu_rule(detail::numpy_result_type(dtypes_));
}

DType result_type(std::initializer_list<DType> dtypes_) {
    return result_type(std::span<const DType>(dtypes_.begin(), dtypes_.size()));
}

DType min_scalar_type(std::int64_t value, bool force_signed) {
    if (value >= 0) return min_scalar_type(static_cast<std::uint64_t>(value), force_signed);
    return value >= std::numeric_limits<std::int32_t>::min() ? DType(dtypes::int32) : DType(dtypes::int64);
}

DType min_scalar_type(std::uint64_t value, bool force_signed) {
    if (force_signed) {
        return value <= static_cast<std::uint64_t>(std::numeric_limits<std::int32_t>::max()) ? DType(dtypes::int32)
                                                                                             : DType(dtypes::int64);
    }
    return value <= std::numeric_limits<std::uint32_t>::max() ? DType(dtypes::uint32) : DType(dtypes::uint64);
}

namespace {

// numpy's test for float32 (its min_scalar_type): strictly inside +-3.4e38, not float32's largest
// (3.4028235e38), so that 3.4e38 itself is float64 there and here.
bool inside_float32_range(double value) { return value > -3.4e38 && value < 3.4e38; }

}  // namespace

DType min_scalar_type(double value, bool) {
    // A non-finite real is float16 in numpy (float32 here); a complex with a non-finite part is not.
    return !std::isfinite(value) || inside_float32_range(value) ? DType(dtypes::float32) : DType(dtypes::float64);
}

DType min_scalar_type(std::complex<double> value, bool) {
    const bool small = inside_float32_range(value.real()) && inside_float32_range(value.imag());
    return small ? DType(dtypes::complex64) : DType(dtypes::complex128);
}

}  // namespace kjarni
