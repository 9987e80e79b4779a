// Index assignment (boolean_index_assign, integer_index_assign) against numpy's own outcomes
// (data/make_numpy_index_assign.py), above all where the selection is empty: numpy still checks the
// value against the selection (it must broadcast to the selection's shape; a mask over every axis
// takes 0-d or 1-d values of one element or of the count), and raises where it does not. kjarni
// raises ArgumentError there (numpy's ValueError, TypeError, IndexError) and leaves the array as it
// was; where numpy writes, the array afterwards is numpy's, element for element.

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <functional>
#include <numeric>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "kjarni/error.hpp"
#include "kjarni/selection.hpp"
#include "support/test_devices.hpp"

namespace kjarni::test {
namespace {

class NumpyIndexAssign : public DeviceTest {};
KJARNI_INSTANTIATE_DEVICE_TESTS(NumpyIndexAssign);

// "[2,3]" -> {2, 3}; "[]" -> {}.
std::vector<std::size_t> shape_of_text(const std::string& text) {
    std::vector<std::size_t> shape;
    std::istringstream in(text.substr(1, text.size() - 2));
    for (std::string part; std::getline(in, part, ',');) shape.push_back(std::stoul(part));
    return shape;
}

std::size_t elements_of(const std::vector<std::size_t>& shape) {
    return std::accumulate(shape.begin(), shape.end(), std::size_t{1}, std::multiplies<>());
}

// numpy's elements afterwards ("1,2,7.5"; "-" for none), or nothing for "error".
std::vector<float> elements_of_text(const std::string& text) {
    std::vector<float> out;
    if (text == "-") return out;
    std::istringstream in(text);
    for (std::string part; std::getline(in, part, ',');) out.push_back(std::stof(part));
    return out;
}

TEST_P(NumpyIndexAssign, EmptyAndNonEmptySelectionsAsNumpy) {
    std::ifstream in(std::string(KJARNI_RUNTIME_DATA_DIR) + "/numpy_index_assign.txt");
    ASSERT_TRUE(in) << "missing numpy_index_assign.txt";
    std::size_t rows = 0, errors = 0, empty_selections = 0;
    for (std::string line; std::getline(in, line);) {
        if (line.empty() || line[0] == '#') continue;
        SCOPED_TRACE(line);
        std::istringstream words(line);
        std::string kind, array_text, selection_text, value_text, result;
        std::size_t parameter = 0;
        words >> kind >> array_text >> selection_text >> parameter >> value_text >> result;
        const auto shape = shape_of_text(array_text);
        std::vector<float> data(elements_of(shape));
        std::iota(data.begin(), data.end(), 1.0f);
        const Array array = Array::from_host(queue(), HostArray::from(data, shape));
        // The value: a float32 scalar (numpy's np.float32(7.5)) or an int16 array 100, 101, ...
        std::optional<Operand> value;
        if (value_text == "scalar") {
            value.emplace(7.5f);
        } else {
            const auto vshape = shape_of_text(value_text);
            std::vector<std::int16_t> v(elements_of(vshape));
            std::iota(v.begin(), v.end(), std::int16_t{100});
            value.emplace(Array::from_host(queue(), HostArray::from(v, vshape)));
        }
        const auto selection_shape = shape_of_text(selection_text);
        bool empty = false;
        bool refused = false;
        try {
            if (kind == "mask") {
                std::vector<std::uint8_t> m(elements_of(selection_shape), 0);
                for (std::size_t k = 0; k < parameter; ++k) m[k] = 1;
                HostArray mask(DType(dtypes::bool_), selection_shape);
                if (!m.empty()) std::memcpy(mask.data(), m.data(), m.size());  // an empty mask has no data
                empty = parameter == 0;
                boolean_index_assign(queue(), array, Array::from_host(queue(), mask), *value);
            } else {
                ASSERT_EQ(kind, "index");
                const std::size_t extent = std::max<std::size_t>(shape[parameter], 1);
                std::vector<std::int64_t> idx(elements_of(selection_shape));
                for (std::size_t k = 0; k < idx.size(); ++k) idx[k] = static_cast<std::int64_t>(k % extent);
                empty = idx.empty();
                integer_index_assign(queue(), array, Array::from_host(queue(), HostArray::from(idx, selection_shape)),
                                     *value, static_cast<int>(parameter));
            }
        } catch (const ArgumentError&) {
            refused = true;
        }
        ++rows;
        errors += result == "error";
        empty_selections += empty;
        EXPECT_EQ(refused, result == "error");
        // Refused or not, the array holds numpy's elements afterwards (its own where numpy raised).
        const std::vector<float> want = result == "error" ? data : elements_of_text(result);
        EXPECT_EQ(array.get(queue()).to_vector<float>(), want);
    }
    // The table must hold both outcomes, for empty selections above all.
    EXPECT_GT(rows, 700u);
    EXPECT_GT(errors, 300u);
    EXPECT_GT(empty_selections, 300u);
}

}  // namespace
}  // namespace kjarni::test
