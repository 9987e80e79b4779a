// The example of docs/arrays.md: device arrays and their host counterpart, numpy's views (indexing,
// slices, transpose, reshape) and transfers of any layout, copies and conversions, the array
// operations, a MultiArray over several devices, and an Array as a kernel argument. Every result is
// checked against the same indexing done on the CPU; the first argument names the device (a device
// specifier), else the first device is used.

#include <kjarni/kjarni.hpp>

#include <cstdint>
#include <iostream>
#include <random>
#include <vector>

namespace {

std::mt19937 engine(std::random_device{}());

bool report(bool ok, const char* what) {
    std::cout << what << ": " << (ok ? "OK" : "MISMATCH") << '\n';
    return ok;
}

int run(const kjarni::Context& context) {
    const kjarni::Queue queue(context.devices()[0]);
    constexpr std::size_t rows = 6, cols = 8;
    std::uniform_int_distribution<std::int32_t> uniform(-1000, 1000);
    std::vector<std::int32_t> host(rows * cols);
    for (auto& v : host) v = uniform(engine);
    // The element a[r][c] of the host data, C order.
    const auto at = [&](std::size_t r, std::size_t c) { return host[r * cols + c]; };
    bool ok = true;

    //! [create]
    // A device copy of C-ordered host data, shape {6, 8}; and uninitialized and zeroed arrays.
    const kjarni::Array a = kjarni::Array::from_host(queue, std::span<const std::int32_t>(host), {rows, cols});
    const kjarni::Array empty = kjarni::Array::empty(queue.device(), {rows, cols}, kjarni::dtypes::float32);
    const kjarni::Array zeros = kjarni::Array::zeros(queue, {3, 4, 5}, kjarni::dtypes::complex64, kjarni::Order::F);
    std::cout << "a: " << a.dtype().name() << ", " << a.ndim() << " dimensions, " << a.size() << " elements, "
              << a.nbytes() << " bytes\n";
    //! [create]
    ok = report(empty.shape() == std::vector<std::size_t>{rows, cols} && zeros.is_f_contiguous(),
                "empty and zeros: shapes and layouts") &&
         ok;

    //! [views]
    using kjarni::Slice;
    const kjarni::Array row = a[{2}];                                                             // a[2]: shape {8}
    const kjarni::Array block = a[{Slice{1, 5}, Slice{std::nullopt, std::nullopt, 2}}];           // a[1:5, ::2]: {4, 4}
    const kjarni::Array mirrored = a[{kjarni::ellipsis, Slice{std::nullopt, std::nullopt, -1}}];  // a[..., ::-1]
    const kjarni::Array column = a[{Slice{}, 3, kjarni::newaxis}];  // a[:, 3, np.newaxis]: {6, 1}
    const kjarni::Array transposed = a.transpose();                 // a.T: {8, 6}
    const kjarni::Array flat = a.reshape({-1});                     // a view: {48}
    const kjarni::Array cube = a.reshape({2, 3, -1});               // a view: {2, 3, 8}
    //! [views]

    //! [get]
    // A view comes back as a new C-contiguous host array, whatever its strides.
    const kjarni::HostArray block_host = block.get(queue);
    const std::int32_t corner = block_host.at<std::int32_t>({3, 3});  // a[4, 6]
    const std::vector<std::int32_t> mirrored_values = mirrored.get(queue).to_vector<std::int32_t>();
    //! [get]
    bool views_ok = corner == at(4, 6) && row.shape() == std::vector<std::size_t>{cols} &&
                    column.shape() == std::vector<std::size_t>{rows, 1} && cube.shape()[2] == cols &&
                    flat.shape() == std::vector<std::size_t>{rows * cols};
    for (std::size_t r = 0; r < 4; ++r) {
        for (std::size_t c = 0; c < 4; ++c)
            views_ok = views_ok && block_host.at<std::int32_t>({r, c}) == at(1 + r, 2 * c);
    }
    for (std::size_t r = 0; r < rows; ++r) {
        for (std::size_t c = 0; c < cols; ++c)
            views_ok = views_ok && mirrored_values[r * cols + c] == at(r, cols - 1 - c);
    }
    const std::vector<std::int32_t> transposed_values = transposed.get(queue).to_vector<std::int32_t>();
    for (std::size_t c = 0; c < cols; ++c) {
        for (std::size_t r = 0; r < rows; ++r) views_ok = views_ok && transposed_values[c * rows + r] == at(r, c);
    }
    ok = report(views_ok, "views: a[1:5, ::2], a[..., ::-1], a.T read back") && ok;

    //! [set]
    // Writing through a view writes the array it comes from (numpy's a[1:5, ::2] = ...).
    const std::vector<std::int32_t> sevens(block.size(), 7);
    block.set(queue, std::span<const std::int32_t>(sevens));
    const std::vector<std::int32_t> after = a.get(queue).to_vector<std::int32_t>();
    //! [set]
    for (std::size_t r = 1; r < 5; ++r) {
        for (std::size_t c = 0; c < cols; c += 2) host[r * cols + c] = 7;  // the same on the CPU's copy
    }
    ok = report(after == host, "set through the view a[1:5, ::2]") && ok;

    //! [copies]
    const kjarni::Array t_copy = transposed.copy(queue);  // C-contiguous {8, 6}
    const kjarni::Array halves = kjarni::evaluate(queue, kjarni::astype(a, kjarni::dtypes::float64) / 2);
    const kjarni::Array as_float = a.astype(queue, kjarni::dtypes::float32);
    const kjarni::Array wide = kjarni::concatenate(queue, {a, mirrored}, 1);  // {6, 16}: a new array
    const std::vector<kjarni::Array> parts = kjarni::split(wide, 2, 1);       // two {6, 8} views of wide
    //! [copies]
    const std::vector<double> halves_values = halves.get(queue).to_vector<double>();
    const std::vector<float> float_values = as_float.get(queue).to_vector<float>();
    const std::vector<std::int32_t> wide_values = wide.get(queue).to_vector<std::int32_t>();
    bool copies_ok = t_copy.is_c_contiguous() && parts.size() == 2 &&
                     parts[1].get(queue).to_vector<std::int32_t>() == mirrored.get(queue).to_vector<std::int32_t>();
    for (std::size_t r = 0; r < rows; ++r) {
        for (std::size_t c = 0; c < cols; ++c) {
            copies_ok = copies_ok && halves_values[r * cols + c] == at(r, c) / 2.0 &&
                        float_values[r * cols + c] == static_cast<float>(at(r, c)) &&
                        wide_values[r * 2 * cols + c] == at(r, c) &&
                        wide_values[r * 2 * cols + cols + c] == at(r, cols - 1 - c);
        }
    }
    ok = report(copies_ok, "copy, astype, concatenate, split") && ok;

    //! [take]
    // A gather with an index array on the device (numpy's take); -1 counts from the end.
    const std::vector<std::int64_t> picks{5, 0, -1, 2};
    const kjarni::Array indices = kjarni::Array::from_host(queue, std::span<const std::int64_t>(picks), {4});
    const kjarni::Array picked_rows = kjarni::take(queue, a, indices, 0);  // {4, 8}
    //! [take]
    const std::vector<std::int32_t> picked = picked_rows.get(queue).to_vector<std::int32_t>();
    bool take_ok = true;
    for (std::size_t k = 0; k < picks.size(); ++k) {
        const std::size_t r = picks[k] < 0 ? rows - 1 : static_cast<std::size_t>(picks[k]);
        for (std::size_t c = 0; c < cols; ++c) take_ok = take_ok && picked[k * cols + c] == at(r, c);
    }
    ok = report(take_ok, "take of rows 5, 0, -1, 2") && ok;

    //! [kernel]
    // An Array as a kernel argument is a pointer to its first element; the kernel is told the
    // strides it needs (here: of the transposed view, in elements). Dimension 0 of the launch
    // varies fastest: it runs along the rows of the result.
    const kjarni::Program program(queue.device(), R"(
KERNEL void add_one(GLOBAL_MEM int* out, GLOBAL_MEM const int* in, int stride0, int stride1)
{
    const SIZE_T i = get_global_id(1), j = get_global_id(0);
    out[i * get_global_size(0) + j] = in[i * stride0 + j * stride1] + 1;
}
)");
    const kjarni::Array out = kjarni::Array::empty(queue.device(), transposed.shape(), transposed.dtype());
    const auto stride = [&](std::size_t axis) {
        return static_cast<int>(transposed.strides()[axis] /
                                static_cast<std::ptrdiff_t>(transposed.dtype().itemsize()));
    };
    const kjarni::Sizes global{transposed.shape()[1], transposed.shape()[0]};
    program.kernel("add_one")(queue, global, std::nullopt, out, transposed, stride(0), stride(1));
    //! [kernel]
    const std::vector<std::int32_t> out_values = out.get(queue).to_vector<std::int32_t>();
    bool kernel_ok = true;
    for (std::size_t c = 0; c < cols; ++c) {
        for (std::size_t r = 0; r < rows; ++r) kernel_ok = kernel_ok && out_values[c * rows + r] == at(r, c) + 1;
    }
    ok = report(kernel_ok, "kernel over a transposed view") && ok;

    //! [multi]
    // The rows split over every device of the context (one part per device), each part computed
    // where it lives, the whole gathered back.
    const kjarni::MultiQueue queues = kjarni::MultiQueue::on_devices(context.devices());
    const kjarni::MultiArray spread =
        kjarni::MultiArray::from_host(queues, kjarni::HostArray::from(host, {rows, cols}));
    const kjarni::MultiArray doubled = kjarni::evaluate(queues, 2 * kjarni::Expr(spread));
    const std::vector<std::int32_t> gathered = doubled.get(queues).to_vector<std::int32_t>();
    //! [multi]
    bool multi_ok = true;
    for (std::size_t i = 0; i < host.size(); ++i) multi_ok = multi_ok && gathered[i] == 2 * host[i];
    ok = report(multi_ok, "MultiArray: 2 * a, split over the context's devices") && ok;
    return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
    try {
        const std::vector<kjarni::Device> devices = kjarni::devices_from_specifiers(argc > 1 ? argv[1] : "");
        if (devices.empty()) throw kjarni::NotFoundError("no device: no GPU API is available here");
        // Every device of the first device's platform: the MultiArray spreads over them.
        return run(kjarni::Context::from_devices(devices.front().platform().devices()));
    } catch (const kjarni::Error& e) {
        std::cerr << "arrays example failed: " << e.what() << '\n';
        return 1;
    }
}
