#pragma once
/// Data types of array elements and kernel values (grunnur.dtypes; numpy's
/// dtype as far as GPUs need it).
///
/// A DType is a value: cheap to copy (a kind and, for structs, a shared immutable description) and
/// compared structurally. The scalar types are the constants in kjarni::dtypes; C++ types map to them
/// with `DType::of<T>()`. Struct types have named fields at explicit byte offsets; a field may be a
/// scalar, a nested struct, or a fixed-size (possibly multi-dimensional) array of either.
///
/// Struct layouts follow numpy's conventions:
///   - DType::struct_(fields) without offsets packs the fields one after another (numpy's default,
///     no padding, alignment 1, not an "aligned struct");
///   - with StructOptions::aligned and no offsets the layout is what a C compiler chooses
///     (numpy's align=True);
///   - explicit offsets (and an explicit itemsize) are taken as given. An aligned struct with
///     explicit offsets must be reproducible in C with alignment attributes only (ctype_struct()
///     checks it), e.g. a float at offset 16 after a float at 0 is ALIGN(16).
///   - align(dtype) recomputes the C layout, ignoring given offsets and itemsizes.
///
/// Type promotion (result_type, min_scalar_type) follows numpy's rules for dtypes (NEP 50: no
/// value-based casting) and then applies the GPU rule of grunnur: integers narrower than 32 bits
/// become int32 / uint32 and float16 becomes float32 (what C's integer promotion and the GPUs'
/// arithmetic do anyway). No 128-bit types ever result: int64 + uint64 gives float64, as in numpy.
/// bool op bool stays bool. \file

#include <complex>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

// Value and Module are only declared: dtype.hpp is included nearly everywhere, and the template
// language is not. Include kjarni/template.hpp to use ctype(), ctype_struct() or a DType as a Value.
#include "kjarni/template_fwd.hpp"

namespace kjarni {

/// Storage of an IEEE half-precision number (no arithmetic on the host): the C++ side of float16.
struct float16_t {
    std::uint16_t bits = 0;
    friend bool operator==(float16_t, float16_t) = default;
};

class DType;

namespace detail {
struct StructData;
}

/// A field of a struct type. `shape` non-empty makes it a fixed-size array of `dtype`
/// (C: `dtype name[shape[0]][shape[1]]...`). `offset` is in bytes from the start of the struct.
struct Field {
    std::string name;
    std::shared_ptr<const DType> dtype_ptr;  // (a DType cannot hold itself by value)
    std::size_t offset = 0;
    std::vector<std::size_t> shape;

    const DType& dtype() const { return *dtype_ptr; }
    /// Elements in the array (1 for a scalar field).
    std::size_t count() const;
    /// Bytes the field occupies.
    std::size_t size() const;
};

/// An explicit field offset in bytes: `{"b", dtypes::int32, Offset{16}}`.
enum class Offset : std::size_t {};

/// What DType::struct_ takes for a field: an offset only when explicit; `{"c", dtypes::int16, {3}}`
/// is an array field of 3 elements.
struct FieldSpec {
    std::string name;
    std::shared_ptr<const DType> dtype_ptr;
    std::optional<std::size_t> offset;
    std::vector<std::size_t> shape;

    FieldSpec(std::string name, const DType& dtype, std::vector<std::size_t> shape = {});
    FieldSpec(std::string name, const DType& dtype, Offset offset, std::vector<std::size_t> shape = {});
};

/// How a struct dtype is laid out: aligned as C lays it out, and an explicit itemsize.
struct StructOptions {
    /// C layout (numpy's align=True): offsets computed by the C rules when not given, itemsize
    /// rounded up to the alignment, and the struct is an "aligned struct" for ctype_struct().
    bool aligned = false;
    /// Explicit itemsize (at least the end of the last field).
    std::optional<std::size_t> itemsize = std::nullopt;
};

/// A data type as numpy describes one: a scalar kind (bool, integers, floats, complex) or a struct of
/// named fields with offsets, with its size and alignment and the C type kernels spell it with.
class DType {
public:
    enum class Kind : std::uint8_t {
        bool_,
        int8,
        uint8,
        int16,
        uint16,
        int32,
        uint32,
        int64,
        uint64,
        float16,
        float32,
        float64,
        complex64,
        complex128,
        struct_
    };

