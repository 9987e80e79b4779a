#pragma once
// The option arrays cuModuleLoadDataEx takes for a BuildOptions' JIT settings, with the log buffers
// they point into, and what the driver wrote back (wall time, log lengths, threads per block).

#include <cuda.h>

#include <cstddef>
#include <string>
#include <vector>

#include "backend/backend.hpp"

namespace kjarni::backend::cuda {

/// Kernel attribute ids of the driver for kjarni's settable attributes.
CUfunction_attribute driver_attribute(KernelAttributeId attribute) noexcept;

class JitOptionList {
public:
    /// The options of `options` (register limit, optimisation level, and JitOptions), the error log
    /// always, the information log where asked, and the wall time.
    explicit JitOptionList(const BuildOptions& options);
    JitOptionList(const JitOptionList&) = delete;
    JitOptionList& operator=(const JitOptionList&) = delete;

    unsigned int size() const noexcept { return static_cast<unsigned int>(options_.size()); }
    CUjit_option* options() noexcept { return options_.data(); }
    void** values() noexcept { return values_.data(); }
    const std::vector<CUjit_option>& option_ids() const noexcept { return options_; }
    /// The value slot of an option as a number (what was passed, or what the driver wrote back);
    /// nullopt when the option is not in the list.
    std::optional<std::uintptr_t> value(CUjit_option option) const noexcept;

    /// What the driver wrote (after the call): the error log text, and the whole report.
    std::string error_log() const;
    JitReport report() const;

private:
    void add(CUjit_option option, void* value);
    void add_number(CUjit_option option, std::uintptr_t number) { add(option, reinterpret_cast<void*>(number)); }
    std::string log(const std::vector<char>& buffer, CUjit_option size_option) const;

    std::vector<CUjit_option> options_;
    std::vector<void*> values_;
    std::vector<char> error_log_;
    std::vector<char> info_log_;
};

}  // namespace kjarni::backend::cuda
