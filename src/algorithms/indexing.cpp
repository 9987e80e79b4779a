#include "algorithms/indexing.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <mutex>

#include <fmt/format.h>

#include "algorithms/generated_kernel.hpp"
#include "algorithms/reduction_types.hpp"
#include "backend/backend.hpp"
#include "core/context_state.hpp"
#include "kjarni/detail/backend_access.hpp"
#include "kjarni/error.hpp"
#include "kjarni/program.hpp"

namespace kjarni::detail {

namespace {

/// The host copies of layout tables whose writes may still be reading them, per context (a service
/// of its state: it holds backend events, no public handle, so it keeps no context alive). A write
/// is asynchronous so that the launch after it does not wait for the queue; its bytes go when its
/// event is complete (checked at each new table; the rest waited for with the context).
class PendingTableWrites {
public:
    PendingTableWrites() = default;
    PendingTableWrites(const PendingTableWrites&) = delete;
    PendingTableWrites& operator=(const PendingTableWrites&) = delete;
    ~PendingTableWrites() {
        for (auto& p : pending_) {
            try {
                p.done->wait();
            } catch (...) {
                // A lost device: the driver will not read the bytes any more either.
            }
        }
    }

    void write(backend::Queue& queue, backend::Buffer& buffer, std::size_t offset, std::vector<std::byte> bytes) {
        const std::lock_guard lock(mutex_);
        std::erase_if(pending_, [](const Pending& p) { return p.done->is_complete(); });
        // The vector's storage stays where it is when the vector moves into the list.
        queue.write(buffer, offset, bytes.data(), bytes.size(), false);
        std::shared_ptr<backend::Event> done;
        try {
            done = queue.record_event_with(backend::EventFlags{false, false});
        } catch (...) {
            queue.synchronize();  // the bytes go with this frame: the write must be over
            throw;
        }
        pending_.push_back(Pending{std::move(done), std::move(bytes)});
    }

private:
    struct Pending {
        std::shared_ptr<backend::Event> done;
        std::vector<std::byte> bytes;
    };
    std::mutex mutex_;
    std::vector<Pending> pending_;
};

}  // namespace

void pad_table_axes(IterationSpace& space) {
    const std::size_t n = space.ndim();
    if (!layout_in_table(n)) return;
    const std::size_t extra = (n <= 16 ? 16 : max_generated_axes) - n;
    space.shape.insert(space.shape.begin(), extra, 1);
    space.reduced.insert(space.reduced.begin(), extra, false);
    for (auto& st : space.strides) st.insert(st.begin(), extra, 0);
}

std::vector<std::string> layout_names(std::size_t ndim, const std::vector<std::string>& operands) {
    std::vector<std::string> names;
    for (std::size_t d = 0; d < ndim; ++d) names.push_back(fmt::format("n{}", d));
    for (const auto& name : operands) {
        names.push_back(name + "_off");
        for (std::size_t d = 0; d < ndim; ++d) names.push_back(fmt::format("{}_s{}", name, d));
    }
    return names;
}

std::vector<std::int64_t> layout_values(const IterationSpace& space, const std::vector<std::ptrdiff_t>& offsets) {
    std::vector<std::int64_t> values;
    for (const std::size_t extent : space.shape) values.push_back(static_cast<std::int64_t>(extent));
    for (std::size_t k = 0; k < space.strides.size(); ++k) {
        values.push_back(offsets.at(k));
        for (const std::ptrdiff_t s : space.strides[k]) values.push_back(s);
    }
    return values;
}

std::string index_parameters(const std::vector<std::string>& names, const char* idx, bool table) {
    if (table) return fmt::format(", CONSTANT_MEM const {}* kjarni_layout", idx);
    std::string out;
    for (const auto& name : names) out += fmt::format(", {} {}", idx, name);
    return out;
}

std::string index_prologue(const std::vector<std::string>& names, const char* idx, bool table) {
    if (!table) return {};
    std::string out;
    for (std::size_t j = 0; j < names.size(); ++j)
        out += fmt::format("    const {} {} = kjarni_layout[{}];\n", idx, names[j], j);
    return out;
}

bool plain_flat_layout(const IterationSpace& space, const std::vector<std::ptrdiff_t>& offsets) {
    return space.ndim() == 1 && std::all_of(offsets.begin(), offsets.end(), [](std::ptrdiff_t o) { return o == 0; }) &&
           std::all_of(space.strides.begin(), space.strides.end(), [](const auto& s) { return s[0] == 1; });
}

std::string flat_layout_parameters(const std::vector<std::string>& names, const char* idx) {
    std::string out;
    for (const auto& name : names) out += fmt::format(", {0} {1}_off, {0} {1}_step", idx, name);
    return out;
}

std::string flat_layout_constants(const std::vector<std::string>& names, const char* idx) {
    std::string out;
    for (const auto& name : names) out += fmt::format("    const {0} {1}_off = 0, {1}_step = 1;\n", idx, name);
    return out;
}

void push_index_values(std::vector<KernelArg>& args, const std::vector<std::int64_t>& values, bool use_32_bits,
                       bool table, const Queue& queue, std::optional<Buffer>& holder) {
    if (!table) {
        for (const std::int64_t v : values) push_index(args, v, use_32_bits);
        return;
    }
    const std::size_t width = use_32_bits ? 4 : 8;
    std::vector<std::byte> bytes(values.size() * width);
    for (std::size_t j = 0; j < values.size(); ++j) {
        if (use_32_bits) {
            const auto v = static_cast<std::int32_t>(values[j]);
            std::memcpy(bytes.data() + j * width, &v, width);
        } else {
            std::memcpy(bytes.data() + j * width, &values[j], width);
        }
    }
    // A block of the algorithms' pool: queue-ordered reuse, so the table may be dropped right
    // after the launch is enqueued, and the block serves the next table at once.
    holder = temporary_buffer(queue, bytes.size());
    const Buffer& buffer = *holder;
    state_of(queue.device().context())
        .service<PendingTableWrites>()
        .write(*backend_of(queue), *backend_of(buffer), buffer.offset(), std::move(bytes));
    args.push_back(pack(buffer, LaunchTarget{0, buffer.device().index()}));
}

const char* index_type(bool use_32_bits) { return use_32_bits ? "int32_t" : "int64_t"; }

std::string layout_parameters(std::size_t ndim, const std::vector<std::string>& operands, const char* idx) {
    return index_parameters(layout_names(ndim, operands), idx, false);
}

std::string decode_offsets(std::size_t ndim, const std::vector<std::string>& operands, const char* idx,
                           const std::string& flat) {
    std::string out;
    for (const auto& name : operands) out += fmt::format("    {} {}_o = {}_off;\n", idx, name, name);
    if (ndim == 0) return out;
    out += fmt::format("    {{\n        {} rest = {};\n", idx, flat);
    // The last axis varies fastest; the first needs no division.
    for (std::size_t d = ndim; d-- > 0;) {
        if (d == 0) {
            for (const auto& name : operands) out += fmt::format("        {}_o += rest * {}_s0;\n", name, name);
        } else {
            out += fmt::format("        {{ const {} c = rest % n{}; rest /= n{};\n", idx, d, d);
            for (const auto& name : operands) out += fmt::format("          {}_o += c * {}_s{};\n", name, name, d);
            out += "        }\n";
        }
    }
    out += "    }\n";
    return out;
}

void push_index(std::vector<KernelArg>& args, std::int64_t value, bool use_32_bits) {
    if (use_32_bits) {
        const auto v = static_cast<std::int32_t>(value);
        args.push_back(scalar_arg(&v, sizeof(v)));
    } else {
        args.push_back(scalar_arg(&value, sizeof(value)));
    }
}

void push_layout_arguments(std::vector<KernelArg>& args, const IterationSpace& space,
                           const std::vector<std::ptrdiff_t>& offsets, bool use_32_bits) {
    for (const std::int64_t v : layout_values(space, offsets)) push_index(args, v, use_32_bits);
}

void check_axis_count(const IterationSpace& space, const std::string& what) {
    if (space.ndim() > max_generated_axes)
        throw UnsupportedError(fmt::format("{}: the operands' layouts leave {} axes that cannot be merged; generated "
                                           "kernels take at most {} (numpy's own limit is 64 axes before merging)",
                                           what, space.ndim(), max_generated_axes));
}

}  // namespace kjarni::detail
