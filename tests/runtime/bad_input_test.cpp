// The catalogue of bad input: across the public API (discovery, filters, sizes, shapes and strides,
// dtypes, templates, kernel arguments, launch geometry, pools, virtual buffers, host and managed
// memory, the algorithms), each bad input must give a typed kjarni exception that names the culprit
// (ArgumentError: its argument() is the culprit; other types: the message names it), never a crash,
// a hang, another exception type or a result. Each case is one line of a table, so that the
// catalogue reads as a list and a new case costs one line.

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <functional>
#include <limits>
#include <string>
#include <typeinfo>
#include <vector>

#include "kjarni/array_operations.hpp"
#include "kjarni/elementwise.hpp"
#include "kjarni/host_memory.hpp"
#include "kjarni/kjarni.hpp"
#include "kjarni/managed_memory.hpp"
#include "kjarni/memory_pool.hpp"
#include "kjarni/reduction.hpp"
#include "kjarni/scan.hpp"
#include "kjarni/static_kernel.hpp"
#include "kjarni/template.hpp"
#include "kjarni/virtual_buffers.hpp"
#include "support/test_devices.hpp"

namespace kjarni::test {
namespace {

using Kind = DType::Kind;

/// One bad input: what it is, the exception type it must raise, the culprit it must name.
struct BadInput {
    std::string what;
    std::function<void()> call;
    std::function<bool(const Error&)> is_expected_type;
    std::string type_name;
    std::string culprit;
};

template <class E>
BadInput bad(std::string what, std::string culprit, std::function<void()> call) {
    return BadInput{std::move(what), std::move(call),
                    [](const Error& e) { return dynamic_cast<const E*>(&e) != nullptr; }, typeid(E).name(),
                    std::move(culprit)};
}

/// Runs every case; reports each that does not raise the expected type naming the culprit.
void check_catalogue(const std::vector<BadInput>& cases) {
    for (const BadInput& c : cases) {
        SCOPED_TRACE(c.what);
        try {
            c.call();
            ADD_FAILURE() << c.what << ": no exception";
        } catch (const Error& e) {
            if (!c.is_expected_type(e)) {
                ADD_FAILURE() << c.what << ": " << typeid(e).name() << " instead of " << c.type_name << ": "
                              << e.what();
                continue;
            }
            if (const auto* argument = dynamic_cast<const ArgumentError*>(&e)) {
                // "argument 0 ('y')" names the parameter where the API reports names (OpenCL);
                // CUDA reports none, and then "argument 0" is the whole name.
                const std::string unnamed = c.culprit.substr(0, c.culprit.find(" ('"));
                EXPECT_TRUE(argument->argument() == c.culprit || argument->argument() == unnamed)
                    << c.what << ": " << argument->argument() << " instead of " << c.culprit << ": " << e.what();
            } else {
                EXPECT_NE(std::string(e.what()).find(c.culprit), std::string::npos)
                    << c.what << ": the message does not name '" << c.culprit << "': " << e.what();
            }
        } catch (const std::exception& e) {
            ADD_FAILURE() << c.what << ": not a kjarni::Error but " << typeid(e).name() << ": " << e.what();
        }
    }
}

/// How many cases the catalogue holds over all its tables (each test adds its own).
std::size_t& catalogue_size() {
    static std::size_t size = 0;
    return size;
}

class BadInputs : public DeviceTest {
protected:
    void run(const std::vector<BadInput>& cases) {
        catalogue_size() += cases.size();
        check_catalogue(cases);
    }
    Array floats(std::vector<std::size_t> shape) {
        return Array::empty(bound_device(), std::move(shape), Kind::float32);
    }
};

// ---- discovery, filters, selection ---------------------------------------------------------------

TEST_P(BadInputs, Discovery) {
    const Api api = context().api();
    const Platform platform = context().platform();
    run({
        bad<NotFoundError>("an API shortcut nobody has", "no-such-api", [] { Api::all_by_shortcut("no-such-api"); }),
        bad<ArgumentError>("a platform index past the last", "platform_idx", [&] { Platform::from_index(api, 1000); }),
        bad<ArgumentError>("a device index past the last", "device_idx", [&] { Device::from_index(platform, 1000); }),
        bad<ArgumentError>("a platform mask that is no regex", "include_masks",
                           [&] {
                               PlatformFilter filter;
                               filter.include_masks = {"(unclosed"};
                               Platform::all_filtered(api, filter);
                           }),
        bad<ArgumentError>("a device mask that is no regex", "exclude_masks",
                           [&] {
                               DeviceFilter filter;
                               filter.exclude_masks = {"[z-a]"};
                               Device::all_filtered(platform, filter);
                           }),
        bad<NotFoundError>("a device mask nothing matches", "matching the filters",
                           [&] {
                               SelectOptions options;
                               options.device_filter.include_masks = {"^this device does not exist$"};
                               select_devices(api, options);
                           }),
        bad<ArgumentError>("a device mask longer than 1024 characters", "include_masks",
                           [&] {
                               DeviceFilter filter;
                               filter.include_masks = {std::string(2000, 'a')};
                               Device::all_filtered(platform, filter);
                           }),
        bad<ArgumentError>("a device mask with a back-reference", "include_masks",
                           [&] {
                               DeviceFilter filter;
                               filter.include_masks = {"(a)\\1"};
                               Device::all_filtered(platform, filter);
                           }),
        bad<ArgumentError>("a device mask whose repetition count overflows", "include_masks",
                           [&] {
                               DeviceFilter filter;
                               filter.include_masks = {"a{99999999999999999999}"};
                               Device::all_filtered(platform, filter);
                           }),
        bad<ArgumentError>("a device mask with nested repetitions of a million states", "exclude_masks",
                           [&] {
                               DeviceFilter filter;
                               filter.exclude_masks = {"(a{999}){999}"};
                               Device::all_filtered(platform, filter);
                           }),
        bad<ArgumentError>("a context over no devices", "devices",
                           [] { Context::from_devices(std::span<const Device>{}); }),
        bad<ArgumentError>("a bound device past the context's", "index",
                           [&] { BoundDevice(context(), context().device_count()); }),
        bad<ArgumentError>("a subset position past the last", "position",
                           [&] {
                               const std::vector<std::size_t> positions = {context().device_count()};
                               context().devices().subset(positions);
                           }),
    });
}

// ---- buffers, queues -----------------------------------------------------------------------------

TEST_P(BadInputs, Buffers) {
    const Buffer buffer = Buffer::allocate(bound_device(), 64);
    std::vector<std::byte> host(65);
    run({
        bad<ArgumentError>("a sub-region past the end", "origin", [&] { buffer.get_sub_region(65, 0); }),
        bad<ArgumentError>("a sub-region too long", "size", [&] { buffer.get_sub_region(8, 57); }),
        bad<ArgumentError>("a sub-region whose end overflows", "size",
                           [&] { buffer.get_sub_region(8, std::numeric_limits<std::size_t>::max()); }),
        bad<ArgumentError>("setting more bytes than the buffer has", "host",
                           [&] { buffer.set(queue(), std::span<const std::byte>(host)); }),
        bad<ArgumentError>("getting more bytes than the buffer has", "host",
                           [&] { buffer.get(queue(), std::span<std::byte>(host)); }),
        bad<ArgumentError>("copying from a larger buffer", "source",
                           [&] { buffer.set(queue(), Buffer::allocate(bound_device(), 128)); }),
        bad<ArgumentError>("an empty fill pattern", "pattern",
                           [&] { buffer.fill(queue(), std::span<const std::byte>{}); }),
        bad<ArgumentError>("a fill pattern that does not divide the size", "pattern",
                           [&] {
                               const std::vector<std::byte> pattern(3);
                               buffer.fill(queue(), pattern);
                           }),
        bad<OutOfMemoryError>("a buffer larger than the device's memory", "",
                              [&] { Buffer::allocate(bound_device(), std::numeric_limits<std::size_t>::max() / 2); }),
    });
}

// ---- arrays: shapes, strides, indexing, dtypes ---------------------------------------------------

TEST_P(BadInputs, Arrays) {
    const Array a = floats({4, 6});
    run({
        bad<IndexOutOfBoundsError>("an index past the extent", "indices", [&] { a[{4}]; }),
        bad<IndexOutOfBoundsError>("a negative index past the extent", "indices", [&] { a[{-5}]; }),
        bad<IndexOutOfBoundsError>("more indices than axes", "indices",
                                   [&] {
                                       a[{0, 0, 0}];
                                   }),
        bad<ArgumentError>("two ellipses", "indices",
                           [&] {
                               a[{ellipsis, ellipsis}];
                           }),
        bad<ArgumentError>("a slice step of zero", "slices",
                           [&] {
                               a[{Slice{0, 4, 0}}];
                           }),
        bad<ArgumentError>("a transpose naming an axis twice", "axes",
                           [&] {
                               a.transpose({0, 0});
                           }),
        bad<ArgumentError>("a transpose of the wrong length", "axes", [&] { a.transpose({0}); }),
        bad<AxisError>("a transpose naming an axis past the last", "axes",
                       [&] {
                           a.transpose({0, 2});
                       }),
        bad<ArgumentError>("a reshape to another size", "shape",
                           [&] {
                               a.reshape({5, 5});
                           }),
        bad<ArgumentError>("a reshape with two unknown extents", "shape",
                           [&] {
                               a.reshape({-1, -1});
                           }),
        bad<ArgumentError>("a reshape with a negative extent", "shape",
                           [&] {
                               a.reshape({-2, 12});
                           }),
        bad<ArgumentError>("a view whose itemsize does not divide the last axis", "dtype",
                           [&] { a.view(Kind::complex128); }),
        bad<ArgumentError>("an array on a buffer too small for its layout", "layout",
                           [&] {
                               Array::from_buffer(Buffer::allocate(bound_device(), 16), Kind::float32,
                                                  Layout::contiguous({2, 4}, sizeof(float)));
                           }),
        bad<ArgumentError>("setting from host data of another shape", "source",
                           [&] {
                               a.set(queue(), HostArray(Kind::float32, {6, 4}));
                           }),
        bad<ArgumentError>("setting from host data of another dtype", "source",
                           [&] {
                               a.set(queue(), HostArray(Kind::float64, {4, 6}));
                           }),
        bad<ArgumentError>("getting into host data of another shape", "dest",
                           [&] { a.get(queue(), HostArray(Kind::float32, {24})); }),
        bad<ArgumentError>("host data of the wrong C++ type", "T",
                           [&] { HostArray(Kind::float32, {3}).to_vector<double>(); }),
        bad<ArgumentError>("a struct dtype with two fields of one name", "fields",
                           [] {
                               DType::struct_({FieldSpec("x", Kind::int32), FieldSpec("x", Kind::float32)});
                           }),
        bad<ArgumentError>(
            "a struct dtype with overlapping fields", "fields",
            [] {
                DType::struct_({FieldSpec("x", Kind::int32, Offset{0}), FieldSpec("y", Kind::int32, Offset{2})});
            }),
        bad<ArgumentError>("a struct dtype with an itemsize below its last field", "itemsize",
                           [] {
                               StructOptions options;
                               options.itemsize = 2;
                               DType::struct_({FieldSpec("x", Kind::int32)}, options);
                           }),
        bad<ArgumentError>("a struct dtype without fields", "fields", [] { DType::struct_({}); }),
        bad<ArgumentError>("a field path that does not exist", "path",
                           [] { field_at(DType::struct_({FieldSpec("x", Kind::int32)}), FieldPath{"y"}); }),
    });
}

// ---- array operations ----------------------------------------------------------------------------

TEST_P(BadInputs, ArrayOperations) {
    const Array a = floats({4, 6});
    const Array b = floats({3, 5});
    const Array indices = Array::empty(bound_device(), {2}, Kind::float32);
    run({
        bad<ArgumentError>("concatenating nothing", "arrays", [&] { concatenate(queue(), {}); }),
        bad<AxisError>("concatenating along an axis past the last", "axis",
                       [&] {
                           concatenate(queue(), {a, a}, 2);
                       }),
        bad<ArgumentError>("concatenating mismatched shapes", "arrays[1]",
                           [&] {
                               concatenate(queue(), {a, b}, 0);
                           }),
        bad<ArgumentError>("stacking mismatched shapes", "arrays[1]",
                           [&] {
                               stack(queue(), {a, b});
                           }),
        bad<ArgumentError>("splitting into sections that do not divide", "sections", [&] { split(a, 5, 1); }),
        bad<ArgumentError>("splitting into zero sections", "sections", [&] { array_split(a, 0); }),
        bad<ArgumentError>("taking with floating-point indices", "indices", [&] { take(queue(), a, indices, 0); }),
        bad<ArgumentError>("a reshape that must copy when copying is refused", "copy",
                           [&] { reshape(queue(), a.transpose(), {24}, Order::C, CopyMode::never); }),
        bad<ArgumentError>("dsplit of a 2-d array", "array", [&] { dsplit(a, 2); }),
    });
}

// ---- programs, kernels, launch geometry, templates -----------------------------------------------

TEST_P(BadInputs, ProgramsAndKernels) {
    static const char* const source = R"(
KERNEL void scale(GLOBAL_MEM float* y, GLOBAL_MEM const float* x, float a, int n)
{
    const SIZE_T i = get_global_id(0);
    if (i < (SIZE_T)n) y[i] = a * x[i];
}
)";
    const Program program(bound_device(), source);
    const Kernel scale = program.kernel("scale");
    const Buffer y = Buffer::allocate(bound_device(), 64 * sizeof(float));
    const Buffer x = Buffer::allocate(bound_device(), 64 * sizeof(float));
    const std::size_t max_local = bound_device().params().max_total_local_size;
    run({
        bad<CompileError>("a source that does not compile", "undeclared_thing",
                          [&] {
                              Program(bound_device(), "KERNEL void k(GLOBAL_MEM int* y) { y[0] = undeclared_thing; }");
                          }),
        bad<ArgumentError>("a kernel name the program lacks", "name", [&] { program.kernel("no_such_kernel"); }),
        bad<ArgumentError>("too few kernel arguments", "args", [&] { scale(queue(), {64}, std::nullopt, y, x, 2.0f); }),
        bad<ArgumentError>("too many kernel arguments", "args",
                           [&] { scale(queue(), {64}, std::nullopt, y, x, 2.0f, 64, 1); }),
        bad<ArgumentError>("a scalar where a buffer is expected", "argument 0 ('y')",
                           [&] { scale(queue(), {64}, std::nullopt, 1.0f, x, 2.0f, 64); }),
        bad<ArgumentError>("a buffer where a scalar is expected", "argument 2 ('a')",
                           [&] { scale(queue(), {64}, std::nullopt, y, x, x, 64); }),
        bad<ArgumentError>("a scalar of the wrong size", "argument 2 ('a')",
                           [&] { scale(queue(), {64}, std::nullopt, y, x, 2.0, 64); }),
        bad<ArgumentError>("a global size of no dimensions", "global_size", [&] { scale.prepare(Sizes{}); }),
        bad<ArgumentError>("a global size of four dimensions", "global_size",
                           [&] {
                               scale.prepare(Sizes{4, 4, 4, 4});
                           }),
        bad<ArgumentError>("a local size that does not divide the global size", "local_size",
                           [&] { scale.prepare(Sizes{64}, Sizes{3}); }),
        bad<ArgumentError>("a local size above the device's limit", "local_size",
                           [&] { scale.prepare(Sizes{max_local * 2}, Sizes{max_local * 2}); }),
        bad<ArgumentError>("local and global sizes of different dimensions", "local_size",
                           [&] {
                               scale.prepare(Sizes{64}, Sizes{8, 1});
                           }),
        bad<ArgumentError>("a local size of zero", "local_size", [&] { scale.prepare(Sizes{64}, Sizes{0}); }),
        bad<RenderError>("a template naming an undefined variable", "undefined_variable",
                         [&] {
                             Program(bound_device(),
                                     TemplateSource{std::string(
                                         "KERNEL void k(GLOBAL_MEM int* y) { y[0] = ${undefined_variable}; }")},
                                     {}, {});
                         }),
        bad<RenderError>("a template that does not parse", "line",
                         [&] {
                             Program(bound_device(),
                                     TemplateSource{std::string("% for i in range(3):\nKERNEL void k() {}\n")}, {}, {});
                         }),
        bad<RenderError>("a def template given too many arguments", "takes 1 positional argument",
                         [&] {
                             Program(bound_device(),
                                     TemplateSource{DefTemplate::from_string("d", {"v"}, "KERNEL void k() {}")},
                                     {Value(1), Value(2)}, {});
                         }),
    });
}

// ---- pools, host memory, managed memory, virtual buffers -----------------------------------------

TEST_P(BadInputs, Memory) {
    run({
        bad<ArgumentError>("a pool with too many leading bits", "leading_bits_in_bin_id", [] { MemoryPool({}, 17); }),
        bad<ArgumentError>("a pool without an allocator", "allocator", [] { MemoryPool(Allocator{}); }),
        bad<ArgumentError>("a pool whose allocator returns too little", "allocator",
                           [&] {
                               const MemoryPool pool(
                                   [](const BoundDevice& device, std::size_t) { return Buffer::allocate(device, 1); });
                               pool.allocate(queue(), 1024);
                           }),
        bad<ArgumentError>("a host pool with too many leading bits", "leading_bits_in_bin_id",
                           [] { HostMemoryPool({}, 99); }),
    });
}

// ---- the algorithms ------------------------------------------------------------------------------

TEST_P(BadInputs, Algorithms) {
    const Array a = floats({4, 6});
    const Array b = floats({5, 6});
    run({
        bad<AxisError>("a reduction axis past the last", "axes",
                       [&] {
                           ReduceOptions options;
                           options.axes = std::vector<int>{2};
                           sum(queue(), a, options);
                       }),
        bad<ArgumentError>("a reduction axis given twice", "axes",
                           [&] {
                               ReduceOptions options;
                               options.axes = std::vector<int>{1, -1};
                               sum(queue(), a, options);
                           }),
        bad<ArgumentError>("a reduction output of the wrong shape", "out",
                           [&] {
                               ReduceOptions options;
                               options.axes = std::vector<int>{0};
                               options.out = floats({4});
                               sum(queue(), a, options);
                           }),
        bad<ArgumentError>("argmin of an empty array", "array", [&] { argmin(queue(), floats({0})); }),
        bad<ArgumentError>("a dot of mismatched lengths", "b", [&] { kjarni::dot(queue(), floats({4}), floats({5})); }),
        bad<ArgumentError>("an elementwise kernel whose arguments do not parse", "arguments",
                           [] { ElementwiseKernel("float *y, const", "y[i] = 0"); }),
        bad<ArgumentError>("an elementwise call with too few operands", "args",
                           [&] {
                               const ElementwiseKernel k("float *y, const float *x", "y[i] = x[i]");
                               k(queue(), a);
                           }),
        bad<ArgumentError>("an elementwise call on arrays of different shapes", "kernel 'kjarni_elementwise'",
                           [&] {
                               const ElementwiseKernel k("float *y, const float *x", "y[i] = x[i]");
                               k(queue(), a, b);
                           }),
    });
}

// Bad input the first catalogue found accepted (a foreign buffer launched with, bytes reinterpreted
// between dtypes of one item size, a scan's axis reported as "axes"), refused since.
TEST_P(BadInputs, ArgumentsOfOtherContextsAndDTypes) {
    const Program program(bound_device(), R"(
KERNEL void scale(GLOBAL_MEM float* y, GLOBAL_MEM const float* x, float a, int n)
{
    const SIZE_T i = get_global_id(0);
    if (i < (SIZE_T)n) y[i] = a * x[i];
}
)");
    const Kernel scale = program.kernel("scale");
    const Buffer x = Buffer::allocate(bound_device(), 64 * sizeof(float));
    const Array a = floats({4, 6});
    const Array ints = Array::empty(bound_device(), {4, 6}, Kind::int32);
    check_catalogue({
        bad<ArgumentError>("a buffer of another context", "argument 0 ('y')",
                           [&] {
                               const Context other = Context::from_devices(GetParam().device());
                               const Buffer foreign = Buffer::allocate(other.devices()[0], 64 * sizeof(float));
                               scale(queue(), {64}, std::nullopt, foreign, x, 2.0f, 64);
                               queue().synchronize();
                           }),
        bad<ArgumentError>("a buffer of another context in a later position", "argument 1 ('x')",
                           [&] {
                               const Context other = Context::from_devices(GetParam().device());
                               const Buffer foreign = Buffer::allocate(other.devices()[0], 64 * sizeof(float));
                               scale(queue(), {64}, std::nullopt, x, foreign, 2.0f, 64);
                               queue().synchronize();
                           }),
        bad<ArgumentError>("copying between arrays of other dtypes", "source", [&] { a.set(queue(), ints); }),
        bad<ArgumentError>("copying from host data of another dtype", "source",
                           [&] {
                               const std::vector<std::int32_t> host(24, 1);
                               a.set(queue(), std::span<const std::int32_t>(host));
                           }),
        bad<ArgumentError>("copying into host data of another dtype", "dest",
                           [&] {
                               std::vector<std::uint32_t> host(24);
                               a.get(queue(), std::span<std::uint32_t>(host));
                           }),
        bad<AxisError>("a scan axis past the last", "axis", [&] { cumsum(queue(), a, 2); }),
        bad<AxisError>("a scan axis before the first", "axis", [&] { cumsum(queue(), a, -3); }),
        bad<IndexOutOfBoundsError>("take of an index past the extent", "indices",
                                   [&] {
                                       const Array where = Array::empty(bound_device(), {1}, Kind::int64);
                                       fill(queue(), where, 7);
                                       (void)take(queue(), a, where, 1);
                                   }),
        bad<ScalarOverflowError>("an int8 array plus 300", "scalar",
                                 [&] {
                                     const Array small = Array::empty(bound_device(), {3}, Kind::int8);
                                     (void)evaluate(queue(), Expr(small) + Expr(300));
                                 }),
    });
}

/// The catalogue's size: at least 60 distinct bad inputs (counted on the first device only).
TEST_P(BadInputs, ZzCatalogueHoldsAtLeastSixtyCases) {
    if (catalogue_size() == 0) GTEST_SKIP() << "run with the other BadInputs tests";
    // A shard runs some of the others only (the GPU machine's suite runs in shards).
    if (std::getenv("GTEST_TOTAL_SHARDS") != nullptr) GTEST_SKIP() << "the suite runs in shards";
    EXPECT_GE(catalogue_size() / test_devices().size(), 60U) << "cases per device";
}

KJARNI_INSTANTIATE_DEVICE_TESTS(BadInputs);

}  // namespace
}  // namespace kjarni::test
