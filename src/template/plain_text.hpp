#pragma once
// Whether a template text renders to itself: rendering it can then be skipped.

#include <string_view>

namespace kjarni::detail {

/// True only when rendering `text` as the body of a def (DefTemplate::from_string, no arguments,
/// no globals) gives "\n" + text + "\n" (the def's newlines around the body); false when it might
/// not (then render it). See plain_text.cpp for why it is sound.
bool renders_as_itself(std::string_view text) noexcept;

}  // namespace kjarni::detail
