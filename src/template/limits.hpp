#pragma once
// Bounds that keep a hostile or buggy template from exhausting the stack, the memory or the time of
// the process: each is reported as a RenderError instead. They are far above what kernel
// templates need; the fuzzer lowers them to keep each input fast.

#include <cstddef>
#include <cstdint>

namespace kjarni::tmpl {

struct Limits {
    std::size_t max_nesting = 200;           // nested expressions and blocks while parsing
    std::size_t max_call_depth = 200;        // nested def / snippet / module calls while rendering
    std::uint64_t max_steps = 50'000'000;    // evaluation steps of one top-level render
    std::size_t max_string = 64u << 20;      // characters of any string, the output included
    std::size_t max_items = 16u << 20;       // items of a list (or range) built by a template
};

/// The process-wide limits (tests and the fuzzer may change them before rendering).
Limits& limits() noexcept;

}  // namespace kjarni::tmpl
