// Statements evaluated lazily (kjarni/statements.hpp) against the same statements run eagerly
// (evaluate, assign and the reductions of kjarni/fusion.hpp, one by one), on fresh random data.
//
// Exactness. Elementwise chains and integer results must equal the eager chain bit for bit: a let()
// value is rounded to its dtype where it is defined and no fused multiply-add joins work across
// it, as storing it eagerly does (float16 chains differ at once without the rounding: eager rounds
// every statement's value to 16 bits; a * x then + b differs where a compiler contracts across the
// statements). Float sums of the same values in another order agree within the bound of the two
// summations: each errs by at most (m - 1) u sum |z_i| for m values (u the unit roundoff), so the
// two differ by at most 2 (m - 1) u sum |z_i|. Softmax along rows: each value a quotient of
// exponentials and a row sum, relative error within (n + 8) u of the eager one's (the sum's bound
// plus a few roundings), checked against sum |e_i| relative.

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "kjarni/fusion.hpp"
#include "kjarni/statements.hpp"
#include "runtime/algorithm_test_support.hpp"
#include "support/argument_errors.hpp"
#include "support/test_devices.hpp"

namespace kjarni::test {
namespace statements_test {

class StatementsTest : public DeviceTest {};
KJARNI_INSTANTIATE_DEVICE_TESTS(StatementsTest);

bool same_bits(const HostArray& a, const HostArray& b) {
    return a.dtype() == b.dtype() && a.shape() == b.shape() &&
           std::memcmp(a.data(), b.data(), a.size() * a.dtype().itemsize()) == 0;
}

std::string first_difference(const HostArray& got, const HostArray& want) {
    if (!(got.dtype() == want.dtype())) return "dtype " + got.dtype().name() + " vs " + want.dtype().name();
    if (got.shape() != want.shape()) return "shapes differ";
    const std::size_t item = got.dtype().itemsize();
    for (std::size_t k = 0; k < got.size(); ++k)
        if (std::memcmp(got.data() + k * item, want.data() + k * item, item) != 0)
            return "element " + std::to_string(k) + ": " +
                   std::to_string(static_cast<double>(value_at(got, k).real())) + " vs " +
                   std::to_string(static_cast<double>(value_at(want, k).real()));
    return "";
}

// The issue's example: y = a*x + b; z = y*y; s = sum(z), as lazy values and a stored sum.
TEST_P(StatementsTest, IssueExampleIsOneKernelAndEqualsEager) {
    for (const DType& dtype : {DType(Kind::float32), DType(Kind::float64), DType(Kind::float16)}) {
        const std::vector<std::size_t> shape{3, 1000};
        const Array a = Array::from_host(queue(), random_host(dtype, shape));
        const Array x = Array::from_host(queue(), random_host(dtype, shape));
        const Array b = Array::from_host(queue(), random_host(dtype, shape));

        const Array y_eager = evaluate(queue(), a * x + b);
        const Array z_eager = evaluate(queue(), y_eager * y_eager);
        const HostArray s_eager = sum(queue(), z_eager).get(queue());
        const HostArray z_host = z_eager.get(queue());

        Statements block(queue());
        const Expr y = block.let(a * x + b);
        const Expr z = block.let(y * y);
        const Array s = block.evaluate(sum(z));
        const FusionPlan plan = block.plan();
        // Eagerly: one kernel per statement (each evaluate() one elementwise kernel, the sum one reduction).
        const std::size_t eager_kernels =
            fusion_plan(queue(), a * x + b).kernels.size() + fusion_plan(queue(), y_eager * y_eager).kernels.size() + 1;
        EXPECT_EQ(eager_kernels, 3u);
        EXPECT_EQ(plan.kernels.size(), 1u) << plan.describe();
        EXPECT_LT(plan.kernels.size(), eager_kernels);
        EXPECT_EQ(plan.kernels[0].bytes_written, dtype.itemsize()) << plan.describe();
        EXPECT_EQ(plan.kernels[0].bytes_read, 3 * 3000 * dtype.itemsize()) << plan.describe();
        EXPECT_EQ(block.pending(), 1u);
        block.run();
        EXPECT_EQ(block.pending(), 0u);
        const HostArray got = s.get(queue());
        ASSERT_EQ(got.dtype(), s_eager.dtype());
        long double magnitude = 0;
        for (std::size_t k = 0; k < z_host.size(); ++k) magnitude += std::fabs(value_at(z_host, k).real());
        // (float16 may accumulate in float32 and round once at the end: the float16 bound holds either way.)
        const long double u = unit_roundoff(dtype);
        const long double m = static_cast<long double>(z_host.size());
        const long double bound = 2 * (m - 1) * u * magnitude + 2 * u * std::fabs(value_at(s_eager, 0).real());
        EXPECT_LE(std::fabs(value_at(got, 0).real() - value_at(s_eager, 0).real()), bound) << dtype.name();

        // The same statements stored: every stored value is eager's, bit for bit.
        Statements stored(queue());
        const Array y_stored = stored.evaluate(a * x + b);
        const Array z_stored = stored.evaluate(y_stored * y_stored);  // reads what a pending statement writes
        const Expr z_lazy = stored.let(stored.let(a * x + b) * stored.let(a * x + b));
        const Array z_from_lets = stored.evaluate(z_lazy);
        stored.run();
        EXPECT_EQ(first_difference(y_stored.get(queue()), y_eager.get(queue())), "") << dtype.name();
        EXPECT_EQ(first_difference(z_stored.get(queue()), z_host), "") << dtype.name();
        EXPECT_EQ(first_difference(z_from_lets.get(queue()), z_host), "") << dtype.name();
    }
}

// Chains of elementwise statements: each lazy value is the array its eager statement stores.
TEST_P(StatementsTest, ElementwiseChainsEqualEagerBitForBit) {
    const DType types[] = {DType(Kind::float16), DType(Kind::float32), DType(Kind::float64),  DType(Kind::int32),
                           DType(Kind::uint8),   DType(Kind::int64),   DType(Kind::complex64)};
    for (const DType& dtype : types) {
        const std::vector<std::size_t> shape{5, 333};
        const Array a = Array::from_host(queue(), random_host(dtype, shape));
        const Array x = Array::from_host(queue(), random_host(dtype, shape));
        const Array b = Array::from_host(queue(), random_host(dtype, {333}));  // broadcast along rows
        const bool integer = is_integer(dtype);
        // t = a*x; u = t + b; v = u*u - x; w = v * 3 + t (integers: and % 7); out = w - b.
        const std::function<Expr(const Expr&)> last = [&](const Expr& w) { return integer ? (w % 7) - b : w - b; };

        const Array t_e = evaluate(queue(), a * x);
        const Array u_e = evaluate(queue(), t_e + b);
        const Array v_e = evaluate(queue(), u_e * u_e - x);
        const Array w_e = evaluate(queue(), v_e * 3 + t_e);
        const HostArray want = evaluate(queue(), last(w_e)).get(queue());

        Statements block(queue());
        const Expr t = block.let(a * x);
        const Expr u = block.let(t + b);
        const Expr v = block.let(u * u - x);
        const Expr w = block.let(v * 3 + t);
        const Array got = block.evaluate(last(w));
        EXPECT_EQ(block.plan().kernels.size(), 1u);
        block.run();
        EXPECT_EQ(first_difference(got.get(queue()), want), "") << dtype.name();
    }
}

// Integer sums and min/max of lazy values are exact: equal to the eager reduction of the stored value.
TEST_P(StatementsTest, ReductionsOfLazyValuesEqualEager) {
    for (const DType& dtype : {DType(Kind::int32), DType(Kind::int8), DType(Kind::float32)}) {
        const std::vector<std::size_t> shape{7, 129};
        const Array a = Array::from_host(queue(), random_host(dtype, shape));
        const Array x = Array::from_host(queue(), random_host(dtype, shape));
        const Array y_e = evaluate(queue(), a * x + 3);
        Statements block(queue());
        const Expr y = block.let(a * x + 3);
        const Array max_rows = block.evaluate(max(y, 1));
        const Array argmin_all = block.evaluate(argmin(y));
        const Array row_sums = block.evaluate(sum(y, 1, true));
        const Array centred = block.evaluate(y - min(y, 0, true));
        block.run();
        EXPECT_EQ(first_difference(max_rows.get(queue()),
                                   max(queue(), y_e, {.axes = std::vector<int>{1}}).get(queue())),
                  "");
        EXPECT_EQ(first_difference(argmin_all.get(queue()), argmin(queue(), y_e).get(queue())), "");
        EXPECT_EQ(first_difference(centred.get(queue()), evaluate(queue(), y_e - min(y_e, 0, true)).get(queue())), "");
        const HostArray sums = row_sums.get(queue());
        const HostArray sums_e = sum(queue(), y_e, {.axes = std::vector<int>{1}, .keepdims = true}).get(queue());
        if (is_integer(dtype)) {
            EXPECT_EQ(first_difference(sums, sums_e), "") << dtype.name();
        } else {
            const HostArray y_host = y_e.get(queue());
            for (std::size_t r = 0; r < shape[0]; ++r) {
                long double magnitude = 0;
                for (std::size_t c = 0; c < shape[1]; ++c)
                    magnitude += std::fabs(value_at(y_host, r * shape[1] + c).real());
                const long double bound = 2 * static_cast<long double>(shape[1] - 1) * unit_roundoff(dtype) * magnitude;
                EXPECT_LE(std::fabs(value_at(sums, r).real() - value_at(sums_e, r).real()), bound) << "row " << r;
            }
        }
    }
}

// softmax written as three statements: m = max(x), e = exp(x - m), out = e / sum(e).
TEST_P(StatementsTest, SoftmaxAcrossStatementsWithinBound) {
    const std::vector<std::size_t> shape{16, 300};
    const Array x = Array::from_host(queue(), random_host(DType(Kind::float32), shape));
    const Array m_e = evaluate(queue(), max(x, -1, true));
    const Array e_e = evaluate(queue(), exp(x - m_e));
    const HostArray want = evaluate(queue(), e_e / sum(e_e, -1, true)).get(queue());

    Statements block(queue());
    const Expr m = block.let(max(x, -1, true));
    const Expr e = block.let(exp(x - m));
    const Array got = block.evaluate(e / sum(e, -1, true));
    // As many kernels as the one expression (a row kernel on a GPU; max, sum and the result on a CPU).
    const Expr e_one = exp(x - max(x, -1, true));
    EXPECT_EQ(block.plan().kernels.size(), fusion_plan(queue(), e_one / sum(e_one, -1, true)).kernels.size());
    block.run();
    const HostArray g = got.get(queue());
    const long double u = unit_roundoff(DType(Kind::float32));
    for (std::size_t k = 0; k < g.size(); ++k) {
        const long double w = value_at(want, k).real();
        EXPECT_LE(std::fabs(value_at(g, k).real() - w), (static_cast<long double>(shape[1]) + 8) * u * std::fabs(w))
            << k;
    }
}

// A statement that reads what an earlier pending one writes sees the written value; a lazy value
// keeps the value it had where it was written when a later statement overwrites what it reads.
TEST_P(StatementsTest, AliasingFollowsEagerOrder) {
    const DType dtype(Kind::float32);
    const std::size_t n = 1000;
    const HostArray x_host = random_host(dtype, {n}), a_host = random_host(dtype, {n});
    using S = Slice;

    // eager
    const Array x_e = Array::from_host(queue(), x_host), a_e = Array::from_host(queue(), a_host);
    const Array l_e = evaluate(queue(), x_e * 3 + a_e);
    assign(queue(), x_e, x_e * 2 + 1);               // overwrites what l reads
    const Array w_e = evaluate(queue(), x_e + a_e);  // reads the new x
    assign(queue(), x_e[{S{1, std::nullopt}}],
           x_e[{S{std::nullopt, -1}}] + l_e[{S{1, std::nullopt}}]);  // a view of an input
    const Array out_e = evaluate(queue(), l_e * x_e - w_e);
    assign(queue(), a_e, a_e * a_e);  // in place

    // lazily
    const Array x = Array::from_host(queue(), x_host), a = Array::from_host(queue(), a_host);
    Statements block(queue());
    const Expr l = block.let(x * 3 + a);
    block.assign(x, x * 2 + 1);
    EXPECT_EQ(block.pending(), 2u) << "l is stored before the statement that overwrites x";
    const Array w = block.evaluate(x + a);
    const Array l_stored = block.evaluate(l);
    block.assign(x[{S{1, std::nullopt}}], x[{S{std::nullopt, -1}}] + l_stored[{S{1, std::nullopt}}]);
    const Array out = block.evaluate(l * x - w);
    block.assign(a, a * a);
    EXPECT_NE(block.plan().describe().find("stored before statement 2"), std::string::npos) << block.plan().describe();
    block.run();

    EXPECT_EQ(first_difference(l_stored.get(queue()), l_e.get(queue())), "");
    EXPECT_EQ(first_difference(w.get(queue()), w_e.get(queue())), "");
    EXPECT_EQ(first_difference(x.get(queue()), x_e.get(queue())), "");
    EXPECT_EQ(first_difference(out.get(queue()), out_e.get(queue())), "");
    EXPECT_EQ(first_difference(a.get(queue()), a_e.get(queue())), "");
}

// A lazy value whose inputs a later statement writes through a view of part of them.
TEST_P(StatementsTest, PartialOverwriteOfALazyValuesInput) {
    const DType dtype(Kind::int32);
    const HostArray x_host = random_host(dtype, {64});
    using S = Slice;
    const Array x_e = Array::from_host(queue(), x_host);
    const Array l_e = evaluate(queue(), x_e * x_e);
    assign(queue(), x_e[{S{10, 20}}], x_e[{S{0, 10}}] + 5);
    const HostArray want = evaluate(queue(), l_e - x_e).get(queue());

    const Array x = Array::from_host(queue(), x_host);
    Statements block(queue());
    const Expr l = block.let(x * x);
    block.assign(x[{S{10, 20}}], x[{S{0, 10}}] + 5);
    const Array got = block.evaluate(l - x);
    block.run();
    EXPECT_EQ(first_difference(got.get(queue()), want), "");
}

// Each bad statement throws what the eager call throws, where it is written; the statements before
// it stay pending and run.
TEST_P(StatementsTest, ErrorsAtTheSameStatementAsEager) {
    const Array x = Array::from_host(queue(), random_host(DType(Kind::float32), {40}));
    const Array small = Array::from_host(queue(), random_host(DType(Kind::uint8), {40}));
    const Array ints = Array::empty(bound_device(), {40}, DType(Kind::int32));
    const Array wrong = Array::empty(bound_device(), {41}, DType(Kind::float32));
    const Array empty_rows = Array::empty(bound_device(), {3, 0}, DType(Kind::float32));
    const Array good = Array::empty(bound_device(), {40}, DType(Kind::float32));

    Statements block(queue());
    block.assign(good, x * 2);
    const Expr y = block.let(x + 1);
    const Array y_e = evaluate(queue(), x + 1);
    struct Case {
        const char* what;
        std::function<void()> eager, lazy;
    };
    const Case cases[] = {
        {"float into int32 (same_kind)", [&] { assign(queue(), ints, y_e * 2); }, [&] { block.assign(ints, y * 2); }},
        {"shape of out", [&] { assign(queue(), wrong, y_e); }, [&] { block.assign(wrong, y); }},
        {"weak integer out of range", [&] { (void)evaluate(queue(), small + 300); },
         [&] { (void)block.let(small + 300); }},
        {"weak integer into out", [&] { assign(queue(), small, 300); }, [&] { block.assign(small, 300); }},
        {"max of an empty axis", [&] { (void)evaluate(queue(), max(empty_rows, 1)); },
         [&] { (void)block.evaluate(max(empty_rows, 1)); }},
        {"argmin of an empty axis in a let", [&] { (void)evaluate(queue(), argmin(empty_rows, 1) + 1); },
         [&] { (void)block.let(argmin(empty_rows, 1) + 1); }},
    };
    for (const Case& c : cases) {
        const std::string eager = argument_error_message(c.eager);
        EXPECT_NE(eager, no_argument_error) << c.what;
        EXPECT_EQ(argument_error_message(c.lazy), eager) << c.what;
        EXPECT_EQ(argument_named_by(c.lazy), argument_named_by(c.eager)) << c.what;
        EXPECT_EQ(block.pending(), 1u) << c.what << ": the bad statement is not recorded";
    }
    block.assign(good, good + y);
    block.run();
    EXPECT_EQ(first_difference(good.get(queue()), evaluate(queue(), x * 2 + y_e).get(queue())), "");
}

// An operand on another device: the eager call's message, the lazy value counted as the array
// eager evaluation would have made.
TEST(StatementsDevices, OperandOnAnotherDeviceAsEager) {
    Context* context = shared_multi_device_context();
    if (context == nullptr) GTEST_SKIP() << "no platform with two selected devices";
    const Queue queue(context->devices()[0]);
    const Array x0 = Array::from_host(queue, random_host(DType(Kind::float32), {16}));
    const Array x1 = Array::empty(context->devices()[1], {16}, DType(Kind::float32));
    const Array out = Array::empty(context->devices()[0], {16}, DType(Kind::float32));
    const Array l_e = evaluate(queue, x0 + 1);
    Statements block(queue);
    const Expr l = block.let(x0 + 1);
    const std::string eager = argument_error_message([&] { assign(queue, out, l_e * x1); });
    EXPECT_NE(eager, no_argument_error);
    EXPECT_EQ(argument_error_message([&] { block.assign(out, l * x1); }), eager);
    const std::string eager_sum = argument_error_message([&] { (void)evaluate(queue, sum(l_e * x1)); });
    EXPECT_EQ(argument_error_message([&] { (void)block.evaluate(sum(l * x1)); }), eager_sum);
    EXPECT_EQ(block.pending(), 0u);
}

// The destructor runs what is pending.
TEST_P(StatementsTest, DestructionRuns) {
    const HostArray host = random_host(DType(Kind::int64), {100});
    const Array x = Array::from_host(queue(), host);
    const Array out = Array::empty(bound_device(), {100}, DType(Kind::int64));
    {
        Statements block(queue());
        const Expr y = block.let(x * x);
        block.assign(out, y + x);
    }
    EXPECT_EQ(first_difference(out.get(queue()), evaluate(queue(), x * x + x).get(queue())), "");
}

}  // namespace statements_test
}  // namespace kjarni::test