    /// float32 (numpy's default would be float64; the GPU default is float32).
    constexpr DType() noexcept = default;
    constexpr DType(Kind kind) noexcept : kind_(kind) {}  // NOLINT: scalar kinds convert implicitly

    /// The DType of a C++ type: bool, int8_t ... uint64_t (and the other integer types of those
    /// sizes), float16_t, float, double, std::complex<float>, std::complex<double>.
    template <class T>
    static DType of();

    /// A struct type; see the layout rules at the top of this file. ArgumentError on duplicate or
    /// empty names, overlapping fields, an itemsize too small, or no fields.
    static DType struct_(const std::vector<FieldSpec>& fields, const StructOptions& options = {});

    Kind kind() const noexcept { return kind_; }
    bool is_struct() const noexcept { return kind_ == Kind::struct_; }
    std::size_t itemsize() const noexcept;
    /// Alignment in bytes: the itemsize for scalars (8 for complex64, 16 for complex128); for an
    /// aligned struct the largest alignment it needs (that of its fields, or more where explicit
    /// offsets or the itemsize ask for it); 1 for a packed struct.
    std::size_t alignment() const noexcept;
    /// Struct: its fields in order of offset; empty for scalars.
    const std::vector<Field>& fields() const noexcept;
    /// Struct: whether it is an aligned struct (numpy's isalignedstruct).
    bool is_aligned_struct() const noexcept;
    /// numpy's name: "bool", "int8", ..., "float32", "complex64"; a struct gives its description.
    std::string name() const;
    /// A canonical description (numpy's descr in spirit); equal for equal types.
    std::string descr() const;

    friend bool operator==(const DType& a, const DType& b) noexcept;

    /// As a template value: `${dtype}` renders its C type (for a struct, the prefix of its
    /// ctype_struct module, rendered once per program); attributes `itemsize`, `alignment`,
    /// `name`, `ctype` (same as `${dtype}`), `is_complex`, `is_real`, `is_integer`, `is_double`,
    /// `is_struct`, `is_signed`, `fields` (a dict of name to dtype), `offsets` (name to offset),
    /// `complex_ctr`, `real` (real_for) and `complex` (complex_for).
    /// (Needs kjarni/template.hpp, where Value is defined.)
    operator Value() const;  // NOLINT: implicit on purpose, for render globals

