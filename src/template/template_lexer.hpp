#pragma once
// First pass over a template: splits the source into text, ${...} substitutions, control lines and
// <%def> tags, applying Mako's line rules (control, comment and lone tag lines vanish with their
// newline; a backslash before a newline joins lines; %% at a line start is a literal %).

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace kjarni::tmpl {

struct Chunk {
    enum class Kind {
        Text,
        Expr,
        Control,
        DefOpen,
        DefClose,
        Code,
        Module,
        CallOpen,
        CallClose,
        Tag,
        BlockOpen,  // <%block name="..." filter="...">: begin/end the name (empty: anonymous), args_* the filter
        BlockClose,
        FilteredText  // <%text filter="...">: text its literal body, args_* the filter
    };
    Kind kind;
    std::uint32_t pos;             // offset of the construct ("${", the '%', "<%def")
    std::string text;              // Text: the text
    std::uint32_t begin = 0;       // Expr / Control / DefOpen / Code / Module: the range of the expression, the
    std::uint32_t end = 0;         // control line after '%', the def's signature (inside the name=""
                                   // quotes), or the Python code between "<%" (or "<%!") and "%>"
    bool self_closing = false;     // DefOpen written as <%def .../>
    std::uint32_t args_begin = 0;  // CallOpen: the range of its args="..." (empty when none); its
    std::uint32_t args_end = 0;    // expr="..." is begin/end. DefOpen: its filter="..." (or empty)
    // Tag: `<%include .../>`, `<%inherit .../>`, `<%namespace .../>` or `<%page .../>`: its name
    // in tag_def, its attributes in tag_attrs.
    // CallOpen written as a custom tag, `<%self:name attr="value">`: the namespace and the def
    // ("self", "name") at ns_pos, and its other attributes (their values' ranges), the def's
    // keyword arguments.
    std::string tag_ns = {};
    std::string tag_def = {};
    std::uint32_t tag_pos = 0;
    std::vector<std::pair<std::string, std::pair<std::uint32_t, std::uint32_t>>> tag_attrs = {};
};

/// Throws PositionedError on an unterminated ${ or a malformed <%def> tag.
std::vector<Chunk> lex_template(std::string_view source);

}  // namespace kjarni::tmpl
