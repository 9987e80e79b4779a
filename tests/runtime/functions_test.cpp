// Function modules (reference §3.3.12) on random data against C++ reference arithmetic in long
// double / std::complex<long double>, for every combination of the input types below and, for the
// binary ones, with the default and an explicit output type. One program per function and device
// holds a kernel per combination.
//
// Tolerances: |got - expected| <= tol * (1 + |expected|) with tol = 2e-5 for float32 / complex64
// outputs and 1e-12 for float64 / complex128 (inputs are O(1), so absolute error from cancellation
// in complex products and quotients is a few ulps of O(10) terms; the OpenCL spec allows exp/sin/
// cos up to 4 ulp and pow up to 16 ulp, which for composed complex pow stays well under 2e-5
// (2^-23 is 1.2e-7) and 1e-12 (2^-52 is 2.2e-16)). Integer results must be exact.

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <map>

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "kjarni/array.hpp"
#include "kjarni/functions.hpp"
#include "kjarni/template.hpp"
#include "support/random_data.hpp"
#include "support/test_devices.hpp"

namespace kjarni::test {
namespace {

using namespace kjarni::dtypes;
using LC = std::complex<long double>;

constexpr std::size_t count = 64;

// Values of a dtype: as long double complex (for the reference) and as bytes (for the device).
struct Column {
    DType dtype;
    std::vector<LC> values;
    std::vector<std::byte> bytes;
};

void store(const DType& d, LC v, std::byte* out) {
    auto put = [&](auto x) { std::memcpy(out, &x, sizeof(x)); };
    switch (d.kind()) {
    case DType::Kind::int8: put(static_cast<std::int8_t>(v.real())); break;
    case DType::Kind::uint8: put(static_cast<std::uint8_t>(v.real())); break;
    case DType::Kind::int16: put(static_cast<std::int16_t>(v.real())); break;
    case DType::Kind::uint16: put(static_cast<std::uint16_t>(v.real())); break;
    case DType::Kind::int32: put(static_cast<std::int32_t>(v.real())); break;
    case DType::Kind::uint32: put(static_cast<std::uint32_t>(v.real())); break;
    case DType::Kind::int64: put(static_cast<std::int64_t>(v.real())); break;
    case DType::Kind::uint64: put(static_cast<std::uint64_t>(v.real())); break;
    case DType::Kind::float32: put(static_cast<float>(v.real())); break;
    case DType::Kind::float64: put(static_cast<double>(v.real())); break;
    case DType::Kind::complex64:
        put(std::complex<float>(static_cast<float>(v.real()), static_cast<float>(v.imag())));
        break;
    case DType::Kind::complex128:
        put(std::complex<double>(static_cast<double>(v.real()), static_cast<double>(v.imag())));
        break;
    default: throw std::logic_error("no store for " + d.name());
    }
}

LC load(const DType& d, const std::byte* in) {
    auto get = [&](auto x) {
        std::memcpy(&x, in, sizeof(x));
        return x;
    };
    switch (d.kind()) {
    case DType::Kind::int8: return LC(get(std::int8_t{}), 0);
    case DType::Kind::uint8: return LC(get(std::uint8_t{}), 0);
    case DType::Kind::int16: return LC(get(std::int16_t{}), 0);
    case DType::Kind::uint16: return LC(get(std::uint16_t{}), 0);
    case DType::Kind::int32: return LC(get(std::int32_t{}), 0);
    case DType::Kind::uint32: return LC(get(std::uint32_t{}), 0);
    case DType::Kind::int64: return LC(static_cast<long double>(get(std::int64_t{})), 0);
    case DType::Kind::uint64: return LC(static_cast<long double>(get(std::uint64_t{})), 0);
    case DType::Kind::float32: return LC(get(float{}), 0);
    case DType::Kind::float64: return LC(get(double{}), 0);
    case DType::Kind::complex64: {
        const auto c = get(std::complex<float>{});
        return LC(c.real(), c.imag());
    }
    case DType::Kind::complex128: {
        const auto c = get(std::complex<double>{});
        return LC(c.real(), c.imag());
    }
    default: throw std::logic_error("no load for " + d.name());
    }
}

// Random values for a dtype: integers in [lo, hi], reals/complex parts in [lo, hi) (magnitude at
// least `min_abs` when given), rounded to the type.
Column make_column(const DType& d, double lo, double hi, double min_abs = 0) {
    Column c{d, {}, std::vector<std::byte>(count * d.itemsize())};
    auto real = [&] {
        for (;;) {
            const double v = random_vector<double>(1, lo, hi)[0];
            if (std::fabs(v) >= min_abs) return v;
        }
    };
    for (std::size_t i = 0; i < count; ++i) {
        LC v;
        if (is_integer(d)) {
            long long n;
            do n = random_vector<long long>(1, static_cast<long long>(lo), static_cast<long long>(hi))[0];
            while (std::fabs(static_cast<double>(n)) < min_abs);
            v = LC(static_cast<long double>(n), 0);
        } else {
            v = LC(real(), is_complex(d) ? real() : 0.0);
        }
        store(d, v, c.bytes.data() + i * d.itemsize());
        c.values.push_back(load(d, c.bytes.data() + i * d.itemsize()));  // what the device sees
    }
    return c;
}

// The reference converts an input to the output type first, as the modules do.
LC convert(const LC& v, const DType& out) {
    std::vector<std::byte> tmp(out.itemsize());
    store(out, is_complex(out) ? v : LC(v.real(), 0), tmp.data());
    return load(out, tmp.data());
}

struct FunctionCase {
    std::string label;
    Module module;
    std::vector<const Column*> inputs;
    DType out;
    std::function<LC(const std::vector<LC>&)> reference;
    // The type the function computes in, where it is not `out`: a float one bounds the tolerance.
    std::optional<DType> computed_in = std::nullopt;
};

class Functions : public DeviceTest {
protected:
    // Runs every case in one program and checks the results.
    void check(const std::vector<FunctionCase>& cases) {
        std::string source;
        Globals globals;
        for (std::size_t k = 0; k < cases.size(); ++k) {
            const auto& c = cases[k];
            std::string params, args;
            for (std::size_t i = 0; i < c.inputs.size(); ++i) {
                const std::string t = fmt::format("t{}_{}", k, i);
                globals.emplace(t, c.inputs[i]->dtype);
                params += fmt::format(", GLOBAL_MEM const ${{{}}}* in{}", t, i);
                args += fmt::format("{}in{}[i]", i ? ", " : "", i);
            }
            globals.emplace(fmt::format("f{}", k), c.module);
            globals.emplace(fmt::format("o{}", k), c.out);
            source += fmt::format(
                "KERNEL void case{0}(GLOBAL_MEM ${{o{0}}}* out{1})\n{{\n    const SIZE_T i = get_global_id(0);\n"
                "    out[i] = ${{f{0}}}({2});\n}}\n",
                k, params, args);
        }
        const Program program(bound_device(), TemplateSource{source}, {}, globals);
        for (std::size_t k = 0; k < cases.size(); ++k) {
            const auto& c = cases[k];
            SCOPED_TRACE(c.label);
            std::vector<Array> inputs;
            for (const auto* column : c.inputs) {
                HostArray h(column->dtype, {count});
                std::memcpy(h.data(), column->bytes.data(), column->bytes.size());
                inputs.push_back(Array::from_host(queue(), h));
            }
            const Array out = Array::empty(bound_device(), {count}, c.out);
            const auto kernel = program.kernel(fmt::format("case{}", k));
            if (inputs.size() == 1) kernel(queue(), {count}, std::nullopt, out, inputs[0]);
            else if (inputs.size() == 2) kernel(queue(), {count}, std::nullopt, out, inputs[0], inputs[1]);
            else kernel(queue(), {count}, std::nullopt, out, inputs[0], inputs[1], inputs[2]);
            const HostArray got = out.get(queue());
            const bool in_double = !c.computed_in || is_double(*c.computed_in) || is_integer(*c.computed_in);
            const long double tol = is_integer(c.out) ? 0.0L : is_double(c.out) && in_double ? 1e-12L : 2e-5L;
            for (std::size_t i = 0; i < count; ++i) {
                std::vector<LC> args;
                for (const auto* column : c.inputs) args.push_back(column->values[i]);
                const LC expected = c.reference(args);
                const LC g = load(c.out, got.data() + i * c.out.itemsize());
                ASSERT_LE(std::abs(g - expected), tol * (1 + std::abs(expected)))
                    << "element " << i << ": got " << g << ", expected " << expected;
            }
        }
    }
};

// Every numeric type a kernel computes with (float16 is storage only). Values stay within +-40, so
// that no sum or product of two of them overflows even int8 after the GPU promotion to int32.
const std::vector<DType> arithmetic_types{int8,  uint8,  int16,   uint16,  int32,     uint32,
                                          int64, uint64, float32, float64, complex64, complex128};

std::map<DType::Kind, Column> columns(double lo, double hi, double min_abs = 0) {
    std::map<DType::Kind, Column> out;
    for (const auto& d : arithmetic_types) {
        const bool unsigned_ = d == DType(uint8) || d == DType(uint16) || d == DType(uint32) || d == DType(uint64);
        out.emplace(d.kind(), make_column(d, unsigned_ ? std::max(0.0, lo) : lo, hi, min_abs));
    }
    return out;
}

std::string label(const std::string& f, const std::vector<DType>& in, const DType& out) {
    std::string s = f + "(";
    for (const auto& d : in) s += d.name() + ",";
    return s + ") -> " + out.name();
}

// The type one step of add and mul computes in (grunnur's rule): the operands' result_type, float32
// or complex64 where that is a double type and the output is not.
DType step_type(const DType& a, const DType& b, const DType& out) {
    DType t = result_type({a, b});
    if (is_double(t) && !is_double(out)) return is_complex(t) ? DType(complex64) : DType(float32);
    return t;
}

// The outputs each pair is checked with: its result_type, and outputs that differ from the type the
// function computes in (wider, narrower, an integer from floats), where computing first and
// converting after (grunnur's order) gives other values than converting the inputs first.
std::vector<DType> outputs_for(const DType& a, const DType& b) {
    std::vector<DType> outs{result_type({a, b}), DType(complex128)};
    if (!is_complex(a) && !is_complex(b)) {
        outs.emplace_back(int32);
        outs.emplace_back(float32);
        outs.emplace_back(float64);
    }
    return outs;
}

// a <op> b as the device computes it: both converted to t, the exact result rounded to t (C's
// truncating division for integers), then converted to `out`.
LC computed(char op, const LC& a, const LC& b, const DType& t, const DType& out) {
    const LC x = convert(a, t), y = convert(b, t);
    LC r;
    if (op == '+') r = x + y;
    else if (op == '*') r = x * y;
    else if (!is_integer(t)) r = x / y;
    else if (!is_signed(t)) {
        const unsigned long long quotient =
            static_cast<unsigned long long>(x.real()) / static_cast<unsigned long long>(y.real());
        r = LC(static_cast<long double>(quotient), 0);
    } else {
        const long long quotient = static_cast<long long>(x.real()) / static_cast<long long>(y.real());
        r = LC(static_cast<long double>(quotient), 0);
    }
    return convert(convert(r, t), out);
}

TEST_P(Functions, AddAndMulForEveryTypePair) {
    // (Floats are fractions: where one meets an integer output, truncating before or after the
    // sum differs.)
    const auto ints = columns(-40, 40);
    std::vector<FunctionCase> cases;
    for (const auto& a : arithmetic_types) {
        for (const auto& b : arithmetic_types) {
            for (const auto& out : outputs_for(a, b)) {
                const auto* ca = &ints.at(a.kind());
                const auto* cb = &ints.at(b.kind());
                const DType t = step_type(a, b, out);
                cases.push_back({label("add", {a, b}, out),
                                 functions::add({a, b}, out),
                                 {ca, cb},
                                 out,
                                 [t, out](const std::vector<LC>& v) { return computed('+', v[0], v[1], t, out); },
                                 t});
                cases.push_back({label("mul", {a, b}, out),
                                 functions::mul({a, b}, out),
                                 {ca, cb},
                                 out,
                                 [t, out](const std::vector<LC>& v) { return computed('*', v[0], v[1], t, out); },
                                 t});
            }
        }
    }
    // Three inputs, the pitfall's shape: complex + real + real.
    const DType c3 = result_type({complex64, float32, int32});
    cases.push_back(
        {"add3",
         functions::add({complex64, float32, int32}),
         {&ints.at(DType::Kind::complex64), &ints.at(DType::Kind::float32), &ints.at(DType::Kind::int32)},
         c3,
         [c3](const std::vector<LC>& v) { return convert(v[0], c3) + convert(v[1], c3) + convert(v[2], c3); }});
    cases.push_back({"mul3",
                     functions::mul({float64, complex64, int32}),
                     {&ints.at(DType::Kind::float64), &ints.at(DType::Kind::complex64), &ints.at(DType::Kind::int32)},
                     complex128,
                     [](const std::vector<LC>& v) { return v[0] * v[1] * v[2]; }});
    check(cases);
    EXPECT_THROW(functions::add({complex64, float32}, DType(float32)), ArgumentError);
}

TEST_P(Functions, DivForEveryTypePair) {
    const auto dividends = columns(-40, 40);
    const auto divisors = columns(-4, 4, 0.5);
    std::vector<FunctionCase> cases;
    for (const auto& a : arithmetic_types) {
        for (const auto& b : arithmetic_types) {
            for (const auto& out : outputs_for(a, b)) {
                // In the operands' common type (integers truncate there, as C's), then converted.
                const DType t = result_type({a, b});
                cases.push_back({label("div", {a, b}, out),
                                 functions::div(a, b, out),
                                 {&dividends.at(a.kind()), &divisors.at(b.kind())},
                                 out,
                                 [t, out](const std::vector<LC>& v) { return computed('/', v[0], v[1], t, out); },
                                 t});
            }
        }
    }
    check(cases);
}

TEST_P(Functions, UnaryFunctions) {
    const auto values = columns(-3, 3);
    std::vector<FunctionCase> cases;
    for (const auto& d : arithmetic_types) {
        const auto* c = &values.at(d.kind());
        cases.push_back({label("conj", {d}, d), functions::conj(d), {c}, d, [](const std::vector<LC>& v) {
                             return std::conj(v[0]);
                         }});
        const DType n = is_complex(d) ? real_for(d) : d;
        cases.push_back({label("norm", {d}, n), functions::norm(d), {c}, n, [](const std::vector<LC>& v) {
                             return LC(std::norm(v[0]), 0);
                         }});
        for (const auto& out : arithmetic_types) {
            if (is_complex(d) && !is_complex(out)) continue;
            if (!is_signed(out) && is_signed(d)) continue;  // negative values: undefined in C++ (the reference)
            cases.push_back(
                {label("cast", {d}, out), functions::cast(d, out), {c}, out, [out](const std::vector<LC>& v) {
                     return convert(v[0], out);
                 }});
        }
        if (is_real(d) || is_complex(d)) {
            cases.push_back({label("exp", {d}, d), functions::exp(d), {c}, d, [](const std::vector<LC>& v) {
                                 return std::exp(v[0]);
                             }});
        }
        if (is_real(d)) {
            const DType cd = complex_for(d);
            cases.push_back(
                {label("polar_unit", {d}, cd), functions::polar_unit(d), {c}, cd, [](const std::vector<LC>& v) {
                     return std::polar(1.0L, v[0].real());
                 }});
            cases.push_back({label("polar", {d, d}, cd), functions::polar(d), {c, c}, cd, [](const std::vector<LC>& v) {
                                 return v[0] * std::polar(1.0L, v[1].real());
                             }});
        }
    }
    // cast from complex to real takes the real part.
    cases.push_back({"cast complex128 -> float32",
                     functions::cast(complex128, float32),
                     {&values.at(DType::Kind::complex128)},
                     float32,
                     [](const std::vector<LC>& v) { return LC(static_cast<float>(v[0].real()), 0); }});
    check(cases);
    EXPECT_THROW(functions::exp(int32), ArgumentError);
    EXPECT_THROW(functions::polar(complex64), ArgumentError);
}

TEST_P(Functions, PowForEveryBaseExponentAndOutput) {
    const auto bases = columns(0.5, 2.0, 0.5);    // positive (integers 1 and 2): real exponents stay real
    const auto signed_bases = columns(-3, 3, 1);  // integer exponents: any sign
    const auto int_exponents = columns(-5, 5);
    const auto small_exponents = columns(0, 7);
    const auto real_exponents = columns(-2.5, 2.5);
    std::vector<FunctionCase> cases;
    for (const auto& base : arithmetic_types) {
        for (const auto& exponent : {DType(int32), DType(int64), DType(uint32), DType(float32), DType(float64)}) {
            for (const auto& out : arithmetic_types) {
                if (is_complex(base) && !is_complex(out)) continue;
                const bool real_exponent = is_real(exponent);
                if (real_exponent && is_integer(base) && is_integer(out)) {
                    EXPECT_THROW(functions::pow(base, exponent, out), ArgumentError);
                    continue;
                }
                const bool int_out = is_integer(out);
                // Truncating a floating-point power to an integer is too sensitive to last-ulp
                // differences (and the base converted first is 0 or 1 here): not swept.
                if (real_exponent && int_out) continue;
                const Column* b = real_exponent ? &bases.at(base.kind()) : &signed_bases.at(base.kind());
                if (int_out && !is_signed(out)) b = &bases.at(base.kind());  // non-negative for unsigned outputs
                const Column* e = real_exponent                     ? &real_exponents.at(exponent.kind())
                                  : int_out || !is_signed(exponent) ? &small_exponents.at(exponent.kind())
                                                                    : &int_exponents.at(exponent.kind());
                cases.push_back({label("pow", {base, exponent}, out),
                                 functions::pow(base, exponent, out),
                                 {b, e},
                                 out,
                                 [out, int_out](const std::vector<LC>& v) {
                                     const LC x = convert(v[0], out);
                                     if (int_out) {
                                         long double r = 1;
                                         for (long long k = 0; k < static_cast<long long>(v[1].real()); ++k)
                                             r *= x.real();
                                         return convert(LC(r, 0), out);
                                     }
                                     if (is_complex(out)) return std::pow(x, v[1].real());
                                     return LC(std::pow(x.real(), v[1].real()), 0);
                                 }});
            }
        }
    }
    // Defaults: exponent and output of the base's type.
    cases.push_back({"pow(float32)",
                     functions::pow(float32),
                     {&bases.at(DType::Kind::float32), &real_exponents.at(DType::Kind::float32)},
                     float32,
                     [](const std::vector<LC>& v) { return LC(std::pow(v[0].real(), v[1].real()), 0); }});
    check(cases);
    EXPECT_THROW(functions::pow(float32, complex64), ArgumentError);
}

KJARNI_INSTANTIATE_DEVICE_TESTS(Functions);

}  // namespace
}  // namespace kjarni::test
