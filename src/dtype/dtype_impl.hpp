#pragma once
// What a struct DType holds, and the C layout (alignment attributes) that reproduces its offsets.

#include <string>
#include <vector>

#include "kjarni/dtype.hpp"

namespace kjarni::detail {

struct StructData {
    std::vector<Field> fields;  // by offset
    std::size_t itemsize = 0;
    std::size_t alignment = 1;
    bool aligned = false;
    std::string descr;
};

/// The alignment attributes a C struct needs for the fields' offsets and the itemsize: per field 0
/// (natural placement) or the ALIGN() value; for the struct 0 or its ALIGN() value; the resulting
/// alignment. `error` says why the layout is not reproducible (then the rest is incomplete).
struct CLayout {
    std::vector<std::size_t> field_alignments;
    std::size_t struct_alignment = 0;
    std::size_t alignment = 1;
    std::string error;
};
CLayout c_layout(const std::vector<Field>& fields, std::size_t itemsize);

/// The C name of a scalar kind ("int32_t", "half", "complex64_t", ...); "" for struct_. What ctype()
/// gives for a scalar dtype, without making a template Value (code generators ask it per node).
const char* scalar_c_name(DType::Kind kind) noexcept;

}  // namespace kjarni::detail
