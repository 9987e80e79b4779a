#include "program/program_source.hpp"

#include <fmt/format.h>

#include <mutex>

#include "kjarni/error.hpp"
#include "program/prelude.hpp"

namespace kjarni::detail {

std::string full_source(const ApiId& api, std::string_view source, const ProgramOptions& options) {
    const std::string_view head = options.no_prelude ? std::string_view() : prelude(api, options.fast_math);
    std::string text;
    text.reserve(head.size() + source.size() + 1);  // all but the constant arrays' declarations
    text += head;
    if (!options.constant_arrays.empty()) {
        if (api != ApiId::cuda()) {
            throw UnsupportedError("constant_arrays are CUDA only: OpenCL cannot fill a program-scope __constant "
                                   "array from the host; pass the data as a CONSTANT_MEM kernel argument instead");
        }
        for (const auto& [name, spec] : options.constant_arrays) {
            if (spec.length == 0) throw ArgumentError("constant_arrays", "'" + name + "' has length 0");
            text += fmt::format("__constant__ {} {}[{}];\n", spec.ctype, name, spec.length);
        }
    }
    text += source;
    if (text.empty() || text.back() != '\n') text += '\n';
    return text;
}

namespace {

std::mutex observer_mutex;
BuildObserver& observer() {
    static BuildObserver instance;
    return instance;
}

}  // namespace

void set_build_observer(BuildObserver new_observer) {
    const std::lock_guard lock(observer_mutex);
    observer() = std::move(new_observer);
}

void notify_build_observer(std::string_view source, const ProgramOptions& options) {
    BuildObserver current;
    {
        const std::lock_guard lock(observer_mutex);
        current = observer();
    }
    if (current) current(source, options);
}

}  // namespace kjarni::detail
