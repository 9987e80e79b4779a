// The common dtype of several dtypes at once against numpy itself (data/make_numpy_result_type.py):
// numpy's algorithm is not a left fold of the pairwise table (int8, uint16, float32 is float32 in
// numpy, the fold gives float64). kjarni::result_type is numpy's answer then the GPU rule
// (kjarni/dtype.hpp); the expressions' common type (clip's three operands) is numpy's answer.

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "algorithms/promotion.hpp"
#include "kjarni/dtype.hpp"
#include "kjarni/error.hpp"

namespace kjarni::test {
namespace {

using namespace kjarni::dtypes;

// The GPU rule as kjarni/dtype.hpp states it: integers narrower than 32 bits widen to 32 bits of
// the same signedness, float16 to float32; the others (bool included) stay.
DType gpu_rule_of(const DType& d) {
    if (is_integer(d) && d.itemsize() < 4) return is_signed(d) ? DType(int32) : DType(uint32);
    if (d == DType(float16)) return float32;
    return d;
}

struct ResultTypeRow {
    std::vector<DType> dtypes;
    DType numpy;
    std::string line;
};

std::vector<ResultTypeRow> result_type_rows() {
    std::map<std::string, DType> named;
    for (const DType& d : all_scalars()) named.emplace(d.name(), d);
    std::ifstream in(std::string(KJARNI_RUNTIME_DATA_DIR) + "/numpy_result_type.txt");
    if (!in) throw std::runtime_error("missing numpy_result_type.txt");
    std::vector<ResultTypeRow> rows;
    for (std::string line; std::getline(in, line);) {
        if (line.empty() || line[0] == '#') continue;
        std::istringstream words(line);
        std::vector<DType> ds;
        for (std::string w; words >> w;) ds.push_back(named.at(w));
        const DType numpy = ds.back();
        ds.pop_back();
        rows.push_back({std::move(ds), numpy, line});
    }
    return rows;
}

TEST(NumpyResultType, SeveralDtypesAtOnceEqualNumpys) {
    const auto rows = result_type_rows();
    std::size_t triples = 0, unlike_fold = 0;
    for (const auto& row : rows) {
        EXPECT_EQ(detail::promote_types_sequence(row.dtypes).name(), row.numpy.name()) << row.line;
        EXPECT_EQ(result_type(row.dtypes).name(), gpu_rule_of(row.numpy).name()) << row.line;
        if (row.dtypes.size() == 3) ++triples;
        DType fold = row.dtypes[0];
        for (std::size_t i = 1; i < row.dtypes.size(); ++i) fold = detail::promote_types(fold, row.dtypes[i]);
        if (gpu_rule_of(fold) != gpu_rule_of(row.numpy)) ++unlike_fold;
    }
    // Every triple of the 14 scalar dtypes; the table must hold cases a left fold gets wrong even
    // after the GPU rule (int8, uint16, float32), or it would not test the algorithm.
    EXPECT_EQ(triples, 14u * 14u * 14u);
    EXPECT_GT(unlike_fold, 100u);
}

TEST(NumpyResultType, RefusesStructsAndNothing) {
    EXPECT_THROW((void)result_type(std::vector<DType>{}), ArgumentError);
    const DType pair = DType::struct_({{"a", int32}});
    EXPECT_THROW((void)result_type({int8, pair, float32}), ArgumentError);
    EXPECT_THROW((void)detail::promote_types_sequence(std::vector<DType>{int8, uint16, pair}), ArgumentError);
}

}  // namespace
}  // namespace kjarni::test