    explicit DType(std::shared_ptr<const detail::StructData> data) noexcept
        : kind_(Kind::struct_), data_(std::move(data)) {}
    const std::shared_ptr<const detail::StructData>& struct_data() const noexcept { return data_; }

private:
    Kind kind_ = Kind::float32;
    std::shared_ptr<const detail::StructData> data_;
};

namespace dtypes {
inline constexpr DType::Kind bool_ = DType::Kind::bool_;
inline constexpr DType::Kind int8 = DType::Kind::int8;
inline constexpr DType::Kind uint8 = DType::Kind::uint8;
inline constexpr DType::Kind int16 = DType::Kind::int16;
inline constexpr DType::Kind uint16 = DType::Kind::uint16;
inline constexpr DType::Kind int32 = DType::Kind::int32;
inline constexpr DType::Kind uint32 = DType::Kind::uint32;
inline constexpr DType::Kind int64 = DType::Kind::int64;
inline constexpr DType::Kind uint64 = DType::Kind::uint64;
inline constexpr DType::Kind float16 = DType::Kind::float16;
inline constexpr DType::Kind float32 = DType::Kind::float32;
inline constexpr DType::Kind float64 = DType::Kind::float64;
inline constexpr DType::Kind complex64 = DType::Kind::complex64;
inline constexpr DType::Kind complex128 = DType::Kind::complex128;

/// Every scalar type, in the order above.
const std::vector<DType>& all_scalars();
}  // namespace dtypes

template <class T>
DType DType::of() {
    using U = std::remove_cv_t<T>;
    if constexpr (std::is_same_v<U, bool>) return Kind::bool_;
    else if constexpr (std::is_same_v<U, float16_t>) return Kind::float16;
    else if constexpr (std::is_same_v<U, float>) return Kind::float32;
    else if constexpr (std::is_same_v<U, double>) return Kind::float64;
    else if constexpr (std::is_same_v<U, std::complex<float>>) return Kind::complex64;
    else if constexpr (std::is_same_v<U, std::complex<double>>) return Kind::complex128;
    else if constexpr (std::is_integral_v<U> && sizeof(U) <= 8) {
        constexpr bool s = std::is_signed_v<U>;
        if constexpr (sizeof(U) == 1) return s ? Kind::int8 : Kind::uint8;
        else if constexpr (sizeof(U) == 2) return s ? Kind::int16 : Kind::uint16;
        else if constexpr (sizeof(U) == 4) return s ? Kind::int32 : Kind::uint32;
        else return s ? Kind::int64 : Kind::uint64;
    } else {
        static_assert(sizeof(U) == 0, "DType::of: no dtype for this C++ type");
    }
}

// --- C interop ---

/// The C type of a dtype as a template global: a string for scalars ("int32_t", "float",
/// "complex64_t", "half", "bool"), the ctype_struct() Module for structs. (Needs
/// kjarni/template.hpp, as ctype_struct() does.)
Value ctype(const DType& dtype);

/// The Module with `typedef struct ${prefix}_ {...} ${prefix};` for a struct dtype, in grunnur's
/// text (the scalar types named as ctype() names them). Field alignments (ALIGN(n) before the
/// declarator) and the struct's alignment (ALIGN(n) before its tag) are added where the offsets or
/// the itemsize need them, whether or not the dtype is an aligned struct (numpy's
/// isalignedstruct); ArgumentError if its offsets cannot be produced that way. With
/// ignore_alignment no attributes are written (the compiler's offsets may
/// then differ from the dtype's). One Module per equal (dtype, ignore_alignment), cached for the
/// process, so a type renders with one prefix everywhere in a program.
Module ctype_struct(const DType& dtype, bool ignore_alignment = false);

/// pygpu's register_dtype: gives a struct dtype a C name of the user's. From then on the struct's
/// module (ctype_struct, and `${dtype}` in templates) declares `typedef struct {...} c_name;`, so
/// kernel code may write `c_name` itself; `${dtype}` still renders the module's prefix, which the
/// module makes a typedef of `c_name`. Registration is process-wide and keyed by the dtype's layout
/// (equal dtypes share it). Registering the same pair again does nothing. ArgumentError (naming
/// `c_name` or `dtype`) when the dtype is not a struct, the name is not a C identifier or is one the
/// kernel languages or the prelude reserve (a keyword, a built-in type, a name starting with two
/// underscores or an underscore and a capital), the name belongs to another dtype, or the dtype
/// already has another name. Register before the first program renders the dtype with a prefix of
/// its own (a module made earlier keeps its name).
void register_dtype(const DType& dtype, const std::string& c_name);
/// The C name registered for a dtype, if any.
std::optional<std::string> registered_dtype_name(const DType& dtype);

/// The complex constructor macro: "COMPLEX64_CTR" / "COMPLEX128_CTR"; ArgumentError otherwise.
std::string complex_ctr(const DType& dtype);

/// A C constant of `dtype` from the bytes of one element (a struct gives `{ a, b, {...} }`, usable
/// as an initializer). Integers get the suffixes u / l / ul for uint32 / int64 / uint64; float32
/// gets `f`; complex types use the constructor macros; non-finite floats are an ArgumentError.
std::string c_constant(std::span<const std::byte> element, const DType& dtype);
/// A number of the given dtype (converted as static_cast would).
std::string c_constant(std::int64_t value, const DType& dtype);
std::string c_constant(std::uint64_t value, const DType& dtype);
std::string c_constant(double value, const DType& dtype);
std::string c_constant(std::complex<double> value, const DType& dtype);
/// A C++ value, of DType::of<T>().
template <class T>
    requires std::is_trivially_copyable_v<T>
std::string c_constant(const T& value) {
    return c_constant(std::as_bytes(std::span(&value, 1)), DType::of<T>());
}
/// An array as a C initialiser (grunnur's c_constant of a numpy array): `data` holds the elements
/// of `dtype` in C order (last index fastest), `shape` their extents. Each dimension is one pair of
/// braces, its items separated by ", " (`{{1, 2}, {3, 4}}` for a 2x2 array), each element as the
/// one-element c_constant writes it (numbers, complex constructors, structs in braces). A dimension
/// of extent 0 gives `{}`; an empty shape gives the one element itself, as a scalar. ArgumentError
/// (naming `data`) unless data holds exactly the product of the extents times the itemsize.
std::string c_constant(std::span<const std::byte> data, const DType& dtype, std::span<const std::size_t> shape);
/// The same for C++ values of DType::of<T>().
template <class T>
    requires std::is_trivially_copyable_v<T>
std::string c_constant(std::span<const T> values, std::span<const std::size_t> shape) {
    return c_constant(std::as_bytes(values), DType::of<T>(), shape);
}

/// A struct with the offsets a C compiler uses without attributes (recursively for nested structs),
/// ignoring given offsets and itemsizes; the result is an aligned struct. Scalars are returned as
/// they are.
DType align(const DType& dtype);

// --- Struct helpers ---

/// A path to a basic element of a struct: field names and array indices.
using FieldPath = std::vector<std::variant<std::string, std::size_t>>;

/// Every basic (scalar) element of a possibly nested dtype with its path, in memory order; arrays
/// are expanded element by element (C order). A scalar dtype gives one entry with an empty path.
std::vector<std::pair<FieldPath, DType>> flatten_dtype(const DType& dtype);
/// The C expression for a path: `a.b[2].c` (an empty path gives "").
std::string c_path(const FieldPath& path);
/// Byte offset of the element at `path` inside `dtype`, and its dtype; ArgumentError if the path
/// does not lead anywhere (a path may stop at a struct or at a whole array field: then the dtype
/// is that of the struct / of the array's element).
std::pair<std::size_t, DType> field_at(const DType& dtype, const FieldPath& path);

// --- Checks and conversions ---

bool is_complex(const DType& dtype) noexcept;
/// float64 or complex128.
bool is_double(const DType& dtype) noexcept;
/// Signed or unsigned integers (not bool).
bool is_integer(const DType& dtype) noexcept;
/// Real floating point (float16/32/64).
bool is_real(const DType& dtype) noexcept;
bool is_signed(const DType& dtype) noexcept;

/// numpy.result_type of the dtypes, then the GPU rule (see the top of the file). Of three or more,
/// numpy's own algorithm, which is not a left fold of the pairwise rule: int8, uint16, float32 gives
/// float32 (numpy's), where promoting int8 with uint16 first would give int32, then float64.
/// ArgumentError for structs or no dtypes.
DType result_type(std::span<const DType> dtypes);
DType result_type(std::initializer_list<DType> dtypes);

/// pygpu's dtype_to_typecode: libgpuarray's type code of a scalar dtype (numpy's type numbers on
/// Linux x86-64: bool 0, int8 1, uint8 2, int16 3, uint16 4, int32 5, uint32 6, int64 7, uint64 8,
/// float32 11, float64 12, complex64 14, complex128 15, float16 23). ArgumentError for a struct
/// (pygpu's register_dtype gives those codes of its own from 512 on; kjarni names them with
/// register_dtype and has no number for them).
int dtype_to_typecode(const DType& dtype);
/// The dtype of a typecode (the inverse); ArgumentError naming "typecode" for another number.
DType typecode_to_dtype(int typecode);
/// The smallest type holding the value (numpy.min_scalar_type), then the GPU rule: an integer
/// gives uint32 / uint64 for non-negative values (int32 / int64 with force_signed or when
/// negative), a float float32 if it lies strictly inside numpy's +-3.4e38 or is not finite
/// (precision is not considered, as in numpy), else float64; a complex complex64 if both its parts
/// lie inside +-3.4e38 (a NaN or infinite part gives complex128, as in numpy).
DType min_scalar_type(std::int64_t value, bool force_signed = false);
DType min_scalar_type(std::uint64_t value, bool force_signed = false);
DType min_scalar_type(double value, bool force_signed = false);
DType min_scalar_type(std::complex<double> value, bool force_signed = false);
template <class T>
    requires(std::is_integral_v<T> && !std::is_same_v<T, bool>)
DType min_scalar_type(T value, bool force_signed = false) {
    if constexpr (std::is_signed_v<T>) return min_scalar_type(static_cast<std::int64_t>(value), force_signed);
    else return min_scalar_type(static_cast<std::uint64_t>(value), force_signed);
}

/// complex64 for float32 (and float16), complex128 for float64; complex types map to themselves.
DType complex_for(const DType& dtype);
/// float32 for complex64, float64 for complex128; real types map to themselves.
DType real_for(const DType& dtype);

}  // namespace kjarni
