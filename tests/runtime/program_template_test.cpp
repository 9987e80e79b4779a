// Programs from templates: a Mako-style string, a DefTemplate and a Snippet with modules, rendered
// and compiled on each device, and run against a CPU reference.

#include <gtest/gtest.h>

#include "kjarni/template.hpp"
#include "support/random_data.hpp"
#include "support/test_devices.hpp"

namespace kjarni::test {
namespace {

class TemplatePrograms : public DeviceTest {
protected:
    // Runs kernel `name` (y[i] = f(x[i])) on random integers and returns x and y.
    std::pair<std::vector<std::int32_t>, std::vector<std::int32_t>> run(const Program& program, const char* name) {
        const std::size_t n = 300;
        auto x = random_vector<std::int32_t>(n, -1000, 1000);
        auto xb = Buffer::allocate(bound_device(), n * sizeof(std::int32_t));
        auto yb = Buffer::allocate(bound_device(), n * sizeof(std::int32_t));
        xb.set(queue(), std::span<const std::int32_t>(x));
        const std::byte poison{0x80};
        yb.fill(queue(), std::span(&poison, 1));
        program.kernel(name)(queue(), {n}, std::nullopt, yb, xb);
        std::vector<std::int32_t> y(n);
        yb.get(queue(), std::span<std::int32_t>(y));
        return {x, y};
    }
};

TEST_P(TemplatePrograms, MakoStringWithLoopsAndGlobals) {
    const std::string source = R"SRC(
<%def name="term(k)">${k} * v</%def>
KERNEL void poly(GLOBAL_MEM int32_t* y, GLOBAL_MEM const int32_t* x)
{
    const SIZE_T i = get_global_id(0);
    const int32_t v = x[i];
    int32_t acc = ${offset};
% for k in range(1, order + 1):
    acc += ${term(k)};
% endfor
    y[i] = acc;
}
)SRC";
    const Program program(bound_device(), TemplateSource{source}, {}, {{"order", 3}, {"offset", -5}});
    const auto [x, y] = run(program, "poly");
    for (std::size_t i = 0; i < x.size(); ++i) ASSERT_EQ(y[i], -5 + (1 + 2 + 3) * x[i]) << i;
}

TEST_P(TemplatePrograms, DefTemplateWithArgumentsAndAModule) {
    const Module add = Module::from_callable(
        {"prefix", "amount"}, [] { return "FUNCTION INLINE int32_t ${prefix}(int32_t v) { return v + ${amount}; }\n"; },
        "add");
    const DefTemplate kernel = DefTemplate::from_string("kernel", {"name", "factor"}, R"(
KERNEL void ${name}(GLOBAL_MEM int32_t* y, GLOBAL_MEM const int32_t* x)
{
    const SIZE_T i = get_global_id(0);
    y[i] = ${plus(7)}(x[i]) * ${factor};
}
)");
    const Program program(bound_device(), TemplateSource{kernel}, {"shifted", 3}, {{"plus", add}});
    EXPECT_NE(program.source(bound_device()).find("_mod_add_"), std::string::npos);
    const auto [x, y] = run(program, "shifted");
    for (std::size_t i = 0; i < x.size(); ++i) ASSERT_EQ(y[i], (x[i] + 7) * 3) << i;
}

TEST_P(TemplatePrograms, RenderErrorsComeBeforeCompiling) {
    EXPECT_THROW(Program(bound_device(), TemplateSource{std::string("${missing_name}")}, {}, {}), RenderError);
}

KJARNI_INSTANTIATE_DEVICE_TESTS(TemplatePrograms);

}  // namespace
}  // namespace kjarni::test
